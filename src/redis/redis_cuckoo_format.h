// The Redis cuckoo filter's file (docs/FORMAT.md, "Redis cuckoo filter",
// family 3, version 4 only): the version-4 stack header (encoding
// kEncodingRedisBytes, scheme kSchemeRedisCuckoo, hash id kHashIdMurmur64A,
// seed 0, expansion 0..32768), then per sub-filter a 32-byte section header
// and its table, one byte per slot, as CF.SCANDUMP returns it; and
// CF.SCANDUMP's own header chunk. RedisCuckooFamily (redis_cuckoo.cc) moves
// its values in and out of these structs; the native tests and the fuzz
// targets read the offsets from here.
#ifndef CUCKOO_WASM_SRC_REDIS_REDIS_CUCKOO_FORMAT_H_
#define CUCKOO_WASM_SRC_REDIS_REDIS_CUCKOO_FORMAT_H_

#include <cstddef>
#include <cstdint>

#include "common/format_frame.h"
#include "common/section_format.h"
#include "status.h"

namespace cuckoo {
namespace format {

constexpr uint8_t kEncodingRedisBytes = 0;  // encoding: one byte per slot (byte_table.h)
// Scheme of the Redis cuckoo filter: fp = h % 255 + 1, i1 = h mod n,
// alt = (i ^ fp * 0x5bd1e995) mod n (redis_cuckoo.h).
constexpr uint8_t kSchemeRedisCuckoo = 1;
constexpr uint32_t kMaxRedisCuckooExpansion = 32768;
constexpr uint32_t kMaxRedisBucketSize = 255;
constexpr uint32_t kMaxRedisIterations = 65535;

constexpr size_t kRedisCuckooSectionHeaderBytes = 32;

// The section header's fields (format_frame.h's field-list rows: name,
// member, wire type, offset, the name a patch compares it under, and the
// RedisCuckooSub getter it is written from).
#define CUCKOO_REDIS_CUCKOO_SECTION_FIELDS(X)                                                              \
  X(BucketCount, bucket_count, U64, 0, "bucket count", from.bucket_count())  /* n, a power of two (n0 * e^j) */ \
  X(ItemCount, item_count, U64, 8, "", from.size())                          /* non-empty slots */         \
  X(Deletes, deletes, U64, 16, "", from.deletes())   /* section 0: the filter's numDeletes; later 0 */     \
  X(BucketSize, bucket_size, U16, 24, "bucket size", from.bucket_size())     /* b, 1..255, every section's */ \
  X(MaxIterations, max_iterations, U16, 26, "max iterations", from.max_iterations()) /* 1..65535, every section's */ \
  X(Reserved, reserved, U32, 28, "", 0)                                       /* 0 */

namespace redis_cuckoo_field {
CUCKOO_REDIS_CUCKOO_SECTION_FIELDS(CUCKOO_FIELD_OFFSET)
}  // namespace redis_cuckoo_field

struct RedisCuckooSection {
  CUCKOO_REDIS_CUCKOO_SECTION_FIELDS(CUCKOO_FIELD_MEMBER)
  const uint8_t* table = nullptr;  // bucket_count * bucket_size bytes, inside the file
};
CUCKOO_HEADER_LAYOUT(kRedisCuckooSectionLayout, RedisCuckooSection,
                     CUCKOO_REDIS_CUCKOO_SECTION_FIELDS, 0, kRedisCuckooSectionHeaderBytes);

// Bytes of a Redis cuckoo section whose table is `table_bytes` long.
inline uint64_t RedisCuckooSectionBytes(uint64_t table_bytes) {
  return kRedisCuckooSectionHeaderBytes + table_bytes;
}
// Writes the section header, then `section.bucket_count * section.bucket_size` table bytes.
void WriteRedisCuckooSection(const RedisCuckooSection& section, uint8_t* out);
// The fields of the section data[0, len) (len as ReadStack delimited it):
// kFormatBadParameter if a field is out of range or the table's length is
// not len. The sections' relations are the family's to check.
Status ReadRedisCuckooSection(const uint8_t* data, size_t len, RedisCuckooSection* out);

// The Redis cuckoo filter's sections for the stack reader and patches.
extern const SectionFormat kRedisCuckooSectionFormat;

// CF.SCANDUMP's header chunk (iterator 1): 38 bytes, packed little-endian.
constexpr size_t kRedisCuckooHeaderBytes = 38;
// Each field written from the RedisCuckooFilter getter its last column names.
#define CUCKOO_REDIS_CUCKOO_DUMP_FIELDS(X)                                      \
  X(NumItems, num_items, U64, 0, "", from.size())                          \
  X(NumBuckets, num_buckets, U64, 8, "", from.bucket_count()) /* sub-filter 0's */ \
  X(NumDeletes, num_deletes, U64, 16, "", from.deleted())                  \
  X(NumFilters, num_filters, U64, 24, "", from.sub_filter_count())         \
  X(BucketSize, bucket_size, U16, 32, "", from.bucket_size())              \
  X(MaxIterations, max_iterations, U16, 34, "", from.max_iterations())     \
  X(Expansion, expansion, U16, 36, "", from.expansion_rate())

namespace redis_cuckoo_dump_field {
CUCKOO_REDIS_CUCKOO_DUMP_FIELDS(CUCKOO_FIELD_OFFSET)
}  // namespace redis_cuckoo_dump_field

struct RedisCuckooDumpHeader {
  CUCKOO_REDIS_CUCKOO_DUMP_FIELDS(CUCKOO_FIELD_MEMBER)
};
CUCKOO_HEADER_LAYOUT(kRedisCuckooDumpLayout, RedisCuckooDumpHeader, CUCKOO_REDIS_CUCKOO_DUMP_FIELDS,
                     0, kRedisCuckooHeaderBytes);

}  // namespace format
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_REDIS_REDIS_CUCKOO_FORMAT_H_
