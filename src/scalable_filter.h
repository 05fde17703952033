// Filters that grow: a chain of sub-filters, each `expansion` times larger than
// the one before, whose total false-positive rate stays below the rate the
// filter was configured for however far it grows (Almeida, Baquero, Preguiça,
// Hutchison, "Scalable Bloom Filters", Information Processing Letters 2007).
// Inserts go to the newest sub-filter; when it is full a new one is added;
// lookups check them all. Sub-filter j is sized for a rate of ε0 / 2^j (the
// paper's tightening ratio r = 1/2), so the rates sum to less than 2·ε0 = ε.
// Without growth (expansion 0) a filter is its one sub-filter, sized for ε.
//
// ScalableCuckooFilter: sub-filter j is the cuckoo filter of level j
// (cuckoo_filter.h): e^j times the buckets of sub-filter 0 and j more
// fingerprint bits (each bit halves 2b/2^f). Its key derivation refines the
// levels below it: keys that match the same stored fingerprint at level j
// match the same one at every level below. So Delete removes the matching
// fingerprint of the NEWEST sub-filter that has one: if that fingerprint is
// another key's, the two keys match alike at every older level, where the
// deleted key's own fingerprint stays for the other key to match. No key
// added and not deleted is ever reported absent.
//
// ScalableBloomFilter: sub-filter j is a BloomFilter for capacity n·e^j at
// rate ε0 / 2^j; a new one is added when the newest holds its capacity.
//
// Both hash a key once (XXH3-64 with the seed every sub-filter shares) for all
// their sub-filters. At most kMaxSubFilters sub-filters and 1 GiB of
// serialized bytes: an Add that would need more returns kGrowthLimit and adds
// nothing. Byte layout: a cuckoo filter without growth is a version-1 file, a
// growing one version 2, a Bloom filter version 3 (version 2 if it was read
// from version-2 bytes) (docs/FORMAT.md §11).
#ifndef CUCKOO_WASM_SRC_SCALABLE_FILTER_H_
#define CUCKOO_WASM_SRC_SCALABLE_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "allocation.h"
#include "bloom_filter.h"
#include "cuckoo_filter.h"
#include "format.h"
#include "status.h"

namespace cuckoo {

// Most serialized bytes a filter may grow to, all sub-filters included.
constexpr uint64_t kMaxFilterBytes = uint64_t{1} << 30;

class ScalableCuckooFilter {
 public:
  // `params` describe sub-filter 0 (its capacity and fingerprint bits: the
  // caller sizes f for ε/2 when the filter grows). `expansion` is 0 (never
  // grows) or 2..format::kMaxExpansion. kInvalidArgument / kOutOfMemory as
  // CuckooFilter::Create.
  static Status Create(const CuckooParams& params, uint32_t expansion,
                       std::unique_ptr<ScalableCuckooFilter>* out);
  // Loads version-1 or version-2 (type cuckoo) bytes: every check of
  // FORMAT.md §7 / §12. kFormatIsBloomFilter for a Bloom filter's bytes.
  static Status Deserialize(const uint8_t* data, size_t len,
                            std::unique_ptr<ScalableCuckooFilter>* out);

  ScalableCuckooFilter(const ScalableCuckooFilter&) = delete;
  ScalableCuckooFilter& operator=(const ScalableCuckooFilter&) = delete;
  static void* operator new(size_t) = delete;
  static void* operator new[](size_t) = delete;
  static void operator delete(void* p) { internal::Deallocate(p); }

  // Inserts into the newest sub-filter; when it is full and the filter grows,
  // into a new sub-filter. kNotEnoughSpace (no growth, or fingerprints matching
  // this key fill every slot of its buckets in the newest sub-filter: it was
  // added 2b + 1 times, counting the victim, and growing would not end that) or kGrowthLimit /
  // kOutOfMemory (growth refused): the key is not added, nothing is lost.
  Status Add(const uint8_t* key, size_t len);
  bool Contain(const uint8_t* key, size_t len) const;
  // Removes one matching fingerprint, from the newest sub-filter that has one.
  Status Delete(const uint8_t* key, size_t len);
  // Matching fingerprints in all sub-filters.
  uint32_t Count(const uint8_t* key, size_t len) const;
  // As CuckooFilter::AddBatch / ContainBatch.
  size_t AddBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, Status* status);
  void ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, uint8_t* results) const;
  // Add and Contain of a key given by its hash (HashKey with seed()).
  Status AddHash(uint64_t hash);
  bool ContainHash(uint64_t hash) const;

  uint64_t SerializedSize() const;
  void Serialize(uint8_t* out) const;

  uint32_t expansion() const { return expansion_; }
  uint32_t sub_filter_count() const { return count_; }
  const CuckooFilter& sub_filter(uint32_t j) const { return *subs_[j]; }
  uint64_t seed() const { return subs_[0]->seed(); }
  uint64_t size() const;  // stored fingerprints in all sub-filters
  // Fraction of all sub-filters' slots holding a fingerprint, victims excluded.
  double load_factor() const;

 private:
  ScalableCuckooFilter() = default;
  static Status Wrap(std::unique_ptr<CuckooFilter> first, uint32_t expansion,
                     std::unique_ptr<ScalableCuckooFilter>* out);
  Status Grow();

  uint32_t expansion_ = 0;
  uint32_t count_ = 0;
  std::unique_ptr<CuckooFilter> subs_[format::kMaxSubFilters];
};

