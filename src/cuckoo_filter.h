// CuckooFilter: an approximate-membership set with deletion, by partial-key
// cuckoo hashing (Fan, Andersen, Kaminsky, Mitzenmacher, "Cuckoo Filter:
// Practically Better Than Bloom", CoNEXT 2014).
//
// Each key gets one 64-bit hash h = XXH3-64(key bytes, seed) (hash.h). From h:
//   fingerprint fp = fastrange(h >> 32, 2^f - 1) + 1            in [1, 2^f - 1]
//   bucket      i1 = fastrange(h & 0xffffffff, m)                in [0, m)
//   alternate   i2 = (H(fp) - i1) mod m,  H(fp) = fastrange(Mix64(fp) & 0xffffffff, m)
// so i2 depends on (i1, fp) alone and Alt(Alt(i, fp), fp) == i for any m
// (partial-key cuckoo hashing, §3.1), which lets m track the requested capacity
// instead of a power of two. A fingerprint 0 marks an empty slot. Inserting
// into two full buckets first moves a resident fingerprint to a free slot of
// its own alternate bucket if one has one (one-step lookahead), else evicts
// ("kicks") a slot chosen by a seeded PRNG and moves that fingerprint to its
// alternate bucket, up to max_kicks times (§3.1, Algorithm 1); a chain that
// runs out parks the last evicted fingerprint in a one-slot victim, so no
// stored fingerprint is ever lost. Lookup (§3.2) checks both buckets and the
// victim; the false-positive rate is about 2b / 2^f at full load (§5.1).
//
// A filter that grows (scalable_filter.h) chains sub-filters of levels
// 0, 1, 2, ...: level j has e^j times the buckets of level 0 (e = the growth
// factor) and j more fingerprint bits. Its key derivation refines level j-1's
// (see NextLevel), so that two keys that look the same at level j also look
// the same at every lower level; a plain filter is level 0.
//
// Not thread-safe; non-copyable. Byte layout: docs/FORMAT.md, written and read
// by format.h.
#ifndef CUCKOO_WASM_SRC_CUCKOO_FILTER_H_
#define CUCKOO_WASM_SRC_CUCKOO_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "allocation.h"
#include "cuckoo_params.h"
#include "packed_table.h"
#include "status.h"

namespace cuckoo {

namespace format {
struct CuckooHeader;
}  // namespace format

class CuckooFilter {
 public:
  // Where a key's fingerprint may be stored: the fingerprint and its two
  // buckets (i2 = AltIndex(i1, fingerprint)).
  struct Probe {
    uint32_t fingerprint;
    uint32_t i1;
    uint32_t i2;
  };

  // Load factor alpha the table is sized to reach at `capacity` items, per
  // bucket size b (0.84, 0.96, 0.98 for b = 2, 4, 8; the paper measures 84%,
  // 95%, 98% with plain random-walk eviction, §5.1 Fig. 3; one-step lookahead before
  // each kick lifts b = 4 to ~97%).
  static double TargetLoadFactor(uint32_t bucket_size);

  // Buckets m for `capacity` items: ceil((capacity / alpha + c*sqrt(capacity)) / b),
  // c = 2 (4 for b = 2). Returns 0 if capacity is 0, b invalid, or m > kMaxBucketCount.
  static uint64_t BucketCountFor(uint64_t capacity, uint32_t bucket_size);

  // Bytes toBytes() produces for a filter of these parameters: header, packed
  // table (ceil(m*b*f/8)), checksum. Returns 0 for parameters Create refuses.
  static uint64_t SerializedSizeFor(const CuckooParams& params);

  // Makes an empty filter. kInvalidArgument for a parameter out of range (see
  // CuckooParams); kOutOfMemory if the filter or its table cannot be allocated
  // (or the table would not fit in size_t). On error `*out` is untouched and
  // nothing stays allocated.
  static Status Create(const CuckooParams& params, std::unique_ptr<CuckooFilter>* out);

  // Loads a filter from `len` bytes written by Serialize. Every header field,
  // the victim and the checksum are validated before anything is allocated;
  // the table is then copied into an allocation of about `len` bytes, and its
  // padding and item count are checked. kOutOfMemory if the filter or its
  // table cannot be allocated. On error `*out` is untouched, nothing stays
  // allocated, and the status names the first problem found (kFormat*,
  // kOutOfMemory).
  static Status Deserialize(const uint8_t* data, size_t len, std::unique_ptr<CuckooFilter>* out);

