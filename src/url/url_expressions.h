// Suffix/prefix expressions of a canonical URL, after Google Safe Browsing's
// "URLs and Hashing" (developers.google.com/safe-browsing/v4/urls-hashing,
// "Suffix/Prefix Expressions"): the strings a URL is looked up by, and the one
// string a blocklist entry is stored as. Input: a URL canonicalized by
// url_canon.h. docs/URLS.md has the rules, the divergences from Google's Go
// reference code and the limits.
//
// An expression is host + path, without the scheme: "a.b.c/1/2.html?param=1",
// "b.c/1/". For "http://a.b.c/1/2.html?param=1" the expressions are
//   a.b.c/1/2.html?param=1   a.b.c/1/2.html   a.b.c/   a.b.c/1/
//   b.c/1/2.html?param=1     b.c/1/2.html     b.c/     b.c/1/
// Hosts: the exact host, then up to 4 suffixes of the last 5 labels, longest
// first, each without its first label, never the last label alone ("c"); for
// an IPv4 or IPv6 host only the exact host. Paths: the exact path with the
// query (if the URL has a '?'), the exact path without it, then up to 4
// prefixes "/", "/1/", "/1/2/", "/1/2/3/" (each ending in '/'); no path twice.
// At most 5 x 6 = 30 expressions, all distinct.
//
// Every expression is a substring of the canonical URL: a host suffix runs on
// into the path, and every path variant starts where the path does. So an
// expression is an (offset, length) span of the canonical URL's buffer and
// nothing is copied: a caller hashes buf + offset for length bytes.
#ifndef CUCKOO_WASM_SRC_URL_URL_EXPRESSIONS_H_
#define CUCKOO_WASM_SRC_URL_URL_EXPRESSIONS_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "status.h"
#include "url/url_canon.h"

namespace cuckoo {
namespace url {

inline constexpr size_t kMaxHostVariants = 5;
inline constexpr size_t kMaxPathVariants = 6;
inline constexpr size_t kMaxExpressions = kMaxHostVariants * kMaxPathVariants;  // 30

// An expression: buf[offset, offset + length) of the buffer the canonical URL
// is in. Two uint32_t (a wasm caller reads an array of them as 32-bit pairs).
struct UrlSpan {
  uint32_t offset;
  uint32_t length;
};
static_assert(std::is_standard_layout<UrlSpan>::value && sizeof(UrlSpan) == 8,
              "UrlSpan crosses the JS/WASM boundary as two uint32_t");

// Writes the expressions of the canonical URL `url` (from Canonicalize or
// CanonicalizeWithAsciiHost with kOk, its bytes in `buf`) to out[0, n) and
// returns n, 1 <= n <= kMaxExpressions. Order: host-major (exact host first,
// then shorter suffixes), and per host: path with query, path, "/", "/1/", ...
// A host suffix that would itself parse as an IPv4 address ("2.3.4" of
// "a.2.3.4") is skipped: no list entry can have it, as an entry with that host
// is canonicalized to dotted decimal ("2.3.0.4").
size_t UrlExpressions(const CanonicalUrl& url, const uint8_t* buf, UrlSpan out[kMaxExpressions]);

// The expression a blocklist entry is stored as: the entry canonicalized (a
// full URL "http://evil.example/a", a host and path "evil.example/login/", or a
// bare host "evil.example", which means "evil.example/"; "http://" stands in
// for a missing scheme) without its scheme and "://": host + path [+ '?' +
// query], at buf[expression->offset, +length). Each expression UrlExpressions
// gives, taken as an entry, is its own EntryExpression.
// `buf`, statuses and kUrlNonAsciiHost as for Canonicalize (*url is filled in
// the same way); on a status other than kOk, *expression is {0, 0}.
Status EntryExpression(const uint8_t* entry, size_t len, uint8_t* buf, size_t buf_len,
                       CanonicalUrl* url, UrlSpan* expression);

// EntryExpression with the host replaced, as CanonicalizeWithAsciiHost does
// (after kUrlNonAsciiHost). `buf` holds CanonicalBufferSize(len + ascii_host_len).
Status EntryExpressionWithAsciiHost(const uint8_t* entry, size_t len, const uint8_t* ascii_host,
                                    size_t ascii_host_len, uint8_t* buf, size_t buf_len,
                                    CanonicalUrl* url, UrlSpan* expression);

}  // namespace url
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_URL_URL_EXPRESSIONS_H_
