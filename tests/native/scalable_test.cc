// Tests of the filters that grow (src/growth/scalable_filter.h): ScalableCuckooFilter
// and ScalableBloomFilter. Growth by the expansion factor with sub-filter j
// derived from sub-filter j - 1; no key ever lost, checked against a
// std::multiset model under random interleaved Add / Delete / Count / Contain
// with tiny fingerprints (so fingerprints collide often); Delete taking the
// newest matching fingerprint; byte-identical round trips at every growth
// state; the growth limits (kGrowthLimit, nothing added, nothing lost, no
// oversized allocation tried); the total false-positive rate measured at 8x
// capacity; Union of grown Bloom filters; running out of memory while
// creating, loading and growing.
//
// Run: ctest --test-dir build/native -R Scalable --output-on-failure

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "alloc_probe.h"
#include "common/allocation.h"
#include "bloom/bloom_filter.h"
#include "cuckoo/cuckoo_filter.h"
#include "format/format.h"
#include "growth_test_util.h"
#include "growth/scalable_filter.h"
#include "status.h"
#include "testing/packed_keys.h"
#include "test_util.h"

namespace cuckoo_test {
namespace {

using cuckoo::internal::LiveAllocationsForTesting;

uint64_t Power(uint64_t e, uint32_t j) {
  uint64_t r = 1;
  for (uint32_t i = 0; i < j; ++i) r *= e;
  return r;
}

// Adds `prefix`0, `prefix`1, ... (continuing from keys->size()) until the
// filter has `subs` sub-filters; every Add must succeed.
void GrowTo(ScalableCuckooFilter& f, const char* prefix, uint32_t subs,
            std::vector<std::string>* keys) {
  while (f.sub_filter_count() < subs) {
    const std::string k = Key(prefix, keys->size());
    ASSERT_EQ(Add(f, k), Status::kOk) << k;
    keys->push_back(k);
    ASSERT_LT(keys->size(), 10000000u) << "never grew";
  }
}
void GrowTo(ScalableBloomFilter& f, const char* prefix, uint32_t subs,
            std::vector<std::string>* keys) {
  while (f.sub_filter_count() < subs) {
    const std::string k = Key(prefix, keys->size());
    ASSERT_EQ(Add(f, k), Status::kOk) << k;
    keys->push_back(k);
    ASSERT_LT(keys->size(), 10000000u) << "never grew";
  }
}

template <typename Filter>
::testing::AssertionResult ContainsAll(const Filter& f, const std::vector<std::string>& keys) {
  for (const std::string& k : keys) {
    if (!Contain(f, k)) return ::testing::AssertionFailure() << "key \"" << k << "\" not found";
  }
  return ::testing::AssertionSuccess();
}

// Smallest f with 2b / 2^f <= rate (FORMAT.md §8).
uint32_t FingerprintBitsFor(double rate, uint32_t b) {
  uint32_t f = cuckoo::kMinFingerprintBits;
  while (2.0 * b / std::ldexp(1.0, static_cast<int>(f)) > rate) ++f;
  return f;
}

// ===========================================================================
// ScalableCuckooFilter: creation and growth

TEST(ScalableCuckoo, CreateRefusesBadExpansionAndParameters) {
  GrowingCuckooPtr out = MakeGrowing(Params(10, 8, 4), 2);
  const ScalableCuckooFilter* sentinel = out.get();
  struct Case {
    const char* what;
    CuckooParams p;
    uint32_t e;
  };
  const Case cases[] = {
      {"expansion 1", Params(100, 8, 4), 1},
      {"expansion 1025", Params(100, 8, 4), 1025},
      {"expansion UINT32_MAX", Params(100, 8, 4), UINT32_MAX},
      {"f 3", Params(100, 3, 4), 2},
      {"b 3", Params(100, 8, 3), 2},
      {"capacity 0", Params(0, 8, 4), 2},
      {"capacity 2^40", Params(uint64_t{1} << 40, 8, 4), 0},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ScalableCuckooFilter::Create(c.p, c.e, &out), Status::kInvalidArgument) << c.what;
    EXPECT_EQ(out.get(), sentinel) << c.what;
  }
  for (uint32_t e : {0u, 2u, 1024u}) {
    GrowingCuckooPtr f = MakeGrowing(Params(100, 8, 4), e);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->expansion(), e);
    EXPECT_EQ(f->sub_filter_count(), 1u);
    EXPECT_EQ(f->size(), 0u);
  }
}

TEST(ScalableCuckoo, GrowsByItsExpansionAndNeverLosesAKey) {
  for (uint32_t e : {2u, 3u, 4u}) {
    for (uint32_t b : kBucketSizes) {
      SCOPED_TRACE("e " + std::to_string(e) + " b " + std::to_string(b));
      const CuckooParams p = Params(40, 8, b, 500, 3);
      GrowingCuckooPtr f = MakeGrowing(p, e);
      ASSERT_NE(f, nullptr);
      std::vector<std::string> keys;
      for (uint32_t subs = 2; subs <= 4; ++subs) {
        GrowTo(*f, "g-", subs, &keys);
        ASSERT_EQ(f->sub_filter_count(), subs);
        EXPECT_TRUE(ContainsAll(*f, keys)) << subs << " sub-filters";
        EXPECT_EQ(f->size(), keys.size());
        EXPECT_EQ(SubFilterSizes(*f), keys.size());
        // The newest took the key that made it; the ones before were full.
        const CuckooFilter& newest = f->sub_filter(subs - 1);
        EXPECT_EQ(newest.size(), 1u);
        const CuckooFilter& full = f->sub_filter(subs - 2);
        EXPECT_TRUE(full.victim_used());
        EXPECT_GT(full.load_factor(), b == 2 ? 0.7 : 0.8);
      }
      const CuckooFilter& first = f->sub_filter(0);
      EXPECT_EQ(first.capacity(), 40u);
      EXPECT_EQ(first.bucket_count(), CuckooFilter::BucketCountFor(40, b));
      for (uint32_t j = 0; j < f->sub_filter_count(); ++j) {
        const CuckooFilter& s = f->sub_filter(j);
        EXPECT_EQ(CuckooFilterPeer::level(s), j);
        EXPECT_EQ(s.bucket_count(), first.bucket_count() * Power(e, j)) << j;
        EXPECT_EQ(s.capacity(), 40 * Power(e, j)) << j;
        EXPECT_EQ(s.fingerprint_bits(), 8 + j) << j;
        EXPECT_EQ(s.bucket_size(), b) << j;
        EXPECT_EQ(s.max_kicks(), 500u) << j;
        EXPECT_EQ(s.seed(), 3u) << j;
      }
      // Adds go to the newest only.
      std::vector<uint64_t> older;
      for (uint32_t j = 0; j + 1 < f->sub_filter_count(); ++j) older.push_back(f->sub_filter(j).size());
      for (int i = 0; i < 20; ++i) ASSERT_EQ(Add(*f, Key("late-", i)), Status::kOk);
      for (uint32_t j = 0; j + 1 < f->sub_filter_count(); ++j) {
        EXPECT_EQ(f->sub_filter(j).size(), older[j]) << j;
      }
    }
  }
}

