// Native benchmark of the URL core (src/url/url_canon.h, src/url/url_expressions.h,
// src/url/url_filter.h): what canonicalization, expressions, their hashes and the
// probes cost per URL without WebAssembly and without the JS boundary, to set
// against bench/url.mjs's "where the time goes" rows (ns per URL).
//
// Build and run (Google Benchmark, g++ -O3, no -march: the same scalar code em++ gets):
//   bash bench/native/build.sh                 # also builds build/bench/url_bench
//   build/bench/url_bench                      # ε = 0.1%, f = 13, 5 repetitions
//   build/bench/url_bench --eps=0.01 --f=10 --queries=FILE --benchmark_repetitions=7
// Flags: --data=DIR (phishing_urls.txt, benign_domains.txt; default ../shared/data next
// to the repo), --queries=FILE (one URL per line, instead of the queries below),
// --eps=E (the BloomFilter's ε; default 0.001), --f=BITS (the CuckooFilter's
// fingerprint size; default 13, what the library picks for ε = 0.1%), then any
// Google Benchmark flag.
//
// Members: the distinct lines of phishing_urls.txt, added as entries (AddEntry).
// Queries: every member as published, alternating with as many benign URLs
// "https://<domain>/<path>" (every 4th line of benign_domains.txt, the paths of
// bench/url.mjs in turn). bench/url.mjs also looks members up with a fragment or
// one directory deeper; --queries takes its list or any other.
//
// Rows (each repetition is one pass over the queries; items_per_second is URLs/s):
//   BM_Canonicalize      Canonicalize
//   BM_Expressions       Canonicalize + UrlExpressions
//   BM_HashExpressions   the above + HashKey (XXH3-64) of every expression
//   BM_MatchCuckoo       url::Match on a CuckooFilter holding the members (hasUrl's core)
//   BM_MatchBloom        url::Match on a BloomFilter holding the members
// Counters: bytes_per_url; canonical (fraction of queries canonicalized),
// expressions_per_url, or listed (fraction of queries found).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "bench_util.h"
#include "common/hash.h"
#include "growth/scalable_filter.h"
#include "url/url_filter.h"

#ifndef CUCKOO_BENCH_ROOT
#define CUCKOO_BENCH_ROOT "."
#endif

namespace {

using cuckoo::Status;
namespace url = cuckoo::url;

// bench/url.mjs BENIGN_PATHS.
const char* const kBenignPaths[] = {
    "",
    "index.html",
    "about/",
    "contact",
    "login",
    "wiki/Main_Page",
    "images/logo.png",
    "static/js/app.3f9a1c.min.js",
    "news/2024/05/17/city-council-votes-on-budget.html",
    "search?q=weather+tomorrow&hl=en",
    "products/shoes/running/item-48213?color=blue&size=42",
    "user/settings/profile",
    "blog/how-to-bake-bread/#comments",
    "api/v2/items/12345/reviews?page=3&sort=recent",
    "docs/guide/getting-started/install/linux/",
    "en-us/support/article/12345",
    "watch?v=dQw4w9WgXcQ",
    "a/b/c/d/e/f.html",
    "category/sports/football/",
    "assets/fonts/roboto-regular.woff2",
};
constexpr size_t kBenignPathCount = sizeof kBenignPaths / sizeof kBenignPaths[0];

struct Config {
  std::string data;
  std::string queries;
  double eps = 0.001;
  uint32_t f = 13;
};

Config g_config;
std::vector<std::string> g_members;
std::vector<std::string> g_queries;
std::unique_ptr<cuckoo::ScalableCuckooFilter> g_cuckoo;
std::unique_ptr<cuckoo::ScalableBloomFilter> g_bloom;
size_t g_max_len = 0;

url::UrlInput Input(const std::string& s) {
  url::UrlInput in;
  in.url = reinterpret_cast<const uint8_t*>(s.data());
  in.len = s.size();
  return in;
}

void Fail(const char* what, Status s) {
  std::fprintf(stderr, "url_bench: %s: %s\n", what, cuckoo::StatusMessage(s));
  std::exit(1);
}

void Load() {
  const std::string dir =
      g_config.data.empty() ? std::string(CUCKOO_BENCH_ROOT) + "/../shared/data" : g_config.data;
  std::unordered_set<std::string> seen;
  for (auto& u : bench::ReadLines(dir + "/phishing_urls.txt", "url_bench")) {
    if (seen.insert(u).second) g_members.push_back(std::move(u));
  }
  if (!g_config.queries.empty()) {
    g_queries = bench::ReadLines(g_config.queries, "url_bench");
  } else {
    const auto benign = bench::ReadLines(dir + "/benign_domains.txt", "url_bench");
    size_t b = 0;
    for (size_t i = 0; i < g_members.size(); ++i) {
      g_queries.push_back(g_members[i]);
      if (b < benign.size()) {
        g_queries.push_back("https://" + benign[b] + "/" + kBenignPaths[(b / 4) % kBenignPathCount]);
        b += 4;
      }
    }
  }
  for (const auto& q : g_members) g_max_len = std::max(g_max_len, q.size());
  for (const auto& q : g_queries) g_max_len = std::max(g_max_len, q.size());

  cuckoo::CuckooParams cp;
  cp.capacity = g_members.size();
  cp.fingerprint_bits = g_config.f;
  Status s = cuckoo::ScalableCuckooFilter::Create(cp, 0, &g_cuckoo);
  if (s != Status::kOk) Fail("CuckooFilter", s);
  cuckoo::ScalableBloomParams bp;
  bp.capacity = g_members.size();
  bp.false_positive_rate = g_config.eps;
  s = cuckoo::ScalableBloomFilter::Create(bp, &g_bloom);
  if (s != Status::kOk) Fail("BloomFilter", s);
  std::vector<uint8_t> buf(url::CanonicalBufferSize(g_max_len));
  url::CanonicalUrl canon;
  url::UrlSpan expression;
  size_t refused = 0;
  for (const auto& m : g_members) {
    const url::UrlInput in = Input(m);
    // A member the canonicalizer refuses (or whose host is not ASCII) is left out of both.
    if (url::AddEntry(*g_cuckoo, in, buf.data(), buf.size(), &canon, &expression) != Status::kOk) {
      ++refused;
      continue;
    }
    s = url::AddEntry(*g_bloom, in, buf.data(), buf.size(), &canon, &expression);
    if (s != Status::kOk) Fail("BloomFilter add", s);
  }
  std::fprintf(stderr, "url_bench: %zu members (%zu refused), %zu queries, ε = %g, f = %u\n",
               g_members.size(), refused, g_queries.size(), g_config.eps, g_config.f);
}

// Runs `per_url(in, buf, buf_len, &canon)` on every query per iteration, and
// reports what it returned per URL as the counter `what`.
template <typename PerUrl>
void Run(benchmark::State& state, const char* what, PerUrl per_url) {
  std::vector<uint8_t> buf(url::CanonicalBufferSize(g_max_len));
  url::CanonicalUrl canon;
  size_t bytes = 0;
  for (const auto& q : g_queries) bytes += q.size();
  uint64_t sum = 0;
  for (auto _ : state) {
    for (const auto& q : g_queries) sum += per_url(Input(q), buf.data(), buf.size(), &canon);
    benchmark::DoNotOptimize(sum);
  }
  const double n = static_cast<double>(g_queries.size());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * g_queries.size()));
  state.counters["bytes_per_url"] = static_cast<double>(bytes) / n;
  state.counters[what] = static_cast<double>(sum) / n / static_cast<double>(state.iterations());
}

