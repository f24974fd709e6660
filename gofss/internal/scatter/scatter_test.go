package scatter

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// entry is one appended entry, as the model of Append keeps it.
type entry struct {
	off    uint32
	lo, hi uint64
}

// newLists makes lists for 2^regionsLog regions of room entries each, region g's
// starting at g*room+skew, every place filled with a marker that no entry holds.
func newLists(regionsLog, room, skew int, wide bool) *Lists {
	regions := 1 << regionsLog
	total := regions*room + skew
	l := &Lists{Fill: make([]int32, regions), Offs: make([]uint32, total), Lo: make([]uint64, total)}
	if wide {
		l.Hi = make([]uint64, total)
	}
	for g := range l.Fill {
		l.Fill[g] = int32(g*room + skew)
	}
	for i := range total {
		l.Offs[i], l.Lo[i] = 0xdeadbeef, 0xfeedfacecafebeef
		if wide {
			l.Hi[i] = 0x0123456789abcdef
		}
	}
	return l
}

func (l *Lists) clone() *Lists {
	c := &Lists{Fill: slices.Clone(l.Fill), Offs: slices.Clone(l.Offs), Lo: slices.Clone(l.Lo)}
	if l.Hi != nil {
		c.Hi = slices.Clone(l.Hi)
	}
	return c
}

// withBackend runs f under each implementation this CPU runs.
func withBackend(t *testing.T, f func(t *testing.T)) {
	for _, name := range Backends() {
		t.Run(name, func(t *testing.T) {
			prev, err := SetBackend(name)
			if err != nil {
				t.Fatal(err)
			}
			defer SetBackend(prev)
			f(t)
		})
	}
}

// TestAppendMatchesModel appends random inputs in several calls, under each
// implementation, and checks every list against a model that appends each entry
// to its region's slice, and every place outside the lists' new entries against
// its marker (no stray writes).
func TestAppendMatchesModel(t *testing.T) {
	cases := []struct {
		n, regionsLog, inBits int
		calls                 []int // inputs per call
		oneRegion             bool  // every input in region 1
	}{
		{n: 20, regionsLog: 6, inBits: 20, calls: []int{1724, 1724, 1, 0, 999}},
		{n: 14, regionsLog: 1, inBits: 14, calls: []int{5, 300}},
		{n: 26, regionsLog: 8, inBits: 30, calls: []int{4096, 3}}, // inputs wider than the mask
		{n: 16, regionsLog: 2, inBits: 16, calls: []int{700}, oneRegion: true},
		{n: 33, regionsLog: 1, inBits: 40, calls: []int{100}}, // offsets of 32 bits
	}
	for _, c := range cases {
		for _, wide := range []bool{false, true} {
			name := fmt.Sprintf("n%d-regions%d-wide%v", c.n, 1<<c.regionsLog, wide)
			t.Run(name, func(t *testing.T) {
				withBackend(t, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(c.n), uint64(c.regionsLog)))
					mask, shift := uint64(1)<<c.n-1, uint(c.n-c.regionsLog)
					total := 0
					for _, k := range c.calls {
						total += k
					}
					room, skew := total+7, 3 // room for all in one region; an odd start
					l := newLists(c.regionsLog, room, skew, wide)
					before := l.clone()
					model := make([][]entry, 1<<c.regionsLog)
					for _, k := range c.calls {
						xs, shares := make([]uint64, k), make([]uint64, 2*k+1)
						for i := range xs {
							xs[i] = rng.Uint64N(1 << c.inBits)
							if c.oneRegion {
								xs[i] = xs[i]&(1<<shift-1) | 1<<shift
							}
						}
						for i := range shares {
							shares[i] = rng.Uint64()
						}
						l.Append(xs, shares, mask, shift)
						for i, x := range xs {
							x &= mask
							e := entry{off: uint32(x & (1<<shift - 1)), lo: shares[2*i]}
							if wide {
								e.hi = shares[2*i+1]
							}
							model[x>>shift] = append(model[x>>shift], e)
						}
					}
					for g, want := range model {
						start := int(before.Fill[g])
						if got := int(l.Fill[g]) - start; got != len(want) {
							t.Fatalf("region %d: %d entries, want %d", g, got, len(want))
						}
						for j, e := range want {
							p := start + j
							got := entry{off: l.Offs[p], lo: l.Lo[p]}
							if wide {
								got.hi = l.Hi[p]
							}
							if got != e {
								t.Fatalf("region %d entry %d: %+v, want %+v", g, j, got, e)
							}
						}
						// Past the new entries, up to the next region's start, the markers.
						for p := start + len(want); p < start+room && p < len(l.Offs); p++ {
							if l.Offs[p] != before.Offs[p] || l.Lo[p] != before.Lo[p] || wide && l.Hi[p] != before.Hi[p] {
								t.Fatalf("region %d: place %d written past its entries", g, p)
							}
						}
					}
					for p := range skew {
						if l.Offs[p] != before.Offs[p] || l.Lo[p] != before.Lo[p] {
							t.Fatalf("place %d before every list written", p)
						}
					}
				})
			})
		}
	}
}

// TestAppendRefusesWhatCouldLeaveTheLists: the routines do not check positions,
// so Append refuses calls where one could fall outside the lists.
func TestAppendRefusesWhatCouldLeaveTheLists(t *testing.T) {
	xs, shares := []uint64{1, 2, 3}, make([]uint64, 6)
	cases := []struct {
		name   string
		mutate func(l *Lists)
		shares []uint64
		mask   uint64
		shift  uint
		want   string
	}{
		{"negative fill", func(l *Lists) { l.Fill[1] = -1 }, shares, 15, 3, "region 1"},
		{"fill near the end", func(l *Lists) { l.Fill[0] = int32(len(l.Offs) - 2) }, shares, 15, 3, "no room"},
		{"short hi", func(l *Lists) { l.Hi = l.Hi[:len(l.Hi)-10] }, shares, 15, 3, "no room"},
		{"regions beyond fill", func(*Lists) {}, shares, 31, 3, "regions up to 3"},
		{"shift of 64", func(*Lists) {}, shares, 15, 64, "shift 64"},
		{"short shares", func(*Lists) {}, shares[:5], 15, 3, "5 share words for 3 inputs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newLists(1, 10, 0, true)
			c.mutate(l)
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), c.want) {
					t.Fatalf("panic %v, want one that says %q", r, c.want)
				}
			}()
			l.Append(xs, c.shares, c.mask, c.shift)
		})
	}
}

func BenchmarkAppend(b *testing.B) {
	const n, regionsLog = 20, 6
	xs, shares := make([]uint64, 1724), make([]uint64, 2*1724)
	rng := rand.New(rand.NewPCG(1, 2))
	const calls = 3 << n / 1724
	room := calls*1724>>regionsLog + calls*1724>>(regionsLog+3)
	for _, name := range Backends() {
		b.Run(name, func(b *testing.B) {
			prev, _ := SetBackend(name)
			defer SetBackend(prev)
			l := newLists(regionsLog, room, 0, false)
			all := make([][]uint64, calls)
			for c := range all {
				all[c] = make([]uint64, len(xs))
				for i := range xs {
					all[c][i] = rng.Uint64N(1 << n)
				}
			}
			b.ResetTimer()
			for range b.N {
				for g := range l.Fill {
					l.Fill[g] = int32(g * room)
				}
				for _, xs := range all {
					l.Append(xs, shares, 1<<n-1, n-regionsLog)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(calls*len(xs)), "ns/entry")
		})
	}
}
