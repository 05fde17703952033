// BinaryFuseFilter: a static set as a binary fuse filter (Graf and Lemire,
// "Binary Fuse Filters: Fast and Smaller Than Xor Filters", ACM JEA 2022),
// written from the paper: an array of about 1.125 n (three-wise) or 1.075 n
// (four-wise) f-bit values such that each of the n keys' fingerprint is the
// XOR of the values at its three (four) slots (fuse_keys.h). A lookup reads
// `arity` values and compares, with no branch on the table; a non-member
// matches with probability 2^-f. There is no insert or delete: the table is
// built once from every key, in time linear in n (§3: the keys are peeled
// off slots that only one of them uses, then assigned in reverse order).
//
// A filter is made in two steps, so that the keys can arrive a batch at a
// time (the JS/WASM boundary's add batches):
//  - Create with params.from == 0 makes a *collecting* filter: Add and
//    AddBatch keep each key's 64-bit hash (XXH3-64 with the seed; 8 bytes a
//    key); it holds no table yet, and answers and serializes as the filter of
//    no keys.
//  - Create with params.from naming that collecting filter (its address, the
//    bindings' handle) builds the table of its keys (Build), and leaves the
//    collecting filter empty.
// Native callers may call Build with the hashes themselves. Duplicate keys
// count once (their hashes are sorted and made unique first). A table whose
// keys do not all peel (a rare seed: under 1% of the sizes here) is built
// again with the next construction seed, a SplitMix64 sequence from the
// filter's seed, so the same keys and parameters always give the same bytes.
//
// Byte layout: fuse_format.h (docs/FORMAT.md, "Binary fuse filter (family
// 5)"). Not thread-safe; non-copyable; every block from internal::Allocate*.
#ifndef CUCKOO_WASM_SRC_FUSE_BINARY_FUSE_FILTER_H_
#define CUCKOO_WASM_SRC_FUSE_BINARY_FUSE_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/allocation.h"
#include "common/hash.h"
#include "fuse/fuse_format.h"
#include "fuse/fuse_keys.h"
#include "fuse/fuse_layout.h"
#include "status.h"

namespace cuckoo {

// The arity a filter is built with unless its parameters say otherwise
// (bench/results/fuse.md): four-wise is 5% smaller than three-wise, and as
// fast through the JS/WASM boundary, where the call dominates; natively its
// fourth read makes a lookup 10-18% slower with the table in cache.
constexpr uint32_t kDefaultFuseArity = 4;
// Most keys a filter holds: its table then stays below 2^32 slots and 1 GiB.
constexpr uint64_t kMaxFuseKeys = uint64_t{1} << 28;
// Construction seeds tried before Build gives up (each fails with
// probability under 1% for a set without duplicates).
constexpr uint32_t kMaxFuseAttempts = 64;

struct BinaryFuseParams {
  uint32_t fingerprint_bits = 8;  // f, 8..16: ε = 2^-f
  uint32_t arity = kDefaultFuseArity;  // 3 or 4
  uint64_t seed = kDefaultSeed;   // the keys' hash seed
  // Create only: 0 for a new collecting filter; else the address of a
  // collecting BinaryFuseFilter of the same seed (a live one: the bindings
  // pass their own handle) whose keys the new filter is built from.
  uint64_t from = 0;

  // Each field create() takes, by its name there (bindings/embind.cc).
  template <typename Visit>
  void Fields(Visit&& visit) {
    visit("fingerprintBits", fingerprint_bits);
    visit("arity", arity);
    visit("seed", seed);
    visit("from", from);
  }
};

class BinaryFuseFilter {
 public:
  using Params = BinaryFuseParams;

  // A collecting filter (params.from == 0), or the filter built from the
  // collecting filter at params.from (as Build; that filter is then left
  // empty, or on an error keeps its keys, duplicates dropped).
  // kInvalidArgument if f is not 8..16, the arity not 3 or 4, or params.from
  // names no collecting filter of params.seed; Build's statuses.
  static Status Create(const Params& params, std::unique_ptr<BinaryFuseFilter>* out);

  // The filter of the keys whose hashes (HashKey with params.seed) are
  // hashes[0, n): sorts them (a radix sort, through a scratch block of 8 bytes
  // a hash, freed before the peeling's) and drops duplicates in place. kInvalidArgument
  // as Create (params.from is not read); kGrowthLimit past kMaxFuseKeys
  // distinct keys; kNotEnoughSpace if no construction seed of
  // kMaxFuseAttempts peels every key; kOutOfMemory. Nothing stays allocated
  // on an error.
  static Status Build(const Params& params, uint64_t* hashes, size_t n,
                      std::unique_ptr<BinaryFuseFilter>* out);

  // Loads the bytes Serialize writes (version 4, family 5): every check of
  // FORMAT.md §14 and ReadFuseSection; the scheme byte must be the section's
  // arity. kFormatWrongFamily for another family's bytes.
  static Status Deserialize(const uint8_t* data, size_t len, std::unique_ptr<BinaryFuseFilter>* out);

