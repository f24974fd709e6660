package gofss

// The reference library writes a Half-Tree key as n rows of 8 words, one per level,
// and the output correction word apart (docs/spec.md section 11). These convert one
// key between that layout and gofss's n+1 blocks, both ways without loss: what the
// reference keeps in word 4 of row n-1 (LCW1) is the control bit of block n here.

// ReferenceKey writes key (Params.CwRows() rows) in the reference's layout: its
// in_bits rows to rows, and its output correction word, which it returns.
func (h *HalfTreeDpf) ReferenceKey(rows []Cw, key []Cw) (Block, error) {
	n := h.params.InBits
	if err := h.checkRefLens(len(rows), len(key)); err != nil {
		return Block{}, err
	}
	if err := h.checkCws(key); err != nil {
		return Block{}, err
	}
	b := h.keyBlocks(key, 0)
	for i := range n - 1 {
		rows[i] = Cw{b[i]}
	}
	rows[n-1] = Cw{b[n-1], Block{Lo: uint64(b[n].Lsb())}}
	return b[n].Clamp(), nil
}

// FromReferenceKey is the inverse of ReferenceKey: it writes to key (Params.CwRows()
// rows) the key whose reference layout is rows (in_bits rows) and ocw. It refuses a
// key that the reference's Gen cannot have made.
func (h *HalfTreeDpf) FromReferenceKey(key []Cw, rows []Cw, ocw Block) error {
	n := h.params.InBits
	if err := h.checkRefLens(len(rows), len(key)); err != nil {
		return err
	}
	for i := range n - 1 {
		if !rows[i][1].IsZero() {
			return ArgErrorf("rows: row %d: words 4-7 must be zero in a reference Half-Tree key", i)
		}
	}
	if !isBit(rows[n-1][1]) {
		return ArgErrorf("rows: row %d: words 4-7 must be (0 or 1, 0, 0, 0) in a reference Half-Tree key", n-1)
	}
	if ocw.Lsb() != 0 {
		return ArgErrorf("ocw: the control bit must be clear in a reference Half-Tree key")
	}
	b := cwBlocks(key)
	for i := range n - 1 {
		b[i] = rows[i][0]
	}
	b[n-1], b[n] = rows[n-1][0], ocw.WithLsb(uint8(rows[n-1][1].Lo))
	if n%2 == 0 {
		b[n+1] = Block{}
	}
	return h.checkCws(key)
}

func (h *HalfTreeDpf) checkRefLens(rows, key int) error {
	if rows != h.params.InBits {
		return ArgErrorf("rows must hold in_bits = %d rows, not %d", h.params.InBits, rows)
	}
	if key != h.params.cwRows() {
		return ArgErrorf("key must hold %d rows, not %d", h.params.cwRows(), key)
	}
	return nil
}
