// The output groups of docs/spec.md section 2. Each is a type with an element type T
// and from/into/add/neg; the schemes are templates on it.
#pragma once

#include "block.cuh"

namespace pyfss {

struct GroupBytes {
  typedef Block T;
  static PYFSS_HD T zero() { return zero_block(); }
  static PYFSS_HD T from(Block b) { return b; }
  static PYFSS_HD Block into(T v) { return v; }
  static PYFSS_HD T add(T a, T b) { return bxor(a, b); }
  static PYFSS_HD T neg(T a) { return a; }
};

struct GroupU32 {
  typedef uint32_t T;
  static PYFSS_HD T zero() { return 0; }
  static PYFSS_HD T from(Block b) { return b.w[0]; }
  static PYFSS_HD Block into(T v) { return Block{{v, 0, 0, 0}}; }
  static PYFSS_HD T add(T a, T b) { return a + b; }
  static PYFSS_HD T neg(T a) { return 0u - a; }
};

struct GroupU64 {
  typedef uint64_t T;
  static PYFSS_HD T zero() { return 0; }
  static PYFSS_HD T from(Block b) { return b.w[0] | (uint64_t)b.w[1] << 32; }
  static PYFSS_HD Block into(T v) { return Block{{(uint32_t)v, (uint32_t)(v >> 32), 0, 0}}; }
  static PYFSS_HD T add(T a, T b) { return a + b; }
  static PYFSS_HD T neg(T a) { return 0 - a; }
};

// Integers mod 2^127 as two 64-bit halves; hi keeps 63 bits. In a block the top 31
// bits sit one place up in word w, leaving the control bit free.
struct GroupU127 {
  struct T {
    uint64_t lo, hi;
  };
  static constexpr uint64_t kHiMask = ~0ull >> 1;
  static PYFSS_HD T zero() { return T{0, 0}; }
  static PYFSS_HD T from(Block b) {
    return T{b.w[0] | (uint64_t)b.w[1] << 32, b.w[2] | (uint64_t)(b.w[3] >> 1) << 32};
  }
  static PYFSS_HD Block into(T v) {
    return Block{{(uint32_t)v.lo, (uint32_t)(v.lo >> 32), (uint32_t)v.hi,
                  (uint32_t)(v.hi >> 32) << 1}};
  }
  static PYFSS_HD T add(T a, T b) {
    uint64_t lo = a.lo + b.lo;
    uint64_t carry = lo < a.lo;
    return T{lo, (a.hi + b.hi + carry) & kHiMask};
  }
  static PYFSS_HD T neg(T a) {
    uint64_t lo = 0 - a.lo;
    uint64_t borrow = a.lo != 0;
    return T{lo, (0 - a.hi - borrow) & kHiMask};
  }
};

// a - b, as the schemes write it.
template <class G>
PYFSS_HD typename G::T group_sub(typename G::T a, typename G::T b) {
  return G::add(a, G::neg(b));
}

}  // namespace pyfss
