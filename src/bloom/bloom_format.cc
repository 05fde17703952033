#include "bloom/bloom_format.h"

#include <cstring>

#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace format {

void WriteBloomSection(const BloomSection& b, const uint64_t* words, uint8_t* out) {
  BloomSection written = b;
  written.reserved = 0;
  WriteFields(kBloomSectionLayout, &written, out);
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

namespace {

bool BloomStackFieldsOk(uint8_t encoding, uint8_t scheme, uint64_t) {
  return encoding == 0 && (scheme == kSchemeBloomDoubleHashing || scheme == kSchemeBloomIndependent);
}

uint64_t BloomSectionLength(const uint8_t* data, uint64_t remaining) {
  if (remaining < kBloomSectionHeaderBytes) return 0;
  const uint64_t words = GetU64(data + bloom_field::kWordBytes);
  return words > UINT64_MAX - kBloomSectionHeaderBytes ? UINT64_MAX
                                                       : words + kBloomSectionHeaderBytes;
}

// The header, then the bit array.
Status BloomSectionShape(const uint8_t*, uint64_t n, uint32_t, uint32_t, uint64_t*,
                         SectionShape* out) {
  return BitsSectionShape(kBloomSectionHeaderBytes, n, out);
}

}  // namespace

const SectionFormat kBloomSectionFormat = {
    kBloomSectionLayout,
    2, kMaxExpansion, kMaxGrowthSubFilters,
    // Versions 2 (double hashing) and 3 (independent positions).
    (1 << kFormatVersionStack) | (1 << kFormatVersionBloom), 0,
    {kSchemeBloomDoubleHashing, kSchemeBloomIndependent},
    BloomStackFieldsOk, BloomSectionLength, BloomSectionShape,
};

}  // namespace format
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
