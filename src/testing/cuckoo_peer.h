// Test-only window on a cuckoo filter's internals: its key derivation at each
// level (cuckoo_keys.h), the probe-level operations and the growth machinery
// that scalable_filter.h uses. For the native tests and the fuzz target; not
// part of the core's API.
#ifndef CUCKOO_WASM_SRC_TESTING_CUCKOO_PEER_H_
#define CUCKOO_WASM_SRC_TESTING_CUCKOO_PEER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cuckoo/cuckoo_filter.h"
#include "cuckoo/cuckoo_keys.h"
#include "growth/growth_families.h"
#include "common/hash.h"

namespace cuckoo {

struct CuckooFilterPeer {
  // The probe of a key whose hash (HashKey with the seed) is `hash`, at the
  // filter's level, and at level 0.
  static Probe ProbeOf(const CuckooFilter& f, uint64_t hash) { return f.ProbeOf(hash); }
  static Probe BaseProbe(const CuckooFilter& f, uint64_t hash) { return f.keys_.Base(hash); }
  // Level j's probe from level j-1's `p` of the same hash.
  static Probe NextLevel(const Probe& p, uint64_t hash, uint32_t level, uint32_t expansion) {
    return LevelKeys::Step(p, hash + level * LevelKeys::kLevelSalt, expansion);
  }
  static uint32_t AltIndex(const CuckooFilter& f, uint32_t bucket, uint32_t fingerprint) {
    return f.keys_.Alt(bucket, fingerprint);
  }
  // The fingerprint and first bucket of a key.
  static void Derive(const CuckooFilter& f, const uint8_t* key, size_t len, uint32_t* fingerprint,
                     uint32_t* bucket) {
    const Probe p = f.ProbeOf(HashKey(key, len, f.seed()));
    *fingerprint = p.fingerprint;
    *bucket = p.i1;
  }
  static uint32_t level(const CuckooFilter& f) { return f.keys_.level(); }
  static uint32_t expansion(const CuckooFilter& f) { return f.keys_.expansion(); }
  static uint32_t base_bucket_count(const CuckooFilter& f) { return f.keys_.base_bucket_count(); }

  static Status CreateLevel(const CuckooParams& base, uint64_t base_bucket_count,
                            uint32_t expansion, uint32_t level,
                            std::unique_ptr<CuckooFilter>* out) {
    return CuckooFamily::CreateLevel(base, base_bucket_count, expansion, level, out);
  }
  static void SetLevel(CuckooFilter& f, uint32_t level, uint32_t expansion,
                       uint32_t base_bucket_count) {
    CuckooFamily::SetLevel(f, level, expansion, base_bucket_count);
  }

  static Status AddProbe(CuckooFilter& f, const Probe& p) { return f.AddProbe(p); }
  static bool ContainProbe(const CuckooFilter& f, const Probe& p) { return f.ContainProbe(p); }
  static uint32_t CountProbe(const CuckooFilter& f, const Probe& p) { return f.CountProbe(p); }
  static Status DeleteProbe(CuckooFilter& f, const Probe& p) { return f.DeleteProbe(p); }
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_TESTING_CUCKOO_PEER_H_
