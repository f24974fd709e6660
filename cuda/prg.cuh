// The PRGs of docs/spec.md section 3: myl7/fss's ChaCha variant and AES-128 MMO.
//
// A PRG type P has expand<Mul>(seed, out) writing all Mul outputs, and
// expand_half<Mul>(seed, sel, out) writing outputs sel*Mul/2 ... (sel+1)*Mul/2 - 1,
// which is all that a point evaluation follows, and hash(b), Half-Tree DPF's
// H(b) = prg(hash_key ^ b)[0] with mul = 1 (docs/spec.md section 11). Seeds are used as
// given: callers clamp.
#pragma once

#include "block.cuh"

namespace pyfss {

// The public PRG parameters of a launch, one layout for both PRGs so that every kernel
// takes the same argument. The host fills it once per launch: the AES round keys are
// expanded there, not per thread.
struct PrgParams {
  uint32_t nonce[2];         // chacha
  uint32_t aes_rk[4][44];    // aes128_mmo: round keys, little-endian words of the key schedule
  uint8_t aes_sbox[256];     // aes128_mmo: the S-box, from which each block builds its tables
  uint32_t hash_key[4];      // half_tree_dpf: the key of its hash
};

PYFSS_HD Block hash_key_of(const PrgParams& p) {
  return Block{{p.hash_key[0], p.hash_key[1], p.hash_key[2], p.hash_key[3]}};
}

class Chacha {
 public:
  PYFSS_HD explicit Chacha(const PrgParams& p) : n0_(p.nonce[0]), n1_(p.nonce[1]), hk_(hash_key_of(p)) {}

  template <int Mul>
  PYFSS_HD void expand(Block seed, Block* out) const {
    uint32_t x[16];
    permute<Mul>(seed, x);
    PYFSS_UNROLL for (int j = 0; j < Mul; j++) out[j] = row<Mul>(x, seed, j);
  }

  template <int Mul>
  PYFSS_HD void expand_half(Block seed, uint32_t sel, Block* out) const {
    uint32_t x[16];
    permute<Mul>(seed, x);
    PYFSS_UNROLL for (int j = 0; j < Mul / 2; j++) {
      Block lo = row<Mul>(x, seed, j), hi = row<Mul>(x, seed, Mul / 2 + j);
      out[j] = sel ? hi : lo;
    }
  }

  // mul = 1 outputs row 1, which mul = 2 outputs second, with the same constants.
  PYFSS_HD Block hash(Block b) const {
    Block out;
    expand_half<2>(bxor(hk_, b), 1, &out);
    return out;
  }

 private:
  uint32_t n0_, n1_;
  Block hk_;

