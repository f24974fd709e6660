// The batched Eval of the multi-point schemes DMPF and VDMPF (docs/spec.md section
// 16) for one input, as the kernels run it per thread: the input's three (bucket,
// index) pairs by Cuckoo hashing through the AES-Feistel PRP, the DPF (VDPF) walk of
// each pair's bucket key at its index, and the sum of the three shares. VDMPF also
// writes each pair's bucket and proof piece; folding them into the proof (a
// sequential chain per bucket) stays on the host.
//
// A key is rows (rows, 8): the header row (the PRP key sigma in words 0-3, m_rt in word
// 4), then `buckets` bucket keys of S::rows(bucket_bits) rows each. Inputs fit in 62
// bits, so that the PRP's domain 3 * 2^in_bits fits in 64.
#pragma once

#include <string.h>

#include "vdpf.cuh"

namespace pyfss {

constexpr int kCuckooHashes = 3;  // the hash functions: each input has three pairs

// The AES-128 key schedule (FIPS-197) of key into rk (44 words, each little-endian
// from its four bytes as in PrgParams), with the S-box sbox.
PYFSS_HD void aes_key_schedule(const uint8_t* sbox, Block key, uint32_t* rk) {
  PYFSS_UNROLL for (int i = 0; i < 4; i++) rk[i] = key.w[i];
  uint32_t rcon = 1;
  for (int i = 4; i < 44; i++) {
    uint32_t w = rk[i - 1];
    if (i % 4 == 0) {
      w = w >> 8 | w << 24;  // RotWord on little-endian words
      w = (uint32_t)sbox[w & 0xff] | (uint32_t)sbox[(w >> 8) & 0xff] << 8 | (uint32_t)sbox[(w >> 16) & 0xff] << 16 |
          (uint32_t)sbox[w >> 24] << 24;
      w ^= rcon;
      rcon = ((rcon << 1) ^ ((rcon >> 7) * 0x1b)) & 0xff;
    }
    rk[i] = rk[i - 4] ^ w;
  }
}

// Words per key of the schedule in scratch: the PRP's round keys (4, 44), then the
// bucket size ceil(3 * 2^n / m_rt) as a 64-bit integer and its reciprocal as a double
// (2 words each). Computed once per key, they spare every input thread its 64-bit
// divisions, calls on the GPU around which ptxas spilled registers.
constexpr int kPrpKeyWords = 4 * 44 + 4;

PYFSS_HD uint64_t load_u64(const uint32_t* p) { return p[0] | (uint64_t)p[1] << 32; }

PYFSS_HD void store_u64(uint32_t* p, uint64_t v) {
  p[0] = (uint32_t)v;
  p[1] = (uint32_t)(v >> 32);
}

// Thread t of the schedule launch over keys cws (k, rows, 8): round t % 4 of key t / 4,
// whose AES key is sigma with the round number XORed into its first word; round 0's
// thread also writes the bucket size (0 for m_rt = 0: the eval kernels refuse the
// header before they read it).
PYFSS_HD void prp_key_schedule(uint64_t t, uint32_t* prp_keys, const uint8_t* sbox, const uint32_t* cws, int rows,
                               int n) {
  const uint32_t* header = cws + (t / 4) * rows * kCwWords;
  uint32_t* out = prp_keys + (t / 4) * kPrpKeyWords;
  uint32_t round = (uint32_t)(t % 4);
  Block sigma = load_block(header);
  sigma.w[0] ^= round;
  aes_key_schedule(sbox, sigma, out + 44 * round);
  if (round == 0) {
    uint64_t m_rt = header[4], d = 3ull << n, size = m_rt ? (d + m_rt - 1) / m_rt : 0;
    double inv = size ? 1.0 / (double)size : 0.0;
    uint64_t bits;
    memcpy(&bits, &inv, sizeof bits);
    store_u64(out + 4 * 44, size);
    store_u64(out + 4 * 44 + 2, bits);
  }
}

// y / size and y % size for a quotient below 2^48, from inv ~ 1 / size (a double):
// the double product is within 1/8 of the quotient, so its integer part is off by at
// most one, which the remainder corrects. The GPU has no 64-bit division: it calls a
// routine, around which ptxas spilled registers.
PYFSS_HD uint64_t divide(uint64_t y, uint64_t size, double inv, uint64_t* rem) {
  uint64_t q = (uint64_t)((double)y * inv), p = q * size;
  if (p > y) {
    q--;
    p -= size;
  } else if (y - p >= size) {
    q++;
    p += size;
  }
  *rem = y - p;
  return q;
}

// PRP(v) for v < d (docs/spec.md section 16.1): four Feistel rounds on halves of h
// bits (h <= 32), round r's function the low h bits of AES under round key r, repeated
// until the value falls below d (cycle walking, which ends: v's cycle holds v).
PYFSS_HD uint64_t prp_permute(const uint32_t (*te)[256], const uint32_t* keys, uint64_t v, int h, uint64_t d) {
  uint64_t mask = (1ull << h) - 1;
  do {
    uint64_t l = v >> h, r = v & mask;
    for (int round = 0; round < 4; round++) {
      Block f = aes_encrypt(te, keys + 44 * round, Block{{(uint32_t)r, (uint32_t)(r >> 32), 0, 0}});
      uint64_t next = l ^ ((f.w[0] | (uint64_t)f.w[1] << 32) & mask);
      l = r;
      r = next;
    }
    v = l << h | r;
  } while (v >= d);
  return v;
}

// The shape of an MPF batch: in_bits, the buckets' width, the buckets of a key and the
// least m_rt that a header may give (fewer buckets could not hold the domain).
struct MpfShape {
  int n, bucket_bits, buckets, least;
};

// The output group of a bucket scheme.
template <class S>
struct BucketGroup;
template <class G>
struct BucketGroup<Dpf<G>> {
  typedef G type;
};
template <class G, class H>
struct BucketGroup<Vdpf<G, H>> {
  typedef G type;
};

// Party's share of one bucket key S (Dpf or Vdpf) at idx; a Vdpf also writes its
// proof piece (4 blocks) to piece.
template <class G, class P>
PYFSS_HD Block bucket_share(const Dpf<G>*, const P& prg, const HashKeys*, uint32_t party, Block s0,
                            const uint32_t* cws, uint64_t stride, const Input& idx, int n, uint32_t*) {
  return Dpf<G>::eval(prg, party, s0, cws, stride, idx, n);
}

template <class G, class H, class P>
PYFSS_HD Block bucket_share(const Vdpf<G, H>*, const P& prg, const HashKeys* keys, uint32_t party, Block s0,
                            const uint32_t* cws, uint64_t stride, const Input& idx, int n, uint32_t* piece) {
  Block y;
  Proof p;
  Vdpf<G, H>::eval(prg, *keys, party, s0, cws, stride, idx, n, &y, &p);
  PYFSS_UNROLL for (int i = 0; i < 4; i++) store_block(piece + 4 * i, p.b[i]);
  return y;
}

// Input t of an Eval batch of K keys x M inputs, of key t / M: s0s (K, buckets, 4),
// level-major cws (rows, K, 8), prp_keys (K, kPrpKeyWords) from prp_key_schedule, xs
// (K, M, x_words), dst (K, M, 4). With Vdpf buckets also bkts (K, M, 3), each pair's
// bucket, and pieces (K, M, 3, 4, 4), each pair's proof piece (null for Dpf). Only the low in_bits bits
// of an input are read: the caller checks the range. A header whose m_rt is out of
// [least, buckets] gives zero shares and buckets as every pair's bucket, which the
// host's fold refuses.
template <class S, class P>
PYFSS_HD void mpf_eval_input(const P& prg, const HashKeys* keys, const uint32_t (*te)[256], const MpfShape& sh,
                             uint64_t t, uint64_t key, uint32_t* dst, uint32_t* bkts, uint32_t* pieces,
                             uint32_t party, const uint32_t* s0s, const uint32_t* cws_lm, const uint32_t* prp_keys,
                             uint64_t k, const uint32_t* xs, int x_words) {
  typedef typename BucketGroup<S>::type G;
  uint64_t stride = k * kCwWords;
  const uint32_t* header = cws_lm + key * kCwWords;
  uint32_t m_rt = header[4];
  typename G::T sum = G::zero();
  if ((header[5] | header[6] | header[7]) != 0 || m_rt < (uint32_t)sh.least || m_rt > (uint32_t)sh.buckets) {
    store_block(dst + 4 * t, G::into(sum));
    PYFSS_UNROLL for (int j = 0; j < kCuckooHashes; j++) {
      if (bkts) bkts[kCuckooHashes * t + j] = sh.buckets;
    }
    return;
  }
  const uint32_t* schedule = prp_keys + key * kPrpKeyWords;
  uint64_t d = 3ull << sh.n, size = load_u64(schedule + 4 * 44), inv_bits = load_u64(schedule + 4 * 44 + 2);
  double inv;
  memcpy(&inv, &inv_bits, sizeof inv);
  int h = (sh.n + 3) / 2;  // ceil(ceil(log2 d) / 2), as log2 of d - 1 rounds up to n + 2
  Input in = load_input(xs + t * x_words, x_words);
  uint64_t x = (in.w[0] | (uint64_t)in.w[1] << 32) & ((1ull << sh.n) - 1);
  int rows = S::rows(sh.bucket_bits);
  PYFSS_NO_UNROLL for (int j = 0; j < kCuckooHashes; j++) {
    uint64_t y = prp_permute(te, schedule, x + ((uint64_t)j << sh.n), h, d), i;
    uint64_t b = divide(y, size, inv, &i);
    Input idx = {{(uint32_t)i, (uint32_t)(i >> 32), 0, 0}};
    uint64_t pair = kCuckooHashes * t + j;
    Block share = bucket_share((const S*)nullptr, prg, keys, party, load_block(s0s + 4 * (key * sh.buckets + b)),
                               cws_lm + (1 + b * rows) * stride + key * kCwWords, stride, idx, sh.bucket_bits,
                               pieces ? pieces + 16 * pair : nullptr);
    sum = G::add(sum, G::from(share));
    if (bkts) bkts[pair] = (uint32_t)b;
  }
  store_block(dst + 4 * t, G::into(sum));
}

}  // namespace pyfss
