// libFuzzer target for the URL canonicalizer and the expressions made from it
// (src/url/url_canon.h, src/url/url_expressions.h, docs/URLS.md): the parser the
// URL-blocklist lookups run on every untrusted URL. Built with ASan + UBSan by
// the CMake preset "fuzz" (CMakePresets.json), which scripts/fuzz.sh runs:
//
//   bash scripts/fuzz.sh --target url            # 10,000,000 executions
//   bash scripts/fuzz.sh --target url 50000      # the short CI run
//   build/fuzz/url_fuzz tests/fuzz/<crash-file>  # replay one input
//
// Input: the URL's bytes. If they contain a 0xff byte, the bytes after the
// first one are also used as the ASCII host for CanonicalizeWithAsciiHost
// (0xff is never valid UTF-8, so a real URL seldom holds one). The seed corpus
// (tests/fuzz/url_corpus) holds real and docs URLs.
//
// Every call gets exact-size heap copies of its input and a buffer of exactly
// CanonicalBufferSize bytes, so a read or write past either is an ASan report.
// Checked, besides "no crash":
//  - the status is kOk or one of the kUrl* refusals (never kInvalidArgument,
//    never kUrlNonAsciiHost from CanonicalizeWithAsciiHost);
//  - a canonical URL fits CanonicalMaxLength, its parts tile it, it holds no
//    byte <= 0x20 or >= 0x7f and no '#', every '%' starts an uppercase %XX,
//    and canonicalizing it again gives the same bytes and parts (idempotence);
//  - EntryExpression is the URL after its "scheme://";
//  - 1 to 30 expressions, all distinct, the first the entry expression, each
//    a span of the output that, as an entry (and after "http://"), is itself;
//  - kUrlNonAsciiHost reports a host inside the buffer that is non-ASCII,
//    valid UTF-8, without dots at either end or two in a row; with an ASCII
//    replacement host the same URL then canonicalizes (kOk).
// A failed check prints what failed and traps; like any ASan/UBSan report,
// leak or timeout, that is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "status.h"
#include "url/url_canon.h"
#include "url/url_expressions.h"

namespace {

using cuckoo::Status;
namespace url = cuckoo::url;

// An exact-size heap copy (1 byte for an empty string, which is then not read).
std::unique_ptr<uint8_t[]> Copy(const uint8_t* data, size_t len) {
  std::unique_ptr<uint8_t[]> p(new uint8_t[len == 0 ? 1 : len]);
  if (len > 0) std::memcpy(p.get(), data, len);
  return p;
}

struct Result {
  Status status;
  url::CanonicalUrl parts;
  std::string bytes;  // the canonical URL (kOk), the host (kUrlNonAsciiHost)
};

bool IsRefusal(Status s) {
  return s == Status::kUrlEmpty || s == Status::kUrlNoHost || s == Status::kUrlBadHost ||
         s == Status::kUrlNonAsciiHost;
}

bool IsUpperHex(uint8_t c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); }

// Well-formed UTF-8 with at least one non-ASCII character.
bool IsNonAsciiUtf8(const std::string& s) {
  bool non_ascii = false;
  for (size_t i = 0; i < s.size();) {
    const uint8_t c = static_cast<uint8_t>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    non_ascii = true;
    size_t need = 0;
    uint32_t cp = 0;
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (s.size() - i <= need) return false;
    for (size_t k = 1; k <= need; ++k) {
      const uint8_t d = static_cast<uint8_t>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = cp << 6 | (d & 0x3f);
    }
    const uint32_t min = need == 1 ? 0x80 : need == 2 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += need + 1;
  }
  return non_ascii;
}

