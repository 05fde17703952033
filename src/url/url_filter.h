// URL blocklists in a filter: a list entry is stored as its one canonical
// expression (url_expressions.h EntryExpression), and a URL is looked up by all
// of its expressions (UrlExpressions: up to 30), each hashed with the filter's
// seed and probed in turn, stopping at the first found. So the entry
// "evil.example/" matches every URL on evil.example and its subdomains, and
// "evil.example/login/" every URL under that folder.
//
// A URL's false-positive rate is that of up to 30 probes: at most
// 1 - (1 - ε)^30 ≈ 30ε for a filter of per-key rate ε.
//
// Works on any filter with Add(const uint8_t*, size_t) -> Status and
// Contain(const uint8_t*, size_t) -> bool (every family's filter), which hash
// an expression as they hash any key. Nothing is allocated: the caller passes
// a workspace of WorkspaceSize(len) bytes.
#ifndef CUCKOO_WASM_SRC_URL_URL_FILTER_H_
#define CUCKOO_WASM_SRC_URL_URL_FILTER_H_

#include <cstddef>
#include <cstdint>

#include "common/batch.h"
#include "status.h"
#include "url/url_canon.h"
#include "url/url_expressions.h"

namespace cuckoo {
namespace url {

// A URL or list entry, url[0, len), and optionally the Punycode form of its
// host (ascii_host[0, ascii_host_len), ascii_host_len > 0) after a first call
// reported kUrlNonAsciiHost.
struct UrlInput {
  const uint8_t* url = nullptr;
  size_t len = 0;
  const uint8_t* ascii_host = nullptr;
  size_t ascii_host_len = 0;
};

// Bytes of workspace for `in`.
inline size_t WorkspaceSize(const UrlInput& in) {
  return CanonicalBufferSize(in.len + in.ascii_host_len);
}

inline Status Canonical(const UrlInput& in, uint8_t* buf, size_t buf_len, CanonicalUrl* canon) {
  return in.ascii_host_len > 0
             ? CanonicalizeWithAsciiHost(in.url, in.len, in.ascii_host, in.ascii_host_len, buf,
                                         buf_len, canon)
             : Canonicalize(in.url, in.len, buf, buf_len, canon);
}

inline Status Entry(const UrlInput& in, uint8_t* buf, size_t buf_len, CanonicalUrl* canon,
                    UrlSpan* expression) {
  return in.ascii_host_len > 0
             ? EntryExpressionWithAsciiHost(in.url, in.len, in.ascii_host, in.ascii_host_len, buf,
                                            buf_len, canon, expression)
             : EntryExpression(in.url, in.len, buf, buf_len, canon, expression);
}

// What the URL calls ask of a family's filter, passed as a function so that
// url_filter.cc's one copy of each call serves every family: add one key; or
// the index of the first of n keys (spans[0, n) in buf) the filter may hold,
// n if none (the probes stay one loop over the family's own Contain).
using AddKey = Status (*)(void* filter, const uint8_t* key, size_t len);
using FirstContained = size_t (*)(const void* filter, const uint8_t* buf, const UrlSpan* spans, size_t n);

template <typename Filter>
Status AddKeyTo(void* filter, const uint8_t* key, size_t len) {
  return static_cast<Filter*>(filter)->Add(key, len);
}

template <typename Filter>
size_t FirstContainedIn(const void* filter, const uint8_t* buf, const UrlSpan* spans, size_t n) {
  const Filter& f = *static_cast<const Filter*>(filter);
  for (size_t i = 0; i < n; ++i) {
    if (f.Contain(buf + spans[i].offset, spans[i].length)) return i;
  }
  return n;
}

// Adds the entry's canonical expression to `filter`. A canonicalization
// status (kUrl*; kUrlNonAsciiHost with canon->host_* set) or the filter's Add
// status; on any error nothing is added.
Status AddEntry(void* filter, AddKey add, const UrlInput& in, uint8_t* buf, size_t buf_len,
                CanonicalUrl* canon, UrlSpan* expression);
template <typename Filter>
Status AddEntry(Filter& filter, const UrlInput& in, uint8_t* buf, size_t buf_len,
                CanonicalUrl* canon, UrlSpan* expression) {
  return AddEntry(&filter, AddKeyTo<Filter>, in, buf, buf_len, canon, expression);
}

// Looks the URL up by its expressions. kOk with *found set to the first
// expression in the filter (host-major order, see UrlExpressions) and true
// returned, or false if none is; else the canonicalization status and false.
bool Match(const void* filter, FirstContained first, const UrlInput& in, uint8_t* buf,
           size_t buf_len, CanonicalUrl* canon, UrlSpan* found, Status* status);
template <typename Filter>
bool Match(const Filter& filter, const UrlInput& in, uint8_t* buf, size_t buf_len,
           CanonicalUrl* canon, UrlSpan* found, Status* status) {
  return Match(&filter, FirstContainedIn<Filter>, in, buf, buf_len, canon, found, status);
}

// Looks up n URLs (batch.h's layout; no ASCII host given): results[k] = 1 if
// an expression of URL k may be in the filter, 0 if none may, -status if
// canonicalization refused it (kUrlNonAsciiHost among them), as Match answers
// each. 32 consecutive URLs are looked up together (url_filter.cc kUrlGroup):
// the first expression of each as one group of keys, then the second of those
// not found, and so on, so that their cache misses overlap while each URL's
// expressions are hashed and probed as Match does, up to the first found.
// buf, canon and spans are the workspace (buf_len bytes for the longest URL)
// and its parts, as for Match.
// A filter of fewer than kGroupFromBytes bytes (`grouped` false) stays in the
// caches: its URLs are looked up one by one (`first`, as Match).
struct UrlProbes {
  FirstContained first;
  GroupLookup lookup;
  bool grouped;
};
void MatchBatch(const void* filter, const UrlProbes& probes, const uint8_t* keys,
                const uint32_t* offsets, size_t n, int8_t* results, uint8_t* buf, size_t buf_len,
                CanonicalUrl* canon, UrlSpan* spans);
template <typename Filter>
void MatchBatch(const Filter& filter, const uint8_t* keys, const uint32_t* offsets, size_t n,
                int8_t* results, uint8_t* buf, size_t buf_len, CanonicalUrl* canon, UrlSpan* spans) {
  const UrlProbes probes{FirstContainedIn<Filter>, GroupLookupOf<Filter>(),
                         filter.SerializedSize() >= kGroupFromBytes};
  MatchBatch(&filter, probes, keys, offsets, n, results, buf, buf_len, canon, spans);
}

}  // namespace url
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_URL_URL_FILTER_H_
