// The kernels the Go launcher loads by name: <scheme>_<op>_<prg>_<group> for scheme
// dpf/dcf/half_tree_dpf, op gen/eval/eval_all, prg chacha/aes128_mmo, group
// bytes/uint32/uint64/uint127; Grotto DCF's grotto_tree_<prg>, grotto_leaf_bits_<prg>,
// parity_gather, parity_apply, grotto_eval and grotto_eval_interval (its Gen is
// dpf_gen_<prg>_bytes with null betas); VDPF's vdpf_gen_<prg>_<group>_<hash> and
// vdpf_eval_proof_<prg>_<group>_<hash>, hash sha256/blake3 (its shares alone come from
// the dpf kernels: a VDPF key's first n + 1 rows are a DPF key); the multi-point
// schemes' batched Eval dmpf_eval_<prg>_<group> and vdmpf_eval_<prg>_<group>_<hash>,
// after mpf_prp_keys has expanded their PRP keys; plus cw_relayout and the
// prg_bench_<prg>_mul<2|4> bound.
//
// Kernels are templates on scheme, group, PRG and VDPF's hash only; in_bits, the batch
// sizes and the DCF predicate are arguments, which keeps the number of instantiations
// (and compile time) small. Every kernel runs a grid-stride loop with blocks of kThreads threads, so
// the launcher may cap the grid.
//
// Parameters come in the order PrgParams (VDPF: then HashKeys), pointers, 32-bit
// integers, 64-bit counts, so that each list ends on an 8-byte boundary: the launcher
// packs them into one buffer (cuLaunchKernel's `extra`) whose size is then the same
// however it is rounded.
#include "grotto.cuh"
#include "mpf.cuh"

