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
	h, err := lookupHalfTree(handle)
	if err != nil {
		return 0, err
	}
	bits, width := h.Params().InBits, h.Params().CwRows()
	if k < 0 || k > math.MaxInt/max(bits, width) {
		return 0, valueErrorf("bad number of keys %d", k)
	}
	ref, err1 := view[gofss.Cw]("rows", rows, k*bits)
	ocw, err2 := view[gofss.Block]("ocw", ocws, k)
	key, err3 := view[gofss.Cw]("cws", keys, k*width)
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, err
	}
	for i := range k {
		if ocw[i], err = h.ReferenceKey(ref[i*bits:(i+1)*bits], key[i*width:(i+1)*width]); err != nil {
			return 0, keyError(k, i, err)
		}
	}
	return k, nil
}

// HalfTreeFromReference is the inverse of HalfTreeToReference: it writes into keys
// the k keys whose reference layout is rows and ocws. Returns k.
func HalfTreeFromReference(handle int64, keys, rows, ocws uintptr, k int) (n int, err error) {
	defer guard(&err)
	h, err := lookupHalfTree(handle)
	if err != nil {
		return 0, err
	}
	bits, width := h.Params().InBits, h.Params().CwRows()
	if k < 0 || k > math.MaxInt/max(bits, width) {
		return 0, valueErrorf("bad number of keys %d", k)
	}
	key, err1 := view[gofss.Cw]("cws", keys, k*width)
	ref, err2 := view[gofss.Cw]("rows", rows, k*bits)
	ocw, err3 := view[gofss.Block]("ocw", ocws, k)
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, err
	}
	for i := range k {
		if err := h.FromReferenceKey(key[i*width:(i+1)*width], ref[i*bits:(i+1)*bits], ocw[i]); err != nil {
			return 0, keyError(k, i, err)
		}
	}
	return k, nil
}

// keyError names key i of a batch of k in err, a one-key error of the library.
func keyError(k, i int, err error) error {
	if k == 1 {
		return err
	}
	return valueErrorf("key %d: %v", i, err)
}
