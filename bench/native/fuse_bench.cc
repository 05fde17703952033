// Native benchmark of the binary fuse filter core (src/fuse/), measured the way
// Graf and Lemire measure theirs ("Binary Fuse Filters: Fast and Smaller Than
// Xor Filters", ACM JEA 2022): random 64-bit keys, f = 8 and 16 (their
// BinaryFuse8 and BinaryFuse16), three- and four-wise tables; also on the real
// blocklist. bench/results/fuse.md sets the published figures beside these.
//
// Build and run (Google Benchmark, g++ -O3, no -march: the same scalar code em++ gets):
//   bash bench/native/build.sh                 # also builds build/bench/fuse_bench
//   build/bench/fuse_bench                     # 1,000,000 random keys, f = 8 and 16, arity 3 and 4, 5 repetitions
//   build/bench/fuse_bench --n=10000000 --benchmark_repetitions=3
//   build/bench/fuse_bench --keys=blocklist    # the 334,082 domains of blocklist_domains.txt
//   node bench/fuse.mjs --parts native         # runs it for each key set and writes the table of fuse.md
// Flags: --keys=random|blocklist (default random), --n=N random members and as many
// non-members (1000000), --f=LIST fingerprint bits (8,16), --arity=LIST (3,4),
// --data=DIR (blocklist_domains.txt, benign_domains.txt; default ../shared/data next
// to the repo), then any Google Benchmark flag (default --benchmark_repetitions=5).
// Every row reports mean, median, stddev, cv and min over its repetitions; min is
// the best run, the one least disturbed by other work on the machine.
//
// Keys. random: N members and N non-members from two SplitMix64 sequences of fixed
// seeds (a non-member equal to a member has probability about N^2 / 2^64: below
// 10^-5 for N = 10^7); a key's bytes, for Contain, are the integer's 8 bytes.
// blocklist: the lines of blocklist_domains.txt, and as non-members the lines of
// benign_domains.txt that are not members. A key's hash is HashKey(bytes,
// kDefaultSeed) (XXH3-64), what BinaryFuseFilter::Add keeps.
//
// Rows (each iteration one pass over all keys):
//   BM_Build/f:F/arity:A           Build() from the members' hashes in the order made (each iteration
//                                  gets a fresh copy, not timed: Build sorts them in place)
//   BM_SortUnique                  std::sort + std::unique of the same hashes alone, Build's first step
//                                  (dropping duplicate keys), which the paper's construction has not
//   BM_ContainHashMembers/..., BM_ContainHashNonMembers/...   ContainHash() over precomputed hashes
//   BM_ContainMembers/..., BM_ContainNonMembers/...           Contain() over the keys' bytes (XXH3-64 + ContainHash)
// Counters: ns_per_key (ns per key built, sorted or looked up), bits_per_key
// (SerializedSize() · 8 / N), slots_per_key (array_length / N), attempts (construction
// seeds Build tried), false_negatives (members reported absent: must be 0), fpr
// (non-members reported present, against 2^-f).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "common/hash.h"
#include "fuse/binary_fuse_filter.h"

#ifndef CUCKOO_BENCH_ROOT
#define CUCKOO_BENCH_ROOT "."
#endif

