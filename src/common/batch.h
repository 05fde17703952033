// The packed-keys batch layout every batch call of the core takes: n keys
// back to back, key k at keys[offsets[k] .. offsets[k+1]) (offsets holds
// n + 1 entries, in bytes). Header-only.
#ifndef CUCKOO_WASM_SRC_COMMON_BATCH_H_
#define CUCKOO_WASM_SRC_COMMON_BATCH_H_

#include <cstddef>
#include <cstdint>

#include "common/size_optimized.h"
#include "status.h"

namespace cuckoo {

// Calls add(key, len) for the keys in order, stopping at the first that does
// not return kOk. Returns how many returned kOk; *status is kOk, or the first
// failure's status.
template <typename Add>
size_t AddEach(const uint8_t* keys, const uint32_t* offsets, size_t n, Status* status, Add add) {
  for (size_t k = 0; k < n; ++k) {
    const Status s = add(keys + offsets[k], offsets[k + 1] - offsets[k]);
    if (s != Status::kOk) {
      *status = s;
      return k;
    }
  }
  *status = Status::kOk;
  return n;
}

// The keys a batch lookup probes together. A lookup in a table larger than
// the caches waits for its cache misses; the keys of a batch are independent,
// so a batch hashes a group of keys and derives their probes first (reading
// nothing but the keys' bytes, listing the bytes they will read: TouchList),
// then loads those bytes in one short pass (the "touch": WebAssembly has no
// prefetch, but independent loads issued together are in flight together),
// then answers them from the cache (group prefetching: Chen, Ailamaki,
// Gibbons, Mowry, "Improving Hash Join Performance through Prefetching", ICDE
// 2004). A Bloom filter's k probes go in rounds of pairs for the whole group
// instead (TestPairsGrouped). 128: at 10^7 keys the wasm batch took
// 0.76-0.97 of its time in groups of 32 whose touch derived each address
// (bench/results/scale.md; 0.74-0.94 with both builds in one process;
// 0.88-0.96 from the group size alone): the more loads a pass issues, the
// more are in flight at once. A URL batch groups 32 URLs (url_filter.cc).
// The deepest grouped call, a URL batch over a grown Bloom filter (its URL
// slots, ContainInSubs' hashes, a round's positions and touch list), takes
// about 25 KB of the 64 KiB wasm stack: under -sSTACK_OVERFLOW_CHECK=2 it
// overflows a stack of 24 KiB and tests/js/batch-groups.test.ts passes with
// 28 KiB.
constexpr size_t kLookupGroup = 128;
static_assert(kLookupGroup <= 256, "a group's keys are indexed by uint8_t");

// A filter of fewer bytes than this stays in the caches between lookups,
// where grouping only adds work: its batches go key by key. Measured in
// Node.js (bench/results/scale.md), grouped against key by key: at 2.7-4.2 MB
// hasAll 6-12% and hasAllUrls 15-31% slower in five families of six (a random
// load there cost 1.5-1.9 ns natively, a chain of loads 17-19 ns a step: the
// last-level cache); from 5.4 MB hasAll took 0.51-1.00 and hasAllUrls
// 0.73-1.06 of the time (at 10^7 keys, 13-34 MB, 0.45-0.72 and 0.60-0.79),
// where a chain's step cost 24-104 ns.
constexpr uint64_t kGroupFromBytes = uint64_t{5} << 20;

// The bytes a group's touch pass loads (kLookupGroup), listed as the group's
// probes are derived, so that the pass is a loop of loads alone: about 6.5
// instructions a cache line in V8's code of it, where a pass deriving each
// address took about 12, and fewer loads were in flight at once
// (bench/results/scale.md). Holds up to kMax addresses.
template <size_t kMax>
class TouchList {
 public:
  // The byte at p.
  void Add(const uint8_t* p) { at_[n_++] = p; }

  // A 64-bit word read from p (a bit-packed bucket's): its first byte, and
  // its last too when that lies on the next 64-byte cache line. Takes two
  // entries of room.
  void AddWord(const uint8_t* p) {
    at_[n_] = p;
    at_[n_ + 1] = p + 7;
    n_ += 1 + ((reinterpret_cast<uintptr_t>(p) & 63) > 56);
  }

  // Loads every listed byte; keeps the loads, whose values are not needed.
  void Load() const {
    uint32_t touched = 0;
    for (size_t i = 0; i < n_; ++i) touched |= *at_[i];
    volatile uint32_t sink = touched;
    (void)sink;
  }

