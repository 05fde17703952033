// What the tests of the Bloom filter, the cuckoo sub-filter levels, the
// growing filters and format version 2 share (bloom_test.cc, level_test.cc,
// scalable_test.cc, format_v2_test.cc): helpers over the byte-oriented API of
// BloomFilter, ScalableCuckooFilter and ScalableBloomFilter, the statuses a
// reader may refuse bytes with, a hook that refuses chosen allocations, and a
// writer of version-2 files from hand-chosen fields (StackFile), so a test can
// make a file whose checksums are right and whose one field under test is not.
//
// Everything is deterministic (fixed keys, seeded hashes, std::mt19937_64 used
// through its raw output only), so any failure reproduces exactly.
#ifndef CUCKOO_WASM_TESTS_NATIVE_GROWTH_TEST_UTIL_H_
#define CUCKOO_WASM_TESTS_NATIVE_GROWTH_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/allocation.h"
#include "bloom/bloom_filter.h"
#include "cuckoo/cuckoo_filter.h"
#include "format/format.h"
#include "common/hash.h"
#include "growth/scalable_filter.h"
#include "status.h"
#include "test_util.h"

namespace cuckoo_test {

using cuckoo::BloomFilter;
using cuckoo::BloomParams;
using cuckoo::BloomPositions;
using cuckoo::ScalableBloomFilter;
using cuckoo::ScalableBloomParams;
using cuckoo::ScalableCuckooFilter;
using BloomPtr = std::unique_ptr<BloomFilter>;
using GrowingCuckooPtr = std::unique_ptr<ScalableCuckooFilter>;
using GrowingBloomPtr = std::unique_ptr<ScalableBloomFilter>;

namespace stack_off = cuckoo::format::stack_field;
namespace bloom_off = cuckoo::format::bloom_field;

// ---------------------------------------------------------------------------
// The byte-oriented API over std::string keys.

inline Status Add(ScalableCuckooFilter& f, const std::string& k) { return f.Add(U8(k), k.size()); }
inline bool Contain(const ScalableCuckooFilter& f, const std::string& k) {
  return f.Contain(U8(k), k.size());
}
inline Status Delete(ScalableCuckooFilter& f, const std::string& k) {
  return f.Delete(U8(k), k.size());
}
inline uint32_t Count(const ScalableCuckooFilter& f, const std::string& k) {
  return f.Count(U8(k), k.size());
}
inline Status Add(ScalableBloomFilter& f, const std::string& k) { return f.Add(U8(k), k.size()); }
inline bool Contain(const ScalableBloomFilter& f, const std::string& k) {
  return f.Contain(U8(k), k.size());
}
inline uint64_t HashOf(const std::string& k, uint64_t seed) {
  return cuckoo::HashKey(U8(k), k.size(), seed);
}
inline void Add(BloomFilter& f, const std::string& k) { f.AddHash(HashOf(k, f.seed())); }
inline bool Contain(const BloomFilter& f, const std::string& k) {
  return f.ContainHash(HashOf(k, f.seed()));
}

inline BloomParams Bloom(uint64_t capacity, double rate, uint64_t seed = 1,
                         BloomPositions positions = BloomPositions::kIndependent) {
  BloomParams p;
  p.capacity = capacity;
  p.false_positive_rate = rate;
  p.seed = seed;
  p.positions = positions;
  return p;
}

inline ScalableBloomParams GrowingBloom(uint64_t capacity, double rate, uint32_t expansion,
                                        uint64_t seed = 1) {
  ScalableBloomParams p;
  p.capacity = capacity;
  p.false_positive_rate = rate;
  p.expansion = expansion;
  p.seed = seed;
  return p;
}

// Creates a filter; records a test failure (and returns null) if Create refuses.
inline BloomPtr MakeBloom(const BloomParams& p) {
  BloomPtr f;
  const Status s = BloomFilter::Create(p, &f);
  EXPECT_EQ(s, Status::kOk) << "capacity " << p.capacity << " rate " << p.false_positive_rate;
  return s == Status::kOk ? std::move(f) : nullptr;
}
inline GrowingCuckooPtr MakeGrowing(const CuckooParams& p, uint32_t expansion) {
  GrowingCuckooPtr f;
  const Status s = ScalableCuckooFilter::Create(p, expansion, &f);
  EXPECT_EQ(s, Status::kOk) << "capacity " << p.capacity << " f " << p.fingerprint_bits << " b "
                            << p.bucket_size << " expansion " << expansion;
  return s == Status::kOk ? std::move(f) : nullptr;
}
inline GrowingBloomPtr MakeGrowingBloom(const ScalableBloomParams& p) {
  GrowingBloomPtr f;
  const Status s = ScalableBloomFilter::Create(p, &f);
  EXPECT_EQ(s, Status::kOk) << "capacity " << p.capacity << " rate " << p.false_positive_rate
                            << " expansion " << p.expansion;
  return s == Status::kOk ? std::move(f) : nullptr;
}

inline Bytes Serialize(const ScalableCuckooFilter& f) {
  Bytes out(f.SerializedSize());
  f.Serialize(out.data());
  return out;
}
inline Bytes Serialize(const ScalableBloomFilter& f) {
  Bytes out(f.SerializedSize());
  f.Serialize(out.data());
  return out;
}

// Deserializes from an exactly-sized heap copy, so AddressSanitizer flags any
// read past `bytes.size()`.
template <typename Filter>
Status LoadAs(const Bytes& bytes, std::unique_ptr<Filter>* out) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[bytes.size() == 0 ? 1 : bytes.size()]);
  if (!bytes.empty()) std::memcpy(copy.get(), bytes.data(), bytes.size());
  return Filter::Deserialize(copy.get(), bytes.size(), out);
}