void BM_Canonicalize(benchmark::State& state) {
  Run(state, "canonical", [](const url::UrlInput& in, uint8_t* buf, size_t len, url::CanonicalUrl* c) {
    return url::Canonical(in, buf, len, c) == Status::kOk ? 1u : 0u;
  });
}

void BM_Expressions(benchmark::State& state) {
  Run(state, "expressions_per_url", [](const url::UrlInput& in, uint8_t* buf, size_t len, url::CanonicalUrl* c) -> size_t {
    if (url::Canonical(in, buf, len, c) != Status::kOk) return 0;
    url::UrlSpan spans[url::kMaxExpressions];
    return url::UrlExpressions(*c, buf, spans);
  });
}

void BM_HashExpressions(benchmark::State& state) {
  Run(state, "expressions_per_url", [](const url::UrlInput& in, uint8_t* buf, size_t len, url::CanonicalUrl* c) -> size_t {
    if (url::Canonical(in, buf, len, c) != Status::kOk) return 0;
    url::UrlSpan spans[url::kMaxExpressions];
    const size_t n = url::UrlExpressions(*c, buf, spans);
    uint64_t h = 0;
    for (size_t i = 0; i < n; ++i) h ^= cuckoo::HashKey(buf + spans[i].offset, spans[i].length, cuckoo::kDefaultSeed);
    benchmark::DoNotOptimize(h);
    return n;
  });
}

template <typename Filter>
void Match(benchmark::State& state, const Filter& filter) {
  Run(state, "listed", [&filter](const url::UrlInput& in, uint8_t* buf, size_t len, url::CanonicalUrl* c) {
    url::UrlSpan found;
    Status s;
    return url::Match(filter, in, buf, len, c, &found, &s) ? 1u : 0u;
  });
}

void BM_MatchCuckoo(benchmark::State& state) { Match(state, *g_cuckoo); }
void BM_MatchBloom(benchmark::State& state) { Match(state, *g_bloom); }

}  // namespace

BENCHMARK(BM_Canonicalize)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Expressions)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_HashExpressions)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MatchCuckoo)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MatchBloom)->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv) {
  std::vector<char*> rest{argv[0]};
  bool repetitions = false;
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (bench::TakeFlag(argv[i], "--data", &v)) {
      g_config.data = v;
    } else if (bench::TakeFlag(argv[i], "--queries", &v)) {
      g_config.queries = v;
    } else if (bench::TakeFlag(argv[i], "--eps", &v)) {
      g_config.eps = std::strtod(v.c_str(), nullptr);
    } else if (bench::TakeFlag(argv[i], "--f", &v)) {
      g_config.f = static_cast<uint32_t>(std::strtoul(v.c_str(), nullptr, 10));
    } else {
      repetitions |= std::strncmp(argv[i], "--benchmark_repetitions", 23) == 0;
      rest.push_back(argv[i]);
    }
  }
  static char kRepetitions[] = "--benchmark_repetitions=5";
  if (!repetitions) rest.push_back(kRepetitions);
  if (!(g_config.eps > 0 && g_config.eps < 1) || g_config.f < 4 || g_config.f > 32) {
    std::fprintf(stderr, "url_bench: need --eps in (0, 1) and --f in 4..32\n");
    return 1;
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 1;
  Load();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
