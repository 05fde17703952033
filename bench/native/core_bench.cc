// Native benchmark of the cuckoo-wasm core (src/), on the same real domain keys
// as bench/run.mjs, so the cost of WebAssembly and of the JS boundary is known:
// wasm/native = (ops/s of cuckoo-wasm in Node) / (ops/s of this program).
//
// Build and run (Google Benchmark, g++ -O3, no -march: the same scalar code em++ gets):
//   bash bench/native/build.sh                 # prints the binary: build/bench/core_bench
//   build/bench/core_bench                     # N = 1,000,000, f = 13, b = 4, 5 repetitions
//   build/bench/core_bench --n=100000 --f=10 --benchmark_repetitions=7
//   node bench/run.mjs --native                # runs it per config, adds rows and ratios to results.md
// Flags: --n=N members (default 1000000), --f=BITS fingerprint size (13), --b=SLOTS
// bucket size (4), --data=DIR (blocklist_domains.txt, benign_domains.txt; default
// ../shared/data next to the repo, else examples/data), then any Google Benchmark
// flag (--benchmark_format=json, --benchmark_repetitions=R; default 5).
//
// Keys: members are the first N blocklist domains, extended past the list's end
// by prefixing labels (cdn., api., m., ...) to real domains; non-members are the
// benign domains that are not members. Same rule as bench/data.mjs; the digest
// printed on stderr matches the one the JS workers print.
//
// Rows (one per operation; each repetition is one full pass over the keys):
//   BM_Add               adds/s: Add() of every member into a new filter (creation not timed)
//   BM_AddBatch          adds/s: AddBatch() of every member (packed keys + offsets, as addAll sends)
//   BM_ContainMembers    lookups/s at 100% members: Contain() of every member
//   BM_ContainNonMembers lookups/s at 0% members: Contain() of every non-member
//   BM_ContainBatch      lookups/s: ContainBatch() of every member
//   BM_Delete            deletes/s: Delete() of the first half of the members
//   BM_Deserialize       time to load the serialized filter (validates header and checksum)
// Counters (the paper's columns): fpr = measured ε (false positives / non-members),
// false_negatives (members Contain() reported absent; must be 0), bits_per_item =
// serialized bytes · 8 / N, load_factor α, serialized_bytes, and expected_fpr =
// 1 - (1 - 1/(2^f - 1))^(2bα). items_per_second is the ops/s.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "bench_util.h"
#include "cuckoo/cuckoo_filter.h"
#include "testing/packed_keys.h"

#ifndef CUCKOO_BENCH_ROOT
#define CUCKOO_BENCH_ROOT "."
#endif