 private:
  const uint8_t* at_[kMax];
  size_t n_ = 0;
};

// The largest hash of a key a family computes once for all its sub-filters
// (RedisBloomHash: two 64-bit words).
constexpr size_t kMaxHashBytes = 16;

// out[i] = 1 if key i of a group of m <= kLookupGroup keys is in one of the
// `count` sub-filters of a filter, else 0: the sub-filters, oldest first, are
// each asked about the keys no older one holds, as one group.
// contain(filter, j, hashes, m, found) answers m keys in sub-filter j; a
// key's hash is hash_bytes long, 8 or 16 (GrowingFilter's Hashed).
using ContainInSub = void (*)(const void* filter, uint32_t j, const void* hashes, size_t m,
                              uint8_t* found);
void ContainInSubs(const void* filter, uint32_t count, ContainInSub contain, const void* hashes,
                   size_t hash_bytes, size_t m, uint8_t* out);

// results[k] = contain(key k) ? 1 : 0 for the n keys, one by one.
template <typename Contain>
void ContainEach(const uint8_t* keys, const uint32_t* offsets, size_t n, uint8_t* results,
                 Contain contain) {
  for (size_t k = 0; k < n; ++k) {
    results[k] = contain(keys + offsets[k], offsets[k + 1] - offsets[k]) ? 1 : 0;
  }
}

// How a filter's keys are looked up a group at a time, as functions, so that
// one copy of each loop (ContainInGroups, url::MatchBatch) serves every
// family: hash(filter, key, len, out) writes the key's hash (hash_bytes <=
// kMaxHashBytes bytes: Filter::Hashed), contain(filter, hashes, m, out) sets
// out[i] = 1 if the filter may hold the key of hash i, else 0, for m <=
// kLookupGroup hashes (Filter::ContainHashes).
struct GroupLookup {
  void (*hash)(const void* filter, const uint8_t* key, size_t len, void* out);
  void (*contain)(const void* filter, const void* hashes, size_t m, uint8_t* out);
  size_t hash_bytes;
};

template <typename Filter>
void HashKeyInto(const void* filter, const uint8_t* key, size_t len, void* out) {
  *static_cast<typename Filter::Hashed*>(out) = static_cast<const Filter*>(filter)->HashOf(key, len);
}

template <typename Filter>
void ContainHashesOf(const void* filter, const void* hashes, size_t m, uint8_t* out) {
  static_cast<const Filter*>(filter)->ContainHashes(
      static_cast<const typename Filter::Hashed*>(hashes), m, out);
}

// The GroupLookup of a filter with Hashed, HashOf(key, len) and
// ContainHashes(hashes, m, out).
template <typename Filter>
constexpr GroupLookup GroupLookupOf() {
  static_assert(sizeof(typename Filter::Hashed) <= kMaxHashBytes, "GroupLookup's hash slots");
  return GroupLookup{HashKeyInto<Filter>, ContainHashesOf<Filter>, sizeof(typename Filter::Hashed)};
}

// results[k] = 1 if key k of the batch (this file's layout) may be in the
// filter, else 0: the keys hashed kLookupGroup at a time, then looked up as
// one group (lookup.contain). For a filter of kGroupFromBytes or more.
void ContainInGroups(const void* filter, const GroupLookup& lookup, const uint8_t* keys,
                     const uint32_t* offsets, size_t n, uint8_t* results);

// The answers of m <= kLookupGroup keys of a Bloom filter, breadth first:
// the first pair of positions of every key (its positions 0 and 1; position 0
// twice when k is 1), then of the keys whose bits so far were all set the
// next kPairsAtOnce pairs (positions 2p and 2p + 1; the last one twice when k
// is odd), and so on. A round computes its positions and lists their bytes,
// loads them (TouchList), then tests the bits from the cache. A non-member
// mostly stops at its first pair with a clear bit, as a lookup of it alone
// does; a member's k bits take two or three rounds of the memory's latency,
// not k/2.
// positions(i, p, &x, &y) sets pair p of key i; bit x is bit x % 8 of
// bits[x / 8] (a little-endian bit array); out[i] = 1 if all `pairs` pairs
// of key i are set, else 0.
constexpr uint32_t kPairsAtOnce = 4;
template <typename Positions>
void TestPairsGrouped(size_t m, uint32_t pairs, uint8_t* out, Positions positions,
                      const uint8_t* bits) {
  uint8_t live[kLookupGroup];
  uint64_t x[kLookupGroup][kPairsAtOnce];
  uint64_t y[kLookupGroup][kPairsAtOnce];
  const auto set = [bits](uint64_t at) { return static_cast<uint32_t>(bits[at >> 3] >> (at & 7)) & 1; };
  for (size_t i = 0; i < m; ++i) live[i] = static_cast<uint8_t>(i);
  for (uint32_t p = 0; p < pairs && m > 0;) {
    const uint32_t span = p == 0 ? 1 : (pairs - p < kPairsAtOnce ? pairs - p : kPairsAtOnce);
    TouchList<kLookupGroup * kPairsAtOnce * 2> touch;
    for (size_t c = 0; c < m; ++c) {
      CUCKOO_NO_UNROLL
      for (uint32_t q = 0; q < span; ++q) {
        positions(live[c], p + q, &x[c][q], &y[c][q]);
        touch.Add(bits + (x[c][q] >> 3));
        touch.Add(bits + (y[c][q] >> 3));
      }
    }
    touch.Load();
    size_t still = 0;
    for (size_t c = 0; c < m; ++c) {
      const uint8_t i = live[c];
      uint32_t all = 1;
      CUCKOO_NO_UNROLL
      for (uint32_t q = 0; q < span; ++q) all &= set(x[c][q]) & set(y[c][q]);
      out[i] = static_cast<uint8_t>(all);
      live[still] = i;
      still += all;
    }
    m = still;
    p += span;
  }
}

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_COMMON_BATCH_H_
