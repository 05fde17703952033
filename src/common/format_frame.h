// What every file of the byte format (docs/FORMAT.md) has, whatever its
// version and family (FORMAT.md §9): little-endian integers, the version
// numbers, the prefix ("CKOO" and the u16 version) and the trailing checksum.
// Below the families, so that a family's own section reader and writer
// (cuckoo/cuckoo_format.h) and the format's stack (format/format.h) share it.
#ifndef CUCKOO_WASM_SRC_COMMON_FORMAT_FRAME_H_
#define CUCKOO_WASM_SRC_COMMON_FORMAT_FRAME_H_

#include <cstddef>
#include <cstdint>

#include "status.h"

namespace cuckoo {
namespace format {

// ---------------------------------------------------------------------------
// Little-endian integers.

inline void PutU16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline void PutU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint16_t GetU16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t GetU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// ---------------------------------------------------------------------------
// Common to every filter type: the prefix and the checksum.

// Version 1: one cuckoo filter that does not grow (FORMAT.md §2-§4); also the
// layout of a cuckoo sub-filter's section in every stack.
constexpr uint16_t kFormatVersion = 1;
// Version 2: any filter type, with its sub-filters (FORMAT.md §11); for a
// Bloom filter, positions by enhanced double hashing mod m (§11.6).
constexpr uint16_t kFormatVersionStack = 2;
// Version 3: version 2's layout for a Bloom filter whose bit positions are
// independent (FORMAT.md §11.6).
constexpr uint16_t kFormatVersionBloom = 3;
// Version 4: the stack with an explicit header (FORMAT.md §14); what this
// build writes for every new filter. Readers refuse versions other than 1 to 4
// (FORMAT.md §9). A filter read from version 1, 2 or 3 writes that version back.
constexpr uint16_t kFormatVersionExplicit = 4;
constexpr uint16_t kFormatVersionLatest = kFormatVersionExplicit;
// True for the versions this build reads.
inline bool KnownVersion(uint16_t v) { return v >= kFormatVersion && v <= kFormatVersionLatest; }
constexpr uint8_t kMagic[4] = {'C', 'K', 'O', 'O'};
constexpr size_t kMagicOffset = 0;
constexpr size_t kVersionOffset = 4;  // u16
constexpr size_t kPrefixBytes = 6;
constexpr size_t kChecksumBytes = 8;  // u64 XXH3-64, seed 0, of every byte before it

// Writes the magic and `version` to out[0, kPrefixBytes).
void WritePrefix(uint16_t version, uint8_t* out);

// FORMAT.md §7 checks 1-3: kFormatTruncated if `len` < 4, kFormatBadMagic,
// kFormatTruncated if `len` < kPrefixBytes; else kOk and the version in
// *version, for the caller to accept or refuse (check 4).
Status ReadPrefix(const uint8_t* data, size_t len, uint16_t* version);

// Writes the checksum (cuckoo::Checksum, hash.h) of file[0, body_bytes) at
// file + body_bytes.
void WriteChecksum(uint8_t* file, size_t body_bytes);

// True if the u64 at file + body_bytes is the checksum of file[0, body_bytes).
bool ChecksumMatches(const uint8_t* file, size_t body_bytes);

}  // namespace format
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_COMMON_FORMAT_FRAME_H_
