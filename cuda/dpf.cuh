// DPF (docs/spec.md section 4) for one key, as the kernels run it per thread.
//
// A tree node is one block: the clamped seed with the control bit t in its lsb. PRG
// outputs have the same shape, so a child is the PRG output of its side XOR, when the
// parent's t is 1, the correction word with that side's t correction in its lsb.
#pragma once

#include "group.cuh"
#include "prg.cuh"

namespace pyfss {

// The child on side `right` of a node whose control bit is t. cw_lo is word 0-3 of the
// level's correction word: s_cw with tl_cw in its lsb.
PYFSS_HD Block tree_child(Block prg_out, Block cw_lo, uint32_t tr_cw, uint32_t right, uint32_t t) {
  Block cw = right ? with_lsb(cw_lo, tr_cw) : cw_lo;
  return bxor(prg_out, mask(cw, t));
}

template <class G>
struct Dpf {
  typedef typename G::T T;

  // Rows of 8 words of one key.
  static PYFSS_HD int rows(int n) { return n + 1; }

  // Writes the n + 1 correction words of one key pair to cws (row stride 8 words).
  // pred is read by DCF only; both schemes share the batch code.
  template <class P>
  static PYFSS_HD void gen(const P& prg, Block seed0, Block seed1, const Input& alpha, int n, Block beta,
                           int pred, uint32_t* cws) {
    (void)pred;
    Block leaves[2];
    gen_tree(prg, seed0, seed1, alpha, n, beta, cws, leaves);
  }

  // Gen's n + 1 rows; leaves gets the parties' nodes at alpha's leaf (VDPF's Gen hashes
  // them).
  template <class P>
  static PYFSS_HD void gen_tree(const P& prg, Block seed0, Block seed1, const Input& alpha, int n, Block beta,
                                uint32_t* cws, Block* leaves) {
    Block node[2] = {with_lsb(seed0, 0), with_lsb(seed1, 1)};
    for (int i = 0; i < n; i++) {
      Block c0[2], c1[2];
      prg.template expand<2>(clamp(node[0]), c0);
      prg.template expand<2>(clamp(node[1]), c1);
      uint32_t a = input_bit(alpha, n, i);
      Block s_cw = clamp(a ? bxor(c0[0], c1[0]) : bxor(c0[1], c1[1]));
      uint32_t tl_cw = lsb(c0[0]) ^ lsb(c1[0]) ^ a ^ 1;
      uint32_t tr_cw = lsb(c0[1]) ^ lsb(c1[1]) ^ a;
      Block cw_lo = with_lsb(s_cw, tl_cw);
      store_cw(cws + i * kCwWords, cw_lo, Block{{tr_cw, 0, 0, 0}});
      node[0] = tree_child(a ? c0[1] : c0[0], cw_lo, tr_cw, a, lsb(node[0]));
      node[1] = tree_child(a ? c1[1] : c1[0], cw_lo, tr_cw, a, lsb(node[1]));
    }
    store_cw(cws + n * kCwWords, output_cw(beta, node[0], node[1]), zero_block());
    leaves[0] = node[0];
    leaves[1] = node[1];
  }

  // The output correction word of the parties' leaves L_0, L_1 on alpha's path:
  // into(from(beta) - from(clamp(L_0)) + from(clamp(L_1))), negated if lsb(L_1) is 1.
  static PYFSS_HD Block output_cw(Block beta, Block leaf0, Block leaf1) {
    T v = G::add(group_sub<G>(G::from(clamp(beta)), G::from(clamp(leaf0))), G::from(clamp(leaf1)));
    return G::into(lsb(leaf1) ? G::neg(v) : v);
  }

  // Party `party`'s share at x; row i of the key is at cws + i * stride.
  template <class P>
  static PYFSS_HD Block eval(const P& prg, uint32_t party, Block s0, const uint32_t* cws, uint64_t stride,
                             const Input& x, int n) {
    return leaf(walk(prg, party, s0, cws, stride, x, n), load_block(cws + n * stride), party);
  }

  // The node (seed and control bit) of x's leaf.
  template <class P>
  static PYFSS_HD Block walk(const P& prg, uint32_t party, Block s0, const uint32_t* cws, uint64_t stride,
                             const Input& x, int n) {
    Block node = with_lsb(s0, party);
    for (int i = 0; i < n; i++) {
      uint32_t b = input_bit(x, n, i);
      Block c;
      prg.template expand_half<2>(clamp(node), b, &c);
      const uint32_t* row = cws + i * stride;
      node = tree_child(c, load_block(row), row[4] & 1, b, lsb(node));
    }
    return node;
  }

  // One node of a breadth-first EvalAll. The tree is built in place in the key's output
  // (2^n blocks): node i of level L lives at block i << (n - L), its children at the
  // same block and half-way to the next node, so each node is read only by the thread
  // that overwrites it. The last level writes the leaves' shares side by side.
  template <class P>
  static PYFSS_HD void eval_all_node(const P& prg, uint32_t party, const uint32_t* s0, const uint32_t* cws,
                                     uint64_t stride, int n, int level, uint32_t* out, uint64_t i) {
    tree_node<true>(prg, party, s0, cws, stride, n, level, out, i);
  }

  // eval_all_node in a tree of n levels laid out the same way; with Leaves false the
  // last level stores its children as nodes rather than outputs, so that the tree
  // may stop above the key's leaves (Grotto's preprocessing, grotto.cuh).
  template <bool Leaves, class P>
  static PYFSS_HD void tree_node(const P& prg, uint32_t party, const uint32_t* s0, const uint32_t* cws,
                                 uint64_t stride, int n, int level, uint32_t* out, uint64_t i) {
    uint64_t p = i << (n - level), h = 1ull << (n - level - 1);
    Block node = level == 0 ? with_lsb(load_block(s0), party) : load_block(out + 4 * p);
    Block l, r;
    children(prg, node, cws + level * stride, &l, &r);
    if (Leaves && level + 1 == n) {
      Block v_cw = load_block(cws + n * stride);
      l = leaf(l, v_cw, party);
      r = leaf(r, v_cw, party);
    }
    store_block(out + 4 * p, l);
    store_block(out + 4 * (p + h), r);
  }

  // Both children of node at the level whose correction word is row.
  template <class P>
  static PYFSS_HD void children(const P& prg, Block node, const uint32_t* row, Block* l, Block* r) {
    Block c[2];
    prg.template expand<2>(clamp(node), c);
    Block cw_lo = load_block(row);
    uint32_t tr_cw = row[4] & 1, t = lsb(node);
    *l = tree_child(c[0], cw_lo, tr_cw, 0, t);
    *r = tree_child(c[1], cw_lo, tr_cw, 1, t);
  }

  // Party's share at a leaf: into(from(clamp(leaf)) + lsb(leaf) * from(v_cw)), negated
  // for party 1. v_cw must have its lsb clear.
  static PYFSS_HD Block leaf(Block node, Block v_cw, uint32_t party) {
    T y = G::from(clamp(node));
    if (lsb(node)) y = G::add(y, G::from(v_cw));
    return G::into(party ? G::neg(y) : y);
  }
};

}  // namespace pyfss
