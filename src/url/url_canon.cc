#include "url/url_canon.h"

#include <cstring>

#include "url/word_scan.h"

namespace cuckoo {
namespace url {
namespace {

using word::BeforeFirst;
using word::BytesBelow;
using word::BytesEqual;
using word::FirstByte;
using word::kHighs;
using word::LastByte;
using word::Load64;
using word::Store64;

// ---------------------------------------------------------------------------
// Byte classes, one table.

constexpr uint8_t kEscapeClass = 1;     // written as %XX: <= 0x20, >= 0x7f, '#', '%'
constexpr uint8_t kHexClass = 2;        // 0-9 a-f A-F
constexpr uint8_t kAlphaClass = 4;      // a-z A-Z
constexpr uint8_t kSchemeClass = 8;     // a-z A-Z 0-9 + - .  (RFC 3986 scheme characters)
constexpr uint8_t kDigitClass = 16;     // 0-9
constexpr uint8_t kDecodeClass = 32;    // '%', '#', <= 0x20: DecodeInput does more than copy them
constexpr uint8_t kAuthorityClass = 64; // '/', '?', '@', ':': the authority scan stops or notes them
constexpr uint8_t kHostClass = 128;     // escaped bytes, '.', ':', '[', ']', '/', '?', '@', A-Z

struct ByteClasses {
  uint8_t of[256];
};

constexpr ByteClasses MakeByteClasses() {
  ByteClasses t{};
  for (int c = 0; c < 256; ++c) {
    uint8_t k = 0;
    const bool escape = c <= 0x20 || c >= 0x7f || c == '#' || c == '%';
    const bool digit = c >= '0' && c <= '9';
    const bool upper = c >= 'A' && c <= 'Z';
    const bool alpha = (c >= 'a' && c <= 'z') || upper;
    if (escape) k |= kEscapeClass;
    if (digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) k |= kHexClass;
    if (alpha) k |= kAlphaClass;
    if (alpha || digit || c == '+' || c == '-' || c == '.') k |= kSchemeClass;
    if (digit) k |= kDigitClass;
    if (c == '%' || c == '#' || c <= 0x20) k |= kDecodeClass;
    if (c == '/' || c == '?' || c == '@' || c == ':') k |= kAuthorityClass;
    if (escape || upper || c == '.' || c == ':' || c == '[' || c == ']' || c == '/' || c == '?' ||
        c == '@') {
      k |= kHostClass;
    }
    t.of[c] = k;
  }
  return t;
}

constexpr ByteClasses kClasses = MakeByteClasses();

inline bool Is(uint8_t c, uint8_t cls) { return (kClasses.of[c] & cls) != 0; }
inline bool IsHex(uint8_t c) { return Is(c, kHexClass); }
inline bool IsDigit(uint8_t c) { return Is(c, kDigitClass); }

inline uint8_t HexValue(uint8_t c) {
  return static_cast<uint8_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
}

inline uint8_t ToLower(uint8_t c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<uint8_t>(c | 0x20) : c;
}

constexpr char kUpperHex[] = "0123456789ABCDEF";
constexpr char kLowerHex[] = "0123456789abcdef";

// ---------------------------------------------------------------------------
// Byte classes of eight bytes at a time (word_scan.h).

// The escape class, <= 0x20, >= 0x7f, '#' and '%', of each byte of x.
inline uint64_t EscapeBytes(uint64_t x) {
  return BytesBelow(x, 0x21) | (x & kHighs) | BytesEqual(x, 0x7f) | BytesEqual(x, '#') |
         BytesEqual(x, '%');
}

// The bytes DecodeInput acts on, <= 0x20, '#' and '%', of each byte of x.
inline uint64_t DecodeBytes(uint64_t x) {
  return BytesBelow(x, 0x21) | BytesEqual(x, '#') | BytesEqual(x, '%');
}

// The index of the first byte of s[0, n) that DecodeInput acts on, or n.
size_t FindDecodeByte(const uint8_t* s, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t mask = DecodeBytes(Load64(s + i));
    if (mask != 0) return i + FirstByte(mask);
  }
  while (i < n && !Is(s[i], kDecodeClass)) ++i;
  return i;
}

// ---------------------------------------------------------------------------
// Steps 1-2: fragment, trimming, tab/CR/LF removal and repeated
// percent-decoding, in one pass.

// Decodes in[0, n) (which starts with a byte > 0x20) into u: up to the first
// '#', without trailing bytes <= 0x20, without tab, CR and LF, every
// percent-escape decoded until none is left. Returns the length (<= n); 0 when
// the text is only a fragment.
//
// Repeated decoding ("until it has no more percent-escapes") has one result
// whatever the order escapes are decoded in: two escapes "%HH" never overlap
// ('%' is not a hex digit), so decoding one never stops another, and each
// decoding shortens the text (a terminating, locally confluent rewriting, so
// its normal form is unique). Decoding the escape that the last byte written
// completes, again and again while the tail of u is one, reaches it in one
// pass: u never holds an escape before the next byte is appended, so the only
// escape a byte can complete is the one ending at it, and each decoding
// removes two bytes, so the whole pass is linear. `live` counts how many of
// the next bytes appended could still complete an escape (2 after a '%' at the
// tail, 1 with one at u[o - 2]); while it is 0 a byte is only copied.
//
// Trailing bytes <= 0x20 of the raw text are cut after decoding: `keep` is
// the length of u after the last byte > 0x20. This equals decoding the trimmed
// text, since such a byte is not a hex digit and cannot complete an escape.
//
// in[0, start) holds no byte DecodeInput acts on (FindDecodeByte): it is
// copied as it is.
size_t DecodeInput(const uint8_t* in, size_t n, size_t start, uint8_t* u) {
  std::memcpy(u, in, start);
  size_t o = start;
  size_t keep = start;
  unsigned live = 0;
  for (size_t i = start; i < n; ++i) {
    const uint8_t c = in[i];
    if (Is(c, kDecodeClass)) {
      if (c == '#') break;
      if (c == '%') {
        u[o++] = c;
        keep = o;
        live = 2;
      } else if (c != '\t' && c != '\r' && c != '\n') {
        u[o++] = c;  // a space or control byte: not a hex digit, no escape ends here
        live = 0;
      }
      continue;
    }
    u[o++] = c;
    if (live != 0 && --live == 0 && IsHex(u[o - 2]) && IsHex(u[o - 1])) {
      // u ends in "%HH": decode it, and whatever escapes that completes.
      do {
        u[o - 3] = static_cast<uint8_t>(HexValue(u[o - 2]) << 4 | HexValue(u[o - 1]));
        o -= 2;
      } while (o >= 3 && u[o - 3] == '%' && IsHex(u[o - 2]) && IsHex(u[o - 1]));
      live = u[o - 1] == '%' ? 2 : (o >= 2 && u[o - 2] == '%') ? 1 : 0;
    }
    keep = o;
  }
  return keep;
}

// ---------------------------------------------------------------------------
// Step 7: escaping.

// Writes src[0, n) to dst with every escape-class byte as %XX (uppercase hex);
// returns the end of what it wrote (at most dst + 3n).
uint8_t* EscapeCopy(const uint8_t* src, size_t n, uint8_t* dst) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t x = Load64(src + i);
    if (EscapeBytes(x) != 0) break;
    Store64(dst, x);
    dst += 8;
  }
  for (; i < n; ++i) {
    const uint8_t c = src[i];
    if (Is(c, kEscapeClass)) {
      dst[0] = '%';
      dst[1] = static_cast<uint8_t>(kUpperHex[c >> 4]);
      dst[2] = static_cast<uint8_t>(kUpperHex[c & 15]);
      dst += 3;
    } else {
      *dst++ = c;
    }
  }
  return dst;
}