namespace {

using cuckoo::BinaryFuseFilter;
using cuckoo::BinaryFuseParams;
using cuckoo::Status;

// One key set: integers (random keys, 8 bytes each) or packed strings
// (offsets[k] .. offsets[k+1]), and every key's hash.
struct Keys {
  std::vector<uint64_t> ints;
  std::string bytes;
  std::vector<uint32_t> offsets{0};
  std::vector<uint64_t> hashes;
  size_t size() const { return hashes.size(); }
};

struct Config {
  std::string keys = "random";
  uint64_t n = 1000000;
  std::vector<uint32_t> f{8, 16};
  std::vector<uint32_t> arity{3, 4};
  std::string data;
};

Config g_config;
Keys g_members;
Keys g_non_members;

void HashAll(Keys* k) {
  if (!k->ints.empty()) {
    k->hashes.resize(k->ints.size());
    for (size_t i = 0; i < k->ints.size(); ++i) {
      k->hashes[i] = cuckoo::HashKey(reinterpret_cast<const uint8_t*>(&k->ints[i]), 8, cuckoo::kDefaultSeed);
    }
    return;
  }
  const size_t n = k->offsets.size() - 1;
  k->hashes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    k->hashes[i] = cuckoo::HashKey(reinterpret_cast<const uint8_t*>(k->bytes.data()) + k->offsets[i],
                                   k->offsets[i + 1] - k->offsets[i], cuckoo::kDefaultSeed);
  }
}

void RandomKeys(Keys* k, uint64_t n, uint64_t seed) {
  k->ints.resize(n);
  uint64_t state = seed;
  for (uint64_t i = 0; i < n; ++i) k->ints[i] = cuckoo::SplitMix64(&state);
}

void PushString(Keys* k, const std::string& s) {
  k->bytes += s;
  k->offsets.push_back(static_cast<uint32_t>(k->bytes.size()));
}

void LoadKeys() {
  if (g_config.keys == "random") {
    RandomKeys(&g_members, g_config.n, 0x6d656d62657273ULL);   // "members"
    RandomKeys(&g_non_members, g_config.n, 0x6e6f6e6d656dULL);  // "nonmem"
    std::fprintf(stderr, "keys: %llu random 64-bit members, as many random non-members\n",
                 static_cast<unsigned long long>(g_config.n));
  } else {
    const std::string dir =
        g_config.data.empty() ? std::string(CUCKOO_BENCH_ROOT) + "/../shared/data" : g_config.data;
    std::unordered_set<std::string> taken;
    for (const auto& d : bench::ReadLines(dir + "/blocklist_domains.txt", "fuse_bench")) {
      if (taken.insert(d).second) PushString(&g_members, d);
    }
    size_t excluded = 0;
    for (const auto& d : bench::ReadLines(dir + "/benign_domains.txt", "fuse_bench")) {
      if (taken.count(d)) ++excluded;
      else PushString(&g_non_members, d);
    }
    std::fprintf(stderr, "keys: %zu blocklist domains, %zu benign non-members (%zu benign lines excluded as members) from %s\n",
                 g_members.offsets.size() - 1, g_non_members.offsets.size() - 1, excluded, dir.c_str());
  }
  HashAll(&g_members);
  HashAll(&g_non_members);
}

BinaryFuseParams Params(uint32_t f, uint32_t arity) {
  BinaryFuseParams p;
  p.fingerprint_bits = f;
  p.arity = arity;
  p.seed = cuckoo::kDefaultSeed;
  return p;
}

std::unique_ptr<BinaryFuseFilter> BuildOrExit(uint32_t f, uint32_t arity) {
  std::vector<uint64_t> work(g_members.hashes);
  std::unique_ptr<BinaryFuseFilter> filter;
  const Status s = BinaryFuseFilter::Build(Params(f, arity), work.data(), work.size(), &filter);
  if (s != Status::kOk) {
    std::fprintf(stderr, "fuse_bench: Build failed: %s\n", cuckoo::StatusMessage(s));
    std::exit(1);
  }
  return filter;
}

// The filter the lookup rows of (f, arity) share, built once.
const BinaryFuseFilter& Built(uint32_t f, uint32_t arity) {
  static std::map<std::pair<uint32_t, uint32_t>, std::unique_ptr<BinaryFuseFilter>> built;
  auto& slot = built[{f, arity}];
  if (!slot) slot = BuildOrExit(f, arity);
  return *slot;
}

size_t CountHashes(const BinaryFuseFilter& filter, const Keys& keys) {
  size_t hits = 0;
  const uint64_t* h = keys.hashes.data();
  for (size_t i = 0, n = keys.size(); i < n; ++i) hits += filter.ContainHash(h[i]);
  return hits;
}

