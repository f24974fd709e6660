package hashes

import (
	"testing"

	"github.com/stretchr/testify/require"

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
// primitives.json.
func TestVectors(t *testing.T) {
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
