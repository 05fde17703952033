// The Bloom filter's section of a stack (docs/FORMAT.md §11.5): a 48-byte
// header, then the bit array. BloomFamily (growth/scalable_filter.cc) moves a
// BloomFilter's values in and out of a BloomSection; the native tests and the
// fuzz targets read its offsets from here.
#ifndef CUCKOO_WASM_SRC_BLOOM_BLOOM_FORMAT_H_
#define CUCKOO_WASM_SRC_BLOOM_BLOOM_FORMAT_H_

#include <cstddef>
#include <cstdint>

#include "common/format_frame.h"
#include "common/section_format.h"
#include "status.h"

namespace cuckoo {
namespace format {

// Version 4's position scheme byte of a Bloom stack (§11.6, §14); versions 2
// and 3 imply one each.
constexpr uint8_t kSchemeBloomDoubleHashing = 1;  // enhanced double hashing mod m
constexpr uint8_t kSchemeBloomIndependent = 2;    // independent positions

constexpr size_t kBloomSectionHeaderBytes = 48;

// The section header's fields (format_frame.h's field-list rows: name,
// member, wire type, offset, the name a patch compares it under, and the
// BloomFilter getter it is written from).
#define CUCKOO_BLOOM_SECTION_FIELDS(X)                                                                        \
  X(HashCount, hash_count, U32, 0, "hash count", from.hash_count())          /* k, 1..64 */                   \
  X(Reserved, reserved, U32, 4, "", 0)                                         /* 0 */                          \
  X(BitCount, bit_count, U64, 8, "bit count", from.bit_count())               /* m, 1..2^32-1 */               \
  X(Capacity, capacity, U64, 16, "capacity", from.capacity())                 /* keys sized for, >= 1 */       \
  X(ItemCount, item_count, U64, 24, "", from.size())                          /* keys added */                 \
  X(FalsePositiveRate, false_positive_rate, F64, 32, "false-positive rate", from.false_positive_rate()) /* ε sized for, in (0, 1) */ \
  X(WordBytes, word_bytes, U64, 40, "", from.word_bytes())                    /* W = ceil(m / 64) * 8 */

namespace bloom_field {
CUCKOO_BLOOM_SECTION_FIELDS(CUCKOO_FIELD_OFFSET)
}  // namespace bloom_field

struct BloomSection {
  CUCKOO_BLOOM_SECTION_FIELDS(CUCKOO_FIELD_MEMBER)
  const uint8_t* words = nullptr;  // inside the file
};
CUCKOO_HEADER_LAYOUT(kBloomSectionLayout, BloomSection, CUCKOO_BLOOM_SECTION_FIELDS, 0,
                     kBloomSectionHeaderBytes);

// Bytes of a Bloom section with `word_bytes` bytes of bits.
inline uint64_t BloomSectionBytes(uint64_t word_bytes) { return kBloomSectionHeaderBytes + word_bytes; }

// Writes the section's header and its `section.word_bytes` bytes of `words`.
void WriteBloomSection(const BloomSection& section, const uint64_t* words, uint8_t* out);

// The fields of the Bloom section data[0, len) (len as ReadStack delimited
// it): kFormatBadParameter if a field is out of range or W does not match m
// or len, kFormatBadPadding if a bit past m is set.
Status ReadBloomSection(const uint8_t* data, size_t len, BloomSection* out);

// The Bloom filter's sections for the stack reader and patches.
extern const SectionFormat kBloomSectionFormat;

}  // namespace format
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_BLOOM_BLOOM_FORMAT_H_
