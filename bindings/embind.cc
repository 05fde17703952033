// The embind glue of the module: the calls made once per filter or per error,
// which JS reaches through the module's embind functions (js/boundary/wasm-core.ts):
// create, deserialize, serialize, destroy, info, sizing, statusMessage,
// constants, patches, and the Redis families' SCANDUMP / LOADCHUNK chunks.
// Those that take a family take it as their first argument (OnFamily,
// families.h, refuses a value that names none). The per-key calls are the
// plain exports of c_exports.cc; answers follow families.h's convention.
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
//    GenericBindingType, BindingType<std::string>). info and constants return
//    an emscripten::val object, and statusMessage a val string: built on the
//    JS side (_emval_new_object, _emval_set_property, _emval_take_value,
//    _emval_new_cstring, which read the values or the static C string from
//    wasm memory), with nothing allocated in wasm;
//  - every other embind function takes and returns numbers only.
// What still allocates in wasm: malloc called by JS (_malloc; js/boundary/wasm-core.ts
// checks for 0), and embind's __getTypeName, called only to word a
// BindingError.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "allocator.h"
#include "common/size_optimized.h"
#include "families.h"
#include "format/peek_family.h"
#include "growth/sizing.h"
#include "patch/patch.h"
#include "redis/redis_dump.h"
#include "url_region.h"

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
// The family table: Row<F>, family F's registered class and capabilities
// (families.h) and what its info() reports.

template <Family F>
struct Row;

// What info() reports for a growing filter of this library's own families:
// the parameters of the filter (those of sub-filter 0), the row's own fields
// (RowT::Own), and each sub-filter's statistics (RowT::SubInfo).
template <typename RowT, typename Filter>
void ScalableInfo(const Filter& f, val& info) {
  const auto& first = f.sub_filter(0);
  info.set("capacity", static_cast<double>(first.capacity()));
  info.set("seedLow", static_cast<uint32_t>(first.seed()));
  info.set("seedHigh", static_cast<uint32_t>(first.seed() >> 32));
  info.set("expansion", static_cast<int>(f.expansion()));
  info.set("serializedSize", static_cast<double>(f.SerializedSize()));
  RowT::Own(f, info);
  val subs = val::array();
  for (uint32_t j = 0; j < f.sub_filter_count(); ++j) {
    val sub = val::object();
    RowT::SubInfo(f.sub_filter(j), sub);
    subs.set(j, sub);
  }
  info.set("subFilters", subs);
}

template <>
struct Row<Family::kCuckoo> : Registered<Family::kCuckoo> {
  static void Info(const Filter& f, val& info) { ScalableInfo<Row>(f, info); }
  static void Own(const Filter& f, val& info) {
    const CuckooFilter& first = f.sub_filter(0);
    info.set("bucketCount", static_cast<double>(first.bucket_count()));
    info.set("fingerprintBits", static_cast<int>(first.fingerprint_bits()));
    info.set("bucketSize", static_cast<int>(first.bucket_size()));
    info.set("maxKicks", static_cast<int>(first.max_kicks()));
    info.set("encoding", static_cast<int>(first.encoding()));
  }
  // A sub-filter as js/filters/cuckoo-filter.ts's CuckooSubFilterInfo, field for field.
  static void SubInfo(const CuckooFilter& s, val& sub) {
    sub.set("capacity", static_cast<double>(s.capacity()));
    sub.set("bucketCount", static_cast<double>(s.bucket_count()));
    sub.set("fingerprintBits", static_cast<int>(s.fingerprint_bits()));
    sub.set("encoding", static_cast<int>(s.encoding()));
    sub.set("size", static_cast<double>(s.size()));
    sub.set("loadFactor", s.load_factor());
    sub.set("victim", s.victim_used());
    sub.set("byteLength", static_cast<double>(s.SerializedSize()));
  }
};

