// The plain C exports both modules share for whole filters: loading,
// serializing, describing and freeing a filter, status messages, the
// constants both sides agree on, and patches (CUCKOO_WRITER marks
// patch_diff, the full module's only). JS calls them as the instance's own
// exports (js/boundary/read-core.ts), so the reader (cuckoo-reader.wasm,
// which has no embind) and the full module (cuckoo-core.wasm) answer these
// calls with the same code. Answers follow families.h's convention.
//
// Named numbers cross as a RECORD: the export writes doubles to memory JS
// owns, and a static string names them, one name per value, comma-separated
// (js/boundary/read-core.ts readRecord decodes it). A name's last character
// may give its kind: '?' a boolean (0 / 1), '~' a number or null (NaN), '#'
// a 64-bit value in two doubles (low and high 32-bit words), given to JS as
// 16 hex digits. A growing filter's info() record then has, after '|', the
// names of each sub-filter's fields: its values are the count of sub-filters,
// then each one's values.
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

using cuckoo::BloomFilter;
using cuckoo::CuckooFilter;

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

// A record's fields, as X-macro lists of (name, value): NAME gives the names
// string, VALUE writes the values, from the one list.
#define CUCKOO_RECORD_NAME(name, value) #name ","
#define CUCKOO_RECORD_VALUE(name, value) r.Put(value);

// ---------------------------------------------------------------------------
// info(): Row<F>::kNames and Row<F>::Info, family F's fields.

template <Family F>
struct Row;

// A growing filter of this library's own families: the parameters of the
// filter (those of sub-filter 0), the row's own fields, then each sub-filter's.
#define CUCKOO_SCALABLE_INFO(X)                                \
  X(capacity, static_cast<double>(first.capacity()))          \
  X(seedLow, static_cast<uint32_t>(first.seed()))             \
  X(seedHigh, static_cast<uint32_t>(first.seed() >> 32))      \
  X(expansion, f.expansion())                                 \
  X(serializedSize, static_cast<double>(f.SerializedSize()))

#define CUCKOO_CUCKOO_INFO(X)                                  \
  X(bucketCount, static_cast<double>(first.bucket_count()))   \
  X(fingerprintBits, first.fingerprint_bits())                \
  X(bucketSize, first.bucket_size())                          \
  X(maxKicks, first.max_kicks())                              \
  X(encoding, static_cast<int>(first.encoding()))

// A sub-filter as js/filters/cuckoo-filter.ts's CuckooSubFilterInfo.
#define CUCKOO_CUCKOO_SUB_INFO(X)                              \
  X(capacity, static_cast<double>(s.capacity()))              \
  X(bucketCount, static_cast<double>(s.bucket_count()))       \
  X(fingerprintBits, s.fingerprint_bits())                    \
  X(encoding, static_cast<int>(s.encoding()))                 \
  X(size, static_cast<double>(s.size()))                      \
  X(loadFactor, s.load_factor())                              \
  X(victim?, s.victim_used() ? 1 : 0)                         \
  X(byteLength, static_cast<double>(s.SerializedSize()))

#define CUCKOO_BLOOM_INFO(X)                                   \
  X(falsePositiveRate, f.false_positive_rate())               \
  X(bitCount, static_cast<double>(f.bit_count()))             \
  X(hashCount, first.hash_count())

// A sub-filter as js/filters/bloom-filter.ts's BloomSubFilterInfo, but its
// expectedFalsePositiveRate: js/filters/bloom-filter.ts computes that and
// estimatedCount from these fields (only reported, they decide no bytes), so
// the module links no exp, pow or log1p.
#define CUCKOO_BLOOM_SUB_INFO(X)                               \
  X(capacity, static_cast<double>(s.capacity()))              \
  X(falsePositiveRate, s.false_positive_rate())               \
  X(bitCount, static_cast<double>(s.bit_count()))             \
  X(hashCount, s.hash_count())                                \
  X(size, static_cast<double>(s.size()))                      \
  X(setBitCount, static_cast<double>(s.SetBitCount()))        \
  X(byteLength, static_cast<double>(cuckoo::format::BloomSectionBytes(s.word_bytes())))

