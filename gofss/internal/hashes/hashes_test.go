package hashes

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/zeebo/blake3"

	"github.com/pyfss/pyfss/gofss/internal/guardmem"
	"github.com/pyfss/pyfss/gofss/internal/kat"
)

func blocksBytes(bs ...kat.Block) []byte {
	var out []byte
	for _, b := range bs {
		img := b.Bytes()
		out = append(out, img[:]...)
	}
	return out
}

// TestVectors checks H' and XH of both hashes under both of their keys against
// primitives.json, through each implementation of each hash that this CPU runs.
func TestVectors(t *testing.T) {
	forEachPath(t, func(t *testing.T, _ Kind) { checkVectors(t) })
}

// TestSumBlocks checks the one-compression-at-a-time SHA-256 against crypto/sha256
// on random messages of 0 to 300 bytes.
func TestSumBlocks(t *testing.T) {
	if !haveSHANI() {
		t.Skip("no SHA extensions on this CPU")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(rng.Uint32())
		}
		blocks := make([]byte, (n+8)/64*64+64)
		copy(blocks, msg)
		padSha256(blocks, n)
		var got [32]byte
		sumBlocks(&got, blocks)
		require.Equal(t, sha256.Sum256(msg), got, "%d bytes", n)
	}
}

// TestSumPair checks the two interleaved compressions against crypto/sha256 on
// pairs of random messages of 0 to 55 bytes (one block each).
func TestSumPair(t *testing.T) {
	if !haveSHANI() {
		t.Skip("no SHA extensions on this CPU")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 56 {
		var blocks [2][64]byte
		var want [64]byte
		for i := range blocks {
			msg := make([]byte, n+i%2*(55-n)) // the second one takes the other length
			for j := range msg {
				msg[j] = byte(rng.Uint32())
			}
			copy(blocks[i][:], msg)
			padSha256(blocks[i][:], len(msg))
			sum := sha256.Sum256(msg)
			copy(want[32*i:], sum[:])
		}
		var got [64]byte
		sumPair(&got, &blocks[0], &blocks[1])
		require.Equal(t, want, got, "%d bytes", n)
	}
}

func checkVectors(t *testing.T) {
	all, err := kat.LoadHashVectors()
	require.NoError(t, err)
	require.Len(t, all, 2)
	for _, hv := range all {
		kind := map[string]Kind{"sha256": Sha256, "blake3": Blake3}[hv.Hash.Name]
		xorKey, key := hv.Hash.Keys()
		xh, err := New(kind, xorKey)
		require.NoError(t, err)
		hp, err := New(kind, key)
		require.NoError(t, err)
		require.NotEmpty(t, hv.Hash64)
		require.NotEmpty(t, hv.XorHash)
		for i, v := range hv.Hash64 {
			msg := [64]byte(blocksBytes(v.Msg[:]...))
			for _, c := range []struct {
				k    *Keyed
				want [2]kat.Block
			}{{hp, v.WithHashKey}, {xh, v.WithXorHashKey}} {
				h := c.k.Get()
				var out [32]byte
				h.H(&out, &msg)
				h.Put()
				require.Equal(t, blocksBytes(c.want[:]...), out[:], "%s hash64 #%d", hv.Hash.Name, i)
			}
		}
		for i, v := range hv.XorHash {
			a, b := v.A.Bytes(), v.B.Bytes()
			for _, c := range []struct {
				k    *Keyed
				want [4]kat.Block
			}{{xh, v.WithXorHashKey}, {hp, v.WithHashKey}} {
				h := c.k.Get()
				var out [64]byte
				h.XorHash(&out, &a, &b)
				h.Put()
				require.Equal(t, blocksBytes(c.want[:]...), out[:], "%s xor_hash #%d", hv.Hash.Name, i)
			}
		}
	}
}

func TestNewRefusesBadKeys(t *testing.T) {
	_, err := New(Sha256, make([]byte, 32))
	require.ErrorContains(t, err, "16 bytes")
	_, err = New(Blake3, make([]byte, 16))
	require.ErrorContains(t, err, "32 bytes")
	_, err = New(Kind(7), make([]byte, 16))
	require.ErrorContains(t, err, "unknown kind")
}

func BenchmarkHash(b *testing.B) {
	for _, kind := range []Kind{Sha256, Blake3} {
		k, err := New(kind, make([]byte, kind.KeyBytes()))
		require.NoError(b, err)
		h := k.Get()
		var msg [64]byte
		var a, s [16]byte
		b.Run([]string{"sha256", "blake3"}[kind]+"/H", func(b *testing.B) {
			var out [32]byte
			for b.Loop() {
				h.H(&out, &msg)
			}
		})
		b.Run([]string{"sha256", "blake3"}[kind]+"/XH", func(b *testing.B) {
			var out [64]byte
			for b.Loop() {
				h.XorHash(&out, &a, &s)
			}
		})
	}
}

// batchSizes are the numbers of messages (leaves) the batch tests take: 0 to 17
// (partly filled groups of eight included), and some to 41 (groups that the
// AVX-512 routines take in pairs, and a group left after them).
var batchSizes = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 23, 24, 25, 32, 40, 41}