struct ScalableBloomParams {
  uint64_t capacity = 0;              // sub-filter 0's capacity, >= 1
  double false_positive_rate = 0.01;  // ε of the whole filter, in (0, 1)
  uint64_t seed = kDefaultSeed;
  uint32_t expansion = 0;             // 0 or 2..format::kMaxExpansion
  // Every sub-filter's positions; kDoubleHashing (written as version 2) only
  // to make version-2 bytes, as tests and the fuzz corpus do.
  BloomPositions positions = BloomPositions::kIndependent;
};

class ScalableBloomFilter {
 public:
  // Sub-filter 0 sized for params.capacity keys at ε (ε/2 when the filter
  // grows; BloomFilter::Create's m and k). kInvalidArgument if a parameter is
  // out of range (ScalableBloomParams), kOutOfMemory if it cannot be allocated.
  static Status Create(const ScalableBloomParams& params, std::unique_ptr<ScalableBloomFilter>* out);
  // Loads version-3 bytes, or version-2 bytes of type Bloom (FORMAT.md §12),
  // keeping the positions of its version; kFormatIsCuckooFilter for a cuckoo
  // filter's bytes (version 1, or version 2 of type cuckoo).
  static Status Deserialize(const uint8_t* data, size_t len,
                            std::unique_ptr<ScalableBloomFilter>* out);

  ScalableBloomFilter(const ScalableBloomFilter&) = delete;
  ScalableBloomFilter& operator=(const ScalableBloomFilter&) = delete;
  static void* operator new(size_t) = delete;
  static void* operator new[](size_t) = delete;
  static void operator delete(void* p) { internal::Deallocate(p); }

  // Adds to the newest sub-filter, first adding a new one if it holds its
  // capacity and the filter grows. kGrowthLimit / kOutOfMemory: not added.
  Status Add(const uint8_t* key, size_t len);
  // True if some sub-filter has all k bits of the key set (newest first):
  // never false for a key added; a non-member with probability about
  // ExpectedFalsePositiveRate().
  bool Contain(const uint8_t* key, size_t len) const;
  // Add and Contain over keys packed as batch.h describes; AddBatch stops at
  // the first key refused, returns how many went in, *status why it stopped.
  size_t AddBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, Status* status);
  void ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, uint8_t* results) const;
  // Add and Contain of a key given by its hash (HashKey with seed()).
  Status AddHash(uint64_t hash);
  bool ContainHash(uint64_t hash) const;

  // Same seed, growth and sub-filters of the same m and k: then Union ORs
  // each sub-filter's bits into this one's. kInvalidArgument otherwise.
  bool IsCompatible(const ScalableBloomFilter& other) const;
  Status Union(const ScalableBloomFilter& other);

  uint64_t SerializedSize() const;
  // Version 3, or version 2 for a filter of BloomPositions::kDoubleHashing.
  void Serialize(uint8_t* out) const;

  // ε the filter was configured with (sub-filter 0's rate times 2 when it grows).
  double false_positive_rate() const;
  // 1 - prod_j (1 - rate_j) over the sub-filters' current fill.
  double ExpectedFalsePositiveRate() const;
  double EstimatedCount() const;  // sum over sub-filters
  uint64_t size() const;          // keys added
  uint64_t bit_count() const;     // bits in all sub-filters

  uint32_t expansion() const { return expansion_; }
  uint32_t sub_filter_count() const { return count_; }
  const BloomFilter& sub_filter(uint32_t j) const { return *subs_[j]; }
  uint64_t seed() const { return subs_[0]->seed(); }
  BloomPositions positions() const { return subs_[0]->positions(); }  // every sub-filter's

 private:
  ScalableBloomFilter() = default;
  Status Grow();

  uint32_t expansion_ = 0;
  uint32_t count_ = 0;
  std::unique_ptr<BloomFilter> subs_[format::kMaxSubFilters];
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_SCALABLE_FILTER_H_