namespace pyfss {

// The PRG of this thread block. AES builds its tables in shared memory once per block,
// so every thread of the block must call this before any returns.
template <class P>
__device__ P block_prg(const PrgParams& pp);

template <>
__device__ __forceinline__ Chacha block_prg<Chacha>(const PrgParams& pp) {
  return Chacha(pp);
}

template <>
__device__ __forceinline__ Aes block_prg<Aes>(const PrgParams& pp) {
  __shared__ AesTables tables;
  aes_tables_init(tables, pp, threadIdx.x, blockDim.x);
  __syncthreads();
  return Aes(&tables);
}

// The PRG of a thread block whose AES tables (which the multi-point schemes' PRP needs
// whatever the PRG) are already in shared memory.
template <class P>
__device__ P prg_with_tables(const PrgParams& pp, const AesTables* tables);

template <>
__device__ __forceinline__ Chacha prg_with_tables<Chacha>(const PrgParams& pp, const AesTables*) {
  return Chacha(pp);
}

template <>
__device__ __forceinline__ Aes prg_with_tables<Aes>(const PrgParams&, const AesTables* tables) {
  return Aes(tables);
}

#define PYFSS_GRID_LOOP(t, total)                                                         \
  for (uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; t < (uint64_t)(total); \
       t += (uint64_t)gridDim.x * blockDim.x)

template <class S, class P>
__device__ __forceinline__ void gen_kernel(const PrgParams& pp, uint32_t* cws, const uint32_t* seeds,
                                           const uint32_t* alphas, int alpha_words, const uint32_t* betas, int n,
                                           int pred, uint64_t k) {
  P prg = block_prg<P>(pp);
  PYFSS_GRID_LOOP(t, k) gen_key<S>(prg, t, cws, seeds, alphas, alpha_words, betas, n, pred);
}

template <class S, class P>
__device__ __forceinline__ void eval_kernel(const PrgParams& pp, uint32_t* dst, uint32_t party,
                                            const uint32_t* s0s, const uint32_t* cws_lm, uint64_t k,
                                            const uint32_t* xs, int x_words, uint64_t m, int n) {
  P prg = block_prg<P>(pp);
  PYFSS_GRID_LOOP(t, k * m) eval_point<S>(prg, t, dst, party, s0s, cws_lm, k, xs, x_words, m, n);
}

// One block per slice (see eval_all_step); the barrier is reached by every thread of
// the block the same number of times, since the loops depend on blockIdx only.
template <class S, class P>
__device__ __forceinline__ void eval_all_kernel(const PrgParams& pp, uint32_t* dst, uint32_t party,
                                                const uint32_t* s0s, const uint32_t* cws_lm, uint64_t k, int n,
                                                int first, int levels) {
  P prg = block_prg<P>(pp);
  for (uint64_t g = blockIdx.x; g < eval_all_slices(k, first, levels); g += gridDim.x) {
    for (int j = 0; j < levels; j++) {
      eval_all_step<S>(prg, g, threadIdx.x, j, first, levels, dst, party, s0s, cws_lm, k, n);
      if (levels > 1) __syncthreads();
    }
  }
}

template <class P>
__device__ __forceinline__ void grotto_leaf_bits_kernel(const PrgParams& pp, uint64_t* pre, uint32_t party,
                                                        const uint32_t* s0s, const uint32_t* cws_lm, uint64_t k,
                                                        int n, uint64_t words) {
  P prg = block_prg<P>(pp);
  PYFSS_GRID_LOOP(t, k << grotto_tree_levels(n)) grotto_leaf_bits(prg, t, pre, words, party, s0s, cws_lm, k, n);
}

template <class S, class P>
__device__ __forceinline__ void vdpf_gen_kernel(const PrgParams& pp, const HashKeys& hk, uint32_t* cws,
                                                const uint32_t* seeds, const uint32_t* alphas, int alpha_words,
                                                const uint32_t* betas, int n, uint64_t k) {
  P prg = block_prg<P>(pp);
  PYFSS_GRID_LOOP(t, k) vdpf_gen_key<S>(prg, hk, t, cws, seeds, alphas, alpha_words, betas, n);
}

template <class S, class P>
__device__ __forceinline__ void vdpf_eval_kernel(const PrgParams& pp, const HashKeys& hk, uint32_t* dst,
                                                 uint32_t* pieces, uint32_t party, const uint32_t* s0s,
                                                 const uint32_t* cws_lm, uint64_t k, const uint32_t* xs, int x_words,
                                                 uint64_t m, int n) {
  P prg = block_prg<P>(pp);
  PYFSS_GRID_LOOP(t, k * m) vdpf_eval_point<S>(prg, hk, t, dst, pieces, party, s0s, cws_lm, k, xs, x_words, m, n);
}

// DMPF (hk null) or VDMPF Eval of k keys x m inputs (see mpf_eval_input); inv_m is
// 1 / m, computed by the launcher: a division here would be a call (see divide).
template <class S, class P>
__device__ __forceinline__ void mpf_eval_kernel(const PrgParams& pp, const HashKeys* hk, uint32_t* dst,
                                                uint32_t* bkts, uint32_t* pieces, const uint32_t* s0s,
                                                const uint32_t* cws_lm, const uint32_t* prp_keys,
                                                const uint32_t* xs, uint32_t party, int x_words, MpfShape sh,
                                                uint64_t k, uint64_t m, double inv_m) {
  __shared__ AesTables tables;
  aes_tables_init(tables, pp, threadIdx.x, blockDim.x);
  __syncthreads();
  P prg = prg_with_tables<P>(pp, &tables);
  PYFSS_GRID_LOOP(t, k * m) {
    uint64_t j, key = divide(t, m, inv_m, &j);
    mpf_eval_input<S>(prg, hk, tables.te, sh, t, key, dst, bkts, pieces, party, s0s, cws_lm, prp_keys, k, xs,
                      x_words);
  }
}

// The PRG work of a point Eval at in_bits = levels with none of its memory traffic:
// each thread follows a chain of expand_half calls from its seed, choosing the side by
// a bit of the current seed as Eval does by a bit of x. Eval's time over this one's is
// how far Eval is from its PRG bound.
template <class P, int Mul>
__device__ __forceinline__ void prg_bench_kernel(const PrgParams& pp, uint32_t* dst, const uint32_t* seeds,
                                                 uint64_t count, int levels) {
  P prg = block_prg<P>(pp);
  PYFSS_GRID_LOOP(t, count) {
    Block s = load_block(seeds + 4 * t);
    for (int i = 0; i < levels; i++) {
      Block c[Mul / 2];
      prg.template expand_half<Mul>(clamp(s), s.w[0] & 1, c);
      s = c[Mul / 2 - 1];
    }
    store_block(dst + 4 * t, s);
  }
}

}  // namespace pyfss