TEST(ScalableCuckoo, WithoutExpansionItIsThePlainFilter) {
  for (uint32_t b : kBucketSizes) {
    const CuckooParams p = Params(60, 10, b, 50, 4);
    GrowingCuckooPtr g = MakeGrowing(p, 0);
    FilterPtr plain = Make(p);
    ASSERT_TRUE(g && plain);
    int refused = 0;
    for (int i = 0; i < 400; ++i) {
      const std::string k = Key("p-", i);
      const Status s = Add(*g, k);
      ASSERT_EQ(s, Add(*plain, k)) << k;
      if (s != Status::kOk) {
        EXPECT_EQ(s, Status::kNotEnoughSpace);
        ++refused;
      }
      ASSERT_EQ(g->sub_filter_count(), 1u);
    }
    EXPECT_GT(refused, 0) << "b " << b << " never filled";
    for (int i = 0; i < 400; i += 3) {
      const std::string k = Key("p-", i);
      ASSERT_EQ(Count(*g, k), Count(*plain, k));
      ASSERT_EQ(Delete(*g, k), Delete(*plain, k));
    }
    // A filter that does not grow is version 1 when told to be (as when read
    // from version 1; a new one is version 4, format_v4_test.cc).
    ASSERT_EQ(g->SetFormatVersion(format::kFormatVersion), Status::kOk);
    const Bytes bytes = Serialize(*g);
    EXPECT_EQ(bytes, Serialize(*plain)) << "a filter that does not grow writes version 1";
    EXPECT_EQ(GetLE(bytes, off::kVersion, 2), 1u);
    FilterPtr as_plain;
    ASSERT_EQ(Load(bytes, &as_plain), Status::kOk);
    GrowingCuckooPtr back;
    ASSERT_EQ(LoadAs(bytes, &back), Status::kOk);
    EXPECT_EQ(back->expansion(), 0u);
    EXPECT_EQ(Serialize(*back), bytes);
  }
  // A new filter is version 4 from the start, growing or not, one sub-filter or more.
  for (uint32_t e : {0u, 2u}) {
    GrowingCuckooPtr g = MakeGrowing(Params(60, 10, 4), e);
    ASSERT_NE(g, nullptr);
    const Bytes bytes = Serialize(*g);
    EXPECT_EQ(GetLE(bytes, off::kVersion, 2), 4u);
    EXPECT_EQ(bytes[format::v4_field::kSubFilterCount], 1u);
  }
}

// ===========================================================================
// ScalableCuckooFilter: no false negative, ever (model-based)

struct ModelConfig {
  uint32_t e, b, f0, capacity;
};

// One key added again and again: once its copies fill all 2b slots of its
// two buckets and the victim, the filter refuses it instead of growing, as
// every new sub-filter would fill the same way (e times larger each time).
TEST(ScalableCuckoo, ADuplicatedKeyIsRefusedInsteadOfGrowingTheFilter) {
  for (uint32_t b : {2u, 4u, 8u}) {
    GrowingCuckooPtr f = MakeGrowing(Params(100000, 12, b, 500, 3), 2);
    ASSERT_NE(f, nullptr);
    const uint64_t bytes = f->SerializedSize();
    uint32_t added = 0;
    while (added < 100 && Add(*f, "same-key") == Status::kOk) ++added;
    EXPECT_EQ(added, 2 * b + 1) << "b " << b;
    EXPECT_EQ(f->sub_filter_count(), 1u) << "b " << b;
    EXPECT_EQ(f->SerializedSize(), bytes) << "b " << b;
    EXPECT_EQ(Count(*f, "same-key"), 2 * b + 1) << "b " << b;
    EXPECT_EQ(Add(*f, "another-key"), Status::kOk) << "b " << b;
  }
}

// The same when the key's two buckets are one (i1 == i2): its b slots and the
// victim hold b + 1 copies, and the next is refused rather than grown for.
TEST(ScalableCuckoo, ADuplicatedKeyWithOneBucketIsRefusedToo) {
  GrowingCuckooPtr f = MakeGrowing(Params(100000, 12, 4, 500, 3), 2);
  ASSERT_NE(f, nullptr);
  const cuckoo::CuckooFilter& first = f->sub_filter(0);
  std::string key;
  for (int i = 0; i < 1000000 && key.empty(); ++i) {
    const std::string k = Key("one-bucket-", i);
    const cuckoo::Probe p = CuckooFilterPeer::ProbeOf(first, HashOf(k, f->seed()));
    if (p.i1 == p.i2) key = k;
  }
  ASSERT_FALSE(key.empty()) << "no key with i1 == i2 among the candidates";
  uint32_t added = 0;
  while (added < 100 && Add(*f, key) == Status::kOk) ++added;
  EXPECT_EQ(added, first.bucket_size() + 1);
  EXPECT_EQ(f->sub_filter_count(), 1u);
}

// Random interleaved Add / Delete (of keys in the model only) / Count /
// Contain over a small key universe, so keys repeat and, with 4-bit
// fingerprints at level 0, share fingerprints often. After every step every
// key of the model is found and counted at least as often as the model holds
// it, and size() is the model's size.
TEST(ScalableCuckoo, ModelBasedRandomOperationsNeverLoseAKey) {
  const ModelConfig configs[] = {{2, 2, 4, 4}, {2, 4, 4, 8}, {3, 2, 4, 4}, {4, 4, 5, 6}};
  for (const ModelConfig& c : configs) {
    SCOPED_TRACE("e " + std::to_string(c.e) + " b " + std::to_string(c.b) + " f0 " +
                 std::to_string(c.f0));
    GrowingCuckooPtr f = MakeGrowing(Params(c.capacity, c.f0, c.b, 20, 7 + c.e), c.e);
    ASSERT_NE(f, nullptr);
    std::multiset<std::string> model;
    std::mt19937_64 rng(100 + c.e * 10 + c.b);
    const uint64_t universe = 100;
    uint64_t adds = 0, deletes = 0, hits_on_absent = 0, probes_on_absent = 0, refused = 0;
    for (int step = 0; step < 6000; ++step) {
      const uint64_t r = Below(rng, 100);
      const bool grow = model.size() < 80;
      if (r < (grow ? 60u : 35u)) {
        const std::string k = Key("u-", Below(rng, universe));
        const uint64_t size = f->size();
        const Status added = Add(*f, k);
        if (added == Status::kNotEnoughSpace) {
          // Refused only when k's matching fingerprints fill all 2b slots of
          // its buckets in the newest sub-filter (ScalableCuckooFilter::Add).
          const cuckoo::CuckooFilter& newest = f->sub_filter(f->sub_filter_count() - 1);
          ASSERT_GE(CuckooFilterPeer::CountProbe(newest, CuckooFilterPeer::ProbeOf(newest, HashOf(k, f->seed()))), 2 * c.b)
              << "step " << step << " " << k;
          ASSERT_EQ(f->size(), size);
          ++refused;
          continue;
        }
        ASSERT_EQ(added, Status::kOk) << "step " << step << " " << k;
        model.insert(k);
        ++adds;
      } else if (r < 75 && !model.empty()) {
        auto it = model.begin();
        std::advance(it, static_cast<long>(Below(rng, model.size())));
        const std::string k = *it;
        ASSERT_EQ(Delete(*f, k), Status::kOk) << "step " << step << " " << k;
        model.erase(it);
        ++deletes;
      } else {
        const std::string k = Key("u-", Below(rng, universe));
        const uint32_t n = Count(*f, k);
        ASSERT_EQ(Contain(*f, k), n > 0) << "step " << step << " " << k;
        ASSERT_GE(n, model.count(k)) << "step " << step << " " << k;
        if (model.count(k) == 0) {
          ++probes_on_absent;
          hits_on_absent += n > 0;
        }
        continue;  // a lookup changes nothing: the checks below would repeat the last step's
      }
      ASSERT_EQ(f->size(), model.size()) << "step " << step;
      for (auto it = model.begin(); it != model.end(); it = model.upper_bound(*it)) {
        ASSERT_TRUE(Contain(*f, *it)) << "step " << step << ": \"" << *it << "\" lost";
        ASSERT_GE(Count(*f, *it), model.count(*it)) << "step " << step << ": " << *it;
      }
      // Now and then, carry on with the filter as loaded from its bytes.
      if (step % 750 == 749) {
        const Bytes bytes = Serialize(*f);
        GrowingCuckooPtr loaded;
        ASSERT_EQ(LoadAs(bytes, &loaded), Status::kOk) << "step " << step;
        ASSERT_EQ(Serialize(*loaded), bytes);
        f = std::move(loaded);
      }
    }
    EXPECT_GE(f->sub_filter_count(), 3u) << "the filter should have grown";
    EXPECT_GT(adds, 1500u);
    EXPECT_LT(refused, adds / 20) << "refusals for filled buckets should be rare";
    EXPECT_GT(deletes, 1000u);
    // Tiny fingerprints: absent keys often match (else the test shows little).
    EXPECT_GT(hits_on_absent, probes_on_absent / 50) << "collisions too rare for this test";
  }
}