  BinaryFuseFilter(const BinaryFuseFilter&) = delete;
  BinaryFuseFilter& operator=(const BinaryFuseFilter&) = delete;
  static void* operator new(size_t) = delete;
  static void* operator new[](size_t) = delete;
  static void operator delete(void* p) { internal::Deallocate(p); }
  ~BinaryFuseFilter();

  // A collecting filter keeps the key's hash (kGrowthLimit past kMaxFuseKeys
  // keys, kOutOfMemory; the key is then not kept); a built one takes no key
  // (kInvalidArgument: it is static).
  Status Add(const uint8_t* key, size_t len);
  // Add over keys packed as common/batch.h describes: stops at the first
  // key refused, returns how many were kept.
  size_t AddBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, Status* status,
                  bool /*continues*/ = false);
  // True for every key the table was built from; for another key, with
  // probability 2^-f. False for every key while the filter has no keys.
  bool Contain(const uint8_t* key, size_t len) const { return ContainHash(HashOf(key, len)); }
  using Hashed = uint64_t;
  Hashed HashOf(const uint8_t* key, size_t len) const { return HashKey(key, len, seed_); }
  bool ContainHash(uint64_t hash) const;
  // out[i] = ContainHash(hashes[i]) for m <= kLookupGroup keys, after the
  // touch of their slots when the filter has kGroupFromBytes or more
  // (common/batch.h).
  void ContainHashes(const uint64_t* hashes, size_t m, uint8_t* out) const;
  // results[k] = 1 if key k (batch.h's layout) may be in the filter, else 0:
  // kLookupGroup keys at a time (ContainHashes) if the filter has
  // kGroupFromBytes or more, else one by one.
  void ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, uint8_t* results) const;

  uint64_t SerializedSize() const;
  void Serialize(uint8_t* out) const;

  // Distinct keys in the table (0 while collecting).
  uint64_t size() const { return key_count_; }
  // Hashes a collecting filter holds (duplicates included).
  uint64_t pending() const { return pending_count_; }
  bool collecting() const { return check_ != 0; }
  uint64_t capacity() const { return key_count_; }
  uint32_t sub_filter_count() const { return 1; }
  const BinaryFuseFilter& sub_filter(uint32_t) const { return *this; }
  uint32_t expansion() const { return 0; }
  uint64_t seed() const { return seed_; }
  uint32_t fingerprint_bits() const { return shape_.fingerprint_bits; }
  uint32_t arity() const { return shape_.arity; }
  uint32_t segment_length() const { return shape_.segment_length; }
  uint32_t segment_count() const { return segment_count_; }
  uint64_t array_length() const { return array_length_; }
  uint64_t construction_seed() const { return construction_seed_; }
  uint64_t fingerprint_bytes() const { return FuseFingerprintBytes(array_length_, shape_.fingerprint_bits); }
  // 2^-f, the probability that a key not in the table is reported.
  double false_positive_rate() const { return 1.0 / static_cast<double>(uint32_t{1} << shape_.fingerprint_bits); }
  // The table, fingerprint_bytes() bytes (and 8 of padding: FuseGet reads 3 past the last value's first byte).
  const uint8_t* fingerprints() const { return table_; }

 private:
  BinaryFuseFilter() = default;
  // A filter of `layout`'s shape with a zeroed table (kOutOfMemory).
  static Status Make(const Params& params, const FuseLayout& layout, std::unique_ptr<BinaryFuseFilter>* out);
  // Sorts hashes[0, n) and moves each value's first copy to the front:
  // *unique, how many. kOutOfMemory (for the sort's scratch block of n
  // hashes; nothing changed).
  static Status SortUnique(uint64_t* hashes, size_t n, size_t* unique);
  // Build of n sorted distinct hashes.
  static Status BuildUnique(const Params& params, const uint64_t* hashes, size_t n,
                            std::unique_ptr<BinaryFuseFilter>* out);
  // Room for one more pending hash (Add's rare path): kInvalidArgument if
  // the filter is not collecting, kGrowthLimit at kMaxFuseKeys hashes,
  // kOutOfMemory.
  Status GrowPending();
  // One construction attempt with construction_seed_: true if every key
  // peeled (the table is then filled).
  bool Peel(const uint64_t* hashes, size_t n, uint32_t* counts, uint64_t* xors, uint32_t* alone,
            uint64_t* order, uint8_t* order_slot);

  FuseShape shape_;
  uint32_t segment_count_ = 0;
  uint64_t array_length_ = 0;
  uint64_t construction_seed_ = 0;
  uint64_t key_count_ = 0;
  uint64_t seed_ = 0;
  uint8_t* table_ = nullptr;  // fingerprint_bytes() + kTablePadding bytes
  // Collecting: the keys' hashes, and this filter's address XOR
  // kCollectingCheck (0 once built or loaded), which Create's `from` checks.
  uint64_t* pending_ = nullptr;
  uint64_t pending_count_ = 0;
  uint64_t pending_capacity_ = 0;
  uint64_t check_ = 0;
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_FUSE_BINARY_FUSE_FILTER_H_
