// The Redis Bloom filter's sections (docs/FORMAT.md, "Redis Bloom filter
// (family 4)", version 4 only): one per link, a 48-byte header and the bit
// array. RedisBloomFamily (redis_bloom.cc) moves a link's values in and out
// of a RedisBloomSection; the native tests and the fuzz targets read the
// offsets from here.
#ifndef CUCKOO_WASM_SRC_REDIS_REDIS_BLOOM_FORMAT_H_
#define CUCKOO_WASM_SRC_REDIS_REDIS_BLOOM_FORMAT_H_

#include <cstddef>
#include <cstdint>

#include "common/format_frame.h"
#include "common/section_format.h"
#include "status.h"

namespace cuckoo {
namespace format {

// Redis BF: bit (a + i*b) mod bits of MurmurHash64A's a and b (redis_bloom.h).
constexpr uint8_t kSchemeRedisBloom = 1;
// Most growth of a Redis filter (BF.RESERVE's EXPANSION, Redis 8's range).
constexpr uint32_t kRedisMaxExpansion = 32768;

constexpr size_t kRedisBloomSectionHeaderBytes = 48;

// The section header's fields (format_frame.h's field-list rows: name,
// member, wire type, offset, the name a patch compares it under, and the
// RedisBloomLink getter it is written from).
#define CUCKOO_REDIS_BLOOM_SECTION_FIELDS(X)                                                  \
  X(Entries, entries, U64, 0, "capacity", from.entries())   /* items the link is sized for */ \
  X(Size, size, U64, 8, "", from.size())                    /* items added to the link */     \
  X(Error, error, F64, 16, "error rate", from.error())      /* the link's error rate */       \
  X(Bpe, bpe, F64, 24, "", from.bpe())                      /* bits per entry */              \
  X(Hashes, hashes, U32, 32, "hash count", from.hashes())                                     \
  X(Growth, growth, U32, 36, "growth", from.growth()) /* the SCANDUMP header's, every section's */ \
  X(Bits, bits, U64, 40, "bit count", from.bits()) /* a multiple of 64; the array is bits / 8 bytes */

namespace redis_bloom_field {
CUCKOO_REDIS_BLOOM_SECTION_FIELDS(CUCKOO_FIELD_OFFSET)
}  // namespace redis_bloom_field

struct RedisBloomSection {
  CUCKOO_REDIS_BLOOM_SECTION_FIELDS(CUCKOO_FIELD_MEMBER)
  const uint8_t* data = nullptr;  // bits / 8 bytes, inside the file
};
CUCKOO_HEADER_LAYOUT(kRedisBloomSectionLayout, RedisBloomSection, CUCKOO_REDIS_BLOOM_SECTION_FIELDS,
                     0, kRedisBloomSectionHeaderBytes);

inline uint64_t RedisBloomSectionBytes(uint64_t bytes) {
  return kRedisBloomSectionHeaderBytes + bytes;
}
// Writes the section header, then `section.bits / 8` bytes of `section.data`.
void WriteRedisBloomSection(const RedisBloomSection& section, uint8_t* out);
// The fields of the section data[0, len): kFormatBadParameter if bits is 0
// or not a multiple of 64 or the section is not 48 + bits / 8 bytes; the
// numbers' consistency is the family's to judge (redis_bloom.h).
Status ReadRedisBloomSection(const uint8_t* data, size_t len, RedisBloomSection* out);

// The Redis Bloom filter's sections for the stack reader and patches.
extern const SectionFormat kRedisBloomSectionFormat;

// BF.SCANDUMP's header chunk (iterator 1): a header, then one record per link
// (RedisBloom's dumpedChainHeader and dumpedChainLink, packed little-endian).
constexpr size_t kRedisBloomDumpHeaderBytes = 20;
constexpr size_t kRedisBloomDumpLinkBytes = 53;
// Each field written from the RedisBloomFilter expression its last column
// gives.
#define CUCKOO_REDIS_BLOOM_DUMP_FIELDS(X)                                          \
  X(Total, total, U64, 0, "", from.size())   /* items in every link */         \
  X(Links, links, U32, 8, "", from.sub_filter_count())                         \
  X(Options, options, U32, 12, "",                                             \
    from.non_scaling() ? kRedisBloomOptionsNonScaling : kRedisBloomOptions) /* redis_bloom.h */ \
  X(Growth, growth, U32, 16, "", from.growth())
// A link's record, each field written from the RedisBloomLink getter that
// its last column names.
#define CUCKOO_REDIS_BLOOM_DUMP_LINK_FIELDS(X)               \
  X(Bytes, bytes, U64, 0, "", from.bytes())                 \
  X(Bits, bits, U64, 8, "", from.bits())                    \
  X(Size, size, U64, 16, "", from.size())                   \
  X(Error, error, F64, 24, "", from.error())                \
  X(Bpe, bpe, F64, 32, "", from.bpe())                      \
  X(Hashes, hashes, U32, 40, "", from.hashes())             \
  X(Entries, entries, U64, 44, "", from.entries())          \
  X(N2, n2, U8, 52, "", 0) /* 0: NOROUND filters */

struct RedisBloomDumpHeader {
  CUCKOO_REDIS_BLOOM_DUMP_FIELDS(CUCKOO_FIELD_MEMBER)
};
CUCKOO_HEADER_LAYOUT(kRedisBloomDumpLayout, RedisBloomDumpHeader, CUCKOO_REDIS_BLOOM_DUMP_FIELDS, 0,
                     kRedisBloomDumpHeaderBytes);
struct RedisBloomDumpLink {
  CUCKOO_REDIS_BLOOM_DUMP_LINK_FIELDS(CUCKOO_FIELD_MEMBER)
};
CUCKOO_HEADER_LAYOUT(kRedisBloomDumpLinkLayout, RedisBloomDumpLink,
                     CUCKOO_REDIS_BLOOM_DUMP_LINK_FIELDS, 0, kRedisBloomDumpLinkBytes);

}  // namespace format
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_REDIS_REDIS_BLOOM_FORMAT_H_
