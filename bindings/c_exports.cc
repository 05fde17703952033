// The plain C exports of the module: the per-key and per-batch calls, which
// take and return numbers only (bindings/families.h's convention). JS calls
// them as the wasm instance's own exports (js/boundary/read-core.ts), so a lookup is one
// direct wasm call, with no wrapper and no family dispatch in between:
//  - cf_* for cuckoo filters, bf_* for Bloom filters, rc_* and rb_* for the
//    Redis families, a row per family of src/common/families.def stamped from
//    the same templates (HOT_EXPORTS, and one export per capability);
//  - url_* for URLs in any family (the family as the first argument, one
//    switch per call, not per key of a batch).
// CUCKOO_WRITER marks the exports only the full module has (families.h).
// Nothing here allocates (bindings/embind.cc's header says why that matters).
#include <emscripten/emscripten.h>

#include <cstddef>
#include <cstdint>

#include "common/batch.h"
#include "families.h"
#include "url/url_filter.h"
#include "url_region.h"

namespace cuckoo_wasm {
namespace {

// Hot operations, one template each; HOT_EXPORTS stamps a family's row of
// them, the capability exports below the rest.

template <typename Filter>
int AddOne(Filter* f, const uint8_t* key, size_t len) { return Answer(f->Add(key, len)); }

template <typename Filter>
int ContainOne(const Filter* f, const uint8_t* key, size_t len) { return f->Contain(key, len) ? 1 : 0; }

// n keys packed as keys[offsets[k] .. offsets[k+1]): how many were added.
// `continues` (1): the keys go on one add of many keys whose earlier keys
// crossed in an earlier call (a RedisCuckooFilter checks its limit once per
// command, CF.INSERT's; the other families do not look at it).
template <typename Filter>
uint32_t AddBatch(Filter* f, const uint8_t* keys, const uint32_t* offsets, uint32_t n,
                  int32_t* status, int continues) {
  Status s;
  const size_t added = f->AddBatch(keys, offsets, n, &s, continues != 0);
  *status = Answer(s);
  return static_cast<uint32_t>(added);
}

template <typename Filter>
void ContainBatch(const Filter* f, const uint8_t* keys, const uint32_t* offsets, uint32_t n,
                  uint8_t* results) {
  f->ContainBatch(keys, offsets, n, results);
}

// size(), the serialized size and the sub-filter count: read by JS getters
// that may be polled often, and that change as the filter grows.
template <typename Filter>
double Size(const Filter* f) { return static_cast<double>(f->size()); }

template <typename Filter>
double SerializedSize(const Filter* f) { return static_cast<double>(f->SerializedSize()); }

template <typename Filter>
uint32_t SubFilterCount(const Filter* f) { return f->sub_filter_count(); }

template <typename Filter>
int AddUrl(Filter* f, cuckoo::url::UrlInput in, Region r) {
  return Answer(cuckoo::url::AddEntry(*f, in, r.buf, r.buf_len, r.canon, r.span));
}

template <typename Filter>
int MatchUrl(const Filter* f, cuckoo::url::UrlInput in, Region r) {
  Status s;
  const bool hit = cuckoo::url::Match(*f, in, r.buf, r.buf_len, r.canon, r.span, &s);
  return Answer(s, hit ? 1 : 0);
}

// What some families do (families.def's capabilities), one template each:
// delete (CF.DEL): 1 removed, 0 no match; count (CF.COUNT); add-unique
// (CF.ADDNX, BF.ADD's answer): 1 added, 0 already there (nothing changed), or
// -status; the load factor.
template <typename Filter>
int DeleteOne(Filter* f, const uint8_t* key, size_t len) {
  const Status s = f->Delete(key, len);
  return s == Status::kNotFound ? 0 : Answer(s, 1);
}

template <typename Filter>
uint32_t CountOne(const Filter* f, const uint8_t* key, size_t len) { return f->Count(key, len); }

template <typename Filter>
int AddUniqueOne(Filter* f, const uint8_t* key, size_t len) {
  bool added = false;
  const Status s = f->AddUnique(key, len, &added);
  return Answer(s, added ? 1 : 0);
}

template <typename Filter>
double LoadFactor(const Filter* f) { return f->load_factor(); }

}  // namespace

#define HOT_EXPORTS(prefix, Filter)                                                               \
  CUCKOO_WRITER(EMSCRIPTEN_KEEPALIVE int prefix##_add(Filter* f, const uint8_t* key, size_t len) { \
    return AddOne(f, key, len);                                                                   \
  })                                                                                              \
  EMSCRIPTEN_KEEPALIVE int prefix##_contain(const Filter* f, const uint8_t* key, size_t len) {    \
    return ContainOne(f, key, len);                                                               \
  }                                                                                               \
  CUCKOO_WRITER(EMSCRIPTEN_KEEPALIVE uint32_t prefix##_add_batch(Filter* f, const uint8_t* keys,  \
                                                   const uint32_t* offsets, uint32_t n,           \
                                                   int32_t* status, int continues) {              \
    return AddBatch(f, keys, offsets, n, status, continues);                                      \
  })                                                                                              \
  EMSCRIPTEN_KEEPALIVE void prefix##_contain_batch(const Filter* f, const uint8_t* keys,          \
                                                   const uint32_t* offsets, uint32_t n,           \
                                                   uint8_t* results) {                            \
    ContainBatch(f, keys, offsets, n, results);                                                   \
  }                                                                                               \
  EMSCRIPTEN_KEEPALIVE double prefix##_size(const Filter* f) { return Size(f); }                  \
  EMSCRIPTEN_KEEPALIVE double prefix##_serialized_size(const Filter* f) {                         \
    return SerializedSize(f);                                                                     \
  }                                                                                               \
  EMSCRIPTEN_KEEPALIVE uint32_t prefix##_sub_filter_count(const Filter* f) {                      \
    return SubFilterCount(f);                                                                     \
  }