using pyfss::PrgParams;

#define PYFSS_KERNEL extern "C" __global__ void __launch_bounds__(pyfss::kThreads)
// DMPF's Eval kernels also say that one block per multiprocessor will do: without it
// ptxas held some of them to 48 registers on sm_80 for occupancy, spilling. (VDMPF's
// do not spill; with it they took up to 200 registers where they take 126.)
#define PYFSS_KERNEL_ONE_BLOCK extern "C" __global__ void __launch_bounds__(pyfss::kThreads, 1)

#define PYFSS_SCHEME_KERNELS(scheme, Scheme, prg, Prg, group, Group)                                        \
  PYFSS_KERNEL scheme##_gen_##prg##_##group(const __grid_constant__ PrgParams pp, uint32_t* cws,            \
                                            const uint32_t* seeds, const uint32_t* alphas,                  \
                                            const uint32_t* betas, int alpha_words, int n, int pred,        \
                                            uint64_t k) {                                                   \
    pyfss::gen_kernel<pyfss::Scheme<pyfss::Group>, pyfss::Prg>(pp, cws, seeds, alphas, alpha_words, betas, \
                                                               n, pred, k);                                 \
  }                                                                                                         \
  PYFSS_KERNEL scheme##_eval_##prg##_##group(const __grid_constant__ PrgParams pp, uint32_t* dst,           \
                                             const uint32_t* s0s, const uint32_t* cws_lm,                   \
                                             const uint32_t* xs, uint32_t party, int x_words, int n,        \
                                             uint64_t k, uint64_t m) {                                      \
    pyfss::eval_kernel<pyfss::Scheme<pyfss::Group>, pyfss::Prg>(pp, dst, party, s0s, cws_lm, k, xs,       \
                                                                x_words, m, n);                             \
  }                                                                                                         \
  PYFSS_KERNEL scheme##_eval_all_##prg##_##group(const __grid_constant__ PrgParams pp, uint32_t* dst,       \
                                                 const uint32_t* s0s, const uint32_t* cws_lm,               \
                                                 uint32_t party, int n, int first, int levels,              \
                                                 uint64_t k) {                                              \
    pyfss::eval_all_kernel<pyfss::Scheme<pyfss::Group>, pyfss::Prg>(pp, dst, party, s0s, cws_lm, k, n,    \
                                                                    first, levels);                         \
  }

#define PYFSS_GROUP_KERNELS(scheme, Scheme, prg, Prg)                 \
  PYFSS_SCHEME_KERNELS(scheme, Scheme, prg, Prg, bytes, GroupBytes)   \
  PYFSS_SCHEME_KERNELS(scheme, Scheme, prg, Prg, uint32, GroupU32)    \
  PYFSS_SCHEME_KERNELS(scheme, Scheme, prg, Prg, uint64, GroupU64)    \
  PYFSS_SCHEME_KERNELS(scheme, Scheme, prg, Prg, uint127, GroupU127)

// VDPF's HashKeys follow PrgParams; both are multiples of 8 bytes long.
#define PYFSS_VDPF_KERNELS(prg, Prg, group, Group, hash, Hash)                                              \
  PYFSS_KERNEL vdpf_gen_##prg##_##group##_##hash(                                                             \
      const __grid_constant__ PrgParams pp, const __grid_constant__ pyfss::HashKeys hk, uint32_t* cws,        \
      const uint32_t* seeds, const uint32_t* alphas, const uint32_t* betas, int alpha_words, int n, uint64_t k) { \
    pyfss::vdpf_gen_kernel<pyfss::Vdpf<pyfss::Group, pyfss::Hash>, pyfss::Prg>(pp, hk, cws, seeds, alphas,     \
                                                                               alpha_words, betas, n, k);     \
  }                                                                                                           \
  PYFSS_KERNEL vdpf_eval_proof_##prg##_##group##_##hash(                                                      \
      const __grid_constant__ PrgParams pp, const __grid_constant__ pyfss::HashKeys hk, uint32_t* dst,        \
      uint32_t* pieces, const uint32_t* s0s, const uint32_t* cws_lm, const uint32_t* xs, uint32_t party,      \
      int x_words, int n, uint64_t k, uint64_t m) {                                                           \
    pyfss::vdpf_eval_kernel<pyfss::Vdpf<pyfss::Group, pyfss::Hash>, pyfss::Prg>(pp, hk, dst, pieces, party,   \
                                                                                s0s, cws_lm, k, xs, x_words, m, n); \
  }