// Statuses Deserialize may refuse bytes with (the kFormat* of every version,
// kFormatWrongFamily, and kOutOfMemory).
inline bool IsRefusal(Status s) {
  const int v = static_cast<int>(s);
  return s == Status::kOutOfMemory || s == Status::kFormatWrongFamily ||
         (v >= static_cast<int>(Status::kFormatTruncated) &&
          v <= static_cast<int>(Status::kFormatBadPadding));
}

// The count of the sub-filters' sizes, for a filter whose keys are all distinct.
inline uint64_t SubFilterSizes(const ScalableCuckooFilter& f) {
  uint64_t n = 0;
  for (uint32_t j = 0; j < f.sub_filter_count(); ++j) n += f.sub_filter(j).size();
  return n;
}

// ---------------------------------------------------------------------------
// Refusing allocations through the core's hook (src/common/allocation.h).

struct AllocationPlan {
  size_t fail_at = SIZE_MAX;           // refuse allocation number fail_at (0-based)
  size_t fail_above_bytes = SIZE_MAX;  // refuse every allocation larger than this
  bool fail_all = false;
};

inline AllocationPlan g_allocation_plan;
inline size_t g_allocation_calls = 0;
inline size_t g_allocation_refusals = 0;
inline size_t g_largest_request = 0;

inline bool PlannedAllocation(size_t bytes) {
  const size_t call = g_allocation_calls++;
  if (bytes > g_largest_request) g_largest_request = bytes;
  const AllocationPlan& p = g_allocation_plan;
  const bool refuse = p.fail_all || call == p.fail_at || bytes > p.fail_above_bytes;
  if (refuse) ++g_allocation_refusals;
  return !refuse;
}

// Installs `plan` for the core's allocations while in scope.
class ScopedAllocationPlan {
 public:
  explicit ScopedAllocationPlan(const AllocationPlan& plan) {
    g_allocation_plan = plan;
    g_allocation_calls = 0;
    g_allocation_refusals = 0;
    g_largest_request = 0;
    cuckoo::internal::SetAllocationHookForTesting(&PlannedAllocation);
  }
  ~ScopedAllocationPlan() { cuckoo::internal::SetAllocationHookForTesting(nullptr); }
  ScopedAllocationPlan(const ScopedAllocationPlan&) = delete;
  ScopedAllocationPlan& operator=(const ScopedAllocationPlan&) = delete;

