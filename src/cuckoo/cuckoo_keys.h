// Key derivation of the cuckoo filter (a policy of cuckoo_core.h): how a key's
// 64-bit hash becomes a fingerprint, a bucket and its alternate bucket, at
// level 0 and at every level of a growing filter (docs/FORMAT.md §5, §11.3).
// Internal to the core: the public API is cuckoo_filter.h / scalable_filter.h.
//
// Level 0, with m buckets and f-bit fingerprints, h = HashKey(key, seed):
//   fingerprint fp = fastrange(h >> 32, 2^f - 1) + 1            in [1, 2^f - 1]
//   bucket      i1 = fastrange(h & 0xffffffff, m)                in [0, m)
//   alternate   i2 = (H(fp) - i1) mod m,  H(fp) = fastrange(Mix64(fp) & 0xffffffff, m)
// so i2 depends on (i1, fp) alone and Alt(Alt(i, fp), fp) == i for any m
// (partial-key cuckoo hashing, Fan et al. §3.1).
//
// Level j >= 1 (e = the growth factor) refines level j-1's probe p of the same
// hash: with x = Mix64(h + j * kLevelSalt),
//   fingerprint = 2 * p.fingerprint + (x >> 63)          (one more bit)
//   i1          = e * p.i1 + fastrange(x & 0xffffffff, e)
//   i2          = e * p.i2 + (G(fingerprint) - i1 mod e) mod e,
//                 G(fp) = fastrange(Mix64(fp) >> 32, e).
// Buckets of level j map onto level j-1's by integer division by e, and
// fingerprints by a right shift, so equal probes at level j mean equal probes
// at level j-1.
#ifndef CUCKOO_WASM_SRC_CUCKOO_CUCKOO_KEYS_H_
#define CUCKOO_WASM_SRC_CUCKOO_CUCKOO_KEYS_H_

#include <cstdint>

#include "cuckoo/cuckoo_params.h"
#include "common/hash.h"

namespace cuckoo {

// Where a key's fingerprint may be stored: the fingerprint and its two
// buckets (i2 = Alt(i1, fingerprint)).
struct Probe {
  uint32_t fingerprint;
  uint32_t i1;
  uint32_t i2;
};

// The derivation of one level of a cuckoo filter (a plain filter is level 0).
class LevelKeys {
 public:
  static constexpr uint64_t kLevelSalt = kGoldenGamma;

  // Level 0 of `bucket_count` buckets and `fingerprint_bits`-bit fingerprints.
  void InitBase(uint32_t bucket_count, uint32_t fingerprint_bits) {
    bucket_count_ = base_bucket_count_ = bucket_count;
    fingerprint_range_ = static_cast<uint32_t>((uint64_t{1} << fingerprint_bits) - 1);
    level_ = expansion_ = 0;
  }
  // Level `level` (its own f is `fingerprint_bits`) of a filter whose level 0
  // has `base_bucket_count` buckets and growth factor `expansion`.
  void InitLevel(uint32_t level, uint32_t expansion, uint32_t base_bucket_count,
                 uint32_t fingerprint_bits) {
    uint64_t m = base_bucket_count;
    for (uint32_t l = 0; l < level; ++l) m *= expansion;
    bucket_count_ = static_cast<uint32_t>(m);
    base_bucket_count_ = base_bucket_count;
    fingerprint_range_ = static_cast<uint32_t>((uint64_t{1} << (fingerprint_bits - level)) - 1);
    level_ = level;
    expansion_ = level == 0 ? 0 : expansion;
  }

  // The level-0 probe of `hash`.
  Probe Base(uint64_t hash) const {
    Probe p;
    p.fingerprint = FastRange32(static_cast<uint32_t>(hash >> 32), fingerprint_range_) + 1;
    p.i1 = FastRange32(static_cast<uint32_t>(hash), base_bucket_count_);
    p.i2 = BaseAlt(p.i1, p.fingerprint, base_bucket_count_);
    return p;
  }

