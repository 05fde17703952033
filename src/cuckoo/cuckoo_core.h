// The one cuckoo-filter algorithm (Fan, Andersen, Kaminsky, Mitzenmacher,
// "Cuckoo Filter: Practically Better Than Bloom", CoNEXT 2014): insert, lookup,
// delete and count of a key given by its Probe (cuckoo_keys.h), over three
// policies, as the paper's reference code is one CuckooFilter over
// interchangeable tables:
//   Table    the buckets: PackedTable (packed_table.h) or any class with its
//            interface (Init, Read, Write, Contains, ContainsEither, Count,
//            Insert, Remove, Swap, CountOccupied, PaddingIsZero, ...);
//   Keys     the key derivation: Alt(bucket, fingerprint) (LevelKeys);
//   Eviction where a fingerprint goes when both its buckets are full, and what
//            is stashed outside the table (RandomWalkEviction below):
//              template <class Table, class Keys>
//              Status Place(Table&, const Keys&, const CuckooShape&, uint32_t bucket, uint32_t fp);
//              bool Stashed(const Probe&) const;       // a stashed fingerprint matches
//              uint32_t StashCount(const Probe&) const;
//              bool TakeStashed(const Probe&);         // removes a matching stashed one
//              template <class Table, class Keys>
//              void SlotFreed(Table&, const Keys&, const CuckooShape&);
// Internal to the core: the public API is cuckoo_filter.h / scalable_filter.h.
#ifndef CUCKOO_WASM_SRC_CUCKOO_CUCKOO_CORE_H_
#define CUCKOO_WASM_SRC_CUCKOO_CUCKOO_CORE_H_

#include <cstdint>

#include "cuckoo/cuckoo_keys.h"
#include "common/hash.h"
#include "status.h"

namespace cuckoo {

// What the eviction rule needs of the filter's parameters.
struct CuckooShape {
  uint32_t bucket_size;  // b
  uint32_t max_kicks;
};

// Ours (Fan et al. §3.1, Algorithm 1, with a one-slot victim as in the
// reference code): inserting into two full buckets first moves a resident
// fingerprint to a free slot of its own alternate bucket if one has one
// (one-step lookahead), else evicts ("kicks") a slot chosen by a SplitMix64
// PRNG seeded with the filter's seed and moves that fingerprint to its
// alternate bucket, up to max_kicks times; a chain that runs out parks the last
// evicted fingerprint in the victim slot, so no stored fingerprint is ever
// lost. A kick chain starts only while the victim slot is free.
class RandomWalkEviction {
 public:
  struct Victim {
    uint32_t fingerprint = 0;  // 0: empty
    uint32_t bucket = 0;
  };

  void Init(uint64_t seed) {
    rng_state_ = seed;
    victim_ = Victim();
  }
  // The state a serialized filter holds (FORMAT.md §2).
  void Restore(uint64_t rng_state, const Victim& victim) {
    rng_state_ = rng_state;
    victim_ = victim;
  }
  uint64_t rng_state() const { return rng_state_; }
  const Victim& victim() const { return victim_; }
  bool victim_used() const { return victim_.fingerprint != 0; }

  template <class Table, class Keys>
  Status Place(Table& table, const Keys& keys, const CuckooShape& shape, uint32_t bucket,
               uint32_t fingerprint) {
    const uint32_t alt = keys.Alt(bucket, fingerprint);
    if (table.Insert(bucket, fingerprint) || table.Insert(alt, fingerprint)) return Status::kOk;
    // A kick chain may end with a fingerprint parked in the victim slot, so it
    // can only start while that slot is free.
    if (victim_used()) return Status::kNotEnoughSpace;
    const uint64_t r = SplitMix64(&rng_state_);
    uint32_t i = (r & 1) ? alt : bucket;
    uint32_t current = fingerprint;
    for (uint32_t kick = 0; kick < shape.max_kicks; ++kick) {
      // One-step lookahead: if some fingerprint in bucket i can move to a free
      // slot of its own alternate bucket, move it and take its slot.
      for (uint32_t s = 0; s < shape.bucket_size; ++s) {
        const uint32_t resident = table.Read(i, s);
        if (table.Insert(keys.Alt(i, resident), resident)) {
          table.Write(i, s, current);
          return Status::kOk;
        }
      }
      // No resident can move: evict a random one and carry it to its alternate
      // bucket (full, as the lookahead just found), where the next kick starts.
      const uint32_t slot =
          FastRange32(static_cast<uint32_t>(SplitMix64(&rng_state_)), shape.bucket_size);
      current = table.Swap(i, slot, current);
      i = keys.Alt(i, current);
    }
    victim_.fingerprint = current;
    victim_.bucket = i;
    return Status::kOk;
  }

  bool Stashed(const Probe& p) const {
    return victim_.fingerprint == p.fingerprint &&
           (victim_.bucket == p.i1 || victim_.bucket == p.i2);
  }
  uint32_t StashCount(const Probe& p) const { return Stashed(p) ? 1 : 0; }
  bool TakeStashed(const Probe& p) {
    if (!Stashed(p)) return false;
    victim_ = Victim();
    return true;
  }
  // A slot is free again: move the victim back into the table (it may come
  // back to the victim slot if the new kick chain fails too).
  template <class Table, class Keys>
  void SlotFreed(Table& table, const Keys& keys, const CuckooShape& shape) {
    if (!victim_used()) return;
    const Victim v = victim_;
    victim_ = Victim();
    Place(table, keys, shape, v.bucket, v.fingerprint);
  }

 private:
  uint64_t rng_state_ = 0;
  Victim victim_;
};

// Insert, lookup, delete and count over the policies (see the file comment).
// `size` counts the stored fingerprints, stash included.
template <class Table, class Keys, class Eviction>
struct CuckooAlgorithm {
  // kNotEnoughSpace when the eviction rule finds no room: the key is not
  // added and nothing stored is changed. Duplicates are stored again.
  static Status Add(Table& table, const Keys& keys, Eviction& eviction, const CuckooShape& shape,
                    const Probe& p, uint64_t* size) {
    const Status s = eviction.Place(table, keys, shape, p.i1, p.fingerprint);
    if (s == Status::kOk) ++*size;
    return s;
  }
  // A matching fingerprint in either bucket or the stash (§3.2).
  static bool Contain(const Table& table, const Eviction& eviction, const Probe& p) {
    return table.ContainsEither(p.i1, p.i2, p.fingerprint) || eviction.Stashed(p);
  }
  // Matching fingerprints in both buckets (once if i1 == i2) and the stash.
  static uint32_t Count(const Table& table, const Eviction& eviction, const Probe& p) {
    uint32_t n = table.Count(p.i1, p.fingerprint);
    if (p.i2 != p.i1) n += table.Count(p.i2, p.fingerprint);
    return n + eviction.StashCount(p);
  }
  // Removes one matching fingerprint (bucket i1, then i2, then the stash), §3.3.
  static Status Delete(Table& table, const Keys& keys, Eviction& eviction,
                       const CuckooShape& shape, const Probe& p, uint64_t* size) {
    if (table.Remove(p.i1, p.fingerprint) || table.Remove(p.i2, p.fingerprint)) {
      --*size;
      eviction.SlotFreed(table, keys, shape);
      return Status::kOk;
    }
    if (eviction.TakeStashed(p)) {
      --*size;
      return Status::kOk;
    }
    return Status::kNotFound;
  }
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_CUCKOO_CUCKOO_CORE_H_
