// Lookups as lists grow, natively: every family's batch lookup (ContainBatch, the loop hasAll's chunks run in
// wasm), its one-key lookup (Contain) and the URL batch (url::MatchBatch, the loop of url_match_batch) at N
// keys, without the JS side. bench/scale.mjs runs it beside the same table in Node.js.
//
//   bash bench/native/build.sh && build/bench/scale_bench --n=100000,1000000,10000000
//   build/bench/scale_bench --n=10000000 --families=cuckoo,bloom --reps=9 --queries=200000
//
// Flags: --n=N,N,... (keys in each filter; default 100000,1000000,10000000), --families=LIST (cuckoo,
// cuckoo-packed, bloom, redis-cf, redis-bf, fuse; default all), --queries=Q (default 200000), --reps=R
// (default 7), --eps=E (default 0.001), --no-urls, --data=DIR (default ../shared/data).
//
// Filters, as bench/scale.mjs makes them in JS: cuckoo = CuckooFilter.create({ capacity: N,
// falsePositiveRate: ε }) (b = 4, f = 13 at 0.1%, semi-sorted: the default), cuckoo-packed the same with
// semiSort: false; bloom = BloomFilter.create({ capacity: N, falsePositiveRate: ε }); redis-cf =
// RedisCuckooFilter.create({ capacity: N, bucketSize: 2 }) (CF.RESERVE: it grows a second sub-filter before
// the last key); redis-bf = RedisBloomFilter.create({ errorRate: ε, capacity: N, nonScaling: true }); fuse =
// BinaryFuseFilter.build(keys, { falsePositiveRate: ε }) (f = 10, arity 4). Each filter holds the N members
// added as keys; a second filter of each family holds them as URL entries (url::AddEntry: "domain/").
//
// Keys (bench/scale.mjs has the same rule): member i is line i of blocklist_domains.txt, and past its L
// lines `<label>.<line i mod L>` with the label of round i / L (bench/data.mjs's deriveLabel: cdn, api, m,
// ..., cdn2, ...). Non-members: the lines of benign_domains.txt, in order, that are no member (not a
// blocklist line, and not `<label>.<line>` for a label of a round in use). Queries: Q/2 members evenly spaced
// over the N (member floor(j * N / (Q/2))) and the first Q/2 non-members, interleaved. URL queries:
// `https://<query>/<tail>`, tail i mod 4 of '', 'index.html', 'a/b/c.php?x=1', 'login#top'.
//
// Output: one JSON object per line and family: {"family", "n", "bytes" (serialized), "batch", "has", "url"
// (ns per key: the median over the reps, CPU time of this thread), "batchMin", "hasMin", "urlMin", "hits",
// "urlHits", "falseNegatives", "load", "latency"}. Each rep times the batch, one-key and URL loops of every family in turn.
// "load" is the memory's floor for a lookup at that table size: ns per byte loaded from a random place of a
// buffer of "bytes" bytes, 4 loads per query key, with the places drawn beforehand and nothing depending on a
// load, so that as many are in flight as the CPU allows (a lookup that reads L cache lines per key costs at
// least L times it once its table is outside the caches). "latency" is the memory's latency there: ns per load
// of a chain of loads, each place read from the one before (a batch whose rounds wait on each other, as a Bloom
// filter's do, pays it once per round for its whole group).
// The answers are checked: every member found, the batch answering as Contain did.
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "bench_util.h"
#include "fuse/binary_fuse_filter.h"
#include "growth/scalable_filter.h"
#include "growth/sizing.h"
#include "redis/redis_bloom.h"
#include "redis/redis_cuckoo.h"
#include "testing/packed_keys.h"
#include "url/url_filter.h"

#ifndef CUCKOO_BENCH_ROOT
#define CUCKOO_BENCH_ROOT "."
#endif

