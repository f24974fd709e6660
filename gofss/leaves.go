package gofss

// leafShares corrects a row of leaf hashes of one key and turns them into a party's
// output shares, in place. out holds the hashes of the children of parents, left
// then right; a child's leaf is its hash XOR (left or right) if its parent's control
// bit, its lsb XOR flip, is set, and its share dpfLeaf(clamp(leaf), lsb(leaf), v,
// party): into(from(clamp(leaf)) + lsb(leaf)*v), negated for party 1, with v in value
// form.
//
// Full-domain walks convert a row at a time, with a loop per kind of group
// arithmetic, so that the corrections and v stay in registers: bytes add by XOR,
// uint32 and uint64 within the low half (their value form is zero above it), and
// uint127 with carries, through the group's general arithmetic.
func leafShares(g Group, out, parents []Block, flip uint8, left, right, v Block, party int) {
	switch g {
	case Bytes: // from clears the control bit; -y = y
		// On the halves, so that the corrections and v stay in registers.
		lLo, lHi, rLo, rHi, vLo, vHi := left.Lo, left.Hi, right.Lo, right.Hi, v.Lo, v.Hi
		out = out[:2*len(parents)]
		for j, p := range parents {
			t := -(p.Hi>>32&1 ^ uint64(flip)) // all ones where the parent's bit is set
			pair := (*[2]Block)(out[2*j:])
			l0, l1 := pair[0].Lo^lLo&t, pair[0].Hi^lHi&t
			r0, r1 := pair[1].Lo^rLo&t, pair[1].Hi^rHi&t
			ml, mr := -(l1 >> 32 & 1), -(r1 >> 32 & 1)
			pair[0] = Block{l0 ^ vLo&ml, l1&^lsbBit ^ vHi&ml}
			pair[1] = Block{r0 ^ vLo&mr, r1&^lsbBit ^ vHi&mr}
		}
	case Uint32, Uint64:
		valLo, neg := g.arith().valLo, -uint64(party) // -y = (y ^ neg) - neg
		for j, p := range parents {
			t := p.Lsb() ^ flip
			pair := out[2*j : 2*j+2]
			l, r := pair[0].Xor(mask(left, t)), pair[1].Xor(mask(right, t))
			yl, yr := l.Lo&valLo+mask(v, l.Lsb()).Lo, r.Lo&valLo+mask(v, r.Lsb()).Lo
			pair[0], pair[1] = Block{Lo: (yl ^ neg - neg) & valLo}, Block{Lo: (yr ^ neg - neg) & valLo}
		}
	default:
		ar := g.arith()
		for j, p := range parents {
			t := p.Lsb() ^ flip
			l, r := out[2*j].Xor(mask(left, t)), out[2*j+1].Xor(mask(right, t))
			out[2*j] = dpfLeaf(ar, l.Clamp(), l.Lsb(), v, party)
			out[2*j+1] = dpfLeaf(ar, r.Clamp(), r.Lsb(), v, party)
		}
	}
}
