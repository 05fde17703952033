// The embind layer of both modules: one class per family of
// src/common/families.def (Module.Cuckoo, Module.Bloom, Module.RedisCuckoo,
// Module.RedisBloom), registered from that list, and the constants both sides
// agree on. A class's object owns one core filter: JS frees it with delete()
// (js/boundary/read-core.ts holds the object of every live filter).
//
// Each class has, in both modules:
//   fromBytes(ptr, length, status)
//                           a filter loaded from its serialized bytes
//                           (docs/FORMAT.md) at ptr in wasm memory: the object,
//                           or null with the status as an int32 at `status`
//   handle()                the core filter's address, which the per-key and
//                           per-batch calls take (bindings/c_exports.cc: plain
//                           exports, one direct wasm call per key or batch)
//   toBytes()               the serialized bytes, as a Uint8Array view of a
//                           block malloc'd for them: JS copies them out at once
//                           and frees the block (its byteOffset); or -status
//   info()                  one object of the family's fields (info_fields.h)
// and in the full module (CUCKOO_WRITER, families.h) also adopt(address): the
// object of a filter the plain exports made (creation, SCANDUMP), and where
// the family has them compact() (CF.COMPACT), union(other) and
// isCompatible(other) (Bloom); and the function sizeCuckoo, a new cuckoo
// filter's shape in one call.
//
// Out of memory is a status, never an abort: in this Emscripten (3.1.6)
// libc++ has no exceptions, so operator new aborts when memory runs out.
// Nothing here calls it: no value_object or std::string crosses (embind
// marshals those through `new`); info() builds its object on the JS side
// (emval), the byte views are of malloc'd blocks, and the core allocates with
// calloc and reports kOutOfMemory.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <utility>

#include "common/size_optimized.h"
#include "families.h"
#include "growth/sizing.h"
#include "info_fields.h"
#include "redis/redis_dump.h"
#include "url_region.h"