// Escapes s[0, n), which holds `escapes` escape-class bytes, in place (s has
// room for n + 2 * escapes bytes); returns the new length.
size_t EscapeInPlace(uint8_t* s, size_t n, size_t escapes) {
  if (escapes == 0) return n;
  size_t w = n + 2 * escapes;
  const size_t length = w;
  for (size_t i = n; i-- > 0;) {
    const uint8_t c = s[i];
    if (Is(c, kEscapeClass)) {
      s[--w] = static_cast<uint8_t>(kUpperHex[c & 15]);
      s[--w] = static_cast<uint8_t>(kUpperHex[c >> 4]);
      s[--w] = '%';
    } else {
      s[--w] = c;
    }
  }
  return length;
}

// ---------------------------------------------------------------------------
// Host: IPv4, IPv6, UTF-8, names.

// Writes `v` (< 256) in decimal; returns the end.
uint8_t* WriteByteDecimal(uint32_t v, uint8_t* dst) {
  if (v >= 100) *dst++ = static_cast<uint8_t>('0' + v / 100);
  if (v >= 10) *dst++ = static_cast<uint8_t>('0' + v / 10 % 10);
  *dst++ = static_cast<uint8_t>('0' + v % 10);
  return dst;
}

// Writes "a.b.c.d"; returns the end (at most dst + 15).
uint8_t* WriteIPv4(uint32_t address, uint8_t* dst) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    dst = WriteByteDecimal(address >> shift & 0xff, dst);
    if (shift != 0) *dst++ = '.';
  }
  return dst;
}

