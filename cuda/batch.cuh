// The work of one GPU thread in each batched operation, over caller memory laid out
// as docs/spec.md section 6 says. The kernels call these in grid-stride loops; the
// host check calls them in plain loops, so both run the same index arithmetic.
//
// S is a scheme (Dpf<G>, Dcf<G> or HalfTree<G>), P a PRG. A key is S::rows(n) rows of
// kCwWords words. Counts and indices are 64-bit: K * M and K * 2^n outgrow 32 bits.
#pragma once

#include "dcf.cuh"
#include "halftree.cuh"

namespace pyfss {

// Key k of a Gen batch: seeds (K, 2, 4), alphas (K, alpha_words), betas (K, 4) or null
// for zero betas (Grotto DCF's keys), cws (K, rows, 8).
template <class S, class P>
PYFSS_HD void gen_key(const P& prg, uint64_t k, uint32_t* cws, const uint32_t* seeds, const uint32_t* alphas,
                      int alpha_words, const uint32_t* betas, int n, int pred) {
  S::gen(prg, load_block(seeds + 8 * k), load_block(seeds + 8 * k + 4),
         load_input(alphas + k * alpha_words, alpha_words), n, betas ? load_block(betas + 4 * k) : zero_block(),
         pred, cws + k * (uint64_t)S::rows(n) * kCwWords);
}

// Entry t of the level-major copy (rows, K, 8) of cws (K, rows, 8). Evaluation reads
// level i of every key at once; in this layout neighbouring threads, which hold
// neighbouring keys when M is small, read neighbouring correction words.
PYFSS_HD void relayout_cw(uint64_t t, uint32_t* dst, const uint32_t* src, uint64_t k, int rows) {
  uint64_t row = t / k, key = t % k;
  const uint32_t* s = src + (key * rows + row) * kCwWords;
  store_cw(dst + t * kCwWords, load_block(s), load_block(s + 4));
}

// Point t of an Eval batch of K keys x M points: s0s (K, 4), level-major cws
// (rows, K, 8), xs (K, M, x_words), dst (K, M, 4). For K = 1 the two cws layouts are
// the same, so the caller's array serves directly.
template <class S, class P>
PYFSS_HD void eval_point(const P& prg, uint64_t t, uint32_t* dst, uint32_t party, const uint32_t* s0s,
                         const uint32_t* cws_lm, uint64_t k, const uint32_t* xs, int x_words, uint64_t m, int n) {
  uint64_t key = t / m;
  Block y = S::eval(prg, party, load_block(s0s + 4 * key), cws_lm + key * kCwWords, k * kCwWords,
                    load_input(xs + t * x_words, x_words), n);
  store_block(dst + 4 * t, y);
}

// Node t of one EvalAll level over K keys (K << level nodes, key-major); dst is
// (K, 2^n, 4) and holds the partial trees between levels.
template <class S, class P>
PYFSS_HD void eval_all_node(const P& prg, uint64_t t, uint32_t* dst, uint32_t party, const uint32_t* s0s,
                            const uint32_t* cws_lm, uint64_t k, int n, int level) {
  uint64_t key = t >> level, i = t & ((1ull << level) - 1);
  S::eval_all_node(prg, party, s0s + 4 * key, cws_lm + key * kCwWords, k * kCwWords, n, level,
                   dst + (key << n) * 4, i);
}

// Threads per block of every kernel.
constexpr int kThreads = 256;

// An EvalAll launch runs levels [first, first + levels) of the tree. With levels > 1 a
// thread block expands a slice of the nodes of level `first` down through all of them,
// with a barrier between levels, so it must hold the slice's widest level: up to
// log2(kThreads) + 1 levels from one node. The launcher runs the first levels of every
// key that way (one launch instead of one per level, where launches would be tiny)
// and each later level on its own.
constexpr int kEvalAllTopLevels = 9;

// Nodes of level `first` per block.
PYFSS_HD uint64_t eval_all_slice(int levels) { return (uint64_t)kThreads >> (levels - 1); }

// How many blocks' worth of slices a launch has.
PYFSS_HD uint64_t eval_all_slices(uint64_t k, int first, int levels) {
  uint64_t nodes = k << first, slice = eval_all_slice(levels);
  return (nodes + slice - 1) / slice;
}

// Thread `local` of the block that expands slice g, at level first + j. The nodes of a
// slice stay together down the levels: node t's children are 2t and 2t + 1.
template <class S, class P>
PYFSS_HD void eval_all_step(const P& prg, uint64_t g, uint32_t local, int j, int first, int levels, uint32_t* dst,
                            uint32_t party, const uint32_t* s0s, const uint32_t* cws_lm, uint64_t k, int n) {
  uint64_t width = eval_all_slice(levels) << j, t = g * width + local;
  if (local < width && t < (k << (first + j))) eval_all_node<S>(prg, t, dst, party, s0s, cws_lm, k, n, first + j);
}

}  // namespace pyfss
