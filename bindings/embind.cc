// The embind glue of the full module (cuckoo-core.wasm; the reader has none):
// the calls that create or change a whole filter, made once per filter, which
// JS reaches through the module's embind functions (js/boundary/wasm-core.ts):
// create, sizing, the Bloom filters' union, CF.COMPACT, and the Redis
// families' SCANDUMP / LOADCHUNK chunks. Those that take a family take it as
// their first argument (OnFamily, families.h, refuses a value that names
// none). Loading, serializing, describing and freeing a filter, status
// messages and patches are the plain exports of filter_exports.cc, the
// per-key calls those of c_exports.cc; answers follow families.h's
// convention.
//
// Out of memory is a status here, never an abort. In this Emscripten (3.1.6)
// libc++ is built without exceptions, so operator new, nothrow new included,
// aborts the module when memory runs out; malloc returns 0 instead (memory
// growth is on, so ABORTING_MALLOC is off). So nothing in bindings/ calls
// operator new, and the linked module contains none (link with
// --profiling-funcs to see its function names):
//  - the core allocates with calloc (src/common/allocation.h) and reports
//    kOutOfMemory; `delete` of a filter frees with free;
//  - no embind function takes or returns a value_object or std::string, which
//    embind passes through wasm memory it gets with `new T` / malloc (wire.h:
//    GenericBindingType, BindingType<std::string>). dumpChunk returns an
//    emscripten::val array, built on the JS side (_emval_new_array,
//    _emval_set_property), with nothing allocated in wasm;
//  - every other embind function takes and returns numbers only.
// What still allocates in wasm: malloc called by JS (_malloc; js/boundary/read-core.ts
// checks for 0), and embind's __getTypeName, called only to word a
// BindingError.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "common/size_optimized.h"
#include "families.h"
#include "growth/sizing.h"
#include "redis/redis_dump.h"