// Keys whose level-0 probes are equal (as fingerprint and bucket set) and
// whose level-1 probes are or are not: the two cases where deleting from the
// oldest sub-filter first, or levels that did not refine each other, would
// lose a key.
TEST(ScalableCuckoo, DeleteTakesTheNewestMatchingFingerprint) {
  const CuckooParams p = Params(4, 4, 2, 20, 5);
  GrowingCuckooPtr probe = MakeGrowing(p, 2);
  ASSERT_NE(probe, nullptr);
  // Grow a scratch filter to learn the level-0 and level-1 shapes.
  std::vector<std::string> scratch;
  GrowTo(*probe, "s-", 2, &scratch);
  const CuckooFilter& l0 = probe->sub_filter(0);
  const CuckooFilter& l1 = probe->sub_filter(1);
  auto set_of = [](const CuckooFilter& f, const std::string& k) {
    const cuckoo::Probe q = CuckooFilterPeer::ProbeOf(f, HashOf(k, f.seed()));
    return std::make_tuple(q.fingerprint, std::min(q.i1, q.i2), std::max(q.i1, q.i2));
  };
  // Pairs equal at level 0 only, and equal at level 1 (hence at level 0 too).
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::string> by0, by1;
  std::vector<std::pair<std::string, std::string>> only0, both;
  for (int i = 0; i < 200000 && (only0.size() < 5 || both.size() < 5); ++i) {
    const std::string k = Key("c-", i);
    const auto s0 = set_of(l0, k);
    const auto s1 = set_of(l1, k);
    auto at1 = by1.find(s1);
    if (at1 != by1.end()) {
      ASSERT_EQ(set_of(l0, at1->second), s0) << "level 1 equal, level 0 not: no refinement";
      if (both.size() < 5) both.emplace_back(at1->second, k);
      continue;
    }
    by1.emplace(s1, k);
    auto at0 = by0.find(s0);
    if (at0 != by0.end()) {
      if (only0.size() < 5 && set_of(l1, at0->second) != s1) only0.emplace_back(at0->second, k);
    } else {
      by0.emplace(s0, k);
    }
  }
  ASSERT_EQ(only0.size(), 5u);
  ASSERT_EQ(both.size(), 5u);

  // `older` goes into sub-filter 0; the filter grows; `newer` goes into
  // sub-filter 1; deleting `newer` must leave `older` found, and the other way
  // round.
  auto run = [&](const std::string& older, const std::string& newer, bool delete_newer) {
    GrowingCuckooPtr f = MakeGrowing(p, 2);
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(Add(*f, older), Status::kOk);
    std::vector<std::string> fill;
    GrowTo(*f, "fill-", 2, &fill);
    ASSERT_EQ(Add(*f, newer), Status::kOk);
    ASSERT_EQ(f->sub_filter(1).size(), 2u) << "newer went to sub-filter 1";
    const std::string& gone = delete_newer ? newer : older;
    const std::string& kept = delete_newer ? older : newer;
    const uint32_t before = Count(*f, kept);
    ASSERT_EQ(Delete(*f, gone), Status::kOk);
    EXPECT_TRUE(Contain(*f, kept)) << "deleting " << gone << " lost " << kept;
    EXPECT_GE(Count(*f, kept), 1u);
    EXPECT_EQ(f->size(), fill.size() + 1);
    EXPECT_TRUE(ContainsAll(*f, fill));
    (void)before;
  };
  for (const auto& pair : only0) {
    // Equal at level 0 only: Delete(newer) finds newer's own in sub-filter 1;
    // Delete(older) skips sub-filter 1 (no match there) and takes its own.
    run(pair.first, pair.second, true);
    run(pair.first, pair.second, false);
    run(pair.second, pair.first, true);
  }
  for (const auto& pair : both) {
    // Equal at level 1: Delete(older) takes newer's fingerprint in sub-filter 1;
    // newer is then found through older's in sub-filter 0 (refinement).
    run(pair.first, pair.second, false);
    run(pair.second, pair.first, false);
    run(pair.first, pair.second, true);
  }
}

TEST(ScalableCuckoo, CountAddsUpEverySubFilter) {
  GrowingCuckooPtr f = MakeGrowing(Params(10, 12, 4, 500, 1), 2);
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(Add(*f, "dup"), Status::kOk);
  std::vector<std::string> keys;
  GrowTo(*f, "n-", 2, &keys);
  ASSERT_EQ(Add(*f, "dup"), Status::kOk);
  GrowTo(*f, "n-", 3, &keys);
  ASSERT_EQ(Add(*f, "dup"), Status::kOk);
  ASSERT_EQ(Add(*f, "dup"), Status::kOk);
  EXPECT_EQ(Count(*f, "dup"), 4u);
  // Each delete takes the newest copy.
  const uint64_t in2 = f->sub_filter(2).size();
  ASSERT_EQ(Delete(*f, "dup"), Status::kOk);
  EXPECT_EQ(f->sub_filter(2).size(), in2 - 1);
  ASSERT_EQ(Delete(*f, "dup"), Status::kOk);
  EXPECT_EQ(f->sub_filter(2).size(), in2 - 2);
  const uint64_t in1 = f->sub_filter(1).size();
  ASSERT_EQ(Delete(*f, "dup"), Status::kOk);
  EXPECT_EQ(f->sub_filter(1).size(), in1 - 1);
  EXPECT_EQ(Count(*f, "dup"), 1u);
  ASSERT_EQ(Delete(*f, "dup"), Status::kOk);
  EXPECT_EQ(Delete(*f, "dup"), Status::kNotFound);
  EXPECT_TRUE(ContainsAll(*f, keys));
}

TEST(ScalableCuckoo, BatchesAreTheSingleCalls) {
  GrowingCuckooPtr a = MakeGrowing(Params(30, 9, 4, 500, 2), 3);
  GrowingCuckooPtr b = MakeGrowing(Params(30, 9, 4, 500, 2), 3);
  ASSERT_TRUE(a && b);
  cuckoo::PackedKeys packed;
  for (int i = 0; i < 600; ++i) packed.Push(Key("batch-", i));
  Status s = Status::kNotFound;
  EXPECT_EQ(a->AddBatch(packed.data(), packed.offsets.data(), 600, &s), 600u);
  EXPECT_EQ(s, Status::kOk);
  for (int i = 0; i < 600; ++i) ASSERT_EQ(Add(*b, Key("batch-", i)), Status::kOk);
  EXPECT_GE(a->sub_filter_count(), 3u);
  EXPECT_EQ(Serialize(*a), Serialize(*b));
  std::vector<uint8_t> results(1200, 7);
  cuckoo::PackedKeys probes = packed;
  for (int i = 0; i < 600; ++i) probes.Push(Key("other-", i));
  a->ContainBatch(probes.data(), probes.offsets.data(), 1200, results.data());
  for (int i = 0; i < 1200; ++i) {
    const std::string k = i < 600 ? Key("batch-", i) : Key("other-", i - 600);
    ASSERT_EQ(results[i], Contain(*a, k) ? 1 : 0) << k;
    if (i < 600) ASSERT_EQ(results[i], 1) << k;
  }
  // With one sub-filter the batch takes the plain filter's path: the same answers.
  GrowingCuckooPtr one = MakeGrowing(Params(1000, 9, 4, 500, 2), 3);
  ASSERT_NE(one, nullptr);
  ASSERT_EQ(one->AddBatch(packed.data(), packed.offsets.data(), 600, &s), 600u);
  ASSERT_EQ(one->sub_filter_count(), 1u);
  one->ContainBatch(probes.data(), probes.offsets.data(), 1200, results.data());
  for (int i = 0; i < 1200; ++i) {
    const std::string k = i < 600 ? Key("batch-", i) : Key("other-", i - 600);
    ASSERT_EQ(results[i], Contain(*one, k) ? 1 : 0) << k;
  }
}