namespace {

using cuckoo::Status;

constexpr size_t kChunk = 8192;  // js/common/chunk.ts BATCH_MAX_KEYS: the keys of one crossing

using KeySet = cuckoo::PackedKeys;

double ThreadCpuNs() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

void Check(Status s, const char* what) {
  if (s != Status::kOk) {
    std::fprintf(stderr, "scale_bench: %s: %s\n", what, cuckoo::StatusMessage(s));
    std::exit(1);
  }
}

// One family's filters (of keys and of URL entries) behind the three loops timed.
struct Subject {
  std::string family;
  uint64_t bytes = 0;
  std::function<void(const uint8_t*, const uint32_t*, size_t, uint8_t*)> batch;
  std::function<bool(const uint8_t*, size_t)> has;
  std::function<void(const uint8_t*, const uint32_t*, size_t, int8_t*, uint8_t*, size_t)> url;  // 1, 0 or -status
  std::function<void()> release;
};

template <class Filter>
void MatchUrls(const Filter& f, const uint8_t* urls, const uint32_t* offsets, size_t n, int8_t* results,
               uint8_t* work, size_t work_len) {
  cuckoo::url::CanonicalUrl canon;
  cuckoo::url::UrlSpan spans[cuckoo::url::kMaxExpressions];
  cuckoo::url::MatchBatch(f, urls, offsets, n, results, work, work_len, &canon, spans);
}

template <class Filter>
void AddKeys(Filter& f, const KeySet& keys) {
  Status s;
  const size_t added = f.AddBatch(keys.data(), keys.offsets.data(), keys.size(), &s);
  if (added != keys.size()) Check(s, "AddBatch");
}

template <class Filter>
void AddEntries(Filter& f, const KeySet& keys, std::vector<uint8_t>& work) {
  for (size_t i = 0; i < keys.size(); ++i) {
    cuckoo::url::UrlInput in;
    in.url = keys.key(i);
    in.len = keys.len(i);
    cuckoo::url::CanonicalUrl canon;
    cuckoo::url::UrlSpan span;
    Check(cuckoo::url::AddEntry(f, in, work.data(), work.size(), &canon, &span), "AddEntry");
  }
}

// A subject of a filter class made twice by `make` (keys, then URL entries).
template <class Filter, class Make>
Subject Of(const std::string& family, const KeySet& members, bool urls, std::vector<uint8_t>& work, Make make) {
  std::shared_ptr<Filter> keys(make().release());
  AddKeys(*keys, members);
  std::shared_ptr<Filter> entries;
  if (urls) {
    entries.reset(make().release());
    AddEntries(*entries, members, work);
  }
  Subject s;
  s.family = family;
  s.bytes = keys->SerializedSize();
  s.batch = [keys](const uint8_t* k, const uint32_t* o, size_t n, uint8_t* r) { keys->ContainBatch(k, o, n, r); };
  s.has = [keys](const uint8_t* k, size_t len) { return keys->Contain(k, len); };
  if (urls) {
    s.url = [entries](const uint8_t* u, const uint32_t* o, size_t n, int8_t* r, uint8_t* w, size_t wl) {
      MatchUrls(*entries, u, o, n, r, w, wl);
    };
  }
  return s;
}

// The binary fuse filter: collected, then built.
std::unique_ptr<cuckoo::BinaryFuseFilter> BuildFuse(uint32_t bits, const std::function<void(cuckoo::BinaryFuseFilter&)>& add) {
  cuckoo::BinaryFuseParams p;
  p.fingerprint_bits = bits;
  std::unique_ptr<cuckoo::BinaryFuseFilter> collecting, built;
  Check(cuckoo::BinaryFuseFilter::Create(p, &collecting), "fuse collect");
  add(*collecting);
  p.from = reinterpret_cast<uintptr_t>(collecting.get());
  Check(cuckoo::BinaryFuseFilter::Create(p, &built), "fuse build");
  return built;
}

Subject Make(const std::string& family, const KeySet& members, double eps, bool urls, std::vector<uint8_t>& work) {
  const uint64_t n = members.size();
  if (family == "cuckoo" || family == "cuckoo-packed") {
    return Of<cuckoo::ScalableCuckooFilter>(family, members, urls, work, [&] {
      cuckoo::ScalableCuckooParams p;
      p.first.capacity = n;
      p.first.fingerprint_bits = cuckoo::FingerprintBitsFor(eps, 4);
      p.first.encoding = family == "cuckoo" ? cuckoo::TableEncoding::kSemiSorted : cuckoo::TableEncoding::kPacked;
      std::unique_ptr<cuckoo::ScalableCuckooFilter> f;
      Check(cuckoo::ScalableCuckooFilter::Create(p, &f), "cuckoo create");
      return f;
    });
  }
  if (family == "bloom") {
    return Of<cuckoo::ScalableBloomFilter>(family, members, urls, work, [&] {
      cuckoo::ScalableBloomParams p;
      p.capacity = n;
      p.false_positive_rate = eps;
      std::unique_ptr<cuckoo::ScalableBloomFilter> f;
      Check(cuckoo::ScalableBloomFilter::Create(p, &f), "bloom create");
      return f;
    });
  }
  if (family == "redis-cf") {
    return Of<cuckoo::RedisCuckooFilter>(family, members, urls, work, [&] {
      cuckoo::RedisCuckooParams p;
      p.capacity = n;
      p.bucket_size = 2;
      std::unique_ptr<cuckoo::RedisCuckooFilter> f;
      Check(cuckoo::RedisCuckooFilter::Create(p, &f), "redis-cf create");
      return f;
    });
  }
  if (family == "redis-bf") {
    return Of<cuckoo::RedisBloomFilter>(family, members, urls, work, [&] {
      cuckoo::RedisBloomParams p;
      p.error_rate = eps;
      p.capacity = n;
      p.non_scaling = true;
      std::unique_ptr<cuckoo::RedisBloomFilter> f;
      Check(cuckoo::RedisBloomFilter::Create(p, &f), "redis-bf create");
      return f;
    });
  }
  if (family == "fuse") {
    uint32_t bits = 8;
    while (std::ldexp(1.0, -static_cast<int>(bits)) > eps) ++bits;
    std::shared_ptr<cuckoo::BinaryFuseFilter> keys(
        BuildFuse(bits, [&](cuckoo::BinaryFuseFilter& c) { AddKeys(c, members); }).release());
    std::shared_ptr<cuckoo::BinaryFuseFilter> entries;
    if (urls) entries.reset(BuildFuse(bits, [&](cuckoo::BinaryFuseFilter& c) { AddEntries(c, members, work); }).release());
    Subject s;
    s.family = family;
    s.bytes = keys->SerializedSize();
    s.batch = [keys](const uint8_t* k, const uint32_t* o, size_t n, uint8_t* r) { keys->ContainBatch(k, o, n, r); };
    s.has = [keys](const uint8_t* k, size_t len) { return keys->Contain(k, len); };
    if (urls) {
      s.url = [entries](const uint8_t* u, const uint32_t* o, size_t n, int8_t* r, uint8_t* w, size_t wl) {
      MatchUrls(*entries, u, o, n, r, w, wl);
    };
    }
    return s;
  }
  std::fprintf(stderr, "scale_bench: unknown family %s\n", family.c_str());
  std::exit(2);
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t comma = s.find(',', at);
    const size_t end = comma == std::string::npos ? s.size() : comma;
    if (end > at) out.push_back(s.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

}  // namespace

// ns per load of `loads` bytes read from random places of a buffer of `bytes` bytes (its pages written
// first), the places drawn beforehand and read in order, no load depending on another ("load" above).
double LoadFloorNs(uint64_t bytes, size_t loads) {
  std::vector<uint8_t> buffer(bytes, 1);
  std::vector<uint32_t> places(loads);
  uint64_t state = 0x9e3779b97f4a7c15ull ^ bytes;
  for (auto& p : places) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    p = static_cast<uint32_t>(((state >> 32) * bytes) >> 32);
  }
  const double start = ThreadCpuNs();
  uint32_t sum = 0;
  for (const uint32_t p : places) sum += buffer[p];
  const double ns = (ThreadCpuNs() - start) / static_cast<double>(loads);
  if (sum != loads) std::fprintf(stderr, "scale_bench: load floor read %u\n", sum);
  return ns;
}

// ns per load of a chain of `loads` loads through a buffer of `bytes` bytes, each load's place read from the
// one before (one 64-byte line per place, the lines in one random cycle): the memory's latency at that table
// size, what a lookup whose next load waits on its last pays per step ("latency" above).
double LatencyNs(uint64_t bytes, size_t loads) {
  const uint64_t lines = bytes / 64 > 1 ? bytes / 64 : 2;
  std::vector<uint32_t> next(lines * 16);
  std::vector<uint32_t> order(lines);
  for (uint64_t i = 0; i < lines; ++i) order[i] = static_cast<uint32_t>(i);
  uint64_t state = 0x2545f4914f6cdd1dull ^ bytes;
  for (uint64_t i = lines - 1; i > 0; --i) {  // Sattolo: one cycle through every line
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    std::swap(order[i], order[((state >> 32) * i) >> 32]);
  }
  for (uint64_t i = 0; i < lines; ++i) next[uint64_t{order[i]} * 16] = order[(i + 1) % lines];
  uint32_t at = order[0];
  const double start = ThreadCpuNs();
  for (size_t i = 0; i < loads; ++i) at = next[uint64_t{at} * 16];
  const double ns = (ThreadCpuNs() - start) / static_cast<double>(loads);
  if (at >= lines) std::fprintf(stderr, "scale_bench: latency chain left the buffer\n");
  return ns;
}

int main(int argc, char** argv) {
  std::string ns = "100000,1000000,10000000";
  std::string families = "cuckoo,cuckoo-packed,bloom,redis-cf,redis-bf,fuse";
  std::string data = std::string(CUCKOO_BENCH_ROOT) + "/../shared/data";
  std::string value;
  size_t queries = 200000;
  int reps = 7;
  double eps = 0.001;
  bool urls = true;
  for (int i = 1; i < argc; ++i) {
    if (bench::TakeFlag(argv[i], "--n", &value)) ns = value;
    else if (bench::TakeFlag(argv[i], "--families", &value)) families = value;
    else if (bench::TakeFlag(argv[i], "--queries", &value)) queries = std::strtoull(value.c_str(), nullptr, 10);
    else if (bench::TakeFlag(argv[i], "--reps", &value)) reps = std::atoi(value.c_str());
    else if (bench::TakeFlag(argv[i], "--eps", &value)) eps = std::strtod(value.c_str(), nullptr);
    else if (bench::TakeFlag(argv[i], "--data", &value)) data = value;
    else if (std::strcmp(argv[i], "--no-urls") == 0) urls = false;
    else {
      std::fprintf(stderr, "scale_bench: unknown flag %s (the file's header lists them)\n", argv[i]);
      return 2;
    }
  }
  const auto list = bench::ReadLines(data + "/blocklist_domains.txt", "scale_bench");
  const auto benign = bench::ReadLines(data + "/benign_domains.txt", "scale_bench");
  const std::unordered_set<std::string> listed(list.begin(), list.end());
  const char* const tails[] = {"", "index.html", "a/b/c.php?x=1", "login#top"};
  std::vector<uint8_t> work(cuckoo::url::CanonicalBufferSize(4096));

  for (const auto& n_text : Split(ns)) {
    const size_t n = std::strtoull(n_text.c_str(), nullptr, 10);
    const size_t l = list.size();
    KeySet members;
    members.bytes.reserve(n * 24);
    members.offsets.reserve(n + 1);
    for (size_t i = 0; i < n; ++i) {
      members.Push(i < l ? list[i] : bench::DeriveLabel(i / l) + "." + list[i % l]);
    }
    // Labels of the rounds in use, for the non-members' check.
    std::unordered_set<std::string> labels;
    for (size_t r = 1; r <= (n - 1) / l; ++r) labels.insert(bench::DeriveLabel(r));
    const size_t half = queries / 2;
    std::vector<std::string> others;
    for (const auto& d : benign) {
      if (others.size() == half) break;
      if (listed.count(d)) continue;
      const size_t dot = d.find('.');
      if (dot != std::string::npos && labels.count(d.substr(0, dot)) && listed.count(d.substr(dot + 1))) continue;
      others.push_back(d);
    }
    if (others.size() < half) {
      std::fprintf(stderr, "scale_bench: only %zu non-members\n", others.size());
      return 1;
    }
    KeySet q, uq;
    for (size_t j = 0; j < half; ++j) {
      const size_t m = static_cast<size_t>(static_cast<double>(j) * static_cast<double>(n) / static_cast<double>(half));
      q.Push(std::string(reinterpret_cast<const char*>(members.key(m)), members.len(m)));
      q.Push(others[j]);
    }
    for (size_t i = 0; i < q.size(); ++i) {
      uq.Push("https://" + std::string(reinterpret_cast<const char*>(q.key(i)), q.len(i)) + "/" + tails[i % 4]);
    }

    std::vector<Subject> subjects;
    for (const auto& family : Split(families)) subjects.push_back(Make(family, members, eps, urls, work));
    members = KeySet();

    const size_t count = q.size();
    std::vector<uint8_t> answers(count), single(count);
    std::vector<int8_t> url_answers(count);
    struct Times { std::vector<double> batch, has, url, load, latency; size_t hits = 0, url_hits = 0, false_negatives = 0; };
    std::vector<Times> times(subjects.size());
    for (int rep = 0; rep < reps; ++rep) {
      for (size_t s = 0; s < subjects.size(); ++s) {
        Subject& subject = subjects[s];
        Times& t = times[s];
        double start = ThreadCpuNs();
        for (size_t at = 0; at < count; at += kChunk) {
          const size_t k = std::min(kChunk, count - at);
          // The chunk's own offsets from 0, as JS writes them.
          static uint32_t offsets[kChunk + 1];
          const uint32_t base = q.offsets[at];
          for (size_t i = 0; i <= k; ++i) offsets[i] = q.offsets[at + i] - base;
          subject.batch(q.data() + base, offsets, k, answers.data() + at);
        }
        t.batch.push_back((ThreadCpuNs() - start) / static_cast<double>(count));
        start = ThreadCpuNs();
        for (size_t i = 0; i < count; ++i) single[i] = subject.has(q.key(i), q.len(i)) ? 1 : 0;
        t.has.push_back((ThreadCpuNs() - start) / static_cast<double>(count));
        if (answers != single) {
          std::fprintf(stderr, "scale_bench: %s: ContainBatch and Contain answer differently\n", subject.family.c_str());
          return 1;
        }
        t.hits = 0;
        t.false_negatives = 0;
        for (size_t i = 0; i < count; ++i) {
          t.hits += answers[i];
          if (i % 2 == 0 && !answers[i]) ++t.false_negatives;
        }
        t.load.push_back(LoadFloorNs(subject.bytes, 4 * count));
        t.latency.push_back(LatencyNs(subject.bytes, count));
        if (subject.url) {
          start = ThreadCpuNs();
          for (size_t at = 0; at < count; at += kChunk) {
            const size_t k = std::min(kChunk, count - at);
            static uint32_t offsets[kChunk + 1];
            const uint32_t base = uq.offsets[at];
            for (size_t i = 0; i <= k; ++i) offsets[i] = uq.offsets[at + i] - base;
            subject.url(uq.data() + base, offsets, k, url_answers.data() + at, work.data(), work.size());
          }
          t.url.push_back((ThreadCpuNs() - start) / static_cast<double>(count));
          t.url_hits = 0;
          for (size_t i = 0; i < count; ++i) {
            t.url_hits += url_answers[i] == 1;
            if (i % 2 == 0 && url_answers[i] != 1) ++t.false_negatives;
          }
        }
      }
    }
    for (size_t s = 0; s < subjects.size(); ++s) {
      const Times& t = times[s];
      const auto min = [](const std::vector<double>& v) { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); };
      const auto med = [](const std::vector<double>& v) { return v.empty() ? 0 : Median(v); };
      std::printf(
          "{\"family\":\"%s\",\"n\":%zu,\"bytes\":%llu,\"batch\":%.2f,\"has\":%.2f,\"url\":%.2f,\"batchMin\":%.2f,"
          "\"hasMin\":%.2f,\"urlMin\":%.2f,\"hits\":%zu,\"urlHits\":%zu,\"falseNegatives\":%zu,\"queries\":%zu,"
          "\"load\":%.2f,\"latency\":%.1f}\n",
          subjects[s].family.c_str(), n, static_cast<unsigned long long>(subjects[s].bytes), med(t.batch), med(t.has),
          med(t.url), min(t.batch), min(t.has), min(t.url), t.hits, t.url_hits, t.false_negatives, count, med(t.load), med(t.latency));
      std::fflush(stdout);
    }
  }
  return 0;
}
