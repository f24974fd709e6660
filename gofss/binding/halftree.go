package binding

import (
	"errors"
	"math"

	"github.com/pyfss/pyfss/gofss"
)

// Conversions of Half-Tree DPF keys to and from the reference library's layout
// (docs/spec.md section 11): a key of CwRows() rows here is in_bits rows of 8 words
// plus an output correction word there. Host memory only: they copy words, so
// Python runs them on the CPU whatever the device of the keys.

// HalfTreeToReference writes k keys (keys: k*CwRows() rows) in the reference layout:
// rows (k*in_bits rows) and ocws (k blocks). Returns k.
func HalfTreeToReference(handle int64, rows, ocws, keys uintptr, k int) (n int, err error) {
	defer guard(&err)
	c, err := newConversion(handle, keys, rows, ocws, k)
	if err != nil {
		return 0, err
	}
	for i := range k {
		if c.ocw[i], err = c.h.ReferenceKey(c.ref(i), c.key(i)); err != nil {
			return 0, keyError(k, i, err)
		}
	}
	return k, nil
}

// HalfTreeFromReference is the inverse of HalfTreeToReference: it writes into keys
// the k keys whose reference layout is rows and ocws. Returns k.
func HalfTreeFromReference(handle int64, keys, rows, ocws uintptr, k int) (n int, err error) {
	defer guard(&err)
	c, err := newConversion(handle, keys, rows, ocws, k)
	if err != nil {
		return 0, err
	}
	for i := range k {
		if err := c.h.FromReferenceKey(c.key(i), c.ref(i), c.ocw[i]); err != nil {
			return 0, keyError(k, i, err)
		}
	}
	return k, nil
}

// conversion is the memory of a batch of k keys in both layouts.
type conversion struct {
	h             *gofss.HalfTreeDpf
	keys, refs    []gofss.Cw
	ocw           []gofss.Block
	width, levels int // rows per key in each layout
}

func newConversion(handle int64, keys, rows, ocws uintptr, k int) (*conversion, error) {
	h, err := lookupHalfTree(handle)
	if err != nil {
		return nil, err
	}
	c := &conversion{h: h, width: h.Params().CwRows(), levels: h.Params().InBits}
	if k < 0 || k > math.MaxInt/max(c.levels, c.width) {
		return nil, valueErrorf("bad number of keys %d", k)
	}
	var err1, err2, err3 error
	c.keys, err1 = view[gofss.Cw]("cws", keys, k*c.width)
	c.refs, err2 = view[gofss.Cw]("rows", rows, k*c.levels)
	c.ocw, err3 = view[gofss.Block]("ocw", ocws, k)
	return c, errors.Join(err1, err2, err3)
}

func (c *conversion) key(i int) []gofss.Cw { return c.keys[i*c.width : (i+1)*c.width] }
func (c *conversion) ref(i int) []gofss.Cw { return c.refs[i*c.levels : (i+1)*c.levels] }

// keyError names key i of a batch of k in err, a one-key error of the library.
func keyError(k, i int, err error) error {
	if k == 1 {
		return err
	}
	return valueErrorf("key %d: %v", i, err)
}
