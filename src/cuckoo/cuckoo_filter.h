// CuckooFilter: an approximate-membership set with deletion, by partial-key
// cuckoo hashing (Fan, Andersen, Kaminsky, Mitzenmacher, "Cuckoo Filter:
// Practically Better Than Bloom", CoNEXT 2014).
//
// Each key gets one 64-bit hash h = XXH3-64(key bytes, seed) (hash.h), from
// which its fingerprint and two buckets follow (cuckoo_keys.h). Inserting into
// two full buckets kicks fingerprints to their alternate buckets (§3.1), with a
// one-slot victim so that no stored fingerprint is ever lost (cuckoo_core.h,
// RandomWalkEviction). Lookup (§3.2) checks both buckets and the victim; the
// false-positive rate is about 2b / 2^f at full load (§5.1). The buckets are
// stored as the parameters' TableEncoding says (cuckoo_tables.h).
//
// A filter that grows (scalable_filter.h) chains cuckoo filters of levels
// 0, 1, 2, ... whose key derivations refine each other (cuckoo_keys.h); a
// filter made by Create or loaded from a version-1 file is level 0.
//
// Not thread-safe; non-copyable. Byte layout: docs/FORMAT.md §2-§4, written
// and read by cuckoo_format.h.
#ifndef CUCKOO_WASM_SRC_CUCKOO_CUCKOO_FILTER_H_
#define CUCKOO_WASM_SRC_CUCKOO_CUCKOO_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "common/allocation.h"
#include "cuckoo/cuckoo_core.h"
#include "cuckoo/cuckoo_keys.h"
#include "cuckoo/cuckoo_params.h"
#include "cuckoo/cuckoo_tables.h"
#include "status.h"

namespace cuckoo {

namespace format {
struct CuckooHeader;
}  // namespace format

class CuckooFilter {
 public:
  // Load factor alpha the table is sized to reach at `capacity` items, per
  // bucket size b (0.84, 0.96, 0.98 for b = 2, 4, 8; the paper measures 84%,
  // 95%, 98% with plain random-walk eviction, §5.1 Fig. 3; one-step lookahead before
  // each kick lifts b = 4 to ~97%).
  static double TargetLoadFactor(uint32_t bucket_size);

  // Buckets m for `capacity` items: ceil((capacity / alpha + c*sqrt(capacity)) / b),
  // c = 2 (4 for b = 2). Returns 0 if capacity is 0, b invalid, or m > kMaxBucketCount.
  static uint64_t BucketCountFor(uint64_t capacity, uint32_t bucket_size);

  // Bytes toBytes() produces for a filter of these parameters: header, table
  // (ceil(m*b*f/8) bytes when packed), checksum. Returns 0 for parameters
  // Create refuses.
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
  // table cannot be allocated; kFormatWrongFamily for the bytes of another
  // filter family. On error `*out` is untouched, nothing stays allocated, and
  // the status names the first problem found (kFormat*, kOutOfMemory).
  static Status Deserialize(const uint8_t* data, size_t len, std::unique_ptr<CuckooFilter>* out);

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

  // A key's hash, as Contain computes it (common/batch.h's GroupLookup).
  using Hashed = uint64_t;
  Hashed HashOf(const uint8_t* key, size_t len) const { return HashKey(key, len, params_.seed); }
  // out[i] = 1 if the key of hashes[i] (HashOf) may be in the filter, else
  // 0, for m <= kLookupGroup keys: their probes, the touch of their buckets
  // when the table has kGroupFromBytes or more (common/batch.h), then the
  // lookups.
  __attribute__((noinline)) void ContainHashes(const uint64_t* hashes, size_t m,
                                               uint8_t* out) const;
  // results[k] = Contain(key k) for the same layout as AddBatch: the keys
  // probed kLookupGroup at a time (ContainHashes) if the filter has
  // kGroupFromBytes or more (common/batch.h), else one by one.
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
  TableEncoding encoding() const { return params_.encoding; }
  bool victim_used() const { return eviction_.victim_used(); }
  // Fraction of slots holding a fingerprint (the paper's alpha), victim excluded.
  double load_factor() const {
    return static_cast<double>(size_ - victim_used()) / static_cast<double>(slot_count());
  }

 private:
  // The growth layer (growth_families.h) and the tests' window on the levels
  // (src/testing/cuckoo_peer.h).
  friend struct CuckooFamily;
  friend struct CuckooFilterPeer;
  using Eviction = RandomWalkEviction;

  CuckooFilter() = default;
  // What Create, Deserialize and CuckooFamily::CreateLevel share: a level-0
  // filter of `params` with `bucket_count` buckets (params valid,
  // bucket_count in [1, kMaxBucketCount]), an empty table, no victim, no
  // item, and the eviction PRNG at its initial state (the seed). The filter
  // and its table are blocks from internal::AllocateZeroed; kOutOfMemory
  // (nothing left allocated, *out untouched) if either cannot be had.
  static Status Make(const CuckooParams& params, uint64_t bucket_count,
                     std::unique_ptr<CuckooFilter>* out);

  // The filter's state as a serialized header describes it.
  format::CuckooHeader Header() const;
  CuckooShape shape() const { return CuckooShape{params_.bucket_size, params_.max_kicks}; }

  // Add, Contain, Delete and Count of a key given by its probe at this level
  // (the algorithm of cuckoo_core.h over this filter's table).
  template <class Table>
  using Algorithm = CuckooAlgorithm<Table, LevelKeys, Eviction>;
  Probe ProbeOf(uint64_t hash) const { return keys_.Of(hash); }
  Status AddProbe(const Probe& p) {
    return table_.Visit([&](auto& t) {
      return Algorithm<std::decay_t<decltype(t)>>::Add(t, keys_, eviction_, shape(), p, &size_);
    });
  }
  // The lookup: the default encoding's table's (table_encodings.def, id 0)
  // inlined into the caller, any other one call away (the probe passed as
  // three integers, so that nothing is written to memory before the branch),
  // so that the default table's lookup is as small as if it were the only table.
  bool ContainProbe(const Probe& p) const {
    if (const DefaultTable* t = table_.default_table()) {
      return Algorithm<DefaultTable>::Contain(*t, eviction_, p);
    }
    return ContainProbeInOtherTable(p.fingerprint, p.i1, p.i2);
  }
  __attribute__((noinline)) bool ContainProbeInOtherTable(uint32_t fingerprint, uint32_t i1,
                                                          uint32_t i2) const {
    const Probe p{fingerprint, i1, i2};
    return table_.Visit([&](const auto& t) {
      return Algorithm<std::decay_t<decltype(t)>>::Contain(t, eviction_, p);
    });
  }
  Status DeleteProbe(const Probe& p) {
    return table_.Visit([&](auto& t) {
      return Algorithm<std::decay_t<decltype(t)>>::Delete(t, keys_, eviction_, shape(), p,
                                                          &size_);
    });
  }
  uint32_t CountProbe(const Probe& p) const {
    return table_.Visit([&](const auto& t) {
      return Algorithm<std::decay_t<decltype(t)>>::Count(t, eviction_, p);
    });
  }

  CuckooParams params_;
  uint32_t bucket_count_ = 0;
  uint64_t size_ = 0;
  LevelKeys keys_;
  Eviction eviction_;
  AnyTable table_;
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_CUCKOO_CUCKOO_FILTER_H_
