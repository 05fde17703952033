// The cuckoo filter's file (docs/FORMAT.md §2-§4, §7): a version-1 file is
// one cuckoo filter, and every stack holds each cuckoo sub-filter as such a
// file (§11.2). CuckooFilter::Serialize and Deserialize only move values in
// and out of a CuckooHeader; format/format.h (which includes this file), the
// native tests and the fuzz target read its offsets from here.
#ifndef CUCKOO_WASM_SRC_CUCKOO_CUCKOO_FORMAT_H_
#define CUCKOO_WASM_SRC_CUCKOO_CUCKOO_FORMAT_H_

#include <cstddef>
#include <cstdint>

#include "common/format_frame.h"
#include "cuckoo/cuckoo_params.h"
#include "status.h"

namespace cuckoo {
namespace format {

// A 72-byte header, the table (FORMAT.md §3: PackedTable's bit stream, byte
// for byte, or the semi-sorted table), the checksum.

constexpr size_t kCuckooHeaderBytes = 72;
constexpr uint8_t kHashIdXxh3_64 = 1;  // hash id: keys hashed by XXH3-64 with the seed (hash.h)
constexpr uint8_t kEncodingPacked = 0;  // encoding: the table as one packed bit stream (TableEncoding)

// Byte offsets of the cuckoo header's fields: the common prefix, then the
// cuckoo filter's own fields.
namespace cuckoo_field {
constexpr size_t kMagic = kMagicOffset;      // u8[4], common
constexpr size_t kVersion = kVersionOffset;  // u16, common
constexpr size_t kHashId = 6;                // u8
constexpr size_t kEncoding = 7;              // u8
constexpr size_t kFingerprintBits = 8;       // u8, f
constexpr size_t kBucketSize = 9;            // u8, b
constexpr size_t kReserved16 = 10;           // u16, 0
constexpr size_t kBucketCount = 12;          // u32, m
constexpr size_t kMaxKicks = 16;             // u32
constexpr size_t kVictimFingerprint = 20;    // u32, 0 = no victim
constexpr size_t kVictimBucket = 24;         // u32
constexpr size_t kReserved32 = 28;           // u32, 0
constexpr size_t kSeed = 32;                 // u64
constexpr size_t kCapacity = 40;             // u64
constexpr size_t kItemCount = 48;            // u64, victim included
constexpr size_t kRngState = 56;             // u64, SplitMix64 state
constexpr size_t kTableBytes = 64;           // u64, T
}  // namespace cuckoo_field
static_assert(cuckoo_field::kHashId == kPrefixBytes, "the cuckoo fields follow the prefix");
static_assert(cuckoo_field::kTableBytes + 8 == kCuckooHeaderBytes, "header layout");

// The values of a cuckoo header. Magic, version, hash id and the reserved
// fields have one valid value each and are not stored here.
struct CuckooHeader {
  CuckooParams params;          // capacity, f, b, max kicks, seed, encoding
  uint32_t bucket_count = 0;    // m
  uint32_t victim_fingerprint = 0;
  uint32_t victim_bucket = 0;
  uint64_t item_count = 0;
  uint64_t rng_state = 0;
  uint64_t table_bytes = 0;     // T = TableByteLength(encoding, m, b, f)
};

// Bytes of a whole cuckoo file whose table is `table_bytes` long: 80 + T.
inline uint64_t CuckooFileBytes(uint64_t table_bytes) {
  return kCuckooHeaderBytes + table_bytes + kChecksumBytes;
}

// The table section of a cuckoo file.
inline const uint8_t* CuckooTable(const uint8_t* file) { return file + kCuckooHeaderBytes; }

// Writes a whole cuckoo file, CuckooFileBytes(header.table_bytes) bytes: the
// header, `header.table_bytes` bytes of `table`, the checksum.
void WriteCuckoo(const CuckooHeader& header, const uint8_t* table, uint8_t* out);

// FORMAT.md §7 checks 1-10, in that order, on `len` bytes at `data`: the
// prefix, the version, every header field, the length, the checksum and the
// victim. Reads nothing past `len` and allocates nothing. kOk fills *header;
// otherwise the status names the first check that failed and *header is
// untouched.
Status ReadCuckooHeader(const uint8_t* data, size_t len, CuckooHeader* header);

// FORMAT.md §7 checks 11-12, on a table loaded from a file whose header
// ReadCuckooHeader accepted: kFormatBadPadding if a padding bit is set,
// kFormatCountMismatch if the occupied slots plus the victim differ from the
// header's item count.
// `padding_is_zero` and `occupied` are the loaded table's PaddingIsZero() and
// CountOccupied().
Status CheckCuckooTable(bool padding_is_zero, uint64_t occupied, const CuckooHeader& header);

}  // namespace format
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_CUCKOO_CUCKOO_FORMAT_H_
