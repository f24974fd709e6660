// Grotto DCF (docs/spec.md section 12) as the kernels run it per thread: Preprocess
// builds each key's prefix parities, a bit per input, and Eval and EvalInterval look
// them up. Its keys are DPF keys of group bytes, made by the DPF Gen kernels with zero
// betas.
//
// Preprocess writes into pre (K, W) 64-bit words, W = ceil(2^n / 64), in three steps:
//  1. The DPF tree of each key down to level r = n - kChunkLevels (when n is larger),
//     breadth-first in place in the key's words as EvalAll builds its tree
//     (GrottoTree, run by eval_all_step): a node of level r takes 16 bytes, exactly
//     the two words of its 2^kChunkLevels leaves.
//  2. grotto_leaf_bits: one thread per node of level r (per key when r = 0) walks the
//     rest of its subtree depth-first and overwrites the node with its leaves'
//     control bits.
//  3. A prefix XOR over each key's bits, by levels: parity_gather packs the parity of
//     every 64 words of a level into one word of the next, until a level is one word
//     per key; then, from the top down, parity_apply turns each word into its prefix
//     parities, flipped when the words before it have parity 1 (a bit of the level
//     above, now scanned).
#pragma once

#include "batch.cuh"

namespace pyfss {

// Levels that one thread of grotto_leaf_bits walks: its 2^7 leaves are two words.
constexpr int kChunkLevels = 7;

// The DPF nodes of step 1: a tree of n levels (the caller passes r) without outputs.
struct GrottoTree {
  static PYFSS_HD int rows(int n) { return n + 1; }