// ===========================================================================
// ScalableCuckooFilter: serialization

TEST(ScalableCuckoo, RoundTripIsByteIdenticalAtEveryGrowthState) {
  for (uint32_t e : {2u, 3u}) {
    for (uint32_t b : kBucketSizes) {
      SCOPED_TRACE("e " + std::to_string(e) + " b " + std::to_string(b));
      GrowingCuckooPtr f = MakeGrowing(Params(25, 7, b, 100, 6), e);
      ASSERT_NE(f, nullptr);
      std::vector<std::string> keys;
      for (uint32_t subs = 1; subs <= 4; ++subs) {
        GrowTo(*f, "rt-", subs, &keys);
        for (size_t i = 0; i < keys.size(); i += 7) {  // some deletes and re-adds
          ASSERT_EQ(Delete(*f, keys[i]), Status::kOk);
          ASSERT_EQ(Add(*f, keys[i]), Status::kOk);
        }
        const Bytes bytes = Serialize(*f);
        ASSERT_EQ(bytes.size(), f->SerializedSize());
        GrowingCuckooPtr g;
        ASSERT_EQ(LoadAs(bytes, &g), Status::kOk) << subs << " sub-filters";
        EXPECT_EQ(Serialize(*g), bytes) << subs << " sub-filters";
        ASSERT_EQ(g->sub_filter_count(), f->sub_filter_count());
        EXPECT_EQ(g->expansion(), e);
        EXPECT_EQ(g->size(), f->size());
        for (uint32_t j = 0; j < g->sub_filter_count(); ++j) {
          EXPECT_EQ(CuckooFilterPeer::level(g->sub_filter(j)), j);
          EXPECT_EQ(g->sub_filter(j).bucket_count(), f->sub_filter(j).bucket_count());
        }
        EXPECT_TRUE(ContainsAll(*g, keys));
        // Both carry on alike: same statuses, same bytes (PRNG states included).
        for (int i = 0; i < 40; ++i) {
          const std::string k = Key("after-", subs * 100 + i);
          ASSERT_EQ(Add(*f, k), Add(*g, k));
          keys.push_back(k);
        }
        ASSERT_EQ(Delete(*f, keys[0]), Delete(*g, keys[0]));
        ASSERT_EQ(Add(*f, keys[0]), Add(*g, keys[0]));
        ASSERT_EQ(Serialize(*f), Serialize(*g));
      }
    }
  }
}

// ===========================================================================
// ScalableCuckooFilter: growth limits

TEST(ScalableCuckoo, GrowthStopsAtThirtyTwoFingerprintBits) {
  const CuckooParams p = Params(1, 30, 2, 50, 9);
  GrowingCuckooPtr f = MakeGrowing(p, 2);
  ASSERT_NE(f, nullptr);
  std::vector<std::string> keys;
  Status s = Status::kOk;
  for (int i = 0; i < 10000; ++i) {
    const std::string k = Key("f32-", i);
    const Bytes before = Serialize(*f);
    s = Add(*f, k);
    if (s != Status::kOk) {
      EXPECT_EQ(Serialize(*f), before) << "a refused Add changed the filter";
      break;
    }
    keys.push_back(k);
  }
  ASSERT_EQ(s, Status::kGrowthLimit);
  ASSERT_EQ(f->sub_filter_count(), 3u) << "f = 30, 31, 32";
  EXPECT_EQ(f->sub_filter(2).fingerprint_bits(), 32u);
  EXPECT_EQ(f->size(), keys.size());
  EXPECT_TRUE(ContainsAll(*f, keys));
  // AddBatch reports it too, after the keys that still fit.
  cuckoo::PackedKeys packed;
  for (int i = 0; i < 50; ++i) packed.Push(Key("more-", i));
  Status batch = Status::kOk;
  const size_t added = f->AddBatch(packed.data(), packed.offsets.data(), 50, &batch);
  EXPECT_LT(added, 50u);
  EXPECT_EQ(batch, Status::kGrowthLimit);
  EXPECT_EQ(f->size(), keys.size() + added);
  EXPECT_TRUE(ContainsAll(*f, keys));
  const Bytes bytes = Serialize(*f);
  GrowingCuckooPtr g;
  ASSERT_EQ(LoadAs(bytes, &g), Status::kOk);
  EXPECT_EQ(Add(*g, Key("more-", added)), Status::kGrowthLimit);
}

// A sub-filter 0 with every slot and the victim taken: any Add grows.
Bytes FullFirstSubFilter(uint32_t f, uint32_t b, uint32_t m, uint32_t expansion) {
  CuckooSectionSpec s;
  s.f = f;
  s.b = b;
  s.m = m;
  s.capacity = m;
  s.seed = 1;
  s.rng_state = 12345;
  s.item_count = uint64_t{m} * b + 1;
  s.victim_fp = static_cast<uint32_t>((uint64_t{1} << f) - 1);
  s.victim_bucket = 0;
  const uint64_t bits = uint64_t{m} * b * f;
  s.table.assign((bits + 7) / 8, 0xff);
  if (bits % 8 != 0) s.table.back() = static_cast<uint8_t>((1u << (bits % 8)) - 1);
  StackFile file;
  file.expansion = expansion;
  file.seed = 1;
  file.sections.push_back(s.Write());
  return file.Write();
}

TEST(ScalableCuckoo, GrowthStopsBeforeTwoToTheThirtyTwoBuckets) {
  // 2^22 + 1 buckets: times 1024 is more than 2^32 - 1.
  const Bytes bytes = FullFirstSubFilter(4, 2, (1u << 22) + 1, 1024);
  GrowingCuckooPtr f;
  ASSERT_EQ(LoadAs(bytes, &f), Status::kOk);
  Status s = Status::kOk;
  size_t largest = alloc_probe::LargestAllocationDuring([&] { s = Add(*f, "one more"); });
  EXPECT_EQ(s, Status::kGrowthLimit);
  EXPECT_LT(largest, size_t{1} << 20) << "tried to allocate " << largest << " bytes";
  EXPECT_EQ(f->sub_filter_count(), 1u);
  EXPECT_EQ(Serialize(*f), bytes);
  // The control: 1000 buckets times 1024 fit, and the next sub-filter is made.
  const Bytes fits = FullFirstSubFilter(4, 2, 1000, 1024);
  ASSERT_EQ(LoadAs(fits, &f), Status::kOk);
  EXPECT_EQ(Add(*f, "one more"), Status::kOk);
  EXPECT_EQ(f->sub_filter_count(), 2u);
  EXPECT_EQ(f->sub_filter(1).bucket_count(), 1000u * 1024);
}

