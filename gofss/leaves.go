package gofss

// leafShares corrects a row of leaf hashes of one key and turns them into a party's
// output shares, in place. out holds the hashes of the children of parents, left
// then right; a child's leaf is its hash XOR (left or right) if its parent's control
// bit (lsb) is set, and its share dpfLeaf(clamp(leaf), lsb(leaf), v, party): into(
// from(clamp(leaf)) + lsb(leaf)*v), negated for party 1, with v in value form.
//
// Full-domain walks convert a row at a time so that the corrections and the group's
// masks stay in registers: per leaf, a few operations on its two halves.
func leafShares(g Group, out, parents []Block, left, right, v Block, party int) {
	out = out[:2*len(parents)]
	lm, ok := g.laneMasks()
	if !ok { // uint127: its addition carries from the low half into the high one
		ar := g.arith()
		for j, p := range parents {
			t := p.Lsb()
			l, r := out[2*j].Xor(mask(left, t)), out[2*j+1].Xor(mask(right, t))
			out[2*j] = dpfLeaf(ar, l.Clamp(), l.Lsb(), v, party)
			out[2*j+1] = dpfLeaf(ar, r.Clamp(), r.Lsb(), v, party)
		}
		return
	}
	share := func(l Block) Block {
		neg := -uint64(party) // party 1 negates: -y = (y ^ neg) - neg
		t := -(l.Hi >> 32 & 1)
		xLo, xHi := l.Lo&lm.from.Lo, l.Hi&lm.from.Hi
		vLo, vHi := v.Lo&t, v.Hi&t
		sLo, sHi := (xLo+vLo)^neg-neg, (xHi+vHi)^neg-neg
		return Block{(xLo^vLo)&lm.xor.Lo | sLo&lm.add.Lo, (xHi^vHi)&lm.xor.Hi | sHi&lm.add.Hi}
	}
	for j, p := range parents {
		t := p.Lsb()
		out[2*j] = share(out[2*j].Xor(mask(left, t)))
		out[2*j+1] = share(out[2*j+1].Xor(mask(right, t)))
	}
}