// Parses the text between the brackets of an IPv6 literal (RFC 4291 §2.2:
// groups of 1-4 hex digits, at most one "::" standing for one or more zero
// groups, optionally a dotted-quad IPv4 address as the last 32 bits) into 8
// groups. No zone id ("%eth0"): false.
bool ParseIPv6(const uint8_t* s, size_t n, uint16_t groups[8]) {
  uint16_t g[8] = {};
  int count = 0;
  int compress_at = -1;
  size_t i = 0;
  if (n >= 2 && s[0] == ':' && s[1] == ':') {
    compress_at = 0;
    i = 2;
  } else if (n == 0 || s[0] == ':') {
    return false;
  }
  while (i < n) {
    if (count == 8) return false;
    size_t j = i;
    uint32_t v = 0;
    while (j < n && IsHex(s[j]) && j - i < 5) v = v << 4 | HexValue(s[j++]);
    if (j == i) return false;
    if (j < n && s[j] == '.') {
      // The last 32 bits as a dotted quad.
      uint32_t v4 = 0;
      if (count > 6 || !ParseDottedQuad(s + i, n - i, &v4)) return false;
      g[count++] = static_cast<uint16_t>(v4 >> 16);
      g[count++] = static_cast<uint16_t>(v4 & 0xffff);
      i = n;
      break;
    }
    if (j - i > 4) return false;
    g[count++] = static_cast<uint16_t>(v);
    if (j == n) {
      i = n;
      break;
    }
    if (s[j] != ':') return false;
    ++j;
    if (j < n && s[j] == ':') {
      if (compress_at >= 0) return false;
      compress_at = count;
      ++j;
    } else if (j == n) {
      return false;  // a single trailing ':'
    }
    i = j;
  }
  if (compress_at < 0) {
    if (count != 8) return false;
  } else {
    if (count == 8) return false;  // "::" stands for at least one group
    const int tail = count - compress_at;
    for (int k = 0; k < tail; ++k) g[7 - k] = g[count - 1 - k];
    for (int k = compress_at; k < 8 - tail; ++k) g[k] = 0;
  }
  std::memcpy(groups, g, sizeof g);
  return true;
}

// Writes one group in lowercase hex without leading zeros; returns the end.
uint8_t* WriteHexGroup(uint16_t v, uint8_t* dst) {
  bool started = false;
  for (int shift = 12; shift >= 0; shift -= 4) {
    const int d = v >> shift & 15;
    if (d != 0 || started || shift == 0) {
      *dst++ = static_cast<uint8_t>(kLowerHex[d]);
      started = true;
    }
  }
  return dst;
}

