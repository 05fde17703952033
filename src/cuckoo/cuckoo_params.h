// Parameters of a cuckoo filter and their valid ranges: what CuckooFilter::Create
// accepts and what the serialized format's header may hold (docs/FORMAT.md §2),
// in one place for both. Header-only.
#ifndef CUCKOO_WASM_SRC_CUCKOO_CUCKOO_PARAMS_H_
#define CUCKOO_WASM_SRC_CUCKOO_CUCKOO_PARAMS_H_

#include <cstdint>

#include "common/hash.h"

namespace cuckoo {

constexpr uint32_t kMinFingerprintBits = 4;
constexpr uint32_t kMaxFingerprintBits = 32;
constexpr uint32_t kDefaultBucketSize = 4;
constexpr uint32_t kDefaultMaxKicks = 500;
constexpr uint32_t kMaxMaxKicks = 1000000;
constexpr uint64_t kMaxBucketCount = 0xffffffffULL;

// How the bucket table is stored (table_encodings.def, the one list of them;
// cuckoo_tables.h; the format header's encoding byte, docs/FORMAT.md §2).
enum class TableEncoding : uint8_t {
#define CUCKOO_TABLE_ENCODING(Name, id, ...) k##Name = id,
#include "cuckoo/table_encodings.def"
};

// True if `encoding` (a format's encoding byte) names a table encoding.
inline bool KnownEncoding(uint8_t encoding) {
#define CUCKOO_TABLE_ENCODING(Name, ...) \
  if (encoding == static_cast<uint8_t>(TableEncoding::k##Name)) return true;
#include "cuckoo/table_encodings.def"
  return false;
}

// Parameters of a new filter.
struct CuckooParams {
  uint64_t capacity = 0;            // items the filter is sized for, >= 1
  uint32_t fingerprint_bits = 13;   // f, in [4, 32]
  uint32_t bucket_size = kDefaultBucketSize;  // b, one of 2, 4, 8
  uint32_t max_kicks = kDefaultMaxKicks;      // evictions per insert, <= kMaxMaxKicks
  uint64_t seed = kDefaultSeed;     // key-hash seed; also seeds the eviction PRNG
  TableEncoding encoding = TableEncoding::kPacked;
};

inline bool ValidFingerprintBits(uint32_t f) {
  return f >= kMinFingerprintBits && f <= kMaxFingerprintBits;
}
inline bool ValidBucketSize(uint32_t b) { return b == 2 || b == 4 || b == 8; }
// True if `encoding` names a table encoding that stores buckets of `bucket_size`.
inline bool ValidEncoding(TableEncoding encoding, uint32_t bucket_size) {
#define CUCKOO_TABLE_ENCODING(Name, id, Table, only_bucket_size) \
  if (encoding == TableEncoding::k##Name) return only_bucket_size == 0 || bucket_size == only_bucket_size;
#include "cuckoo/table_encodings.def"
  return false;
}

// f, b, max_kicks and the encoding in range (capacity and the bucket count are judged by
// whoever knows the table: Create via BucketCountFor, the format reader
// against the stored bucket count).
inline bool ValidShape(const CuckooParams& p) {
  return ValidFingerprintBits(p.fingerprint_bits) && ValidBucketSize(p.bucket_size) &&
         p.max_kicks <= kMaxMaxKicks && ValidEncoding(p.encoding, p.bucket_size);
}

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_CUCKOO_CUCKOO_PARAMS_H_
