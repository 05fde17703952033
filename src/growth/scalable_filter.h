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
// Both are the one growth layer of growing_filter.h over their family
// (CuckooFamily, BloomFamily below). Byte layout: every new filter is a
// version-4 file (docs/FORMAT.md §14); a filter read from version 1, 2 or 3
// writes that version back (§9).
#ifndef CUCKOO_WASM_SRC_GROWTH_SCALABLE_FILTER_H_
#define CUCKOO_WASM_SRC_GROWTH_SCALABLE_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/allocation.h"
#include "bloom/bloom_filter.h"
#include "cuckoo/cuckoo_filter.h"
#include "format/format.h"
#include "growth/growing_filter.h"
#include "growth/growth_families.h"
#include "status.h"

namespace cuckoo {

// A new ScalableCuckooFilter's parameters: sub-filter 0's, and the growth.
struct ScalableCuckooParams {
  CuckooParams first;
  uint32_t expansion = 0;  // 0 (never grows) or 2..format::kMaxExpansion

  // Each field by the name create() takes it under (bindings/embind.cc reads
  // them from its options object): visit(name, field).
  template <typename Visit>
  void Fields(Visit&& visit) {
    visit("capacity", first.capacity);
    visit("fingerprintBits", first.fingerprint_bits);
    visit("bucketSize", first.bucket_size);
    visit("maxKicks", first.max_kicks);
    visit("seed", first.seed);
    visit("encoding", first.encoding);
    visit("expansion", expansion);
  }
};

class ScalableCuckooFilter final : public GrowingFilter<ScalableCuckooFilter, CuckooFamily> {
 public:
  using Params = ScalableCuckooParams;
  static Status Create(const Params& params, std::unique_ptr<ScalableCuckooFilter>* out) {
    return Create(params.first, params.expansion, out);
  }
  // `params` describe sub-filter 0 (its capacity and fingerprint bits: the
  // caller sizes f for ε/2 when the filter grows). `expansion` is 0 (never
  // grows) or 2..format::kMaxExpansion. kInvalidArgument / kOutOfMemory as
  // CuckooFilter::Create.
  static Status Create(const CuckooParams& params, uint32_t expansion,
                       std::unique_ptr<ScalableCuckooFilter>* out);

  // Removes one matching fingerprint, from the newest sub-filter that has one.
  Status Delete(const uint8_t* key, size_t len);
  // Matching fingerprints in all sub-filters.
  uint32_t Count(const uint8_t* key, size_t len) const;
  // Fraction of all sub-filters' slots holding a fingerprint, victims excluded.
  double load_factor() const;

 private:
  friend class GrowingFilter<ScalableCuckooFilter, CuckooFamily>;
  ScalableCuckooFilter() = default;
};

struct ScalableBloomParams {
  uint64_t capacity = 0;              // sub-filter 0's capacity, >= 1
  double false_positive_rate = 0.01;  // ε of the whole filter, in (0, 1)
  uint64_t seed = kDefaultSeed;
  uint32_t expansion = 0;             // 0 or 2..format::kMaxExpansion
  // Every sub-filter's positions (version 4's scheme byte); kDoubleHashing
  // only to keep a filter read from version 2 as it was, and for tests.
  BloomPositions positions = BloomPositions::kIndependent;

  // Each field create() takes, by its name there (bindings/embind.cc).
  template <typename Visit>
  void Fields(Visit&& visit) {
    visit("capacity", capacity);
    visit("falsePositiveRate", false_positive_rate);
    visit("seed", seed);
    visit("expansion", expansion);
  }
};

class ScalableBloomFilter final : public GrowingFilter<ScalableBloomFilter, BloomFamily> {
 public:
  using Params = ScalableBloomParams;
  // Sub-filter 0 sized for params.capacity keys at ε (ε/2 when the filter
  // grows; BloomFilter::Create's m and k). kInvalidArgument if a parameter is
  // out of range (ScalableBloomParams), kOutOfMemory if it cannot be allocated.
  // Deserialize (GrowingFilter) loads version-4 or version-3 bytes, or
  // version-2 bytes of type Bloom (FORMAT.md §12, §14), keeping the positions
  // they name.
  static Status Create(const ScalableBloomParams& params, std::unique_ptr<ScalableBloomFilter>* out);

  // Same seed, growth and sub-filters of the same m and k: then Union ORs
  // each sub-filter's bits into this one's. kInvalidArgument otherwise.
  bool IsCompatible(const ScalableBloomFilter& other) const;
  Status Union(const ScalableBloomFilter& other);

  // ε the filter was configured with (sub-filter 0's rate times 2 when it grows).
  double false_positive_rate() const;
  // 1 - prod_j (1 - rate_j) over the sub-filters' current fill.
  double ExpectedFalsePositiveRate() const;
  double EstimatedCount() const {  // sum over sub-filters
    return Sum([](const BloomFilter& s) { return s.EstimatedCount(); });
  }
  uint64_t bit_count() const {  // bits in all sub-filters
    return Sum([](const BloomFilter& s) { return s.bit_count(); });
  }
  BloomPositions positions() const { return subs_[0]->positions(); }  // every sub-filter's

 private:
  friend class GrowingFilter<ScalableBloomFilter, BloomFamily>;
  ScalableBloomFilter() = default;
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_GROWTH_SCALABLE_FILTER_H_