// Writes the canonical host of an IPv6 address: dotted decimal for an
// IPv4-mapped (::ffff:a.b.c.d) or NAT64 well-known-prefix (64:ff9b::a.b.c.d,
// RFC 6052) address, as the v5 docs ask; otherwise "[RFC 5952 text]": lowercase
// hex, no leading zeros, the longest run of two or more zero groups (the first
// of equal runs) as "::". Returns the end (at most dst + 41).
uint8_t* WriteIPv6Host(const uint16_t g[8], uint8_t* dst, HostKind* kind) {
  const bool zero_first_five = g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0;
  const bool mapped = zero_first_five && g[5] == 0xffff;
  const bool nat64 = g[0] == 0x64 && g[1] == 0xff9b && g[2] == 0 && g[3] == 0 && g[4] == 0 &&
                     g[5] == 0;
  if (mapped || nat64) {
    *kind = HostKind::kIPv4;
    return WriteIPv4(static_cast<uint32_t>(g[6]) << 16 | g[7], dst);
  }
  *kind = HostKind::kIPv6;
  int best_start = -1, best_len = 1;  // runs of length 1 are not compressed (RFC 5952 §4.2.2)
  for (int i = 0; i < 8;) {
    if (g[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && g[j] == 0) ++j;
    if (j - i > best_len) {
      best_start = i;
      best_len = j - i;
    }
    i = j;
  }
  *dst++ = '[';
  for (int i = 0; i < 8;) {
    if (i == best_start) {
      *dst++ = ':';
      *dst++ = ':';
      i += best_len;
      continue;
    }
    if (i > 0 && i != best_start + best_len) *dst++ = ':';
    dst = WriteHexGroup(g[i], dst);
    ++i;
  }
  *dst++ = ']';
  return dst;
}

enum class NonAscii { kNone, kValidUtf8, kNotUtf8, kMixed };

// Classifies the bytes >= 0x80 of s[0, n): none; all in well-formed UTF-8
// sequences (Unicode Table 3-7: no overlong forms, no surrogates, at most
// U+10FFFF); none in one; or some in one and some not. Decoding restarts at
// the byte after a lead that does not begin a well-formed sequence, so it is
// in step at every ASCII byte: a substring that starts after a '.' classifies
// its bytes as the whole string does.
NonAscii ClassifyNonAscii(const uint8_t* s, size_t n) {
  size_t valid = 0, invalid = 0;
  size_t i = 0;
  while (i < n) {
    const uint8_t c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t need = 0;
    uint8_t lo = 0x80, hi = 0xbf;  // range of the second byte
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1;
    } else if (c == 0xe0) {
      need = 2;
      lo = 0xa0;
    } else if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef) {
      need = 2;
    } else if (c == 0xed) {
      need = 2;
      hi = 0x9f;
    } else if (c == 0xf0) {
      need = 3;
      lo = 0x90;
    } else if (c >= 0xf1 && c <= 0xf3) {
      need = 3;
    } else if (c == 0xf4) {
      need = 3;
      hi = 0x8f;
    }
    bool ok = need > 0 && n - i > need && s[i + 1] >= lo && s[i + 1] <= hi;
    for (size_t k = 2; ok && k <= need; ++k) ok = s[i + k] >= 0x80 && s[i + k] <= 0xbf;
    if (ok) {
      ++valid;
      i += need + 1;
    } else {
      ++invalid;
      ++i;
    }
  }
  if (valid == 0 && invalid == 0) return NonAscii::kNone;
  if (invalid == 0) return NonAscii::kValidUtf8;
  return valid == 0 ? NonAscii::kNotUtf8 : NonAscii::kMixed;
}

