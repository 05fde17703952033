// RedisCuckooFilter: RedisBloom's cuckoo filter (CF.*), answering and dumping
// byte for byte as the server does (docs/FORMAT.md, "Redis cuckoo filter";
// the facts come from the server's documentation and recorded dumps,
// ../shared/redis/, not from its code).
//
// It is the one cuckoo algorithm (cuckoo_core.h) over three policies of its
// own, and the one growth layer (growing_filter.h) over its family:
//   ByteTable          one byte per slot, any bucket size 1..255 (byte_table.h)
//   RedisKeys          h = MurmurHash64A(key, seed 0); fingerprint h % 255 + 1;
//                      bucket h mod n; Alt(i, fp) = (i XOR fp * 0x5bd1e995) mod n,
//                      n a power of two
//   RedisKickEviction  rotating victim from slot 0, at most maxIterations
//                      swaps, a failed chain rolled back exactly, no stash
//   RedisCuckooFamily  sub-filter j has n0 * e^j buckets (e = expansion rounded
//                      up to a power of two); an add takes the first free slot
//                      of any sub-filter, newest first, then kicks in the newest,
//                      then grows (a command that starts with 32 sub-filters
//                      is refused; one command grows on, to 255)
// Not thread-safe; non-copyable.
#ifndef CUCKOO_WASM_SRC_REDIS_REDIS_CUCKOO_H_
#define CUCKOO_WASM_SRC_REDIS_REDIS_CUCKOO_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/allocation.h"
#include "redis/byte_table.h"
#include "cuckoo/cuckoo_core.h"
#include "cuckoo/cuckoo_keys.h"
#include "format/format.h"
#include "redis/redis_cuckoo_format.h"
#include "growth/growing_filter.h"
#include "redis/redis_dump.h"
#include "status.h"

namespace cuckoo {

// CF.RESERVE's arguments, with its defaults. Ranges (Redis 8): capacity >= 1
// with the first table (next power of two of capacity / bucket_size buckets)
// within 1 GiB; bucket_size 1..255; max_iterations 1..65535; expansion 0..32768
// (0: never grows; else rounded up to a power of two, as the server stores it:
// EXPANSION 3 is 4 in CF.INFO, the dump and the sub-filters' sizes).
struct RedisCuckooParams {
  uint64_t capacity = 0;
  uint32_t bucket_size = 2;
  uint32_t max_iterations = 20;
  uint32_t expansion = 1;

  // Each field create() takes, by its name there (bindings/embind.cc).
  template <typename Visit>
  void Fields(Visit&& visit) {
    visit("capacity", capacity);
    visit("bucketSize", bucket_size);
    visit("maxIterations", max_iterations);
    visit("expansion", expansion);
  }
};

// The key policy of one sub-filter of n (a power of two) buckets.
class RedisKeys {
 public:
  static constexpr uint64_t kAltMultiplier = 0x5bd1e995;
  explicit RedisKeys(uint64_t bucket_count = 1) : mask_(bucket_count - 1) {}
  static uint32_t Fingerprint(uint64_t hash) { return static_cast<uint32_t>(hash % 255 + 1); }
  // The probe of `hash` in this sub-filter.
  Probe Of(uint64_t hash) const {
    Probe p;
    p.fingerprint = Fingerprint(hash);
    p.i1 = static_cast<uint32_t>(hash & mask_);
    p.i2 = Alt(p.i1, p.fingerprint);
    return p;
  }
  // x mod n: the bucket that bucket x of a sub-filter of more buckets (a
  // multiple of n) folds onto here.
  uint32_t Fold(uint64_t x) const { return static_cast<uint32_t>(x & mask_); }
  // (bucket XOR fp * 0x5bd1e995) mod n: an involution for n a power of two.
  uint32_t Alt(uint32_t bucket, uint32_t fingerprint) const {
    return static_cast<uint32_t>((bucket ^ (fingerprint * kAltMultiplier)) & mask_);
  }

