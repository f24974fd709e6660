//go:build unix

package gofss

import "syscall"

// processCPUNs is the CPU time this process has used, user and system, in ns: on
// a shared machine a benchmark's CPU time varies less than its wall time, which
// counts the turns other processes take on the core.
func processCPUNs() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