template <>
struct Row<Family::kBloom> : Registered<Family::kBloom> {
  static void Info(const Filter& f, val& info) { ScalableInfo<Row>(f, info); }
  static void Own(const Filter& f, val& info) {
    info.set("falsePositiveRate", f.false_positive_rate());
    info.set("bitCount", static_cast<double>(f.bit_count()));
    info.set("hashCount", static_cast<int>(f.sub_filter(0).hash_count()));
  }
  // A sub-filter as js/filters/bloom-filter.ts's BloomSubFilterInfo, field for field,
  // but its expectedFalsePositiveRate: js/filters/bloom-filter.ts computes that and
  // estimatedCount from these fields (only reported, they decide no bytes), so
  // the module links no exp, pow or log1p.
  static void SubInfo(const BloomFilter& s, val& sub) {
    sub.set("capacity", static_cast<double>(s.capacity()));
    sub.set("falsePositiveRate", s.false_positive_rate());
    sub.set("bitCount", static_cast<double>(s.bit_count()));
    sub.set("hashCount", static_cast<int>(s.hash_count()));
    sub.set("size", static_cast<double>(s.size()));
    sub.set("setBitCount", static_cast<double>(s.SetBitCount()));
    sub.set("byteLength", static_cast<double>(cuckoo::format::BloomSectionBytes(s.word_bytes())));
  }
};

// The Redis families (src/redis/redis_cuckoo.h, src/redis/redis_bloom.h): info() gives
// what the server's CF.INFO / BF.INFO give, by the labels camelCased (js/
// redis-cuckoo-filter.ts, js/filters/redis-bloom-filter.ts), and their SCANDUMP /
// LOADCHUNK functions are the dump functions below (families.def's dump).
template <>
struct Row<Family::kRedisCuckoo> : Registered<Family::kRedisCuckoo> {
  static void Info(const Filter& f, val& info) {
    info.set("size", static_cast<double>(f.redis_size()));
    info.set("numberOfBuckets", static_cast<double>(f.bucket_count()));
    info.set("numberOfFilters", static_cast<int>(f.sub_filter_count()));
    info.set("numberOfItemsInserted", static_cast<double>(f.size()));
    info.set("numberOfItemsDeleted", static_cast<double>(f.deleted()));
    info.set("bucketSize", static_cast<int>(f.bucket_size()));
    info.set("expansionRate", static_cast<int>(f.expansion()));
    info.set("maxIterations", static_cast<int>(f.max_iterations()));
    info.set("serializedSize", static_cast<double>(f.SerializedSize()));
  }
};

template <>
struct Row<Family::kRedisBloom> : Registered<Family::kRedisBloom> {
  static void Info(const Filter& f, val& info) {
    info.set("capacity", static_cast<double>(f.capacity()));
    info.set("size", static_cast<double>(f.redis_size()));
    info.set("numberOfFilters", static_cast<int>(f.sub_filter_count()));
    info.set("numberOfItemsInserted", static_cast<double>(f.size()));
    info.set("expansionRate", f.non_scaling() ? val::null() : val(static_cast<int>(f.growth())));
    info.set("errorRate", f.error_rate());
    info.set("initialCapacity", static_cast<double>(f.link(0).entries()));
    info.set("serializedSize", static_cast<double>(f.SerializedSize()));
  }
};

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

int Deserialize(int family, uintptr_t data, double length) {
  return OnFamily(family, kNoFamily, [&](auto row) {
    using Filter = FilterOf<decltype(row)>;
    std::unique_ptr<Filter> filter;
    const Status s = Filter::Deserialize(reinterpret_cast<const uint8_t*>(data),
                                         static_cast<size_t>(length), &filter);
    return Opened(s, std::move(filter));
  });
}

// The family the bytes hold (src/common/family.h), or -status.
int PeekFamily(uintptr_t data, double length) {
  Family family = Family::kCuckoo;
  const Status s = cuckoo::PeekFamily(reinterpret_cast<const uint8_t*>(data),
                                      static_cast<size_t>(length), &family);
  return Answer(s, static_cast<int>(family));
}

int Destroy(int family, uintptr_t handle) {
  return OnFamily(family, kNoFamily, [&](auto row) {
    delete reinterpret_cast<FilterOf<decltype(row)>*>(handle);
    return 0;
  });
}