 private:
  uint64_t mask_;
};

// The server's kick rule: with both buckets full, carry the fingerprint into
// slot v of bucket i (v = 0, 1, ..., b - 1, 0, ... in turn, starting at bucket
// i1), take the slot's fingerprint to its alternate bucket, and store it in
// that bucket's first empty slot if it has one; at most max_kicks swaps. A
// chain that fails is undone swap by swap (the table is exactly as before)
// and the key is refused with kNotEnoughSpace. Nothing is stashed.
class RedisKickEviction {
 public:
  template <class Table, class Keys>
  Status Place(Table& table, const Keys& keys, const CuckooShape& shape, uint32_t bucket,
               uint32_t fingerprint) {
    if (table.Insert(bucket, fingerprint)) return Status::kOk;
    if (table.Insert(keys.Alt(bucket, fingerprint), fingerprint)) return Status::kOk;
    uint32_t i = bucket;
    uint32_t current = fingerprint;
    uint32_t slot = 0;
    for (uint32_t kick = 0; kick < shape.max_kicks; ++kick) {
      current = table.Swap(i, slot, current);
      i = keys.Alt(i, current);
      if (table.Insert(i, current)) return Status::kOk;
      slot = slot + 1 == shape.bucket_size ? 0 : slot + 1;
    }
    // Undo: swap k went into slot k mod b of the bucket that the carried
    // fingerprint's alternate leads back to.
    for (uint32_t kick = shape.max_kicks; kick-- > 0;) {
      i = keys.Alt(i, current);
      current = table.Swap(i, kick % shape.bucket_size, current);
    }
    return Status::kNotEnoughSpace;
  }
  bool Stashed(const Probe&) const { return false; }
  uint32_t StashCount(const Probe&) const { return 0; }
  bool TakeStashed(const Probe&) { return false; }
  template <class Table, class Keys>
  void SlotFreed(Table&, const Keys&, const CuckooShape&) {}
};

// One sub-filter: a ByteTable of n buckets, its keys and its item count.
// Sub-filter 0 also counts the filter's deletes (CF.INFO's "Number of items
// deleted").
class RedisCuckooSub {
 public:
  using Algorithm = CuckooAlgorithm<ByteTable, RedisKeys, RedisKickEviction>;

  RedisCuckooSub(const RedisCuckooSub&) = delete;
  RedisCuckooSub& operator=(const RedisCuckooSub&) = delete;
  static void* operator new(size_t) = delete;
  static void operator delete(void* p) { internal::Deallocate(p); }

  // An empty sub-filter of `bucket_count` (a power of two) buckets; the
  // caller has checked the ranges. kOutOfMemory if it cannot be allocated.
  static Status Make(uint64_t bucket_count, uint32_t bucket_size, uint32_t max_iterations,
                     std::unique_ptr<RedisCuckooSub>* out);

  Status AddProbe(const Probe& p) {
    return Algorithm::Add(table_, keys_, eviction_, shape_, p, &size_);
  }
  // Stores the fingerprint in the first empty slot of i1, else of i2; false
  // (nothing changed) if both are full.
  bool AddIfFree(const Probe& p) {
    if (!table_.Insert(p.i1, p.fingerprint) && !table_.Insert(p.i2, p.fingerprint)) return false;
    ++size_;
    return true;
  }
  // Compaction's move of fingerprint `fp` from bucket x of a newer (larger)
  // sub-filter: into the first empty slot of bucket x mod n, else of its
  // alternate bucket here (x's two buckets here are the key's). False,
  // nothing changed, if both are full.
  bool AddMoved(uint64_t x, uint32_t fp);
  bool ContainProbe(const Probe& p) const { return Algorithm::Contain(table_, eviction_, p); }
  // The fingerprint's matches in bucket i1 plus those in i2, twice where
  // i1 == i2 (CF.COUNT).
  uint32_t CountProbe(const Probe& p) const {
    return table_.Count(p.i1, p.fingerprint) + table_.Count(p.i2, p.fingerprint);
  }
  Status DeleteProbe(const Probe& p) {
    return Algorithm::Delete(table_, keys_, eviction_, shape_, p, &size_);
  }
  // Contain of each key, for a filter of this one sub-filter while it is
  // small enough for the caches (batch.h's layout; GrowingFilter::ContainBatch).
  void ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, uint8_t* results) const;
  // out[i] = ContainProbe(keys().Of(hashes[i])) for m <= kLookupGroup keys'
  // hashes: their probes, the touch of their buckets when the table has
  // kGroupFromBytes or more (common/batch.h), then the lookups.
  __attribute__((noinline)) void ContainHashes(const uint64_t* hashes, size_t m,
                                               uint8_t* out) const;