TEST(ScalableCuckoo, GrowthStopsAtOneGibibyteWithoutTryingToAllocateIt) {
  // Sub-filter 0: 258,000 keys of 31 bits in ~33,000 buckets of 8. Sub-filter
  // 1 would be 1024 times that with 32-bit fingerprints: 1.08 GB, over the
  // 1 GiB a filter may grow to.
  const CuckooParams p = Params(258000, 31, 8, 20, 10);
  GrowingCuckooPtr f = MakeGrowing(p, 1024);
  ASSERT_NE(f, nullptr);
  const uint64_t m0 = f->sub_filter(0).bucket_count();
  ASSERT_GT(format::CuckooFileBytes(m0 * 1024 * 8 * 32 / 8) + f->SerializedSize(), cuckoo::kMaxFilterBytes);
  uint64_t added = 0;
  Status s = Status::kOk;
  for (; added < 400000; ++added) {
    const std::string k = Key("gib-", added);
    // The Add that grows runs with allocations over 64 MiB refused: the limit
    // must be judged before the sub-filter is allocated.
    if (f->sub_filter(0).victim_used()) {
      ScopedAllocationPlan plan(FailAbove(size_t{64} << 20));
      s = Add(*f, k);
      if (s != Status::kOk) {
        EXPECT_LT(plan.largest(), size_t{64} << 20) << "tried to allocate " << plan.largest();
        break;
      }
    } else {
      s = Add(*f, k);
      ASSERT_EQ(s, Status::kOk) << k;
    }
  }
  EXPECT_EQ(s, Status::kGrowthLimit);
  EXPECT_EQ(f->sub_filter_count(), 1u);
  EXPECT_EQ(f->size(), added);
  for (uint64_t i = 0; i < added; ++i) ASSERT_TRUE(Contain(*f, Key("gib-", i))) << i;
}

// ===========================================================================
// ScalableCuckooFilter: false-positive rate

// With f0 sized for ε/2 (2b/2^f0 <= ε/2), sub-filter j has one bit more than
// j - 1, so the rates sum to at most ε whatever the growth.
TEST(ScalableCuckoo, FalsePositiveRateStaysBelowTargetAtEightTimesCapacity) {
  const double target = 0.01;
  for (uint32_t e : {2u, 4u}) {
    for (uint32_t b : {2u, 4u}) {
      const uint32_t f0 = FingerprintBitsFor(target / 2, b);
      const uint64_t capacity = 5000;
      GrowingCuckooPtr f = MakeGrowing(Params(capacity, f0, b, 500, 31), e);
      ASSERT_NE(f, nullptr);
      for (uint64_t i = 0; i < 8 * capacity; ++i) ASSERT_EQ(Add(*f, Key("fp-", i)), Status::kOk);
      EXPECT_GE(f->sub_filter_count(), e == 2 ? 3u : 2u);
      const uint64_t probes = 200000;
      uint64_t hits = 0;
      for (uint64_t i = 0; i < probes; ++i) hits += Contain(*f, Key("absent-", i));
      const double measured = static_cast<double>(hits) / probes;
      // The bound of FORMAT.md §8 per sub-filter, at its load.
      double bound = 0;
      for (uint32_t j = 0; j < f->sub_filter_count(); ++j) {
        const CuckooFilter& s = f->sub_filter(j);
        bound += 2.0 * b * s.load_factor() / std::ldexp(1.0, static_cast<int>(s.fingerprint_bits()));
      }
      EXPECT_LE(measured, target) << "e " << e << " b " << b << " f0 " << f0;
      EXPECT_LE(bound, target);
      EXPECT_NEAR(measured, bound, 5 * std::sqrt(bound / probes) + 0.1 * bound)
          << "e " << e << " b " << b;
    }
  }
}

// ===========================================================================
// ScalableCuckooFilter: out of memory

TEST(ScalableCuckooOutOfMemory, CreateLoadAndGrowReportEachRefusalAndLeaveNothing) {
  const CuckooParams p = Params(20, 8, 4, 100, 12);
  // Create: the first sub-filter (2 blocks) and the growing filter (1).
  {
    GrowingCuckooPtr out = MakeGrowing(Params(5, 8, 4), 2);
    const ScalableCuckooFilter* sentinel = out.get();
    const size_t live = LiveAllocationsForTesting();
    size_t blocks;
    {
      ScopedAllocationPlan plan(AllowAll());
      GrowingCuckooPtr f;
      ASSERT_EQ(ScalableCuckooFilter::Create(p, 2, &f), Status::kOk);
      blocks = plan.calls();
    }
    EXPECT_EQ(blocks, 3u);
    for (size_t n = 0; n < blocks; ++n) {
      ScopedAllocationPlan plan(FailAllocation(n));
      EXPECT_EQ(ScalableCuckooFilter::Create(p, 2, &out), Status::kOutOfMemory) << n;
      EXPECT_EQ(out.get(), sentinel);
      EXPECT_EQ(LiveAllocationsForTesting(), live) << "refused allocation " << n;
    }
  }
  // Deserialize of three sub-filters: 2 blocks each, and the growing filter.
  GrowingCuckooPtr grown = MakeGrowing(p, 2);
  ASSERT_NE(grown, nullptr);
  std::vector<std::string> keys;
  GrowTo(*grown, "oom-", 3, &keys);
  const Bytes bytes = Serialize(*grown);
  {
    GrowingCuckooPtr out = MakeGrowing(Params(5, 8, 4), 2);
    const ScalableCuckooFilter* sentinel = out.get();
    const size_t live = LiveAllocationsForTesting();
    size_t blocks;
    {
      ScopedAllocationPlan plan(AllowAll());
      GrowingCuckooPtr f;
      ASSERT_EQ(LoadAs(bytes, &f), Status::kOk);
      blocks = plan.calls();
    }
    EXPECT_EQ(blocks, 7u);
    for (size_t n = 0; n < blocks; ++n) {
      ScopedAllocationPlan plan(FailAllocation(n));
      EXPECT_EQ(LoadAs(bytes, &out), Status::kOutOfMemory) << n;
      EXPECT_EQ(out.get(), sentinel);
      EXPECT_EQ(LiveAllocationsForTesting(), live) << "refused allocation " << n;
    }
  }
  // Growing: the Add that needs a new sub-filter (2 blocks) is refused as a
  // whole; the filter is as before; with memory back the same Add grows it
  // exactly as in a twin that never saw a refusal.
  GrowingCuckooPtr f = MakeGrowing(p, 2);
  GrowingCuckooPtr twin = MakeGrowing(p, 2);
  ASSERT_TRUE(f && twin);
  std::vector<std::string> twin_keys;
  keys.clear();
  GrowTo(*twin, "oom-", 2, &twin_keys);
  const std::string& grower = twin_keys.back();
  for (size_t i = 0; i + 1 < twin_keys.size(); ++i) ASSERT_EQ(Add(*f, twin_keys[i]), Status::kOk);
  ASSERT_EQ(f->sub_filter_count(), 1u);
  const Bytes before = Serialize(*f);
  const size_t live = LiveAllocationsForTesting();
  for (size_t n = 0; n < 2; ++n) {
    {
      ScopedAllocationPlan plan(FailAllocation(n));
      EXPECT_EQ(Add(*f, grower), Status::kOutOfMemory) << n;
      EXPECT_EQ(plan.refused(), 1u);
    }
    EXPECT_EQ(LiveAllocationsForTesting(), live);
    EXPECT_EQ(Serialize(*f), before);
    EXPECT_EQ(f->size(), twin_keys.size() - 1);
  }
  ASSERT_EQ(Add(*f, grower), Status::kOk);
  EXPECT_EQ(f->sub_filter_count(), 2u);
  EXPECT_EQ(Serialize(*f), Serialize(*twin));
}

