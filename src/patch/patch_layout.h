// The regions of a serialized filter of any family and format version, as a
// patch (patch.h, docs/FORMAT.md §17.2) codes them: bytes outside tables
// (headers, counters, PRNG state), cuckoo tables (slots, with the table's
// encoding and its alternate-bucket function), Bloom bit arrays, and
// checksums (made, not coded). One walker for every family: what differs
// between families is only which region a section's bytes are, which each
// family's SectionFormat gives as its sections' shape (common/section_format.h).
// Internal to the core.
#ifndef CUCKOO_WASM_SRC_PATCH_PATCH_LAYOUT_H_
#define CUCKOO_WASM_SRC_PATCH_PATCH_LAYOUT_H_

#include <cstddef>
#include <cstdint>

#include "cuckoo/cuckoo_keys.h"
#include "format/format.h"
#include "patch/patch.h"
#include "redis/redis_cuckoo.h"
#include "status.h"

namespace cuckoo {
namespace patch {

enum class RegionKind : uint8_t {
  kBytes,     // coded as byte edits
  kChecksum,  // 8 bytes: XXH3-64 of data[cover_from, offset), made by the decoder
  kSlots,     // a cuckoo table: slot operations
  kBits,      // a Bloom bit array: flipped bit positions
};

// How a kSlots region stores its slots: a cuckoo filter's table encoding
// (cuckoo/table_encodings.def, same numbers), or the Redis cuckoo filter's
// ByteTable, one byte per slot.
enum class SlotTable : uint8_t {
#define CUCKOO_TABLE_ENCODING(Name, id, ...) k##Name = id,
#include "cuckoo/table_encodings.def"
  kBytes = 0xff,
};
static_assert(static_cast<uint8_t>(SlotTable::kBytes) == format::SectionShape::kByteTable,
              "a section shape's byte table");

// Where a region sits in its file: in sub-filter `section` (kFileLevel for the
// stack header and the file's checksum), its header, body or checksum.
constexpr uint8_t kFileLevel = 0xff;
enum class Role : uint8_t { kHeader, kBody, kChecksum };

struct Region {
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t cover_from = 0;  // kChecksum
  RegionKind kind = RegionKind::kBytes;
  Role role = Role::kHeader;
  uint8_t section = kFileLevel;
  // kSlots: the table's shape and alternate-bucket function.
  SlotTable table = SlotTable{};
  bool redis_alt = false;  // RedisKeys (else LevelKeys)
  uint32_t bucket_size = 0;
  uint32_t fingerprint_bits = 0;
  uint64_t bucket_count = 0;
  LevelKeys level_keys;
  RedisKeys redis_keys;

  uint32_t Alt(uint32_t bucket, uint32_t fingerprint) const {
    return redis_alt ? redis_keys.Alt(bucket, fingerprint) : level_keys.Alt(bucket, fingerprint);
  }
};

constexpr uint32_t kMaxRegions = 2 + 3 * format::kMaxSubFilters;

struct Layout {
  uint16_t version = 0;
  uint8_t family = 0;               // format::kType*
  format::StackHeader stack;        // versions 2 to 4
  uint32_t sub_filters = 0;
  uint32_t count = 0;               // regions
  Region regions[kMaxRegions];

  // The region of sub-filter `section` in `role`, or null.
  const Region* Find(uint8_t section, Role role) const {
    for (uint32_t i = 0; i < count; ++i) {
      if (regions[i].section == section && regions[i].role == role) return &regions[i];
    }
    return nullptr;
  }
};

// The regions of the filter data[0, len), in file order, covering every
// byte. Checks what the walk needs and nothing more: the prefix and version,
// the stack header and section lengths (format::ReadStackLayout), and per
// section the fields that give its regions' lengths and table shape; no
// checksum, no table contents (a patch's result is walked before its tables
// and checksums are made; the family's Deserialize judges the rest).
// Statuses as the format readers (kFormatTruncated, kFormatBadParameter, ...).
// Reads only the headers, through `file`: a patch's result is walked before
// it is made (patch.cc), its length judged by what its headers give.
Status ReadLayout(format::FileView& file, Layout* out);
inline Status ReadLayout(const uint8_t* data, size_t len, Layout* out) {
  format::FileView file(data, len);
  return ReadLayout(file, out);
}

// True and *m if no patch joins `older` and `newer`, whose layouts are `lo`
// and `ln`: they differ in family, format version, a field of the stack
// header (encoding, scheme, growth, hash id, expansion, seed), a parameter of
// sub-filter 0 (cuckoo: encoding, f, b, m, max kicks, seed, capacity; Bloom:
// k, bits, capacity, rate; Redis cuckoo: buckets, b, max iterations; Redis
// Bloom: entries, error, hashes, growth, bits), or the size of a sub-filter
// both have.
bool FindMismatch(const Layout& lo, const uint8_t* older, const Layout& ln, const uint8_t* newer,
                  PatchMismatch* m);

}  // namespace patch
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_PATCH_PATCH_LAYOUT_H_
