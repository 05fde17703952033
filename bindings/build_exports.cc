// The plain C exports only the full module has (CMakeLists.txt links this
// file into cuckoo-core.wasm, never into the reader): the calls that create
// a filter, made once per filter: create, a Bloom filter's size, and the Redis families'
// SCANDUMP / LOADCHUNK chunks (a filter they make becomes its family's embind
// object by adopt(), bindings/embind.cc). Those that take a family take it as their first argument
// (OnFamily, families.h, refuses a value that names none). Answers follow
// families.h's convention; JS calls them as the instance's own exports
// (js/boundary/wasm-core.ts).
//
// Out of memory is a status here, never an abort. In this Emscripten (3.1.6)
// libc++ is built without exceptions, so operator new, nothrow new included,
// aborts the module when memory runs out; malloc returns 0 instead (memory
// growth is on, so ABORTING_MALLOC is off). So nothing in bindings/ calls
// operator new, and the linked modules contain none (link with
// --profiling-funcs to see their function names): the core allocates with
// calloc (src/common/allocation.h) and reports kOutOfMemory; `delete` of a
// filter frees with free; every export takes and returns numbers only.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <memory>

#include "common/size_optimized.h"
#include "families.h"
#include "growth/sizing.h"
#include "redis/redis_dump.h"

namespace cuckoo_wasm {
namespace {

// Every call here is cold (once per filter): compiled for size
// (common/size_optimized.h).
CUCKOO_SIZE_OPTIMIZED_BEGIN

using cuckoo::RedisBloomFilter;
using cuckoo::RedisCuckooFilter;
using cuckoo::ScalableBloomFilter;
using cuckoo::ScalableCuckooFilter;

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

double Bytes(uint64_t bytes) { return bytes == 0 ? kNoFamily : static_cast<double>(bytes); }

CUCKOO_SIZE_OPTIMIZED_END

}  // namespace

extern "C" {

CUCKOO_SIZE_OPTIMIZED_BEGIN

// A new cuckoo filter (src/growth/scalable_filter.h): its handle, or -status.
EMSCRIPTEN_KEEPALIVE int cuckoo_create(double capacity, int fingerprint_bits, int bucket_size, int max_kicks,
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

// A new Bloom filter: its handle, or -status.
EMSCRIPTEN_KEEPALIVE int bloom_create(double capacity, double false_positive_rate, uint32_t seed_low,
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

// CF.RESERVE: a new Redis cuckoo filter's handle, or -status.
EMSCRIPTEN_KEEPALIVE int redis_cuckoo_create(double capacity, int bucket_size, int max_iterations, int expansion) {
  cuckoo::RedisCuckooParams p;
  p.capacity = Capacity(capacity);
  p.bucket_size = static_cast<uint32_t>(bucket_size);
  p.max_iterations = static_cast<uint32_t>(max_iterations);
  p.expansion = static_cast<uint32_t>(expansion);
  std::unique_ptr<RedisCuckooFilter> filter;
  const Status s = RedisCuckooFilter::Create(p, &filter);
  return Opened(s, std::move(filter));
}

// BF.RESERVE: a new Redis Bloom filter's handle, or -status.
EMSCRIPTEN_KEEPALIVE int redis_bloom_create(double error_rate, double capacity, int expansion, int non_scaling) {
  cuckoo::RedisBloomParams p;
  p.error_rate = error_rate;
  p.capacity = Capacity(capacity);
  p.expansion = static_cast<uint32_t>(expansion);
  p.non_scaling = non_scaling != 0;
  std::unique_ptr<RedisBloomFilter> filter;
  const Status s = RedisBloomFilter::Create(p, &filter);
  return Opened(s, std::move(filter));
}

// How many chunks SCANDUMP returns (0 for an empty cuckoo filter), or -status.
EMSCRIPTEN_KEEPALIVE int dump_chunk_count(int family, const void* handle) {
  return OnDumpFamily(family, kNoFamily, [&](auto row) {
    return static_cast<int>(static_cast<const FilterOf<decltype(row)>*>(handle)->DumpChunkCount());
  });
}

// Bytes of the header chunk (chunk 0), which dump_chunk writes into memory JS owns.
EMSCRIPTEN_KEEPALIVE double dump_header_bytes(int family, const void* handle) {
  return OnDumpFamily(family, static_cast<double>(kNoFamily), [&](auto row) {
    return static_cast<double>(static_cast<const FilterOf<decltype(row)>*>(handle)->DumpHeaderBytes());
  });
}

// Chunk j of SCANDUMP as out[0..2] = iterator, address, length: for j = 0 the
// header, written to header_out (dump_header_bytes bytes); for j >= 1 a view
// of the table in wasm memory, valid until the filter changes (JS copies it
// at once). 0, or -status for no such family.
EMSCRIPTEN_KEEPALIVE int dump_chunk(int family, const void* handle, uint32_t j, uint8_t* header_out, double* out) {
  return OnDumpFamily(family, kNoFamily, [&](auto row) {
    const auto* f = static_cast<const FilterOf<decltype(row)>*>(handle);
    const cuckoo::RedisChunk c = f->DumpChunk(j, header_out);
    out[0] = static_cast<double>(c.iterator);
    out[1] = static_cast<double>(reinterpret_cast<uintptr_t>(c.data));
    out[2] = static_cast<double>(c.len);
    return 0;
  });
}

// LOADCHUNK of the header (iterator 1): a new filter's handle, or -status. The
// filter is not usable until finish_dump returned 0; JS destroys it on any error.
EMSCRIPTEN_KEEPALIVE int load_dump_header(int family, double iterator, const uint8_t* data, size_t length) {
  return OnDumpFamily(family, kNoFamily, [&](auto row) {
    using Filter = FilterOf<decltype(row)>;
    std::unique_ptr<Filter> filter;
    const Status s = Filter::LoadDumpHeader(static_cast<uint64_t>(iterator), data, length, &filter);
    return Opened(s, std::move(filter));
  });
}

// LOADCHUNK of a table chunk: 0, or -status.
EMSCRIPTEN_KEEPALIVE int load_dump_chunk(int family, void* handle, double iterator, const uint8_t* data,
                                         size_t length) {
  return OnDumpFamily(family, kNoFamily, [&](auto row) {
    auto* f = static_cast<FilterOf<decltype(row)>*>(handle);
    return Answer(f->LoadDumpChunk(static_cast<uint64_t>(iterator), data, length));
  });
}

// After the last chunk: 0 (the filter is complete and usable), or -status.
EMSCRIPTEN_KEEPALIVE int finish_dump(int family, void* handle) {
  return OnDumpFamily(family, kNoFamily, [&](auto row) {
    return Answer(static_cast<FilterOf<decltype(row)>*>(handle)->FinishDump());
  });
}

// Bytes toBytes() gives for a new Bloom filter (src/growth/sizing.h), or
// -kInvalidArgument for options the core refuses. (A cuckoo filter's sizing
// is embind's sizeCuckoo, bindings/embind.cc.)
EMSCRIPTEN_KEEPALIVE double bloom_serialized_size_for(double capacity, double false_positive_rate, int expansion) {
  return Bytes(cuckoo::BloomSerializedSizeFor(Capacity(capacity), false_positive_rate,
                                              static_cast<uint32_t>(expansion)));
}

CUCKOO_SIZE_OPTIMIZED_END

}  // extern "C"

}  // namespace cuckoo_wasm
