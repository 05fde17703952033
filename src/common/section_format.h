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

  uint64_t header_bytes = 0;
  uint64_t body_bytes = 0;
  Body body = Body::kBits;
  bool checksum = false;  // 8 bytes after the body: XXH3-64 of the section before them
  // kSlots: the table's encoding (or kByteTable) and shape, and its
  // alternate-bucket function (kLevel: level `level` of a stack whose level 0
  // has `base_bucket_count` buckets, growing by `expansion`).
  uint8_t table = 0;
  Alt alt = Alt::kLevel;
  uint32_t bucket_size = 0;
  uint32_t fingerprint_bits = 0;
  uint64_t bucket_count = 0;
  uint32_t level = 0;
  uint32_t expansion = 0;
  uint64_t base_bucket_count = 0;
};

// The shape of a section that is a header of `header` bytes and a bit array
// (the Bloom families), of `n` bytes in all.
inline Status BitsSectionShape(uint64_t header, uint64_t n, SectionShape* out) {
  if (n < header) return Status::kFormatTruncated;
  out->header_bytes = header;
  out->body_bytes = n - header;
  out->body = SectionShape::Body::kBits;
  return Status::kOk;
}

// A family's sections, as the stack reader and the patch layout see them.
struct SectionFormat {
  // The section header's fields; a patch compares sub-filter 0's named ones.
  HeaderLayout header;
  // A growing stack's expansion range, and the most sub-filters a file holds
  // (<= kMaxSubFilters, format/format.h).
  uint32_t min_expansion;
  uint32_t max_expansion;
  uint32_t max_sub_filters;
  // Versions 2 and 3 (bit v set if version v may hold the family), and what
  // those versions imply for the fields version 4 writes: the encoding, and
  // the scheme in version 2 and in version 3.
  uint8_t legacy_versions;
  uint8_t legacy_encoding;
  uint8_t legacy_scheme[2];
  // True if a version-4 header's encoding, scheme and seed are the family's.
  bool (*StackFieldsOk)(uint8_t encoding, uint8_t scheme, uint64_t seed);
  // Bytes the section at `section` would need according to its length
  // field (saturating at UINT64_MAX); 0 if fewer than its header's bytes
  // remain.
  uint64_t (*Length)(const uint8_t* section, uint64_t remaining);
  // The shape of section j of `n` bytes at `section` (n as the stack's
  // reader delimited it), in a stack of growth `expansion`, checking the
  // fields that give it: kFormatBadParameter or kFormatTruncated if they do
  // not. `*base` carries what section 0 tells the later ones (set at j = 0).
  Status (*Shape)(const uint8_t* section, uint64_t n, uint32_t j, uint32_t expansion,
                  uint64_t* base, SectionShape* out);
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