namespace cuckoo_wasm {
namespace {

// Every call here is cold (once per filter or per error): compiled for size
// (common/size_optimized.h).
CUCKOO_SIZE_OPTIMIZED_BEGIN

using cuckoo::BloomFilter;
using cuckoo::CuckooFilter;
using cuckoo::RedisBloomFilter;
using cuckoo::RedisCuckooFilter;
using cuckoo::ScalableBloomFilter;
using cuckoo::ScalableCuckooFilter;

using emscripten::val;

uint64_t Seed(uint32_t low, uint32_t high) { return (static_cast<uint64_t>(high) << 32) | low; }

// A capacity as JS passes it (a double, checked there to be an integer >= 1).
uint64_t Capacity(double capacity) { return capacity >= 1 ? static_cast<uint64_t>(capacity) : 0; }

// A table encoding as JS passes it (cuckoo::TableEncoding's number); a number
// that names none becomes one ValidShape refuses.
cuckoo::TableEncoding Encoding(int encoding) {
  return static_cast<cuckoo::TableEncoding>(encoding >= 0 && encoding <= 0xff ? encoding : 0xff);
}

// A new or loaded filter: its handle, or -status.
template <typename Filter>
int Opened(Status s, std::unique_ptr<Filter> filter) {
  return Answer(s, s == Status::kOk ? static_cast<int>(reinterpret_cast<uintptr_t>(filter.release())) : 0);
}

// ---------------------------------------------------------------------------
// Cold operations (embind), one template each.

int CuckooCreate(double capacity, int fingerprint_bits, int bucket_size, int max_kicks,
                 uint32_t seed_low, uint32_t seed_high, int expansion, int encoding) {
  cuckoo::CuckooParams p;
  p.capacity = Capacity(capacity);
  p.fingerprint_bits = static_cast<uint32_t>(fingerprint_bits);
  p.bucket_size = static_cast<uint32_t>(bucket_size);
  p.max_kicks = static_cast<uint32_t>(max_kicks);
  p.seed = Seed(seed_low, seed_high);
  p.encoding = Encoding(encoding);
  std::unique_ptr<ScalableCuckooFilter> filter;
  const Status s = ScalableCuckooFilter::Create(p, static_cast<uint32_t>(expansion), &filter);
  return Opened(s, std::move(filter));
}

int BloomCreate(double capacity, double false_positive_rate, uint32_t seed_low,
                uint32_t seed_high, int expansion) {
  cuckoo::ScalableBloomParams p;
  p.capacity = Capacity(capacity);
  p.false_positive_rate = false_positive_rate;
  p.seed = Seed(seed_low, seed_high);
  p.expansion = static_cast<uint32_t>(expansion);
  std::unique_ptr<ScalableBloomFilter> filter;
  const Status s = ScalableBloomFilter::Create(p, &filter);
  return Opened(s, std::move(filter));
}

bool BloomCompatible(uintptr_t a, uintptr_t b) {
  return reinterpret_cast<const ScalableBloomFilter*>(a)->IsCompatible(
      *reinterpret_cast<const ScalableBloomFilter*>(b));
}

int BloomUnion(uintptr_t into, uintptr_t other) {
  return Answer(reinterpret_cast<ScalableBloomFilter*>(into)->Union(
      *reinterpret_cast<const ScalableBloomFilter*>(other)));
}

// ---------------------------------------------------------------------------
// The Redis families: CF.RESERVE / BF.RESERVE, and SCANDUMP / LOADCHUNK.

int RedisCuckooCreate(double capacity, int bucket_size, int max_iterations, int expansion) {
  cuckoo::RedisCuckooParams p;
  p.capacity = Capacity(capacity);
  p.bucket_size = static_cast<uint32_t>(bucket_size);
  p.max_iterations = static_cast<uint32_t>(max_iterations);
  p.expansion = static_cast<uint32_t>(expansion);
  std::unique_ptr<RedisCuckooFilter> filter;
  const Status s = RedisCuckooFilter::Create(p, &filter);
  return Opened(s, std::move(filter));
}

// CF.COMPACT on the Redis cuckoo filter `handle` (allocates nothing, cannot fail).
void RedisCuckooCompact(uintptr_t handle) { reinterpret_cast<RedisCuckooFilter*>(handle)->Compact(); }

int RedisBloomCreate(double error_rate, double capacity, int expansion, bool non_scaling) {
  cuckoo::RedisBloomParams p;
  p.error_rate = error_rate;
  p.capacity = Capacity(capacity);
  p.expansion = static_cast<uint32_t>(expansion);
  p.non_scaling = non_scaling;
  std::unique_ptr<RedisBloomFilter> filter;
  const Status s = RedisBloomFilter::Create(p, &filter);
  return Opened(s, std::move(filter));
}
// fn(Registered<F>{}) for a family that has SCANDUMP (families.def's dump),
// else `refused`.
template <typename R, typename Fn>
R OnDumpFamily(int family, R refused, Fn&& fn) {
  return OnFamily(family, refused, [&](auto row) -> R {
    if constexpr (decltype(row)::kScanDump) {
      return fn(row);
    } else {
      return refused;
    }
  });
}

// How many chunks SCANDUMP returns (0 for an empty cuckoo filter), or -status.
int DumpChunkCount(int family, uintptr_t handle) {
  return OnDumpFamily(family, kNoFamily, [&](auto row) {
    return static_cast<int>(reinterpret_cast<const FilterOf<decltype(row)>*>(handle)->DumpChunkCount());
  });
}

// Bytes of the header chunk (chunk 0), which DumpChunk writes into memory JS owns.
double DumpHeaderBytes(int family, uintptr_t handle) {
  return OnDumpFamily(family, static_cast<double>(kNoFamily), [&](auto row) {
    return static_cast<double>(reinterpret_cast<const FilterOf<decltype(row)>*>(handle)->DumpHeaderBytes());
  });
}

// Chunk j of SCANDUMP as [iterator, address, length]: for j = 0 the header,
// written to header_out (DumpHeaderBytes bytes); for j >= 1 a view of the
// table in wasm memory, valid until the filter changes (JS copies it at
// once). undefined for no such family.
val DumpChunk(int family, uintptr_t handle, int j, uintptr_t header_out) {
  return OnDumpFamily(family, val::undefined(), [&](auto row) {
    const auto* f = reinterpret_cast<const FilterOf<decltype(row)>*>(handle);
    const cuckoo::RedisChunk c = f->DumpChunk(static_cast<uint32_t>(j), reinterpret_cast<uint8_t*>(header_out));
    val out = val::array();
    out.set(0, static_cast<double>(c.iterator));
    out.set(1, static_cast<double>(reinterpret_cast<uintptr_t>(c.data)));
    out.set(2, static_cast<double>(c.len));
    return out;
  });
}

// LOADCHUNK of the header (iterator 1): a new filter's handle, or -status. The
// filter is not usable until FinishDump returned 0; JS destroys it on any error.
int LoadDumpHeader(int family, double iterator, uintptr_t data, double length) {
  return OnDumpFamily(family, kNoFamily, [&](auto row) {
    using Filter = FilterOf<decltype(row)>;
    std::unique_ptr<Filter> filter;
    const Status s = Filter::LoadDumpHeader(static_cast<uint64_t>(iterator), reinterpret_cast<const uint8_t*>(data),
                                            static_cast<size_t>(length), &filter);
    return Opened(s, std::move(filter));
  });
}

// LOADCHUNK of a table chunk: 0, or -status.
int LoadDumpChunk(int family, uintptr_t handle, double iterator, uintptr_t data, double length) {
  return OnDumpFamily(family, kNoFamily, [&](auto row) {
    auto* f = reinterpret_cast<FilterOf<decltype(row)>*>(handle);
    return Answer(f->LoadDumpChunk(static_cast<uint64_t>(iterator), reinterpret_cast<const uint8_t*>(data),
                                   static_cast<size_t>(length)));
  });
}

// After the last chunk: 0 (the filter is complete and usable), or -status.
int FinishDump(int family, uintptr_t handle) {
  return OnDumpFamily(family, kNoFamily, [&](auto row) {
    return Answer(reinterpret_cast<FilterOf<decltype(row)>*>(handle)->FinishDump());
  });
}

// Sizing (src/growth/sizing.h): f, or bytes toBytes() gives for a new filter; -kInvalidArgument
// for options the core refuses.
int FingerprintBitsFor(double false_positive_rate, int bucket_size) {
  const uint32_t f = cuckoo::FingerprintBitsFor(false_positive_rate, static_cast<uint32_t>(bucket_size));
  return f == 0 ? kNoFamily : static_cast<int>(f);
}

double FirstSubFilterRate(double false_positive_rate, int expansion) {
  return cuckoo::FirstSubFilterRate(false_positive_rate, static_cast<uint32_t>(expansion));
}

double Bytes(uint64_t bytes) { return bytes == 0 ? kNoFamily : static_cast<double>(bytes); }

double CuckooSerializedSizeFor(double capacity, int fingerprint_bits, int bucket_size, int expansion,
                               int encoding) {
  return Bytes(cuckoo::CuckooSerializedSizeFor(Capacity(capacity), static_cast<uint32_t>(fingerprint_bits),
                                               static_cast<uint32_t>(bucket_size),
                                               static_cast<uint32_t>(expansion), Encoding(encoding)));
}

double BloomSerializedSizeFor(double capacity, double false_positive_rate, int expansion) {
  return Bytes(cuckoo::BloomSerializedSizeFor(Capacity(capacity), false_positive_rate,
                                              static_cast<uint32_t>(expansion)));
}
CUCKOO_SIZE_OPTIMIZED_END

}  // namespace

EMSCRIPTEN_BINDINGS(cuckoo_wasm) {
  using emscripten::function;
  function("cuckooCreate", &CuckooCreate);
  function("bloomCreate", &BloomCreate);
  function("redisCuckooCreate", &RedisCuckooCreate);
  function("redisCuckooCompact", &RedisCuckooCompact);
  function("redisBloomCreate", &RedisBloomCreate);
  function("dumpChunkCount", &DumpChunkCount);
  function("dumpHeaderBytes", &DumpHeaderBytes);
  function("dumpChunk", &DumpChunk);
  function("loadDumpHeader", &LoadDumpHeader);
  function("loadDumpChunk", &LoadDumpChunk);
  function("finishDump", &FinishDump);
  function("bloomCompatible", &BloomCompatible);
  function("bloomUnion", &BloomUnion);
  function("fingerprintBitsFor", &FingerprintBitsFor);
  function("firstSubFilterRate", &FirstSubFilterRate);
  function("cuckooSerializedSizeFor", &CuckooSerializedSizeFor);
  function("bloomSerializedSizeFor", &BloomSerializedSizeFor);
}

}  // namespace cuckoo_wasm
