#include "url/url_filter.h"

#include <cstring>

namespace cuckoo {
namespace url {

Status AddEntry(void* filter, AddKey add, const UrlInput& in, uint8_t* buf, size_t buf_len,
                CanonicalUrl* canon, UrlSpan* expression) {
  const Status s = Entry(in, buf, buf_len, canon, expression);
  if (s != Status::kOk) return s;
  return add(filter, buf + expression->offset, expression->length);
}

bool Match(const void* filter, FirstContained first, const UrlInput& in, uint8_t* buf,
           size_t buf_len, CanonicalUrl* canon, UrlSpan* found, Status* status) {
  *status = Canonical(in, buf, buf_len, canon);
  if (*status != Status::kOk) return false;
  UrlSpan spans[kMaxExpressions];
  const size_t n = UrlExpressions(*canon, buf, spans);
  const size_t i = first(filter, buf, spans, n);
  if (i == n) return false;
  *found = spans[i];
  return true;
}

namespace {

// URLs looked up together: fewer than the keys of a key batch (kLookupGroup),
// as a URL's slot holds its expressions' text: UrlSlots take about 9.8 KB of
// the 64 KiB wasm stack at 32.
constexpr size_t kUrlGroup = 32;
static_assert(kUrlGroup <= kLookupGroup, "a URL group is looked up as one group of keys");

// The URLs of a batch being looked up, kUrlGroup at a time: a slot holds a
// URL's expressions (their bytes copied out of the workspace, which the next
// URL's canonicalization overwrites) and which of them is probed next.
struct UrlSlots {
  static constexpr size_t kTextBytes = 240;  // an expression's offset and length fit a byte
  uint8_t text[kUrlGroup][kTextBytes];
  uint8_t offset[kUrlGroup][kMaxExpressions];
  uint8_t length[kUrlGroup][kMaxExpressions];
  uint32_t url[kUrlGroup];
  uint8_t count[kUrlGroup];
  uint8_t next[kUrlGroup];
};

}  // namespace

void MatchBatch(const void* filter, const UrlProbes& probes, const uint8_t* keys,
                const uint32_t* offsets, size_t n, int8_t* results, uint8_t* buf, size_t buf_len,
                CanonicalUrl* canon, UrlSpan* spans) {
  UrlSlots s;
  alignas(8) unsigned char hashes[kUrlGroup * kMaxHashBytes];
  uint8_t found[kUrlGroup];
  uint8_t live[kUrlGroup];  // the slots in use, in the order they are probed
  uint8_t spare[kUrlGroup];  // the slots not in use: spare[0, kUrlGroup - used)
  size_t used = 0;
  for (size_t i = 0; i < kUrlGroup; ++i) spare[i] = static_cast<uint8_t>(i);
  for (size_t k = 0;;) {
    // Free slots take the next URLs; a URL whose expressions would not fit a
    // slot (or are not all within the first), or any URL of a filter looked
    // up key by key, is looked up alone.
    while (used < kUrlGroup && k < n) {
      UrlInput in;
      in.url = keys + offsets[k];
      in.len = offsets[k + 1] - offsets[k];
      const Status st = Canonical(in, buf, buf_len, canon);
      results[k] = static_cast<int8_t>(-static_cast<int>(st));  // 0 (kOk) until one is found
      if (st != Status::kOk) {
        ++k;
        continue;
      }
      const size_t e = UrlExpressions(*canon, buf, spans);
      // The first expression (the exact host, the path with the query) holds
      // every other: each is a host suffix followed by a path prefix.
      const uint32_t from = spans[0].offset;
      const uint32_t bytes = spans[0].length;
      bool fits = probes.grouped && bytes <= UrlSlots::kTextBytes;
      for (size_t i = 1; i < e && fits; ++i) {
        fits = spans[i].offset >= from && spans[i].offset - from + spans[i].length <= bytes;
      }
      if (!fits) {
        results[k++] = probes.first(filter, buf, spans, e) < e;
        continue;
      }
      const uint8_t u = spare[kUrlGroup - 1 - used];
      std::memcpy(s.text[u], buf + from, bytes);
      for (size_t i = 0; i < e; ++i) {
        s.offset[u][i] = static_cast<uint8_t>(spans[i].offset - from);
        s.length[u][i] = static_cast<uint8_t>(spans[i].length);
      }
      s.url[u] = static_cast<uint32_t>(k++);
      s.count[u] = static_cast<uint8_t>(e);
      s.next[u] = 0;
      live[used++] = u;
    }
    if (used == 0) return;
    // The next expression of every URL in a slot, as one group of keys.
    for (size_t c = 0; c < used; ++c) {
      const uint8_t u = live[c];
      probes.lookup.hash(filter, s.text[u] + s.offset[u][s.next[u]], s.length[u][s.next[u]],
                         hashes + c * probes.lookup.hash_bytes);
    }
    probes.lookup.contain(filter, hashes, used, found);
    size_t still = 0;
    size_t spares = kUrlGroup - used;
    for (size_t c = 0; c < used; ++c) {
      const uint8_t u = live[c];
      results[s.url[u]] = static_cast<int8_t>(found[c]);
      const bool done = found[c] != 0 || ++s.next[u] == s.count[u];
      live[still] = u;
      still += !done;
      spare[spares] = u;
      spares += done;
    }
    used = still;
  }
}

}  // namespace url
}  // namespace cuckoo
