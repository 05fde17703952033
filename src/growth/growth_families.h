// The sub-filter families of the growth layer (growing_filter.h, which
// documents what a family provides): CuckooFamily (sub-filter j is the cuckoo
// filter of level j, cuckoo_keys.h) and BloomFamily (sub-filter j is a Bloom
// filter for n·e^j keys at ε0 / 2^j). Internal to the core: scalable_filter.h
// names the filters.
#ifndef CUCKOO_WASM_SRC_GROWTH_GROWTH_FAMILIES_H_
#define CUCKOO_WASM_SRC_GROWTH_GROWTH_FAMILIES_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "bloom/bloom_filter.h"
#include "cuckoo/cuckoo_filter.h"
#include "cuckoo/cuckoo_keys.h"
#include "format/format.h"
#include "growth/growing_filter.h"
#include "common/hash.h"
#include "status.h"

namespace cuckoo {

// How this library's own families hash a key: XXH3-64 with the filter's seed
// (common/hash.h), the whole 64 bits kept for every sub-filter.
struct Xxh3Keys : GrowthPolicy {
  using Hashed = uint64_t;
  static uint64_t Hash(const uint8_t* key, size_t len, uint64_t seed) {
    return HashKey(key, len, seed);
  }
};

// The cuckoo family of the growth layer: sub-filter j is the CuckooFilter of
// level j, and a key's form at sub-filter j is its probe at level j.
struct CuckooFamily : Xxh3Keys {
  using Sub = CuckooFilter;
  static constexpr uint32_t kMaxSubFilters = format::kMaxGrowthSubFilters;
  class Walk {
   public:
    Walk(const CuckooFilter& first, uint64_t hash, uint32_t expansion)
        : walk_(first.keys_, hash, expansion) {}
    const Probe& key() const { return walk_.probe(); }
    void Next() { walk_.Next(); }

   private:
    ProbeWalk walk_;
  };
  static Status AddKey(CuckooFilter& f, const Probe& p) { return f.AddProbe(p); }
  static bool ContainKey(const CuckooFilter& f, const Probe& p) { return f.ContainProbe(p); }
  static void ContainGroup(const CuckooFilter& f, const uint64_t* hashes, size_t m, uint8_t* out) {
    f.ContainHashes(hashes, m, out);
  }
  static bool FullBeforeAdd(const CuckooFilter&) { return false; }
  static bool GrowthHelps(const CuckooFilter& newest, const Probe& p);
  static Status MakeNext(const CuckooFilter& first, const CuckooFilter& newest, uint32_t level,
                         uint32_t expansion, uint64_t bytes_now, std::unique_ptr<CuckooFilter>* next);
  static constexpr uint8_t kType = format::kTypeCuckoo;
  static constexpr bool kPlainWhenFixed = true;
  static uint8_t Encoding(const CuckooFilter& first) {
    return static_cast<uint8_t>(first.encoding());
  }
  static uint8_t Scheme(const CuckooFilter&) { return format::kSchemeCuckooPartialKey; }
  // Version 1 without growth, version 2 with it.
  static bool Writable(uint16_t version, const CuckooFilter&, uint32_t expansion) {
    return version == (expansion == 0 ? format::kFormatVersion : format::kFormatVersionStack);
  }
  static uint64_t SectionBytes(const CuckooFilter& f) { return f.SerializedSize(); }
  static void WriteSection(const CuckooFilter& f, uint8_t* out) { f.Serialize(out); }
  static Status LoadPlain(const uint8_t* data, size_t len, std::unique_ptr<CuckooFilter>* out) {
    return CuckooFilter::Deserialize(data, len, out);
  }
  static Status LoadSection(const uint8_t* data, size_t len, const format::StackHeader& h,
                            uint32_t j, const CuckooFilter* prev, const CuckooFilter* first,
                            std::unique_ptr<CuckooFilter>* out);

