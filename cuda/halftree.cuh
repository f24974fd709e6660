// Half-Tree DPF (docs/spec.md section 11) for one key, as the kernels run it per thread.
//
// A node is a whole block, its control bit in its lsb; the hash H is the PRG's hash
// (prg.cuh), which reads the whole block. A key is n + 1 blocks, two to a row of 8
// words: block i of a key is at key + (i >> 1) * stride + (i & 1) * 4, stride being
// the distance between the key's rows (8 words in the caller's layout, K * 8 in the
// level-major copy), so that the batch code of batch.cuh serves as it does for DPF.
// The outputs follow DPF's rule (Dpf::leaf), and Gen's output correction word is
// DPF's (Dpf::output_cw).
#pragma once

#include "dpf.cuh"

namespace pyfss {

template <class G>
struct HalfTree {
  static PYFSS_HD int rows(int n) { return (n + 2) / 2; }

  // Writes the rows(n) rows of one key pair to cws (row stride 8 words); pred is unused.
  template <class P>
  static PYFSS_HD void gen(const P& prg, Block seed0, Block seed1, const Input& alpha, int n, Block beta,
                           int pred, uint32_t* cws) {
    (void)pred;
    Block node[2] = {with_lsb(seed0, 0), with_lsb(seed1, 1)};
    for (int i = 0; i < n - 1; i++) {
      uint32_t a = input_bit(alpha, n, i);
      Block h0 = prg.hash(node[0]), h1 = prg.hash(node[1]);
      // Off alpha's path the children must be equal, on it differ as their parents do.
      Block cw = bxor(bxor(h0, h1), mask(bxor(node[0], node[1]), a ^ 1));
      store_block(cws + 4 * i, cw);
      node[0] = child(h0, node[0], cw, a);
      node[1] = child(h1, node[1], cw, a);
    }
    uint32_t a = input_bit(alpha, n, n - 1);
    Block h[2][2];  // party p's hash of its child c
    PYFSS_UNROLL for (int p = 0; p < 2; p++) {
      h[p][0] = prg.hash(with_lsb(node[p], 0));
      h[p][1] = prg.hash(with_lsb(node[p], 1));
    }
    Block hcw = clamp(a ? bxor(h[0][0], h[1][0]) : bxor(h[0][1], h[1][1]));
    uint32_t lcw0 = lsb(h[0][0]) ^ lsb(h[1][0]) ^ a ^ 1;
    uint32_t lcw1 = lsb(h[0][1]) ^ lsb(h[1][1]) ^ a;
    Block keep = with_lsb(hcw, a ? lcw1 : lcw0);  // the correction of alpha's leaf
    Block leaf0 = bxor(a ? h[0][1] : h[0][0], mask(keep, lsb(node[0])));
    Block leaf1 = bxor(a ? h[1][1] : h[1][0], mask(keep, lsb(node[1])));
    store_block(cws + 4 * (n - 1), with_lsb(hcw, lcw0));
    store_block(cws + 4 * n, with_lsb(Dpf<G>::output_cw(beta, leaf0, leaf1), lcw1));
    if (n % 2 == 0) store_block(cws + 4 * (n + 1), zero_block());  // the padding block
  }

  // Party `party`'s share at x; the key's rows are `stride` words apart.
  template <class P>
  static PYFSS_HD Block eval(const P& prg, uint32_t party, Block s0, const uint32_t* key, uint64_t stride,
                             const Input& x, int n) {
    Block node = with_lsb(s0, party);
    for (int i = 0; i < n - 1; i++) node = child(prg.hash(node), node, block(key, stride, i), input_bit(x, n, i));
    return leaf_share(prg, party, node, key, stride, n, input_bit(x, n, n - 1));
  }

  // One node of a breadth-first EvalAll, laid out in the output as Dpf::eval_all_node
  // lays out its nodes; the nodes of level n - 1 write both leaves' shares.
  template <class P>
  static PYFSS_HD void eval_all_node(const P& prg, uint32_t party, const uint32_t* s0, const uint32_t* key,
                                     uint64_t stride, int n, int level, uint32_t* out, uint64_t i) {
    uint64_t p = i << (n - level), h = 1ull << (n - level - 1);
    Block node = level == 0 ? with_lsb(load_block(s0), party) : load_block(out + 4 * p);
    if (level + 1 == n) {
      store_block(out + 4 * p, leaf_share(prg, party, node, key, stride, n, 0));
      store_block(out + 4 * (p + 1), leaf_share(prg, party, node, key, stride, n, 1));
    } else {
      Block l = child(prg.hash(node), node, block(key, stride, level), 0);
      store_block(out + 4 * p, l);
      store_block(out + 4 * (p + h), bxor(l, node));  // the right child: the left one XOR the node
    }
  }

 private:
  static PYFSS_HD Block block(const uint32_t* key, uint64_t stride, int i) {
    return load_block(key + (i >> 1) * stride + (i & 1) * 4);
  }

  // The child on side `right` of node, whose hash is hn: H(N) ^ t * cw, XOR N for
  // the right child, t being the node's control bit.
  static PYFSS_HD Block child(Block hn, Block node, Block cw, uint32_t right) {
    return bxor(bxor(hn, mask(cw, lsb(node))), mask(node, right));
  }

  // Party's share at the child on side c of node, a node of level n - 1: its leaf is
  // H(with_lsb(N, c)) ^ t * with_lsb(HCW, LCW_c), with HCW and LCW0 in block n - 1
  // and LCW1 the lsb of block n, whose rest is the output correction word.
  template <class P>
  static PYFSS_HD Block leaf_share(const P& prg, uint32_t party, Block node, const uint32_t* key,
                                   uint64_t stride, int n, uint32_t c) {
    Block hcw = block(key, stride, n - 1), ocw = block(key, stride, n);
    Block cw = with_lsb(hcw, c ? lsb(ocw) : lsb(hcw));
    Block leaf = bxor(prg.hash(with_lsb(node, c)), mask(cw, lsb(node)));
    return Dpf<G>::leaf(leaf, clamp(ocw), party);
  }
};

}  // namespace pyfss
