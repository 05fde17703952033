// The serialized byte format (docs/FORMAT.md): where each field sits, how it is
// encoded, and which bytes a reader accepts. The parts every file shares (the
// prefix, the checksum, little-endian integers) are common/format_frame.h, the
// cuckoo filter's own file cuckoo/cuckoo_format.h; both are included here, so
// that this file is the whole format for its readers and writers above the
// families. The native tests and the fuzz targets read their offsets from
// these three files.
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

#include "common/family.h"
#include "common/format_frame.h"
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
// Version 4's position scheme byte: how a key becomes its positions.
constexpr uint8_t kSchemeCuckooPartialKey = 1;  // cuckoo: partial-key, refined per level (cuckoo_keys.h)
constexpr uint8_t kSchemeBloomDoubleHashing = 1;  // Bloom: enhanced double hashing mod m (§11.6)
constexpr uint8_t kSchemeBloomIndependent = 2;    // Bloom: independent positions (§11.6)
// Redis BF: bit (a + i*b) mod bits of MurmurHash64A's a and b (redis_bloom.h).
constexpr uint8_t kSchemeRedisBloom = 1;
// Version 4's growth byte.
constexpr uint8_t kGrowthNone = 0;       // one sub-filter, expansion 0
constexpr uint8_t kGrowthGeometric = 1;  // sub-filter j: e^j capacity, ε0/2^j (cuckoo: f0 + j bits)

constexpr size_t kStackHeaderBytes = 24;  // versions 2 and 3
constexpr size_t kHeaderV4Bytes = 32;     // version 4
// Sub-filters of a stack: the count byte's range, which bounds every family's
// file. A family bounds its own further (MaxSubFilters): this library's
// cuckoo and Bloom filters grow to kMaxGrowthSubFilters; RedisBloom's filters
// grow past that on the server (a CF.INSERT that starts below 32 sub-filters,
// a Bloom chain, which has no limit there), so their files hold up to 255.
constexpr uint32_t kMaxSubFilters = 255;
constexpr uint32_t kMaxGrowthSubFilters = 32;
constexpr uint32_t kMaxExpansion = 1024;
// The most sub-filters a file of family `type` holds.
inline uint32_t MaxSubFilters(uint8_t type) {
  return type == kTypeRedisCuckoo || type == kTypeRedisBloom ? kMaxSubFilters
                                                             : kMaxGrowthSubFilters;
}

// The stack header's bytes in `version` (2, 3 or 4).
inline size_t StackHeaderBytes(uint16_t version) {
  return version == kFormatVersionExplicit ? kHeaderV4Bytes : kStackHeaderBytes;
}

namespace stack_field {  // versions 2 and 3
constexpr size_t kType = 6;            // u8: kTypeCuckoo or kTypeBloom
constexpr size_t kSubFilterCount = 7;  // u8: S, 1..kMaxGrowthSubFilters
constexpr size_t kExpansion = 8;       // u32: 0 (no growth, S = 1) or 2..kMaxExpansion
constexpr size_t kReserved = 12;       // u32, 0
constexpr size_t kSeed = 16;           // u64: every sub-filter's key-hash seed
}  // namespace stack_field

namespace v4_field {
constexpr size_t kFamily = 6;           // u8: kTypeCuckoo or kTypeBloom
constexpr size_t kEncoding = 7;         // u8: TableEncoding (cuckoo), 0 (Bloom)
constexpr size_t kScheme = 8;           // u8: kScheme* of the family
constexpr size_t kGrowth = 9;           // u8: kGrowthNone or kGrowthGeometric
constexpr size_t kHashId = 10;          // u8: kHashIdXxh3_64
constexpr size_t kSubFilterCount = 11;  // u8: S, 1..MaxSubFilters(family) (1 without growth)
constexpr size_t kExpansion = 12;       // u32: 0 without growth, else 2..kMaxExpansion
constexpr size_t kSeed = 16;            // u64: every sub-filter's key-hash seed
constexpr size_t kReserved = 24;        // u64, 0
}  // namespace v4_field
static_assert(v4_field::kFamily == stack_field::kType, "the family byte sits where the type byte does");
static_assert(v4_field::kReserved + 8 == kHeaderV4Bytes, "version 4 header layout");

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
};
// StackHeader::encoding of a version-2 cuckoo stack: each section's own.
constexpr uint8_t kEncodingFromSections = 0xff;

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
// result, patch.cc). Same statuses otherwise.
Status ReadStackLayout(const uint8_t* data, size_t len, uint16_t version, StackHeader* header,
                       uint64_t section_offsets[kMaxSubFilters + 1]);