// Writes the canonical form of a host that is not a bracketed IPv6 literal,
// src[0, n), at dst (room for 3n + 15 bytes): dots stripped and collapsed,
// ASCII lowercased, then either dotted decimal (an IPv4 address) or escaped.
// kUrlNonAsciiHost (only if allow_non_ascii; *written is then the length of
// the decoded host at dst) or kUrlBadHost as Canonicalize describes.
Status WriteNameHost(const uint8_t* src, size_t n, bool allow_non_ascii, uint8_t* dst,
                     size_t* written, HostKind* kind) {
  size_t k = 0;
  size_t escapes = 0;
  bool high = false;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t c = src[i];
    if (!Is(c, kHostClass)) {
      dst[k++] = c;
      continue;
    }
    if (c == '.') {
      // One dot per run, none first; a last one is cut below.
      if (k > 0 && dst[k - 1] != '.') dst[k++] = '.';
      continue;
    }
    if (c == ':' || c == '[' || c == ']' || c == '/' || c == '?' || c == '@') {
      return Status::kUrlBadHost;
    }
    high |= c >= 0x80;
    escapes += Is(c, kEscapeClass) ? 1 : 0;
    dst[k++] = ToLower(c);
  }
  if (k > 0 && dst[k - 1] == '.') --k;
  if (k == 0) return Status::kUrlBadHost;
  if (high) {
    switch (ClassifyNonAscii(dst, k)) {
      case NonAscii::kValidUtf8:
        if (!allow_non_ascii) return Status::kUrlBadHost;
        *written = k;
        return Status::kUrlNonAsciiHost;
      case NonAscii::kMixed:
        return Status::kUrlBadHost;
      case NonAscii::kNotUtf8:
        if (!allow_non_ascii) return Status::kUrlBadHost;
        break;
      case NonAscii::kNone:
        break;
    }
  }
  uint32_t address = 0;
  // Every part of an IPv4 address starts with a digit (ParseIPv4 needs one).
  if (escapes == 0 && IsDigit(dst[0]) && ParseIPv4(dst, k, &address)) {
    *kind = HostKind::kIPv4;
    *written = static_cast<size_t>(WriteIPv4(address, dst) - dst);
    return Status::kOk;
  }
  *kind = HostKind::kName;
  *written = EscapeInPlace(dst, k, escapes);
  return Status::kOk;
}

// ---------------------------------------------------------------------------
// Path.

// Writes the canonical path of p[0, n), up to its first '?' (p is empty or
// starts with '/'), at dst: "/" for an empty path; "." segments and empty
// segments dropped, ".." removes the segment before it (none above the root);
// a path whose last segment is "", "." or ".." ends in '/'. Segments are
// escaped. Sets *consumed to the bytes of p read (the index of the '?', or n)
// and returns the end of what it wrote (at most dst + max(3 * *consumed, 1)).
uint8_t* WritePath(const uint8_t* p, size_t n, uint8_t* dst, size_t* consumed) {
  uint8_t* o = dst;
  *o++ = '/';
  uint8_t* segment = o;  // where the segment being written starts
  size_t i = n > 0 && p[0] == '/' ? 1 : 0;
  while (true) {
    const uint8_t c = i < n ? p[i] : '?';
    if (c != '/' && c != '?') {
      if (Is(c, kEscapeClass)) {
        o[0] = '%';
        o[1] = static_cast<uint8_t>(kUpperHex[c >> 4]);
        o[2] = static_cast<uint8_t>(kUpperHex[c & 15]);
        o += 3;
      } else {
        *o++ = c;
      }
      ++i;
      continue;
    }
    // The segment [segment, o) ends here. Escaping writes no '.', so "." and
    // ".." are the input's own.
    const size_t len = static_cast<size_t>(o - segment);
    const bool last = c == '?';
    if (len == 1 && segment[0] == '.') {
      o = segment;
    } else if (len == 2 && segment[0] == '.' && segment[1] == '.') {
      o = segment;
      if (o - dst > 1) {  // back to the '/' before the previous segment
        --o;
        while (o[-1] != '/') --o;
      }
    } else if (len > 0 && !last) {
      *o++ = '/';
    }
    if (last) break;
    segment = o;
    ++i;
  }
  *consumed = i;
  return o;
}

