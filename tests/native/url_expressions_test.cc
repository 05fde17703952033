// Tests of suffix/prefix expressions and list-entry expressions
// (src/url/url_expressions.h, docs/URLS.md): every expression example of Google's
// Safe Browsing docs (v4 "URLs and Hashing", "Suffix/Prefix Expressions") in
// the docs' order, the host and path variant rules one at a time, the 30-
// expression limit, IP hosts, the entry forms a blocklist uses, and
// properties over the 49,256 real URLs of phishing_urls.txt: each expression
// is its own entry expression, none repeats, and an entry for a URL's host or
// directory is among the URL's expressions.
//
// Run: build/native/cuckoo_native_tests --gtest_filter='Url*'

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "status.h"
#include "url/url_canon.h"
#include "url/url_expressions.h"
#include "url_test_util.h"
#include "url_vectors.h"

namespace cuckoo_test {
namespace {

using Strings = std::vector<std::string>;

Strings Expressions(const std::string& in) {
  const Canon r = Canonicalize(in);
  EXPECT_EQ(Name(r.status), "kOk") << in;
  return r.expressions;
}

// The entry's expression, or "<status name>".
std::string Entry(const std::string& in) {
  const Canon r = Canonicalize(in);
  return r.status == Status::kOk ? r.expression : "<" + Name(r.status) + ">";
}

// ===========================================================================
// The docs' examples

// developers.google.com/safe-browsing/v4/urls-hashing, "Suffix/Prefix
// Expressions": the three example URLs and the strings the client tries, in
// the docs' order (tests/vectors/safe-browsing.json, read by the JS tests too).
TEST(UrlExpressionsDocs, EveryV4Example) {
  const std::vector<ExpressionVector> v = ExpressionVectors("docs-v4");
  ASSERT_EQ(v.size(), 3u);
  for (const ExpressionVector& t : v) EXPECT_EQ(Expressions(t.url), t.want) << t.url;
}

// Chromium's test of the same rules (v4_protocol_manager_util_unittest.cc,
// UrlParsing): a path ending in '/' is not tried twice.
TEST(UrlExpressionsDocs, ChromiumsTrailingSlashCase) {
  const std::vector<ExpressionVector> v = ExpressionVectors("chromium");
  ASSERT_EQ(v.size(), 1u);
  for (const ExpressionVector& t : v) EXPECT_EQ(Expressions(t.url), t.want) << t.url;
}

// ===========================================================================
// The rules

TEST(UrlExpressions, HostVariantsByLabelCount) {
  // labels in the host -> hosts tried: exact + suffixes of 5..2 labels shorter than it.
  const std::vector<std::pair<std::string, Strings>> cases = {
      {"a", {"a/"}},
      {"a.b", {"a.b/"}},
      {"a.b.c", {"a.b.c/", "b.c/"}},
      {"a.b.c.d", {"a.b.c.d/", "b.c.d/", "c.d/"}},
      {"a.b.c.d.e", {"a.b.c.d.e/", "b.c.d.e/", "c.d.e/", "d.e/"}},
      {"a.b.c.d.e.f", {"a.b.c.d.e.f/", "b.c.d.e.f/", "c.d.e.f/", "d.e.f/", "e.f/"}},
      {"a.b.c.d.e.f.g.h", {"a.b.c.d.e.f.g.h/", "d.e.f.g.h/", "e.f.g.h/", "f.g.h/", "g.h/"}},
  };
  for (const auto& [host, want] : cases) EXPECT_EQ(Expressions("http://" + host + "/"), want);
}

TEST(UrlExpressions, PathVariants) {
  const std::vector<std::pair<std::string, Strings>> cases = {
      {"/", {"h/"}},
      {"/a", {"h/a", "h/"}},
      {"/a/", {"h/a/", "h/"}},
      {"/a/b", {"h/a/b", "h/", "h/a/"}},
      {"/a/b/c/", {"h/a/b/c/", "h/", "h/a/", "h/a/b/"}},
      {"/a/b/c/d/", {"h/a/b/c/d/", "h/", "h/a/", "h/a/b/", "h/a/b/c/"}},
      {"/a/b/c/d/e/f", {"h/a/b/c/d/e/f", "h/", "h/a/", "h/a/b/", "h/a/b/c/"}},
      {"/a?x=1/2", {"h/a?x=1/2", "h/a", "h/"}},
      {"/a/?x", {"h/a/?x", "h/a/", "h/"}},
      {"/?x", {"h/?x", "h/"}},
      {"/q?", {"h/q?", "h/q", "h/"}},
      {"?", {"h/?", "h/"}},
  };
  for (const auto& [path, want] : cases) EXPECT_EQ(Expressions("http://h" + path), want) << path;
}

// Host dots are found eight bytes at a time from the end and path slashes
// eight at a time from the start: labels and segments of every length put
// them at every offset of a word.
TEST(UrlExpressions, DotsAndSlashesAtEveryOffsetOfAWord) {
  for (size_t n = 1; n < 18; ++n) {
    const std::string l(n, 'l');
    const std::string s(n, 's');
    const std::string host = "a" + l + ".b" + l + ".c" + l + ".d" + l + ".e" + l + ".f" + l;
    const std::string b = "b" + l + ".c" + l + ".d" + l + ".e" + l + ".f" + l;
    const std::string c = "c" + l + ".d" + l + ".e" + l + ".f" + l;
    const std::string d = "d" + l + ".e" + l + ".f" + l;
    const std::string e = "e" + l + ".f" + l;
    const std::string path = "/1" + s + "/2" + s + "/3" + s + "/4" + s + "/5" + s;
    const Strings paths = {path,
                           "/",
                           "/1" + s + "/",
                           "/1" + s + "/2" + s + "/",
                           "/1" + s + "/2" + s + "/3" + s + "/"};
    Strings want;
    for (const std::string& h : {host, b, c, d, e}) {
      for (const std::string& p : paths) want.push_back(h + p);
    }
    EXPECT_EQ(Expressions("http://" + host + path), want) << n;
  }
}

TEST(UrlExpressions, AtMostThirtyAllDistinctHostMajor) {
  const Strings e = Expressions("http://a.b.c.d.e.f.g/1/2/3/4/5.html?q=1");
  ASSERT_EQ(e.size(), url::kMaxExpressions);
  EXPECT_EQ(std::set<std::string>(e.begin(), e.end()).size(), e.size());
  EXPECT_EQ(e.front(), "a.b.c.d.e.f.g/1/2/3/4/5.html?q=1");
  EXPECT_EQ(e[5], "a.b.c.d.e.f.g/1/2/3/");
  EXPECT_EQ(e[6], "c.d.e.f.g/1/2/3/4/5.html?q=1");
  EXPECT_EQ(e.back(), "f.g/1/2/3/");
}

TEST(UrlExpressions, IpHostsOnlyExactly) {
  EXPECT_EQ(Expressions("http://1.2.3.4/a/b?c"),
            (Strings{"1.2.3.4/a/b?c", "1.2.3.4/a/b", "1.2.3.4/", "1.2.3.4/a/"}));
  EXPECT_EQ(Expressions("http://0x7f.1/"), (Strings{"127.0.0.1/"}));
  EXPECT_EQ(Expressions("http://[2001:db8::1]/a"), (Strings{"[2001:db8::1]/a", "[2001:db8::1]/"}));
  EXPECT_EQ(Expressions("http://[::ffff:10.0.0.1]/"), (Strings{"10.0.0.1/"}));
}

TEST(UrlExpressions, SuffixesThatAreIPv4InAnotherFormThanDottedDecimalAreSkipped) {
  // "1.2.3" and "2.3" would canonicalize to 1.2.0.3 and 2.0.0.3 as entries.
  EXPECT_EQ(Expressions("http://a.1.2.3/"), (Strings{"a.1.2.3/"}));
  EXPECT_EQ(Expressions("http://a.b.0x10.7/"), (Strings{"a.b.0x10.7/", "b.0x10.7/"}));
  EXPECT_EQ(Expressions("http://a.1.2.com/"), (Strings{"a.1.2.com/", "1.2.com/", "2.com/"}));
  EXPECT_EQ(Expressions("http://1.2.3.256/"), (Strings{"1.2.3.256/"}))
      << "not an address itself, but 2.3.256 is 2.3.1.0 and 3.256 is 3.0.1.0";
  EXPECT_EQ(Expressions("http://a.010.0.0.1/"), (Strings{"a.010.0.0.1/"})) << "010 is octal: 8.0.0.1";
}

TEST(UrlExpressions, SuffixesInDottedDecimalAreTried) {
  // A host of five labels is a name, and its last four labels are tried like
  // any suffix: in dotted decimal they are what an entry of that address is.
  EXPECT_EQ(Expressions("http://a.10.0.0.1/"), (Strings{"a.10.0.0.1/", "10.0.0.1/"}));
  EXPECT_EQ(Expressions("http://1.2.3.4.5/dir/x"),
            (Strings{"1.2.3.4.5/dir/x", "1.2.3.4.5/", "1.2.3.4.5/dir/", "2.3.4.5/dir/x", "2.3.4.5/",
                     "2.3.4.5/dir/"}));
  EXPECT_EQ(Entry("10.0.0.1"), "10.0.0.1/");
  EXPECT_EQ(Entry("2.3.4.5/dir/"), "2.3.4.5/dir/");
}

TEST(UrlExpressions, EscapedBytesStayInTheExpressions) {
  EXPECT_EQ(Expressions("http://a%20b.c%23d.e/%25/x y?%"),
            (Strings{"a%20b.c%23d.e/%25/x%20y?%25", "a%20b.c%23d.e/%25/x%20y", "a%20b.c%23d.e/",
                     "a%20b.c%23d.e/%25/", "c%23d.e/%25/x%20y?%25", "c%23d.e/%25/x%20y",
                     "c%23d.e/", "c%23d.e/%25/"}));
}

// ===========================================================================
// List entries

TEST(UrlEntry, TheFormsABlocklistUses) {
  EXPECT_EQ(Entry("http://evil.example/a/b"), "evil.example/a/b");
  EXPECT_EQ(Entry("https://evil.example/a/b"), "evil.example/a/b") << "the scheme is dropped";
  EXPECT_EQ(Entry("evil.example/login/"), "evil.example/login/");
  EXPECT_EQ(Entry("evil.example"), "evil.example/");
  EXPECT_EQ(Entry("EVIL.example.:8080/x/./y?q=1#frag"), "evil.example/x/y?q=1");
  EXPECT_EQ(Entry("user@evil.example"), "evil.example/");
  EXPECT_EQ(Entry("3279880203/x"), "195.127.0.11/x");
  EXPECT_EQ(Entry("[::1]"), "[::1]/");
  EXPECT_EQ(Entry(" evil.example/a%2Fb "), "evil.example/a/b");
  EXPECT_EQ(Entry("/just/a/path"), "<kUrlNoHost>");
  EXPECT_EQ(Entry(""), "<kUrlEmpty>");
  EXPECT_EQ(Entry("..."), "<kUrlBadHost>");
  EXPECT_EQ(Entry("b\xC3\xBC" "cher.de"), "<kUrlNonAsciiHost>");
  const std::string ascii = "xn--bcher-kva.de";
  EXPECT_EQ(Canonicalize("b\xC3\xBC" "cher.de/x", &ascii).expression, "xn--bcher-kva.de/x");
}

TEST(UrlEntry, AHostEntryIsAmongTheExpressionsOfItsSubdomainsUrls) {
  const Strings e = Expressions("http://www.evil.example/deeper/path");
  EXPECT_NE(std::find(e.begin(), e.end(), Entry("evil.example")), e.end());
  EXPECT_NE(std::find(e.begin(), e.end(), Entry("evil.example/deeper/")), e.end());
  EXPECT_NE(std::find(e.begin(), e.end(), Entry("http://WWW.evil.example/deeper/path#x")),
            e.end());
  EXPECT_EQ(std::find(e.begin(), e.end(), Entry("evil.example/deeper")), e.end())
      << "a path without its '/' is a file, not a directory";
  EXPECT_EQ(std::find(e.begin(), e.end(), Entry("example")), e.end()) << "never the TLD alone";
}

// ===========================================================================
// Properties over the real URLs

// For every real URL: 1 to 30 expressions, no two alike, the first the whole
// URL without its scheme; every expression, as a list entry (alone or after
// "http://"), is itself. And for a name host H of 2 to 5 labels, the entries
// "H" and "H/deeper/" are among the expressions of http://www.H/deeper/path.
TEST(UrlExpressionsProperties, RealUrls) {
  const std::vector<std::string> real = RealUrls();
  SKIP_WITHOUT_REAL_URLS(real);
  size_t total = 0, subdomain_checks = 0;
  for (const std::string& in : real) {
    const Canon c = Canonicalize(in);
    ASSERT_EQ(Name(c.status), "kOk") << in;
    const Strings& e = c.expressions;
    ASSERT_GE(e.size(), 1u);
    ASSERT_LE(e.size(), url::kMaxExpressions);
    ASSERT_EQ(std::set<std::string>(e.begin(), e.end()).size(), e.size()) << in;
    ASSERT_EQ(e.front(), c.expression) << in;
    for (const std::string& x : e) {
      ASSERT_EQ(Entry(x), x) << "expression of " << in;
      ASSERT_EQ(Canonical("http://" + x), "http://" + x) << "expression of " << in;
    }
    total += e.size();
    if (c.parts.host_kind == url::HostKind::kName) {
      const size_t labels = std::count(c.host.begin(), c.host.end(), '.') + 1;
      if (labels >= 2 && labels <= 5) {
        const Strings w = Expressions("http://www." + c.host + "/deeper/path");
        for (const std::string& entry : {c.host, c.host + "/deeper/"}) {
          ASSERT_NE(std::find(w.begin(), w.end(), Entry(entry)), w.end()) << entry;
        }
        ++subdomain_checks;
      }
    }
  }
  EXPECT_GT(total, real.size()) << "most URLs have more than one expression";
  EXPECT_GT(subdomain_checks, real.size() / 2);
}

}  // namespace
}  // namespace cuckoo_test
