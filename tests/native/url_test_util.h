// What the URL tests share (url_canon_test.cc, url_expressions_test.cc):
// Canonicalize and EntryExpression over std::string with a guarded buffer,
// status names, and the real URL list.
//
// Every call runs in a buffer of exactly CanonicalBufferSize(len) bytes with
// guard bytes on both sides; a write outside it fails the test. The buffer is
// filled with a pattern first, so output that depends on stale bytes shows.
#ifndef CUCKOO_WASM_TESTS_NATIVE_URL_TEST_UTIL_H_
#define CUCKOO_WASM_TESTS_NATIVE_URL_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "status.h"
#include "url/url_canon.h"
#include "url/url_expressions.h"

#ifndef CUCKOO_SHARED_DATA_DIR
#error "CUCKOO_SHARED_DATA_DIR must be defined (CMakeLists.txt sets it to ../shared/data)"
#endif

namespace cuckoo_test {

using cuckoo::Status;
namespace url = cuckoo::url;

inline std::string Name(Status s) {
  switch (s) {
    case Status::kOk: return "kOk";
    case Status::kInvalidArgument: return "kInvalidArgument";
    case Status::kUrlEmpty: return "kUrlEmpty";
    case Status::kUrlNoHost: return "kUrlNoHost";
    case Status::kUrlBadHost: return "kUrlBadHost";
    case Status::kUrlTooLong: return "kUrlTooLong";
    case Status::kUrlNonAsciiHost: return "kUrlNonAsciiHost";
    default: return "status " + std::to_string(static_cast<int>(s));
  }
}

// One Canonicalize (or CanonicalizeWithAsciiHost, or EntryExpression) result.
struct Canon {
  Status status = Status::kOk;
  std::string url;     // the canonical URL (kOk)
  std::string host;    // the host (kOk), or the non-ASCII host (kUrlNonAsciiHost)
  std::string path;    // path without the query
  std::string query;   // after the '?'
  std::string expression;               // EntryExpression's (kOk)
  std::vector<std::string> expressions;  // UrlExpressions (kOk)
  url::CanonicalUrl parts{};
};

constexpr size_t kGuard = 64;
constexpr uint8_t kGuardByte = 0xa5;

inline const uint8_t* U8(const std::string& s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

// Canonicalize(in) (with `ascii_host` replacing the host when non-null),
// EntryExpression and UrlExpressions on the result; checks the guards, the
// length bound and that the parts tile the output.
inline Canon Canonicalize(const std::string& in, const std::string* ascii_host = nullptr) {
  const size_t extra = ascii_host != nullptr ? ascii_host->size() : 0;
  const size_t size = url::CanonicalBufferSize(in.size() + extra);
  std::vector<uint8_t> mem(size + 2 * kGuard, kGuardByte);
  uint8_t* buf = mem.data() + kGuard;
  for (size_t i = 0; i < size; ++i) buf[i] = static_cast<uint8_t>('A' + i % 26);
  Canon r;
  url::UrlSpan expression{7, 7};
  if (ascii_host != nullptr) {
    r.status = url::EntryExpressionWithAsciiHost(U8(in), in.size(), U8(*ascii_host), extra, buf,
                                                 size, &r.parts, &expression);
  } else {
    r.status = url::EntryExpression(U8(in), in.size(), buf, size, &r.parts, &expression);
  }
  for (size_t i = 0; i < kGuard; ++i) {
    EXPECT_EQ(mem[i], kGuardByte) << "wrote before the buffer: " << in;
    EXPECT_EQ(mem[kGuard + size + i], kGuardByte) << "wrote after the buffer: " << in;
  }
  const url::CanonicalUrl& p = r.parts;
  // Canonicalize itself, in a buffer of other contents: the same status, parts and bytes.
  {
    std::vector<uint8_t> other(size, 0);
    url::CanonicalUrl q{};
    const Status s =
        ascii_host != nullptr
            ? url::CanonicalizeWithAsciiHost(U8(in), in.size(), U8(*ascii_host), extra,
                                             other.data(), size, &q)
            : url::Canonicalize(U8(in), in.size(), other.data(), size, &q);
    EXPECT_EQ(Name(s), Name(r.status)) << in;
    EXPECT_EQ(std::memcmp(&q, &p, sizeof q), 0) << in;
    const size_t shown = s == Status::kOk ? q.length
                         : s == Status::kUrlNonAsciiHost ? q.host_offset + q.host_length
                                                         : 0;
    EXPECT_EQ(std::memcmp(other.data(), buf, shown), 0) << in;
  }
  if (r.status == Status::kUrlNonAsciiHost) {
    EXPECT_LE(p.host_offset + p.host_length, size);
    r.host.assign(reinterpret_cast<const char*>(buf) + p.host_offset, p.host_length);
  }
  if (r.status != Status::kOk) {
    EXPECT_EQ(expression.offset, 0u);
    EXPECT_EQ(expression.length, 0u);
    if (r.status != Status::kUrlNonAsciiHost) {
      EXPECT_EQ(p.length + p.host_offset + p.host_length, 0u) << "*out not zeroed: " << in;
    }
    return r;
  }
  EXPECT_LE(p.length, url::CanonicalMaxLength(in.size() + extra)) << in;
  EXPECT_EQ(p.host_offset, p.scheme_length + 3);
  EXPECT_EQ(p.path_offset, p.host_offset + p.host_length);
  EXPECT_GE(p.path_length, 1u);
  EXPECT_EQ(buf[p.path_offset], '/');
  if (p.has_query) {
    EXPECT_EQ(p.query_offset, p.path_offset + p.path_length + 1);
    EXPECT_EQ(buf[p.query_offset - 1], '?');
  } else {
    EXPECT_EQ(p.query_offset, p.path_offset + p.path_length);
    EXPECT_EQ(p.query_length, 0u);
  }
  EXPECT_EQ(p.query_offset + p.query_length, p.length);
  const char* b = reinterpret_cast<const char*>(buf);
  r.url.assign(b, p.length);
  r.host.assign(b + p.host_offset, p.host_length);
  r.path.assign(b + p.path_offset, p.path_length);
  r.query.assign(b + p.query_offset, p.query_length);
  EXPECT_EQ(std::string(b + p.scheme_length, 3), "://");
  EXPECT_EQ(expression.offset, p.host_offset);
  EXPECT_EQ(expression.length, p.length - p.host_offset);
  r.expression.assign(b + expression.offset, expression.length);
  // Idempotence, for every canonical URL any test makes.
  {
    std::vector<uint8_t> again(url::CanonicalBufferSize(r.url.size()));
    url::CanonicalUrl q{};
    EXPECT_EQ(Name(url::Canonicalize(U8(r.url), r.url.size(), again.data(), again.size(), &q)),
              "kOk")
        << in;
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(again.data()), q.length), r.url)
        << "not idempotent: " << in;
  }
  url::UrlSpan spans[url::kMaxExpressions];
  const size_t n = url::UrlExpressions(p, buf, spans);
  EXPECT_GE(n, 1u);
  EXPECT_LE(n, url::kMaxExpressions);
  for (size_t i = 0; i < n && i < url::kMaxExpressions; ++i) {
    EXPECT_LE(spans[i].offset + spans[i].length, p.length);
    r.expressions.emplace_back(b + spans[i].offset, spans[i].length);
  }
  return r;
}

// The canonical URL, or "<status name>".
inline std::string Canonical(const std::string& in) {
  const Canon r = Canonicalize(in);
  return r.status == Status::kOk ? r.url : "<" + Name(r.status) + ">";
}

// The lines of phishing_urls.txt (49,256 real URLs; /work/shared/data/SOURCES.md),
// or empty if it is not there.
inline std::vector<std::string> RealUrls() {
  std::ifstream f(std::string(CUCKOO_SHARED_DATA_DIR) + "/phishing_urls.txt");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(f, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

#define SKIP_WITHOUT_REAL_URLS(urls)                                                        \
  if ((urls).empty()) {                                                                     \
    GTEST_SKIP() << CUCKOO_SHARED_DATA_DIR "/phishing_urls.txt is missing: the real-URL " \
                    "properties were not checked";                                          \
  }

}  // namespace cuckoo_test

#endif  // CUCKOO_WASM_TESTS_NATIVE_URL_TEST_UTIL_H_
