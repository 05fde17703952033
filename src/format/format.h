// The serialized byte format (docs/FORMAT.md): the stack every family's file
// is, how its header is encoded, and which bytes a reader accepts. The parts
// every file shares (the prefix, the checksum, little-endian integers, the
// header codec) are common/format_frame.h; each family's section is its own
// (cuckoo/cuckoo_format.h, bloom/bloom_format.h, redis/redis_cuckoo_format.h,
// redis/redis_bloom_format.h), described to this file by its SectionFormat
// (common/section_format.h), found by family id. The native tests and the
// fuzz targets read their offsets from these files.
//
// Every file of the format family is laid out as
//
//   | common prefix    | the filter type's header and body | checksum      |
//   | magic, version   | (cuckoo v1: 66 more header bytes, | u64 XXH3-64   |
//   | (6 bytes)        |  then the packed table)           | of all before |
//
// The common parts hold for every filter type and every version (FORMAT.md §9):
// "CKOO" at offset 0, the u16 version at offset 4, and the trailing checksum.
// Everything between them belongs to the format version: version 1 is one
// cuckoo filter (its header and table, cuckoo/cuckoo_format.h); versions 2
// and 3 are a stack header and one section per sub-filter (below, FORMAT.md
// §11), of either type in version 2, Bloom in version 3. Version 4 (FORMAT.md §14),
// what this build writes for every new filter, is the same stack with a header
// that names what the file holds: its family, table encoding, position scheme
// and growth rule. All reuse the prefix, the checksum and the little-endian
// helpers.
//
// All multi-byte integers are little-endian, whatever the host.
#ifndef CUCKOO_WASM_SRC_FORMAT_FORMAT_H_
#define CUCKOO_WASM_SRC_FORMAT_FORMAT_H_

#include <cstddef>
#include <cstdint>

#include "bloom/bloom_format.h"
#include "common/family.h"
#include "common/format_frame.h"
#include "common/section_format.h"
#include "cuckoo/cuckoo_format.h"
#include "status.h"