  size_t calls() const { return g_allocation_calls; }
  size_t refused() const { return g_allocation_refusals; }
  size_t largest() const { return g_largest_request; }
};

inline AllocationPlan AllowAll() { return AllocationPlan(); }
inline AllocationPlan FailAllocation(size_t n) {
  AllocationPlan p;
  p.fail_at = n;
  return p;
}
inline AllocationPlan FailAbove(size_t bytes) {
  AllocationPlan p;
  p.fail_above_bytes = bytes;
  return p;
}

// ---------------------------------------------------------------------------
// Version-2 files from hand-chosen fields (docs/FORMAT.md §11), written here
// from the spec with this file's own little-endian writer (PutLE), so that a
// test can seal a file whose one field under test is wrong.

// A cuckoo section: a whole version-1 file with an empty table (or `table`).
struct CuckooSectionSpec {
  uint32_t f = 8;
  uint32_t b = 4;
  uint32_t m = 4;
  uint32_t max_kicks = 500;
  uint64_t seed = 1;
  uint64_t capacity = 10;
  uint64_t item_count = 0;
  uint64_t rng_state = 1;
  uint32_t victim_fp = 0;
  uint32_t victim_bucket = 0;
  Bytes table;  // empty: all-zero table of the right length

  Bytes Write() const {
    const uint64_t t = (uint64_t{m} * b * f + 7) / 8;
    Bytes out(format::kCuckooHeaderBytes + t + format::kChecksumBytes, 0);
    std::memcpy(out.data(), "CKOO", 4);
    PutLE(&out, off::kVersion, 2, 1);
    PutLE(&out, off::kHashId, 1, 1);
    PutLE(&out, off::kEncoding, 1, 0);
    PutLE(&out, off::kFingerprintBits, 1, f);
    PutLE(&out, off::kBucketSize, 1, b);
    PutLE(&out, off::kBucketCount, 4, m);
    PutLE(&out, off::kMaxKicks, 4, max_kicks);
    PutLE(&out, off::kVictimFingerprint, 4, victim_fp);
    PutLE(&out, off::kVictimBucket, 4, victim_bucket);
    PutLE(&out, off::kSeed, 8, seed);
    PutLE(&out, off::kCapacity, 8, capacity);
    PutLE(&out, off::kItemCount, 8, item_count);
    PutLE(&out, off::kRngState, 8, rng_state);
    PutLE(&out, off::kTableBytes, 8, t);
    for (size_t i = 0; i < table.size() && i < t; ++i) out[format::kCuckooHeaderBytes + i] = table[i];
    Reseal(&out);
    return out;
  }
};

// A Bloom section: the 48-byte section header and the bit array (zero, or `words`).
struct BloomSectionSpec {
  uint32_t k = 3;
  uint32_t reserved = 0;
  uint64_t m = 100;
  uint64_t capacity = 10;
  uint64_t item_count = 0;
  double rate = 0.01;
  uint64_t word_bytes = UINT64_MAX;  // UINT64_MAX: ceil(m / 64) * 8
  Bytes words;                       // shorter than word_bytes: zero-filled

  uint64_t WordBytes() const { return word_bytes != UINT64_MAX ? word_bytes : (m + 63) / 64 * 8; }
  Bytes Write() const {
    const uint64_t w = WordBytes();
    Bytes out(format::kBloomSectionHeaderBytes + w, 0);
    PutLE(&out, bloom_off::kHashCount, 4, k);
    PutLE(&out, bloom_off::kReserved, 4, reserved);
    PutLE(&out, bloom_off::kBitCount, 8, m);
    PutLE(&out, bloom_off::kCapacity, 8, capacity);
    PutLE(&out, bloom_off::kItemCount, 8, item_count);
    uint64_t bits;
    std::memcpy(&bits, &rate, sizeof bits);
    PutLE(&out, bloom_off::kFalsePositiveRate, 8, bits);
    PutLE(&out, bloom_off::kWordBytes, 8, w);
    for (size_t i = 0; i < words.size() && i < w; ++i) {
      out[format::kBloomSectionHeaderBytes + i] = words[i];
    }
    return out;
  }
};

