package cuda

import (
	"embed"
	"encoding/binary"
	"fmt"
)

// kernelFiles holds kernels/README.md and, when the build ran nvcc, pyfss.fatbin.
//
//go:embed kernels
var kernelFiles embed.FS

// fatbin is the compiled kernels, or nil when the build had no nvcc.
var fatbin, _ = kernelFiles.ReadFile("kernels/pyfss.fatbin")

var fatbinArchs, fatbinErr = parseFatbinArchs(fatbin)

// Fatbin container layout (as nvcc writes it): a 16-byte header (magic, version,
// header size, size of the entries) and entries, each a header of its own with the
// kind (1 PTX, 2 ELF machine code) at 0, its header size at 4, its payload size at 8
// and the architecture number at 28, followed by the payload.
const (
	fatbinMagic = 0xba55ed50
	fatbinPTX   = 1
	fatbinELF   = 2
)

type fatbinEntry struct {
	kind    int
	arch    int
	payload []byte
}

func parseFatbin(b []byte) ([]fatbinEntry, error) {
	if len(b) < 16 || binary.LittleEndian.Uint32(b) != fatbinMagic {
		return nil, fmt.Errorf("cuda: embedded kernels are not a fatbin")
	}
	end := uint64(binary.LittleEndian.Uint16(b[6:])) + binary.LittleEndian.Uint64(b[8:])
	if end > uint64(len(b)) {
		return nil, fmt.Errorf("cuda: embedded fatbin is truncated")
	}
	var entries []fatbinEntry
	for off := uint64(binary.LittleEndian.Uint16(b[6:])); off < end; {
		if end-off < 32 {
			return nil, fmt.Errorf("cuda: embedded fatbin has a truncated entry at %d", off)
		}
		h := b[off:]
		hdr, size := uint64(binary.LittleEndian.Uint32(h[4:])), uint64(binary.LittleEndian.Uint32(h[8:]))
		if hdr < 32 || off+hdr+size > end {
			return nil, fmt.Errorf("cuda: embedded fatbin has a bad entry at %d", off)
		}
		entries = append(entries, fatbinEntry{
			kind:    int(binary.LittleEndian.Uint16(h)),
			arch:    int(binary.LittleEndian.Uint32(h[28:])),
			payload: b[off+hdr : off+hdr+size],
		})
		off += hdr + size
	}
	return entries, nil
}

// parseFatbinArchs names the fatbin's entries: sm_XX for machine code, compute_XX for PTX.
func parseFatbinArchs(b []byte) ([]string, error) {
	if len(b) == 0 {
		return nil, nil
	}
	entries, err := parseFatbin(b)
	if err != nil {
		return nil, err
	}
	var archs []string
	for _, e := range entries {
		switch e.kind {
		case fatbinELF:
			archs = append(archs, fmt.Sprintf("sm_%d", e.arch))
		case fatbinPTX:
			archs = append(archs, fmt.Sprintf("compute_%d", e.arch))
		}
	}
	return archs, nil
}

// kernelsInfo fills the part of Info that does not depend on the driver, and returns
// the error that keeps the kernels from being loaded, if any.
func kernelsInfo(info *Info) error {
	switch {
	case len(fatbin) == 0:
		return ErrNoKernels
	case fatbinErr != nil:
		return fatbinErr
	}
	info.KernelsCompiled = true
	info.Archs = fatbinArchs
	return nil
}