constexpr size_t kBloomSectionHeaderBytes = 48;

namespace bloom_field {
constexpr size_t kHashCount = 0;          // u32: k, 1..64
constexpr size_t kReserved = 4;           // u32, 0
constexpr size_t kBitCount = 8;           // u64: m, 1..2^32-1
constexpr size_t kCapacity = 16;          // u64: keys sized for, >= 1
constexpr size_t kItemCount = 24;         // u64: keys added
constexpr size_t kFalsePositiveRate = 32; // f64 (IEEE 754 binary64): ε sized for, in (0, 1)
constexpr size_t kWordBytes = 40;         // u64: W = ceil(m / 64) * 8
}  // namespace bloom_field

struct BloomSection {
  uint32_t hash_count = 0;
  uint64_t bit_count = 0;
  uint64_t capacity = 0;
  uint64_t item_count = 0;
  double false_positive_rate = 0;
  uint64_t word_bytes = 0;
  const uint8_t* words = nullptr;  // inside the file
};

// Bytes of a Bloom section with `word_bytes` bytes of bits.
inline uint64_t BloomSectionBytes(uint64_t word_bytes) { return kBloomSectionHeaderBytes + word_bytes; }

void WriteBloomSection(const BloomSection& section, const uint64_t* words, uint8_t* out);

// The fields of the Bloom section data[0, len) (len as ReadStack delimited
// it): kFormatBadParameter if a field is out of range or W does not match m
// or len, kFormatBadPadding if a bit past m is set.
Status ReadBloomSection(const uint8_t* data, size_t len, BloomSection* out);

// ---------------------------------------------------------------------------
// Redis Bloom filter sections (family 4, version 4; FORMAT.md "Redis Bloom
// filter (family 4)"): one per link, a 48-byte header and the bit array.

constexpr size_t kRedisBloomSectionHeaderBytes = 48;
// Most growth of a Redis filter (BF.RESERVE's EXPANSION, Redis 8's range).
constexpr uint32_t kRedisMaxExpansion = 32768;

namespace redis_bloom_field {
constexpr size_t kEntries = 0;  // u64: items the link is sized for
constexpr size_t kSize = 8;     // u64: items added to the link
constexpr size_t kError = 16;   // f64: the link's error rate
constexpr size_t kBpe = 24;     // f64: bits per entry
constexpr size_t kHashes = 32;  // u32
constexpr size_t kGrowth = 36;  // u32: the SCANDUMP header's growth, the same in every section
constexpr size_t kBits = 40;    // u64: a multiple of 64; the array is bits / 8 bytes
}  // namespace redis_bloom_field

struct RedisBloomSection {
  uint64_t entries = 0;
  uint64_t size = 0;
  double error = 0;
  double bpe = 0;
  uint32_t hashes = 0;
  uint32_t growth = 0;
  uint64_t bits = 0;
  const uint8_t* data = nullptr;  // bits / 8 bytes, inside the file
};

inline uint64_t RedisBloomSectionBytes(uint64_t bytes) {
  return kRedisBloomSectionHeaderBytes + bytes;
}
void WriteRedisBloomSection(const RedisBloomSection& section, uint8_t* out);
// The fields of the section data[0, len): kFormatBadParameter if bits is 0
// or not a multiple of 64 or the section is not 48 + bits / 8 bytes; the
// numbers' consistency is the family's to judge (redis_bloom.h).
Status ReadRedisBloomSection(const uint8_t* data, size_t len, RedisBloomSection* out);

// Bytes a section would need according to its length field, for ReadStack
// (saturating at UINT64_MAX); 0 if fewer than a section header's bytes remain.
uint64_t SectionBytes(uint8_t type, const uint8_t* data, uint64_t remaining);

