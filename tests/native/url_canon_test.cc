// Tests of URL canonicalization (src/url/url_canon.h, docs/URLS.md): every
// canonicalization example of Google's Safe Browsing docs (v4 "URLs and
// Hashing", and the v5 reference's IPv6 rules), the rules one at a time (host,
// IPv4, IPv6, path, query, scheme, userinfo and port, escaping), non-ASCII
// hosts and the Punycode round trip, the refusals, the buffer bound, and
// properties over the 49,256 real URLs of phishing_urls.txt: idempotence and
// invariance under changes that must not change a URL's canonical form.
//
// Run: build/native/cuckoo_native_tests --gtest_filter='Url*'

#include <gtest/gtest.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "status.h"
#include "url/url_canon.h"
#include "url_test_util.h"
#include "url_vectors.h"

namespace cuckoo_test {
namespace {

struct Vector {
  std::string in;
  std::string want;  // canonical URL
};

// ===========================================================================
// The docs' examples and Chromium's further cases: tests/vectors/safe-browsing.json
// (url_vectors.h), the list the JS tests read too.

// developers.google.com/safe-browsing/v4/urls-hashing, "Canonicalization":
// the test list, verbatim (33 vectors), in the docs' order.
TEST(UrlCanonDocs, EveryV4TestVector) {
  const std::vector<CanonVector> v = CanonVectors("docs-v4");
  ASSERT_EQ(v.size(), 33u);
  for (const CanonVector& t : v) EXPECT_EQ(Canonical(t.in), t.want) << t.in;
}

// The examples in the docs' prose: v4 "Canonicalization" (a fragment is
// removed; a URL must have a path) and the v5 reference
// (safe-browsing/reference/URLs.and.Hashing) on bracketed IPv6 hosts.
TEST(UrlCanonDocs, EveryProseExampleV4AndV5) {
  const std::vector<CanonVector> v = CanonVectors("docs-prose");
  ASSERT_EQ(v.size(), 5u);
  for (const CanonVector& t : v) EXPECT_EQ(Canonical(t.in), t.want) << t.in;
}

// Chromium's test of the same rules (components/safe_browsing/core/common/
// v4_protocol_manager_util_unittest.cc, CanonicalizeUrl) beyond the docs'
// list: userinfo, escaped '/' and '.', dots around the host, other schemes,
// URLs without a host.
TEST(UrlCanonDocs, ChromiumsFurtherCases) {
  const std::vector<CanonVector> v = CanonVectors("chromium");
  ASSERT_EQ(v.size(), 9u);
  for (const CanonVector& t : v) EXPECT_EQ(Canonical(t.in), t.want) << t.in;
}

// ===========================================================================
// The rules, one at a time

TEST(UrlCanon, RemovesTabCrLfEverywhereButKeepsTheirEscapes) {
  EXPECT_EQ(Canonical("ht\ttp://ex\rample.com/a\n/b?c\td"), "http://example.com/a/b?cd");
  EXPECT_EQ(Canonical("http://example.com/%09%0a%0D"), "http://example.com/%09%0A%0D");
  EXPECT_EQ(Canonical("http://example.com/%0\t9"), "http://example.com/%09")
      << "tabs go before decoding, so the escape they split is whole again";
}

TEST(UrlCanon, CutsTheFragmentAtTheFirstHashOnly) {
  EXPECT_EQ(Canonical("http://example.com/a?b#c#d"), "http://example.com/a?b");
  EXPECT_EQ(Canonical("http://example.com#x"), "http://example.com/");
  EXPECT_EQ(Canonical("http://example.com/a%23b"), "http://example.com/a%23b")
      << "an escaped '#' is data, not a fragment";
  EXPECT_EQ(Canonical("http://example.com/a?%2523"), "http://example.com/a?%23");
  EXPECT_EQ(Canonical("http://example.com/a #b"), "http://example.com/a")
      << "trailing spaces before the fragment are trimmed";
}

TEST(UrlCanon, TrimsBytesUpToSpaceAtBothEndsOnly) {
  EXPECT_EQ(Canonical("\x01\x02 http://example.com/ \x1f\x7f"), "http://example.com/%20%1F%7F")
      << "0x7f is not trimmed";
  EXPECT_EQ(Canonical(" \thttp://example.com/a b \n"), "http://example.com/a%20b");
  EXPECT_EQ(Canonical("http://example.com/a%20"), "http://example.com/a%20")
      << "an escaped space is not trimmed";
  EXPECT_EQ(Canonical(std::string("http://example.com/\0a", 21)), "http://example.com/%00a");
}

TEST(UrlCanon, DecodesRepeatedlyEvenAcrossEscapesItMakes) {
  EXPECT_EQ(Canonical("http://h/%2541"), "http://h/A");
  EXPECT_EQ(Canonical("http://h/%252541"), "http://h/A");
  EXPECT_EQ(Canonical("http://h/%%34%31"), "http://h/A") << "%%34%31 -> %41 -> A";
  EXPECT_EQ(Canonical("http://h/%%%34%31%31"), "http://h/%A1") << "-> %%411 -> %A1";
  EXPECT_EQ(Canonical("http://h/%2%35%35"), "http://h/%255") << "-> %255 -> %5, no escape left";
  EXPECT_EQ(Canonical("http://h/%2%35%35%35"), "http://h/U") << "-> %2555 -> %55 -> U";
  EXPECT_EQ(Canonical("http://h/%4"), "http://h/%254");
  EXPECT_EQ(Canonical("http://h/%g1%"), "http://h/%25g1%25");
  EXPECT_EQ(Canonical("http://h/%e2%82%ac"), "http://h/%E2%82%AC") << "uppercase hex out";
  // Deep nesting: "%25" repeated 2000 times then "41" decodes, one level per pass, to "A".
  std::string deep = "http://h/%";
  for (int i = 0; i < 2000; ++i) deep += "25";
  EXPECT_EQ(Canonical(deep + "41"), "http://h/A");
}

TEST(UrlCanon, HostDotsCaseAndEscapes) {
  EXPECT_EQ(Canonical("http://..a..B...c../"), "http://a.b.c/");
  EXPECT_EQ(Canonical("http://EXAMPLE.com./"), "http://example.com/");
  EXPECT_EQ(Canonical("http://a%2eb%2Ec/"), "http://a.b.c/");
  EXPECT_EQ(Canonical("http://a%20b%25c%23d%7f/"), "http://a%20b%25c%23d%7F/");
  EXPECT_EQ(Canonical("http://a_b-c~d!$&'()*+,;=/"), "http://a_b-c~d!$&'()*+,;=/");
  EXPECT_EQ(Canonical("http://%41%42.com/"), "http://ab.com/");
}

TEST(UrlCanon, IPv4InEveryLegalForm) {
  const std::vector<Vector> v = {
      {"http://1.2.3.4/", "http://1.2.3.4/"},
      {"http://0x7f.1/", "http://127.0.0.1/"},
      {"http://0X7F.0.0.1/", "http://127.0.0.1/"},
      {"http://0300.0250.0.1/", "http://192.168.0.1/"},
      {"http://192.168.1/", "http://192.168.0.1/"},
      {"http://192.11010049/", "http://192.168.0.1/"},
      {"http://0xc0a80001/", "http://192.168.0.1/"},
      {"http://3232235521/", "http://192.168.0.1/"},
      {"http://030052000001/", "http://192.168.0.1/"},
      {"http://0/", "http://0.0.0.0/"},
      {"http://4294967295/", "http://255.255.255.255/"},
      {"http://0x000000001.00002.3.4/", "http://1.2.3.4/"},
      {"http://1.2.3.4./", "http://1.2.3.4/"},
      {"http://1..2.3.4/", "http://1.2.3.4/"},
      {"http://1.2.3.4:8080/", "http://1.2.3.4/"},
      // Not addresses: names, lowercased, as they are.
      {"http://4294967296/", "http://4294967296/"},
      {"http://1.2.3.256/", "http://1.2.3.256/"},
      {"http://256.1.1.1/", "http://256.1.1.1/"},
      {"http://1.2.65536/", "http://1.2.65536/"},
      {"http://1.2.3.4.5/", "http://1.2.3.4.5/"},
      {"http://08.1.1.1/", "http://08.1.1.1/"},
      {"http://0x.1.1.1/", "http://0x.1.1.1/"},
      {"http://0xg.1.1.1/", "http://0xg.1.1.1/"},
      {"http://1.2.3.4a/", "http://1.2.3.4a/"},
      {"http://1.2.3.4%20/", "http://1.2.3.4%20/"},
      {"http://-1.2.3.4/", "http://-1.2.3.4/"},
  };
  for (const Vector& t : v) EXPECT_EQ(Canonical(t.in), t.want) << t.in;
  EXPECT_EQ(static_cast<int>(Canonicalize("http://0x7f.1/").parts.host_kind),
            static_cast<int>(url::HostKind::kIPv4));
  EXPECT_EQ(static_cast<int>(Canonicalize("http://1.2.3.256/").parts.host_kind),
            static_cast<int>(url::HostKind::kName));
}

TEST(UrlCanon, IPv6BracketedLiterals) {
  const std::vector<Vector> v = {
      {"http://[::1]/", "http://[::1]/"},
      {"http://[::]/", "http://[::]/"},
      {"http://[0:0:0:0:0:0:0:1]/", "http://[::1]/"},
      {"http://[1::]/", "http://[1::]/"},
      {"http://[ABCD:EF01::0001]/", "http://[abcd:ef01::1]/"},
      {"http://[1:0:0:2::3:0]/", "http://[1::2:0:0:3:0]/"},
      {"http://[1:0:0:2:0:0:3:4]/", "http://[1::2:0:0:3:4]/"} ,
      {"http://[2001:db8:0:1:1:1:1:1]/", "http://[2001:db8:0:1:1:1:1:1]/"},
      {"http://[2001:db8::1:1:1:1:1]/", "http://[2001:db8:0:1:1:1:1:1]/"},
      {"http://[::192.168.0.1]/", "http://[::c0a8:1]/"},
      {"http://[::ffff:c0a8:1]/", "http://192.168.0.1/"},
      {"http://[0:0:0:0:0:FFFF:192.168.0.1]/", "http://192.168.0.1/"},
      {"http://[64:ff9b::c0a8:1]/", "http://192.168.0.1/"},
      {"http://[64:ff9b:1::1.2.3.4]/", "http://[64:ff9b:1::102:304]/"},
      {"http://[::1]:8080/x", "http://[::1]/x"},
      {"http://[::1]:/x", "http://[::1]/x"},
      {"http://u:p@[::1]/", "http://[::1]/"},
      {"http://%5B::1%5D/", "http://[::1]/"},
  };
  for (const Vector& t : v) EXPECT_EQ(Canonical(t.in), t.want) << t.in;
  EXPECT_EQ(static_cast<int>(Canonicalize("http://[::1]/").parts.host_kind),
            static_cast<int>(url::HostKind::kIPv6));
  EXPECT_EQ(static_cast<int>(Canonicalize("http://[::ffff:1.2.3.4]/").parts.host_kind),
            static_cast<int>(url::HostKind::kIPv4));
  for (const char* bad :
       {"http://[::1/", "http://[]/", "http://[:]/", "http://[:::]/", "http://[1::2::3]/",
        "http://[1:2:3:4:5:6:7:8:9]/", "http://[1:2:3:4:5:6:7]/", "http://[1:2:3:4:5:6:7:8::]/",
        "http://[12345::]/", "http://[::1.2.3]/", "http://[::01.2.3.4]/", "http://[::1.2.3.256]/",
        "http://[1:2:3:4:5:6:7:1.2.3.4]/", "http://[fe80::1%25en0]/", "http://[::1]x/",
        "http://[::1]:8a/", "http://[::g]/", "http://[:1]/", "http://[1:]/", "http://[::1]]/"}) {
    EXPECT_EQ(Canonical(bad), "<kUrlBadHost>") << bad;
  }
}

TEST(UrlCanon, PathDotSegmentsAndSlashes) {
  const std::vector<Vector> v = {
      {"http://h", "http://h/"},
      {"http://h?q", "http://h/?q"},
      {"http://h/a/b/..", "http://h/a/"},
      {"http://h/a/b/../", "http://h/a/"},
      {"http://h/a/b/.", "http://h/a/b/"},
      {"http://h/a/./b", "http://h/a/b"},
      {"http://h/./././a", "http://h/a"},
      {"http://h/../../a", "http://h/a"},
      {"http://h/a/../../../b/", "http://h/b/"},
      {"http://h/..", "http://h/"},
      {"http://h/.", "http://h/"},
      {"http://h/a/..b/.c/...", "http://h/a/..b/.c/..."},
      {"http://h/a/%2e%2E/b", "http://h/b"},
      {"http://h/a%2fb%2F%2f/c", "http://h/a/b/c"},
      {"http://h//a//b//", "http://h/a/b/"},
      {"http://h/a/b//..", "http://h/a/"},
      {"http://h/a b/c%20d", "http://h/a%20b/c%20d"},
      {"http://h/a?b/../c//d/./e", "http://h/a?b/../c//d/./e"},
      {"http://h/a/..?x", "http://h/?x"},
      {"http://h/a\\b/..", "http://h/"},
  };
  for (const Vector& t : v) EXPECT_EQ(Canonical(t.in), t.want) << t.in;
}

TEST(UrlCanon, QueryIsOnlyDecodedAndEscaped) {
  EXPECT_EQ(Canonical("http://h/p?a=1&b=%32&c=%2F&d=a b"), "http://h/p?a=1&b=2&c=/&d=a%20b");
  EXPECT_EQ(Canonical("http://h/p?Q=UPPER&x=%7e"), "http://h/p?Q=UPPER&x=~");
  EXPECT_EQ(Canonical("http://h/p??"), "http://h/p??");
  const Canon r = Canonicalize("http://h/p?");
  EXPECT_EQ(r.parts.has_query, 1u);
  EXPECT_EQ(r.query, "");
  EXPECT_EQ(Canonicalize("http://h/p").parts.has_query, 0u);
}

TEST(UrlCanon, SchemeLowercasedOrHttp) {
  EXPECT_EQ(Canonical("HTTPS://Example.com/"), "https://example.com/");
  EXPECT_EQ(Canonical("Ftp://h/"), "ftp://h/");
  EXPECT_EQ(Canonical("git+ssh://h/x"), "git+ssh://h/x");
  EXPECT_EQ(Canonical("evil.example/a"), "http://evil.example/a");
  EXPECT_EQ(Canonical("evil.example"), "http://evil.example/");
  EXPECT_EQ(Canonical("evil.example?x"), "http://evil.example/?x");
  EXPECT_EQ(Canonical("localhost:8080/x"), "http://localhost/x") << "a port, not a scheme";
  EXPECT_EQ(Canonical("localhost:8080"), "http://localhost/");
  EXPECT_EQ(Canonical("localhost:8080?x"), "http://localhost/?x");
  EXPECT_EQ(Canonical("1.2.3.4:80/x"), "http://1.2.3.4/x");
  EXPECT_EQ(Canonical("user@evil.example/x"), "http://evil.example/x");
  EXPECT_EQ(Canonical("h%3A%2F%2Fevil.example/x"), "h://evil.example/x")
      << "decoding comes before the split";
}

TEST(UrlCanon, UserinfoAndEveryPortAreDropped) {
  EXPECT_EQ(Canonical("http://user:pass@evil.example:8080/a"), "http://evil.example/a");
  EXPECT_EQ(Canonical("http://a@b@evil.example/"), "http://evil.example/") << "the last '@'";
  EXPECT_EQ(Canonical("http://evil.example:80/"), "http://evil.example/");
  EXPECT_EQ(Canonical("https://evil.example:443/"), "https://evil.example/");
  EXPECT_EQ(Canonical("http://evil.example:/"), "http://evil.example/");
  EXPECT_EQ(Canonical("http://evil.example:0080?x"), "http://evil.example/?x");
  EXPECT_EQ(Canonical("http://evil.example%3A80/"), "http://evil.example/");
  EXPECT_EQ(Canonical("http://us%40er@evil.example/"), "http://evil.example/");
}

// The authority is scanned eight bytes at a time: the '@', ':', '/' and '?'
// that end or split it land at every offset of a word, and an '@' or ':'
// after the '/' or '?' in the same word does not count.
TEST(UrlCanon, AuthoritySeparatorsAtEveryOffsetOfAWord) {
  for (size_t pad = 0; pad < 17; ++pad) {
    const std::string label(pad + 1, 'a');
    const std::string host = label + ".example";
    EXPECT_EQ(Canonical("http://" + host + "/x@y:z"), "http://" + host + "/x@y:z") << pad;
    EXPECT_EQ(Canonical("http://" + host + "?q@r:s"), "http://" + host + "/?q@r:s") << pad;
    EXPECT_EQ(Canonical("http://" + label + "@h.example:8080/p"), "http://h.example/p") << pad;
    EXPECT_EQ(Canonical("http://u:" + label + "@v@" + host + ":1/"), "http://" + host + "/")
        << pad;
    EXPECT_EQ(Canonical("http://" + host + ":" + std::string(pad, '8') + "/"),
              "http://" + host + "/")
        << pad;
    EXPECT_EQ(Canonical(host + ":8080"), "http://" + host + "/") << pad;
    EXPECT_EQ(Canonical("http://" + host), "http://" + host + "/") << pad;
  }
}

// ===========================================================================
// Non-ASCII hosts

TEST(UrlCanonIdn, ValidUtf8HostIsReportedForPunycode) {
  Canon r = Canonicalize("http://B\xC3\xBC" "cher.DE./a?b");
  EXPECT_EQ(Name(r.status), "kUrlNonAsciiHost");
  EXPECT_EQ(r.host, "b\xC3\xBC" "cher.de") << "decoded, dots handled, ASCII lowercased";
  EXPECT_EQ(r.parts.host_offset, 7u);

  r = Canonicalize("https://user@..%E4%BD%A0%E5%A5%BD..com:443/x");
  EXPECT_EQ(Name(r.status), "kUrlNonAsciiHost");
  EXPECT_EQ(r.host, "\xE4\xBD\xA0\xE5\xA5\xBD.com");
  EXPECT_EQ(r.parts.host_offset, 8u);

  r = Canonicalize("\xF0\x9F\x98\x80.example/");
  EXPECT_EQ(Name(r.status), "kUrlNonAsciiHost");
  EXPECT_EQ(r.host, "\xF0\x9F\x98\x80.example");
}

TEST(UrlCanonIdn, TheAsciiHostReplacesItAndTheRestIsCanonicalizedOnce) {
  const std::string in = "http://B%C3%BCcher.de:80/a%2523b/%2e%2e/c?d%09#frag";
  Canon r = Canonicalize(in);
  ASSERT_EQ(Name(r.status), "kUrlNonAsciiHost");
  EXPECT_EQ(r.host, "b\xC3\xBC" "cher.de");
  const std::string ascii = "xn--bcher-kva.de";
  r = Canonicalize(in, &ascii);
  ASSERT_EQ(Name(r.status), "kOk");
  EXPECT_EQ(r.url, "http://xn--bcher-kva.de/c?d%09");
  EXPECT_EQ(r.expression, "xn--bcher-kva.de/c?d%09");
  // Putting the host into the decoded text and starting again is not the same:
  // "%2523" would decode to '#' and cut the path.
  EXPECT_EQ(Canonical("http://xn--bcher-kva.de:80/a%23b/../c?d\t"), "http://xn--bcher-kva.de/c?d");
  // The replacement goes through the host rules.
  for (const auto& [host, want] : std::vector<std::pair<std::string, std::string>>{
           {"..XN--BCHER-KVA.DE..", "http://xn--bcher-kva.de/"},
           {"1.2.3", "http://1.2.0.3/"},
           {"a#b c", "http://a%23b%20c/"},
       }) {
    EXPECT_EQ(Canonicalize("http://\xC3\xBC/", &host).url, want) << host;
  }
  for (const std::string host : {"", "...", "a/b", "a?b", "a@b", "a:80", "[::1]", "a%b", "%41",
                                 "\xC3\xBC", "\x80"}) {
    EXPECT_EQ(Name(Canonicalize("http://\xC3\xBC/", &host).status), "kUrlBadHost") << host;
  }
  const std::string any = "example.com";
  EXPECT_EQ(Name(Canonicalize("http:///x", &any).status), "kUrlNoHost");
  EXPECT_EQ(Name(Canonicalize("", &any).status), "kUrlEmpty");
}

TEST(UrlCanonIdn, BytesThatAreNotUtf8AreEscapedAndMixedHostsRefused) {
  EXPECT_EQ(Canonical("http://\x80\xff.com/"), "http://%80%FF.com/");
  EXPECT_EQ(Canonical("http://a%C0%AF.com/"), "http://a%C0%AF.com/") << "overlong '/'";
  EXPECT_EQ(Canonical("http://%ED%A0%80.com/"), "http://%ED%A0%80.com/") << "a surrogate";
  EXPECT_EQ(Canonical("http://%F4%90%80%80.com/"), "http://%F4%90%80%80.com/") << "> U+10FFFF";
  EXPECT_EQ(Canonical("http://%E4%BD.com/"), "http://%E4%BD.com/") << "truncated";
  EXPECT_EQ(Canonical("http://\xC3\xBC\x80.com/"), "<kUrlBadHost>");
  EXPECT_EQ(Canonical("http://\xC3\xBC.\x80.com/"), "<kUrlBadHost>");
  // Non-ASCII outside the host is only escaped.
  EXPECT_EQ(Canonical("http://a.com/\xC3\xBC?\xE2\x82\xAC"), "http://a.com/%C3%BC?%E2%82%AC");
  EXPECT_EQ(Canonical("http://\xC3\xBC@a.com/"), "http://a.com/") << "userinfo is dropped";
}

// ===========================================================================
// Refusals and the buffer

TEST(UrlCanonErrors, EachStatusForWhatItNames) {
  const std::map<std::string, std::vector<std::string>> cases = {
      {"kUrlEmpty", {"", " ", "\t\r\n", "\x01\x02\x1f ", std::string(3, '\0')}},
      {"kUrlNoHost",
       {"/path", "/", "//host/x", "?q", "#ref", "  #ref", "http://", "http:///x", "http://?x",
        "http:", "http:/x", "http:x", "http://user@/", "http://user@:80/", "http://:80/",
        "mailto:a@b.c", "a:b", "%2Fpath"}},
      {"kUrlBadHost",
       {"http://.../", "http://./", "http://a:b/", "http://a:1:2/", "http://1:2::3/",
        "http://a[b/", "http://a]b/", "http://.[::1]/", "http://[::1/", "http://%2E%2E/",
        "http://a%3Ab/", "http://\xC3\xBC\xFF/"}},
  };
  for (const auto& [status, inputs] : cases) {
    for (const std::string& in : inputs) EXPECT_EQ(Name(Canonicalize(in).status), status) << in;
  }
}

TEST(UrlCanonErrors, TooLongAndBadBuffers) {
  std::string huge(url::kMaxUrlBytes + 1, 'a');
  url::CanonicalUrl out{};
  uint8_t small[16];
  EXPECT_EQ(Name(url::Canonicalize(U8(huge), huge.size(), small, sizeof small, &out)),
            "kUrlTooLong");
  const std::string ok = "http://a/";
  EXPECT_EQ(Name(url::CanonicalizeWithAsciiHost(U8(ok), ok.size(), U8(huge), huge.size(), small,
                                                sizeof small, &out)),
            "kUrlTooLong");
  huge.pop_back();
  huge.replace(0, 7, "http://");
  huge.back() = '/';
  EXPECT_EQ(Name(Canonicalize(huge).status), "kOk") << "kMaxUrlBytes itself is accepted";
  huge.back() = 'a';
  EXPECT_EQ(Name(Canonicalize(huge).status), "kUrlTooLong")
      << "its canonical form, with a '/' added, would be one byte too long";
  huge.replace(huge.size() - 3, 3, "/\x01" "a");
  EXPECT_EQ(Name(Canonicalize(huge).status), "kUrlTooLong") << "\\x01 becomes %01, 2 bytes longer";

  std::vector<uint8_t> buf(url::CanonicalBufferSize(ok.size()));
  EXPECT_EQ(Name(url::Canonicalize(U8(ok), ok.size(), buf.data(), buf.size() - 1, &out)),
            "kInvalidArgument");
  EXPECT_EQ(Name(url::Canonicalize(U8(ok), ok.size(), nullptr, buf.size(), &out)),
            "kInvalidArgument");
  EXPECT_EQ(Name(url::Canonicalize(nullptr, 3, buf.data(), buf.size(), &out)), "kInvalidArgument");
  EXPECT_EQ(Name(url::Canonicalize(U8(ok), ok.size(), buf.data(), buf.size(), nullptr)),
            "kInvalidArgument");
  EXPECT_EQ(Name(url::Canonicalize(nullptr, 0, buf.data(), buf.size(), &out)), "kUrlEmpty");
  const std::string host = "example.com";
  std::vector<uint8_t> small_for_host(url::CanonicalBufferSize(ok.size() + host.size()) - 1);
  EXPECT_EQ(Name(url::CanonicalizeWithAsciiHost(U8(ok), ok.size(), U8(host), host.size(),
                                                small_for_host.data(), small_for_host.size(),
                                                &out)),
            "kInvalidArgument");
  url::UrlSpan span{1, 1};
  EXPECT_EQ(Name(url::EntryExpression(U8(ok), ok.size(), buf.data(), buf.size(), &out, nullptr)),
            "kInvalidArgument");
  EXPECT_EQ(Name(url::EntryExpression(U8(ok), ok.size(), buf.data(), buf.size(), nullptr, &span)),
            "kInvalidArgument");
}

// Inputs that make the output as long as it gets, relative to the input:
// every byte escaped, a one-byte host becoming "0.0.0.0", no scheme, an empty
// path. Canonicalize (through the helper) checks the guards and the bound.
TEST(UrlCanonErrors, WorstCaseOutputsStayWithinTheBound) {
  std::vector<std::string> worst = {"0", "0?", "1.2", "[::]", "[::1.2.3.4]", "[1::2:3:4:5:6:7]"};
  std::string escapes = "0/";
  for (int i = 0; i < 300; ++i) escapes += static_cast<char>(0x80 + i % 0x80);
  escapes += "?";
  for (int i = 0; i < 300; ++i) escapes += static_cast<char>(1 + i % 0x1f);
  worst.push_back(escapes);
  std::string host_escapes;
  for (int i = 0; i < 100; ++i) host_escapes += "\x7f\x01%";
  worst.push_back(host_escapes);
  worst.push_back("%" + host_escapes);
  for (const std::string& in : worst) {
    const Canon r = Canonicalize(in);
    EXPECT_EQ(Name(r.status), "kOk") << in;
    EXPECT_LE(r.url.size(), url::CanonicalMaxLength(in.size())) << in;
  }
  for (const std::string host : {"0", "1", "0x0"}) {
    EXPECT_EQ(Canonicalize("\xC3\xBC", &host).url, "http://0.0.0." + host.substr(host.size() - 1) + "/");
  }
}

TEST(UrlCanonErrors, StatusMessagesForEveryUrlStatus) {
  std::map<std::string, Status> seen;
  for (int v = 0; v < 30; ++v) seen.emplace(cuckoo::StatusMessage(static_cast<Status>(v)), Status::kOk);
  const std::string unknown = cuckoo::StatusMessage(static_cast<Status>(200));
  for (Status s : {Status::kUrlEmpty, Status::kUrlNoHost, Status::kUrlBadHost, Status::kUrlTooLong,
                   Status::kUrlNonAsciiHost}) {
    const std::string msg = cuckoo::StatusMessage(s);
    EXPECT_NE(msg, unknown) << Name(s);
    EXPECT_GT(msg.size(), 20u) << Name(s);
    EXPECT_TRUE(seen.emplace(msg, s).second) << Name(s) << " shares its message";
  }
  EXPECT_EQ(static_cast<int>(Status::kUrlEmpty), 30);
  EXPECT_EQ(static_cast<int>(Status::kUrlNoHost), 31);
  EXPECT_EQ(static_cast<int>(Status::kUrlBadHost), 32);
  EXPECT_EQ(static_cast<int>(Status::kUrlTooLong), 33);
  EXPECT_EQ(static_cast<int>(Status::kUrlNonAsciiHost), 34);
}

// ===========================================================================
// Properties over the real URLs

// Canonicalizing the docs' outputs, the extra cases' outputs and every real
// URL's output gives it back unchanged.
TEST(UrlCanonProperties, IdempotentOnDocsVectorsAndRealUrls) {
  std::vector<std::string> inputs;
  for (const CanonVector& t : CanonVectors("docs-v4")) inputs.push_back(t.in);
  for (const CanonVector& t : CanonVectors("docs-prose")) inputs.push_back(t.in);
  const std::vector<std::string> real = RealUrls();
  inputs.insert(inputs.end(), real.begin(), real.end());
  size_t ok = 0;
  std::map<std::string, size_t> refused;
  for (const std::string& in : inputs) {
    const Canon r = Canonicalize(in);
    if (r.status != Status::kOk) {
      ++refused[Name(r.status)];
      continue;
    }
    ++ok;
    const Canon again = Canonicalize(r.url);
    ASSERT_EQ(Name(again.status), "kOk") << in << " -> " << r.url;
    ASSERT_EQ(again.url, r.url) << in;
    ASSERT_EQ(std::memcmp(&again.parts, &r.parts, sizeof r.parts), 0) << in;
  }
  SKIP_WITHOUT_REAL_URLS(real);
  EXPECT_EQ(ok, inputs.size()) << "every real URL canonicalizes; refused: "
                               << testing::PrintToString(refused);
}

// Escapes every byte of s that RFC 3986 calls unreserved (ALPHA DIGIT - . _ ~)
// as %XX, lowercase hex.
std::string EscapeUnreserved(const std::string& s) {
  std::string out;
  static const char hex[] = "0123456789abcdef";
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// For each real URL's canonical form C = scheme://host/path?query, changes
// that must not change it: each variant canonicalizes to C again.
TEST(UrlCanonProperties, RealUrlsKeepTheirFormUnderHarmlessChanges) {
  const std::vector<std::string> real = RealUrls();
  SKIP_WITHOUT_REAL_URLS(real);
  size_t checked = 0, ipv4 = 0;
  for (const std::string& in : real) {
    const Canon c = Canonicalize(in);
    ASSERT_EQ(Name(c.status), "kOk") << in;
    const std::string scheme = c.url.substr(0, c.parts.scheme_length);
    const std::string host = c.host;
    const std::string rest = c.url.substr(c.parts.path_offset);  // path [? query]
    const std::string path = c.path;
    const std::string query = c.parts.has_query ? "?" + c.query : "";
    std::string upper = host;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    const bool is_ipv6 = c.parts.host_kind == url::HostKind::kIPv6;
    // The path's first byte escaped three times over ("a" -> "%2525" "61").
    std::string triple = path;
    if (path.size() > 1 && EscapeUnreserved(path.substr(1, 1)) != path.substr(1, 1)) {
      triple = "/%2525" + EscapeUnreserved(path.substr(1, 1)).substr(1) + path.substr(2);
    }
    const bool http = scheme == "http" || scheme == "https";
    ipv4 += c.parts.host_kind == url::HostKind::kIPv4;
    const std::vector<std::string> variants = {
        in + "#fragment",
        c.url + "#",
        "  " + in + "\t\n",
        scheme + "://" + upper + rest,
        scheme + "://" + (is_ipv6 ? host : ".." + host + "..") + rest,
        scheme + "://user:pa%20ss@" + host + ":80" + rest,
        scheme + "://" + host + ":65535" + rest,
        scheme + "://" + host + "/./" + path.substr(1) + query,
        scheme + "://" + host + "/x/../" + path.substr(1) + query,
        scheme + "://" + host + "//" + path + query,
        scheme + "://" + (is_ipv6 ? host : EscapeUnreserved(host)) + EscapeUnreserved(rest),
        scheme + "://" + host + triple + query,
        http ? "h\ttt\rp" + c.url.substr(4) : c.url,
        scheme == "http" ? host + rest : c.url,
    };
    for (const std::string& v : variants) {
      ASSERT_EQ(Canonical(v), c.url) << "variant " << v << " of " << in;
    }
    ++checked;
  }
  EXPECT_EQ(checked, real.size());
  EXPECT_GT(ipv4, 1000u) << "the IPv4 hosts of the list were exercised";
}

}  // namespace
}  // namespace cuckoo_test