  // Row 0 of the state: "expand 16-byte k" for Mul 2, "expand 32-byte k" for Mul 4.
  static PYFSS_HD uint32_t constant(int mul, int i) {
    const uint32_t c16[4] = {0x61707865, 0x3120646e, 0x79622d36, 0x6b206574};
    const uint32_t c32[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    return mul == 4 ? c32[i] : c16[i];
  }

  PYFSS_HD Block input_row(int mul, Block seed, int r) const {
    if (r == 0) return Block{{constant(mul, 0), constant(mul, 1), constant(mul, 2), constant(mul, 3)}};
    if (r == 3) return Block{{0, 0, n0_, n1_}};
    return seed;
  }

  // Output row r: the permuted row XOR the input row (no feed-forward addition).
  template <int Mul>
  PYFSS_HD Block row(const uint32_t* x, Block seed, int r) const {
    Block in = input_row(Mul, seed, r);
    return Block{{x[4 * r] ^ in.w[0], x[4 * r + 1] ^ in.w[1], x[4 * r + 2] ^ in.w[2], x[4 * r + 3] ^ in.w[3]}};
  }

  static PYFSS_HD uint32_t rotl(uint32_t v, int n) { return (v << n) | (v >> (32 - n)); }

  static PYFSS_HD void quarter(uint32_t* x, int a, int b, int c, int d) {
    x[a] += x[b]; x[d] = rotl(x[d] ^ x[a], 16);
    x[c] += x[d]; x[b] = rotl(x[b] ^ x[c], 12);
    x[a] += x[b]; x[d] = rotl(x[d] ^ x[a], 8);
    x[c] += x[d]; x[b] = rotl(x[b] ^ x[c], 7);
  }

  template <int Mul>
  PYFSS_HD void permute(Block seed, uint32_t* x) const {
    PYFSS_UNROLL for (int r = 0; r < 4; r++) {
      Block in = input_row(Mul, seed, r);
      PYFSS_UNROLL for (int i = 0; i < 4; i++) x[4 * r + i] = in.w[i];
    }
    for (int round = 0; round < 10; round++) {
      quarter(x, 0, 4, 8, 12);
      quarter(x, 1, 5, 9, 13);
      quarter(x, 2, 6, 10, 14);
      quarter(x, 3, 7, 11, 15);
      quarter(x, 0, 5, 10, 15);
      quarter(x, 1, 6, 11, 12);
      quarter(x, 2, 7, 8, 13);
      quarter(x, 3, 4, 9, 14);
    }
  }
};

// The lookup tables of the T-table AES and the round keys of one launch. On the GPU
// each thread block keeps one copy in shared memory.
struct AesTables {
  uint32_t te[4][256];
  uint32_t rk[4][44];
  uint32_t hash_key[4];
};

// Fills the share of the tables that thread `tid` of `nthreads` owns; on the GPU a
// barrier must follow before any thread encrypts.
PYFSS_HD void aes_tables_init(AesTables& t, const PrgParams& p, int tid, int nthreads) {
  for (int i = tid; i < 256; i += nthreads) {
    uint32_t s = p.aes_sbox[i];
    uint32_t s2 = ((s << 1) ^ ((s >> 7) * 0x1b)) & 0xff;
    // Column (2s, s, s, 3s) of MixColumns as a little-endian word; te[k] is it
    // rotated by k bytes.
    uint32_t te0 = s2 | s << 8 | s << 16 | (s2 ^ s) << 24;
    t.te[0][i] = te0;
    t.te[1][i] = te0 << 8 | te0 >> 24;
    t.te[2][i] = te0 << 16 | te0 >> 16;
    t.te[3][i] = te0 << 24 | te0 >> 8;
  }
  for (int i = tid; i < 4 * 44; i += nthreads) t.rk[i / 44][i % 44] = p.aes_rk[i / 44][i % 44];
  for (int i = tid; i < 4; i += nthreads) t.hash_key[i] = p.hash_key[i];
}

// AES-128 of one block under the round keys rk (44 words, as PrgParams holds them) with
// the T-tables te, the block's bytes in memory order: column c of the state is word c.
// The PRG encrypts under the launch's keys; the multi-point schemes' PRP (mpf.cuh)
// under keys of their own.
PYFSS_HD uint32_t aes_last_round(const uint32_t (*te)[256], uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  return (te[2][a & 0xff] & 0xff) | (te[3][(b >> 8) & 0xff] & 0xff00) | (te[0][(c >> 16) & 0xff] & 0xff0000) |
         (te[1][d >> 24] & 0xff000000);
}

PYFSS_HD Block aes_encrypt(const uint32_t (*te)[256], const uint32_t* rk, Block in) {
  uint32_t s0 = in.w[0] ^ rk[0], s1 = in.w[1] ^ rk[1], s2 = in.w[2] ^ rk[2], s3 = in.w[3] ^ rk[3];
  // The rounds stay rolled: unrolled, the kernels that run eight AES per level (DCF
  // Gen) took cicc 25 s each and 255 registers; rolled, 1.6 s and 80.
  PYFSS_NO_UNROLL for (int r = 1; r < 10; r++) {
    uint32_t u0 = te[0][s0 & 0xff] ^ te[1][(s1 >> 8) & 0xff] ^ te[2][(s2 >> 16) & 0xff] ^ te[3][s3 >> 24] ^ rk[4 * r];
    uint32_t u1 = te[0][s1 & 0xff] ^ te[1][(s2 >> 8) & 0xff] ^ te[2][(s3 >> 16) & 0xff] ^ te[3][s0 >> 24] ^ rk[4 * r + 1];
    uint32_t u2 = te[0][s2 & 0xff] ^ te[1][(s3 >> 8) & 0xff] ^ te[2][(s0 >> 16) & 0xff] ^ te[3][s1 >> 24] ^ rk[4 * r + 2];
    uint32_t u3 = te[0][s3 & 0xff] ^ te[1][(s0 >> 8) & 0xff] ^ te[2][(s1 >> 16) & 0xff] ^ te[3][s2 >> 24] ^ rk[4 * r + 3];
    s0 = u0; s1 = u1; s2 = u2; s3 = u3;
  }
  // The last round has no MixColumns: byte k of te[(k + 2) % 4] is the bare S-box
  // output, so the tables serve for it too.
  return Block{{aes_last_round(te, s0, s1, s2, s3) ^ rk[40], aes_last_round(te, s1, s2, s3, s0) ^ rk[41],
                aes_last_round(te, s2, s3, s0, s1) ^ rk[42], aes_last_round(te, s3, s0, s1, s2) ^ rk[43]}};
}

class Aes {
 public:
  PYFSS_HD explicit Aes(const AesTables* t) : t_(t) {}

  template <int Mul>
  PYFSS_HD void expand(Block seed, Block* out) const {
    PYFSS_UNROLL for (int j = 0; j < Mul; j++) out[j] = bxor(encrypt(j, seed), seed);
  }

  template <int Mul>
  PYFSS_HD void expand_half(Block seed, uint32_t sel, Block* out) const {
    PYFSS_UNROLL for (int j = 0; j < Mul / 2; j++) out[j] = bxor(encrypt(sel * (Mul / 2) + j, seed), seed);
  }

  // mul = 1 is output 0: AES key 0.
  PYFSS_HD Block hash(Block b) const {
    const uint32_t* hk = t_->hash_key;
    Block in = bxor(Block{{hk[0], hk[1], hk[2], hk[3]}}, b);
    return bxor(encrypt(0, in), in);
  }

 private:
  const AesTables* t_;

  PYFSS_HD Block encrypt(int key, Block in) const { return aes_encrypt(t_->te, t_->rk[key], in); }
};

}  // namespace pyfss
