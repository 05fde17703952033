// URL canonicalization for URL blocklists, after Google Safe Browsing's "URLs
// and Hashing" (developers.google.com/safe-browsing/v4/urls-hashing, and the
// v5 reference safe-browsing/reference/URLs.and.Hashing for IPv6 hosts). The
// rules as implemented, where they differ from Google's Go reference code
// (github.com/google/safebrowsing, urls.go) and the limits: docs/URLS.md.
// Expressions (host suffix + path prefix) are made from the result by
// url_expressions.h.
//
// Canonicalize(bytes) writes "scheme://host/path[?query]" into a caller
// buffer, for example
//   "http://%31%36%38%2e%31%38%38%2e%39%39%2e%32%36/%2E%73%65%63%75%72%65/"
//       -> "http://168.188.99.26/.secure/"
//   "www.GOOgle.com..:80/a/./b/../c#frag" -> "http://www.google.com/a/c"
// in these steps:
//   1. the fragment (from the first '#') is cut, then bytes <= 0x20 at both
//      ends are trimmed, and tab, CR and LF are removed everywhere;
//   2. percent-escapes are decoded until none is left ("%2525" -> "%");
//   3. the text splits into scheme (lowercased; "http" when there is none),
//      host (userinfo "user:pass@" and port ":80" dropped), path, query;
//   4. host: leading and trailing dots stripped, runs of dots collapsed,
//      ASCII lowercased; an IPv4 address in any form inet_aton accepts
//      (octal, hex, 1 to 4 parts) becomes dotted decimal; a bracketed IPv6
//      address becomes its RFC 5952 text in brackets, or dotted decimal when
//      it is IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96);
//   5. path: "." and ".." segments resolved, empty segments dropped, "" -> "/";
//   6. the query is kept as it is;
//   7. bytes <= 0x20, >= 0x7f, '#' and '%' of host, path and query are
//      written as %XX, uppercase hex.
// The result is idempotent: canonicalizing a canonical URL gives it back.
//
// No allocation: everything is written into the caller's buffer of
// CanonicalBufferSize(len) bytes. No operator new, no exceptions. Thread-safe
// (no state). Time and extra space are linear in the input length.
#ifndef CUCKOO_WASM_SRC_URL_URL_CANON_H_
#define CUCKOO_WASM_SRC_URL_URL_CANON_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "status.h"