// The Redis families (src/redis/redis_cuckoo.h, src/redis/redis_bloom.h):
// what the server's CF.INFO / BF.INFO give, by the labels camelCased.
#define CUCKOO_REDIS_CUCKOO_INFO(X)                            \
  X(size, static_cast<double>(f.redis_size()))                \
  X(numberOfBuckets, static_cast<double>(f.bucket_count()))   \
  X(numberOfFilters, f.sub_filter_count())                    \
  X(numberOfItemsInserted, static_cast<double>(f.size()))     \
  X(numberOfItemsDeleted, static_cast<double>(f.deleted()))   \
  X(bucketSize, f.bucket_size())                              \
  X(expansionRate, f.expansion_rate())                        \
  X(maxIterations, f.max_iterations())                        \
  X(serializedSize, static_cast<double>(f.SerializedSize()))

#define CUCKOO_REDIS_BLOOM_INFO(X)                             \
  X(capacity, static_cast<double>(f.capacity()))              \
  X(size, static_cast<double>(f.redis_size()))                \
  X(numberOfFilters, f.sub_filter_count())                    \
  X(numberOfItemsInserted, static_cast<double>(f.size()))     \
  X(expansionRate~, f.non_scaling() ? NAN : static_cast<double>(f.growth())) \
  X(errorRate, f.error_rate())                                \
  X(initialCapacity, static_cast<double>(f.link(0).entries())) \
  X(serializedSize, static_cast<double>(f.SerializedSize()))

// A growing filter's record: the common fields, OWN, '|', then SUB per sub-filter.
#define CUCKOO_SCALABLE_ROW(OWN, SUB)                                                        \
  static constexpr const char kNames[] =                                                     \
      CUCKOO_SCALABLE_INFO(CUCKOO_RECORD_NAME) OWN(CUCKOO_RECORD_NAME) "|" SUB(CUCKOO_RECORD_NAME); \
  static void Info(const Filter& f, Record& r) {                                             \
    const auto& first = f.sub_filter(0);                                                     \
    CUCKOO_SCALABLE_INFO(CUCKOO_RECORD_VALUE)                                                \
    OWN(CUCKOO_RECORD_VALUE)                                                                 \
    r.Put(f.sub_filter_count());                                                             \
    for (uint32_t j = 0; j < f.sub_filter_count(); ++j) {                                    \
      const auto& s = f.sub_filter(j);                                                       \
      SUB(CUCKOO_RECORD_VALUE)                                                               \
    }                                                                                        \
  }

#define CUCKOO_FLAT_ROW(FIELDS)                                                              \
  static constexpr const char kNames[] = FIELDS(CUCKOO_RECORD_NAME);                         \
  static void Info(const Filter& f, Record& r) { FIELDS(CUCKOO_RECORD_VALUE) }

template <>
struct Row<Family::kCuckoo> : Registered<Family::kCuckoo> {
  CUCKOO_SCALABLE_ROW(CUCKOO_CUCKOO_INFO, CUCKOO_CUCKOO_SUB_INFO)
};
template <>
struct Row<Family::kBloom> : Registered<Family::kBloom> {
  CUCKOO_SCALABLE_ROW(CUCKOO_BLOOM_INFO, CUCKOO_BLOOM_SUB_INFO)
};
template <>
struct Row<Family::kRedisCuckoo> : Registered<Family::kRedisCuckoo> {
  CUCKOO_FLAT_ROW(CUCKOO_REDIS_CUCKOO_INFO)
};
template <>
struct Row<Family::kRedisBloom> : Registered<Family::kRedisBloom> {
  CUCKOO_FLAT_ROW(CUCKOO_REDIS_BLOOM_INFO)
};

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

