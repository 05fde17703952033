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
#include "common/section_format.h"
#include "cuckoo/cuckoo_params.h"
#include "status.h"

namespace cuckoo {
namespace format {

// A 72-byte header, the table (FORMAT.md §3: PackedTable's bit stream, byte
// for byte, or the semi-sorted table), the checksum.

constexpr size_t kCuckooHeaderBytes = 72;
constexpr uint8_t kEncodingPacked = 0;  // encoding: the table as one packed bit stream (TableEncoding)
// Version 4's position scheme byte of a cuckoo stack: partial-key, refined per
// level (cuckoo_keys.h).
constexpr uint8_t kSchemeCuckooPartialKey = 1;

// The cuckoo header's fields after the common prefix (format_frame.h's
// field-list rows: name, CuckooHeader member, wire type, offset, the name a
// patch compares it under).
#define CUCKOO_CUCKOO_HEADER_FIELDS(X)                                          \
  X(HashId, hash_id, U8, 6, "")                                            \
  X(Encoding, params.encoding, U8, 7, "table encoding")                         \
  X(FingerprintBits, params.fingerprint_bits, U8, 8, "fingerprint bits")  /* f */ \
  X(BucketSize, params.bucket_size, U8, 9, "bucket size")                 /* b */ \
  X(Reserved16, reserved16, U16, 10, "")                             /* 0 */ \
  X(BucketCount, bucket_count, U32, 12, "bucket count")                   /* m */ \
  X(MaxKicks, params.max_kicks, U32, 16, "max kicks")                           \
  X(VictimFingerprint, victim_fingerprint, U32, 20, "")  /* 0 = no victim */ \
  X(VictimBucket, victim_bucket, U32, 24, "")                              \
  X(Reserved32, reserved32, U32, 28, "")                             /* 0 */ \
  X(Seed, params.seed, U64, 32, "seed")                                         \
  X(Capacity, params.capacity, U64, 40, "capacity")                             \
  X(ItemCount, item_count, U64, 48, "")            /* victim included */   \
  X(RngState, rng_state, U64, 56, "")              /* SplitMix64 state */  \
  X(TableBytes, table_bytes, U64, 64, "")          /* T */

// Byte offsets of the cuckoo header's fields: the common prefix, then the
// cuckoo filter's own fields.
namespace cuckoo_field {
constexpr size_t kMagic = kMagicOffset;      // u8[4], common
constexpr size_t kVersion = kVersionOffset;  // u16, common
CUCKOO_CUCKOO_HEADER_FIELDS(CUCKOO_FIELD_OFFSET)
}  // namespace cuckoo_field

// The values of a cuckoo header. Magic and version are the prefix's; hash id
// and the reserved fields have one valid value each.
struct CuckooHeader {
  CuckooParams params;          // capacity, f, b, max kicks, seed, encoding
  uint32_t bucket_count = 0;    // m
  uint32_t victim_fingerprint = 0;
  uint32_t victim_bucket = 0;
  uint64_t item_count = 0;
  uint64_t rng_state = 0;
  uint64_t table_bytes = 0;     // T = TableByteLength(encoding, m, b, f)
  uint8_t hash_id = kHashIdXxh3_64;
  uint16_t reserved16 = 0;
  uint32_t reserved32 = 0;
};
CUCKOO_HEADER_LAYOUT(kCuckooHeaderLayout, CuckooHeader, CUCKOO_CUCKOO_HEADER_FIELDS, kPrefixBytes,
                     kCuckooHeaderBytes);

// Bytes of a whole cuckoo file whose table is `table_bytes` long: 80 + T.
inline uint64_t CuckooFileBytes(uint64_t table_bytes) {
  return kCuckooHeaderBytes + table_bytes + kChecksumBytes;
}

// The table section of a cuckoo file.
inline const uint8_t* CuckooTable(const uint8_t* file) { return file + kCuckooHeaderBytes; }

// Writes a whole cuckoo file, CuckooFileBytes(header.table_bytes) bytes: the
// header, `header.table_bytes` bytes of `table`, the checksum. The hash id and
// reserved fields are written as `header` holds them (a CuckooHeader's
// defaults are their one valid value).
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

// The cuckoo filter's sections for the stack reader and patches: a whole
// version-1 file each (FORMAT.md §11.2).
extern const SectionFormat kCuckooSectionFormat;

}  // namespace format
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_CUCKOO_CUCKOO_FORMAT_H_
