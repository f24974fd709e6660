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
		// A share is hash XOR a block that depends only on the parent's lsb, which
		// with flip gives its bit t, and the hash's lsb h: t*clamp(corr) ^ (h ^
		// t*lsb(corr))*v, and h in the lsb to clear it. Both sides' four such blocks
		// are looked up by leafFix, fewer operations than the masks.
		var fix [2][4]Block
		for side, corr := range [2]Block{left, right} {
			for i := range 4 {
				t, h := uint8(i>>1)^flip, uint8(i&1)
				fix[side][i] = mask(corr, t).Clamp().Xor(mask(v, h^t&corr.Lsb())).Xor(Block{Hi: uint64(h) << 32})
			}
		}
		out = out[:2*len(parents)]
		for j, p := range parents {
			pair := (*[2]Block)(out[2*j:])
			fl, fr := &fix[0][leafFix(p, pair[0])], &fix[1][leafFix(p, pair[1])]
			pair[0] = Block{pair[0].Lo ^ fl.Lo, pair[0].Hi ^ fl.Hi}
			pair[1] = Block{pair[1].Lo ^ fr.Lo, pair[1].Hi ^ fr.Hi}
		}
	case Uint32, Uint64:
		// A share's value is (hash.Lo ^ c) & valLo + a, negated for party 1, where c =
		// t*corr.Lo and a = lsb(leaf)*v.Lo, looked up as for bytes.
		var fix [2][4]struct{ c, a uint64 }
		for side, corr := range [2]Block{left, right} {
			for i := range 4 {
				t, h := uint8(i>>1)^flip, uint8(i&1)
				fix[side][i].c, fix[side][i].a = mask(corr, t).Lo, mask(v, h^t&corr.Lsb()).Lo
			}
		}
		valLo, neg := g.arith().valLo, -uint64(party) // -y = (y ^ neg) - neg
		out = out[:2*len(parents)]
		for j, p := range parents {
			pair := (*[2]Block)(out[2*j:])
			fl, fr := &fix[0][leafFix(p, pair[0])], &fix[1][leafFix(p, pair[1])]
			yl, yr := (pair[0].Lo^fl.c)&valLo+fl.a, (pair[1].Lo^fr.c)&valLo+fr.a
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

// leafFix is the index in leafShares' tables of a leaf's correction: 2*lsb(parent) +
// lsb(hash), the bits that the correction depends on.
func leafFix(parent, hash Block) uint64 { return (parent.Hi>>31&2 | hash.Hi>>32&1) & 3 }
