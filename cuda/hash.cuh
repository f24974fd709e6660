// The keyed hashes of VDPF (docs/spec.md section 15) for one thread: SHA-256 (FIPS
// 180-4) with the key as a one-block prefix, and BLAKE3's keyed hash of a message that
// fits one compression (32 or 64 bytes: one chunk of one block).
//
// Messages and digests are little-endian words, the blocks' memory images. A hash type
// H has sum(key, msg, words, out): out (8 words) = the hash under key (8 words; SHA-256
// reads the first 4) of msg (words = 8 or 16).
#pragma once

#include "block.cuh"

namespace pyfss {

// The public keys of a VDPF launch's two hash instances, XH and H', as the host packs
// them: two blocks each (SHA-256 uses the first).
struct HashKeys {
  uint32_t xor_key[8];
  uint32_t key[8];
};

PYFSS_HD uint32_t rotr(uint32_t v, int n) { return (v >> n) | (v << (32 - n)); }

PYFSS_HD uint32_t bswap32(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
}

// Both hashes start from SHA-256's initial value (BLAKE3 borrows it as its IV).
PYFSS_HD uint32_t sha256_iv(int i) {
  const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                          0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  return iv[i];
}

struct Sha256 {
  // One compression of the 16 big-endian words w into state h. The loops unroll
  // fully, so the round constants and the schedule's indices are compile-time.
  static PYFSS_HD void compress(uint32_t* h, uint32_t* w) {
    const uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    PYFSS_UNROLL for (int i = 0; i < 64; i++) {
      if (i >= 16) {  // the schedule, kept as a ring of 16 words
        uint32_t w15 = w[(i - 15) & 15], w2 = w[(i - 2) & 15];
        uint32_t s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >> 3);
        uint32_t s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >> 10);
        w[i & 15] += s0 + w[(i - 7) & 15] + s1;
      }
      uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i & 15];
      uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }

  // SHA-256(key[0..3] || msg): 48 bytes fit one padded block, 80 bytes take two.
  static PYFSS_HD void sum(const uint32_t* key, const uint32_t* msg, int words, uint32_t* out) {
    uint32_t h[8], w[16];
    PYFSS_UNROLL for (int i = 0; i < 8; i++) h[i] = sha256_iv(i);
    int total = 4 + words;  // message words, key included
    // Word j of the padded message: the data byte-swapped to big-endian, the 0x80 pad
    // byte, zeros, and the length in bits as the last word.
    auto word = [&](int j, int last) -> uint32_t {
      if (j < 4) return bswap32(key[j]);
      if (j < total) return bswap32(msg[j - 4]);
      if (j == total) return 0x80000000u;
      return j == last ? (uint32_t)total * 32 : 0;
    };
    int last = total < 14 ? 15 : 31;
    PYFSS_UNROLL for (int j = 0; j < 16; j++) w[j] = word(j, last);
    compress(h, w);
    if (last == 31) {
      PYFSS_UNROLL for (int j = 0; j < 16; j++) w[j] = word(16 + j, last);
      compress(h, w);
    }
    PYFSS_UNROLL for (int i = 0; i < 8; i++) out[i] = bswap32(h[i]);
  }
};

struct Blake3 {
  static PYFSS_HD void g(uint32_t* v, int a, int b, int c, int d, uint32_t mx, uint32_t my) {
    v[a] += v[b] + mx;
    v[d] = rotr(v[d] ^ v[a], 16);
    v[c] += v[d];
    v[b] = rotr(v[b] ^ v[c], 12);
    v[a] += v[b] + my;
    v[d] = rotr(v[d] ^ v[a], 8);
    v[c] += v[d];
    v[b] = rotr(v[b] ^ v[c], 7);
  }

  // The flags of a message that is one whole chunk of one block, the root, keyed.
  static constexpr uint32_t kChunkStart = 1, kChunkEnd = 2, kRoot = 8, kKeyedHash = 16;

  // Keyed BLAKE3 of msg (words <= 16): one compression of the zero-padded block under
  // chaining value key, counter 0, and the first 8 words of its output.
  static PYFSS_HD void sum(const uint32_t* key, const uint32_t* msg, int words, uint32_t* out) {
    uint32_t m[16], v[16];
    PYFSS_UNROLL for (int i = 0; i < 16; i++) m[i] = i < words ? msg[i] : 0;
    PYFSS_UNROLL for (int i = 0; i < 8; i++) v[i] = key[i];
    PYFSS_UNROLL for (int i = 0; i < 4; i++) v[8 + i] = sha256_iv(i);
    v[12] = 0;
    v[13] = 0;
    v[14] = (uint32_t)words * 4;
    v[15] = kChunkStart | kChunkEnd | kRoot | kKeyedHash;
    const int perm[16] = {2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8};
    PYFSS_UNROLL for (int r = 0; r < 7; r++) {
      g(v, 0, 4, 8, 12, m[0], m[1]);
      g(v, 1, 5, 9, 13, m[2], m[3]);
      g(v, 2, 6, 10, 14, m[4], m[5]);
      g(v, 3, 7, 11, 15, m[6], m[7]);
      g(v, 0, 5, 10, 15, m[8], m[9]);
      g(v, 1, 6, 11, 12, m[10], m[11]);
      g(v, 2, 7, 8, 13, m[12], m[13]);
      g(v, 3, 4, 9, 14, m[14], m[15]);
      uint32_t t[16];
      PYFSS_UNROLL for (int i = 0; i < 16; i++) t[i] = m[perm[i]];
      PYFSS_UNROLL for (int i = 0; i < 16; i++) m[i] = t[i];
    }
    PYFSS_UNROLL for (int i = 0; i < 8; i++) out[i] = v[i] ^ v[i + 8];
  }
};

// The proof pieces' four blocks.
struct Proof {
  Block b[4];
};

PYFSS_HD Proof proof_xor(const Proof& x, const Proof& y) {
  Proof p;
  PYFSS_UNROLL for (int i = 0; i < 4; i++) p.b[i] = bxor(x.b[i], y.b[i]);
  return p;
}

// XH(a, s) = sum(clamp(a) || s) || sum(with_lsb(a, 1) || s) under the XH key.
template <class H>
PYFSS_HD Proof xor_hash(const HashKeys& keys, Block a, Block s) {
  uint32_t msg[8], out[16];
  PYFSS_UNROLL for (int half = 0; half < 2; half++) {
    Block ab = with_lsb(a, half);
    PYFSS_UNROLL for (int i = 0; i < 4; i++) {
      msg[i] = ab.w[i];
      msg[4 + i] = s.w[i];
    }
    H::sum(keys.xor_key, msg, 8, out + 8 * half);
  }
  Proof p;
  PYFSS_UNROLL for (int i = 0; i < 4; i++) p.b[i] = Block{{out[4 * i], out[4 * i + 1], out[4 * i + 2], out[4 * i + 3]}};
  return p;
}

}  // namespace pyfss
