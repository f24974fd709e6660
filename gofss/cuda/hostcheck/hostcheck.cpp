//go:build ignore

// The kernels' arithmetic compiled for the host: C entry points that run the same
// per-thread functions as the kernels (cuda/batch.cuh) in plain loops, over the same
// memory layouts. The test compiles this file itself (see lib.go), hence the build
// constraint that keeps cgo away from it.

#include <algorithm>
#include <cstring>
#include <memory>

#include <vector>

#include "../../../cuda/grotto.cuh"
#include "../../../cuda/mpf.cuh"

using namespace pyfss;

namespace {

template <class T>
struct Tag {
  typedef T type;
};

// Parameters come by the names gofss gives them (Kind, Group and PrgKind), and pick
// the templates as the launcher picks kernels: both comparisons run Dcf, told apart
// by the pred argument.
bool named(const char* name, const char* want) { return std::strcmp(name, want) == 0; }

// Calls f(Tag<Scheme<Group>>()) for the group named.
template <template <class> class Scheme, class F>
int with_group(const char* group, F f) {
  if (named(group, "bytes")) {
    f(Tag<Scheme<GroupBytes>>());
  } else if (named(group, "uint32")) {
    f(Tag<Scheme<GroupU32>>());
  } else if (named(group, "uint64")) {
    f(Tag<Scheme<GroupU64>>());
  } else if (named(group, "uint127")) {
    f(Tag<Scheme<GroupU127>>());
  } else {
    return -1;
  }
  return 0;
}

// Calls f(Tag<Scheme<Group>>(), pred) for the kind (dpf, dcf_lt, dcf_gt, half_tree_dpf,
// grotto_dcf: its Gen is DPF's) and group named.
template <class F>
int with_scheme(const char* kind, const char* group, F f) {
  if (named(kind, "dpf") || named(kind, "grotto_dcf")) return with_group<Dpf>(group, [&](auto tag) { f(tag, kPredLt); });
  if (named(kind, "half_tree_dpf")) return with_group<HalfTree>(group, [&](auto tag) { f(tag, kPredLt); });
  if (named(kind, "dcf_lt")) return with_group<Dcf>(group, [&](auto tag) { f(tag, kPredLt); });
  if (named(kind, "dcf_gt")) return with_group<Dcf>(group, [&](auto tag) { f(tag, kPredGt); });
  return -1;
}

// Calls f(prg) for the PRG named (chacha, aes128_mmo), building the AES tables as one
// GPU thread block would.
template <class F>
int with_prg(const char* prg, const PrgParams& pp, F f) {
  if (named(prg, "chacha")) {
    f(Chacha(pp));
  } else if (named(prg, "aes128_mmo")) {
    std::unique_ptr<AesTables> tables(new AesTables);
    aes_tables_init(*tables, pp, 0, 1);
    f(Aes(tables.get()));
  } else {
    return -1;
  }
  return 0;
}

// Calls f(Tag<Hash>()) for the VDPF hash named (sha256, blake3).
template <class F>
int with_hash(const char* hash, F f) {
  if (named(hash, "sha256")) {
    f(Tag<Sha256>());
  } else if (named(hash, "blake3")) {
    f(Tag<Blake3>());
  } else {
    return -1;
  }
  return 0;
}

// Vdpf<G, H> as a template on the group alone, for with_group.
template <class H>
struct VdpfOf {
  template <class G>
  using type = Vdpf<G, H>;
};

// Calls f(Tag<Vdpf<Group, Hash>>(), prg).
template <class F>
int dispatch_vdpf(const char* group, const char* prg, const char* hash, const PrgParams& pp, F f) {
  int rc = 0;
  int prg_rc = with_prg(prg, pp, [&](auto p) {
    int hash_rc = with_hash(hash, [&](auto h) {
      typedef typename decltype(h)::type H;
      rc = with_group<VdpfOf<H>::template type>(group, [&](auto tag) { f(tag, p); });
    });
    if (hash_rc) rc = hash_rc;
  });
  return prg_rc ? prg_rc : rc;
}

// Calls f(Tag<Scheme<Group>>(), prg, pred).
template <class F>
int dispatch(const char* kind, const char* group, const char* prg, const PrgParams& pp, F f) {
  int rc = 0;
  int prg_rc = with_prg(prg, pp, [&](auto p) {
    rc = with_scheme(kind, group, [&](auto tag, int pred) { f(tag, p, pred); });
  });
  return prg_rc ? prg_rc : rc;
}

// What the launcher does before an evaluation: a level-major copy of cws (keys of
// `rows` rows) when K > 1.
const uint32_t* level_major(const uint32_t* cws, uint64_t k, int rows, std::unique_ptr<uint32_t[]>& buf) {
  if (k == 1) return cws;
  uint64_t total = k * (uint64_t)rows;
  buf.reset(new uint32_t[total * kCwWords]);
  for (uint64_t t = 0; t < total; t++) relayout_cw(t, buf.get(), cws, k, rows);
  return buf.get();
}

// The launcher's schedule of an EvalAll tree of n levels: the first kEvalAllTopLevels
// levels in one launch, then one launch per level. A block's threads run in reverse
// order between its barriers, which a GPU may also do: the in-place layout must not
// depend on the order.
template <class S, class P>
void run_tree(const P& p, uint32_t* dst, uint32_t party, const uint32_t* s0s, const uint32_t* cws_lm, uint64_t k,
              int n) {
  for (int first = 0, levels; first < n; first += levels) {
    levels = first == 0 ? std::min(n, kEvalAllTopLevels) : 1;
    for (uint64_t g = 0; g < eval_all_slices(k, first, levels); g++) {
      for (int j = 0; j < levels; j++) {
        for (uint32_t local = kThreads; local-- > 0;) {
          eval_all_step<S>(p, g, local, j, first, levels, dst, party, s0s, cws_lm, k, n);
        }
      }
    }
  }
}

// The launcher's prefix XOR over K keys of `count` words each: the parities gathered
// level by level into the levels above, then applied from the top down.
void prefix_parities(uint64_t* words, uint64_t count, uint64_t k, uint64_t mask) {
  std::vector<uint64_t> above;
  if (count > 1) {
    above.resize(k * parity_words_above(count));
    for (uint64_t t = above.size(); t-- > 0;) parity_gather(t, above.data(), words, count);
    prefix_parities(above.data(), parity_words_above(count), k, ~0ull);
  }
  for (uint64_t t = k * count; t-- > 0;) parity_apply(t, words, above.data(), count, mask);
}

}  // namespace