// WritePath for a path that is its own canonical form, copied a word at a
// time: p[0, n) up to its first '?' starts with '/' and has no escape-class
// byte, no empty segment ("//") and no segment that starts with '.' (so no
// "." or ".."). Returns the bytes copied to dst (the index of the '?', or n),
// or 0 when the path is not such a path (dst may then hold anything up to
// dst + n). Writes nothing beyond dst + n.
size_t CopyCleanPath(const uint8_t* p, size_t n, uint8_t* dst) {
  if (n == 0 || p[0] != '/') return 0;
  size_t i = 0;
  for (; i + 9 <= n; i += 8) {  // the byte after the word too, for "//" and "/."
    const uint64_t x = Load64(p + i);
    const uint64_t next = Load64(p + i + 1);
    const uint64_t bad =
        EscapeBytes(x) | (BytesEqual(x, '/') & (BytesEqual(next, '/') | BytesEqual(next, '.')));
    const uint64_t query = BytesEqual(x, '?');
    if (query != 0) {
      // Only the bytes before the '?' count; those after it are the query's.
      if ((bad & ((query & (0 - query)) - 1)) != 0) return 0;
      Store64(dst + i, x);
      return i + FirstByte(query);
    }
    if (bad != 0) return 0;
    Store64(dst + i, x);
  }
  for (; i < n; ++i) {
    const uint8_t c = p[i];
    if (c == '?') return i;
    if (Is(c, kEscapeClass) || (c == '/' && i + 1 < n && (p[i + 1] == '/' || p[i + 1] == '.'))) {
      return 0;
    }
    dst[i] = c;
  }
  return n;
}

// ---------------------------------------------------------------------------
// The whole URL.

