package gofss

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss/internal/scatter"
)

// vmFlags returns the VmFlags of the mapping that holds addr, from /proc/self/smaps.
func vmFlags(t *testing.T, addr uintptr) []string {
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 && !strings.HasSuffix(strings.Fields(line)[0], ":") {
			in = lo <= addr && addr < hi
		} else if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Fields(line)[1:]
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return nil
}

// Gen marks the whole huge pages of its output for huge pages ("hg"), and only those:
// a buffer of the same size that Gen did not write keeps its mapping's flags.
func TestGenAdvisesHugePages(t *testing.T) {
	if HugePageMode() == "unsupported" {
		t.Skip("no transparent huge pages here")
	}
	const inBits, keys = 20, 8192 // 5.25 MiB of correction words
	dpf, err := NewDpf(inBits, Bytes, testPrgs(t, 2)[0])
	require.NoError(t, err)
	dcf, err := NewDcf(inBits, Bytes, testPrgs(t, 4)[0], Lt)
	require.NoError(t, err)
	for name, s := range map[string]scheme{"dpf": dpf, "dcf": dcf} {
		t.Run(name, func(t *testing.T) {
			other := make([]Cw, keys*(inBits+1))
			cws := make([]Cw, keys*(inBits+1))
			// other may sit in memory an earlier test's output advised: its flags
			// must stay as they are, whatever they are.
			otherFlags := vmFlags(t, uintptr(unsafe.Pointer(&hugeRange(other)[0])))
			seeds := make([]Block, 2*keys)
			for k := range keys {
				seeds[2*k+1].Lo = 1 // a pair of equal seeds is refused
			}
			err := s.Gen(cws, seeds, make([]Uint128, keys), make([]Block, keys))
			require.NoError(t, err)
			inside := hugeRange(cws)
			require.NotNil(t, inside)
			require.Contains(t, vmFlags(t, uintptr(unsafe.Pointer(&inside[0]))), "hg")
			require.Equal(t, otherFlags, vmFlags(t, uintptr(unsafe.Pointer(&hugeRange(other)[0]))))
		})
	}
}

// EvalAll and Eval mark the whole huge pages of their output for huge pages, so that
// a fresh output faults once per 2 MiB as they write it rather than once per 4 KiB.
func TestEvalAdvisesOutputHugePages(t *testing.T) {
	if HugePageMode() == "unsupported" {
		t.Skip("no transparent huge pages here")
	}
	const inBits = 20 // EvalAll writes 16 MiB
	dpf, err := NewDpf(inBits, Bytes, testPrgs(t, 2)[0])
	require.NoError(t, err)
	cws := make([]Cw, inBits+1)
	seeds := []Block{{}, {Lo: 1}}
	require.NoError(t, dpf.Gen(cws, seeds, make([]Uint128, 1), make([]Block, 1)))
	calls := map[string]func(dst []Block) error{
		"eval_all": func(dst []Block) error { return dpf.EvalAll(dst, 0, seeds[:1], cws) },
		"eval_all_range": func(dst []Block) error {
			return dpf.EvalAllRange(dst, 0, seeds[:1], cws, 0, uint64(len(dst)))
		},
		"eval": func(dst []Block) error { return dpf.Eval(dst, 0, seeds[:1], cws, make([]Uint128, len(dst))) },
	}
	// All buffers are made before any call, so that none reuses advised memory.
	other := make([]Block, 1<<inBits)
	otherFlags := vmFlags(t, uintptr(unsafe.Pointer(&hugeRange(other)[0])))
	dsts := map[string][]Block{}
	for name := range calls {
		dsts[name] = make([]Block, 1<<inBits)
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			dst := dsts[name]
			require.NoError(t, call(dst))
			inside := hugeRange(dst)
			require.NotNil(t, inside)
			require.Contains(t, vmFlags(t, uintptr(unsafe.Pointer(&inside[0]))), "hg")
			require.Equal(t, otherFlags, vmFlags(t, uintptr(unsafe.Pointer(&hugeRange(other)[0]))))
		})
	}
}

// The multi-point schemes' full-domain evaluations mark their output for huge
// pages too, and EvalAll the per-region lists it queues its adds in (tens of MiB,
// fresh after each garbage collection empties their pool).
func TestMpfEvalAllAdvisesHugePages(t *testing.T) {
	if HugePageMode() == "unsupported" {
		t.Skip("no transparent huge pages here")
	}
	const inBits = 18 // 4 MiB of output: a whole huge page at least
	rng := rand.New(rand.NewPCG(5, 6))
	for _, kind := range []Kind{KindDmpf, KindVdmpf} {
		t.Run(kind.String(), func(t *testing.T) {
			d, cws, s0s, _, _ := genRandomMpf(t, rng, DefaultParams(kind, inBits, Uint127, PrgAesMmo).WithMaxPoints(8), 8)
			mine := everyOther(s0s, 0)
			other, dst := make([]Block, 1<<inBits), make([]Block, 1<<inBits)
			otherFlags := vmFlags(t, uintptr(unsafe.Pointer(&hugeRange(other)[0])))
			if kind == KindDmpf {
				require.NoError(t, d.EvalAll(dst, 0, mine, cws))
			} else {
				var pi [ProofBlocks]Block
				require.NoError(t, d.EvalAllProof(dst, &pi, 0, mine, cws))
			}
			inside := hugeRange(dst)
			require.NotNil(t, inside)
			require.Contains(t, vmFlags(t, uintptr(unsafe.Pointer(&inside[0]))), "hg")
			require.Equal(t, otherFlags, vmFlags(t, uintptr(unsafe.Pointer(&hugeRange(other)[0]))))
		})
	}
	t.Run("lists", func(t *testing.T) {
		// Lists from the pool, marked "no huge pages" (as memory that was never
		// advised could be), come out of newRegionAdds advised: a list made fresh
		// could sit in memory that an earlier call advised, which would hide a
		// missing advice.
		const n, count = 22, 1 << 22
		total := 1 << 8 * int(count>>8+count>>11+64) // newRegionAdds's, for 2^8 regions
		offs, lo, hi := make([]uint32, total), make([]uint64, total), make([]uint64, total)
		lists := map[string][]byte{"offs": hugeRange(offs), "lo": hugeRange(lo), "hi": hugeRange(hi)}
		for name, b := range lists {
			require.NoError(t, syscall.Madvise(b, syscall.MADV_NOHUGEPAGE), name)
			require.Contains(t, vmFlags(t, uintptr(unsafe.Pointer(&b[0]))), "nh", name)
		}
		queuePool.Put(&[]*queueSet{{q: scatter.Lists{Offs: offs, Lo: lo}, hi: hi}})
		r := newRegionAdds(n, count, Uint127, make([]Block, 1<<n), 1)
		defer r.release()
		q := r.sets[0].q
		if &q.Lo[0] != &lo[0] || &q.Offs[0] != &offs[0] || &q.Hi[0] != &hi[0] {
			t.Skip("the pool dropped the lists (a garbage collection in between)")
		}
		for name, b := range lists {
			require.Contains(t, vmFlags(t, uintptr(unsafe.Pointer(&b[0]))), "hg", name)
		}
	})
}