// Canonicalize (or CanonicalizeWithAsciiHost when host != nullptr) in an
// exact-size buffer, with the result's shape checked.
Result Run(const uint8_t* data, size_t len, const std::string* host = nullptr) {
  const auto in = Copy(data, len);
  const size_t extra = host != nullptr ? host->size() : 0;
  const size_t size = url::CanonicalBufferSize(len + extra);
  std::unique_ptr<uint8_t[]> buf(new uint8_t[size]);
  std::memset(buf.get(), 0xcd, size);
  Result r{};
  if (host != nullptr) {
    const auto h = Copy(reinterpret_cast<const uint8_t*>(host->data()), host->size());
    r.status = url::CanonicalizeWithAsciiHost(in.get(), len, h.get(), extra, buf.get(), size,
                                              &r.parts);
    FUZZ_CHECK(r.status != Status::kUrlNonAsciiHost);
  } else {
    r.status = url::Canonicalize(in.get(), len, buf.get(), size, &r.parts);
  }
  const url::CanonicalUrl& p = r.parts;
  const char* b = reinterpret_cast<const char*>(buf.get());
  if (r.status == Status::kUrlNonAsciiHost) {
    FUZZ_CHECK(p.host_offset + p.host_length <= size);
    r.bytes.assign(b + p.host_offset, p.host_length);
    FUZZ_CHECK(IsNonAsciiUtf8(r.bytes));
    FUZZ_CHECK(r.bytes.front() != '.' && r.bytes.back() != '.');
    FUZZ_CHECK(r.bytes.find("..") == std::string::npos);
    return r;
  }
  if (r.status != Status::kOk) {
    FUZZ_CHECK(IsRefusal(r.status));
    FUZZ_CHECK(cuckoo::StatusMessage(r.status)[0] != '\0');
    FUZZ_CHECK(p.length == 0 && p.host_offset == 0 && p.host_length == 0);
    return r;
  }
  FUZZ_CHECK(p.length <= url::CanonicalMaxLength(len + extra));
  FUZZ_CHECK(p.scheme_length >= 1 && p.host_offset == p.scheme_length + 3);
  FUZZ_CHECK(std::memcmp(b + p.scheme_length, "://", 3) == 0);
  FUZZ_CHECK(p.host_length >= 1 && p.path_offset == p.host_offset + p.host_length);
  FUZZ_CHECK(p.path_length >= 1 && b[p.path_offset] == '/');
  FUZZ_CHECK(p.has_query == 0 || p.has_query == 1);
  if (p.has_query) {
    FUZZ_CHECK(p.query_offset == p.path_offset + p.path_length + 1 && b[p.query_offset - 1] == '?');
  } else {
    FUZZ_CHECK(p.query_offset == p.path_offset + p.path_length && p.query_length == 0);
  }
  FUZZ_CHECK(p.query_offset + p.query_length == p.length);
  FUZZ_CHECK(static_cast<uint32_t>(p.host_kind) <= 2);
  r.bytes.assign(b, p.length);
  for (size_t i = 0; i < r.bytes.size(); ++i) {
    const uint8_t c = static_cast<uint8_t>(r.bytes[i]);
    FUZZ_CHECK(c > 0x20 && c < 0x7f && c != '#');
    if (c == '%') {
      FUZZ_CHECK(i + 2 < r.bytes.size() && IsUpperHex(static_cast<uint8_t>(r.bytes[i + 1])) &&
                 IsUpperHex(static_cast<uint8_t>(r.bytes[i + 2])));
    }
  }
  for (size_t i = p.path_offset; i < p.path_offset + p.path_length; ++i) {
    FUZZ_CHECK(b[i] != '?');
    if (b[i] == '/' && i + 1 < p.path_offset + p.path_length) FUZZ_CHECK(b[i + 1] != '/');
  }
  return r;
}