// TestBlake3Many checks the keyed one-block BLAKE3, eight lanes at a time and one
// message at a time, against zeebo/blake3 on random keys and messages of every
// length of one block, for every number of messages of batchSizes.
func TestBlake3Many(t *testing.T) {
	forEachBackend(t, Blake3, checkBlake3Many)
}

func checkBlake3Many(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for blen := 0; blen <= 64; blen++ {
		for _, n := range batchSizes {
			key := make([]byte, 32)
			for i := range key {
				key[i] = byte(rng.Uint32())
			}
			ref, err := blake3.NewKeyed(key)
			require.NoError(t, err)
			blocks := make([][64]byte, n)
			want := make([][32]byte, n)
			for i := range blocks {
				for j := range blen {
					blocks[i][j] = byte(rng.Uint32())
				}
				ref.Reset()
				_, _ = ref.Write(blocks[i][:blen])
				ref.Sum(want[i][:0])
			}
			got := make([][32]byte, n)
			cv := blake3Key(key)
			blake3Many(got, &cv, blocks, uint32(blen))
			require.Equal(t, want, got, "%d messages of %d bytes", n, blen)
			if haveBlake3Lanes() {
				for i := range blocks {
					blake3One(&got[i], &cv, &blocks[i], uint32(blen))
				}
				require.Equal(t, want, got, "one by one, %d messages of %d bytes", n, blen)
			}
		}
	}
}

// BenchmarkBlake3 compares the keyed one-block BLAKE3 compressions per message:
// eight lanes at a time (latency hidden), one message at a time (each one waiting
// on the one before, as on the proof chain) in one call each, the proof chain's
// routine (a step and, beside it, one XH message), portable Go, and zeebo/blake3's
// Reset/Write/Sum (the same chained).
func BenchmarkBlake3(b *testing.B) {
	key := make([]byte, 32)
	cv := blake3Key(key)
	var block [64]byte
	var out [32]byte
	for _, name := range Backends(Blake3) {
		if name == Generic {
			continue
		}
		b.Run(name, func(b *testing.B) {
			defer withBackend(Blake3, name)()
			b.Run("x8", func(b *testing.B) {
				blocks, out := make([][64]byte, 256), make([][32]byte, 256)
				for b.Loop() {
					blake3x8(out, &cv, blocks, 32)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(blocks)), "ns/msg")
			})
			b.Run("one", func(b *testing.B) {
				for b.Loop() {
					blake3One(&out, &cv, &block, 64)
					copy(block[:], out[:])
				}
			})
			b.Run("chain", func(b *testing.B) {
				var pi, cs [64]byte
				var xh1 [32]byte
				xh0, ts := make([][32]byte, 256), make([]uint8, 256)
				as, ss := make([][16]byte, 256), make([][16]byte, 256)
				for b.Loop() {
					blake3ChainXH(&pi, xh0, &xh1, as, ss, ts, &cs, &cv, &cv)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xh0)), "ns/msg")
			})
		})
	}
	b.Run("portable", func(b *testing.B) {
		for b.Loop() {
			blake3Compress(&out, &cv, &block, 64)
			copy(block[:], out[:])
		}
	})
	b.Run("zeebo", func(b *testing.B) {
		h, err := blake3.NewKeyed(key)
		require.NoError(b, err)
		for b.Loop() {
			h.Reset()
			_, _ = h.Write(block[:])
			h.Sum(out[:0])
			copy(block[:], out[:])
		}
	})
}