  // Level j's probe from level j-1's, given salted = hash + j * kLevelSalt.
  static Probe Step(const Probe& p, uint64_t salted, uint32_t expansion) {
    const uint64_t x = Mix64(salted);
    const uint32_t d = FastRange32(static_cast<uint32_t>(x), expansion);
    Probe q;
    q.fingerprint = (p.fingerprint << 1) | static_cast<uint32_t>(x >> 63);
    const uint32_t g = LevelDigit(q.fingerprint, expansion);
    q.i1 = p.i1 * expansion + d;
    q.i2 = p.i2 * expansion + (g >= d ? g - d : g + expansion - d);
    return q;
  }

  // The probe of `hash` at this level.
  Probe Of(uint64_t hash) const;

  // The alternate bucket of `bucket` for `fingerprint`, an involution on
  // [0, bucket count). Level 0: (H(fp) - bucket) mod m. Level j: with
  // bucket = e*q + d (d < e), e * Alt_{j-1}(q, fp >> 1) + (G(fp) - d) mod e.
  uint32_t Alt(uint32_t bucket, uint32_t fingerprint) const {
    if (level_ == 0) return BaseAlt(bucket, fingerprint, bucket_count_);
    return LevelAlt(bucket, fingerprint);
  }

  uint32_t level() const { return level_; }
  uint32_t expansion() const { return expansion_; }  // 0 at level 0
  uint32_t base_bucket_count() const { return base_bucket_count_; }

 private:
  // G(fp) of a level >= 1: the low base-e digit the alternate bucket is
  // reflected about.
  static uint32_t LevelDigit(uint32_t fingerprint, uint32_t expansion) {
    return FastRange32(static_cast<uint32_t>(Mix64(fingerprint) >> 32), expansion);
  }
  // Level 0's alternate bucket in `m` buckets: (H(fp) - bucket) mod m.
  static uint32_t BaseAlt(uint32_t bucket, uint32_t fingerprint, uint32_t m) {
    const uint32_t h = FastRange32(static_cast<uint32_t>(Mix64(fingerprint)), m);
    return h >= bucket ? h - bucket : h + (m - bucket);
  }
  uint32_t LevelAlt(uint32_t bucket, uint32_t fingerprint) const {
    // bucket = e^level * q + sum of digits[l] * e^(level - l); reflect q at
    // level 0, then each digit about G of that level's fingerprint.
    uint32_t digits[kMaxFingerprintBits + 1];
    uint32_t q = bucket;
    for (uint32_t l = level_; l >= 1; --l) {
      digits[l] = q % expansion_;
      q /= expansion_;
    }
    uint32_t alt = BaseAlt(q, fingerprint >> level_, base_bucket_count_);
    for (uint32_t l = 1; l <= level_; ++l) {
      const uint32_t g = LevelDigit(fingerprint >> (level_ - l), expansion_);
      const uint32_t d = digits[l];
      alt = alt * expansion_ + (g >= d ? g - d : g + expansion_ - d);
    }
    return alt;
  }

  uint32_t bucket_count_ = 0;
  uint32_t base_bucket_count_ = 0;  // level 0's bucket count
  uint32_t fingerprint_range_ = 0;  // 2^f0 - 1, f0 = level 0's fingerprint bits
  uint32_t level_ = 0;
  uint32_t expansion_ = 0;          // growth factor e >= 2; 0 at level 0
};

// The probes of one key at levels 0, 1, 2, ... in turn: the one walk across
// the levels of a growing filter.
class ProbeWalk {
 public:
  ProbeWalk(const LevelKeys& keys, uint64_t hash, uint32_t expansion)
      : probe_(keys.Base(hash)), salted_(hash), expansion_(expansion) {}
  const Probe& probe() const { return probe_; }
  // From level j's probe to level j+1's.
  void Next() {
    salted_ += LevelKeys::kLevelSalt;
    probe_ = LevelKeys::Step(probe_, salted_, expansion_);
  }

 private:
  Probe probe_;
  uint64_t salted_;
  uint32_t expansion_;
};

inline Probe LevelKeys::Of(uint64_t hash) const {
  ProbeWalk walk(*this, hash, expansion_);
  for (uint32_t l = 1; l <= level_; ++l) walk.Next();
  return walk.probe();
}

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_CUCKOO_CUCKOO_KEYS_H_
