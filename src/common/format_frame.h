// What every file of the byte format (docs/FORMAT.md) has, whatever its
// version and family (FORMAT.md §9): little-endian integers, the version
// numbers, the prefix ("CKOO" and the u16 version) and the trailing checksum.
// Below the families, so that a family's own section reader and writer
// (cuckoo/cuckoo_format.h) and the format's stack (format/format.h) share it.
#ifndef CUCKOO_WASM_SRC_COMMON_FORMAT_FRAME_H_
#define CUCKOO_WASM_SRC_COMMON_FORMAT_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <utility>

#include "common/family.h"
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
// Headers as field lists. Each header of the format (a family's section
// header, the stack headers) is declared once, as an X-macro list of rows
//
//   X(Name, member, W, offset, compared)
//
//   Name      format::<ns>::k<Name>, the field's byte offset, for the tests and
//             the fuzz targets (CUCKOO_FIELD_OFFSET)
//   member    the member of the header's struct that holds the value (a
//             family's struct is made of the list, CUCKOO_FIELD_MEMBER)
//   W         its wire type: U8, U16, U32, U64 (little-endian) or F64 (IEEE
//             754 binary64, little-endian)
//   offset    its byte offset in the header; the rows are in offset order and
//             tile the header (checked by CUCKOO_HEADER_LAYOUT)
//   compared  the name a patch gives the field when two filters differ in it
//             (patch/patch_layout.cc compares the named fields), or "" for a
//             field no patch compares
//   source    (a section's or record's list only) the value the field is
//             written from: an expression of `from`, the object the header
//             describes (CUCKOO_FIELD_FROM)
//
// and one codec reads and writes every header from its list's HeaderLayout.

template <class T, bool real = false>
struct Wire {
  using Value = T;
  static constexpr uint8_t kBytes = sizeof(T);
  static constexpr bool kReal = real;
};
using U8 = Wire<uint8_t>;
using U16 = Wire<uint16_t>;
using U32 = Wire<uint32_t>;
using U64 = Wire<uint64_t>;
using F64 = Wire<double, true>;
static_assert(sizeof(double) == 8, "IEEE 754 binary64");

// One field of a header, and where its value sits in the header's struct
// (4 bytes: the module holds a row per field of every header).
struct HeaderField {
  uint8_t offset;            // in the header
  uint8_t member;            // offsetof the struct's member
  uint8_t bytes : 4;         // on the wire: 1, 2, 4 or 8
  uint8_t member_bytes : 4;  // sizeof the struct's member (>= bytes; 8 for an f64)
  bool real : 1;             // an f64
  bool compared : 1;         // a patch compares it (HeaderLayout::names)
};

// A header's fields, in offset order, covering bytes [first, bytes) of it
// (the bytes before `first` are the common prefix, written and read apart),
// and their patch names: one NUL-terminated name per field, in the same
// order ("" for a field no patch compares).
struct HeaderLayout {
  const HeaderField* fields;
  const char* names;
  uint8_t count;
  uint8_t first;
  uint8_t bytes;
};

// The field's value in the header at `header`: the integer, zero-extended, or
// an f64's bits.
uint64_t FieldValue(const uint8_t* header, const HeaderField& field);

// Reads every field of `layout` from the header at `in` into the struct at
// `out` (whose layout it is); a member wider than its field gets the value
// zero-extended.
void ReadFields(const HeaderLayout& layout, const uint8_t* in, void* out);

// Writes every field of `layout` from the struct at `in` to out[first, bytes).
void WriteFields(const HeaderLayout& layout, const void* in, uint8_t* out);

// True if the fields follow each other with no gap from `first` to `bytes`.
constexpr bool FieldsTile(const HeaderField* fields, size_t count, size_t first, size_t bytes) {
  size_t at = first;
  for (size_t i = 0; i < count; ++i) {
    if (fields[i].offset != at || fields[i].member_bytes < fields[i].bytes) return false;
    if (fields[i].member > 255 - fields[i].member_bytes) return false;
    at += fields[i].bytes;
  }
  return at == bytes;
}

}  // namespace format
}  // namespace cuckoo