#define PYFSS_VDMPF_KERNEL(prg, Prg, group, Group, hash, Hash)                                                \
  PYFSS_KERNEL vdmpf_eval_##prg##_##group##_##hash(                                                           \
      const __grid_constant__ PrgParams pp, const __grid_constant__ pyfss::HashKeys hk, uint32_t* dst,        \
      uint32_t* bkts, uint32_t* pieces, const uint32_t* s0s, const uint32_t* cws_lm, const uint32_t* prp_keys, \
      const uint32_t* xs, uint32_t party, int x_words, int n, int bucket_bits, int buckets, int least,         \
      uint64_t k, uint64_t m, double inv_m) {                                                                 \
    pyfss::mpf_eval_kernel<pyfss::Vdpf<pyfss::Group, pyfss::Hash>, pyfss::Prg>(                               \
        pp, &hk, dst, bkts, pieces, s0s, cws_lm, prp_keys, xs, party, x_words,                                \
        pyfss::MpfShape{n, bucket_bits, buckets, least}, k, m, inv_m);                                        \
  }

#define PYFSS_VDPF_HASH_KERNELS(prg, Prg, hash, Hash)                    \
  PYFSS_VDPF_KERNELS(prg, Prg, bytes, GroupBytes, hash, Hash)            \
  PYFSS_VDPF_KERNELS(prg, Prg, uint32, GroupU32, hash, Hash)             \
  PYFSS_VDPF_KERNELS(prg, Prg, uint64, GroupU64, hash, Hash)             \
  PYFSS_VDPF_KERNELS(prg, Prg, uint127, GroupU127, hash, Hash)           \
  PYFSS_VDMPF_KERNEL(prg, Prg, bytes, GroupBytes, hash, Hash)            \
  PYFSS_VDMPF_KERNEL(prg, Prg, uint32, GroupU32, hash, Hash)             \
  PYFSS_VDMPF_KERNEL(prg, Prg, uint64, GroupU64, hash, Hash)             \
  PYFSS_VDMPF_KERNEL(prg, Prg, uint127, GroupU127, hash, Hash)

// DMPF's Eval: as VDMPF's without HashKeys, bkts and pieces.
#define PYFSS_DMPF_KERNEL(prg, Prg, group, Group)                                                              \
  PYFSS_KERNEL_ONE_BLOCK dmpf_eval_##prg##_##group(const __grid_constant__ PrgParams pp, uint32_t* dst, const uint32_t* s0s, \
                                         const uint32_t* cws_lm, const uint32_t* prp_keys, const uint32_t* xs,  \
                                         uint32_t party, int x_words, int n, int bucket_bits, int buckets,      \
                                         int least, uint64_t k, uint64_t m, double inv_m) {                     \
    pyfss::mpf_eval_kernel<pyfss::Dpf<pyfss::Group>, pyfss::Prg>(                                             \
        pp, nullptr, dst, nullptr, nullptr, s0s, cws_lm, prp_keys, xs, party, x_words,                        \
        pyfss::MpfShape{n, bucket_bits, buckets, least}, k, m, inv_m);                                        \
  }

