// The embind layer of both modules: one class per family of
// src/common/families.def (Module.Cuckoo, Module.Bloom, Module.RedisCuckoo,
// Module.RedisBloom), each registered from that list on the family's first use
// (register_family, a plain export), the statuses as constants
// `status<Name>` (src/status.h's list; constants, not an enum_, because
// embind's enum support costs 1.0 KB gzipped of each bundle, the constants
// 0.4 KB), and the constants both sides agree on. A class's
// object owns one core filter: the TypeScript class of the filter holds it
// (through js/boundary/) and frees it with delete().
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
//   info()                  one object of the family's fields (its <name>_info.h)
// and in the full module (CUCKOO_WRITER, families.h):
//   create(options, status) a new filter from an object of the family's
//                           parameters, named as its Params::Fields names them
//                           (a u64 as a number or as [low, high] 32-bit words):
//                           the object, or null with the status at `status`
//   compact()               where the class has it (CF.COMPACT)
//   union(other), isCompatible(other)
//                           where families.def's join is 1 (Bloom)
//   dumpChunkCount(), dumpChunk(j), loadDumpHeader(iterator, ptr, length,
//   status), loadDumpChunk(iterator, ptr, length), finishDump()
//                           where families.def's dump is 1: SCANDUMP and
//                           LOADCHUNK (src/redis/redis_dump.h)
// The module-level functions: statusMessage, peekFamily, patchApply,
// patchInfo, and in the full module patchDiff and sizeCuckoo.
//
// Out of memory is a status, never an abort: in this Emscripten (3.1.6)
// libc++ has no exceptions, so operator new aborts when memory runs out.
// Only embind's registration of a class calls it, a block per method, on the
// family's first use (register_family, which checks for room first; the
// constants and functions registered at start allocate nothing). No other call
// does: no value_object or std::string crosses (embind
// marshals those through `new`), objects are built on the JS side (emval),
// the byte views are of malloc'd blocks, and the core allocates with calloc
// and reports kOutOfMemory.
#include <emscripten/bind.h>
#include <emscripten/em_macros.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "common/size_optimized.h"
#include "allocator.h"
#include "families.h"
#include "format/peek_family.h"
#include "growth/sizing.h"
#include "patch/patch.h"
#include "redis/redis_dump.h"
#include "url_region.h"

