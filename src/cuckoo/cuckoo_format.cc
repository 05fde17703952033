#include "cuckoo/cuckoo_format.h"

#include <cstring>

#include "cuckoo/cuckoo_tables.h"
#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace format {

void WriteCuckoo(const CuckooHeader& h, const uint8_t* table, uint8_t* out) {
  WritePrefix(kFormatVersion, out);
  WriteFields(kCuckooHeaderLayout, &h, out);  // hash id and reserved fields as constructed
  std::memcpy(out + kCuckooHeaderBytes, table, h.table_bytes);
  WriteChecksum(out, kCuckooHeaderBytes + h.table_bytes);
}

namespace {

// The table's shape (f, b, encoding, m) is valid and T is its length.
bool TableShapeOk(const CuckooHeader& h) {
  const CuckooParams& p = h.params;
  return ValidFingerprintBits(p.fingerprint_bits) && ValidBucketSize(p.bucket_size) &&
         ValidEncoding(p.encoding, p.bucket_size) && h.bucket_count != 0 &&
         h.table_bytes ==
             TableByteLength(p.encoding, h.bucket_count, p.bucket_size, p.fingerprint_bits);
}

}  // namespace

Status ReadCuckooHeader(const uint8_t* data, size_t len, CuckooHeader* out) {
  uint16_t version = 0;
  const Status prefix = ReadPrefix(data, len, &version);
  if (prefix != Status::kOk) return prefix;
  if (version != kFormatVersion) return Status::kFormatUnsupportedVersion;
  if (len < kCuckooHeaderBytes + kChecksumBytes) return Status::kFormatTruncated;

  CuckooHeader h;
  ReadFields(kCuckooHeaderLayout, data, &h);
  // Check 6. m * b <= 2^35 and m * b * f <= 2^40: no product overflows.
  const uint64_t m = h.bucket_count;
  const uint64_t slots = m * h.params.bucket_size;
  if (h.hash_id != kHashIdXxh3_64 || h.reserved16 != 0 || h.reserved32 != 0 || !TableShapeOk(h) ||
      h.params.max_kicks > kMaxMaxKicks || h.params.capacity == 0 || h.params.capacity > slots) {
    return Status::kFormatBadParameter;
  }
  // Checks 7-9. table_bytes <= 2^37, so the sum cannot overflow.
  const uint64_t total = CuckooFileBytes(h.table_bytes);
  if (len < total) return Status::kFormatTruncated;
  if (len > total) return Status::kFormatTrailingBytes;
  if (!ChecksumMatches(data, kCuckooHeaderBytes + h.table_bytes)) {
    return Status::kFormatChecksumMismatch;
  }
  // Check 10: an empty victim is (0, 0); a victim fits in f bits and m buckets.
  const uint64_t fingerprint_max = (uint64_t{1} << h.params.fingerprint_bits) - 1;
  const bool victim_ok = h.victim_fingerprint == 0
                             ? h.victim_bucket == 0
                             : h.victim_fingerprint <= fingerprint_max && h.victim_bucket < m;
  if (!victim_ok) return Status::kFormatBadVictim;
  *out = h;
  return Status::kOk;
}

Status CheckCuckooTable(bool padding_is_zero, uint64_t occupied, const CuckooHeader& h) {
  if (!padding_is_zero) return Status::kFormatBadPadding;
  if (occupied + (h.victim_fingerprint != 0 ? 1 : 0) != h.item_count) {
    return Status::kFormatCountMismatch;
  }
  return Status::kOk;
}

namespace {

// Section j: sub-filter j of a stack whose sub-filter 0 has m0 buckets
// (CuckooFamily::CreateLevel): m0 * e^j buckets of f0 + j bit fingerprints.
Status CuckooSectionShape(const uint8_t* s, SectionShape* shape) {
  if (shape->bytes < kCuckooHeaderBytes + kChecksumBytes) return Status::kFormatTruncated;
  CuckooHeader h;
  ReadFields(kCuckooHeaderLayout, s, &h);
  const uint32_t j = shape->level;
  const uint32_t f = h.params.fingerprint_bits;
  const uint32_t b = h.params.bucket_size;
  const uint64_t m = h.bucket_count;
  if (j == 0) shape->base_bucket_count = m;
  uint64_t level_m = shape->base_bucket_count;
  for (uint32_t i = 0; i < j && level_m <= kMaxBucketCount; ++i) level_m *= shape->expansion;
  // f > j: level j's fingerprints have f0 = f - j >= 1 bits of level 0.
  if (!TableShapeOk(h) || f <= j || m != level_m || shape->bytes != CuckooFileBytes(h.table_bytes)) {
    return Status::kFormatBadParameter;
  }
  shape->header_bytes = kCuckooHeaderBytes;
  shape->body_bytes = h.table_bytes;
  shape->body = SectionShape::Body::kSlots;
  shape->checksum = true;
  shape->table = static_cast<uint8_t>(h.params.encoding);
  shape->alt = SectionShape::Alt::kLevel;
  shape->bucket_size = b;
  shape->fingerprint_bits = f;
  shape->bucket_count = m;
  return Status::kOk;
}

// The encoding bytes of table_encodings.def.
constexpr uint32_t kKnownEncodings = 0
#define CUCKOO_TABLE_ENCODING(Name, id, ...) | (uint32_t{1} << (id))
#include "cuckoo/table_encodings.def"
    ;

}  // namespace

const SectionFormat kCuckooSectionFormat = {
    &kCuckooHeaderLayout,
    // A whole file: the header, T table bytes, the checksum.
    FieldAt(kCuckooHeaderLayout, cuckoo_field::kTableBytes), nullptr, 0, kChecksumBytes,
    // Version 4: a known encoding (every section has it), the partial-key
    // scheme, any seed.
    kKnownEncodings, 1u << kSchemeCuckooPartialKey, false,
    // Version 2 holds cuckoo stacks, each section naming its encoding.
    1 << kFormatVersionStack, kEncodingFromSections, {kSchemeCuckooPartialKey, 0},
    2, kMaxExpansion, kMaxGrowthSubFilters,
    CuckooSectionShape,
};

}  // namespace format
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