size_t CountKeys(const BinaryFuseFilter& filter, const Keys& keys) {
  size_t hits = 0;
  if (!keys.ints.empty()) {
    const uint64_t* k = keys.ints.data();
    for (size_t i = 0, n = keys.ints.size(); i < n; ++i) {
      hits += filter.Contain(reinterpret_cast<const uint8_t*>(k + i), 8);
    }
    return hits;
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(keys.bytes.data());
  const uint32_t* off = keys.offsets.data();
  for (size_t i = 0, n = keys.size(); i < n; ++i) hits += filter.Contain(bytes + off[i], off[i + 1] - off[i]);
  return hits;
}

// ns per key, from the time of each iteration over `keys` keys.
benchmark::Counter NsPerKey(size_t keys) {
  return benchmark::Counter(static_cast<double>(keys) / 1e9,
                            benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Construction seeds Build tried: the position of the filter's construction
// seed in the SplitMix64 sequence of its seed (binary_fuse_filter.cc).
uint32_t Attempts(const BinaryFuseFilter& filter) {
  uint64_t state = filter.seed();
  for (uint32_t k = 1; k <= cuckoo::kMaxFuseAttempts; ++k) {
    if (cuckoo::SplitMix64(&state) == filter.construction_seed()) return k;
  }
  return 0;
}

void SetFilterCounters(benchmark::State& state, const BinaryFuseFilter& filter) {
  const double n = static_cast<double>(g_members.size());
  state.counters["bits_per_key"] = static_cast<double>(filter.SerializedSize()) * 8 / n;
  state.counters["slots_per_key"] = static_cast<double>(filter.array_length()) / n;
  state.counters["false_negatives"] = n - static_cast<double>(CountHashes(filter, g_members));
}

void BM_Build(benchmark::State& state, uint32_t f, uint32_t arity) {
  std::vector<uint64_t> work(g_members.size());
  std::unique_ptr<BinaryFuseFilter> filter;
  for (auto _ : state) {
    state.PauseTiming();
    filter.reset();
    std::copy(g_members.hashes.begin(), g_members.hashes.end(), work.begin());
    state.ResumeTiming();
    const Status s = BinaryFuseFilter::Build(Params(f, arity), work.data(), work.size(), &filter);
    if (s != Status::kOk) {
      state.SkipWithError(cuckoo::StatusMessage(s));
      return;
    }
    benchmark::DoNotOptimize(filter.get());
  }
  state.counters["ns_per_key"] = NsPerKey(g_members.size());
  state.counters["attempts"] = Attempts(*filter);
  SetFilterCounters(state, *filter);
}

void BM_SortUnique(benchmark::State& state) {
  std::vector<uint64_t> work(g_members.size());
  size_t distinct = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::copy(g_members.hashes.begin(), g_members.hashes.end(), work.begin());
    state.ResumeTiming();
    std::sort(work.begin(), work.end());
    distinct = static_cast<size_t>(std::unique(work.begin(), work.end()) - work.begin());
    benchmark::DoNotOptimize(distinct);
  }
  state.counters["ns_per_key"] = NsPerKey(g_members.size());
  state.counters["distinct"] = static_cast<double>(distinct);
}

// A lookup row: `count` over members or non-members of the (f, arity) filter.
template <size_t (*Count)(const BinaryFuseFilter&, const Keys&)>
void BM_Lookup(benchmark::State& state, uint32_t f, uint32_t arity, bool members) {
  const BinaryFuseFilter& filter = Built(f, arity);
  const Keys& keys = members ? g_members : g_non_members;
  size_t hits = 0;
  for (auto _ : state) {
    hits = Count(filter, keys);
    benchmark::DoNotOptimize(hits);
  }
  state.counters["ns_per_key"] = NsPerKey(keys.size());
  if (members) {
    state.counters["false_negatives"] = static_cast<double>(keys.size() - hits);
  } else {
    state.counters["fpr"] = static_cast<double>(hits) / static_cast<double>(keys.size());
    state.counters["expected_fpr"] = filter.false_positive_rate();
  }
  state.counters["bits_per_key"] = static_cast<double>(filter.SerializedSize()) * 8 / static_cast<double>(g_members.size());
}

double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

std::vector<uint32_t> ParseList(const std::string& s) {
  std::vector<uint32_t> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t comma = std::min(s.find(',', at), s.size());
    out.push_back(static_cast<uint32_t>(std::strtoul(s.substr(at, comma - at).c_str(), nullptr, 10)));
    at = comma + 1;
  }
  return out;
}

void Register() {
  // State-changing rows time one pass per iteration; lookups let Google
  // Benchmark pick the iteration count.
  auto common = [](benchmark::internal::Benchmark* b) {
    b->UseRealTime()->Unit(benchmark::kMillisecond)->ComputeStatistics("min", Min);
  };
  for (uint32_t f : g_config.f) {
    for (uint32_t a : g_config.arity) {
      const std::string tag = "/f:" + std::to_string(f) + "/arity:" + std::to_string(a);
      common(benchmark::RegisterBenchmark(("BM_Build" + tag).c_str(), BM_Build, f, a)->Iterations(1));
    }
  }
  common(benchmark::RegisterBenchmark("BM_SortUnique", BM_SortUnique)->Iterations(1));
  for (uint32_t f : g_config.f) {
    for (uint32_t a : g_config.arity) {
      const std::string tag = "/f:" + std::to_string(f) + "/arity:" + std::to_string(a);
      common(benchmark::RegisterBenchmark(("BM_ContainHashMembers" + tag).c_str(), BM_Lookup<CountHashes>, f, a, true));
      common(benchmark::RegisterBenchmark(("BM_ContainHashNonMembers" + tag).c_str(), BM_Lookup<CountHashes>, f, a, false));
      common(benchmark::RegisterBenchmark(("BM_ContainMembers" + tag).c_str(), BM_Lookup<CountKeys>, f, a, true));
      common(benchmark::RegisterBenchmark(("BM_ContainNonMembers" + tag).c_str(), BM_Lookup<CountKeys>, f, a, false));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest{argv[0]};
  bool reps = false;
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (bench::TakeFlag(argv[i], "--keys", &v)) g_config.keys = v;
    else if (bench::TakeFlag(argv[i], "--n", &v)) g_config.n = std::strtoull(v.c_str(), nullptr, 10);
    else if (bench::TakeFlag(argv[i], "--f", &v)) g_config.f = ParseList(v);
    else if (bench::TakeFlag(argv[i], "--arity", &v)) g_config.arity = ParseList(v);
    else if (bench::TakeFlag(argv[i], "--data", &v)) g_config.data = v;
    else {
      if (std::strncmp(argv[i], "--benchmark_repetitions", 23) == 0) reps = true;
      rest.push_back(argv[i]);
    }
  }
  static char default_reps[] = "--benchmark_repetitions=5";
  if (!reps) rest.push_back(default_reps);
  bool ok = (g_config.keys == "random" || g_config.keys == "blocklist") && g_config.n > 0 &&
            g_config.n <= cuckoo::kMaxFuseKeys;
  for (uint32_t f : g_config.f) ok = ok && f >= cuckoo::kMinFuseFingerprintBits && f <= cuckoo::kMaxFuseFingerprintBits;
  for (uint32_t a : g_config.arity) ok = ok && a >= cuckoo::kMinFuseArity && a <= cuckoo::kMaxFuseArity;
  if (!ok) {
    std::fprintf(stderr, "fuse_bench: need --keys random or blocklist, --n in 1..2^28, --f in 8..16, --arity 3 or 4\n");
    return 1;
  }
  LoadKeys();
  Register();
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
