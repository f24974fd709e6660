// Verifiable DPF (docs/spec.md section 15) for one key and one point, as the kernels run
// it per thread: DPF's Gen and walk, plus the XH hashes of the proofs. Prove, a
// sequential chain over the pieces, stays on the host.
//
// A key is n + 3 rows: DPF's n + 1, then cs as (cs_0, cs_1) and (cs_2, cs_3).
#pragma once

#include "batch.cuh"
#include "hash.cuh"

namespace pyfss {

// Pack(x): an input's 16 little-endian bytes as a block.
PYFSS_HD Block pack_input(const Input& x) { return Block{{x.w[0], x.w[1], x.w[2], x.w[3]}}; }

template <class G, class H>
struct Vdpf {
  static PYFSS_HD int rows(int n) { return n + 3; }

  // Writes the n + 3 rows of one key pair; cs = XH(alpha, s_0) ^ XH(alpha, s_1) over
  // the parties' clamped seeds at alpha's leaf.
  template <class P>
  static PYFSS_HD void gen(const P& prg, const HashKeys& keys, Block seed0, Block seed1, const Input& alpha, int n,
                           Block beta, uint32_t* cws) {
    Block leaves[2];
    Dpf<G>::gen_tree(prg, seed0, seed1, alpha, n, beta, cws, leaves);
    Block a = pack_input(alpha);
    Proof cs = proof_xor(xor_hash<H>(keys, a, clamp(leaves[0])), xor_hash<H>(keys, a, clamp(leaves[1])));
    store_cw(cws + (n + 1) * kCwWords, cs.b[0], cs.b[1]);
    store_cw(cws + (n + 2) * kCwWords, cs.b[2], cs.b[3]);
  }

  // Party's share at x into *y and its proof piece XH(x, s) ^ (cs if t) into *piece.
  template <class P>
  static PYFSS_HD void eval(const P& prg, const HashKeys& keys, uint32_t party, Block s0, const uint32_t* cws,
                            uint64_t stride, const Input& x, int n, Block* y, Proof* piece) {
    Block node = Dpf<G>::walk(prg, party, s0, cws, stride, x, n);
    *y = Dpf<G>::leaf(node, load_block(cws + n * stride), party);
    const uint32_t* cs01 = cws + (n + 1) * stride;
    const uint32_t* cs23 = cws + (n + 2) * stride;
    Proof cs = {{load_block(cs01), load_block(cs01 + 4), load_block(cs23), load_block(cs23 + 4)}};
    Proof p = xor_hash<H>(keys, pack_input(x), clamp(node));
    PYFSS_UNROLL for (int i = 0; i < 4; i++) p.b[i] = bxor(p.b[i], mask(cs.b[i], lsb(node)));
    *piece = p;
  }
};

// Key k of a VDPF Gen batch, laid out as gen_key's.
template <class S, class P>
PYFSS_HD void vdpf_gen_key(const P& prg, const HashKeys& keys, uint64_t k, uint32_t* cws, const uint32_t* seeds,
                           const uint32_t* alphas, int alpha_words, const uint32_t* betas, int n) {
  S::gen(prg, keys, load_block(seeds + 8 * k), load_block(seeds + 8 * k + 4),
         load_input(alphas + k * alpha_words, alpha_words), n, load_block(betas + 4 * k),
         cws + k * (uint64_t)S::rows(n) * kCwWords);
}

// Point t of a VDPF Eval batch, laid out as eval_point's, with the proof pieces in
// pieces (K, M, 4, 4).
template <class S, class P>
PYFSS_HD void vdpf_eval_point(const P& prg, const HashKeys& keys, uint64_t t, uint32_t* dst, uint32_t* pieces,
                              uint32_t party, const uint32_t* s0s, const uint32_t* cws_lm, uint64_t k,
                              const uint32_t* xs, int x_words, uint64_t m, int n) {
  uint64_t key = t / m;
  Block y;
  Proof p;
  S::eval(prg, keys, party, load_block(s0s + 4 * key), cws_lm + key * kCwWords, k * kCwWords,
          load_input(xs + t * x_words, x_words), n, &y, &p);
  store_block(dst + 4 * t, y);
  PYFSS_UNROLL for (int i = 0; i < 4; i++) store_block(pieces + 16 * t + 4 * i, p.b[i]);
}

}  // namespace pyfss
