// Patches between two versions of a serialized filter (docs/FORMAT.md §17):
// Diff makes the patch that turns the bytes of an older filter into those of
// a newer one of the same family and parameters; ApplyPatch turns the older
// bytes and the patch into the newer bytes. Both work on serialized bytes
// only, so one implementation serves every family (cuckoo in either table
// encoding, Bloom, the Redis families), every format version (1 to 4) and
// filters that grew sub-filters in between.
//
// A patch names its base and its result by length and checksum; ApplyPatch
// checks the base against them before it decodes anything, builds the result
// in a fresh buffer, and returns it only if its checksum is the one the patch
// names, it loads as a filter of its family and it has the base's parameters
// (the comparison Diff makes of its two filters). The base is never written.
//
// The body codes each region of the result (patch_layout.h) against the same
// region of the base (zeros where the base has no such sub-filter): bytes
// outside tables as XOR byte edits, cuckoo tables as slot operations (clear,
// set, move to the alternate bucket, moves linked into eviction chains),
// Bloom bit arrays as flipped bit positions, positions gap-coded with
// Golomb-Rice (patch_bits.h).
#ifndef CUCKOO_WASM_SRC_PATCH_PATCH_H_
#define CUCKOO_WASM_SRC_PATCH_PATCH_H_

#include <cstddef>
#include <cstdint>

#include "status.h"

namespace cuckoo {

// The fixed part of a patch (FORMAT.md §17.1): 40 header bytes, the body,
// then the u64 XXH3-64 of every byte before it.
constexpr uint8_t kPatchMagic[4] = {'C', 'K', 'P', 'T'};
constexpr uint16_t kPatchVersion = 1;
constexpr size_t kPatchHeaderBytes = 40;
constexpr size_t kPatchChecksumBytes = 8;
namespace patch_field {
constexpr size_t kMagic = 0;           // u8[4] "CKPT"
constexpr size_t kVersion = 4;         // u16, 1
constexpr size_t kFamily = 6;          // u8, Family (family.h) of base and result
constexpr size_t kReserved = 7;        // u8, 0
constexpr size_t kBaseLength = 8;      // u64
constexpr size_t kBaseChecksum = 16;   // u64: the base file's trailing checksum, as stored
constexpr size_t kResultLength = 24;   // u64
constexpr size_t kResultChecksum = 32; // u64: the result file's trailing checksum
}  // namespace patch_field

// What a patch's header says, and how many changes its body codes.
struct PatchInfo {
  uint16_t version = 0;
  uint8_t family = 0;
  uint64_t base_length = 0;
  uint64_t base_checksum = 0;
  uint64_t result_length = 0;
  uint64_t result_checksum = 0;
  uint64_t changes = 0;  // byte edits + slot operations + flipped bits
};

// The first field in which two filters differ so that no patch joins them,
// and its two values. Diff fills it for its two filters, ApplyPatch for the
// base (older) and the result (newer); on any other answer `field` is null.
// (js/patch/patch.ts writes the sentence: "the filters differ in fingerprint bits:
// 12 in the older filter, 13 in the newer".)
struct PatchMismatch {
  // "family", "format version", a header field as docs/FORMAT.md names it
  // ("table encoding", "fingerprint bits", "bucket size", "bucket count",
  // "max kicks", "seed", "capacity", "hash count", "bit count",
  // "false-positive rate", "error rate", ...), or "size in bytes" (a
  // sub-filter's length); null if none.
  const char* field = nullptr;
  // The field's value in the older filter and in the newer: for "family" a
  // family id (src/common/family.h), for a rate the bits of its f64 (then `real`),
  // for any other field the integer itself.
  uint64_t older = 0;
  uint64_t newer = 0;
  bool real = false;
  int section = -1;    // "size in bytes": the sub-filter's index; else -1
};

// The patch that turns `older` into `newer` (each a whole serialized filter
// that its family's Deserialize accepts), in a malloc'd block of *patch_len
// bytes at *patch that the caller frees with free().
// Errors: the format status of an input that does not load; kPatchFamily if
// the two differ in family, format version or a parameter (*why, if given,
// says which); kOutOfMemory. On error *patch and *patch_len are untouched.
Status Diff(const uint8_t* older, size_t older_len, const uint8_t* newer, size_t newer_len,
            uint8_t** patch, size_t* patch_len, PatchMismatch* why = nullptr);

// The result of applying `patch` to `base`, in a malloc'd block of
// *result_len bytes at *result that the caller frees with free().
// Errors, in the order checked: kPatchTruncated (shorter than a header and
// checksum), kPatchNotAPatch (no "CKPT"), kPatchVersion, kPatchCorrupt (the
// patch's checksum or a reserved byte is wrong); the base's own format status
// if it is not a filter (kFormatTruncated, kFormatBadMagic, ...);
// kPatchFamily (the patch is for another family); kPatchWrongBase (the base's
// length or checksum is not the patch's base); kFormatChecksumMismatch (the
// base's bytes do not match its own checksum); kPatchCorrupt (the result's
// headers, read through the base and the byte edits before the result is
// allocated, do not give the result length the patch names, or the body does
// not decode against this base); kPatchResultMismatch (the result's checksum
// is not the one the patch names, or the result does not load); kPatchFamily
// (the result differs from the base in format version or a parameter, as
// Diff compares them; *why, if given, says which); kOutOfMemory. `base` is
// only read; on error *result is untouched.
Status ApplyPatch(const uint8_t* base, size_t base_len, const uint8_t* patch, size_t patch_len,
                  uint8_t** result, size_t* result_len, PatchMismatch* why = nullptr);

// The header of `patch` and the number of changes in its body, after the
// checks of ApplyPatch that need no base (truncated, magic, version, checksum).
Status ReadPatchInfo(const uint8_t* patch, size_t patch_len, PatchInfo* info);

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_PATCH_PATCH_H_