namespace cuckoo_wasm {
namespace {

using emscripten::val;

// Every call here is once per filter: compiled for size.
CUCKOO_SIZE_OPTIMIZED_BEGIN

const uint8_t* In(uintptr_t p) { return reinterpret_cast<const uint8_t*>(p); }

val Refused(Status s) { return val(-static_cast<int>(s)); }

template <typename Filter>
Filter* FromBytes(uintptr_t data, size_t length, uintptr_t status) {
  std::unique_ptr<Filter> filter;
  const Status s = Filter::Deserialize(In(data), length, &filter);
  *reinterpret_cast<int32_t*>(status) = static_cast<int32_t>(s);
  return filter.release();
}

template <typename Filter>
uintptr_t HandleOf(const Filter& f) {
  return reinterpret_cast<uintptr_t>(&f);
}

template <typename Filter>
val ToBytes(const Filter& f) {
  const uint64_t length = f.SerializedSize();
  auto* out = length <= SIZE_MAX ? static_cast<uint8_t*>(std::malloc(static_cast<size_t>(length)))
                                 : nullptr;
  if (out == nullptr) return Refused(Status::kOutOfMemory);
  f.Serialize(out);
  return val(emscripten::typed_memory_view(static_cast<size_t>(length), out));
}

#define CUCKOO_INFO_SET(name, value) o.set(#name, value);
#define CUCKOO_SUB_INFO_SET(name, value) sub.set(#name, value);

// info(): family F's fields as one object.
template <Family F>
struct Info;

#define CUCKOO_SCALABLE_INFO_OF(OWN, SUB)                    \
  static val Of(const Filter& f) {                           \
    const auto& first = f.sub_filter(0);                     \
    val o = val::object();                                   \
    CUCKOO_SCALABLE_INFO(CUCKOO_INFO_SET)                    \
    OWN(CUCKOO_INFO_SET)                                     \
    val subs = val::array();                                 \
    for (uint32_t j = 0; j < f.sub_filter_count(); ++j) {    \
      const auto& s = f.sub_filter(j);                       \
      val sub = val::object();                               \
      SUB(CUCKOO_SUB_INFO_SET)                               \
      subs.set(j, sub);                                      \
    }                                                        \
    o.set("subFilters", subs);                               \
    return o;                                                \
  }

#define CUCKOO_FLAT_INFO_OF(FIELDS)                          \
  static val Of(const Filter& f) {                           \
    val o = val::object();                                   \
    FIELDS(CUCKOO_INFO_SET)                                  \
    return o;                                                \
  }

template <>
struct Info<Family::kCuckoo> : Registered<Family::kCuckoo> {
  CUCKOO_SCALABLE_INFO_OF(CUCKOO_CUCKOO_INFO, CUCKOO_CUCKOO_SUB_INFO)
};
template <>
struct Info<Family::kBloom> : Registered<Family::kBloom> {
  CUCKOO_SCALABLE_INFO_OF(CUCKOO_BLOOM_INFO, CUCKOO_BLOOM_SUB_INFO)
};
template <>
struct Info<Family::kRedisCuckoo> : Registered<Family::kRedisCuckoo> {
  CUCKOO_FLAT_INFO_OF(CUCKOO_REDIS_CUCKOO_INFO)
};
template <>
struct Info<Family::kRedisBloom> : Registered<Family::kRedisBloom> {
  CUCKOO_FLAT_INFO_OF(CUCKOO_REDIS_BLOOM_INFO)
};

CUCKOO_WRITER(
template <typename Filter>
Filter* Adopt(uintptr_t address) {
  return reinterpret_cast<Filter*>(address);
}

// Whether the filter class has CF.COMPACT (families.def has no column for it:
// the class says so itself).
template <typename Filter, typename = void>
struct HasCompact : std::false_type {};
template <typename Filter>
struct HasCompact<Filter, std::void_t<decltype(std::declval<Filter&>().Compact())>>
    : std::true_type {};

template <typename Filter>
void Compact(Filter& f) { f.Compact(); }

// union / isCompatible: families.def's join.
template <typename Filter>
int Union(Filter& into, const Filter& other) {
  return Answer(into.Union(other));
}

template <typename Filter>
bool IsCompatible(const Filter& a, const Filter& b) {
  return a.IsCompatible(b);
}

// A new cuckoo filter's shape (src/growth/sizing.h SizeCuckoo), as one object:
// fingerprintBits (0: none reaches the rate), firstRate, bytes (0: refused),
// maxCapacity and bytesAtMax (when bytes is 0 or above maxBytes).
val SizeCuckoo(double capacity, double false_positive_rate, int fingerprint_bits, int bucket_size,
               int expansion, int encoding, double max_bytes) {
  const cuckoo::CuckooSizing s = cuckoo::SizeCuckoo(
      capacity >= 1 ? static_cast<uint64_t>(capacity) : 0, false_positive_rate,
      static_cast<uint32_t>(fingerprint_bits), static_cast<uint32_t>(bucket_size),
      static_cast<uint32_t>(expansion),
      static_cast<cuckoo::TableEncoding>(encoding >= 0 && encoding <= 0xff ? encoding : 0xff),
      static_cast<uint64_t>(max_bytes));
  val o = val::object();
  o.set("fingerprintBits", s.fingerprint_bits);
  o.set("firstRate", s.first_rate);
  o.set("bytes", static_cast<double>(s.bytes));
  o.set("maxCapacity", static_cast<double>(s.max_capacity));
  o.set("bytesAtMax", static_cast<double>(s.bytes_at_max));
  return o;
}
)

// The class of family F: its name is the family's (families.def).
template <Family F>
void RegisterFamily(const char* name) {
  using Filter = typename Registered<F>::Filter;
  auto c = emscripten::class_<Filter>(name)
               .class_function("fromBytes", &FromBytes<Filter>, emscripten::allow_raw_pointers())
               .function("handle", &HandleOf<Filter>)
               .function("toBytes", &ToBytes<Filter>)
               .function("info", &Info<F>::Of);
  CUCKOO_WRITER(
  c.class_function("adopt", &Adopt<Filter>, emscripten::allow_raw_pointers());
  if constexpr (HasCompact<Filter>::value) c.function("compact", &Compact<Filter>);
  if constexpr (Registered<F>::kJoin) {
    c.function("union", &Union<Filter>);
    c.function("isCompatible", &IsCompatible<Filter>);
  })
  (void)c;
}

CUCKOO_SIZE_OPTIMIZED_END

}  // namespace

// What both sides must agree on, read by js/boundary/read-core.ts once at load
// (and checked against the registry, js/registry.ts checkRegistry).
#define CUCKOO_CONSTANTS(X)                                         \
  X(urlCanonicalAt, kCanonicalAt)                                   \
  X(urlSpanAt, kSpanAt)                                             \
  X(urlSpansAt, kSpansAt)                                           \
  X(urlBufferAt, kBufferAt)                                         \
  X(urlWorkspaceFixed, kWorkspaceFixed)                             \
  X(urlWorkspacePerByte, kWorkspacePerByte)                         \
  X(maxUrlBytes, cuckoo::url::kMaxUrlBytes)                         \
  X(maxUrlExpressions, cuckoo::url::kMaxExpressions)                \
  X(redisMaxChunkBytes, static_cast<double>(cuckoo::kRedisMaxChunkBytes)) \
  X(maxMaxKicks, cuckoo::kMaxMaxKicks)                              \
  X(maxExpansion, cuckoo::format::kMaxExpansion)                    \
  X(maxSubFilters, cuckoo::format::kMaxGrowthSubFilters)            \
  X(defaultSeedLow, static_cast<uint32_t>(cuckoo::kDefaultSeed))    \
  X(defaultSeedHigh, static_cast<uint32_t>(cuckoo::kDefaultSeed >> 32))

EMSCRIPTEN_BINDINGS(cuckoo_wasm) {
#define X(name, value) emscripten::constant(#name, value);
  CUCKOO_CONSTANTS(X)
#undef X
#define CUCKOO_FAMILY(Name, id, ...) emscripten::constant("family" #Name, id);
#include "common/families.def"
#define CUCKOO_TABLE_ENCODING(Name, id, ...) \
  emscripten::constant("encoding" #Name, static_cast<int>(id));
#include "cuckoo/table_encodings.def"
#define CUCKOO_FAMILY(Name, id, ...) RegisterFamily<Family::k##Name>(#Name);
#include "common/families.def"
  CUCKOO_WRITER(emscripten::function("sizeCuckoo", &SizeCuckoo);)
}

}  // namespace cuckoo_wasm