// The families' ids and the table encodings' (families.def, table_encodings.def).
#define CUCKOO_FAMILY(Name, id, ...) "family" #Name ","
#define CUCKOO_TABLE_ENCODING(Name, id, ...) "encoding" #Name ","
constexpr const char kConstantNames[] = CUCKOO_CONSTANTS(CUCKOO_RECORD_NAME)
#include "common/families.def"
#include "cuckoo/table_encodings.def"
    ;

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

// Loads a filter of `family` from its serialized bytes (docs/FORMAT.md): its
// handle, or -status.
EMSCRIPTEN_KEEPALIVE int filter_deserialize(int family, const uint8_t* data, size_t length) {
  return OnFamily(family, kNoFamily, [&](auto row) {
    using Filter = FilterOf<decltype(row)>;
    std::unique_ptr<Filter> filter;
    const Status s = Filter::Deserialize(data, length, &filter);
    return Answer(s, s == Status::kOk ? static_cast<int>(reinterpret_cast<uintptr_t>(filter.release())) : 0);
  });
}

// The family the bytes hold (src/common/family.h), or -status.
EMSCRIPTEN_KEEPALIVE int filter_peek_family(const uint8_t* data, size_t length) {
  Family family = Family::kCuckoo;
  const Status s = cuckoo::PeekFamily(data, length, &family);
  return Answer(s, static_cast<int>(family));
}

EMSCRIPTEN_KEEPALIVE int filter_destroy(int family, void* handle) {
  return OnFamily(family, kNoFamily, [&](auto row) {
    delete static_cast<FilterOf<decltype(row)>*>(handle);
    return 0;
  });
}

// Writes the filter's serialized bytes (its family's serialized_size export
// of them) to `out`: 0, or -status.
EMSCRIPTEN_KEEPALIVE int filter_serialize(int family, const void* handle, uint8_t* out) {
  return OnFamily(family, kNoFamily, [&](auto row) {
    static_cast<const FilterOf<decltype(row)>*>(handle)->Serialize(out);
    return 0;
  });
}

// The filter's info() record (at most `cap` doubles to `out`): how many values
// it has (more than cap: call again with room for them), or -status.
EMSCRIPTEN_KEEPALIVE int filter_info(int family, const void* handle, double* out, uint32_t cap) {
  return OnFamily(family, kNoFamily, [&](auto row) {
    using RowT = Row<decltype(row)::kFamily>;
    Record r{out, cap};
    RowT::Info(*static_cast<const FilterOf<RowT>*>(handle), r);
    return static_cast<int>(r.need);
  });
}

// The names of family's info() record, or null for no family.
EMSCRIPTEN_KEEPALIVE const char* filter_info_names(int family) {
  return OnFamily(family, static_cast<const char*>(nullptr), [](auto row) {
    return static_cast<const char*>(Row<decltype(row)::kFamily>::kNames);
  });
}

// The constants' record: their count, the values in `out` (at most cap).
EMSCRIPTEN_KEEPALIVE int core_constants(double* out, uint32_t cap) {
  Record r{out, cap};
#define X(name, value) CUCKOO_RECORD_VALUE(name, value)
  CUCKOO_CONSTANTS(X)
#undef X
#define CUCKOO_FAMILY(Name, id, ...) r.Put(id);
#include "common/families.def"
#define CUCKOO_TABLE_ENCODING(Name, id, ...) r.Put(id);
#include "cuckoo/table_encodings.def"
  return static_cast<int>(r.need);
}

EMSCRIPTEN_KEEPALIVE const char* core_constant_names() { return kConstantNames; }

// The core's description of a status (static ASCII text).
EMSCRIPTEN_KEEPALIVE const char* status_message(int status) {
  return cuckoo::StatusMessage(static_cast<Status>(status));
}

// Bytes of the heap blocks in use (bindings/allocator.cc).
EMSCRIPTEN_KEEPALIVE double allocated_bytes() { return static_cast<double>(LiveHeapBytes()); }

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