namespace cuckoo_wasm {
namespace {

using emscripten::val;

// Every call here is once per filter: compiled for size.
CUCKOO_SIZE_OPTIMIZED_BEGIN

const uint8_t* In(uintptr_t p) { return reinterpret_cast<const uint8_t*>(p); }

val Refused(Status s) { return val(-static_cast<int>(s)); }

// A filter a factory made: the object, or null with the status at `status`.
template <typename Filter>
Filter* Made(Status s, std::unique_ptr<Filter> filter, uintptr_t status) {
  *reinterpret_cast<int32_t*>(status) = static_cast<int32_t>(s);
  return s == Status::kOk ? filter.release() : nullptr;
}

template <typename Filter>
Filter* FromBytes(uintptr_t data, size_t length, uintptr_t status) {
  std::unique_ptr<Filter> filter;
  const Status s = Filter::Deserialize(In(data), length, &filter);
  return Made(s, std::move(filter), status);
}

// A copy of `length` bytes at `data` as a new Uint8Array that JS owns.
val CopyOut(const uint8_t* data, size_t length) {
  return val(emscripten::typed_memory_view(length, data)).call<val>("slice");
}

// A u64 as its decimal digits (a JS string: above 2^53 a number would round).
val Decimal(uint64_t v) {
  char digits[21];
  char* at = digits + sizeof digits;
  *--at = 0;
  do {
    *--at = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  return val(static_cast<const char*>(at));
}

// A u64 as 16 hex digits.
val Hex(uint64_t v) {
  char digits[17];
  for (int i = 15; i >= 0; --i, v >>= 4) digits[i] = "0123456789abcdef"[v & 15];
  digits[16] = 0;
  return val(static_cast<const char*>(digits));
}

// What a patch call made: its bytes (a Uint8Array JS owns; the block is
// freed), or { status, mismatch } where mismatch is null or { field,
// section, older, newer } (src/patch/patch.h PatchMismatch: a rate as a
// number, any other value as its decimal digits).
val PatchResult(Status s, uint8_t* bytes, size_t length, const cuckoo::PatchMismatch& m) {
  if (s == Status::kOk) {
    val out = CopyOut(bytes, length);
    std::free(bytes);
    return out;
  }
  val refusal = val::object();
  refusal.set("status", static_cast<int>(s));
  if (m.field == nullptr) {
    refusal.set("mismatch", val::null());
    return refusal;
  }
  const auto value = [&](uint64_t v) {
    if (!m.real) return Decimal(v);
    double d;
    static_assert(sizeof d == sizeof v, "binary64");
    std::memcpy(&d, &v, sizeof d);
    return val(d);
  };
  val mismatch = val::object();
  mismatch.set("field", val(m.field));
  mismatch.set("section", m.section);
  mismatch.set("older", value(m.older));
  mismatch.set("newer", value(m.newer));
  refusal.set("mismatch", mismatch);
  return refusal;
}

// A patch call of src/patch/patch.h on two serialized byte strings in wasm
// memory (ApplyPatch: a base and a patch; Diff: an older filter and a newer),
// as PatchResult.
template <Status (*Call)(const uint8_t*, size_t, const uint8_t*, size_t, uint8_t**, size_t*,
                         cuckoo::PatchMismatch*)>
val PatchCall(uintptr_t a, size_t a_length, uintptr_t b, size_t b_length) {
  uint8_t* out = nullptr;
  size_t length = 0;
  cuckoo::PatchMismatch m;
  const Status s = Call(In(a), a_length, In(b), b_length, &out, &length, &m);
  return PatchResult(s, out, length, m);
}

// What a patch's header says (docs/FORMAT.md §17), as one object, or -status.
val PatchInfo(uintptr_t patch, size_t patch_length) {
  cuckoo::PatchInfo i;
  const Status s = cuckoo::ReadPatchInfo(In(patch), patch_length, &i);
  if (s != Status::kOk) return Refused(s);
  val o = val::object();
  o.set("version", i.version);
  o.set("family", i.family);
  o.set("baseLength", static_cast<double>(i.base_length));
  o.set("resultLength", static_cast<double>(i.result_length));
  o.set("baseChecksum", Hex(i.base_checksum));
  o.set("resultChecksum", Hex(i.result_checksum));
  o.set("changes", static_cast<double>(i.changes));
  return o;
}

// The family the bytes hold (src/common/family.h), or -status.
int PeekFamily(uintptr_t data, size_t length) {
  Family family = Family::kCuckoo;
  const Status s = cuckoo::PeekFamily(In(data), length, &family);
  return Answer(s, static_cast<int>(family));
}

// The core's description of a status (what was wrong and what to do).
val StatusMessage(int status) { return val(cuckoo::StatusMessage(static_cast<Status>(status))); }

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

// An info() value: a number or a bool as itself, an empty optional as null.
template <typename T>
const T& InfoValue(const T& value) {
  return value;
}
val InfoValue(std::optional<double> value) { return value ? val(*value) : val::null(); }

#define CUCKOO_INFO_SET(name, value) o.set(#name, InfoValue(value));
#define CUCKOO_SUB_INFO_SET(name, value) sub.set(#name, InfoValue(value));
#define CUCKOO_INFO_COUNT(name, value) +1

// info(): family F's fields as one object (the lists of F's <name>_info.h,
// found by its name), with `subFilters` where F reports its sub-filters.
template <Family F>
struct Info;
#define CUCKOO_FAMILY(Name, ...)                                          \
  template <>                                                             \
  struct Info<Family::k##Name> : Registered<Family::k##Name> {            \
    static val Of(const Filter& f) {                                      \
      [[maybe_unused]] const auto& first = f.sub_filter(0);               \
      val o = val::object();                                              \
      CUCKOO_INFO_##Name(CUCKOO_INFO_SET)                                 \
      if constexpr (0 CUCKOO_SUB_INFO_##Name(CUCKOO_INFO_COUNT) > 0) {    \
        val subs = val::array();                                          \
        for (uint32_t j = 0; j < f.sub_filter_count(); ++j) {             \
          [[maybe_unused]] const auto& s = f.sub_filter(j);               \
          val sub = val::object();                                        \
          CUCKOO_SUB_INFO_##Name(CUCKOO_SUB_INFO_SET)                     \
          subs.set(j, sub);                                               \
        }                                                                 \
        o.set("subFilters", subs);                                        \
      }                                                                   \
      return o;                                                           \
    }                                                                     \
  };
#include "common/families.def"

CUCKOO_WRITER(
// create()'s options, read into a family's Params by Params::Fields.
struct ReadOption {
  val options;
  bool ok = true;

  // Out of line, as the u32 field's read below: one copy serves every field
  // of every family's Params, where inlined each field would carry one.
  __attribute__((noinline)) double Number(const char* name) {
    const val v = options[name];
    if (!v.isNumber()) ok = false;
    return v.isNumber() ? v.as<double>() : 0;
  }
  void operator()(const char* name, double& field) { field = Number(name); }
  void operator()(const char* name, bool& field) { field = options[name].as<bool>(); }
  __attribute__((noinline)) void operator()(const char* name, uint32_t& field) {
    const double d = Number(name);
    field = d >= 0 && d <= UINT32_MAX ? static_cast<uint32_t>(d) : UINT32_MAX;
  }
  // A u64: a number below 2^53, or [low, high] 32-bit words (a seed).
  void operator()(const char* name, uint64_t& field) {
    const val v = options[name];
    if (v.isArray()) {
      field = (static_cast<uint64_t>(v[1].as<double>()) << 32) | static_cast<uint32_t>(v[0].as<double>());
      return;
    }
    const double d = Number(name);
    field = d >= 1 && d < 18446744073709551616.0 ? static_cast<uint64_t>(d) : 0;
  }
  // An enum of the core (a table encoding): its number; one that names none
  // becomes 0xff, which the family's Create refuses.
  template <typename Enum, typename = std::enable_if_t<std::is_enum<Enum>::value>>
  void operator()(const char* name, Enum& field) {
    const double d = Number(name);
    field = static_cast<Enum>(d >= 0 && d <= 0xff ? static_cast<int>(d) : 0xff);
  }
};

// A new filter of the family (its Create) from the options object.
template <typename Filter>
Filter* Create(val options, uintptr_t status) {
  typename Filter::Params params;
  ReadOption read{options};
  params.Fields(read);
  std::unique_ptr<Filter> filter;
  const Status s = read.ok ? Filter::Create(params, &filter) : Status::kInvalidArgument;
  return Made(s, std::move(filter), status);
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

// SCANDUMP / LOADCHUNK: families.def's dump.
template <typename Filter>
uint32_t DumpChunkCount(const Filter& f) { return f.DumpChunkCount(); }

// Chunk j of SCANDUMP (0: the header) as [iterator, a copy of its bytes], or
// -status (OutOfMemory) when the header's block cannot be allocated.
template <typename Filter>
val DumpChunk(const Filter& f, uint32_t j) {
  uint8_t* header = nullptr;
  if (j == 0) {
    header = static_cast<uint8_t*>(std::malloc(static_cast<size_t>(f.DumpHeaderBytes())));
    if (header == nullptr) return Refused(Status::kOutOfMemory);
  }
  const cuckoo::RedisChunk c = f.DumpChunk(j, header);
  val out = val::array();
  out.set(0, static_cast<double>(c.iterator));
  out.set(1, CopyOut(c.data, static_cast<size_t>(c.len)));
  std::free(header);
  return out;
}

// LOADCHUNK of the header (iterator 1): a new filter, not usable until
// finishDump() gave 0 (JS deletes it on any error), or null with the status.
template <typename Filter>
Filter* LoadDumpHeader(double iterator, uintptr_t data, size_t length, uintptr_t status) {
  std::unique_ptr<Filter> filter;
  const Status s = Filter::LoadDumpHeader(static_cast<uint64_t>(iterator), In(data), length, &filter);
  return Made(s, std::move(filter), status);
}

// LOADCHUNK of a table chunk: 0, or -status.
template <typename Filter>
int LoadDumpChunk(Filter& f, double iterator, uintptr_t data, size_t length) {
  return Answer(f.LoadDumpChunk(static_cast<uint64_t>(iterator), In(data), length));
}

// After the last chunk: 0 (the filter is complete and usable), or -status.
template <typename Filter>
int FinishDump(Filter& f) { return Answer(f.FinishDump()); }

// Bytes toBytes() gives for a new Bloom filter (src/growth/sizing.h), or
// -InvalidArgument for options the core refuses.
double SizeBloom(double capacity, double false_positive_rate, int expansion) {
  const uint64_t bytes = cuckoo::BloomSerializedSizeFor(
      capacity >= 1 ? static_cast<uint64_t>(capacity) : 0, false_positive_rate, static_cast<uint32_t>(expansion));
  return bytes == 0 ? -static_cast<double>(Status::kInvalidArgument) : static_cast<double>(bytes);
}

// Bytes of the heap blocks in use (bindings/allocator.cc), for the full entry's wasmMemoryUsage().
double AllocatedBytes() { return static_cast<double>(LiveHeapBytes()); }

// A new cuckoo filter's shape (src/growth/sizing.h SizeCuckoo), as one object:
// fingerprintBits (0: none reaches the rate), firstRate, lowestRate (the
// lowest rate this bucket size and growth reach), bytes (0: refused),
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
  o.set("lowestRate", s.lowest_rate);
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
  using emscripten::allow_raw_pointers;
  auto c = emscripten::class_<Filter>(name)
               .class_function("fromBytes", &FromBytes<Filter>, allow_raw_pointers())
               .function("handle", &HandleOf<Filter>)
               .function("toBytes", &ToBytes<Filter>)
               .function("info", &Info<F>::Of);
  CUCKOO_WRITER(
  c.class_function("create", &Create<Filter>, allow_raw_pointers());
  if constexpr (HasCompact<Filter>::value) c.function("compact", &Compact<Filter>);
  if constexpr (Registered<F>::kJoin) {
    c.function("union", &Union<Filter>);
    c.function("isCompatible", &IsCompatible<Filter>);
  }
  if constexpr (Registered<F>::kScanDump) {
    c.function("dumpChunkCount", &DumpChunkCount<Filter>);
    c.function("dumpChunk", &DumpChunk<Filter>);
    c.class_function("loadDumpHeader", &LoadDumpHeader<Filter>, allow_raw_pointers());
    c.function("loadDumpChunk", &LoadDumpChunk<Filter>);
    c.function("finishDump", &FinishDump<Filter>);
  })
  (void)c;
}

CUCKOO_SIZE_OPTIMIZED_END

}  // namespace

// The room register_family checks for before a class's registration: more than
// all the blocks embind's operator new takes for one class (one per method), in
// bytes.
constexpr int kRegisterRoomBytes = 4096;

// Registers the class of the family numbered `family` (families.def's id) on
// its first use, not when the module starts: a page that only checks a
// Cuckoo filter's bytes registers one class, not four (a new Node.js process's
// first create() is about 2 ms sooner). A class's registration calls operator
// new (a block per method), which aborts when memory runs out, so a block of
// kRegisterRoomBytes is malloc'd and freed first: out of memory is a status.
// Returns 0 (registered now or before) or -status (families.h's convention):
// kOutOfMemory, or kInvalidArgument for a number that names no family.
extern "C" EMSCRIPTEN_KEEPALIVE int register_family(int family) {
  static bool registered[256] = {};
  if (family < 0 || family > 255) return Answer(Status::kInvalidArgument);
  if (registered[family]) return Answer(Status::kOk);
  // Through a volatile: the compiler may otherwise drop a malloc whose block is only freed.
  static void* volatile room;
  room = std::malloc(kRegisterRoomBytes);
  if (room == nullptr) return Answer(Status::kOutOfMemory);
  std::free(room);
  const bool known = OnFamily(family, false, [](auto row) {
    RegisterFamily<decltype(row)::kFamily>(decltype(row)::kName);
    return true;
  });
  if (!known) return Answer(Status::kInvalidArgument);
  registered[family] = true;
  return Answer(Status::kOk);
}

// What both sides must agree on, read by js/boundary/read-core.ts once at load
// (and checked against the registry, js/registry.ts checkRegistry).
#define CUCKOO_CONSTANTS(X)                                         \
  X(registerRoomBytes, kRegisterRoomBytes)                          \
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
#define CUCKOO_STATUS(Name, number) emscripten::constant("status" #Name, number);
  CUCKOO_STATUSES(CUCKOO_STATUS)
#undef CUCKOO_STATUS
  emscripten::function("statusMessage", &StatusMessage);
  emscripten::function("peekFamily", &PeekFamily);
  emscripten::function("patchApply", &PatchCall<cuckoo::ApplyPatch>);
  emscripten::function("patchInfo", &PatchInfo);
  CUCKOO_WRITER(
  emscripten::function("patchDiff", &PatchCall<cuckoo::Diff>);
  emscripten::function("sizeCuckoo", &SizeCuckoo);
  emscripten::function("sizeBloom", &SizeBloom);
  emscripten::function("allocatedBytes", &AllocatedBytes);)
}

}  // namespace cuckoo_wasm
