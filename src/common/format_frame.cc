#include "common/format_frame.h"

#include <cstring>

#include "common/hash.h"
#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace format {

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