namespace cuckoo {
namespace url {

// Longest input, and longest canonical URL, accepted, bytes (Chrome's URL
// length limit, kMaxURLChars): longer ones are refused with kUrlTooLong, which
// keeps every offset and every buffer size below in uint32_t, also in wasm32.
inline constexpr size_t kMaxUrlBytes = size_t{2} << 20;

// Upper bound of CanonicalUrl::length for an input of `len` bytes: each byte
// may become a 3-byte %XX, plus "http://", a "/" path, and an IPv4 host longer
// than its input ("0" -> "0.0.0.0"). For len <= kMaxUrlBytes (+ the ASCII
// host's length for CanonicalizeWithAsciiHost).
constexpr size_t CanonicalMaxLength(size_t len) { return 3 * len + 32; }

// Bytes of `buf` Canonicalize needs for an input of `len` bytes: the output
// (CanonicalMaxLength) and a scratch copy of the decoded input behind it. For
// CanonicalizeWithAsciiHost pass len + ascii_host_len.
constexpr size_t CanonicalBufferSize(size_t len) { return CanonicalMaxLength(len) + len; }

// What the canonical host is. Values are part of the JS/WASM boundary.
enum class HostKind : uint32_t {
  kName = 0,  // a domain name (or anything that is not an IP address)
  kIPv4 = 1,  // dotted decimal "a.b.c.d", also from IPv4-mapped and NAT64 IPv6
  kIPv6 = 2,  // "[RFC 5952 text]", brackets included
};

// Where the parts of a canonical URL are in the caller's buffer: byte offsets
// and lengths into `buf`, all uint32_t (a wasm caller reads the struct as
// ten 32-bit words in this order). With kOk:
//   buf[0, length)                       the canonical URL
//   buf[0, scheme_length)                scheme, lowercase, then "://"
//   buf[host_offset, +host_length)       host, host_offset = scheme_length + 3
//   buf[path_offset, +path_length)       path, starts with '/', right after the host
//   buf[query_offset, +query_length)     query without its '?'; has_query says
//                                        whether a '?' is there (the query may be
//                                        empty: "http://a/q?"); without one
//                                        query_offset == length, query_length == 0
// With kUrlNonAsciiHost only host_offset and host_length are set (the rest is
// 0): see Canonicalize.
struct CanonicalUrl {
  uint32_t length;
  uint32_t scheme_length;
  uint32_t host_offset;
  uint32_t host_length;
  uint32_t path_offset;
  uint32_t path_length;
  uint32_t query_offset;
  uint32_t query_length;
  uint32_t has_query;  // 1 or 0
  HostKind host_kind;
};
static_assert(std::is_standard_layout<CanonicalUrl>::value && sizeof(CanonicalUrl) == 40,
              "CanonicalUrl crosses the JS/WASM boundary as ten uint32_t");

// Canonicalizes the URL in url[0, len) (any bytes; a JS string arrives as
// UTF-8) into buf[0, out->length). `buf` must hold CanonicalBufferSize(len)
// bytes; url and buf must not overlap. Returns
//   kOk              *out describes the canonical URL in buf;
//   kUrlTooLong      len > kMaxUrlBytes, or the canonical URL would be longer
//                    (so that every canonical URL is an input this accepts);
//   kInvalidArgument buf is null or buf_len < CanonicalBufferSize(len), or url
//                    is null with len > 0;
//   kUrlEmpty        nothing but bytes <= 0x20 (spaces, tabs, control bytes);
//   kUrlNoHost       no host: a bare path ("/a", "a:b"), only a fragment
//                    ("#x"), "http://", "http:///x", "http://user@/", or a
//                    scheme not followed by "//" ("mailto:a@b");
//   kUrlBadHost      a host that cannot be canonicalized: only dots ("..."), a
//                    ':' left after the port (":abc", "a:1:2", an unbracketed
//                    IPv6), '[' or ']' outside a valid bracketed IPv6 address,
//                    a bracketed IPv6 address that does not parse (zone ids
//                    included), or non-ASCII bytes of which some are valid
//                    UTF-8 and some are not;
//   kUrlNonAsciiHost the decoded host contains non-ASCII bytes, all of them
//                    valid UTF-8 (an IDN such as "bücher.de"): it has to become
//                    Punycode, which needs the IDNA tables this core does not
//                    carry. out->host_offset and out->host_length then give the
//                    host in buf, as UTF-8: percent-decoded, userinfo and port
//                    removed, leading and trailing dots stripped, runs of dots
//                    collapsed, ASCII letters lowercased. The caller converts it
//                    (JS: url.domainToASCII / new URL) and calls
//                    CanonicalizeWithAsciiHost with the same url and the result.
//                    (Substituting the host into the input and calling again
//                    would not be the same: the input's escapes of '#', '%',
//                    tab and the like would then be decoded twice.)
// Non-ASCII bytes in a host that are not part of any valid UTF-8 sequence are
// escaped as %XX like any other byte (the docs' "http://\x01\x80.com/").
// On an error status other than kUrlNonAsciiHost, *out is all zero.
Status Canonicalize(const uint8_t* url, size_t len, uint8_t* buf, size_t buf_len,
                    CanonicalUrl* out);

// Canonicalize, with the host replaced by ascii_host[0, ascii_host_len) (the
// Punycode form of the host Canonicalize reported with kUrlNonAsciiHost). The
// replacement goes through the same host rules (dots, lowercase, IPv4), and
// must be non-empty ASCII without '/', '?', '@', ':', '[', ']' or '%', else
// kUrlBadHost; url must still have a host (else kUrlNoHost). Never returns
// kUrlNonAsciiHost. `buf` must hold CanonicalBufferSize(len + ascii_host_len)
// bytes; kUrlTooLong if either length exceeds kMaxUrlBytes.
Status CanonicalizeWithAsciiHost(const uint8_t* url, size_t len, const uint8_t* ascii_host,
                                 size_t ascii_host_len, uint8_t* buf, size_t buf_len,
                                 CanonicalUrl* out);

// The host rules' IPv4 parser, over host[0, len) as the host step leaves it
// (dots stripped and collapsed, lowercase): 1 to 4 parts separated by '.',
// each decimal, octal (leading "0") or hex ("0x"), every part but the last at
// most 255 and the last filling the remaining bytes (inet_aton's forms:
// "3279880203", "0xc37f000b", "195.127.11", "0303.0177.0.013"). True and
// *address (the 32-bit value, first byte most significant) for an address,
// false for anything else, out-of-range parts included (not masked to 8 bits).
bool ParseIPv4(const uint8_t* host, size_t len, uint32_t* address);

// A dotted-decimal IPv4 address as RFC 3986 writes one (IPv4address, also
// inside an IPv6 literal): exactly four parts, each 0-255 in decimal without
// leading zeros. This is the form an IPv4 host is canonicalized to, so it is
// true exactly for the IPv4 hosts that are their own canonical form. True and
// *address as ParseIPv4, false for anything else.
bool ParseDottedQuad(const uint8_t* s, size_t n, uint32_t* address);

}  // namespace url
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_URL_URL_CANON_H_
