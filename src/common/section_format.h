// What the stack format (format/format.h) and the patch layout
// (patch/patch_layout.h) need to know of a family's sections, as one
// descriptor each family gives in its own folder (cuckoo/cuckoo_format.h,
// bloom/bloom_format.h, redis/redis_cuckoo_format.h,
// redis/redis_bloom_format.h), and the one table of them, indexed by family
// id (common/families.def), defined in registry/section_formats.cc, the file
// above every family. Below the families, so that each can fill one in.
#ifndef CUCKOO_WASM_SRC_COMMON_SECTION_FORMAT_H_
#define CUCKOO_WASM_SRC_COMMON_SECTION_FORMAT_H_

#include <cstddef>
#include <cstdint>

#include "common/family.h"
#include "common/format_frame.h"
#include "status.h"

namespace cuckoo {
namespace format {

// Sub-filters of a stack: the count byte's range, which bounds every family's
// file. A family bounds its own further (SectionFormat::max_sub_filters):
// this library's cuckoo and Bloom filters grow to kMaxGrowthSubFilters;
// RedisBloom's filters grow past that on the server (a CF.INSERT that starts
// below 32 sub-filters, a Bloom chain, which has no limit there), so their
// files hold up to 255.
constexpr uint32_t kMaxSubFilters = 255;
constexpr uint32_t kMaxGrowthSubFilters = 32;
// The expansion of this library's growing cuckoo and Bloom filters: 2..kMaxExpansion.
constexpr uint32_t kMaxExpansion = 1024;
// StackHeader::encoding of a version-2 cuckoo stack: each section's own.
constexpr uint8_t kEncodingFromSections = 0xff;

// How a patch (docs/FORMAT.md §17.2) sees one section: its header bytes
// (compared and coded as bytes), then its body, then, for a family whose
// section is a whole file, the section's own checksum.
struct SectionShape {
  enum class Body : uint8_t { kSlots, kBits };
  // A slot table's alternate-bucket function: the cuckoo filter's per-level
  // one (cuckoo/cuckoo_keys.h LevelKeys) or RedisBloom's (RedisKeys).
  enum class Alt : uint8_t { kLevel, kRedis };
  // The byte table of the Redis cuckoo filter (one byte per slot), besides
  // the encodings of cuckoo/table_encodings.def.
  static constexpr uint8_t kByteTable = 0xff;

  // Given: section `level` of a stack of growth `expansion` is `bytes` long
  // (as the stack's reader delimited it). base_bucket_count carries what
  // section 0 tells the later ones: a family that needs it sets it at level 0.
  uint64_t bytes = 0;
  uint32_t level = 0;
  uint32_t expansion = 0;
  uint64_t base_bucket_count = 0;
  // Found.
  uint64_t header_bytes = 0;
  uint64_t body_bytes = 0;
  Body body = Body::kBits;
  bool checksum = false;  // 8 bytes after the body: XXH3-64 of the section before them
  // kSlots: the table's encoding (or kByteTable) and shape, and its
  // alternate-bucket function (kLevel: that of level `level` of a stack whose
  // level 0 has base_bucket_count buckets).
  uint8_t table = 0;
  Alt alt = Alt::kLevel;
  uint32_t bucket_size = 0;
  uint32_t fingerprint_bits = 0;
  uint64_t bucket_count = 0;
};

// SectionFormat::Shape of a section that is a header of `kHeader` bytes and
// a bit array (the Bloom families).
template <uint64_t kHeader>
Status BitsSectionShape(const uint8_t*, SectionShape* shape) {
  if (shape->bytes < kHeader) return Status::kFormatTruncated;
  shape->header_bytes = kHeader;
  shape->body_bytes = shape->bytes - kHeader;
  shape->body = SectionShape::Body::kBits;
  return Status::kOk;
}

// The field of `layout` at byte `offset` (null if none starts there).
constexpr const HeaderField* FieldAt(const HeaderLayout& layout, size_t offset) {
  for (uint8_t i = 0; i < layout.count; ++i) {
    if (layout.fields[i].offset == offset) return &layout.fields[i];
  }
  return nullptr;
}

// A family's sections, as the stack reader and the patch layout see them:
// numbers where they can be (the module's table then holds no function
// taking a 64-bit argument, which a build without BigInt would wrap in JS).
struct SectionFormat {
  // The section header's fields; a patch compares sub-filter 0's named ones.
  const HeaderLayout* header;
  // The section's length from its header (format::SectionLength):
  // header->bytes + trailer_bytes + (length's value >> length_shift), times
  // length_times's value if there is one.
  const HeaderField* length;
  const HeaderField* length_times;
  uint8_t length_shift;
  uint8_t trailer_bytes;
  // What a version-4 stack header of the family holds: bit e of `encodings`
  // set if e is an encoding byte of it, bit s of `schemes` if s is a scheme
  // byte; seed_zero if its seed must be 0.
  uint8_t encodings;
  uint8_t schemes;
  bool seed_zero;
  // Versions 2 and 3 (bit v set if version v may hold the family), and what
  // those versions imply for the fields version 4 writes: the encoding, and
  // the scheme in version 2 and in version 3.
  uint8_t legacy_versions;
  uint8_t legacy_encoding;
  uint8_t legacy_scheme[2];
  // A growing stack's expansion range, and the most sub-filters a file holds
  // (<= kMaxSubFilters).
  uint8_t min_expansion;
  uint16_t max_expansion;
  uint8_t max_sub_filters;
  // The shape of the section at `section` (SectionShape's given fields
  // filled in), checking the fields that give it: kFormatBadParameter or
  // kFormatTruncated if they do not.
  Status (*Shape)(const uint8_t* section, SectionShape* shape);
};

// Each family's SectionFormat, indexed by family id (0: none).
extern const SectionFormat* const kSectionFormats[kFamilyCount + 1];

// The SectionFormat of family `type`, or null if `type` names none.
inline const SectionFormat* SectionFormatOf(uint8_t type) {
  return KnownFamily(type) ? kSectionFormats[type] : nullptr;
}

}  // namespace format
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_COMMON_SECTION_FORMAT_H_