namespace {

using cuckoo::CuckooFilter;
using cuckoo::CuckooParams;
using cuckoo::Status;

// Keys packed back to back with offsets[k] .. offsets[k+1] per key: the layout
// AddBatch / ContainBatch take, and cheap to walk one key at a time.
using KeySet = cuckoo::PackedKeys;

struct Config {
  uint64_t n = 1000000;
  uint32_t f = 13;
  uint32_t b = 4;
  std::string data;
};

Config g_config;
KeySet g_members;
KeySet g_non_members;

// Appends keys from `real` (then derived ones) not yet taken until `target` has `want`.
size_t Fill(KeySet* target, size_t want, const std::vector<std::string>& real,
            std::unordered_set<std::string>* taken) {
  size_t derived = 0;
  for (const auto& k : real) {
    if (target->size() >= want) return derived;
    if (taken->insert(k).second) target->Push(k);
  }
  for (size_t round = 1; target->size() < want; ++round) {
    const std::string label = bench::DeriveLabel(round);
    for (const auto& d : real) {
      if (target->size() >= want) break;
      std::string k = label + "." + d;
      if (!taken->insert(k).second) continue;
      target->Push(k);
      ++derived;
    }
  }
  return derived;
}

uint32_t Digest(const KeySet& keys) {  // bench/data.mjs digest: FNV-1a 32 over keys joined by '\n'
  uint32_t h = 0x811c9dc5u;
  for (size_t i = 0; i < keys.size(); ++i) {
    for (size_t j = 0; j < keys.len(i); ++j) h = (h ^ keys.key(i)[j]) * 0x01000193u;
    h = (h ^ 10u) * 0x01000193u;
  }
  return h;
}

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

void LoadKeys() {
  std::string block, benign;
  const std::string dir = g_config.data.empty() ? std::string(CUCKOO_BENCH_ROOT) + "/../shared/data" : g_config.data;
  if (Exists(dir + "/blocklist_domains.txt") && Exists(dir + "/benign_domains.txt")) {
    block = dir + "/blocklist_domains.txt";
    benign = dir + "/benign_domains.txt";
  } else if (!g_config.data.empty()) {
    std::fprintf(stderr, "core_bench: no blocklist_domains.txt / benign_domains.txt in %s\n", dir.c_str());
    std::exit(1);
  } else {
    block = std::string(CUCKOO_BENCH_ROOT) + "/examples/data/blocklist-sample.txt";
    benign = std::string(CUCKOO_BENCH_ROOT) + "/examples/data/benign-opendns.txt";
  }
  const auto real = bench::ReadLines(block, "core_bench");
  std::unordered_set<std::string> taken;
  const size_t derived = Fill(&g_members, g_config.n, real, &taken);
  std::vector<std::string> fresh;
  size_t excluded = 0;
  for (auto& k : bench::ReadLines(benign, "core_bench")) {
    if (taken.count(k)) ++excluded;
    else fresh.push_back(std::move(k));
  }
  Fill(&g_non_members, fresh.size(), fresh, &taken);
  std::fprintf(stderr,
               "keys: %zu members (%zu derived), %zu non-members (%zu benign lines excluded as members) from %s; "
               "digest %08x/%08x\n",
               g_members.size(), derived, g_non_members.size(), excluded, block.c_str(), Digest(g_members),
               Digest(g_non_members));
}

std::unique_ptr<CuckooFilter> NewFilter() {
  CuckooParams p;
  p.capacity = g_config.n;
  p.fingerprint_bits = g_config.f;
  p.bucket_size = g_config.b;
  std::unique_ptr<CuckooFilter> f;
  const Status s = CuckooFilter::Create(p, &f);
  if (s != Status::kOk) {
    std::fprintf(stderr, "core_bench: Create failed: %s\n", cuckoo::StatusMessage(s));
    std::exit(1);
  }
  return f;
}

void AddAll(CuckooFilter* f, const KeySet& keys) {
  for (size_t i = 0; i < keys.size(); ++i) {
    const Status s = f->Add(keys.key(i), keys.len(i));
    if (s != Status::kOk) {
      std::fprintf(stderr, "core_bench: Add of key %zu failed: %s\n", i, cuckoo::StatusMessage(s));
      std::exit(1);
    }
  }
}

size_t CountFound(const CuckooFilter& f, const KeySet& keys, size_t from = 0) {
  size_t hits = 0;
  for (size_t i = from; i < keys.size(); ++i) hits += f.Contain(keys.key(i), keys.len(i));
  return hits;
}

// The filter the lookup benchmarks share, built once.
const CuckooFilter& Built() {
  static std::unique_ptr<CuckooFilter> f = [] {
    auto g = NewFilter();
    AddAll(g.get(), g_members);
    return g;
  }();
  return *f;
}

void SetPaperCounters(benchmark::State& state, const CuckooFilter& f) {
  const size_t n = g_members.size();
  const double alpha = f.load_factor();
  state.counters["false_negatives"] = static_cast<double>(n - CountFound(f, g_members));
  state.counters["fpr"] = static_cast<double>(CountFound(f, g_non_members)) / static_cast<double>(g_non_members.size());
  state.counters["expected_fpr"] =
      1 - std::pow(1 - 1 / (std::pow(2.0, f.fingerprint_bits()) - 1), 2.0 * f.bucket_size() * alpha);
  state.counters["bits_per_item"] = static_cast<double>(f.SerializedSize()) * 8 / static_cast<double>(n);
  state.counters["serialized_bytes"] = static_cast<double>(f.SerializedSize());
  state.counters["load_factor"] = alpha;
}

void BM_Add(benchmark::State& state) {
  std::unique_ptr<CuckooFilter> f;
  for (auto _ : state) {
    state.PauseTiming();
    f = NewFilter();
    state.ResumeTiming();
    AddAll(f.get(), g_members);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(g_members.size()));
  SetPaperCounters(state, *f);
}

void BM_AddBatch(benchmark::State& state) {
  std::unique_ptr<CuckooFilter> f;
  for (auto _ : state) {
    state.PauseTiming();
    f = NewFilter();
    state.ResumeTiming();
    Status s;
    const size_t added = f->AddBatch(g_members.data(), g_members.offsets.data(), g_members.size(), &s);
    if (added != g_members.size()) {
      state.SkipWithError(cuckoo::StatusMessage(s));
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(g_members.size()));
  state.counters["false_negatives"] = static_cast<double>(g_members.size() - CountFound(*f, g_members));
}

void BM_ContainMembers(benchmark::State& state) {
  const CuckooFilter& f = Built();
  size_t hits = 0;
  for (auto _ : state) {
    hits = CountFound(f, g_members);
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(g_members.size()));
  SetPaperCounters(state, f);
}

void BM_ContainNonMembers(benchmark::State& state) {
  const CuckooFilter& f = Built();
  size_t hits = 0;
  for (auto _ : state) {
    hits = CountFound(f, g_non_members);
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(g_non_members.size()));
  SetPaperCounters(state, f);
}

void BM_ContainBatch(benchmark::State& state) {
  const CuckooFilter& f = Built();
  std::vector<uint8_t> results(g_members.size());
  for (auto _ : state) {
    f.ContainBatch(g_members.data(), g_members.offsets.data(), g_members.size(), results.data());
    benchmark::DoNotOptimize(results.data());
    benchmark::ClobberMemory();
  }
  size_t hits = 0;
  for (uint8_t r : results) hits += r != 0;
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(g_members.size()));
  state.counters["false_negatives"] = static_cast<double>(g_members.size() - hits);
}

void BM_Delete(benchmark::State& state) {
  const size_t half = g_members.size() / 2;
  std::unique_ptr<CuckooFilter> f;
  size_t missing = 0;
  for (auto _ : state) {
    state.PauseTiming();
    f = NewFilter();
    AddAll(f.get(), g_members);
    state.ResumeTiming();
    for (size_t i = 0; i < half; ++i) missing += f->Delete(g_members.key(i), g_members.len(i)) != Status::kOk;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(half));
  state.counters["delete_not_found"] = static_cast<double>(missing);
  // Members kept must all still be found.
  state.counters["false_negatives"] = static_cast<double>(g_members.size() - half - CountFound(*f, g_members, half));
}

void BM_Deserialize(benchmark::State& state) {
  const CuckooFilter& f = Built();
  std::vector<uint8_t> bytes(f.SerializedSize());
  f.Serialize(bytes.data());
  std::unique_ptr<CuckooFilter> g;
  for (auto _ : state) {
    const Status s = CuckooFilter::Deserialize(bytes.data(), bytes.size(), &g);
    if (s != Status::kOk) {
      state.SkipWithError(cuckoo::StatusMessage(s));
      return;
    }
    benchmark::DoNotOptimize(g.get());
  }
  state.counters["serialized_bytes"] = static_cast<double>(bytes.size());
  state.counters["bits_per_item"] = static_cast<double>(bytes.size()) * 8 / static_cast<double>(g_members.size());
  state.counters["false_negatives"] = static_cast<double>(g_members.size() - CountFound(*g, g_members));
}

}  // namespace

