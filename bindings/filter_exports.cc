// The plain C exports both modules share for whole filters besides their
// embind classes (bindings/embind.cc): the family a filter's bytes hold,
// status messages, the allocator's count, and patches (CUCKOO_WRITER marks
// patch_diff, the full module's only). JS calls them as the instance's own
// exports (js/boundary/read-core.ts). Answers follow families.h's convention.
//
// patch_info's named numbers cross as a RECORD: the export writes doubles to
// memory JS owns, and a static string names them, one name per value,
// comma-separated (js/boundary/read-core.ts readRecord decodes it). A name's
// last character may give its kind: '#' a 64-bit value in two doubles (low
// and high 32-bit words), given to JS as 16 hex digits.
#include <emscripten/emscripten.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "allocator.h"
#include "common/size_optimized.h"
#include "families.h"
#include "format/peek_family.h"
#include "patch/patch.h"
#include "redis/redis_dump.h"
#include "url_region.h"

namespace cuckoo_wasm {
namespace {

// Every call here is once per filter or per error: compiled for size.
CUCKOO_SIZE_OPTIMIZED_BEGIN


// The values of one record, written in order; `need` counts them all, also
// those past `cap`, so JS can retry with room for them.
struct Record {
  double* out;
  uint32_t cap;
  uint32_t need = 0;
  void Put(double v) {
    if (need < cap) out[need] = v;
    ++need;
  }
  void Put64(uint64_t v) {
    Put(static_cast<double>(static_cast<uint32_t>(v)));
    Put(static_cast<double>(static_cast<uint32_t>(v >> 32)));
  }
};

const uint8_t* In(uintptr_t p) { return reinterpret_cast<const uint8_t*>(p); }

// A patch call's answer: the address of a malloc'd block, a u64 (little-
// endian) byte count L then L bytes (the patch, or the patched filter's
// bytes), which JS copies out and frees; or -status, and for a kPatchFamily
// that compared two filters the mismatch in why[0..7] (u32s): the field's
// name (a static C string's address), its sub-filter (or -1), 1 if the
// values are f64 bits, then the older value and the newer as low and high
// words. why[0] is 0 when there is no mismatch.
int PatchBlock(Status s, uint8_t* payload, size_t len, const cuckoo::PatchMismatch& m, uint32_t* why) {
  if (s == Status::kOk) {
    auto* block = static_cast<uint8_t*>(std::realloc(payload, len + 8));
    if (block != nullptr) {
      std::memmove(block + 8, block, len);
      cuckoo::format::PutU64(block, len);
      return static_cast<int>(reinterpret_cast<uintptr_t>(block));
    }
    std::free(payload);
    s = Status::kOutOfMemory;
  }
  const uint32_t words[8] = {static_cast<uint32_t>(reinterpret_cast<uintptr_t>(m.field)),
                             static_cast<uint32_t>(m.section),
                             m.real ? 1u : 0u,
                             0,
                             static_cast<uint32_t>(m.older),
                             static_cast<uint32_t>(m.older >> 32),
                             static_cast<uint32_t>(m.newer),
                             static_cast<uint32_t>(m.newer >> 32)};
  std::memcpy(why, words, sizeof words);
  return Answer(s);
}

CUCKOO_SIZE_OPTIMIZED_END

}  // namespace

extern "C" {

CUCKOO_SIZE_OPTIMIZED_BEGIN

// The family the bytes hold (src/common/family.h), or -status.
EMSCRIPTEN_KEEPALIVE int filter_peek_family(const uint8_t* data, size_t length) {
  Family family = Family::kCuckoo;
  const Status s = cuckoo::PeekFamily(data, length, &family);
  return Answer(s, static_cast<int>(family));
}

// The core's description of a status (static ASCII text).
EMSCRIPTEN_KEEPALIVE const char* status_message(int status) {
  return cuckoo::StatusMessage(static_cast<Status>(status));
}

// Bytes of the heap blocks in use (bindings/allocator.cc): the full entry's
// wasmMemoryUsage() reads it; the reader has no such call.
CUCKOO_WRITER(EMSCRIPTEN_KEEPALIVE double allocated_bytes() { return static_cast<double>(LiveHeapBytes()); })

// Patches (src/patch/patch.h, docs/FORMAT.md §17), on serialized bytes: a
// block or -status with `why` as PatchBlock says.
EMSCRIPTEN_KEEPALIVE int patch_apply(uintptr_t base, size_t base_len, uintptr_t patch, size_t patch_len,
                                     uint32_t* why) {
  uint8_t* result = nullptr;
  size_t len = 0;
  cuckoo::PatchMismatch m;
  const Status s = cuckoo::ApplyPatch(In(base), base_len, In(patch), patch_len, &result, &len, &m);
  return PatchBlock(s, result, len, m, why);
}

CUCKOO_WRITER(
EMSCRIPTEN_KEEPALIVE int patch_diff(uintptr_t older, size_t older_len, uintptr_t newer, size_t newer_len,
                                    uint32_t* why) {
  uint8_t* patch = nullptr;
  size_t len = 0;
  cuckoo::PatchMismatch m;
  const Status s = cuckoo::Diff(In(older), older_len, In(newer), newer_len, &patch, &len, &m);
  return PatchBlock(s, patch, len, m, why);
})

// What a patch's header says, as a record (its count of values), or -status.
EMSCRIPTEN_KEEPALIVE int patch_info(uintptr_t patch, size_t patch_len, double* out, uint32_t cap) {
  cuckoo::PatchInfo i;
  const Status s = cuckoo::ReadPatchInfo(In(patch), patch_len, &i);
  if (s != Status::kOk) return Answer(s);
  Record r{out, cap};
  r.Put(i.version);
  r.Put(i.family);
  r.Put(static_cast<double>(i.base_length));
  r.Put(static_cast<double>(i.result_length));
  r.Put64(i.base_checksum);
  r.Put64(i.result_checksum);
  r.Put(static_cast<double>(i.changes));
  return static_cast<int>(r.need);
}

// The names of patch_info's record, in the order it writes them.
EMSCRIPTEN_KEEPALIVE const char* patch_info_names() {
  return "version,family,baseLength,resultLength,baseChecksum#,resultChecksum#,changes";
}

CUCKOO_SIZE_OPTIMIZED_END

}  // extern "C"

}  // namespace cuckoo_wasm