// ---------------------------------------------------------------------------
// Redis cuckoo filter (family 3, version 4 only; FORMAT.md, "Redis cuckoo
// filter"): the version-4 stack header (encoding kEncodingRedisBytes, scheme
// kSchemeRedisCuckoo, hash id kHashIdMurmur64A, seed 0, expansion 0..32768),
// then per sub-filter a 32-byte section header and its table, one byte per
// slot, as CF.SCANDUMP returns it.

// Hash id of the Redis families: MurmurHash64A (murmur_hash.h).
constexpr uint8_t kHashIdMurmur64A = 2;
constexpr uint8_t kEncodingRedisBytes = 0;  // encoding: one byte per slot (byte_table.h)
// Scheme of the Redis cuckoo filter: fp = h % 255 + 1, i1 = h mod n,
// alt = (i ^ fp * 0x5bd1e995) mod n (redis_cuckoo.h).
constexpr uint8_t kSchemeRedisCuckoo = 1;
constexpr uint32_t kMaxRedisCuckooExpansion = 32768;
constexpr uint32_t kMaxRedisBucketSize = 255;
constexpr uint32_t kMaxRedisIterations = 65535;
// The hash id a version-4 header of family `type` carries (families.def's
// hash column, indexed by id: ids are 1, 2, ... in order, which
// common/family.h checks; 0 for a byte that names no family).
inline uint8_t HashIdFor(uint8_t type) {
  constexpr uint8_t kHashIdOf[kFamilyCount + 1] = {
      0,
#define CUCKOO_FAMILY(Name, id, prefix, Class, hash, ...) kHashId##hash,
#include "common/families.def"
  };
  return type <= kFamilyCount ? kHashIdOf[type] : 0;
}

constexpr size_t kRedisCuckooSectionHeaderBytes = 32;
namespace redis_cuckoo_field {
constexpr size_t kBucketCount = 0;    // u64: n, a power of two (n0 * e^j)
constexpr size_t kItemCount = 8;      // u64: non-empty slots
constexpr size_t kDeletes = 16;       // u64: section 0, the filter's numDeletes; later sections 0
constexpr size_t kBucketSize = 24;    // u16: b, 1..255, every section's
constexpr size_t kMaxIterations = 26; // u16: 1..65535, every section's
constexpr size_t kReserved = 28;      // u32, 0
}  // namespace redis_cuckoo_field

struct RedisCuckooSection {
  uint64_t bucket_count = 0;
  uint64_t item_count = 0;
  uint64_t deletes = 0;
  uint32_t bucket_size = 0;
  uint32_t max_iterations = 0;
  const uint8_t* table = nullptr;  // bucket_count * bucket_size bytes, inside the file
};

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

// CF.SCANDUMP's header chunk (iterator 1): 38 bytes, packed little-endian.
constexpr size_t kRedisCuckooHeaderBytes = 38;
namespace redis_cuckoo_dump_field {
constexpr size_t kNumItems = 0;       // u64
constexpr size_t kNumBuckets = 8;     // u64: sub-filter 0's
constexpr size_t kNumDeletes = 16;    // u64
constexpr size_t kNumFilters = 24;    // u64
constexpr size_t kBucketSize = 32;    // u16
constexpr size_t kMaxIterations = 34; // u16
constexpr size_t kExpansion = 36;     // u16
}  // namespace redis_cuckoo_dump_field

struct RedisCuckooDumpHeader {
  uint64_t num_items = 0;
  uint64_t num_buckets = 0;
  uint64_t num_deletes = 0;
  uint64_t num_filters = 0;
  uint32_t bucket_size = 0;
  uint32_t max_iterations = 0;
  uint32_t expansion = 0;
};
void WriteRedisCuckooDumpHeader(const RedisCuckooDumpHeader& header, uint8_t* out);
// The fields of a header chunk of exactly kRedisCuckooHeaderBytes bytes
// (the caller checks the length); ranges are the caller's to check.
RedisCuckooDumpHeader ReadRedisCuckooDumpHeader(const uint8_t* data);

}  // namespace format
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_FORMAT_FORMAT_H_
