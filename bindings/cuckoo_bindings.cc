// The JS/WASM boundary for cuckoo-wasm: the only file that includes Emscripten
// headers. A filter crosses as a handle (its CuckooFilter* as a wasm32 address);
// keys cross as (pointer, length) into memory the JS side owns. On the JS side,
// js/wasm-core.ts is the one file that calls these.
//
// Two kinds of entry point:
//  - embind functions (EMSCRIPTEN_BINDINGS below) for the calls made once per
//    filter or per error: create, deserialize, serialize, destroy, info,
//    statusMessage, allocatedBytes. Some return a structured value (an
//    { status, handle } or info object, a message string), which embind builds
//    on the JS side; their marshalling costs nothing that matters at that rate;
//  - plain exports (cf_*) for the per-key and per-batch calls, which take and
//    return numbers only: JS calls them as the wasm instance's own exports, so
//    a lookup is one direct wasm call, with no embind invoker in between.
// Statuses cross as the integer values of cuckoo::Status; js/status.ts maps each
// to its JS error.
//
// Out of memory is a status here, never an abort. In this Emscripten (3.1.6)
// libc++ is built without exceptions, so operator new, nothrow new included,
// aborts the module when memory runs out; malloc returns 0 instead (memory
// growth is on, so ABORTING_MALLOC is off). So nothing here calls operator new,
// and the linked module contains none (link with --profiling-funcs to see its
// function names):
//  - the core allocates with calloc (src/allocation.h) and reports
//    kOutOfMemory; `delete` of a filter frees with free;
//  - no embind function takes or returns a value_object or std::string, which
//    embind passes through wasm memory it gets with `new T` / malloc (wire.h:
//    GenericBindingType, BindingType<std::string>). create, deserialize and
//    info return an emscripten::val object, and statusMessage a val string:
//    built on the JS side (_emval_new_object, _emval_set_property,
//    _emval_take_value, _emval_new_cstring, which read the values or the static
//    C string from wasm memory), with nothing allocated in wasm;
//  - every other embind function takes and returns numbers only, which embind
//    passes as plain wasm arguments, so they stay embind functions.
// What still allocates in wasm: malloc called by JS (_malloc; js/wasm-core.ts
// checks for 0), and embind's __getTypeName, called only to word a
// BindingError.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <malloc.h>

#include <cstdint>
#include <memory>

#include "cuckoo_filter.h"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::CuckooParams;
using cuckoo::Status;

using emscripten::val;

CuckooFilter* FromHandle(uintptr_t handle) { return reinterpret_cast<CuckooFilter*>(handle); }

// Result of create / deserialize, as a JS object { status, handle }: the
// cuckoo::Status, and the filter's handle when status is kOk (0), else 0.
val OpenResult(Status s, std::unique_ptr<CuckooFilter> filter) {
  const uintptr_t handle = s == Status::kOk ? reinterpret_cast<uintptr_t>(filter.release()) : 0;
  val r = val::object();
  r.set("status", static_cast<int>(s));
  r.set("handle", handle);
  return r;
}

CuckooParams MakeParams(double capacity, int fingerprint_bits, int bucket_size, int max_kicks,
                        uint32_t seed_low, uint32_t seed_high) {
  CuckooParams p;
  p.capacity = capacity >= 1 ? static_cast<uint64_t>(capacity) : 0;
  p.fingerprint_bits = static_cast<uint32_t>(fingerprint_bits);
  p.bucket_size = static_cast<uint32_t>(bucket_size);
  p.max_kicks = static_cast<uint32_t>(max_kicks);
  p.seed = (static_cast<uint64_t>(seed_high) << 32) | seed_low;
  return p;
}

val Create(double capacity, int fingerprint_bits, int bucket_size, int max_kicks,
           uint32_t seed_low, uint32_t seed_high) {
  std::unique_ptr<CuckooFilter> filter;
  const Status s = CuckooFilter::Create(
      MakeParams(capacity, fingerprint_bits, bucket_size, max_kicks, seed_low, seed_high), &filter);
  return OpenResult(s, std::move(filter));
}

