// The binary fuse filter's file (docs/FORMAT.md, "Binary fuse filter (family
// 5)", version 4 only): the version-4 stack header (family 5, encoding 0,
// scheme = the arity, 3 or 4; no growth; one section), one section, the
// checksum. The section is a 48-byte header and the table of fingerprints,
// array_length values of f bits packed little-endian (value p at bits
// p*f ..), the bits past the last value 0. BinaryFuseFilter
// (binary_fuse_filter.h) reads and writes it; the native tests and the fuzz
// targets read its offsets from here.
#ifndef CUCKOO_WASM_SRC_FUSE_FUSE_FORMAT_H_
#define CUCKOO_WASM_SRC_FUSE_FUSE_FORMAT_H_

#include <cstddef>
#include <cstdint>

#include "common/format_frame.h"
#include "common/section_format.h"
#include "status.h"

namespace cuckoo {
namespace format {

// Version 4's scheme byte of a binary fuse filter: its arity (fuse_keys.h).
constexpr uint8_t kSchemeFuseThreeWise = 3;
constexpr uint8_t kSchemeFuseFourWise = 4;

constexpr size_t kFuseSectionHeaderBytes = 48;

// The section header's fields (format_frame.h's field-list rows: name,
// member, wire type, offset, the name a patch compares it under, and the
// BinaryFuseFilter getter it is written from).
#define CUCKOO_FUSE_SECTION_FIELDS(X)                                                                  \
  X(KeyCount, key_count, U64, 0, "", from.size())                     /* distinct keys, <= array length */ \
  X(ConstructionSeed, construction_seed, U64, 8, "", from.construction_seed()) /* s of fuse_keys.h */   \
  X(FingerprintBits, fingerprint_bits, U32, 16, "fingerprint bits", from.fingerprint_bits()) /* f, 8..16 */ \
  X(Arity, arity, U32, 20, "arity", from.arity())                     /* 3 or 4, the header's scheme */ \
  X(SegmentLength, segment_length, U32, 24, "segment length", from.segment_length()) /* 2^2..2^18 */    \
  X(SegmentCount, segment_count, U32, 28, "segment count", from.segment_count())     /* >= 1 */          \
  X(ArrayLength, array_length, U64, 32, "", from.array_length()) /* (count + arity - 1) * length */      \
  X(FingerprintBytes, fingerprint_bytes, U64, 40, "", from.fingerprint_bytes()) /* ceil(array length * f / 8) */

namespace fuse_field {
CUCKOO_FUSE_SECTION_FIELDS(CUCKOO_FIELD_OFFSET)
}  // namespace fuse_field

struct FuseSection {
  CUCKOO_FUSE_SECTION_FIELDS(CUCKOO_FIELD_MEMBER)
  const uint8_t* fingerprints = nullptr;  // fingerprint_bytes bytes, inside the file
};
CUCKOO_HEADER_LAYOUT(kFuseSectionLayout, FuseSection, CUCKOO_FUSE_SECTION_FIELDS, 0,
                     kFuseSectionHeaderBytes);

inline uint64_t FuseSectionBytes(uint64_t fingerprint_bytes) {
  return kFuseSectionHeaderBytes + fingerprint_bytes;
}

// Writes the section header, then `section.fingerprint_bytes` bytes of
// `section.fingerprints`.
void WriteFuseSection(const FuseSection& section, uint8_t* out);

// The fields of the section data[0, len): kFormatTruncated if shorter than
// its header; kFormatBadParameter if f is not 8..16, the arity not 3 or 4,
// the segment length not a power of two in 4..2^18, the segment count 0, the
// array length not (count + arity - 1) * length or past 2^32 - 1, the
// fingerprint bytes not ceil(array length * f / 8), the section not 48 +
// those bytes, or the key count above the array length; kFormatBadPadding if
// a bit past the last value is set.
Status ReadFuseSection(const uint8_t* data, size_t len, FuseSection* out);

// The binary fuse filter's section for the stack reader and patches.
extern const SectionFormat kBinaryFuseSectionFormat;

}  // namespace format
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_FUSE_FUSE_FORMAT_H_