#define DELETE_EXPORT(prefix, Filter)                                                             \
  EMSCRIPTEN_KEEPALIVE int prefix##_delete(Filter* f, const uint8_t* key, size_t len) {           \
    return DeleteOne(f, key, len);                                                                \
  }
#define COUNT_EXPORT(prefix, Filter)                                                              \
  EMSCRIPTEN_KEEPALIVE uint32_t prefix##_count(const Filter* f, const uint8_t* key, size_t len) { \
    return CountOne(f, key, len);                                                                 \
  }
#define ADD_UNIQUE_EXPORT(name, Filter)                                                           \
  EMSCRIPTEN_KEEPALIVE int name(Filter* f, const uint8_t* key, size_t len) {                      \
    return AddUniqueOne(f, key, len);                                                             \
  }
#define LOAD_FACTOR_EXPORT(prefix, Filter)                                                        \
  EMSCRIPTEN_KEEPALIVE double prefix##_load_factor(const Filter* f) { return LoadFactor(f); }
#define EXPORT_NAME_(prefix, suffix) prefix##_##suffix
#define EXPORT_NAME(prefix, suffix) EXPORT_NAME_(prefix, suffix)

// extern "C" inside the namespace: the exports keep their plain names.
extern "C" {

// Each family's row of exports (families.def): prefix_add ... prefix_sub_filter_count,
// then those of its capabilities.
#define CUCKOO_FAMILY(Name, id, prefix, Class, hash, del, count, unique, unique_export,       \
                      load_factor, join, dump)                                                \
  HOT_EXPORTS(prefix, cuckoo::Class)                                                          \
  CUCKOO_WRITER(CUCKOO_WHEN(del, DELETE_EXPORT(prefix, cuckoo::Class)))                       \
  CUCKOO_WHEN(count, COUNT_EXPORT(prefix, cuckoo::Class))                                     \
  CUCKOO_WRITER(CUCKOO_WHEN(unique, ADD_UNIQUE_EXPORT(EXPORT_NAME(prefix, unique_export), cuckoo::Class))) \
  CUCKOO_WHEN(load_factor, LOAD_FACTOR_EXPORT(prefix, cuckoo::Class))
#include "common/families.def"

// A list entry's canonical expression added to filter `f` of `family`: 0, or
// -status (kUrl* from canonicalization, or the filter's Add status).
CUCKOO_WRITER(
EMSCRIPTEN_KEEPALIVE int url_add(int family, void* f, const uint8_t* url, size_t len,
                                 const uint8_t* host, size_t host_len, uint8_t* region,
                                 size_t region_len) {
  const Region r = RegionAt(region, region_len);
  const auto in = Input(url, len, host, host_len);
  return OnFamily(family, kNoFamily, [&](auto row) {
    return AddUrl(static_cast<FilterOf<decltype(row)>*>(f), in, r);
  });
})

