package cuda

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pyfss/pyfss/gofss"
)

// kernelParams is a compiled kernel's parameter list as the CUDA ELF records it in its
// .nv.info.<name> section: each parameter's offset and size (EIATTR_KPARAM_INFO) and
// the size of the whole list (EIATTR_PARAM_CBANK).
type kernelParams struct {
	offsets, sizes map[int]int // by ordinal
	total          int
}

const (
	eiattrParamCbank = 0x0a
	eiattrKparamInfo = 0x17
	eiFormatSized    = 4 // attribute with a 16-bit size and that many bytes of value
)

func parseNvInfo(d []byte) (kernelParams, error) {
	kp := kernelParams{offsets: map[int]int{}, sizes: map[int]int{}}
	for i := 0; i+4 <= len(d); {
		format, attr := d[i], d[i+1]
		if format != eiFormatSized {
			i += 4 // the value is the two bytes after format and attribute
			continue
		}
		size := int(binary.LittleEndian.Uint16(d[i+2:]))
		if i+4+size > len(d) {
			return kp, fmt.Errorf("truncated attribute %#x", attr)
		}
		v := d[i+4 : i+4+size]
		switch attr {
		case eiattrKparamInfo: // index u32, ordinal u16, offset u16, flags u32 with the size in bits 18..31
			ordinal := int(binary.LittleEndian.Uint16(v[4:]))
			kp.offsets[ordinal] = int(binary.LittleEndian.Uint16(v[6:]))
			kp.sizes[ordinal] = int(binary.LittleEndian.Uint32(v[8:]) >> 18)
		case eiattrParamCbank: // symbol u32, offset of the list in the constant bank u16, size u16
			kp.total = int(binary.LittleEndian.Uint16(v[6:]))
		}
		i += 4 + size
	}
	return kp, nil
}

// compiledKernels reads the parameter lists of every kernel in each machine-code
// entry of the embedded fatbin, by architecture.
func compiledKernels(t *testing.T) map[string]map[string]kernelParams {
	entries, err := parseFatbin(fatbin)
	require.NoError(t, err)
	out := map[string]map[string]kernelParams{}
	for _, e := range entries {
		if e.kind != fatbinELF {
			continue
		}
		f, err := elf.NewFile(bytes.NewReader(e.payload))
		require.NoError(t, err)
		kernels := map[string]kernelParams{}
		for _, s := range f.Sections {
			name, ok := strings.CutPrefix(s.Name, ".nv.info.")
			if !ok {
				continue
			}
			d, err := s.Data()
			require.NoError(t, err)
			kernels[name], err = parseNvInfo(d)
			require.NoError(t, err, s.Name)
		}
		out[fmt.Sprintf("sm_%d", e.arch)] = kernels
	}
	return out
}

// Every launch the package can plan must name a kernel of the fatbin and pack its
// arguments at the offsets the compiler chose: a mismatch would pass garbage to the
// GPU, which no test here could otherwise see.
func TestKernelABI(t *testing.T) {
	if len(fatbin) == 0 {
		t.Skip("kernels not compiled in; run python build_support/nvcc.py")
	}
	var plans [][]launch
	for _, kind := range []gofss.Kind{gofss.KindDpf, gofss.KindDcfLt, gofss.KindDcfGt, gofss.KindHalfTreeDpf} {
		for group := gofss.Bytes; group <= gofss.Uint127; group++ {
			for prg := gofss.PrgChaCha; prg <= gofss.PrgAesMmo; prg++ {
				p := gofss.DefaultParams(kind, 2, group, prg)
				plans = append(plans,
					must(planGen(p, addrA, addrB, addrC, 1, addrD, 3)),
					must(planEval(p, addrA, 0, addrB, 3, addrC, addrD, 2, 5, addrE)),
					must(planEvalAll(p, addrA, 1, addrB, 1, addrC, 0)))
				if kind != gofss.KindHalfTreeDpf {
					plans = append(plans, must(planPrgBench(p, addrA, addrB, 10, 2)))
				}
			}
		}
	}
	for group := gofss.Bytes; group <= gofss.Uint127; group++ {
		for prg := gofss.PrgChaCha; prg <= gofss.PrgAesMmo; prg++ {
			for _, hash := range []gofss.HashKind{gofss.HashSha256, gofss.HashBlake3} {
				p := gofss.DefaultParams(gofss.KindVdpf, 2, group, prg)
				p.Hash = gofss.DefaultVdpfHash(hash)
				plans = append(plans,
					must(planGen(p, addrA, addrB, addrC, 1, addrD, 3)),
					must(planEvalProof(p, addrA, addrF, 0, addrB, 3, addrC, addrD, 2, 5, addrE)))
				m := gofss.DefaultParams(gofss.KindVdmpf, 10, group, prg).WithMaxPoints(4)
				m.Hash = p.Hash
				plans = append(plans, must(planMpfEval(m, addrA, addrB, addrF, 1, addrC, 3, addrD, addrE, 2, 5, addrE)))
			}
			m := gofss.DefaultParams(gofss.KindDmpf, 10, group, prg).WithMaxPoints(4)
			plans = append(plans, must(planMpfEval(m, addrA, 0, 0, 1, addrC, 3, addrD, addrE, 2, 5, addrE)))
		}
	}
	for prg := gofss.PrgChaCha; prg <= gofss.PrgAesMmo; prg++ {
		// in_bits 20 plans every kind of Preprocess launch.
		p := gofss.DefaultParams(gofss.KindGrottoDcf, 20, gofss.Bytes, prg)
		plans = append(plans,
			must(planGen(p, addrA, addrB, addrC, 1, 0, 3)),
			must(planPreprocess(p, addrA, 1, addrB, 3, addrC, addrE)),
			must(planGrottoEval(p, addrA, addrB, 2, 5, points{"x", addrC, 1})),
			must(planGrottoEval(p, addrA, addrB, 2, 5, points{"lo", addrC, 1}, points{"hi", addrD, 2})))
	}
	archs := compiledKernels(t)
	require.Len(t, archs, 2)
	checked := map[string]bool{}
	for arch, kernels := range archs {
		for _, launches := range plans {
			for _, l := range launches {
				kp, ok := kernels[l.kernel]
				require.True(t, ok, "%s: kernel %s not in the fatbin", arch, l.kernel)
				require.Len(t, kp.offsets, len(l.args.offsets), "%s %s: number of parameters", arch, l.kernel)
				for i := range l.args.offsets {
					assert.Equal(t, kp.offsets[i], l.args.offsets[i], "%s %s: offset of parameter %d", arch, l.kernel, i)
					assert.Equal(t, kp.sizes[i], l.args.sizes[i], "%s %s: size of parameter %d", arch, l.kernel, i)
				}
				assert.Equal(t, kp.total, len(l.args.buf), "%s %s: size of the parameter list", arch, l.kernel)
				checked[l.kernel] = true
			}
		}
	}
	// 3 ops x 3 kernel schemes (dpf, dcf, half_tree_dpf) x 4 groups x 2 PRGs, 4 benches,
	// the relayout, Grotto's tree and leaf bits for 2 PRGs, its gather, apply and 2
	// lookups, VDPF's 2 ops x 4 groups x 2 PRGs x 2 hashes, the multi-point PRP keys'
	// schedule, DMPF's eval x 4 groups x 2 PRGs and VDMPF's also x 2 hashes.
	assert.Len(t, checked, 72+4+1+4+4+32+1+8+16)
}

func must(l []launch, err error) []launch {
	if err != nil {
		panic(err)
	}
	return l
}
