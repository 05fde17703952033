#include "fuse/fuse_format.h"

#include <cstring>

#include "common/size_optimized.h"
#include "fuse/fuse_layout.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace format {

void WriteFuseSection(const FuseSection& section, uint8_t* out) {
  WriteFields(kFuseSectionLayout, &section, out);
  std::memcpy(out + kFuseSectionHeaderBytes, section.fingerprints,
              static_cast<size_t>(section.fingerprint_bytes));
}

Status ReadFuseSection(const uint8_t* data, size_t len, FuseSection* out) {
  if (len < kFuseSectionHeaderBytes) return Status::kFormatTruncated;
  FuseSection s;
  ReadFields(kFuseSectionLayout, data, &s);
  s.fingerprints = data + kFuseSectionHeaderBytes;
  const bool power_of_two = s.segment_length != 0 && (s.segment_length & (s.segment_length - 1)) == 0;
  if (s.fingerprint_bits < kMinFuseFingerprintBits || s.fingerprint_bits > kMaxFuseFingerprintBits ||
      s.arity < kMinFuseArity || s.arity > kMaxFuseArity || !power_of_two ||
      s.segment_length < kMinFuseSegmentLength || s.segment_length > kMaxFuseSegmentLength ||
      s.segment_count == 0 ||
      s.array_length != (uint64_t{s.segment_count} + s.arity - 1) * s.segment_length ||
      s.array_length > kMaxFuseArrayLength ||
      uint64_t{s.segment_count} * s.segment_length > kMaxFuseArrayLength ||
      s.fingerprint_bytes != FuseFingerprintBytes(s.array_length, s.fingerprint_bits) ||
      FuseSectionBytes(s.fingerprint_bytes) != len || s.key_count > s.array_length) {
    return Status::kFormatBadParameter;
  }
  // The bits past the last value are 0.
  const uint64_t used = s.array_length * s.fingerprint_bits % 8;
  if (used != 0 && (s.fingerprints[s.fingerprint_bytes - 1] >> used) != 0) {
    return Status::kFormatBadPadding;
  }
  *out = s;
  return Status::kOk;
}

const SectionFormat kBinaryFuseSectionFormat = {
    &kFuseSectionLayout,
    // The header and the fingerprint bytes.
    FieldAt(kFuseSectionLayout, fuse_field::kFingerprintBytes), nullptr, 0, 0,
    // Version 4: encoding 0, the arity as the scheme, any seed.
    1u << 0, (1u << kSchemeFuseThreeWise) | (1u << kSchemeFuseFourWise), false,
    // Version 4 only.
    0, 0, {0, 0},
    // It never grows: one section, expansion 0 (no expansion is in range).
    1, 0, 1,
    BitsSectionShape<kFuseSectionHeaderBytes>,
};

}  // namespace format
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