int Serialize(int family, uintptr_t handle, uintptr_t out) {
  return OnFamily(family, kNoFamily, [&](auto row) {
    reinterpret_cast<const FilterOf<decltype(row)>*>(handle)->Serialize(reinterpret_cast<uint8_t*>(out));
    return 0;
  });
}

// Parameters and statistics of one filter, as a JS object (each row's Info),
// for the JS getters and info(); undefined for no family.
val Info(int family, uintptr_t handle) {
  return OnFamily(family, val::undefined(), [&](auto row) {
    using RowT = Row<decltype(row)::kFamily>;
    val info = val::object();
    RowT::Info(*reinterpret_cast<const FilterOf<RowT>*>(handle), info);
    return info;
  });
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
// ---------------------------------------------------------------------------
// Patches (src/patch/patch.h, docs/FORMAT.md §17), on serialized bytes. patchDiff and
// patchApply return the address of a malloc'd block, a u64 (little-endian)
// byte count L then L bytes (the patch, or the patched filter's bytes), which
// JS copies out and frees with _free; or why not: { status, mismatch } (a
// PatchRefusal of js/boundary/core-types.ts), mismatch the core's PatchMismatch as
// { field, section, older, newer }, present for a kPatchFamily that compared
// two filters: a rate's values as numbers, any other value as its decimal
// digits (a seed is 64 bits). js/patch/patch.ts writes the sentence.

// v's digits in base 10 or 16 (lowercase), at least `width` (at most 20) of
// them: leading zeros.
val Digits(uint64_t v, unsigned base, int width) {
  char text[21];  // 2^64 - 1 has 20 decimal digits
  int i = sizeof text - 1;
  text[i] = '\0';
  do {
    text[--i] = "0123456789abcdef"[v % base];
    v /= base;
  } while (i > 0 && (v != 0 || static_cast<int>(sizeof text) - 1 - i < width));
  return val(static_cast<const char*>(text + i));
}

val MismatchValue(const cuckoo::PatchMismatch& m, uint64_t v) {
  if (!m.real) return Digits(v, 10, 1);
  double x;
  std::memcpy(&x, &v, sizeof x);
  return val(x);
}

val PatchBlock(Status s, uint8_t* payload, size_t len, const cuckoo::PatchMismatch& why) {
  if (s == Status::kOk) {
    auto* block = static_cast<uint8_t*>(std::realloc(payload, len + 8));
    if (block != nullptr) {
      std::memmove(block + 8, block, len);
      cuckoo::format::PutU64(block, len);
      return val(static_cast<int>(reinterpret_cast<uintptr_t>(block)));
    }
    std::free(payload);
    s = Status::kOutOfMemory;
  }
  val refusal = val::object();
  refusal.set("status", static_cast<int>(s));
  if (why.field != nullptr) {
    val mismatch = val::object();
    mismatch.set("field", val(why.field));
    mismatch.set("section", why.section);
    mismatch.set("older", MismatchValue(why, why.older));
    mismatch.set("newer", MismatchValue(why, why.newer));
    refusal.set("mismatch", mismatch);
  }
  return refusal;
}

const uint8_t* In(uintptr_t p) { return reinterpret_cast<const uint8_t*>(p); }

val PatchDiff(uintptr_t older, double older_len, uintptr_t newer, double newer_len) {
  uint8_t* patch = nullptr;
  size_t len = 0;
  cuckoo::PatchMismatch why;
  const Status s = cuckoo::Diff(In(older), static_cast<size_t>(older_len), In(newer),
                                static_cast<size_t>(newer_len), &patch, &len, &why);
  return PatchBlock(s, patch, len, why);
}

val PatchApply(uintptr_t base, double base_len, uintptr_t patch, double patch_len) {
  uint8_t* result = nullptr;
  size_t len = 0;
  cuckoo::PatchMismatch why;
  const Status s = cuckoo::ApplyPatch(In(base), static_cast<size_t>(base_len), In(patch),
                                      static_cast<size_t>(patch_len), &result, &len, &why);
  return PatchBlock(s, result, len, why);
}

// { version, family, baseLength, resultLength, baseChecksum, resultChecksum
// (16 hex digits), changes }, or -status.
val PatchInfoOf(uintptr_t patch, double patch_len) {
  cuckoo::PatchInfo i;
  const Status s = cuckoo::ReadPatchInfo(In(patch), static_cast<size_t>(patch_len), &i);
  if (s != Status::kOk) return val(Answer(s));
  val info = val::object();
  info.set("version", static_cast<int>(i.version));
  info.set("family", static_cast<int>(i.family));
  info.set("baseLength", static_cast<double>(i.base_length));
  info.set("resultLength", static_cast<double>(i.result_length));
  info.set("baseChecksum", Digits(i.base_checksum, 16, 16));
  info.set("resultChecksum", Digits(i.result_checksum, 16, 16));
  info.set("changes", static_cast<double>(i.changes));
  return info;
}

// Bytes of the heap blocks in use (bindings/allocator.cc).
double AllocatedBytes() { return static_cast<double>(cuckoo_wasm::LiveHeapBytes()); }

// The JS string is read from StatusMessage's static ASCII text.
val Message(int status) { return val(cuckoo::StatusMessage(static_cast<Status>(status))); }
// What both sides must agree on, read by js/boundary/wasm-core.ts once at load (and
// checked against the TS constants by tests/js/boundary-constants.test.ts).
val Constants() {
  val c = val::object();
  c.set("urlCanonicalAt", static_cast<uint32_t>(kCanonicalAt));
  c.set("urlSpanAt", static_cast<uint32_t>(kSpanAt));
  c.set("urlSpansAt", static_cast<uint32_t>(kSpansAt));
  c.set("urlBufferAt", static_cast<uint32_t>(kBufferAt));
  c.set("urlWorkspaceFixed", static_cast<uint32_t>(kWorkspaceFixed));
  c.set("urlWorkspacePerByte", static_cast<uint32_t>(kWorkspacePerByte));
  c.set("maxUrlBytes", static_cast<uint32_t>(cuckoo::url::kMaxUrlBytes));
  c.set("maxUrlExpressions", static_cast<uint32_t>(cuckoo::url::kMaxExpressions));
#define CUCKOO_FAMILY(Name, id, ...) c.set("family" #Name, id);
#include "common/families.def"
  c.set("redisMaxChunkBytes", static_cast<double>(cuckoo::kRedisMaxChunkBytes));
#define CUCKOO_TABLE_ENCODING(Name, id, ...) c.set("encoding" #Name, id);
#include "cuckoo/table_encodings.def"
  c.set("maxMaxKicks", cuckoo::kMaxMaxKicks);
  c.set("maxExpansion", cuckoo::format::kMaxExpansion);
  c.set("maxSubFilters", cuckoo::format::kMaxSubFilters);
  c.set("defaultSeedLow", static_cast<uint32_t>(cuckoo::kDefaultSeed));
  c.set("defaultSeedHigh", static_cast<uint32_t>(cuckoo::kDefaultSeed >> 32));
  return c;
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
  function("deserialize", &Deserialize);
  function("peekFamily", &PeekFamily);
  function("destroy", &Destroy);
  function("serialize", &Serialize);
  function("info", &Info);
  function("bloomCompatible", &BloomCompatible);
  function("bloomUnion", &BloomUnion);
  function("fingerprintBitsFor", &FingerprintBitsFor);
  function("firstSubFilterRate", &FirstSubFilterRate);
  function("cuckooSerializedSizeFor", &CuckooSerializedSizeFor);
  function("bloomSerializedSizeFor", &BloomSerializedSizeFor);
  function("patchDiff", &PatchDiff);
  function("patchApply", &PatchApply);
  function("patchInfo", &PatchInfoOf);
  function("statusMessage", &Message);
  function("allocatedBytes", &AllocatedBytes);
  function("constants", &Constants);
}

}  // namespace cuckoo_wasm