// refXorHash and refH are XH and H' straight from crypto/sha256 and zeebo/blake3,
// for the tests of the batched paths.
func refSum(kind Kind, key, msg []byte) (out [32]byte) {
	if kind == Sha256 {
		return sha256.Sum256(append(append([]byte{}, key...), msg...))
	}
	h, err := blake3.NewKeyed(key)
	if err != nil {
		panic(err)
	}
	_, _ = h.Write(msg)
	h.Sum(out[:0])
	return out
}

func refXorHash(kind Kind, key []byte, a, s [16]byte) (out [64]byte) {
	for i := range 2 {
		a[12] = a[12]&^1 | byte(i)
		sum := refSum(kind, key, append(a[:], s[:]...))
		copy(out[32*i:], sum[:])
	}
	return out
}

func randBytes(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

// randKeyed returns a hash of the kind under a random key, and the key.
func randKeyed(t testing.TB, rng *rand.Rand, kind Kind) (*Keyed, []byte) {
	key := make([]byte, kind.KeyBytes())
	randBytes(rng, key)
	k, err := New(kind, key)
	require.NoError(t, err)
	return k, key
}

// forEachPath runs check with each hash kind through each of its implementations
// on this CPU, as subtests kind/implementation: SHA-256 with and without the SHA
// extensions, BLAKE3 through the AVX-512 routines, the AVX2 ones and Go.
func forEachPath(t *testing.T, check func(t *testing.T, kind Kind)) {
	for _, kind := range []Kind{Sha256, Blake3} {
		t.Run([]string{"sha256", "blake3"}[kind], func(t *testing.T) {
			forEachBackend(t, kind, func(t *testing.T) { check(t, kind) })
		})
	}
}

// forEachBackend runs check under each implementation of kind's hash that this CPU
// runs, as subtests named after them.
func forEachBackend(t *testing.T, kind Kind, check func(t *testing.T)) {
	for _, name := range Backends(kind) {
		t.Run(name, func(t *testing.T) {
			defer withBackend(kind, name)()
			check(t)
		})
	}
}

// withBackend selects kind's implementation name until restore is called.
func withBackend(kind Kind, name string) (restore func()) {
	prev := mustSet(kind, name)
	return func() { mustSet(kind, prev) }
}

// TestXorHashMany checks XH of batchSizes' numbers of random pairs under random
// keys against the libraries.
func TestXorHashMany(t *testing.T) {
	forEachPath(t, func(t *testing.T, kind Kind) {
		rng := rand.New(rand.NewPCG(7, uint64(kind)))
		for _, n := range batchSizes {
			k, key := randKeyed(t, rng, kind)
			h := k.Get()
			as, ss := make([][16]byte, n), make([][16]byte, n)
			want := make([][64]byte, n)
			for i := range as {
				randBytes(rng, as[i][:])
				randBytes(rng, ss[i][:])
				want[i] = refXorHash(kind, key, as[i], ss[i])
			}
			got := make([][64]byte, n)
			h.XorHashMany(got, as, ss)
			require.Equal(t, want, got, "%d pairs", n)
			h.Put()
		}
	})
}

// TestHMany checks H' of 0 to 17 random messages under random keys against the
// libraries.
func TestHMany(t *testing.T) {
	forEachPath(t, func(t *testing.T, kind Kind) {
		rng := rand.New(rand.NewPCG(9, uint64(kind)))
		for n := range 18 {
			k, key := randKeyed(t, rng, kind)
			h := k.Get()
			ms, want := make([][64]byte, n), make([][32]byte, n)
			for i := range ms {
				randBytes(rng, ms[i][:])
				want[i] = refSum(kind, key, ms[i][:])
			}
			got := make([][32]byte, n)
			h.HMany(got, ms)
			require.Equal(t, want, got, "%d messages", n)
			h.Put()
		}
	})
}

// TestChain checks the proof chain over batchSizes' numbers of random leaves
// against the chain computed with the libraries' XH and H'.
func TestChain(t *testing.T) {
	forEachPath(t, func(t *testing.T, kind Kind) {
		rng := rand.New(rand.NewPCG(8, uint64(kind)))
		for _, n := range batchSizes {
			xk, xkey := randKeyed(t, rng, kind)
			hk, hkey := randKeyed(t, rng, kind)
			as, ss, ts := make([][16]byte, n), make([][16]byte, n), make([]uint8, n)
			var pi, cs [64]byte
			randBytes(rng, pi[:])
			randBytes(rng, cs[:])
			want := pi
			for i := range as {
				randBytes(rng, as[i][:])
				randBytes(rng, ss[i][:])
				ts[i] = uint8(rng.Uint32() & 1)
				xh := refXorHash(kind, xkey, as[i], ss[i])
				var m [64]byte
				for j := range m {
					m[j] = want[j] ^ xh[j] ^ cs[j]*ts[i]
				}
				o := refSum(kind, hkey, m[:])
				for j := range o {
					want[j] ^= o[j]
				}
			}
			h, x := hk.Get(), xk.Get()
			// The hasher's scratch first grown by another call, as a VDPF tile's
			// hashers are reused.
			h.XorHashMany(make([][64]byte, 9), make([][16]byte, 9), make([][16]byte, 9))
			h.Chain(&pi, x, as, ss, ts, &cs)
			require.Equal(t, want, pi, "%d leaves", n)
			h.Put()
			x.Put()
		}
	})
}

// TestBlake3FastAgainstPortable compares each set of lane routines with the
// portable compression on a long batch of random keys and messages of VDPF's two
// lengths (32 bytes for XH, 64 for H'), one key per batch of 1003 messages.
func TestBlake3FastAgainstPortable(t *testing.T) {
	forEachBackend(t, Blake3, func(t *testing.T) {
		if !haveBlake3Lanes() {
			t.Skip("the portable compression itself")
		}
		rng := rand.New(rand.NewPCG(13, 14))
		for _, blen := range []int{32, 64} {
			var key [32]byte
			randBytes(rng, key[:])
			cv := blake3Key(key[:])
			blocks := make([][64]byte, 1003)
			for i := range blocks {
				randBytes(rng, blocks[i][:blen])
			}
			want, got, one := make([][32]byte, len(blocks)), make([][32]byte, len(blocks)), make([][32]byte, len(blocks))
			for i := range blocks {
				blake3Compress(&want[i], &cv, &blocks[i], uint32(blen))
				blake3One(&one[i], &cv, &blocks[i], uint32(blen))
			}
			blake3Many(got, &cv, blocks, uint32(blen))
			require.Equal(t, want, got, "eight lanes, %d bytes", blen)
			require.Equal(t, want, one, "one message, %d bytes", blen)
		}
	})
}

// TestBatchLengths checks that the batch calls refuse inputs of different lengths
// (a caller's bug) instead of hashing past the shorter ones.
func TestBatchLengths(t *testing.T) {
	for _, kind := range []Kind{Sha256, Blake3} {
		k, err := New(kind, make([]byte, kind.KeyBytes()))
		require.NoError(t, err)
		h := k.Get()
		require.Panics(t, func() { h.XorHashMany(make([][64]byte, 2), make([][16]byte, 2), make([][16]byte, 1)) })
		require.Panics(t, func() { h.HMany(make([][32]byte, 1), make([][64]byte, 2)) })
		var pi, cs [64]byte
		require.Panics(t, func() { h.Chain(&pi, h, make([][16]byte, 2), make([][16]byte, 2), make([]uint8, 1), &cs) })
		// Two chains over 3 inputs at a stride of 4: 7 seeds and bits at least.
		pis, css := []*[64]byte{&pi, &pi}, []*[64]byte{&cs, &cs}
		require.Panics(t, func() { h.ChainLanes(pis, h, make([][16]byte, 3), make([][16]byte, 6), make([]uint8, 7), 4, css) })
		require.Panics(t, func() { h.ChainLanes(pis, h, make([][16]byte, 3), make([][16]byte, 7), make([]uint8, 6), 4, css) })
		require.Panics(t, func() { h.ChainLanes(pis, h, make([][16]byte, 3), make([][16]byte, 7), make([]uint8, 7), 2, css) })
		require.Panics(t, func() { h.ChainLanes(pis, h, make([][16]byte, 3), make([][16]byte, 7), make([]uint8, 7), 4, css[:1]) })
		require.NotPanics(t, func() { h.ChainLanes(pis, h, make([][16]byte, 3), make([][16]byte, 7), make([]uint8, 7), 4, css) })
		require.Panics(t, func() { h.StepChains(pis, make([][64]byte, 6), 3, 4) })
		require.Panics(t, func() { h.StepChains(pis, make([][64]byte, 7), 3, 2) })
		require.NotPanics(t, func() { h.StepChains(pis, make([][64]byte, 7), 3, 4) })
		h.Put()
	}
}

// TestChainLanes checks ChainLanes, 0 to 17 chains (whole groups of eight lanes
// and short ones) over 0 to 70 inputs, against Chain run for each; the seeds and
// bits of chain i start stride = n + 3 entries after chain i-1's.
func TestChainLanes(t *testing.T) {
	forEachPath(t, func(t *testing.T, kind Kind) {
		rng := rand.New(rand.NewPCG(9, uint64(kind)))
		xk, _ := randKeyed(t, rng, kind)
		hk, hkey := randKeyed(t, rng, kind)
		for _, k := range []int{0, 1, 2, 3, 7, 8, 9, 17} {
			for _, n := range []int{0, 1, 5, 70} {
				stride := n + 3
				as, ss, ts := make([][16]byte, n), make([][16]byte, k*stride), make([]uint8, k*stride)
				for j := range as {
					randBytes(rng, as[j][:])
				}
				for j := range ss {
					randBytes(rng, ss[j][:])
					ts[j] = uint8(rng.Uint32() & 1)
				}
				pis, want, css := make([]*[64]byte, k), make([][64]byte, k), make([]*[64]byte, k)
				h, x := hk.Get(), xk.Get()
				for i := range k {
					pis[i], css[i] = new([64]byte), new([64]byte)
					randBytes(rng, pis[i][:])
					randBytes(rng, css[i][:])
					want[i] = *pis[i]
					h.Chain(&want[i], x, as, ss[i*stride:i*stride+n], ts[i*stride:i*stride+n], css[i])
				}
				h.ChainLanes(pis, x, as, ss, ts, stride, css)
				for i := range k {
					require.Equal(t, want[i], *pis[i], "chain %d of %d, %d inputs", i, k, n)
				}
				// XH through the chains' hasher after ChainLanes: its messages must
				// still be zero past 32 bytes.
				var a, xh [64]byte
				randBytes(rng, a[:32])
				h.XorHashMany(unsafe.Slice(&xh, 1), unsafe.Slice((*[16]byte)(a[:16]), 1), unsafe.Slice((*[16]byte)(a[16:32]), 1))
				require.Equal(t, refXorHash(kind, hkey, [16]byte(a[:16]), [16]byte(a[16:32])), xh)
				h.Put()
				x.Put()
			}
		}
	})
}

// TestStepChains checks StepChains, 0 to 17 chains over 0 to 9 pieces each at a
// stride of n + 2 (through the lanes routine and around it), against each step
// computed with the library's H'.
func TestStepChains(t *testing.T) {
	forEachPath(t, func(t *testing.T, kind Kind) {
		rng := rand.New(rand.NewPCG(10, uint64(kind)))
		hk, hkey := randKeyed(t, rng, kind)
		for _, k := range []int{0, 1, 3, 8, 9, 17} {
			for _, n := range []int{0, 1, 9} {
				stride := n + 2
				pieces := make([][64]byte, k*stride)
				for j := range pieces {
					randBytes(rng, pieces[j][:])
				}
				pis, want := make([]*[64]byte, k), make([][64]byte, k)
				for i := range k {
					pis[i] = new([64]byte)
					randBytes(rng, pis[i][:])
					want[i] = *pis[i]
					for j := range n {
						var m [64]byte
						for b := range m {
							m[b] = want[i][b] ^ pieces[i*stride+j][b]
						}
						o := refSum(kind, hkey, m[:])
						for b := range o {
							want[i][b] ^= o[b]
						}
					}
				}
				h := hk.Get()
				h.StepChains(pis, pieces, n, stride)
				for i := range k {
					require.Equal(t, want[i], *pis[i], "chain %d of %d, %d pieces", i, k, n)
				}
				h.Put()
			}
		}
	})
}

// BenchmarkChainLanes compares k BLAKE3 proof chains over 2048 inputs stepped side
// by side (ChainLanes) with one Chain after another, in ns per input and chain.
func BenchmarkChainLanes(b *testing.B) {
	const n = 2048
	rng := rand.New(rand.NewPCG(1, 2))
	xk, _ := randKeyed(b, rng, Blake3)
	hk, _ := randKeyed(b, rng, Blake3)
	as := make([][16]byte, n)
	for _, k := range []int{2, 3, 4, 8} {
		pis, css := make([]*[64]byte, k), make([]*[64]byte, k)
		ss, ts := make([][16]byte, k*n), make([]uint8, k*n)
		for i := range k {
			pis[i], css[i] = new([64]byte), new([64]byte)
		}
		for j := range ss {
			randBytes(rng, ss[j][:])
		}
		h, x := hk.Get(), xk.Get()
		per := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*k), "ns/leaf")
		}
		b.Run(fmt.Sprintf("lanes/%d", k), func(b *testing.B) {
			for b.Loop() {
				h.ChainLanes(pis, x, as, ss, ts, n, css)
			}
			per(b)
		})
		b.Run(fmt.Sprintf("each/%d", k), func(b *testing.B) {
			for b.Loop() {
				for i := range k {
					h.Chain(pis[i], x, as, ss[i*n:(i+1)*n], ts[i*n:(i+1)*n], css[i])
				}
			}
			per(b)
		})
	}
}

