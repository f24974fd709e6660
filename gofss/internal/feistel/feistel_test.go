package feistel

import (
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
)

// randomTables makes four tables of 2^h random values below 2^h.
func randomTables(rng *rand.Rand, h uint) *[4][]uint32 {
	var f [4][]uint32
	for r := range f {
		f[r] = make([]uint32, 1<<h)
		for i := range f[r] {
			f[r][i] = rng.Uint32() & (1<<h - 1)
		}
	}
	return &f
}

// forward is one pass of the rounds forwards, which InvertPasses must undo.
func forward(v uint64, h uint, f *[4][]uint32) uint64 {
	mask := uint64(1)<<h - 1
	l, r := v>>h, v&mask
	for k := range f {
		l, r = r, l^uint64(f[k][r])
	}
	return l<<h | r
}

// TestInvertPassesWholeDomain checks, for every half width the SIMD routine takes
// and a few wider ones, that InvertPasses undoes a forward pass over the whole
// domain 0 .. 2^2h - 1 (for wide h a run of it), and that it agrees with the
// portable form with SIMD on and off.
func TestInvertPassesWholeDomain(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for h := uint(1); h <= 20; h++ {
		f := randomTables(rng, h)
		n := uint64(1) << (2 * h)
		first := uint64(0)
		if n > 1<<20 {
			n, first = 1<<20+5, rng.Uint64N(1<<(2*h)-(1<<20+5))
		}
		ys := make([]uint64, n)
		for i := range ys {
			ys[i] = forward(first+uint64(i), h, f)
		}
		got := slices.Clone(ys)
		InvertPasses(got, h, f)
		for i, x := range got {
			if x != first+uint64(i) {
				t.Fatalf("h=%d: inverse of %d = %d, want %d", h, ys[i], x, first+uint64(i))
			}
		}
		portable := slices.Clone(ys)
		invertPassesGo(portable, h, f)
		if !slices.Equal(got, portable) {
			t.Fatalf("h=%d: SIMD and portable passes differ", h)
		}
	}
}

// TestInvertPassesRandomRuns checks the SIMD routine against the portable one on
// runs of random values of any 64 bits (only v mod 2^2h counts), of every length
// up to 40 (whole groups of eight and a tail), at random offsets in a slice.
func TestInvertPassesRandomRuns(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2: InvertPasses is the portable form")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, h := range []uint{1, 5, 11, 15, 16, 17, 22} {
		f := randomTables(rng, h)
		for trial := range 200 {
			n, off := trial%41, rng.IntN(9)
			vs := make([]uint64, off+n)
			for i := range vs {
				vs[i] = rng.Uint64()
			}
			want := slices.Clone(vs)
			invertPassesGo(want[off:], h, f)
			InvertPasses(vs[off:], h, f)
			if !slices.Equal(vs, want) {
				t.Fatalf("h=%d n=%d off=%d: SIMD %v, portable %v", h, n, off, vs, want)
			}
		}
	}
}

// TestInvertPassesRefusesShortTables: tables shorter than 2^h would be read out
// of bounds.
func TestInvertPassesRefusesShortTables(t *testing.T) {
	f := randomTables(rand.New(rand.NewPCG(5, 6)), 4)
	f[2] = f[2][:15]
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a table of 15 words at h = 4")
		}
	}()
	InvertPasses(make([]uint64, 16), 4, f)
}

func BenchmarkInvertPasses(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	const h = 11
	f := randomTables(rng, h)
	vs := make([]uint64, 1<<16)
	for i := range vs {
		vs[i] = rng.Uint64()
	}
	for _, simd := range []bool{true, false} {
		b.Run(map[bool]string{true: "simd", false: "portable"}[simd], func(b *testing.B) {
			old := haveAVX2
			haveAVX2 = haveAVX2 && simd
			defer func() { haveAVX2 = old }()
			var r0, r1 syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
			for b.Loop() {
				InvertPasses(vs, h, f)
			}
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
			cpu := r1.Utime.Nano() - r0.Utime.Nano() + r1.Stime.Nano() - r0.Stime.Nano()
			b.ReportMetric(float64(cpu)/float64(b.N*len(vs)), "cpu-ns/value")
		})
	}
}