TEST(ScalableCuckooOutOfMemory, TheFilterNeverCallsOperatorNew) {
  GrowingCuckooPtr grown = MakeGrowing(Params(8, 8, 4), 2);
  ASSERT_NE(grown, nullptr);
  std::vector<std::string> keys;
  GrowTo(*grown, "k", 3, &keys);
  Bytes bytes(grown->SerializedSize());
  const char* const probes[] = {"a", "bb", "ccc"};
  const alloc_probe::Seen seen = alloc_probe::During([&] {
    GrowingCuckooPtr f;
    if (ScalableCuckooFilter::Create(Params(8, 8, 4), 2, &f) != Status::kOk) return;
    for (int i = 0; i < 200 && f->sub_filter_count() < 3; ++i) {
      char key[4] = {static_cast<char>('a' + i % 26), static_cast<char>('a' + i / 26), 'x', 0};
      f->Add(reinterpret_cast<const uint8_t*>(key), 3);
    }
    for (const char* k : probes) f->Contain(reinterpret_cast<const uint8_t*>(k), 1);
    f->Delete(reinterpret_cast<const uint8_t*>("aax"), 3);
    grown->Serialize(bytes.data());
    GrowingCuckooPtr g;
    ScalableCuckooFilter::Deserialize(bytes.data(), bytes.size(), &g);
  });
  EXPECT_GE(seen.core_blocks, 10u);
  EXPECT_EQ(seen.Foreign(), 0u) << "allocations outside the core's allocator";
}

// ===========================================================================
// ScalableBloomFilter

// m = ceil(-n ln ε / (ln 2)^2) in long double, written here apart from the core.
uint64_t SpecBits(uint64_t n, double rate) {
  const long double ln2 = std::log(2.0L);
  return static_cast<uint64_t>(
      std::ceil(-static_cast<long double>(n) * std::log(static_cast<long double>(rate)) / (ln2 * ln2)));
}
uint32_t SpecHashes(uint64_t n, uint64_t m) {
  return static_cast<uint32_t>(std::max(1.0L, std::round(static_cast<long double>(m) / n * std::log(2.0L))));
}

TEST(ScalableBloom, CreateRefusesBadExpansionAndParameters) {
  GrowingBloomPtr out = MakeGrowingBloom(GrowingBloom(10, 0.1, 2));
  const ScalableBloomFilter* sentinel = out.get();
  const ScalableBloomParams cases[] = {
      GrowingBloom(100, 0.01, 1),     GrowingBloom(100, 0.01, 1025), GrowingBloom(0, 0.01, 2),
      GrowingBloom(100, 0, 2),        GrowingBloom(100, 1, 2),       GrowingBloom(100, 1e-21, 0),
      GrowingBloom(100, std::numeric_limits<double>::quiet_NaN(), 2),
  };
  for (const ScalableBloomParams& p : cases) {
    EXPECT_EQ(ScalableBloomFilter::Create(p, &out), Status::kInvalidArgument)
        << p.capacity << " " << p.false_positive_rate << " " << p.expansion;
    EXPECT_EQ(out.get(), sentinel);
  }
}

TEST(ScalableBloom, FirstSubFilterIsSizedForTheWholeRateOrHalfOfIt) {
  GrowingBloomPtr fixed = MakeGrowingBloom(GrowingBloom(1000, 0.01, 0));
  GrowingBloomPtr growing = MakeGrowingBloom(GrowingBloom(1000, 0.01, 2));
  ASSERT_TRUE(fixed && growing);
  EXPECT_EQ(fixed->sub_filter(0).false_positive_rate(), 0.01);
  EXPECT_EQ(fixed->sub_filter(0).bit_count(), SpecBits(1000, 0.01));
  EXPECT_EQ(fixed->false_positive_rate(), 0.01);
  EXPECT_EQ(growing->sub_filter(0).false_positive_rate(), 0.005);
  EXPECT_EQ(growing->sub_filter(0).bit_count(), SpecBits(1000, 0.005));
  EXPECT_EQ(growing->false_positive_rate(), 0.01);
  // Without growth it never grows: a Bloom filter takes keys past capacity.
  for (int i = 0; i < 3000; ++i) ASSERT_EQ(Add(*fixed, Key("x", i)), Status::kOk);
  EXPECT_EQ(fixed->sub_filter_count(), 1u);
  EXPECT_EQ(fixed->size(), 3000u);
}

TEST(ScalableBloom, GrowsWhenTheNewestHoldsItsCapacity) {
  for (uint32_t e : {2u, 3u, 10u}) {
    const uint64_t c0 = 50;
    const double rate = 0.02;
    GrowingBloomPtr f = MakeGrowingBloom(GrowingBloom(c0, rate, e, 4));
    ASSERT_NE(f, nullptr);
    std::vector<std::string> keys;
    uint64_t capacity_so_far = 0;
    for (uint32_t j = 0; j < 4; ++j) {
      capacity_so_far += c0 * Power(e, j);
      // Exactly its capacity goes into each sub-filter; the next key grows it.
      while (keys.size() < capacity_so_far) {
        ASSERT_EQ(Add(*f, Key("b-", keys.size())), Status::kOk);
        keys.push_back(Key("b-", keys.size()));
        ASSERT_EQ(f->sub_filter_count(), j + 1) << "e " << e << " after " << keys.size();
      }
      const BloomFilter& s = f->sub_filter(j);
      EXPECT_EQ(s.capacity(), c0 * Power(e, j));
      EXPECT_EQ(s.size(), s.capacity());
      EXPECT_EQ(s.false_positive_rate(), rate / 2 / Power(2, j)) << "ε0 / 2^j";
      EXPECT_EQ(s.bit_count(), SpecBits(s.capacity(), s.false_positive_rate())) << j;
      EXPECT_EQ(s.hash_count(), SpecHashes(s.capacity(), s.bit_count())) << j;
      EXPECT_EQ(s.seed(), 4u);
    }
    ASSERT_EQ(Add(*f, "grows"), Status::kOk);
    EXPECT_EQ(f->sub_filter_count(), 5u);
    EXPECT_EQ(f->sub_filter(4).size(), 1u);
    EXPECT_TRUE(ContainsAll(*f, keys));
    EXPECT_EQ(f->size(), keys.size() + 1);
    uint64_t bits = 0;
    for (uint32_t j = 0; j < 5; ++j) bits += f->sub_filter(j).bit_count();
    EXPECT_EQ(f->bit_count(), bits);
    EXPECT_EQ(f->false_positive_rate(), rate);
  }
}

TEST(ScalableBloom, MeasuredRateAtEightTimesCapacityStaysBelowTarget) {
  const double target = 0.01;
  for (uint32_t e : {2u, 4u}) {
    const uint64_t capacity = 10000;
    GrowingBloomPtr f = MakeGrowingBloom(GrowingBloom(capacity, target, e, 5));
    ASSERT_NE(f, nullptr);
    for (uint64_t i = 0; i < 8 * capacity; ++i) ASSERT_EQ(Add(*f, Key("in-", i)), Status::kOk);
    EXPECT_GE(f->sub_filter_count(), 3u);
    const uint64_t probes = 400000;
    uint64_t hits = 0;
    for (uint64_t i = 0; i < probes; ++i) hits += Contain(*f, Key("out-", i));
    const double measured = static_cast<double>(hits) / probes;
    const double expected = f->ExpectedFalsePositiveRate();
    EXPECT_LE(measured, target) << "e " << e;
    EXPECT_LE(expected, target) << "e " << e;
    EXPECT_NEAR(measured, expected, 5 * std::sqrt(expected / probes)) << "e " << e;
    // ExpectedFalsePositiveRate combines the sub-filters' rates: 1 - prod (1 - r_j).
    double none = 1;
    for (uint32_t j = 0; j < f->sub_filter_count(); ++j) {
      none *= 1 - f->sub_filter(j).ExpectedFalsePositiveRate();
    }
    EXPECT_DOUBLE_EQ(expected, 1 - none);
    EXPECT_NEAR(f->EstimatedCount(), 8.0 * capacity, 0.03 * 8 * capacity);
  }
}