// A row of a field list as a struct member of its wire type, as an offset
// constant k<Name>, as a HeaderField of struct S (in scope where expanded)
// and as its patch name. A row is (Name, member, W, offset, compared) or,
// in a list with sources, (Name, member, W, offset, compared, source): these
// take both, `compared` being the first of the variadic part.
#define CUCKOO_FIELD_FIRST(first, ...) first
#define CUCKOO_FIELD_MEMBER(Name, member, W, ...) ::cuckoo::format::W::Value member = 0;
#define CUCKOO_FIELD_OFFSET(Name, member, W, offset, ...) constexpr size_t k##Name = offset;
#define CUCKOO_FIELD_ROW(Name, member, W, offset, ...)                                        \
  ::cuckoo::format::HeaderField{offset, static_cast<uint8_t>(offsetof(S, member)),            \
                                ::cuckoo::format::W::kBytes,                                  \
                                static_cast<uint8_t>(sizeof(std::declval<S&>().member)),      \
                                ::cuckoo::format::W::kReal,                                   \
                                sizeof(CUCKOO_FIELD_FIRST(__VA_ARGS__, ~)) > 1},
#define CUCKOO_FIELD_NAME(Name, member, W, offset, ...) CUCKOO_FIELD_FIRST(__VA_ARGS__, ~) "\0"
// A row's value taken from its source, in a list with sources:
// `header.member = source;`, where `header` is the struct being filled and
// `from` the object it describes.
#define CUCKOO_FIELD_FROM(Name, member, W, offset, compared, source) header.member = source;

// inline constexpr HeaderLayout `Layout`: the fields of LIST, held in struct
// `Struct`, covering bytes [first, bytes) of the header; checked to tile them.
#define CUCKOO_HEADER_LAYOUT(Layout, Struct, LIST, first, bytes)                                 \
  struct Layout##Rows {                                                                        \
    using S = Struct;                                                                          \
    static constexpr ::cuckoo::format::HeaderField kRows[] = {LIST(CUCKOO_FIELD_ROW)};         \
    static constexpr uint8_t kCount = sizeof kRows / sizeof kRows[0];                          \
  };                                                                                           \
  inline constexpr ::cuckoo::format::HeaderLayout Layout{                                      \
      Layout##Rows::kRows, LIST(CUCKOO_FIELD_NAME), Layout##Rows::kCount, first, bytes};       \
  static_assert(::cuckoo::format::FieldsTile(Layout##Rows::kRows, Layout##Rows::kCount, first, \
                                             bytes),                                           \
                #LIST ": the fields follow each other and fill the header")

namespace cuckoo {
namespace format {

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

// The key hash a file names (a cuckoo header's and version 4's hash id byte).
constexpr uint8_t kHashIdXxh3_64 = 1;    // XXH3-64 with the filter's seed (hash.h)
constexpr uint8_t kHashIdMurmur64A = 2;  // MurmurHash64A, RedisBloom's (murmur_hash.h)
// The hash id of family `type` (families.def's hash column, indexed by id:
// ids are 1, 2, ... in order, which family.h checks; 0 for a byte that names
// no family).
inline uint8_t HashIdFor(uint8_t type) {
  constexpr uint8_t kHashIdOf[kFamilyCount + 1] = {
      0,
#define CUCKOO_FAMILY(Name, id, prefix, Class, hash, ...) kHashId##hash,
#include "common/families.def"
  };
  return type <= kFamilyCount ? kHashIdOf[type] : 0;
}

// A file's bytes as the readers of its layout (ReadStackLayout,
// patch::ReadLayout) reach them: one header at a time, `n` contiguous bytes
// at an offset. Over a file in memory, pointers into it. Over a file not yet
// made (a patch's result: its base's bytes with the patch's byte edits,
// patch.cc), each header is made on demand into the view's window by `fill`,
// so that the file's length can be judged by its headers before anything of
// that length is allocated.
class FileView {
 public:
  // The most bytes one At gives: any header (HeaderLayout::bytes is a u8).
  static constexpr size_t kWindowBytes = 255;
  // Writes bytes [offset, offset + n) of the file to out.
  using Fill = void (*)(void* context, uint64_t offset, size_t n, uint8_t* out);

  FileView(const uint8_t* data, size_t len) : data_(data), size_(len) {}
  FileView(size_t len, Fill fill, void* context) : size_(len), fill_(fill), context_(context) {}
  FileView(const FileView&) = delete;
  FileView& operator=(const FileView&) = delete;

  size_t size() const { return size_; }
  // Bytes [offset, offset + n) of the file, n <= kWindowBytes and
  // offset + n <= size(); valid until the next call.
  const uint8_t* At(uint64_t offset, size_t n) {
    if (data_ != nullptr) return data_ + offset;
    fill_(context_, offset, n, window_);
    return window_;
  }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  Fill fill_ = nullptr;
  void* context_ = nullptr;
  uint8_t window_[kWindowBytes];
};

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