extern "C" {

// expand<mul> (half = 0: mul blocks) or expand_half<mul>(sel) (half = 1: mul/2 blocks);
// for mul = 1, hash (one block).
int hc_prg_expand(const char* prg, const PrgParams* pp, int mul, int half, uint32_t sel, const uint32_t* seed,
                  uint32_t* out) {
  if (mul != 1 && mul != 2 && mul != 4) return -1;
  return with_prg(prg, *pp, [&](auto p) {
    Block o[4];
    int count = mul == 1 ? 1 : half ? mul / 2 : mul;
    if (mul == 1) o[0] = p.hash(load_block(seed));
    if (mul == 2 && half) p.template expand_half<2>(load_block(seed), sel, o);
    if (mul == 2 && !half) p.template expand<2>(load_block(seed), o);
    if (mul == 4 && half) p.template expand_half<4>(load_block(seed), sel, o);
    if (mul == 4 && !half) p.template expand<4>(load_block(seed), o);
    for (int j = 0; j < count; j++) store_block(out + 4 * j, o[j]);
  });
}

int hc_gen(const char* kind, const char* group, const char* prg, const PrgParams* pp, uint32_t* cws,
           const uint32_t* seeds, const uint32_t* alphas, int alpha_words, const uint32_t* betas, uint64_t k, int n) {
  return dispatch(kind, group, prg, *pp, [&](auto tag, auto p, int pred) {
    typedef typename decltype(tag)::type S;
    for (uint64_t t = 0; t < k; t++) gen_key<S>(p, t, cws, seeds, alphas, alpha_words, betas, n, pred);
  });
}

int hc_eval(const char* kind, const char* group, const char* prg, const PrgParams* pp, uint32_t* dst,
            uint32_t party, const uint32_t* s0s, uint64_t k, const uint32_t* cws, const uint32_t* xs, int x_words,
            uint64_t m, int n) {
  return dispatch(kind, group, prg, *pp, [&](auto tag, auto p, int) {
    typedef typename decltype(tag)::type S;
    std::unique_ptr<uint32_t[]> buf;
    const uint32_t* cws_lm = level_major(cws, k, S::rows(n), buf);
    for (uint64_t t = 0; t < k * m; t++) eval_point<S>(p, t, dst, party, s0s, cws_lm, k, xs, x_words, m, n);
  });
}

int hc_eval_all(const char* kind, const char* group, const char* prg, const PrgParams* pp, uint32_t* dst,
                uint32_t party, const uint32_t* s0s, uint64_t k, const uint32_t* cws, int n) {
  return dispatch(kind, group, prg, *pp, [&](auto tag, auto p, int) {
    typedef typename decltype(tag)::type S;
    std::unique_ptr<uint32_t[]> buf;
    run_tree<S>(p, dst, party, s0s, level_major(cws, k, S::rows(n), buf), k, n);
  });
}

// Grotto DCF's Preprocess of K keys of one party into pre (K, words) as the launcher
// schedules it: the tree above the chunks, the chunks' leaf bits, the prefix XOR.
int hc_grotto_preprocess(const char* prg, const PrgParams* pp, uint64_t* pre, uint64_t words, uint32_t party,
                         const uint32_t* s0s, uint64_t k, const uint32_t* cws, int n) {
  return with_prg(prg, *pp, [&](auto p) {
    std::unique_ptr<uint32_t[]> buf;
    const uint32_t* cws_lm = level_major(cws, k, n + 1, buf);
    int r = grotto_tree_levels(n);
    run_tree<GrottoTree>(p, reinterpret_cast<uint32_t*>(pre), party, s0s, cws_lm, k, r);
    for (uint64_t t = k << r; t-- > 0;) grotto_leaf_bits(p, t, pre, words, party, s0s, cws_lm, k, n);
    prefix_parities(pre, words, k, grotto_word_mask(n));
  });
}

int hc_grotto_eval(uint8_t* dst, const uint64_t* pre, uint64_t words, const uint32_t* xs, int x_words, int n,
                   uint64_t k, uint64_t m) {
  for (uint64_t t = 0; t < k * m; t++) grotto_eval_point(t, dst, pre, words, xs, x_words, m, n);
  return 0;
}

int hc_grotto_eval_interval(uint8_t* dst, const uint64_t* pre, uint64_t words, const uint32_t* los, int lo_words,
                            const uint32_t* his, int hi_words, int n, uint64_t k, uint64_t m) {
  for (uint64_t t = 0; t < k * m; t++) grotto_interval(t, dst, pre, words, los, lo_words, his, hi_words, m, n);
  return 0;
}

// The hash named under key (8 words) of msg (8 or 16 words) into out (8 words); with
// xor = 1, XH(a, s) of msg = a || s (words = 8) into out (16 words).
int hc_hash(const char* hash, int xor_hash_of, const uint32_t* key, const uint32_t* msg, int words, uint32_t* out) {
  if (words != 8 && words != 16) return -1;
  if (xor_hash_of && words != 8) return -1;
  return with_hash(hash, [&](auto h) {
    typedef typename decltype(h)::type H;
    if (!xor_hash_of) {
      H::sum(key, msg, words, out);
      return;
    }
    HashKeys keys;
    std::memcpy(keys.xor_key, key, sizeof keys.xor_key);
    Proof p = xor_hash<H>(keys, load_block(msg), load_block(msg + 4));
    for (int i = 0; i < 4; i++) store_block(out + 4 * i, p.b[i]);
  });
}

int hc_vdpf_gen(const char* group, const char* prg, const char* hash, const PrgParams* pp, const HashKeys* keys,
                uint32_t* cws, const uint32_t* seeds, const uint32_t* alphas, int alpha_words, const uint32_t* betas,
                uint64_t k, int n) {
  return dispatch_vdpf(group, prg, hash, *pp, [&](auto tag, auto p) {
    typedef typename decltype(tag)::type S;
    for (uint64_t t = 0; t < k; t++) vdpf_gen_key<S>(p, *keys, t, cws, seeds, alphas, alpha_words, betas, n);
  });
}

int hc_vdpf_eval(const char* group, const char* prg, const char* hash, const PrgParams* pp, const HashKeys* keys,
                 uint32_t* dst, uint32_t* pieces, uint32_t party, const uint32_t* s0s, uint64_t k, const uint32_t* cws,
                 const uint32_t* xs, int x_words, uint64_t m, int n) {
  return dispatch_vdpf(group, prg, hash, *pp, [&](auto tag, auto p) {
    typedef typename decltype(tag)::type S;
    std::unique_ptr<uint32_t[]> buf;
    const uint32_t* cws_lm = level_major(cws, k, S::rows(n), buf);
    for (uint64_t t = 0; t < k * m; t++) {
      vdpf_eval_point<S>(p, *keys, t, dst, pieces, party, s0s, cws_lm, k, xs, x_words, m, n);
    }
  });
}

// divide(y, size, 1 / size) of cuda/mpf.cuh: the quotient, and the remainder in *rem.
uint64_t hc_divide(uint64_t y, uint64_t size, uint64_t* rem) { return divide(y, size, 1.0 / (double)size, rem); }

// DMPF (hash null) or VDMPF Eval of K keys x M inputs as the launcher schedules it:
// the level-major copy of cws for K > 1, the PRP key schedule, then every input with
// the AES tables that a thread block builds. bkts and pieces are VDMPF's (null for
// DMPF).
int hc_mpf_eval(const char* group, const char* prg, const char* hash, const PrgParams* pp, const HashKeys* keys,
                uint32_t* dst, uint32_t* bkts, uint32_t* pieces, uint32_t party, const uint32_t* s0s, uint64_t k,
                const uint32_t* cws, const uint32_t* xs, int x_words, uint64_t m, int n, int bucket_bits,
                int buckets, int least) {
  MpfShape sh{n, bucket_bits, buckets, least};
  std::unique_ptr<AesTables> tables(new AesTables);
  aes_tables_init(*tables, *pp, 0, 1);
  auto run = [&](auto tag, auto p, const HashKeys* hk) {
    typedef typename decltype(tag)::type S;
    int rows = 1 + buckets * S::rows(bucket_bits);
    std::vector<uint32_t> prp_keys(k * kPrpKeyWords);
    for (uint64_t t = 0; t < 4 * k; t++) prp_key_schedule(t, prp_keys.data(), pp->aes_sbox, cws, rows, n);
    std::unique_ptr<uint32_t[]> buf;
    const uint32_t* cws_lm = level_major(cws, k, rows, buf);
    double inv_m = 1.0 / (double)m;  // as the launcher passes it
    for (uint64_t t = 0; t < k * m; t++) {
      uint64_t j, key = divide(t, m, inv_m, &j);
      mpf_eval_input<S>(p, hk, tables->te, sh, t, key, dst, bkts, pieces, party, s0s, cws_lm, prp_keys.data(), k,
                        xs, x_words);
    }
  };
  if (hash == nullptr) {
    int rc = 0;
    int prg_rc = with_prg(prg, *pp, [&](auto p) { rc = with_group<Dpf>(group, [&](auto tag) { run(tag, p, nullptr); }); });
    return prg_rc ? prg_rc : rc;
  }
  return dispatch_vdpf(group, prg, hash, *pp, [&](auto tag, auto p) { run(tag, p, keys); });
}

}  // extern "C"
