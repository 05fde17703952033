// Status codes reported by the cuckoo-wasm core. No exceptions cross this API:
// every fallible operation returns one of these, in the style of the paper's
// reference implementation (efficient/cuckoofilter's Ok / NotFound /
// NotEnoughSpace), extended with the reasons a serialized filter is refused.
#ifndef CUCKOO_WASM_SRC_STATUS_H_
#define CUCKOO_WASM_SRC_STATUS_H_

#include <cstdint>

namespace cuckoo {

// Numeric values are part of the JS/WASM boundary (bindings pass them through
// as integers); never renumber, only append.
enum class Status : uint8_t {
  kOk = 0,
  kNotFound = 1,          // Delete: no matching fingerprint in either bucket nor the victim.
  kNotEnoughSpace = 2,    // Add: no free slot after max_kicks evictions and the victim is taken.
  kInvalidArgument = 3,   // Create: a parameter outside its documented range.
  kOutOfMemory = 4,       // Create / Deserialize: the filter or its table could not be allocated.
  // Deserialize: the bytes are not a filter this version can load (docs/FORMAT.md).
  kFormatTruncated = 10,          // fewer bytes than the header or its table length needs
  kFormatBadMagic = 11,           // does not start with "CKOO"
  kFormatUnsupportedVersion = 12, // a version the reader does not read (1 and 2; CuckooFilter alone: 1)
  kFormatBadParameter = 13,       // f, b, hash id, encoding, bucket count, ... out of range
  kFormatTrailingBytes = 14,      // more bytes than header + table + checksum
  kFormatChecksumMismatch = 15,   // XXH3-64 of the bytes differs from the stored checksum
  kFormatCountMismatch = 16,      // item count differs from the occupied slots + victim
  kFormatBadVictim = 17,          // victim fingerprint or bucket out of range
  kFormatBadPadding = 18,         // non-zero bits after the last slot of the table (or Bloom bit)
  // 19 and 20 are reserved: never given to a status.
  // Add: the filter is full and may not grow further (kMaxSubFilters
  // sub-filters, 32-bit fingerprints, 2^32 buckets or bits, or 1 GiB in all).
  kGrowthLimit = 21,
  // Deserialize: the bytes hold a filter of another family (format/peek_family.h names it).
  kFormatWrongFamily = 22,
  // Loading RedisBloom SCANDUMP chunks (docs/FORMAT.md, Redis families): a
  // chunk is missing, extra, out of order, or its iterator does not match the
  // table bytes before it.
  kFormatBadChunk = 23,
  // Canonicalize / EntryExpression (src/url/url_canon.h, docs/URLS.md): the bytes are not a URL.
  kUrlEmpty = 30,         // nothing but bytes <= 0x20 (spaces, tabs, control bytes)
  kUrlNoHost = 31,        // no host: a bare path, only a fragment, "http://", "mailto:..."
  kUrlBadHost = 32,       // host only dots, a ':' or '[' left in it, a bad IPv6 literal, mixed UTF-8
  kUrlTooLong = 33,       // it or its canonical form longer than url::kMaxUrlBytes (2 MiB)
  kUrlNonAsciiHost = 34,  // internal: the host is UTF-8 text; the caller maps it to Punycode and retries
  // ApplyPatch / Diff (src/patch/patch.h, docs/FORMAT.md §17): the patch cannot be
  // used; nothing is changed.
  kPatchNotAPatch = 40,       // does not start with "CKPT"
  kPatchVersion = 41,         // a patch version this build does not read
  kPatchTruncated = 42,       // shorter than a patch's header and checksum
  kPatchCorrupt = 43,         // its checksum, a reserved byte or its body is wrong
  kPatchWrongBase = 44,       // the base's length or checksum is not the patch's base
  kPatchFamily = 45,          // another family, format version or parameters (Diff: the filters differ)
  kPatchResultMismatch = 46,  // the decoded result's checksum is not the patch's, or it does not load
};

// A short English description of `status`, naming what was wrong and what to do.
// Never null; the string is static.
const char* StatusMessage(Status status);

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_STATUS_H_