namespace cuckoo {
namespace format {

// ---------------------------------------------------------------------------
// Versions 2, 3 and 4 (FORMAT.md §11, §14): a stack header, then one section
// per sub-filter, oldest first, then the checksum. Version 3 holds only Bloom
// filters. Versions 2 and 3 (24-byte header):
//
//   | prefix | type | count S | expansion | reserved | seed | S sections | checksum |
//   | 6      | u8   | u8      | u32       | u32      | u64  |            | u64      |
//
// Version 4 (32-byte header, every field at a multiple of its size):
//
//   | prefix | family | encoding | scheme | growth | hash id | count S | expansion | seed | reserved | ...
//   | 6      | u8     | u8       | u8     | u8     | u8      | u8      | u32       | u64  | u64, 0   |
//
// A cuckoo section is a whole version-1 file (its own header, table and
// checksum); a Bloom section is a 48-byte header and the bit array.

// Family (the type byte of versions 2 and 3, the family byte of version 4):
// kTypeCuckoo, kTypeBloom (versions 2 to 4), kTypeRedisCuckoo and
// kTypeRedisBloom (version 4 only), the ids of common/families.def.
#define CUCKOO_FAMILY(Name, id, ...) constexpr uint8_t kType##Name = id;
#include "common/families.def"
// Version 4's position scheme byte, how a key becomes its positions, is the
// family's: kScheme* of its format header.

// Version 4's growth byte.
constexpr uint8_t kGrowthNone = 0;       // one sub-filter, expansion 0
constexpr uint8_t kGrowthGeometric = 1;  // sub-filter j: e^j capacity, ε0/2^j (cuckoo: f0 + j bits)

constexpr size_t kStackHeaderBytes = 24;  // versions 2 and 3
constexpr size_t kHeaderV4Bytes = 32;     // version 4
// The stack header's bytes in `version` (2, 3 or 4).
inline size_t StackHeaderBytes(uint16_t version) {
  return version == kFormatVersionExplicit ? kHeaderV4Bytes : kStackHeaderBytes;
}

// The stack header's fields after the prefix, in versions 2 and 3 and in
// version 4 (format_frame.h's field-list rows: name, StackHeader member, wire
// type, offset, the name a patch compares it under).
#define CUCKOO_STACK_FIELDS(X)                                               \
  X(Type, type, U8, 6, "family")                /* kTypeCuckoo or kTypeBloom */ \
  X(SubFilterCount, sub_filter_count, U8, 7, "") /* S, 1..kMaxGrowthSubFilters */ \
  X(Expansion, expansion, U32, 8, "expansion")  /* 0 (no growth, S = 1) or 2..kMaxExpansion */ \
  X(Reserved, reserved, U32, 12, "")       /* 0 */                          \
  X(Seed, seed, U64, 16, "seed")                /* every sub-filter's key-hash seed */
#define CUCKOO_STACK_V4_FIELDS(X)                                                \
  X(Family, type, U8, 6, "family")                                               \
  X(Encoding, encoding, U8, 7, "table encoding") /* TableEncoding (cuckoo), 0 (Bloom) */ \
  X(Scheme, scheme, U8, 8, "position scheme")    /* kScheme* of the family */     \
  X(Growth, growth, U8, 9, "growth")             /* kGrowthNone or kGrowthGeometric */ \
  X(HashId, hash_id, U8, 10, "hash id")          /* HashIdFor(family) */          \
  X(SubFilterCount, sub_filter_count, U8, 11, "") /* S, 1..max_sub_filters (1 without growth) */ \
  X(Expansion, expansion, U32, 12, "expansion")  /* 0 without growth, else the family's range */ \
  X(Seed, seed, U64, 16, "seed")                 /* every sub-filter's key-hash seed */ \
  X(Reserved, reserved, U64, 24, "")        /* 0 */

namespace stack_field {  // versions 2 and 3
CUCKOO_STACK_FIELDS(CUCKOO_FIELD_OFFSET)
}  // namespace stack_field
namespace v4_field {
CUCKOO_STACK_V4_FIELDS(CUCKOO_FIELD_OFFSET)
}  // namespace v4_field
static_assert(v4_field::kFamily == stack_field::kType, "the family byte sits where the type byte does");

// What a stack holds, whatever its version: version 4 says it in its header;
// for versions 2 and 3 ReadStack fills in what the version implies (scheme:
// partial-key for cuckoo, double hashing in version 2 and independent
// positions in version 3 for Bloom; growth from the expansion; encoding
// kEncodingFromSections for cuckoo, whose sections say it).
struct StackHeader {
  uint16_t version = kFormatVersionLatest;  // 2, 3 or 4
  uint8_t type = 0;                         // family
  uint8_t encoding = 0;
  uint8_t scheme = 0;
  uint8_t growth = kGrowthNone;
  uint32_t sub_filter_count = 0;
  uint32_t expansion = 0;
  uint64_t seed = 0;
  uint8_t hash_id = 0;    // version 4: HashIdFor(type)
  uint64_t reserved = 0;  // 0
};
CUCKOO_HEADER_LAYOUT(kStackLayout, StackHeader, CUCKOO_STACK_FIELDS, kPrefixBytes, kStackHeaderBytes);
CUCKOO_HEADER_LAYOUT(kStackV4Layout, StackHeader, CUCKOO_STACK_V4_FIELDS, kPrefixBytes,
                     kHeaderV4Bytes);

// Bytes the section at `section` of `family` would need according to its
// length field (SectionFormat::length), saturating at UINT64_MAX; 0 if fewer
// than its header's bytes remain.
uint64_t SectionLength(const SectionFormat& family, const uint8_t* section, uint64_t remaining);

// Writes StackHeaderBytes(header.version) bytes: version 2 and 3's layout
// (type, count, expansion, seed) or version 4's (every field).
void WriteStackHeader(const StackHeader& header, uint8_t* out);

// The family of a file whose prefix ReadPrefix accepted with `version`:
// kTypeCuckoo for version 1, the type byte for version 2 (cuckoo or Bloom)
// and version 4 (any family), kTypeBloom for version 3 if its type byte says
// so (0 if the file is too short to hold the type byte, or the version or
// type byte is none of these).
uint8_t FileType(const uint8_t* data, size_t len, uint16_t version);

// FORMAT.md §12 checks 5-9 (§14 for version 4) on a file of `len` bytes of
// version 2, 3 or 4 whose prefix was read with `version`: the stack header's
// fields (type Bloom only in version 3; in version 4 every field in range for
// its family and consistent with the others), the section lengths against
// `len`, and the checksum. kOk fills *header and section_offsets[0 .. S]
// (section j is data[offsets[j], offsets[j+1])); the sections' own fields are
// the family's reader's to check.
Status ReadStack(const uint8_t* data, size_t len, uint16_t version, StackHeader* header,
                 uint64_t section_offsets[kMaxSubFilters + 1]);

// ReadStack without check 9 (the checksum): the stack header's fields and the
// sections' lengths, for a reader that makes the checksum itself (a patch's
// result, patch.cc), read through `file` (only the stack header and each
// section's header). Same statuses otherwise.
Status ReadStackLayout(FileView& file, uint16_t version, StackHeader* header,
                       uint64_t section_offsets[kMaxSubFilters + 1]);

}  // namespace format
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_FORMAT_FORMAT_H_