#define PYFSS_PRG_KERNELS(prg, Prg)                                                                          \
  PYFSS_GROUP_KERNELS(dpf, Dpf, prg, Prg)                                                                    \
  PYFSS_GROUP_KERNELS(dcf, Dcf, prg, Prg)                                                                    \
  PYFSS_GROUP_KERNELS(half_tree_dpf, HalfTree, prg, Prg)                                                     \
  PYFSS_VDPF_HASH_KERNELS(prg, Prg, sha256, Sha256)                                                          \
  PYFSS_VDPF_HASH_KERNELS(prg, Prg, blake3, Blake3)                                                     \
  PYFSS_DMPF_KERNEL(prg, Prg, bytes, GroupBytes)                                                             \
  PYFSS_DMPF_KERNEL(prg, Prg, uint32, GroupU32)                                                              \
  PYFSS_DMPF_KERNEL(prg, Prg, uint64, GroupU64)                                                              \
  PYFSS_DMPF_KERNEL(prg, Prg, uint127, GroupU127)                                                            \
  PYFSS_KERNEL grotto_tree_##prg(const __grid_constant__ PrgParams pp, uint32_t* pre, const uint32_t* s0s,      \
                                 const uint32_t* cws_lm, uint32_t party, int n, int first, int levels,         \
                                 uint64_t k) {                                                                 \
    pyfss::eval_all_kernel<pyfss::GrottoTree, pyfss::Prg>(pp, pre, party, s0s, cws_lm, k, n, first, levels);   \
  }                                                                                                          \
  PYFSS_KERNEL grotto_leaf_bits_##prg(const __grid_constant__ PrgParams pp, uint64_t* pre, const uint32_t* s0s, \
                                      const uint32_t* cws_lm, uint32_t party, int n, uint64_t k,               \
                                      uint64_t words) {                                                        \
    pyfss::grotto_leaf_bits_kernel<pyfss::Prg>(pp, pre, party, s0s, cws_lm, k, n, words);                     \
  }                                                                                                          \
  PYFSS_KERNEL prg_bench_##prg##_mul2(const __grid_constant__ PrgParams pp, uint32_t* dst, const uint32_t* seeds, \
                                      int levels, uint64_t count) {                                          \
    pyfss::prg_bench_kernel<pyfss::Prg, 2>(pp, dst, seeds, count, levels);                                   \
  }                                                                                                          \
  PYFSS_KERNEL prg_bench_##prg##_mul4(const __grid_constant__ PrgParams pp, uint32_t* dst, const uint32_t* seeds, \
                                      int levels, uint64_t count) {                                          \
    pyfss::prg_bench_kernel<pyfss::Prg, 4>(pp, dst, seeds, count, levels);                                   \
  }

PYFSS_PRG_KERNELS(chacha, Chacha)
PYFSS_PRG_KERNELS(aes128_mmo, Aes)

PYFSS_KERNEL cw_relayout(uint32_t* dst, const uint32_t* src, int rows, uint64_t k) {
  PYFSS_GRID_LOOP(t, k * rows) pyfss::relayout_cw(t, dst, src, k, rows);
}

// The PRP round keys and bucket sizes (k, kPrpKeyWords) of k multi-point keys cws
// (k, rows, 8) of in_bits n, for the dmpf/vdmpf eval kernels.
PYFSS_KERNEL mpf_prp_keys(const __grid_constant__ PrgParams pp, uint32_t* prp_keys, const uint32_t* cws, int rows,
                          int n, uint64_t k) {
  PYFSS_GRID_LOOP(t, 4 * k) pyfss::prp_key_schedule(t, prp_keys, pp.aes_sbox, cws, rows, n);
}

PYFSS_KERNEL parity_gather(uint64_t* dst, const uint64_t* src, uint64_t count, uint64_t k) {
  PYFSS_GRID_LOOP(t, k * pyfss::parity_words_above(count)) pyfss::parity_gather(t, dst, src, count);
}

PYFSS_KERNEL parity_apply(uint64_t* words, const uint64_t* carries, uint64_t count, uint64_t k, uint64_t mask) {
  PYFSS_GRID_LOOP(t, k * count) pyfss::parity_apply(t, words, carries, count, mask);
}

PYFSS_KERNEL grotto_eval(uint8_t* dst, const uint64_t* pre, const uint32_t* xs, int x_words, int n, uint64_t words,
                         uint64_t k, uint64_t m) {
  PYFSS_GRID_LOOP(t, k * m) pyfss::grotto_eval_point(t, dst, pre, words, xs, x_words, m, n);
}

PYFSS_KERNEL grotto_eval_interval(uint8_t* dst, const uint64_t* pre, const uint32_t* los, const uint32_t* his,
                                  int lo_words, int hi_words, int n, uint64_t words, uint64_t k, uint64_t m) {
  PYFSS_GRID_LOOP(t, k * m) pyfss::grotto_interval(t, dst, pre, words, los, lo_words, his, hi_words, m, n);
}