  // The sub-filter of level `level` >= 1 of a growing filter whose level-0
  // sub-filter has `base` parameters (its capacity, f, b, max kicks, seed) and
  // `base_bucket_count` buckets: capacity and buckets times e^level, f + level
  // fingerprint bits, same b, max kicks and seed. kInvalidArgument if f + level
  // > 32 or the buckets exceed kMaxBucketCount (the filter cannot grow that
  // far); kOutOfMemory as for Create.
  static Status CreateLevel(const CuckooParams& base, uint64_t base_bucket_count,
                            uint32_t expansion, uint32_t level,
                            std::unique_ptr<CuckooFilter>* out);

  // Makes a filter loaded by Deserialize (level 0) the sub-filter of `level`
  // of a growing filter with growth factor `expansion` whose level-0 sub-filter
  // has `base_bucket_count` buckets. The caller has checked that this filter's
  // buckets are base_bucket_count * expansion^level and that level < its f.
  void SetLevel(uint32_t level, uint32_t expansion, uint32_t base_bucket_count);

  // Level j's probe of a key from level j-1's (`p`, for the same 64-bit key
  // hash `hash`): with x = Mix64(hash + j * 0x9e3779b97f4a7c15),
  //   fingerprint = 2 * p.fingerprint + (x >> 63)          (one more bit)
  //   i1          = e * p.i1 + fastrange(x & 0xffffffff, e)
  //   i2          = e * p.i2 + (G(fingerprint) - i1 mod e) mod e,
  //                 G(fp) = fastrange(Mix64(fp) >> 32, e),
  // which is AltIndex at level j (see there). Buckets of level j map onto
  // level j-1's by integer division by e, and fingerprints by a right shift,
  // so equal probes at level j mean equal probes at level j-1.
  static Probe NextLevel(const Probe& p, uint64_t hash, uint32_t level, uint32_t expansion) {
    return LevelStep(p, hash + level * kLevelSalt, expansion);
  }
  // NextLevel given `salted` = hash + level * kLevelSalt: a loop over the
  // levels adds kLevelSalt per level instead of multiplying.
  static Probe LevelStep(const Probe& p, uint64_t salted, uint32_t expansion);
  static constexpr uint64_t kLevelSalt = 0x9e3779b97f4a7c15ULL;  // hash.h kGoldenGamma

  CuckooFilter(const CuckooFilter&) = delete;
  CuckooFilter& operator=(const CuckooFilter&) = delete;

  // A filter and its table live in blocks from internal::AllocateZeroed
  // (calloc; allocation.h), so running out of memory is a status, never an
  // exception or an abort. Only Create and Deserialize make filters: no
  // new-expression can. `delete` (std::unique_ptr<CuckooFilter>'s deleter)
  // runs the destructor and frees the block.
  static void* operator new(size_t) = delete;
  static void* operator new[](size_t) = delete;
  static void operator delete(void* p) { internal::Deallocate(p); }

  // Inserts a key's fingerprint. kNotEnoughSpace only when both buckets are
  // full and the victim slot is taken (a kick chain could end needing it): the
  // key is not added and nothing stored is changed. While the victim slot is
  // free an insert always succeeds. Duplicates are stored again.
  Status Add(const uint8_t* key, size_t len);

  // True if a matching fingerprint is in either bucket or the victim: never
  // false for a key added and not deleted; true for a non-member with
  // probability about 2*b*alpha / 2^f.
  bool Contain(const uint8_t* key, size_t len) const;

  // Removes one matching fingerprint (bucket i1, then i2, then the victim).
  // kNotFound if there is none. Deleting a key never added may remove a
  // colliding key's fingerprint (§3.3).
  Status Delete(const uint8_t* key, size_t len);

  // Number of matching fingerprints in both buckets (once if i1 == i2) and the victim.
  uint32_t Count(const uint8_t* key, size_t len) const;

  // Adds keys[offsets[k] .. offsets[k+1]) for k in [0, n) in order, stopping at
  // the first that fails. Returns how many were added; *status is kOk or the
  // first failure's status.
  size_t AddBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, Status* status);