Status CanonicalizeImpl(const uint8_t* url, size_t len, const uint8_t* ascii_host,
                        size_t ascii_host_len, bool replace_host, uint8_t* buf, size_t buf_len,
                        CanonicalUrl* out) {
  if (out == nullptr) return Status::kInvalidArgument;
  *out = CanonicalUrl{};
  if (len > kMaxUrlBytes || ascii_host_len > kMaxUrlBytes) return Status::kUrlTooLong;
  const size_t total = len + (replace_host ? ascii_host_len : 0);
  if (buf == nullptr || buf_len < CanonicalBufferSize(total) || (url == nullptr && len > 0) ||
      (replace_host && ascii_host == nullptr && ascii_host_len > 0)) {
    return Status::kInvalidArgument;
  }

  // 1-2. Leading bytes <= 0x20; then fragment, trailing bytes <= 0x20, tab,
  // CR, LF and escapes, decoded into the scratch part of buf if there is
  // anything to decode.
  size_t first = 0;
  while (first < len && url[first] <= 0x20) ++first;
  if (first == len) return Status::kUrlEmpty;
  // Up to the first byte DecodeInput acts on, the text is its own decoded
  // form: when that byte is the fragment's '#' (or there is none), the text
  // is used where it is.
  const size_t rest = len - first;
  const size_t clean = FindDecodeByte(url + first, rest);
  const uint8_t* u = url + first;
  size_t m = clean;
  if (clean < rest && u[clean] != '#') {
    uint8_t* const decoded = buf + CanonicalMaxLength(total);
    m = DecodeInput(url + first, rest, clean, decoded);
    u = decoded;
  }
  if (m == 0) return Status::kUrlNoHost;  // only a fragment

  // 3. Split: [scheme ":" "//"] authority path ["?" query]. A scheme is
  // ALPHA *(ALPHA / DIGIT / "+" / "-" / ".") before a ':' that does not start
  // a port (digits, then '/', '?' or the end: "host:8080/x" has no scheme).
  size_t scheme_len = 0;
  if (Is(u[0], kAlphaClass)) {
    size_t i = 1;
    while (i < m && Is(u[i], kSchemeClass)) ++i;
    if (i < m && u[i] == ':') {
      size_t j = i + 1;
      while (j < m && IsDigit(u[j])) ++j;
      const bool port = j > i + 1 && (j == m || u[j] == '/' || u[j] == '?');
      if (!port) scheme_len = i;
    }
  }
  size_t pos = 0;
  if (scheme_len > 0) {
    pos = scheme_len + 1;
    if (m - pos < 2 || u[pos] != '/' || u[pos + 1] != '/') return Status::kUrlNoHost;
    pos += 2;
  }
  // The authority runs to the first '/' or '?'; the host follows its last '@'
  // (userinfo), and a port follows the host's last ':'. Eight bytes at a time
  // while eight are left, then byte by byte.
  size_t authority_end = pos;
  size_t at = 0, colon = 0;  // one past the last '@' / ':' seen, 0 for none
  bool ended = false;
  for (; authority_end + 8 <= m; authority_end += 8) {
    const uint64_t x = Load64(u + authority_end);
    const uint64_t stop = BytesEqual(x, '/') | BytesEqual(x, '?');
    const uint64_t before = BeforeFirst(stop);
    const uint64_t ats = BytesEqual(x, '@') & before;
    const uint64_t colons = BytesEqual(x, ':') & before;
    if (ats != 0) at = authority_end + LastByte(ats) + 1;
    if (colons != 0) colon = authority_end + LastByte(colons) + 1;
    if (stop != 0) {
      authority_end += FirstByte(stop);
      ended = true;
      break;
    }
  }
  for (; !ended && authority_end < m; ++authority_end) {
    const uint8_t c = u[authority_end];
    if (!Is(c, kAuthorityClass)) continue;
    if (c == '/' || c == '?') break;
    if (c == '@') {
      at = authority_end + 1;
    } else {
      colon = authority_end + 1;
    }
  }
  const size_t host_begin = at > 0 ? at : pos;
  size_t host_end = authority_end;
  const bool bracketed = host_begin < host_end && u[host_begin] == '[';
  size_t ipv6_end = 0;  // the ']'
  if (bracketed) {
    ipv6_end = host_begin + 1;
    while (ipv6_end < host_end && u[ipv6_end] != ']') ++ipv6_end;
    if (ipv6_end == host_end) return Status::kUrlBadHost;
    size_t j = ipv6_end + 1;
    if (j < host_end) {
      if (u[j] != ':') return Status::kUrlBadHost;
      for (++j; j < host_end; ++j) {
        if (!IsDigit(u[j])) return Status::kUrlBadHost;
      }
    }
  } else {
    // The port: after the last ':', digits only (possibly none).
    if (colon > host_begin) {
      size_t j = colon;
      while (j < host_end && IsDigit(u[j])) ++j;
      if (j == host_end) host_end = colon - 1;
    }
    if (host_end == host_begin) return Status::kUrlNoHost;
  }

  // Scheme, lowercase, or "http".
  uint8_t* o = buf;
  if (scheme_len > 0) {
    for (size_t i = 0; i < scheme_len; ++i) *o++ = ToLower(u[i]);
  } else {
    std::memcpy(o, "http", 4);
    o += 4;
    scheme_len = 4;
  }
  std::memcpy(o, "://", 3);
  o += 3;

  // 4. Host.
  const size_t host_offset = static_cast<size_t>(o - buf);
  HostKind kind = HostKind::kName;
  size_t host_len = 0;
  if (replace_host) {
    // A '%' in the replacement would be escaped as "%25" and decode, with the
    // bytes after it, into something else when the output is canonicalized
    // again; a Punycode host never has one.
    if (ascii_host_len > 0 && std::memchr(ascii_host, '%', ascii_host_len) != nullptr) {
      return Status::kUrlBadHost;
    }
    const Status s = WriteNameHost(ascii_host, ascii_host_len, false, o, &host_len, &kind);
    if (s != Status::kOk) return s;
  } else if (bracketed) {
    uint16_t groups[8];
    if (!ParseIPv6(u + host_begin + 1, ipv6_end - host_begin - 1, groups)) {
      return Status::kUrlBadHost;
    }
    host_len = static_cast<size_t>(WriteIPv6Host(groups, o, &kind) - o);
  } else {
    const Status s = WriteNameHost(u + host_begin, host_end - host_begin, true, o, &host_len, &kind);
    if (s == Status::kUrlNonAsciiHost) {
      out->host_offset = static_cast<uint32_t>(host_offset);
      out->host_length = static_cast<uint32_t>(host_len);
    }
    if (s != Status::kOk) return s;
  }
  o += host_len;

  // 5. Path; 6. query.
  const size_t path_offset = static_cast<size_t>(o - buf);
  size_t path_bytes = CopyCleanPath(u + authority_end, m - authority_end, o);
  if (path_bytes != 0) {
    o += path_bytes;
  } else {
    o = WritePath(u + authority_end, m - authority_end, o, &path_bytes);
  }
  const size_t path_len = static_cast<size_t>(o - buf) - path_offset;
  const size_t query_begin = authority_end + path_bytes;  // the '?', or m
  const bool has_query = query_begin < m;
  if (has_query) {
    *o++ = '?';
    o = EscapeCopy(u + query_begin + 1, m - query_begin - 1, o);
  }
  const size_t length = static_cast<size_t>(o - buf);
  // A canonical URL is itself an input Canonicalize accepts (idempotence).
  if (length > kMaxUrlBytes) return Status::kUrlTooLong;
  const size_t query_offset = has_query ? path_offset + path_len + 1 : length;

  out->length = static_cast<uint32_t>(length);
  out->scheme_length = static_cast<uint32_t>(scheme_len);
  out->host_offset = static_cast<uint32_t>(host_offset);
  out->host_length = static_cast<uint32_t>(host_len);
  out->path_offset = static_cast<uint32_t>(path_offset);
  out->path_length = static_cast<uint32_t>(path_len);
  out->query_offset = static_cast<uint32_t>(query_offset);
  out->query_length = static_cast<uint32_t>(length - query_offset);
  out->has_query = has_query ? 1 : 0;
  out->host_kind = kind;
  return Status::kOk;
}

}  // namespace

