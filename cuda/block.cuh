// Blocks, inputs and memory access shared by the kernels and the host check.
//
// Every function here is PYFSS_HD so that the same arithmetic compiles for the GPU
// (under nvcc) and for the host (any C++17 compiler), where the host check tests it
// against the known-answer vectors.
#pragma once

#include <stdint.h>

#ifdef __CUDACC__
#define PYFSS_HD __host__ __device__ __forceinline__
// Loops over register arrays must be unrolled, or their indices spill them to memory.
#define PYFSS_UNROLL _Pragma("unroll")
#define PYFSS_NO_UNROLL _Pragma("unroll 1")
#else
#define PYFSS_HD inline
#define PYFSS_UNROLL
#define PYFSS_NO_UNROLL
#endif

namespace pyfss {

// A 16-byte block as four little-endian words (x, y, z, w); the control bit is bit 0
// of w (docs/spec.md section 1).
struct Block {
  uint32_t w[4];
};

PYFSS_HD Block zero_block() { return Block{{0, 0, 0, 0}}; }

PYFSS_HD Block bxor(Block a, Block b) {
  return Block{{a.w[0] ^ b.w[0], a.w[1] ^ b.w[1], a.w[2] ^ b.w[2], a.w[3] ^ b.w[3]}};
}

PYFSS_HD uint32_t lsb(Block b) { return b.w[3] & 1; }

PYFSS_HD Block clamp(Block b) {
  b.w[3] &= ~1u;
  return b;
}

PYFSS_HD Block with_lsb(Block b, uint32_t t) {
  b.w[3] = (b.w[3] & ~1u) | (t & 1);
  return b;
}

// b if t is 1, the zero block if t is 0, without a branch: t is a secret-dependent
// control bit on every path, so warps should not diverge on it.
PYFSS_HD Block mask(Block b, uint32_t t) {
  uint32_t m = 0u - (t & 1);
  return Block{{b.w[0] & m, b.w[1] & m, b.w[2] & m, b.w[3] & m}};
}

// Blocks in caller memory (seeds, correction words, outputs) are 16-byte aligned, which
// the launcher checks, so the GPU moves each with one vector access.
PYFSS_HD Block load_block(const uint32_t* p) {
#ifdef __CUDA_ARCH__
  uint4 v = *reinterpret_cast<const uint4*>(p);
  return Block{{v.x, v.y, v.z, v.w}};
#else
  return Block{{p[0], p[1], p[2], p[3]}};
#endif
}

PYFSS_HD void store_block(uint32_t* p, Block b) {
#ifdef __CUDA_ARCH__
  *reinterpret_cast<uint4*>(p) = make_uint4(b.w[0], b.w[1], b.w[2], b.w[3]);
#else
  p[0] = b.w[0];
  p[1] = b.w[1];
  p[2] = b.w[2];
  p[3] = b.w[3];
#endif
}

// An input value (alpha or x) of up to 128 bits, least significant word first.
struct Input {
  uint32_t w[4];
};

// Reads one value stored as `words` (1, 2 or 4) little-endian words, zero-extended.
PYFSS_HD Input load_input(const uint32_t* p, int words) {
  Input x = {{p[0], 0, 0, 0}};
  if (words >= 2) x.w[1] = p[1];
  if (words == 4) {
    x.w[2] = p[2];
    x.w[3] = p[3];
  }
  return x;
}

// bit(x, i) of docs/spec.md section 4: the i-th of n bits counted from the most
// significant one.
PYFSS_HD uint32_t input_bit(const Input& x, int n, int i) {
  int pos = n - 1 - i;
  // Selects, not x.w[pos >> 5]: a run-time index would move x to local memory.
  uint32_t word = pos < 64 ? (pos < 32 ? x.w[0] : x.w[1]) : (pos < 96 ? x.w[2] : x.w[3]);
  return (word >> (pos & 31)) & 1;
}

// Correction words are rows of 8 words: a low and a high block.
constexpr int kCwWords = 8;

// Writes one correction word as two full 16-byte stores.
PYFSS_HD void store_cw(uint32_t* row, Block lo, Block hi) {
  store_block(row, lo);
  store_block(row + 4, hi);
}

}  // namespace pyfss
