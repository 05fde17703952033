// Status codes reported by the cuckoo-wasm core. No exceptions cross this API:
// every fallible operation returns one of these, in the style of the paper's
// reference implementation (efficient/cuckoofilter's Ok / NotFound /
// NotEnoughSpace), extended with the reasons a serialized filter is refused.
#ifndef CUCKOO_WASM_SRC_STATUS_H_
#define CUCKOO_WASM_SRC_STATUS_H_

#include <cstdint>

namespace cuckoo {

// The statuses, each declared once (an X-macro list): the enum below and the
// embind constants `status<Name>` the bindings register (bindings/embind.cc),
// which js/boundary/read-core.ts checks at load against the TypeScript table
// (js/common/status-codes.ts). Numeric values are part of the JS/WASM boundary
// (bindings pass them through as integers); never renumber, only append.
//
// CUCKOO_STATUS(Name, value): cuckoo::Status::k<Name>.
#define CUCKOO_STATUSES(CUCKOO_STATUS)                                                         \
  CUCKOO_STATUS(Ok, 0)                                                                         \
  /* Delete: no matching fingerprint in either bucket nor the victim. */                       \
  CUCKOO_STATUS(NotFound, 1)                                                                   \
  /* Add: no free slot after max_kicks evictions and the victim is taken. */                   \
  CUCKOO_STATUS(NotEnoughSpace, 2)                                                             \
  /* Create: a parameter outside its documented range. */                                      \
  CUCKOO_STATUS(InvalidArgument, 3)                                                            \
  /* Create / Deserialize: the filter or its table could not be allocated. */                  \
  CUCKOO_STATUS(OutOfMemory, 4)                                                                \
  /* Deserialize: the bytes are not a filter this version can load (docs/FORMAT.md): */        \
  /* fewer bytes than the header or its table length needs, */                                 \
  CUCKOO_STATUS(FormatTruncated, 10)                                                           \
  /* no "CKOO" at the start, */                                                                \
  CUCKOO_STATUS(FormatBadMagic, 11)                                                            \
  /* a version the reader does not read (this build: 1 to 4), */                               \
  CUCKOO_STATUS(FormatUnsupportedVersion, 12)                                                  \
  /* f, b, hash id, encoding, bucket count, ... out of range, */                               \
  CUCKOO_STATUS(FormatBadParameter, 13)                                                        \
  /* more bytes than header + table + checksum, */                                             \
  CUCKOO_STATUS(FormatTrailingBytes, 14)                                                       \
  /* XXH3-64 of the bytes differs from the stored checksum, */                                 \
  CUCKOO_STATUS(FormatChecksumMismatch, 15)                                                    \
  /* item count differs from the occupied slots + victim, */                                   \
  CUCKOO_STATUS(FormatCountMismatch, 16)                                                       \
  /* victim fingerprint or bucket out of range, */                                             \
  CUCKOO_STATUS(FormatBadVictim, 17)                                                           \
  /* non-zero bits after the last slot of the table (or Bloom bit). */                         \
  CUCKOO_STATUS(FormatBadPadding, 18)                                                          \
  /* 19 and 20 are reserved: never given to a status. */                                       \
  /* Add: the filter is full and may not grow further (its family's most sub-filters, */       \
  /* 32-bit fingerprints, 2^32 buckets or bits, or 1 GiB in all). */                           \
  CUCKOO_STATUS(GrowthLimit, 21)                                                               \
  /* Deserialize: the bytes hold a filter of another family (format/peek_family.h). */         \
  CUCKOO_STATUS(FormatWrongFamily, 22)                                                         \
  /* Loading RedisBloom SCANDUMP chunks: a chunk is missing, extra, out of order, or its */    \
  /* iterator does not match the table bytes before it. */                                     \
  CUCKOO_STATUS(FormatBadChunk, 23)                                                            \
  /* Canonicalize / EntryExpression (src/url/url_canon.h, docs/URLS.md): not a URL: */         \
  /* nothing but bytes <= 0x20, */                                                             \
  CUCKOO_STATUS(UrlEmpty, 30)                                                                  \
  /* no host ("http://", a bare path, only a fragment, "mailto:..."), */                       \
  CUCKOO_STATUS(UrlNoHost, 31)                                                                 \
  /* host only dots, a ':' or '[' left in it, a bad IPv6 literal, mixed UTF-8, */              \
  CUCKOO_STATUS(UrlBadHost, 32)                                                                \
  /* it or its canonical form longer than url::kMaxUrlBytes (2 MiB); */                        \
  CUCKOO_STATUS(UrlTooLong, 33)                                                                \
  /* internal: the host is UTF-8 text; the caller maps it to Punycode and retries. */          \
  CUCKOO_STATUS(UrlNonAsciiHost, 34)                                                           \
  /* ApplyPatch / Diff (src/patch/patch.h, docs/FORMAT.md §17): the patch cannot be used, */   \
  /* nothing is changed: no "CKPT" at the start, */                                            \
  CUCKOO_STATUS(PatchNotAPatch, 40)                                                            \
  /* a patch version this build does not read, */                                              \
  CUCKOO_STATUS(PatchVersion, 41)                                                              \
  /* shorter than a patch's header and checksum, */                                            \
  CUCKOO_STATUS(PatchTruncated, 42)                                                            \
  /* its checksum, a reserved byte or its body is wrong, */                                    \
  CUCKOO_STATUS(PatchCorrupt, 43)                                                              \
  /* the base's length or checksum is not the patch's base, */                                 \
  CUCKOO_STATUS(PatchWrongBase, 44)                                                            \
  /* another family, format version or parameters (Diff: the filters differ), */               \
  CUCKOO_STATUS(PatchFamily, 45)                                                               \
  /* the decoded result's checksum is not the patch's, or it does not load. */                 \
  CUCKOO_STATUS(PatchResultMismatch, 46)

enum class Status : uint8_t {
#define CUCKOO_STATUS(Name, value) k##Name = value,
  CUCKOO_STATUSES(CUCKOO_STATUS)
#undef CUCKOO_STATUS
};

// A short English description of `status`, naming what was wrong and what to do.
// Never null; the string is static.
const char* StatusMessage(Status status);

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_STATUS_H_
