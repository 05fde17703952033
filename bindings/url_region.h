// The region of wasm memory the URL exports work in (c_exports.cc), and its
// layout, which the module's constants (embind.cc) give JS. Emscripten only.
#ifndef CUCKOO_WASM_BINDINGS_URL_REGION_H_
#define CUCKOO_WASM_BINDINGS_URL_REGION_H_

#include <cstddef>
#include <cstdint>

#include "common/size_optimized.h"
#include "url/url_filter.h"

namespace cuckoo_wasm {

CUCKOO_SIZE_OPTIMIZED_BEGIN

// A URL call takes the URL (or list entry) as bytes, the Punycode host JS
// found for it after a kUrlNonAsciiHost (host_len 0: none), and a region of
// wasm memory JS owns, laid out as
//   region + kCanonicalAt   CanonicalUrl (40 bytes): where the parts are
//   region + kSpanAt        UrlSpan: the matched expression, or the entry's
//   region + kSpansAt       UrlSpan[30]: url_expressions' expressions
//   region + kBufferAt      the workspace the spans point into, to region_len
// JS reads this layout and the workspace size from the module's constants (embind.cc).

constexpr size_t kCanonicalAt = 0;
constexpr size_t kSpanAt = 40;
constexpr size_t kSpansAt = 48;
constexpr size_t kBufferAt = kSpansAt + 8 * cuckoo::url::kMaxExpressions;
static_assert(sizeof(cuckoo::url::CanonicalUrl) == kSpanAt - kCanonicalAt, "region layout");
static_assert(sizeof(cuckoo::url::UrlSpan) == 8, "region layout");

// The workspace for a URL of n bytes is kWorkspaceFixed + kWorkspacePerByte * n.
constexpr size_t kWorkspaceFixed = cuckoo::url::CanonicalBufferSize(0);
constexpr size_t kWorkspacePerByte = cuckoo::url::CanonicalBufferSize(1) - kWorkspaceFixed;
static_assert(cuckoo::url::CanonicalBufferSize(cuckoo::url::kMaxUrlBytes) ==
                  kWorkspaceFixed + kWorkspacePerByte * cuckoo::url::kMaxUrlBytes,
              "the workspace is linear in the URL's length");

struct Region {
  cuckoo::url::CanonicalUrl* canon;
  cuckoo::url::UrlSpan* span;
  cuckoo::url::UrlSpan* spans;
  uint8_t* buf;
  size_t buf_len;
};

inline Region RegionAt(uint8_t* region, size_t region_len) {
  Region r;
  r.canon = reinterpret_cast<cuckoo::url::CanonicalUrl*>(region + kCanonicalAt);
  r.span = reinterpret_cast<cuckoo::url::UrlSpan*>(region + kSpanAt);
  r.spans = reinterpret_cast<cuckoo::url::UrlSpan*>(region + kSpansAt);
  r.buf = region + kBufferAt;
  r.buf_len = region_len > kBufferAt ? region_len - kBufferAt : 0;
  return r;
}

inline cuckoo::url::UrlInput Input(const uint8_t* url, size_t len, const uint8_t* host, size_t host_len) {
  cuckoo::url::UrlInput in;
  in.url = url;
  in.len = len;
  in.ascii_host = host;
  in.ascii_host_len = host_len;
  return in;
}

CUCKOO_SIZE_OPTIMIZED_END

}  // namespace cuckoo_wasm

#endif  // CUCKOO_WASM_BINDINGS_URL_REGION_H_