TEST(ScalableBloom, RoundTripIsByteIdenticalAtEveryGrowthState) {
  for (uint32_t e : {0u, 2u, 5u}) {
    GrowingBloomPtr f = MakeGrowingBloom(GrowingBloom(30, 0.05, e, 6));
    ASSERT_NE(f, nullptr);
    std::vector<std::string> keys;
    for (uint32_t subs = 1; subs <= (e == 0 ? 1u : 4u); ++subs) {
      GrowTo(*f, "brt-", subs, &keys);
      const Bytes bytes = Serialize(*f);
      ASSERT_EQ(bytes.size(), f->SerializedSize());
      EXPECT_EQ(GetLE(bytes, off::kVersion, 2), 4u);
      GrowingBloomPtr g;
      ASSERT_EQ(LoadAs(bytes, &g), Status::kOk) << "e " << e << " subs " << subs;
      EXPECT_EQ(Serialize(*g), bytes);
      EXPECT_EQ(g->sub_filter_count(), f->sub_filter_count());
      EXPECT_EQ(g->expansion(), e);
      EXPECT_EQ(g->size(), f->size());
      EXPECT_EQ(g->false_positive_rate(), f->false_positive_rate());
      EXPECT_TRUE(ContainsAll(*g, keys));
      for (int i = 0; i < 70; ++i) {
        const std::string k = Key("more-", subs * 100 + i);
        ASSERT_EQ(Add(*f, k), Add(*g, k));
        keys.push_back(k);
      }
      EXPECT_EQ(Serialize(*f), Serialize(*g));
    }
  }
}

// A filter read from version-2 bytes keeps version 2's positions: its keys
// stay present, it writes version 2 back, and sub-filters it grows use the
// same positions (one file, one kind).
TEST(ScalableBloom, VersionTwoFiltersKeepTheirPositionsAndVersion) {
  for (uint32_t e : {0u, 2u}) {
    ScalableBloomParams p = GrowingBloom(30, 0.05, e, 6);
    p.positions = BloomPositions::kDoubleHashing;
    GrowingBloomPtr f = MakeGrowingBloom(p);
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(f->SetFormatVersion(format::kFormatVersionStack), Status::kOk);
    std::vector<std::string> keys;
    GrowTo(*f, "v2-", e == 0 ? 1 : 2, &keys);
    const Bytes bytes = Serialize(*f);
    EXPECT_EQ(GetLE(bytes, off::kVersion, 2), 2u);
    GrowingBloomPtr g;
    ASSERT_EQ(LoadAs(bytes, &g), Status::kOk);
    EXPECT_EQ(g->positions(), BloomPositions::kDoubleHashing);
    EXPECT_TRUE(ContainsAll(*g, keys));
    EXPECT_EQ(Serialize(*g), bytes);
    for (int i = 0; i < 200; ++i) {
      keys.push_back(Key("v2-more-", i));
      ASSERT_EQ(Add(*g, keys.back()), Status::kOk);
    }
    for (uint32_t j = 0; j < g->sub_filter_count(); ++j) {
      EXPECT_EQ(g->sub_filter(j).positions(), BloomPositions::kDoubleHashing) << j;
    }
    EXPECT_TRUE(ContainsAll(*g, keys));
    const Bytes grown = Serialize(*g);
    EXPECT_EQ(GetLE(grown, off::kVersion, 2), 2u);
    GrowingBloomPtr h;
    ASSERT_EQ(LoadAs(grown, &h), Status::kOk);
    EXPECT_TRUE(ContainsAll(*h, keys));
    // The same bytes read as version 3 lose keys: the version decides the
    // positions, and a reader must not guess them.
    Bytes relabelled = bytes;
    PutLE(&relabelled, off::kVersion, 2, 3);
    Reseal(&relabelled);
    GrowingBloomPtr wrong;
    ASSERT_EQ(LoadAs(relabelled, &wrong), Status::kOk);
    EXPECT_FALSE(ContainsAll(*wrong, std::vector<std::string>(keys.begin(), keys.begin() + 30)));
  }
}

TEST(ScalableBloom, UnionOfGrownFiltersHoldsBothKeySets) {
  const ScalableBloomParams p = GrowingBloom(40, 0.02, 2, 8);
  GrowingBloomPtr a = MakeGrowingBloom(p);
  GrowingBloomPtr b = MakeGrowingBloom(p);
  ASSERT_TRUE(a && b);
  std::vector<std::string> ka, kb;
  GrowTo(*a, "ua-", 3, &ka);
  GrowTo(*b, "ub-", 3, &kb);
  for (int i = 0; i < 10; ++i) {  // b a little fuller than a
    ASSERT_EQ(Add(*b, Key("ub-", kb.size())), Status::kOk);
    kb.push_back(Key("ub-", kb.size()));
  }
  ASSERT_EQ(b->sub_filter_count(), 3u);
  ASSERT_TRUE(a->IsCompatible(*b));
  ASSERT_TRUE(b->IsCompatible(*a));
  const Bytes b_before = Serialize(*b);
  std::vector<std::vector<uint64_t>> expected;
  for (uint32_t j = 0; j < 3; ++j) {
    const BloomFilter& x = a->sub_filter(j);
    const BloomFilter& y = b->sub_filter(j);
    std::vector<uint64_t> words(x.word_bytes() / 8);
    for (size_t w = 0; w < words.size(); ++w) words[w] = x.words()[w] | y.words()[w];
    expected.push_back(words);
  }
  ASSERT_EQ(a->Union(*b), Status::kOk);
  EXPECT_EQ(a->size(), ka.size() + kb.size());
  EXPECT_TRUE(ContainsAll(*a, ka));
  EXPECT_TRUE(ContainsAll(*a, kb));
  for (uint32_t j = 0; j < 3; ++j) {
    for (size_t w = 0; w < expected[j].size(); ++w) {
      ASSERT_EQ(a->sub_filter(j).words()[w], expected[j][w]) << "sub " << j << " word " << w;
    }
  }
  EXPECT_EQ(Serialize(*b), b_before) << "Union changed its argument";
  GrowingBloomPtr loaded;
  ASSERT_EQ(LoadAs(Serialize(*a), &loaded), Status::kOk);
  EXPECT_TRUE(ContainsAll(*loaded, kb));
}

TEST(ScalableBloom, UnionRefusesIncompatibleFiltersAndChangesNothing) {
  const ScalableBloomParams p = GrowingBloom(40, 0.02, 2, 8);
  GrowingBloomPtr base = MakeGrowingBloom(p);
  ASSERT_NE(base, nullptr);
  std::vector<std::string> keys;
  GrowTo(*base, "ib-", 2, &keys);
  struct Case {
    const char* what;
    ScalableBloomParams p;
    uint32_t subs;
  };
  const Case cases[] = {
      {"one sub-filter fewer", p, 1},
      {"one sub-filter more", p, 3},
      {"another seed", GrowingBloom(40, 0.02, 2, 9), 2},
      {"another expansion", GrowingBloom(40, 0.02, 3, 8), 2},
      {"another capacity", GrowingBloom(41, 0.02, 2, 8), 2},
      {"another rate", GrowingBloom(40, 0.01, 2, 8), 2},
      {"version 2's positions", p, 2},
  };
  const Bytes before = Serialize(*base);
  for (const Case& c : cases) {
    ScalableBloomParams params = c.p;
    if (std::string(c.what) == "version 2's positions") {
      params.positions = BloomPositions::kDoubleHashing;
    }
    GrowingBloomPtr other = MakeGrowingBloom(params);
    ASSERT_NE(other, nullptr);
    std::vector<std::string> ok;
    GrowTo(*other, "io-", c.subs, &ok);
    EXPECT_FALSE(base->IsCompatible(*other)) << c.what;
    EXPECT_FALSE(other->IsCompatible(*base)) << c.what;
    EXPECT_EQ(base->Union(*other), Status::kInvalidArgument) << c.what;
    EXPECT_EQ(Serialize(*base), before) << c.what;
  }
}

