#include "common/format_frame.h"

#include <cstring>

#include "common/hash.h"
#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace format {

uint64_t FieldValue(const uint8_t* header, const HeaderField& f) {
  uint64_t v = 0;
  for (int i = f.bytes - 1; i >= 0; --i) v = (v << 8) | header[f.offset + i];
  return v;
}

void ReadFields(const HeaderLayout& layout, const uint8_t* in, void* out) {
  for (const HeaderField* f = layout.fields; f != layout.fields + layout.count; ++f) {
    // The member's bytes, least significant first (the core's targets are
    // little-endian: cuckoo/packed_table.h).
    const uint64_t v = FieldValue(in, *f);
    uint8_t* member = static_cast<uint8_t*>(out) + f->member;
    for (int i = 0; i < f->member_bytes; ++i) member[i] = static_cast<uint8_t>(v >> (8 * i));
  }
}

void WriteFields(const HeaderLayout& layout, const void* in, uint8_t* out) {
  for (const HeaderField* f = layout.fields; f != layout.fields + layout.count; ++f) {
    const uint8_t* member = static_cast<const uint8_t*>(in) + f->member;
    uint64_t v = 0;
    for (int i = f->member_bytes - 1; i >= 0; --i) v = (v << 8) | member[i];
    for (int i = 0; i < f->bytes; ++i) out[f->offset + i] = static_cast<uint8_t>(v >> (8 * i));
  }
}

void WritePrefix(uint16_t version, uint8_t* out) {
  std::memcpy(out + kMagicOffset, kMagic, sizeof kMagic);
  PutU16(out + kVersionOffset, version);
}

Status ReadPrefix(const uint8_t* data, size_t len, uint16_t* version) {
  // The magic is judged before a full prefix is required, and a prefix shorter
  // than the magic is truncated whatever it holds (FORMAT.md §7, notes).
  if (len < sizeof kMagic) return Status::kFormatTruncated;
  if (std::memcmp(data + kMagicOffset, kMagic, sizeof kMagic) != 0) return Status::kFormatBadMagic;
  if (len < kPrefixBytes) return Status::kFormatTruncated;
  *version = GetU16(data + kVersionOffset);
  return Status::kOk;
}

void WriteChecksum(uint8_t* file, size_t body_bytes) {
  PutU64(file + body_bytes, Checksum(file, body_bytes));
}

bool ChecksumMatches(const uint8_t* file, size_t body_bytes) {
  return GetU64(file + body_bytes) == Checksum(file, body_bytes);
}

}  // namespace format
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
