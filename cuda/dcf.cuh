// DCF (docs/spec.md section 5) for one key, as the kernels run it per thread.
//
// Nodes are DPF nodes (seed with t in its lsb) plus V, the group sum of the v values on
// the path. Party 1's V is negated once at the leaf instead of at every level.
#pragma once

#include "dpf.cuh"

namespace pyfss {

enum { kPredLt = 0, kPredGt = 1 };

template <class G>
struct Dcf {
  typedef typename G::T T;

  static PYFSS_HD int rows(int n) { return n + 1; }

  template <class P>
  static PYFSS_HD void gen(const P& prg, Block seed0, Block seed1, const Input& alpha, int n, Block beta_block,
                           int pred, uint32_t* cws) {
    Block node[2] = {with_lsb(seed0, 0), with_lsb(seed1, 1)};
    T V = G::zero(), beta = G::from(clamp(beta_block));
    for (int i = 0; i < n; i++) {
      Block c0[4], c1[4];  // s_left, v_left, s_right, v_right
      prg.template expand<4>(clamp(node[0]), c0);
      prg.template expand<4>(clamp(node[1]), c1);
      uint32_t a = input_bit(alpha, n, i);
      Block s_cw = clamp(a ? bxor(c0[0], c1[0]) : bxor(c0[2], c1[2]));
      // lose = the side away from alpha, whose subtree gets beta when pred says so.
      T lose0 = G::from(clamp(a ? c0[1] : c0[3])), lose1 = G::from(clamp(a ? c1[1] : c1[3]));
      T keep0 = G::from(clamp(a ? c0[3] : c0[1])), keep1 = G::from(clamp(a ? c1[3] : c1[1]));
      T v_cw = G::add(group_sub<G>(G::neg(V), lose0), lose1);
      if ((a == 0 && pred == kPredGt) || (a == 1 && pred == kPredLt)) v_cw = G::add(v_cw, beta);
      uint32_t t1 = lsb(node[1]);
      if (t1) v_cw = G::neg(v_cw);
      V = G::add(group_sub<G>(V, keep1), keep0);
      V = t1 ? group_sub<G>(V, v_cw) : G::add(V, v_cw);
      uint32_t tl_cw = lsb(c0[0]) ^ lsb(c1[0]) ^ a ^ 1;
      uint32_t tr_cw = lsb(c0[2]) ^ lsb(c1[2]) ^ a;
      Block cw_lo = with_lsb(s_cw, tl_cw);
      store_cw(cws + i * kCwWords, cw_lo, with_lsb(G::into(v_cw), tr_cw));
      node[0] = tree_child(a ? c0[2] : c0[0], cw_lo, tr_cw, a, lsb(node[0]));
      node[1] = tree_child(a ? c1[2] : c1[0], cw_lo, tr_cw, a, lsb(node[1]));
    }
    T last = group_sub<G>(group_sub<G>(G::from(clamp(node[1])), G::from(clamp(node[0]))), V);
    if (lsb(node[1])) last = G::neg(last);
    store_cw(cws + n * kCwWords, zero_block(), G::into(last));
  }

  template <class P>
  static PYFSS_HD Block eval(const P& prg, uint32_t party, Block s0, const uint32_t* cws, uint64_t stride,
                             const Input& x, int n) {
    Block node = with_lsb(s0, party);
    T V = G::zero();
    for (int i = 0; i < n; i++) {
      uint32_t b = input_bit(x, n, i);
      Block c[2];  // s and v of side b
      prg.template expand_half<4>(clamp(node), b, c);
      const uint32_t* row = cws + i * stride;
      Block cw_hi = load_block(row + 4);
      uint32_t t = lsb(node);
      V = G::add(V, value(c[1], cw_hi, t));
      node = tree_child(c[0], load_block(row), lsb(cw_hi), b, t);
    }
    return leaf(node, V, load_block(cws + n * stride + 4), party);
  }

  // As Dpf::eval_all_node; a node takes two blocks (seed, then V as a block), which fit
  // because a node of level L < n owns 2^(n-L) >= 2 blocks of the output.
  template <class P>
  static PYFSS_HD void eval_all_node(const P& prg, uint32_t party, const uint32_t* s0, const uint32_t* cws,
                                     uint64_t stride, int n, int level, uint32_t* out, uint64_t i) {
    uint64_t p = i << (n - level), h = 1ull << (n - level - 1);
    Block node;
    T V;
    if (level == 0) {
      node = with_lsb(load_block(s0), party);
      V = G::zero();
    } else {
      node = load_block(out + 4 * p);
      V = G::from(load_block(out + 4 * (p + 1)));
    }
    Block c[4];
    prg.template expand<4>(clamp(node), c);
    const uint32_t* row = cws + level * stride;
    Block cw_lo = load_block(row), cw_hi = load_block(row + 4);
    uint32_t t = lsb(node);
    Block l = tree_child(c[0], cw_lo, lsb(cw_hi), 0, t), r = tree_child(c[2], cw_lo, lsb(cw_hi), 1, t);
    T vl = G::add(V, value(c[1], cw_hi, t)), vr = G::add(V, value(c[3], cw_hi, t));
    if (level + 1 == n) {
      Block v_cw = load_block(cws + n * stride + 4);
      store_block(out + 4 * p, leaf(l, vl, v_cw, party));
      store_block(out + 4 * (p + 1), leaf(r, vr, v_cw, party));
    } else {
      store_block(out + 4 * p, l);
      store_block(out + 4 * (p + 1), G::into(vl));
      store_block(out + 4 * (p + h), r);
      store_block(out + 4 * (p + h + 1), G::into(vr));
    }
  }

 private:
  // The v of one level: the PRG's v output, corrected when t is 1. The correction sits
  // in words 4-7 of the row with tr_cw in its lsb.
  static PYFSS_HD T value(Block prg_v, Block cw_hi, uint32_t t) {
    T v = G::from(clamp(prg_v));
    return t ? G::add(v, G::from(clamp(cw_hi))) : v;
  }

  static PYFSS_HD Block leaf(Block node, T V, Block v_cw_last, uint32_t party) {
    T y = G::add(V, value(node, v_cw_last, lsb(node)));
    return G::into(party ? G::neg(y) : y);
  }
};

}  // namespace pyfss
