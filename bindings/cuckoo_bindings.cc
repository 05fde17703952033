// The JS/WASM boundary for cuckoo-wasm: the only file that includes Emscripten
// headers. A filter crosses as a handle (its CuckooFilter* as a wasm32 address);
// keys cross as (pointer, length) into memory the JS side owns (js/wasm-core.ts).
//
// Two kinds of entry point:
//  - embind functions (EMSCRIPTEN_BINDINGS below) for everything off the hot
//    path: create, deserialize, serialize, destroy, statistics, messages;
//  - plain exports (cf_*) for the per-key and per-batch calls, so a lookup is
//    one direct wasm call with no embind marshalling.
// Statuses cross as the integer values of cuckoo::Status.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>

#include <malloc.h>

#include <cstdint>
#include <memory>
#include <string>

#include "cuckoo_filter.h"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::CuckooParams;
using cuckoo::Status;

// Result of create / deserialize: status, and the handle when status is kOk (0).
struct OpenResult {
  int status = 0;
  uintptr_t handle = 0;
};

// Parameters and statistics of one filter, for the JS getters and toBytes sizing.
struct FilterInfo {
  double capacity;
  double bucketCount;
  int fingerprintBits;
  int bucketSize;
  int maxKicks;
  uint32_t seedLow;
  uint32_t seedHigh;
  double serializedSize;
};

CuckooFilter* FromHandle(uintptr_t handle) { return reinterpret_cast<CuckooFilter*>(handle); }

OpenResult Adopt(Status s, std::unique_ptr<CuckooFilter> filter) {
  OpenResult r;
  r.status = static_cast<int>(s);
  if (s == Status::kOk) r.handle = reinterpret_cast<uintptr_t>(filter.release());
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

OpenResult Create(double capacity, int fingerprint_bits, int bucket_size, int max_kicks,
                  uint32_t seed_low, uint32_t seed_high) {
  std::unique_ptr<CuckooFilter> filter;
  const Status s = CuckooFilter::Create(
      MakeParams(capacity, fingerprint_bits, bucket_size, max_kicks, seed_low, seed_high), &filter);
  return Adopt(s, std::move(filter));
}

// Bytes toBytes() would produce for these parameters (0 if Create would refuse
// them), so the JS side can refuse a filter too large for memory before allocating.
double SerializedSizeFor(double capacity, int fingerprint_bits, int bucket_size) {
  return static_cast<double>(CuckooFilter::SerializedSizeFor(
      MakeParams(capacity, fingerprint_bits, bucket_size, 0, 0, 0)));
}

OpenResult Deserialize(uintptr_t data, double length) {
  std::unique_ptr<CuckooFilter> filter;
  const Status s = CuckooFilter::Deserialize(reinterpret_cast<const uint8_t*>(data),
                                             static_cast<size_t>(length), &filter);
  return Adopt(s, std::move(filter));
}

void Destroy(uintptr_t handle) { delete FromHandle(handle); }

FilterInfo Info(uintptr_t handle) {
  const CuckooFilter& f = *FromHandle(handle);
  FilterInfo info;
  info.capacity = static_cast<double>(f.capacity());
  info.bucketCount = static_cast<double>(f.bucket_count());
  info.fingerprintBits = static_cast<int>(f.fingerprint_bits());
  info.bucketSize = static_cast<int>(f.bucket_size());
  info.maxKicks = static_cast<int>(f.max_kicks());
  info.seedLow = static_cast<uint32_t>(f.seed());
  info.seedHigh = static_cast<uint32_t>(f.seed() >> 32);
  info.serializedSize = static_cast<double>(f.SerializedSize());
  return info;
}

void Serialize(uintptr_t handle, uintptr_t out) {
  FromHandle(handle)->Serialize(reinterpret_cast<uint8_t*>(out));
}

// Bytes the allocator has handed out and not had back (dlmalloc's mallinfo).
double AllocatedBytes() { return static_cast<double>(mallinfo().uordblks); }

std::string Message(int status) { return cuckoo::StatusMessage(static_cast<Status>(status)); }

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
  using emscripten::value_object;
  value_object<OpenResult>("OpenResult")
      .field("status", &OpenResult::status)
      .field("handle", &OpenResult::handle);
  value_object<FilterInfo>("FilterInfo")
      .field("capacity", &FilterInfo::capacity)
      .field("bucketCount", &FilterInfo::bucketCount)
      .field("fingerprintBits", &FilterInfo::fingerprintBits)
      .field("bucketSize", &FilterInfo::bucketSize)
      .field("maxKicks", &FilterInfo::maxKicks)
      .field("seedLow", &FilterInfo::seedLow)
      .field("seedHigh", &FilterInfo::seedHigh)
      .field("serializedSize", &FilterInfo::serializedSize);
  function("create", &Create);
  function("serializedSizeFor", &SerializedSizeFor);
  function("deserialize", &Deserialize);
  function("destroy", &Destroy);
  function("info", &Info);
  function("serialize", &Serialize);
  function("statusMessage", &Message);
  function("allocatedBytes", &AllocatedBytes);
}