  const RedisKeys& keys() const { return keys_; }
  uint64_t size() const { return size_; }
  uint64_t bucket_count() const { return table_.bucket_count(); }
  uint32_t bucket_size() const { return shape_.bucket_size; }
  uint32_t max_iterations() const { return shape_.max_kicks; }
  uint64_t seed() const { return 0; }
  const ByteTable& table() const { return table_; }
  uint64_t deletes() const { return deletes_; }

 private:
  friend class RedisCuckooFilter;
  friend struct RedisCuckooFamily;
  RedisCuckooSub() = default;

  ByteTable table_;
  RedisKeys keys_;
  RedisKickEviction eviction_;
  CuckooShape shape_{0, 0};
  uint64_t size_ = 0;
  uint64_t deletes_ = 0;
};

// The Redis cuckoo family of the growth layer (growing_filter.h documents the
// interface).
struct RedisCuckooFamily : GrowthPolicy {
  using Sub = RedisCuckooSub;
  using Hashed = uint64_t;
  // Growth within one command is bounded by the file's count byte (and
  // kMaxFilterBytes); the server's limit of kCommandSubFilters is checked
  // at the start of each command (RedisCuckooFilter::Add).
  static constexpr uint32_t kMaxSubFilters = format::kMaxSubFilters;
  // One copy, called by every operation of a key.
  __attribute__((noinline)) static uint64_t Hash(const uint8_t* key, size_t len, uint64_t seed);
  // log2 of the growth factor: expansion rounded up to a power of two.
  static uint32_t GrowthShift(uint32_t expansion);
  // The growth factor as the server stores it: expansion rounded up to a
  // power of two (0 stays 0).
  static uint32_t ExpansionRate(uint32_t expansion) {
    return expansion == 0 ? 0 : uint32_t{1} << GrowthShift(expansion);
  }
  // A key's probe in sub-filter 0, 1, ...: bucket counts n0 << (shift * j).
  class Walk {
   public:
    Walk(const RedisCuckooSub& first, uint64_t hash, uint32_t expansion)
        : hash_(hash), bucket_count_(first.bucket_count()), shift_(GrowthShift(expansion)),
          probe_(RedisKeys(bucket_count_).Of(hash)) {}
    const Probe& key() const { return probe_; }
    void Next() {
      bucket_count_ <<= shift_;
      probe_ = RedisKeys(bucket_count_).Of(hash_);
    }

   private:
    uint64_t hash_;
    uint64_t bucket_count_;
    uint32_t shift_;
    Probe probe_;
  };
  static Status AddKey(RedisCuckooSub& f, const Probe& p) { return f.AddProbe(p); }
  static bool ContainKey(const RedisCuckooSub& f, const Probe& p) { return f.ContainProbe(p); }
  static void ContainGroup(const RedisCuckooSub& f, const uint64_t* hashes, size_t m,
                           uint8_t* out) {
    f.ContainHashes(hashes, m, out);
  }
  // Before kicking in the newest sub-filter, an add takes a free slot of any
  // sub-filter, newest first.
  static constexpr bool kFreeSlotInAnySubFilterFirst = true;
  static bool AddIfFree(RedisCuckooSub& f, const Probe& p) { return f.AddIfFree(p); }
  static bool FullBeforeAdd(const RedisCuckooSub&) { return false; }
  static bool GrowthHelps(const RedisCuckooSub&, const Probe&) { return true; }
  static Status MakeNext(const RedisCuckooSub& first, const RedisCuckooSub& newest, uint32_t level,
                         uint32_t expansion, uint64_t bytes_now,
                         std::unique_ptr<RedisCuckooSub>* next);
  static constexpr uint8_t kType = format::kTypeRedisCuckoo;
  static constexpr bool kPlainWhenFixed = false;
  static uint8_t Encoding(const RedisCuckooSub&) { return format::kEncodingRedisBytes; }
  static uint8_t Scheme(const RedisCuckooSub&) { return format::kSchemeRedisCuckoo; }
  static bool Writable(uint16_t, const RedisCuckooSub&, uint32_t) { return false; }
  static uint64_t SectionBytes(const RedisCuckooSub& f) {
    return format::RedisCuckooSectionBytes(f.table().byte_length());
  }
  static void WriteSection(const RedisCuckooSub& f, uint8_t* out);
  static Status LoadPlain(const uint8_t*, size_t, std::unique_ptr<RedisCuckooSub>*) {
    return Status::kFormatWrongFamily;
  }
  static Status LoadSection(const uint8_t* data, size_t len, const format::StackHeader& h,
                            uint32_t j, const RedisCuckooSub* prev, const RedisCuckooSub* first,
                            std::unique_ptr<RedisCuckooSub>* out);