  template <class P>
  static PYFSS_HD void eval_all_node(const P& prg, uint32_t party, const uint32_t* s0, const uint32_t* cws,
                                     uint64_t stride, int n, int level, uint32_t* out, uint64_t i) {
    Dpf<GroupBytes>::template tree_node<false>(prg, party, s0, cws, stride, n, level, out, i);
  }
};

// The levels of a key's tree above the chunks that grotto_leaf_bits walks.
PYFSS_HD int grotto_tree_levels(int n) { return n > kChunkLevels ? n - kChunkLevels : 0; }

// Node j of level r of key `key` (thread t = key << r | j): its leaves' control bits, in
// order, into the key's words 2j and 2j + 1, or into word 0 for n < 7 (bits 2^n and
// up zero). pre is (K, words); s0s (K, 4); cws_lm the level-major cws (n + 1, K, 8).
template <class P>
PYFSS_HD void grotto_leaf_bits(const P& prg, uint64_t t, uint64_t* pre, uint64_t words, uint32_t party,
                               const uint32_t* s0s, const uint32_t* cws_lm, uint64_t k, int n) {
  int r = grotto_tree_levels(n);
  uint64_t key = t >> r, j = t & ((1ull << r) - 1);
  uint64_t* out = pre + key * words + 2 * j;
  const uint32_t* cws = cws_lm + key * kCwWords;
  uint64_t stride = k * kCwWords;
  // A stack of the subtree's nodes still to expand, right siblings below left ones:
  // at most one pending node per level, and the root.
  Block stack[kChunkLevels + 1];
  int levels[kChunkLevels + 1];
  int top = 0;
  stack[0] = r == 0 ? with_lsb(load_block(s0s + 4 * key), party) : load_block(reinterpret_cast<uint32_t*>(out));
  levels[0] = r;
  uint64_t bits[2] = {0, 0};
  uint32_t x = 0;  // the next leaf of the subtree
  while (top >= 0) {
    Block node = stack[top];
    int level = levels[top--];
    Block l, rt;
    Dpf<GroupBytes>::children(prg, node, cws + level * stride, &l, &rt);
    if (level + 1 == n) {
      uint64_t pair = (uint64_t)(lsb(l) | lsb(rt) << 1) << (x & 63);
      if (x < 64) {
        bits[0] |= pair;
      } else {
        bits[1] |= pair;
      }
      x += 2;
    } else {
      stack[++top] = rt;
      levels[top] = level + 1;
      stack[++top] = l;
      levels[top] = level + 1;
    }
  }
  out[0] = bits[0];
  if (n >= kChunkLevels) out[1] = bits[1];
}

// Parity of the bits of w.
PYFSS_HD uint64_t parity64(uint64_t w) {
  w ^= w >> 32;
  w ^= w >> 16;
  w ^= w >> 8;
  w ^= w >> 4;
  w ^= w >> 2;
  w ^= w >> 1;
  return w & 1;
}

// Words per key of the scan level above a level of `count` words per key.
PYFSS_HD uint64_t parity_words_above(uint64_t count) { return (count + 63) / 64; }

// Word t of the level above src (count words per key): bit b of its word j of a key
// is the parity of that key's src word 64j + b.
PYFSS_HD void parity_gather(uint64_t t, uint64_t* dst, const uint64_t* src, uint64_t count) {
  uint64_t above = parity_words_above(count), key = t / above, j = t % above;
  const uint64_t* s = src + key * count;
  uint64_t w = 0;
  for (uint64_t b = 0; b < 64 && 64 * j + b < count; b++) w |= parity64(s[64 * j + b]) << b;
  dst[t] = w;
}

// Word t of a level of `count` words per key: bit x becomes the parity of its bits 0
// .. x, flipped if the key's words before it have parity 1, which is bit i - 1 of the
// scanned level above (carries; not read when count is 1), then masked.
PYFSS_HD void parity_apply(uint64_t t, uint64_t* words, const uint64_t* carries, uint64_t count, uint64_t mask) {
  uint64_t key = t / count, i = t % count, w = words[t];
  w ^= w << 1;
  w ^= w << 2;
  w ^= w << 4;
  w ^= w << 8;
  w ^= w << 16;
  w ^= w << 32;
  if (i > 0) {
    uint64_t c = carries[key * parity_words_above(count) + (i - 1) / 64] >> ((i - 1) % 64) & 1;
    w ^= 0 - c;
  }
  words[t] = w & mask;
}

// The mask of parity_apply on the words of pre: the bits of inputs, all of them but
// for n < 6.
PYFSS_HD uint64_t grotto_word_mask(int n) { return n < 6 ? (1ull << (1 << n)) - 1 : ~0ull; }

// Bit x of a key's prefix parities. Only the low n bits of x are read, so that no
// input reaches outside the key's words (the callers check the range).
PYFSS_HD uint8_t parity_at(const uint64_t* pre, uint64_t words, uint64_t key, const uint32_t* x, int x_words,
                           int n) {
  Input in = load_input(x, x_words);
  uint64_t v = (in.w[0] | (uint64_t)in.w[1] << 32) & ((1ull << n) - 1);
  return pre[key * words + (v >> 6)] >> (v & 63) & 1;
}

// Point t of an Eval batch of K keys x M points: pre (K, words), xs (K, M, x_words),
// dst (K, M) bytes 0 or 1.
PYFSS_HD void grotto_eval_point(uint64_t t, uint8_t* dst, const uint64_t* pre, uint64_t words, const uint32_t* xs,
                                int x_words, uint64_t m, int n) {
  dst[t] = parity_at(pre, words, t / m, xs + t * x_words, x_words, n);
}

// Interval t of an EvalInterval batch, as grotto_eval_point: the share of
// 1{lo <= alpha <= hi} is P(hi) ^ P(lo - 1), with P(-1) = 0; the callers check lo <= hi.
PYFSS_HD void grotto_interval(uint64_t t, uint8_t* dst, const uint64_t* pre, uint64_t words, const uint32_t* los,
                              int lo_words, const uint32_t* his, int hi_words, uint64_t m, int n) {
  uint64_t key = t / m;
  Input lo = load_input(los + t * lo_words, lo_words);
  uint64_t below = (lo.w[0] | (uint64_t)lo.w[1] << 32) & ((1ull << n) - 1);
  uint8_t p = parity_at(pre, words, key, his + t * hi_words, hi_words, n);
  if (below > 0) {
    uint32_t b[2] = {(uint32_t)(below - 1), (uint32_t)((below - 1) >> 32)};
    p ^= parity_at(pre, words, key, b, 2, n);
  }
  dst[t] = p;
}

}  // namespace pyfss
