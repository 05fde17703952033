#include "url/url_expressions.h"

#include "url/word_scan.h"

namespace cuckoo {
namespace url {
namespace {

UrlSpan ExpressionOf(const CanonicalUrl& url) {
  return UrlSpan{url.host_offset, url.length - url.host_offset};
}

Status Finish(Status s, const CanonicalUrl* url, UrlSpan* expression) {
  if (expression == nullptr) return Status::kInvalidArgument;
  *expression = s == Status::kOk ? ExpressionOf(*url) : UrlSpan{0, 0};
  return s;
}

}  // namespace

size_t UrlExpressions(const CanonicalUrl& url, const uint8_t* buf, UrlSpan out[kMaxExpressions]) {
  // Host starts: the exact host, then the suffixes of 5, 4, 3 and 2 labels
  // that are shorter than it.
  uint32_t hosts[kMaxHostVariants];
  size_t host_count = 0;
  hosts[host_count++] = url.host_offset;
  const uint32_t host_end = url.host_offset + url.host_length;
  if (url.host_kind == HostKind::kName) {
    // starts[c - 2]: where the suffix of c labels begins (c = 2..5), the byte
    // after the c-th dot from the end; only suffixes shorter than the host
    // have such a dot. The last label alone (after the first dot) is never one.
    // Eight bytes at a time from the end while eight are left.
    uint32_t starts[4];
    size_t n = 0;
    size_t dots = 0;
    uint32_t i = host_end;
    for (; i - url.host_offset >= 8 && n < 4; i -= 8) {
      uint64_t mask = word::BytesEqual(word::Load64(buf + i - 8), '.');
      for (; mask != 0 && n < 4; mask &= ~(uint64_t{0x80} << (8 * word::LastByte(mask)))) {
        if (++dots >= 2) starts[n++] = i - 8 + static_cast<uint32_t>(word::LastByte(mask)) + 1;
      }
    }
    for (; i > url.host_offset && n < 4; --i) {
      if (buf[i - 1] == '.' && ++dots >= 2) starts[n++] = i;
    }
    // A suffix that is an IPv4 address in another form than dotted decimal
    // (`1.2.3` of `a.1.2.3`) is skipped: an entry with that host is
    // canonicalized to dotted decimal (`1.2.0.3`), so no entry equals it. One
    // already in dotted decimal (`10.0.0.1` of `a.10.0.0.1`) is an entry's form.
    for (size_t k = n; k-- > 0;) {
      const uint32_t start = starts[k];
      const size_t len = host_end - start;
      uint32_t ignored = 0;
      const bool digit = buf[start] >= '0' && buf[start] <= '9';  // else not IPv4
      if (digit && ParseIPv4(buf + start, len, &ignored) && !ParseDottedQuad(buf + start, len, &ignored)) {
        continue;
      }
      hosts[host_count++] = start;
    }
  }

  // Path variant ends (exclusive): with the query, without it, then the prefixes.
  uint32_t ends[kMaxPathVariants];
  size_t end_count = 0;
  const uint32_t path_end = url.path_offset + url.path_length;
  if (url.has_query) ends[end_count++] = url.length;
  ends[end_count++] = path_end;
  // The first four '/' of the path, eight bytes at a time while eight are left.
  size_t prefixes = 0;
  uint32_t i = url.path_offset;
  for (; path_end - i >= 8 && prefixes < 4; i += 8) {
    for (uint64_t mask = word::BytesEqual(word::Load64(buf + i), '/'); mask != 0 && prefixes < 4;
         mask &= mask - 1) {
      const uint32_t slash = i + static_cast<uint32_t>(word::FirstByte(mask));
      ++prefixes;
      if (slash + 1 != path_end) ends[end_count++] = slash + 1;
    }
  }
  for (; i < path_end && prefixes < 4; ++i) {
    if (buf[i] != '/') continue;
    ++prefixes;
    if (i + 1 != path_end) ends[end_count++] = i + 1;
  }

  size_t count = 0;
  for (size_t h = 0; h < host_count; ++h) {
    for (size_t p = 0; p < end_count; ++p) out[count++] = UrlSpan{hosts[h], ends[p] - hosts[h]};
  }
  return count;
}

Status EntryExpression(const uint8_t* entry, size_t len, uint8_t* buf, size_t buf_len,
                       CanonicalUrl* url, UrlSpan* expression) {
  const Status s = Canonicalize(entry, len, buf, buf_len, url);
  return Finish(s, url, expression);
}

Status EntryExpressionWithAsciiHost(const uint8_t* entry, size_t len, const uint8_t* ascii_host,
                                    size_t ascii_host_len, uint8_t* buf, size_t buf_len,
                                    CanonicalUrl* url, UrlSpan* expression) {
  const Status s =
      CanonicalizeWithAsciiHost(entry, len, ascii_host, ascii_host_len, buf, buf_len, url);
  return Finish(s, url, expression);
}

}  // namespace url
}  // namespace cuckoo