  // Table bytes of sub-filters 0..count-1 (n0 << shift*j buckets of b
  // slots), or UINT64_MAX if that exceeds kMaxFilterBytes.
  static uint64_t TableBytes(uint64_t n0, uint32_t bucket_size, uint32_t shift, uint32_t count);
};

class RedisCuckooFilter final : public GrowingFilter<RedisCuckooFilter, RedisCuckooFamily> {
 public:
  using Params = RedisCuckooParams;
  // CF.RESERVE: an empty filter of one sub-filter of n0 buckets, n0 the
  // smallest power of two >= floor(capacity / bucket_size) (1 at least).
  // kInvalidArgument for a parameter outside RedisCuckooParams' ranges,
  // kOutOfMemory if it cannot be allocated.
  static Status Create(const RedisCuckooParams& params, std::unique_ptr<RedisCuckooFilter>* out);

  // The server's limit on growth, checked once at the start of each command
  // that adds (CF.ADD, CF.ADDNX, CF.INSERT, CF.INSERTNX): with this many
  // sub-filters or more the command is refused ("Maximum expansions
  // reached", kGrowthLimit) and adds nothing, even where a slot is free.
  // Within one command the filter grows past it (RedisCuckooFamily::
  // kMaxSubFilters, kMaxFilterBytes).
  static constexpr uint32_t kCommandSubFilters = format::kMaxGrowthSubFilters;