// State-changing operations time one full pass per iteration (Iterations(1));
// lookups and loads let Google Benchmark pick the iteration count.
BENCHMARK(BM_Add)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AddBatch)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ContainMembers)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ContainNonMembers)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ContainBatch)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Delete)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Deserialize)->Unit(benchmark::kMicrosecond)->UseRealTime();

int main(int argc, char** argv) {
  std::vector<char*> rest{argv[0]};
  bool reps = false;
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (bench::TakeFlag(argv[i], "--n", &v)) g_config.n = std::strtoull(v.c_str(), nullptr, 10);
    else if (bench::TakeFlag(argv[i], "--f", &v)) g_config.f = static_cast<uint32_t>(std::strtoul(v.c_str(), nullptr, 10));
    else if (bench::TakeFlag(argv[i], "--b", &v)) g_config.b = static_cast<uint32_t>(std::strtoul(v.c_str(), nullptr, 10));
    else if (bench::TakeFlag(argv[i], "--data", &v)) g_config.data = v;
    else {
      if (std::strncmp(argv[i], "--benchmark_repetitions", 23) == 0) reps = true;
      rest.push_back(argv[i]);
    }
  }
  static char default_reps[] = "--benchmark_repetitions=5";
  if (!reps) rest.push_back(default_reps);
  if (g_config.n == 0 || g_config.f < 4 || g_config.f > 32) {
    std::fprintf(stderr, "core_bench: need --n >= 1 and --f in 4..32\n");
    return 1;
  }
  LoadKeys();
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 1;
  std::fprintf(stderr, "filter: N=%llu f=%u b=%u\n", static_cast<unsigned long long>(g_config.n), g_config.f,
               g_config.b);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