bool ParseDottedQuad(const uint8_t* s, size_t n, uint32_t* address) {
  uint32_t a = 0;
  size_t i = 0;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (i >= n || s[i] != '.') return false;
      ++i;
    }
    const size_t start = i;
    uint32_t v = 0;
    while (i < n && IsDigit(s[i]) && i - start < 3) v = v * 10 + (s[i++] - '0');
    if (i == start || v > 255 || (s[start] == '0' && i - start > 1)) return false;
    a = a << 8 | v;
  }
  if (i != n) return false;
  *address = a;
  return true;
}

bool ParseIPv4(const uint8_t* s, size_t n, uint32_t* address) {
  uint64_t parts[4] = {};
  int count = 0;
  size_t i = 0;
  while (true) {
    if (count == 4 || i >= n) return false;
    uint64_t v = 0;
    size_t j = i;
    if (s[j] == '0' && j + 1 < n && (s[j + 1] | 0x20) == 'x') {
      j += 2;
      const size_t start = j;
      while (j < n && IsHex(s[j])) {
        v = v << 4 | HexValue(s[j++]);
        if (v > 0xffffffffu) return false;
      }
      if (j == start) return false;  // "0x" alone
    } else if (s[j] == '0') {
      for (++j; j < n && s[j] >= '0' && s[j] <= '7'; ++j) {
        v = v * 8 + (s[j] - '0');
        if (v > 0xffffffffu) return false;
      }
    } else {
      const size_t start = j;
      for (; j < n && IsDigit(s[j]); ++j) {
        v = v * 10 + (s[j] - '0');
        if (v > 0xffffffffu) return false;
      }
      if (j == start) return false;
    }
    parts[count++] = v;
    if (j == n) break;
    if (s[j] != '.') return false;
    i = j + 1;
  }
  uint64_t a = 0;
  for (int k = 0; k + 1 < count; ++k) {
    if (parts[k] > 255) return false;
    a = a << 8 | parts[k];
  }
  const int last_bytes = 5 - count;
  if (parts[count - 1] >> (8 * last_bytes) != 0) return false;
  a = a << (8 * last_bytes) | parts[count - 1];
  *address = static_cast<uint32_t>(a);
  return true;
}

Status Canonicalize(const uint8_t* url, size_t len, uint8_t* buf, size_t buf_len,
                    CanonicalUrl* out) {
  return CanonicalizeImpl(url, len, nullptr, 0, false, buf, buf_len, out);
}

Status CanonicalizeWithAsciiHost(const uint8_t* url, size_t len, const uint8_t* ascii_host,
                                 size_t ascii_host_len, uint8_t* buf, size_t buf_len,
                                 CanonicalUrl* out) {
  return CanonicalizeImpl(url, len, ascii_host, ascii_host_len, true, buf, buf_len, out);
}

}  // namespace url
}  // namespace cuckoo