TEST(ScalableBloom, GrowthStopsAtSixtyFourHashes) {
  // ε0 = 2^-61: k = 61 at sub-filter 0, one more per sub-filter; the fifth
  // would need 65.
  GrowingBloomPtr f = MakeGrowingBloom(GrowingBloom(1, std::ldexp(1.0, -60), 2, 3));
  ASSERT_NE(f, nullptr);
  std::vector<std::string> keys;
  Status s = Status::kOk;
  for (int i = 0; i < 1000; ++i) {
    const Bytes before = Serialize(*f);
    s = Add(*f, Key("k64-", i));
    if (s != Status::kOk) {
      EXPECT_EQ(Serialize(*f), before);
      break;
    }
    keys.push_back(Key("k64-", i));
  }
  ASSERT_EQ(s, Status::kGrowthLimit);
  EXPECT_EQ(f->sub_filter_count(), 4u);
  EXPECT_EQ(f->sub_filter(3).hash_count(), 64u);
  EXPECT_EQ(keys.size(), 1u + 2 + 4 + 8);
  EXPECT_EQ(f->size(), keys.size());
  EXPECT_TRUE(ContainsAll(*f, keys));
}

TEST(ScalableBloom, GrowthStopsBeforeTwoToTheThirtyTwoBits) {
  // Sub-filter 2 would hold 1000 · 1024^2 keys at 0.25%: ~14.6 billion bits.
  GrowingBloomPtr f = MakeGrowingBloom(GrowingBloom(1000, 0.01, 1024, 3));
  ASSERT_NE(f, nullptr);
  const uint64_t fit = 1000 + 1000 * 1024;
  for (uint64_t i = 0; i < fit; ++i) ASSERT_EQ(Add(*f, Key("big-", i)), Status::kOk) << i;
  ASSERT_EQ(f->sub_filter_count(), 2u);
  const Bytes before = Serialize(*f);
  Status s = Status::kOk;
  const size_t largest = alloc_probe::LargestAllocationDuring([&] { s = Add(*f, "one too many"); });
  EXPECT_EQ(s, Status::kGrowthLimit);
  EXPECT_LT(largest, size_t{1} << 20);
  EXPECT_EQ(Serialize(*f), before);
  for (uint64_t i = 0; i < fit; i += 97) ASSERT_TRUE(Contain(*f, Key("big-", i))) << i;
}

// 32 sub-filters cannot be reached by adding keys (sub-filter 31 holds 2^31
// times the first one's capacity), so the file is made by hand: capacities
// 1, 2, 4, ..., 2^31 at rates 0.25, 0.125, ..., each of 64 bits and 1 hash (m and
// k are stored, not derived), the newest holding its capacity.
TEST(ScalableBloom, GrowthStopsAtThirtyTwoSubFilters) {
  StackFile file;
  file.type = format::kTypeBloom;
  file.expansion = 2;
  file.seed = 7;
  for (uint32_t j = 0; j < 32; ++j) {
    BloomSectionSpec s;
    s.k = 1;
    s.m = 64;
    s.capacity = uint64_t{1} << j;
    s.item_count = s.capacity;
    s.rate = std::ldexp(0.25, -static_cast<int>(j));
    file.sections.push_back(s.Write());
  }
  const Bytes bytes = file.Write();
  GrowingBloomPtr f;
  ASSERT_EQ(LoadAs(bytes, &f), Status::kOk);
  ASSERT_EQ(f->sub_filter_count(), 32u);
  EXPECT_EQ(Add(*f, "one more"), Status::kGrowthLimit);
  EXPECT_EQ(Serialize(*f), bytes);
  EXPECT_EQ(f->size(), (uint64_t{1} << 32) - 1);
  // (A 33rd would also need more than 2^32 - 1 bits: capacity 2^32 at any rate
  // below 1/2. So would a 32nd here; growth by doubling from capacity 1 meets
  // the bit limit no later than the sub-filter limit.)
  file.sections.pop_back();
  ASSERT_EQ(LoadAs(file.Write(), &f), Status::kOk);
  EXPECT_EQ(Add(*f, "one more"), Status::kGrowthLimit);
  EXPECT_EQ(f->sub_filter_count(), 31u);
}

TEST(ScalableBloomOutOfMemory, CreateLoadAndGrowReportEachRefusalAndLeaveNothing) {
  const ScalableBloomParams p = GrowingBloom(20, 0.05, 2, 3);
  {
    GrowingBloomPtr out = MakeGrowingBloom(GrowingBloom(5, 0.1, 2));
    const ScalableBloomFilter* sentinel = out.get();
    const size_t live = LiveAllocationsForTesting();
    size_t blocks;
    {
      ScopedAllocationPlan plan(AllowAll());
      GrowingBloomPtr f;
      ASSERT_EQ(ScalableBloomFilter::Create(p, &f), Status::kOk);
      blocks = plan.calls();
    }
    EXPECT_EQ(blocks, 3u);
    for (size_t n = 0; n < blocks; ++n) {
      ScopedAllocationPlan plan(FailAllocation(n));
      EXPECT_EQ(ScalableBloomFilter::Create(p, &out), Status::kOutOfMemory) << n;
      EXPECT_EQ(out.get(), sentinel);
      EXPECT_EQ(LiveAllocationsForTesting(), live) << n;
    }
  }
  GrowingBloomPtr grown = MakeGrowingBloom(p);
  ASSERT_NE(grown, nullptr);
  std::vector<std::string> keys;
  GrowTo(*grown, "boom-", 3, &keys);
  const Bytes bytes = Serialize(*grown);
  {
    GrowingBloomPtr out = MakeGrowingBloom(GrowingBloom(5, 0.1, 2));
    const ScalableBloomFilter* sentinel = out.get();
    const size_t live = LiveAllocationsForTesting();
    size_t blocks;
    {
      ScopedAllocationPlan plan(AllowAll());
      GrowingBloomPtr f;
      ASSERT_EQ(LoadAs(bytes, &f), Status::kOk);
      blocks = plan.calls();
    }
    EXPECT_EQ(blocks, 7u);
    for (size_t n = 0; n < blocks; ++n) {
      ScopedAllocationPlan plan(FailAllocation(n));
      EXPECT_EQ(LoadAs(bytes, &out), Status::kOutOfMemory) << n;
      EXPECT_EQ(out.get(), sentinel);
      EXPECT_EQ(LiveAllocationsForTesting(), live) << n;
    }
  }
  // The Add that grows: refused whole, then done with memory back.
  const Bytes before = Serialize(*grown);
  const size_t live = LiveAllocationsForTesting();
  // Fill the newest to its capacity: the next Add grows.
  const BloomFilter& newest = grown->sub_filter(2);
  while (newest.size() < newest.capacity()) {
    ASSERT_EQ(Add(*grown, Key("boom-", keys.size())), Status::kOk);
    keys.push_back(Key("boom-", keys.size()));
  }
  const Bytes full = Serialize(*grown);
  const size_t live_full = LiveAllocationsForTesting();
  EXPECT_EQ(live_full, live);
  (void)before;
  for (size_t n = 0; n < 2; ++n) {
    {
      ScopedAllocationPlan plan(FailAllocation(n));
      EXPECT_EQ(Add(*grown, "the grower"), Status::kOutOfMemory) << n;
    }
    EXPECT_EQ(LiveAllocationsForTesting(), live_full);
    EXPECT_EQ(Serialize(*grown), full);
  }
  ASSERT_EQ(Add(*grown, "the grower"), Status::kOk);
  EXPECT_EQ(grown->sub_filter_count(), 4u);
  EXPECT_TRUE(Contain(*grown, "the grower"));
  EXPECT_TRUE(ContainsAll(*grown, keys));
}

}  // namespace
}  // namespace cuckoo_test