struct StackFile {
  uint16_t version = 2;
  uint8_t type = format::kTypeCuckoo;
  uint8_t count = 0xff;  // 0xff: the number of sections
  uint32_t expansion = 2;
  uint32_t reserved = 0;
  uint64_t seed = 1;
  std::vector<Bytes> sections;

  Bytes Write() const {
    Bytes out(format::kStackHeaderBytes, 0);
    std::memcpy(out.data(), "CKOO", 4);
    PutLE(&out, 4, 2, version);
    PutLE(&out, stack_off::kType, 1, type);
    PutLE(&out, stack_off::kSubFilterCount, 1, count != 0xff ? count : sections.size());
    PutLE(&out, stack_off::kExpansion, 4, expansion);
    PutLE(&out, stack_off::kReserved, 4, reserved);
    PutLE(&out, stack_off::kSeed, 8, seed);
    for (const Bytes& s : sections) out.insert(out.end(), s.begin(), s.end());
    out.resize(out.size() + format::kChecksumBytes);
    Reseal(&out);
    return out;
  }
};

// Where each section of a well-formed version-2 file starts (and, last, where
// the checksum starts), found by walking the length fields as a reader does.
inline std::vector<size_t> SectionOffsets(const Bytes& file) {
  std::vector<size_t> at;
  const uint8_t type = file.at(stack_off::kType);
  const uint32_t count = file.at(stack_off::kSubFilterCount);
  size_t p = format::kStackHeaderBytes;
  for (uint32_t j = 0; j < count; ++j) {
    at.push_back(p);
    p += type == format::kTypeCuckoo
             ? static_cast<size_t>(format::kCuckooHeaderBytes + GetLE(file, p + off::kTableBytes, 8) +
                                   format::kChecksumBytes)
             : static_cast<size_t>(format::kBloomSectionHeaderBytes +
                                   GetLE(file, p + bloom_off::kWordBytes, 8));
  }
  at.push_back(p);
  return at;
}

// Recomputes every checksum of a version-2 file: each cuckoo section's own,
// then the file's. Returns false if the file's sections do not fit.
inline bool ResealAll(Bytes* file) {
  if (file->size() < format::kStackHeaderBytes + format::kChecksumBytes) return false;
  const uint8_t type = file->at(stack_off::kType);
  const uint32_t count = file->at(stack_off::kSubFilterCount);
  const size_t body = file->size() - format::kChecksumBytes;
  size_t p = format::kStackHeaderBytes;
  for (uint32_t j = 0; j < count; ++j) {
    if (type == format::kTypeCuckoo) {
      if (body - p < format::kCuckooHeaderBytes) return false;
      const uint64_t t = GetLE(*file, p + off::kTableBytes, 8);
      if (t > body - p - format::kCuckooHeaderBytes - format::kChecksumBytes) return false;
      const size_t sealed = static_cast<size_t>(format::kCuckooHeaderBytes + t);
      PutLE(file, p + sealed, 8, cuckoo::Checksum(file->data() + p, sealed));
      p += sealed + format::kChecksumBytes;
    } else {
      if (body - p < format::kBloomSectionHeaderBytes) return false;
      const uint64_t w = GetLE(*file, p + bloom_off::kWordBytes, 8);
      if (w > body - p - format::kBloomSectionHeaderBytes) return false;
      p += static_cast<size_t>(format::kBloomSectionHeaderBytes + w);
    }
  }
  Reseal(file);
  return true;
}

}  // namespace cuckoo_test

#endif  // CUCKOO_WASM_TESTS_NATIVE_GROWTH_TEST_UTIL_H_