// TestHashesDoNotAllocate checks that the one-message hashes, a short HMany (a
// partial group of eight lanes) and a short Chain allocate nothing on any path:
// a routine called through a func value would move its callers' arrays to the heap.
func TestHashesDoNotAllocate(t *testing.T) {
	forEachPath(t, func(t *testing.T, kind Kind) {
		rng := rand.New(rand.NewPCG(11, uint64(kind)))
		hk, _ := randKeyed(t, rng, kind)
		xk, _ := randKeyed(t, rng, kind)
		h, x := hk.Get(), xk.Get()
		defer h.Put()
		defer x.Put()
		var m, xh, pi, cs [64]byte
		var out [32]byte
		var a, s [16]byte
		ms, outs := make([][64]byte, 3), make([][32]byte, 3)
		as, ss, ts := make([][16]byte, 3), make([][16]byte, 3), make([]uint8, 3)
		h.Chain(&pi, x, as, ss, ts, &cs) // grows the hashers' scratch once
		allocs := testing.AllocsPerRun(20, func() {
			h.H(&out, &m)
			x.XorHash(&xh, &a, &s)
			h.HMany(outs, ms)
			h.Chain(&pi, x, as, ss, ts, &cs)
		})
		require.Zero(t, allocs)
	})
}

// TestLaneRoutinesStayInBounds runs the routines of many messages (blake3x8 on
// blocks, blake3XH on inputs and seeds, at both output strides) on inputs and
// outputs that end where unreadable memory begins, for whole groups of eight taken
// singly and in pairs: a read or write past them crashes the test. The results
// must equal those of the same calls on ordinary memory.
func TestLaneRoutinesStayInBounds(t *testing.T) {
	forEachBackend(t, Blake3, func(t *testing.T) {
		if !haveBlake3Lanes() {
			t.Skip("no lane routines on this backend")
		}
		rng := rand.New(rand.NewPCG(11, 12))
		var cv [8]uint32
		for i := range cv {
			cv[i] = rng.Uint32()
		}
		for _, n := range []int{8, 16, 24, 40} {
			blocks := guarded[[64]byte](t, n)
			as, ss := guarded[[16]byte](t, n), guarded[[16]byte](t, n)
			for i := range n {
				randBytes(rng, blocks[i][:32])
				randBytes(rng, as[i][:])
				randBytes(rng, ss[i][:])
			}
			want := make([][32]byte, n)
			blake3x8(want, &cv, append([][64]byte(nil), blocks...), 32)
			got := guarded[[32]byte](t, n)
			blake3x8(got, &cv, blocks, 32)
			require.Equal(t, want, got, "blake3x8, %d blocks", n)
			for stride := 1; stride <= 2; stride++ {
				want := make([][32]byte, (n-1)*stride+1)
				blake3XH(want, stride, &cv, append([][16]byte(nil), as...), append([][16]byte(nil), ss...), 1)
				got := guarded[[32]byte](t, (n-1)*stride+1)
				blake3XH(got, stride, &cv, as, ss, 1)
				require.Equal(t, want, got, "blake3XH, %d leaves, stride %d", n, stride)
			}
		}
	})
}

// guarded is n values of T that end where unreadable memory begins.
func guarded[T any](t *testing.T, n int) []T {
	var zero T
	mem := guardmem.EndOfMapping(t, n*int(unsafe.Sizeof(zero)))
	return unsafe.Slice((*T)(unsafe.Pointer(&mem[0])), n)
}
