#include "bloom/bloom_format.h"

#include <cstring>

#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace format {

void WriteBloomSection(const BloomSection& b, const uint64_t* words, uint8_t* out) {
  WriteFields(kBloomSectionLayout, &b, out);  // the reserved field as constructed, 0
  // Words are little-endian in memory (packed_table.h refuses other targets).
  std::memcpy(out + kBloomSectionHeaderBytes, words, static_cast<size_t>(b.word_bytes));
}

Status ReadBloomSection(const uint8_t* data, size_t len, BloomSection* out) {
  if (len < kBloomSectionHeaderBytes) return Status::kFormatTruncated;
  BloomSection b;
  ReadFields(kBloomSectionLayout, data, &b);
  b.words = data + kBloomSectionHeaderBytes;
  if (b.hash_count == 0 || b.hash_count > 64 || b.reserved != 0 || b.bit_count == 0 ||
      b.bit_count > 0xffffffffULL || b.capacity == 0 ||
      !(b.false_positive_rate > 0 && b.false_positive_rate < 1) ||
      b.word_bytes != (b.bit_count + 63) / 64 * 8 || BloomSectionBytes(b.word_bytes) != len) {
    return Status::kFormatBadParameter;
  }
  // Bits from m to the end of the last word are 0.
  const uint64_t tail = b.bit_count % 64;
  if (tail != 0) {
    const uint64_t last = GetU64(b.words + b.word_bytes - 8);
    if ((last >> tail) != 0) return Status::kFormatBadPadding;
  }
  *out = b;
  return Status::kOk;
}

const SectionFormat kBloomSectionFormat = {
    &kBloomSectionLayout,
    // The header and W bytes of words.
    FieldAt(kBloomSectionLayout, bloom_field::kWordBytes), nullptr, 0, 0,
    // Version 4: no encoding, either scheme, any seed.
    1u << 0, (1u << kSchemeBloomDoubleHashing) | (1u << kSchemeBloomIndependent), false,
    // Versions 2 (double hashing) and 3 (independent positions).
    (1 << kFormatVersionStack) | (1 << kFormatVersionBloom), 0,
    {kSchemeBloomDoubleHashing, kSchemeBloomIndependent},
    2, kMaxExpansion, kMaxGrowthSubFilters,
    BitsSectionShape<kBloomSectionHeaderBytes>,
};

}  // namespace format
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