// Bytes toBytes() would produce for these parameters (0 if Create would refuse
// them), so the JS side can refuse a filter too large for memory before allocating.
double SerializedSizeFor(double capacity, int fingerprint_bits, int bucket_size) {
  return static_cast<double>(CuckooFilter::SerializedSizeFor(
      MakeParams(capacity, fingerprint_bits, bucket_size, 0, 0, 0)));
}

val Deserialize(uintptr_t data, double length) {
  std::unique_ptr<CuckooFilter> filter;
  const Status s = CuckooFilter::Deserialize(reinterpret_cast<const uint8_t*>(data),
                                             static_cast<size_t>(length), &filter);
  return OpenResult(s, std::move(filter));
}

void Destroy(uintptr_t handle) { delete FromHandle(handle); }

// Parameters and statistics of one filter, as a JS object, for the JS getters
// and toBytes sizing.
val Info(uintptr_t handle) {
  const CuckooFilter& f = *FromHandle(handle);
  val info = val::object();
  info.set("capacity", static_cast<double>(f.capacity()));
  info.set("bucketCount", static_cast<double>(f.bucket_count()));
  info.set("fingerprintBits", static_cast<int>(f.fingerprint_bits()));
  info.set("bucketSize", static_cast<int>(f.bucket_size()));
  info.set("maxKicks", static_cast<int>(f.max_kicks()));
  info.set("seedLow", static_cast<uint32_t>(f.seed()));
  info.set("seedHigh", static_cast<uint32_t>(f.seed() >> 32));
  info.set("serializedSize", static_cast<double>(f.SerializedSize()));
  return info;
}

void Serialize(uintptr_t handle, uintptr_t out) {
  FromHandle(handle)->Serialize(reinterpret_cast<uint8_t*>(out));
}

// Bytes the allocator has handed out and not had back (dlmalloc's mallinfo).
double AllocatedBytes() { return static_cast<double>(mallinfo().uordblks); }

// The JS string is read from StatusMessage's static ASCII text.
val Message(int status) { return val(cuckoo::StatusMessage(static_cast<Status>(status))); }

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE int cf_add(CuckooFilter* f, const uint8_t* key, size_t len) {
  return static_cast<int>(f->Add(key, len));
}
EMSCRIPTEN_KEEPALIVE int cf_contain(const CuckooFilter* f, const uint8_t* key, size_t len) {
  return f->Contain(key, len) ? 1 : 0;
}
EMSCRIPTEN_KEEPALIVE int cf_delete(CuckooFilter* f, const uint8_t* key, size_t len) {
  return static_cast<int>(f->Delete(key, len));
}
EMSCRIPTEN_KEEPALIVE uint32_t cf_count(const CuckooFilter* f, const uint8_t* key, size_t len) {
  return f->Count(key, len);
}
// Adds n keys packed as keys[offsets[k] .. offsets[k+1]); writes the status of
// the first failure (or 0) to *status and returns how many were added.
EMSCRIPTEN_KEEPALIVE uint32_t cf_add_batch(CuckooFilter* f, const uint8_t* keys,
                                           const uint32_t* offsets, uint32_t n, int32_t* status) {
  Status s;
  const size_t added = f->AddBatch(keys, offsets, n, &s);
  *status = static_cast<int32_t>(s);
  return static_cast<uint32_t>(added);
}
EMSCRIPTEN_KEEPALIVE void cf_contain_batch(const CuckooFilter* f, const uint8_t* keys,
                                           const uint32_t* offsets, uint32_t n, uint8_t* results) {
  f->ContainBatch(keys, offsets, n, results);
}
// size() and load_factor() as doubles: read by JS getters that may be polled often.
EMSCRIPTEN_KEEPALIVE double cf_size(const CuckooFilter* f) { return static_cast<double>(f->size()); }
EMSCRIPTEN_KEEPALIVE double cf_load_factor(const CuckooFilter* f) { return f->load_factor(); }

}  // extern "C"

EMSCRIPTEN_BINDINGS(cuckoo_wasm) {
  using emscripten::function;
  function("create", &Create);
  function("serializedSizeFor", &SerializedSizeFor);
  function("deserialize", &Deserialize);
  function("destroy", &Destroy);
  function("info", &Info);
  function("serialize", &Serialize);
  function("statusMessage", &Message);
  function("allocatedBytes", &AllocatedBytes);
}