// The checks on a canonical URL c (the output of some input).
void CheckCanonical(const Result& c) {
  const std::string& u = c.bytes;
  const uint8_t* data = reinterpret_cast<const uint8_t*>(u.data());

  // Idempotence.
  const Result again = Run(data, u.size());
  FUZZ_CHECK(again.status == Status::kOk);
  FUZZ_CHECK(again.bytes == u);
  FUZZ_CHECK(std::memcmp(&again.parts, &c.parts, sizeof c.parts) == 0);

  // The entry expression, and the expressions, from a buffer of their own.
  const size_t size = url::CanonicalBufferSize(u.size());
  std::unique_ptr<uint8_t[]> buf(new uint8_t[size]);
  const auto in = Copy(data, u.size());
  url::CanonicalUrl parts{};
  url::UrlSpan expression{};
  FUZZ_CHECK(url::EntryExpression(in.get(), u.size(), buf.get(), size, &parts, &expression) ==
             Status::kOk);
  const char* b = reinterpret_cast<const char*>(buf.get());
  FUZZ_CHECK(expression.offset == c.parts.host_offset);
  FUZZ_CHECK(std::string(b + expression.offset, expression.length) == u.substr(c.parts.host_offset));

  url::UrlSpan spans[url::kMaxExpressions];
  const size_t n = url::UrlExpressions(parts, buf.get(), spans);
  FUZZ_CHECK(n >= 1 && n <= url::kMaxExpressions);
  std::set<std::string> seen;
  for (size_t i = 0; i < n; ++i) {
    FUZZ_CHECK(spans[i].offset >= parts.host_offset);
    FUZZ_CHECK(spans[i].offset + spans[i].length <= parts.length);
    const std::string x(b + spans[i].offset, spans[i].length);
    FUZZ_CHECK(seen.insert(x).second);
    if (i == 0) FUZZ_CHECK(x == u.substr(c.parts.host_offset));
    if (c.parts.host_kind != url::HostKind::kName) {
      FUZZ_CHECK(spans[i].offset == parts.host_offset);
    }
    // As an entry, the expression is itself; so is "http://" + it as a URL.
    const Result as_entry = Run(reinterpret_cast<const uint8_t*>(x.data()), x.size());
    FUZZ_CHECK(as_entry.status == Status::kOk);
    FUZZ_CHECK(as_entry.bytes.substr(as_entry.parts.host_offset) == x);
    const std::string as_url = "http://" + x;
    const Result as_http = Run(reinterpret_cast<const uint8_t*>(as_url.data()), as_url.size());
    FUZZ_CHECK(as_http.status == Status::kOk && as_http.bytes == as_url);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Result r = Run(data, size);
  if (r.status == Status::kOk) CheckCanonical(r);

  const std::string fixed_host = "xn--fuzz-host.example";
  if (r.status == Status::kUrlNonAsciiHost) {
    // The caller's Punycode step: with an ASCII host the URL canonicalizes.
    const Result ascii = Run(data, size, &fixed_host);
    FUZZ_CHECK(ascii.status == Status::kOk);
    CheckCanonical(ascii);
  }

  const void* sep = std::memchr(data, 0xff, size);
  if (sep != nullptr) {
    const size_t url_len = static_cast<size_t>(static_cast<const uint8_t*>(sep) - data);
    const std::string host(static_cast<const char*>(sep) + 1, size - url_len - 1);
    const Result h = Run(data, url_len, &host);
    if (h.status == Status::kOk) CheckCanonical(h);
    // A valid replacement host: kOk wherever the URL has a host (an unusable
    // host of its own may be replaced, unless it breaks the URL's structure),
    // and only the host differs.
    const Result plain = Run(data, url_len);
    const Result fixed = Run(data, url_len, &fixed_host);
    if (plain.status == Status::kOk || plain.status == Status::kUrlNonAsciiHost) {
      FUZZ_CHECK(fixed.status == Status::kOk);
    } else if (plain.status == Status::kUrlBadHost) {
      FUZZ_CHECK(fixed.status == Status::kOk || fixed.status == Status::kUrlBadHost);
    } else {
      FUZZ_CHECK(fixed.status == plain.status);
    }
    if (plain.status == Status::kOk) {
      const url::CanonicalUrl& p = plain.parts;
      FUZZ_CHECK(fixed.bytes == plain.bytes.substr(0, p.host_offset) + fixed_host +
                                    plain.bytes.substr(p.path_offset));
    }
  }
  return 0;
}