// 1 if an expression of the URL is in `f` (the first at region + kSpanAt), 0
// if none is, -status if the URL was refused.
EMSCRIPTEN_KEEPALIVE int url_match(int family, const void* f, const uint8_t* url, size_t len,
                                   const uint8_t* host, size_t host_len, uint8_t* region,
                                   size_t region_len) {
  const Region r = RegionAt(region, region_len);
  const auto in = Input(url, len, host, host_len);
  return OnFamily(family, kNoFamily, [&](auto row) {
    return MatchUrl(static_cast<const FilterOf<decltype(row)>*>(f), in, r);
  });
}

// url_add for n entries packed as for cf_add_batch, stopping at the first
// refused: how many were added, and 0 or -status in *status. The region must
// fit the longest entry.
CUCKOO_WRITER(
EMSCRIPTEN_KEEPALIVE uint32_t url_add_batch(int family, void* f, const uint8_t* keys,
                                            const uint32_t* offsets, uint32_t n, int32_t* status,
                                            uint8_t* region, size_t region_len) {
  const Region r = RegionAt(region, region_len);
  *status = kNoFamily;
  return OnFamily(family, 0u, [&](auto row) {
    auto* filter = static_cast<FilterOf<decltype(row)>*>(f);
    Status s;
    const size_t added = cuckoo::AddEach(keys, offsets, n, &s, [filter, r](const uint8_t* url, size_t len) {
      return cuckoo::url::AddEntry(*filter, Input(url, len, nullptr, 0), r.buf, r.buf_len, r.canon, r.span);
    });
    *status = Answer(s);
    return static_cast<uint32_t>(added);
  });
})

// url_match for n URLs: results[k] (an int8) is 1 (found), 0 (not found) or
// -status (URL k refused). The URLs' expressions are probed in groups
// (url::MatchBatch).
EMSCRIPTEN_KEEPALIVE int url_match_batch(int family, const void* f, const uint8_t* keys,
                                         const uint32_t* offsets, uint32_t n, int8_t* results,
                                         uint8_t* region, size_t region_len) {
  const Region r = RegionAt(region, region_len);
  return OnFamily(family, kNoFamily, [&](auto row) {
    cuckoo::url::MatchBatch(*static_cast<const FilterOf<decltype(row)>*>(f), keys, offsets, n,
                            results, r.buf, r.buf_len, r.canon, r.spans);
    return 0;
  });
}

// The canonical URL (CanonicalUrl at region + kCanonicalAt): 0, or -status.
EMSCRIPTEN_KEEPALIVE int url_canonicalize(const uint8_t* url, size_t len, const uint8_t* host,
                                          size_t host_len, uint8_t* region, size_t region_len) {
  const Region r = RegionAt(region, region_len);
  return Answer(cuckoo::url::Canonical(Input(url, len, host, host_len), r.buf, r.buf_len, r.canon));
}

// The URL's expressions (UrlSpan[n] at region + kSpansAt): n, or -status.
EMSCRIPTEN_KEEPALIVE int url_expressions(const uint8_t* url, size_t len, const uint8_t* host,
                                         size_t host_len, uint8_t* region, size_t region_len) {
  const Region r = RegionAt(region, region_len);
  const Status s =
      cuckoo::url::Canonical(Input(url, len, host, host_len), r.buf, r.buf_len, r.canon);
  if (s != Status::kOk) return Answer(s);
  return static_cast<int>(cuckoo::url::UrlExpressions(*r.canon, r.buf, r.spans));
}

// A list entry's canonical expression (UrlSpan at region + kSpanAt): 0, or -status.
CUCKOO_WRITER(
EMSCRIPTEN_KEEPALIVE int url_entry(const uint8_t* url, size_t len, const uint8_t* host,
                                   size_t host_len, uint8_t* region, size_t region_len) {
  const Region r = RegionAt(region, region_len);
  return Answer(
      cuckoo::url::Entry(Input(url, len, host, host_len), r.buf, r.buf_len, r.canon, r.span));
})

}  // extern "C"

}  // namespace cuckoo_wasm
