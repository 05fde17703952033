#include "common/format_frame.h"

#include <cstring>

#include "common/hash.h"
#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace format {

namespace {

// The n-byte little-endian integer at p, and storing v's low n bytes there.
// A struct's members are read and written the same way: the core's targets
// are little-endian (cuckoo/packed_table.h).
uint64_t LoadLe(const uint8_t* p, unsigned n) {
  uint64_t v = 0;
  while (n-- > 0) v = (v << 8) | p[n];
  return v;
}
void StoreLe(uint8_t* p, unsigned n, uint64_t v) {
  for (unsigned i = 0; i < n; ++i, v >>= 8) p[i] = static_cast<uint8_t>(v);
}

}  // namespace

uint64_t FieldValue(const uint8_t* header, const HeaderField& f) {
  return LoadLe(header + f.offset, f.bytes);
}

void ReadFields(const HeaderLayout& layout, const uint8_t* in, void* out) {
  for (const HeaderField* f = layout.fields; f != layout.fields + layout.count; ++f) {
    StoreLe(static_cast<uint8_t*>(out) + f->member, f->member_bytes, FieldValue(in, *f));
  }
}

void WriteFields(const HeaderLayout& layout, const void* in, uint8_t* out) {
  for (const HeaderField* f = layout.fields; f != layout.fields + layout.count; ++f) {
    StoreLe(out + f->offset, f->bytes,
            LoadLe(static_cast<const uint8_t*>(in) + f->member, f->member_bytes));
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