  // CF.ADD: kOk, kNotEnoughSpace for "Filter is full" (expansion 0),
  // kGrowthLimit for "Maximum expansions reached" (kCommandSubFilters at the
  // start, or growth past 255 sub-filters or 1 GiB of tables), kOutOfMemory;
  // a duplicate is stored again. Nothing changes unless kOk.
  Status Add(const uint8_t* key, size_t len) {
    if (count_ >= kCommandSubFilters) return Status::kGrowthLimit;
    return AddHash(RedisCuckooFamily::Hash(key, len, seed()));
  }
  // CF.INSERT: the limit checked once, then Add of each key packed as
  // batch.h describes, stopping at the first refused; how many went in,
  // *status why it stopped. `continues`: these keys go on one command whose
  // earlier keys came in an earlier call (no check then).
  size_t AddBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, Status* status,
                  bool continues = false) {
    if (!continues && n > 0 && count_ >= kCommandSubFilters) {
      *status = Status::kGrowthLimit;
      return 0;
    }
    return AddEach(keys, offsets, n, status, [this](const uint8_t* key, size_t len) {
      return AddHash(RedisCuckooFamily::Hash(key, len, seed()));
    });
  }

  // From the growth layer: Contain (CF.EXISTS), ContainBatch (CF.MEXISTS),
  // Serialize / Deserialize / SerializedSize (this library's format, version
  // 4, family 3: docs/FORMAT.md), size() (numItems), sub_filter_count(),
  // expansion() (rounded up to a power of two, as the server stores it),
  // seed() (0).

  // CF.ADDNX: the limit as Add; then *added = false, nothing changed, if
  // Contain(key); else Add.
  Status AddUnique(const uint8_t* key, size_t len, bool* added);
  // CF.DEL: empties the first slot holding the key's fingerprint, sub-filters
  // newest first, bucket i1 then i2. kOk, or kNotFound. After a delete that
  // leaves more than one sub-filter and deleted() > size() / 10, compacts
  // (CompactPass, stopping at the first sub-filter it cannot empty).
  Status Delete(const uint8_t* key, size_t len);
  // CF.COMPACT: CompactPass over every sub-filter from the newest down to
  // sub-filter 1, whatever the counts. Allocates nothing; cannot fail.
  void Compact() { CompactPass(/*stop_at_stuck=*/false); }
  // CF.COUNT: slots matching the key's fingerprint in its first bucket plus
  // those in its alternate bucket, of every sub-filter; where the two are the
  // same bucket its matches count twice, as the server counts them (so one
  // add of such a key counts 2).
  uint32_t Count(const uint8_t* key, size_t len) const;

  // "Expansion rate": the growth factor, a power of two (or 0), as the
  // server stores it. expansion() is the same but for a file of an earlier
  // release of this library, which may hold EXPANSION as given (3 for 4):
  // such a file is read and written as it is, and grows, dumps and answers
  // CF.INFO by the power of two.
  uint32_t expansion_rate() const { return RedisCuckooFamily::ExpansionRate(expansion_); }
  uint64_t bucket_count() const { return subs_[0]->bucket_count(); }  // "Number of buckets"
  uint64_t deleted() const { return subs_[0]->deletes(); }            // "Number of items deleted"
  uint32_t bucket_size() const { return subs_[0]->bucket_size(); }
  uint32_t max_iterations() const { return subs_[0]->max_iterations(); }
  // CF.INFO "Size": table bytes + 40 + 16 per sub-filter.
  uint64_t redis_size() const;

  // CF.SCANDUMP. 0 chunks for a filter of no items, else the header and the
  // tables' chunks (redis_dump.h).
  uint32_t DumpChunkCount() const;
  uint64_t DumpHeaderBytes() const { return format::kRedisCuckooHeaderBytes; }
  // Chunk j < DumpChunkCount(): j = 0 writes the 38-byte header to
  // header_out and returns {1, header_out, 38}; j >= 1 returns a view of the
  // table bytes (valid until the filter changes).
  RedisChunk DumpChunk(uint32_t j, uint8_t* header_out) const;

  // CF.LOADCHUNK, in order. LoadDumpHeader validates the header chunk before
  // allocating anything: kFormatBadChunk (iterator != 1), kFormatTruncated /
  // kFormatTrailingBytes (not 38 bytes), kFormatBadParameter (a field out of
  // range or the fields inconsistent: buckets not a power of two, bucket size
  // 0 or > 255, max iterations 0, expansion > 32768 or not a power of two
  // (the server stores it rounded up), 0 or > 255 sub-filters,
  // expansion 0 with more than one, tables past 1 GiB, more items than
  // slots), kOutOfMemory. LoadDumpChunk: kFormatBadChunk for an iterator other
  // than 1 + the table bytes so far + len, an empty chunk, or one that spans
  // two sub-filters or runs past the last. FinishDump: kFormatBadChunk if
  // table bytes are missing, kFormatCountMismatch if numItems differs from the
  // non-empty slots. A filter whose FinishDump has not returned kOk must not
  // be used, only destroyed.
  static Status LoadDumpHeader(uint64_t iterator, const uint8_t* data, size_t len,
                               std::unique_ptr<RedisCuckooFilter>* out);
  Status LoadDumpChunk(uint64_t iterator, const uint8_t* data, size_t len);
  Status FinishDump();

 private:
  friend class GrowingFilter<RedisCuckooFilter, RedisCuckooFamily>;
  RedisCuckooFilter() = default;
  // The key's probe in every sub-filter.
  void Probes(const uint8_t* key, size_t len, Probe* out) const;
  // RedisBloom's compaction (../shared/redis/README.md, "CF delete and
  // compaction"): for each sub-filter i from the newest down to 1, every
  // slot in order (bucket 0, 1, ...; slot 0 .. b-1) moves its fingerprint to
  // the oldest sub-filter j < i that takes it (RedisCuckooSub::AddMoved);
  // the newest sub-filter left, once empty, is freed. With stop_at_stuck, a
  // sub-filter left with a fingerprint ends the pass. Then deleted() is 0.
  void CompactPass(bool stop_at_stuck);

  uint64_t loaded_bytes_ = 0;     // LOADCHUNK: table bytes loaded so far
  uint64_t expected_items_ = 0;   // LOADCHUNK: the header's numItems
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_REDIS_REDIS_CUCKOO_H_
