#include "format/format.h"

#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace format {

namespace {

const HeaderLayout& StackLayoutOf(uint16_t version) {
  return version == kFormatVersionExplicit ? kStackV4Layout : kStackLayout;
}

// True if bit `bit` of `mask` is set.
bool Has(uint32_t mask, uint32_t bit) { return bit < 32 && ((mask >> bit) & 1) != 0; }

// True if a stack of `version` 2 or 3 may hold sections of `family`.
bool LegacyHolds(const SectionFormat& family, uint16_t version) {
  return Has(family.legacy_versions, version);
}

}  // namespace

uint64_t SectionLength(const SectionFormat& family, const uint8_t* section, uint64_t remaining) {
  if (remaining < family.header->bytes) return 0;
  uint64_t n = FieldValue(section, *family.length) >> family.length_shift;
  if (family.length_times != nullptr) {
    const uint64_t times = FieldValue(section, *family.length_times);
    if (times != 0 && n > UINT64_MAX / times) return UINT64_MAX;
    n *= times;
  }
  const uint64_t fixed = uint64_t{family.header->bytes} + family.trailer_bytes;
  return n > UINT64_MAX - fixed ? UINT64_MAX : n + fixed;
}

void WriteStackHeader(const StackHeader& h, uint8_t* out) {
  WritePrefix(h.version, out);
  StackHeader written = h;
  written.hash_id = HashIdFor(h.type);
  written.reserved = 0;
  WriteFields(StackLayoutOf(h.version), &written, out);
}

uint8_t FileType(const uint8_t* data, size_t len, uint16_t version) {
  if (version == kFormatVersion) return kTypeCuckoo;
  if (len <= stack_field::kType) return 0;
  const uint8_t type = data[stack_field::kType];
  const SectionFormat* family = SectionFormatOf(type);
  if (family == nullptr) return 0;
  // Version 4 holds every family; versions 2 and 3 those that predate it
  // (version 3 only Bloom filters: another type byte names no type, and
  // ReadStack refuses it as a bad parameter).
  return version == kFormatVersionExplicit || LegacyHolds(*family, version) ? type : 0;
}

namespace {

// The fields of a version-2 or version-3 stack header, with what the version
// implies (StackHeader); false if one is out of range.
bool ReadLegacyStackHeader(const uint8_t* data, uint16_t version, StackHeader* h) {
  ReadFields(kStackLayout, data, h);
  h->growth = h->expansion == 0 ? kGrowthNone : kGrowthGeometric;
  const SectionFormat* family = SectionFormatOf(h->type);
  if (family == nullptr || !LegacyHolds(*family, version)) return false;
  h->encoding = family->legacy_encoding;
  h->scheme = family->legacy_scheme[version - kFormatVersionStack];
  return h->reserved == 0;
}

// The fields of a version-4 header; false if one is out of range for its
// family or the growth byte disagrees with the expansion.
bool ReadExplicitHeader(const uint8_t* data, StackHeader* h) {
  ReadFields(kStackV4Layout, data, h);
  const SectionFormat* family = SectionFormatOf(h->type);
  const bool growth_ok = h->growth == kGrowthNone
                             ? h->expansion == 0
                             : h->growth == kGrowthGeometric && h->expansion != 0;
  return family != nullptr && Has(family->encodings, h->encoding) &&
         Has(family->schemes, h->scheme) && (!family->seed_zero || h->seed == 0) && growth_ok && h->hash_id == HashIdFor(h->type) && h->reserved == 0;
}

}  // namespace

Status ReadStack(const uint8_t* data, size_t len, uint16_t version, StackHeader* out,
                 uint64_t offsets[kMaxSubFilters + 1]) {
  StackHeader h;
  FileView file(data, len);
  const Status s = ReadStackLayout(file, version, &h, offsets);
  if (s != Status::kOk) return s;
  // Check 9.
  if (!ChecksumMatches(data, len - kChecksumBytes)) return Status::kFormatChecksumMismatch;
  *out = h;
  return Status::kOk;
}

Status ReadStackLayout(FileView& file, uint16_t version, StackHeader* out,
                       uint64_t offsets[kMaxSubFilters + 1]) {
  const size_t len = file.size();
  const size_t header_bytes = StackHeaderBytes(version);
  // Check 5: the stack header and a checksum fit.
  if (len < header_bytes + kChecksumBytes) return Status::kFormatTruncated;
  StackHeader h;
  h.version = version;
  const uint8_t* data = file.At(0, header_bytes);
  const bool fields_ok = version == kFormatVersionExplicit
                             ? ReadExplicitHeader(data, &h)
                             : ReadLegacyStackHeader(data, version, &h);
  // Check 6: the stack header's fields, the expansion and the count in the
  // family's ranges (fields_ok: h.type is a family).
  const SectionFormat* family = SectionFormatOf(h.type);
  if (!fields_ok || family == nullptr) return Status::kFormatBadParameter;
  const bool growth_ok = h.expansion == 0 ? h.sub_filter_count == 1
                                          : h.expansion >= family->min_expansion &&
                                                h.expansion <= family->max_expansion;
  if (h.sub_filter_count == 0 || h.sub_filter_count > family->max_sub_filters || !growth_ok) {
    return Status::kFormatBadParameter;
  }
  // Checks 7-8: each section's length field, then the whole length.
  const uint64_t body = len - kChecksumBytes;
  uint64_t at = header_bytes;
  for (uint32_t j = 0; j < h.sub_filter_count; ++j) {
    offsets[j] = at;
    const uint64_t remaining = body - at;
    const uint64_t n = SectionLength(
        *family, file.At(at, remaining < family->header->bytes ? remaining : family->header->bytes),
        remaining);
    if (n == 0 || n > body - at) return Status::kFormatTruncated;
    at += n;
  }
  offsets[h.sub_filter_count] = at;
  if (at < body) return Status::kFormatTrailingBytes;
  *out = h;
  return Status::kOk;
}

}  // namespace format
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