  // The sub-filter of level `level` >= 1 of a growing filter whose level-0
  // sub-filter has `base` parameters and `base_bucket_count` buckets:
  // capacity and buckets times e^level, f + level fingerprint bits, same b,
  // max kicks, seed and encoding. kInvalidArgument if f + level > 32 or the
  // buckets exceed kMaxBucketCount; kOutOfMemory as for CuckooFilter::Create.
  static Status CreateLevel(const CuckooParams& base, uint64_t base_bucket_count,
                            uint32_t expansion, uint32_t level,
                            std::unique_ptr<CuckooFilter>* out);
  // Makes a filter loaded by CuckooFilter::Deserialize (level 0) the
  // sub-filter of `level` of a growing filter with growth factor `expansion`
  // whose level-0 sub-filter has `base_bucket_count` buckets. The caller has
  // checked that the filter's buckets are base_bucket_count * expansion^level
  // and that level < its f.
  static void SetLevel(CuckooFilter& f, uint32_t level, uint32_t expansion,
                       uint32_t base_bucket_count) {
    f.keys_.InitLevel(level, expansion, base_bucket_count, f.params_.fingerprint_bits);
  }

  // Matching fingerprints and delete of a key given by its probe.
  static uint32_t CountKey(const CuckooFilter& f, const Probe& p) { return f.CountProbe(p); }
  static Status DeleteKey(CuckooFilter& f, const Probe& p) { return f.DeleteProbe(p); }
};

// The Bloom family: sub-filter j is a BloomFilter for capacity n·e^j at rate
// ε0 / 2^j, and a key's form is its hash at every sub-filter.
struct BloomFamily : Xxh3Keys {
  using Sub = BloomFilter;
  static constexpr uint32_t kMaxSubFilters = format::kMaxGrowthSubFilters;
  class Walk {
   public:
    Walk(const BloomFilter&, uint64_t hash, uint32_t) : hash_(hash) {}
    uint64_t key() const { return hash_; }
    void Next() {}

   private:
    uint64_t hash_;
  };
  static Status AddKey(BloomFilter& f, uint64_t hash) {
    f.AddHash(hash);
    return Status::kOk;
  }
  static bool ContainKey(const BloomFilter& f, uint64_t hash) { return f.ContainHash(hash); }
  static void ContainGroup(const BloomFilter& f, const uint64_t* hashes, size_t m, uint8_t* out) {
    f.ContainHashes(hashes, m, out);
  }
  // A new sub-filter is added when the newest holds its capacity.
  static bool FullBeforeAdd(const BloomFilter& newest) { return newest.size() >= newest.capacity(); }
  static bool GrowthHelps(const BloomFilter&, uint64_t) { return true; }
  static Status MakeNext(const BloomFilter& first, const BloomFilter& newest, uint32_t level,
                         uint32_t expansion, uint64_t bytes_now, std::unique_ptr<BloomFilter>* next);
  static constexpr uint8_t kType = format::kTypeBloom;
  static constexpr bool kPlainWhenFixed = false;
  static uint8_t Encoding(const BloomFilter&) { return 0; }
  static uint8_t Scheme(const BloomFilter& first);
  // Version 2 for double hashing, version 3 for independent positions.
  static bool Writable(uint16_t version, const BloomFilter& first, uint32_t expansion);
  static uint64_t SectionBytes(const BloomFilter& f) {
    return format::BloomSectionBytes(f.word_bytes());
  }
  static void WriteSection(const BloomFilter& f, uint8_t* out);
  static Status LoadPlain(const uint8_t*, size_t, std::unique_ptr<BloomFilter>*) {
    return Status::kFormatWrongFamily;
  }
  static Status LoadSection(const uint8_t* data, size_t len, const format::StackHeader& h,
                            uint32_t j, const BloomFilter* prev, const BloomFilter* first,
                            std::unique_ptr<BloomFilter>* out);
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_GROWTH_GROWTH_FAMILIES_H_