  // results[k] = Contain(key k) for the same layout as AddBatch.
  void ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, uint8_t* results) const;

  // Writes SerializedSize() bytes to `out` (docs/FORMAT.md). Deterministic:
  // the same parameters, keys and order give the same bytes on every machine.
  void Serialize(uint8_t* out) const;
  uint64_t SerializedSize() const;

  uint64_t size() const { return size_; }                 // stored fingerprints, victim included
  uint64_t capacity() const { return params_.capacity; }  // items requested at Create
  uint64_t bucket_count() const { return bucket_count_; }
  uint64_t slot_count() const { return bucket_count_ * params_.bucket_size; }
  uint32_t fingerprint_bits() const { return params_.fingerprint_bits; }
  uint32_t bucket_size() const { return params_.bucket_size; }
  uint32_t max_kicks() const { return params_.max_kicks; }
  uint64_t seed() const { return params_.seed; }
  bool victim_used() const { return victim_.fingerprint != 0; }
  // Fraction of slots holding a fingerprint (the paper's alpha), victim excluded.
  double load_factor() const {
    return static_cast<double>(size_ - victim_used()) / static_cast<double>(slot_count());
  }

  // The level-0 probe of `hash` (with level 0's f and bucket count): this
  // filter's probe if it is a level-0 filter.
  Probe BaseProbe(uint64_t hash) const;
  // The probe of a key whose 64-bit hash (HashKey with seed()) is `hash`, at
  // this filter's level.
  Probe ProbeOf(uint64_t hash) const {
    Probe p = BaseProbe(hash);
    for (uint32_t l = 1; l <= level_; ++l) p = NextLevel(p, hash, l, expansion_);
    return p;
  }
  // Add, Contain, Delete and Count of a key given by its probe at this level.
  Status AddProbe(const Probe& p);
  bool ContainProbe(const Probe& p) const {
    return table_.ContainsEither(p.i1, p.i2, p.fingerprint) || VictimMatches(p);
  }
  Status DeleteProbe(const Probe& p);
  uint32_t CountProbe(const Probe& p) const;

  uint32_t level() const { return level_; }
  uint32_t expansion() const { return expansion_; }          // 0 at level 0
  uint64_t base_bucket_count() const { return base_bucket_count_; }

  // The partial-key alternate bucket of `bucket` for `fingerprint` (§3.1),
  // an involution on [0, bucket_count()). Level 0:
  // (H(fp) - bucket) mod m. Level j: with bucket = e*q + d (d < e),
  // e * AltIndex_{j-1}(q, fp >> 1) + (G(fp) - d) mod e.
  uint32_t AltIndex(uint32_t bucket, uint32_t fingerprint) const;
  // Exposed for tests: fingerprint and first bucket of a key.
  void Derive(const uint8_t* key, size_t len, uint32_t* fingerprint, uint32_t* bucket) const;

 private:
  struct Victim {
    uint32_t fingerprint = 0;  // 0: empty
    uint32_t bucket = 0;
  };

  CuckooFilter() = default;
  // What Create and Deserialize share: a filter of `params` with
  // `bucket_count` buckets (params valid, bucket_count in [1, kMaxBucketCount]),
  // an empty table, no victim, no item, and the eviction PRNG at its initial
  // state (the seed). The filter and its table are blocks from
  // internal::AllocateZeroed; kOutOfMemory (nothing left allocated, *out
  // untouched) if either cannot be had.
  static Status Make(const CuckooParams& params, uint64_t bucket_count,
                     std::unique_ptr<CuckooFilter>* out);
  // The filter's state as a serialized header describes it.
  format::CuckooHeader Header() const;
  bool VictimMatches(const Probe& p) const {
    return victim_.fingerprint == p.fingerprint &&
           (victim_.bucket == p.i1 || victim_.bucket == p.i2);
  }
  // Places `fingerprint` whose bucket is `bucket`, kicking if needed.
  Status Place(uint32_t bucket, uint32_t fingerprint);

  CuckooParams params_;
  uint32_t bucket_count_ = 0;
  uint32_t base_bucket_count_ = 0;  // level 0's bucket count (bucket_count_ at level 0)
  uint32_t fingerprint_range_ = 0;  // 2^f0 - 1, f0 = level 0's fingerprint bits
  uint32_t level_ = 0;
  uint32_t expansion_ = 0;          // growth factor e >= 2; 0 at level 0
  uint64_t size_ = 0;
  uint64_t rng_state_ = 0;
  Victim victim_;
  PackedTable table_;
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_CUCKOO_FILTER_H_
