// Tests of the cuckoo filter's sub-filter levels (src/cuckoo/cuckoo_filter.h:
// CreateLevel, SetLevel, ProbeOf, NextLevel, AltIndex at level j), the
// derivation a growing filter's sub-filter j uses (docs/FORMAT.md §11.3):
// the probes against an independent implementation of the spec, AltIndex as
// an involution in range, and the refinement property the growing filter's
// Delete relies on: two keys whose level-j probes are equal have equal
// level-(j-1) probes.
//
// Run: ctest --test-dir build/native -R CuckooLevel --output-on-failure

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "cuckoo/cuckoo_filter.h"
#include "growth_test_util.h"
#include "common/hash.h"
#include "status.h"
#include "test_util.h"

namespace cuckoo_test {
namespace {

using Probe = cuckoo::Probe;

// ---------------------------------------------------------------------------
// The spec (docs/FORMAT.md §5.2 and §11.3), written here apart from the core.

uint32_t FastRange(uint32_t x, uint32_t n) {
  return static_cast<uint32_t>((static_cast<uint64_t>(x) * n) >> 32);
}

uint32_t SpecBaseAlt(uint32_t i, uint32_t fp, uint32_t m) {
  const uint32_t h = FastRange(static_cast<uint32_t>(cuckoo::Mix64(fp) & 0xffffffffu), m);
  return static_cast<uint32_t>((uint64_t{h} + m - i) % m);
}

uint32_t SpecDigit(uint32_t fp, uint32_t e) {  // G(fp)
  return FastRange(static_cast<uint32_t>(cuckoo::Mix64(fp) >> 32), e);
}

Probe SpecBase(uint64_t h, uint32_t f0, uint32_t m0) {
  Probe p;
  const uint32_t range = static_cast<uint32_t>((uint64_t{1} << f0) - 1);  // 2^f0 - 1
  p.fingerprint = FastRange(static_cast<uint32_t>(h >> 32), range) + 1;
  p.i1 = FastRange(static_cast<uint32_t>(h), m0);
  p.i2 = SpecBaseAlt(p.i1, p.fingerprint, m0);
  return p;
}

Probe SpecNext(const Probe& p, uint64_t h, uint32_t level, uint32_t e) {
  const uint64_t x = cuckoo::Mix64(h + uint64_t{level} * 0x9e3779b97f4a7c15ULL);
  const uint32_t d = FastRange(static_cast<uint32_t>(x), e);
  Probe q;
  q.fingerprint = 2 * p.fingerprint + static_cast<uint32_t>(x >> 63);
  const uint32_t g = SpecDigit(q.fingerprint, e);
  q.i1 = e * p.i1 + d;
  q.i2 = e * p.i2 + (g + e - d) % e;
  return q;
}

// Alt at level j, recursively: e * Alt_{j-1}(i / e, fp >> 1) + (G(fp) - i mod e) mod e.
uint32_t SpecAlt(uint32_t i, uint32_t fp, uint32_t level, uint32_t e, uint32_t m0) {
  if (level == 0) return SpecBaseAlt(i, fp, m0);
  const uint32_t d = i % e;
  return e * SpecAlt(i / e, fp >> 1, level - 1, e, m0) + (SpecDigit(fp, e) + e - d) % e;
}

bool SameProbe(const Probe& a, const Probe& b) {
  return a.fingerprint == b.fingerprint && a.i1 == b.i1 && a.i2 == b.i2;
}

// (fingerprint, lower bucket, upper bucket): a probe as the set it matches.
std::tuple<uint32_t, uint32_t, uint32_t> AsSet(const Probe& p) {
  return {p.fingerprint, std::min(p.i1, p.i2), std::max(p.i1, p.i2)};
}

// AsSet packed as fingerprint << 42 | lower << 21 | upper (buckets < 2^21 here).
uint64_t Packed(const Probe& p) {
  return uint64_t{p.fingerprint} << 42 | uint64_t{std::min(p.i1, p.i2)} << 21 | std::max(p.i1, p.i2);
}

FilterPtr MakeLevel(const CuckooParams& base, uint64_t m0, uint32_t e, uint32_t level) {
  FilterPtr f;
  const Status s = CuckooFilterPeer::CreateLevel(base, m0, e, level, &f);
  EXPECT_EQ(s, Status::kOk) << "m0 " << m0 << " e " << e << " level " << level;
  return s == Status::kOk ? std::move(f) : nullptr;
}

uint64_t Power(uint64_t e, uint32_t j) {
  uint64_t r = 1;
  for (uint32_t i = 0; i < j; ++i) r *= e;
  return r;
}

// ===========================================================================

TEST(CuckooLevel, CreateLevelScalesBucketsCapacityAndFingerprintBits) {
  const CuckooParams base = Params(100, 9, 4, 321, 0xabcdef);
  const uint64_t m0 = CuckooFilter::BucketCountFor(100, 4);
  for (uint32_t e : {2u, 3u, 4u, 10u}) {
    for (uint32_t j = 1; j <= 4; ++j) {
      FilterPtr f = MakeLevel(base, m0, e, j);
      ASSERT_NE(f, nullptr);
      EXPECT_EQ(CuckooFilterPeer::level(*f), j);
      EXPECT_EQ(CuckooFilterPeer::expansion(*f), e);
      EXPECT_EQ(CuckooFilterPeer::base_bucket_count(*f), m0);
      EXPECT_EQ(f->bucket_count(), m0 * Power(e, j));
      EXPECT_EQ(f->capacity(), 100 * Power(e, j));
      EXPECT_EQ(f->fingerprint_bits(), 9 + j);
      EXPECT_EQ(f->bucket_size(), 4u);
      EXPECT_EQ(f->max_kicks(), 321u);
      EXPECT_EQ(f->seed(), 0xabcdefu);
      EXPECT_EQ(f->size(), 0u);
    }
  }
  // A plain filter is level 0.
  FilterPtr plain = Make(base);
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(CuckooFilterPeer::level(*plain), 0u);
  EXPECT_EQ(CuckooFilterPeer::expansion(*plain), 0u);
  EXPECT_EQ(CuckooFilterPeer::base_bucket_count(*plain), plain->bucket_count());
}

TEST(CuckooLevel, CreateLevelRefusesLevelsThatCannotExist) {
  const CuckooParams base = Params(100, 30, 4);
  FilterPtr out = Make(Params(5, 8, 2));
  const CuckooFilter* sentinel = out.get();
  struct Case {
    const char* what;
    CuckooParams base;
    uint64_t m0;
    uint32_t e, level;
  };
  const Case cases[] = {
      {"level 0", base, 10, 2, 0},
      {"expansion 0", base, 10, 0, 1},
      {"expansion 1", base, 10, 1, 1},
      {"f0 + level = 33", base, 10, 2, 3},
      {"f0 = 3", Params(100, 3, 4), 10, 2, 1},
      {"b = 3", Params(100, 12, 3), 10, 2, 1},
      {"m0 = 0", base, 0, 2, 1},
      {"m > 2^32 - 1", Params(100, 8, 4), uint64_t{1} << 22, 1024, 1},
      {"m > 2^32 - 1 at level 2", Params(100, 8, 4), 5000, 1000, 2},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(CuckooFilterPeer::CreateLevel(c.base, c.m0, c.e, c.level, &out), Status::kInvalidArgument)
        << c.what;
    EXPECT_EQ(out.get(), sentinel) << c.what;
  }
  // The largest that exist: f reaching 32, and m = 2^32 - 1 buckets (not made: 16 GiB).
  FilterPtr f = MakeLevel(base, 10, 2, 2);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->fingerprint_bits(), 32u);
}

TEST(CuckooLevel, AltIndexIsAnInvolutionInRangeAndFollowsTheSpec) {
  std::mt19937_64 rng(11);
  for (uint32_t e : {2u, 3u, 4u, 10u}) {
    for (uint32_t m0 : {1u, 3u, 7u}) {
      const uint32_t f0 = 5;
      const CuckooParams base = Params(1, f0, 2);
      const uint32_t levels = e == 10 ? 4 : 6;
      for (uint32_t j = 1; j <= levels; ++j) {
        FilterPtr f = MakeLevel(base, m0, e, j);
        ASSERT_NE(f, nullptr);
        const uint32_t m = static_cast<uint32_t>(f->bucket_count());
        const uint32_t fp_max = (uint32_t{1} << (f0 + j)) - 1;
        // Every (bucket, fingerprint) when there are few, else 20,000 at random.
        const bool exhaustive = uint64_t{m} * fp_max <= 200000;
        const uint64_t n = exhaustive ? uint64_t{m} * fp_max : 20000;
        for (uint64_t t = 0; t < n; ++t) {
          const uint32_t i = exhaustive ? static_cast<uint32_t>(t % m) : static_cast<uint32_t>(Below(rng, m));
          const uint32_t fp = exhaustive ? static_cast<uint32_t>(t / m) + 1
                                         : static_cast<uint32_t>(Below(rng, fp_max)) + 1;
          const uint32_t alt = CuckooFilterPeer::AltIndex(*f, i, fp);
          ASSERT_LT(alt, m) << "e " << e << " m0 " << m0 << " level " << j;
          ASSERT_EQ(CuckooFilterPeer::AltIndex(*f, alt, fp), i) << "e " << e << " m0 " << m0 << " level " << j
                                             << " bucket " << i << " fp " << fp;
          ASSERT_EQ(alt, SpecAlt(i, fp, j, e, m0)) << "e " << e << " level " << j;
        }
      }
    }
  }
}

TEST(CuckooLevel, ProbeOfIsNextLevelAppliedLevelTimes) {
  std::mt19937_64 rng(12);
  for (uint32_t e : {2u, 3u, 4u, 10u}) {
    const uint32_t f0 = 8;
    const CuckooParams base = Params(50, f0, 4, 500, 99);
    const uint32_t m0 = static_cast<uint32_t>(CuckooFilter::BucketCountFor(50, 4));
    FilterPtr level0 = Make(base);
    ASSERT_NE(level0, nullptr);
    std::vector<FilterPtr> levels;
    for (uint32_t j = 1; j <= 4; ++j) levels.push_back(MakeLevel(base, m0, e, j));
    for (int t = 0; t < 5000; ++t) {
      const uint64_t h = rng();
      Probe p = CuckooFilterPeer::ProbeOf(*level0, h);
      Probe spec = SpecBase(h, f0, m0);
      ASSERT_TRUE(SameProbe(p, spec)) << "level 0, hash " << h;
      const Probe p0 = p;
      for (uint32_t j = 1; j <= 4; ++j) {
        const CuckooFilter& f = *levels[j - 1];
        p = CuckooFilterPeer::NextLevel(p, h, j, e);
        spec = SpecNext(spec, h, j, e);
        const Probe direct = CuckooFilterPeer::ProbeOf(f, h);
        ASSERT_TRUE(SameProbe(direct, p)) << "e " << e << " level " << j;
        ASSERT_TRUE(SameProbe(direct, spec)) << "e " << e << " level " << j;
        ASSERT_EQ(CuckooFilterPeer::AltIndex(f, direct.i1, direct.fingerprint), direct.i2) << "e " << e << " level " << j;
        ASSERT_LT(direct.i1, f.bucket_count());
        ASSERT_LT(direct.i2, f.bucket_count());
        // One more fingerprint bit, and the level-0 parts as a prefix.
        ASSERT_GE(direct.fingerprint, uint32_t{1} << j);
        ASSERT_LE(direct.fingerprint, (uint32_t{1} << (f0 + j)) - 1);
        ASSERT_EQ(direct.fingerprint >> j, p0.fingerprint);
        ASSERT_EQ(direct.i1 / Power(e, j), p0.i1);
        ASSERT_EQ(direct.i2 / Power(e, j), p0.i2);
      }
    }
  }
}

// The property ScalableCuckooFilter::Delete needs (scalable_filter.h): if two
// hashes' probes at level j are equal as (fingerprint, {i1, i2}), their probes
// at level j - 1 are equal too. Tiny parameters (f0 = 4, 2 or 3 buckets at
// level 0) make equal probes frequent, so the check is not vacuous.
TEST(CuckooLevel, EqualProbesAtALevelAreEqualAtTheLevelBelow) {
  for (uint32_t e : {2u, 3u, 4u, 10u}) {
    for (uint32_t m0 : {2u, 3u}) {
      const uint32_t f0 = 4;
      const uint32_t top = e == 10 ? 3 : 4;
      std::mt19937_64 rng(1000 + e * 10 + m0);
      // For each level j >= 1: level-j probe (as a set, packed in 64 bits) ->
      // the level-(j-1) probe first seen with it.
      std::vector<std::unordered_map<uint64_t, uint64_t>> seen(top + 1);
      for (auto& map : seen) map.reserve(200000);
      std::vector<uint64_t> equal_pairs(top + 1, 0);
      for (int t = 0; t < 100000; ++t) {
        const uint64_t h = rng();
        Probe below = SpecBase(h, f0, m0);
        for (uint32_t j = 1; j <= top; ++j) {
          const Probe p = CuckooFilterPeer::NextLevel(below, h, j, e);
          const uint64_t key = Packed(p);
          const uint64_t lower = Packed(below);
          const auto inserted = seen[j].emplace(key, lower);
          if (!inserted.second) {
            ++equal_pairs[j];
            ASSERT_EQ(inserted.first->second, lower)
                << "e " << e << " m0 " << m0 << ": equal probes at level " << j
                << " (fp " << p.fingerprint << ", buckets " << p.i1 << ", " << p.i2
                << ") but not at level " << j - 1;
          }
          below = p;
        }
      }
      for (uint32_t j = 1; j <= top; ++j) {
        EXPECT_GT(equal_pairs[j], 1000u) << "e " << e << " m0 " << m0 << " level " << j
                                         << ": too few equal probes for the check to mean much";
      }
    }
  }
}

TEST(CuckooLevel, ALevelFilterStoresEachKeyInOneOfItsBucketsAndLosesNone) {
  for (uint32_t e : {2u, 3u}) {
    for (uint32_t b : kBucketSizes) {
      const CuckooParams base = Params(20, 6, b, 100, 5);
      const uint64_t m0 = CuckooFilter::BucketCountFor(20, b);
      FilterPtr f = MakeLevel(base, m0, e, 2);
      ASSERT_NE(f, nullptr);
      std::string failed;
      const std::vector<std::string> added = FillUntilFull(*f, "lv-", 100000, &failed);
      ASSERT_FALSE(failed.empty()) << "never filled";
      EXPECT_GT(f->load_factor(), 0.5);
      EXPECT_TRUE(f->victim_used());
      EXPECT_TRUE(AllFound(*f, added));
      SignatureCounts model;
      for (const std::string& k : added) ++model[KeySignature(*f, k)];
      EXPECT_TRUE(StoresExactly(*f, model)) << "e " << e << " b " << b;
      // Delete half; the rest are all still found.
      for (size_t i = 0; i < added.size(); i += 2) {
        ASSERT_EQ(Delete(*f, added[i]), Status::kOk) << added[i];
        --model[KeySignature(*f, added[i])];
      }
      for (size_t i = 1; i < added.size(); i += 2) ASSERT_TRUE(Contain(*f, added[i])) << added[i];
      EXPECT_TRUE(StoresExactly(*f, model)) << "e " << e << " b " << b;
    }
  }
}

TEST(CuckooLevel, SetLevelMakesALoadedFilterTheLevelItWas) {
  const CuckooParams base = Params(30, 7, 4, 500, 8);
  const uint64_t m0 = CuckooFilter::BucketCountFor(30, 4);
  for (uint32_t j = 1; j <= 3; ++j) {
    FilterPtr f = MakeLevel(base, m0, 3, j);
    ASSERT_NE(f, nullptr);
    const int n = static_cast<int>(f->capacity() * 9 / 10);
    for (int i = 0; i < n; ++i) ASSERT_EQ(Add(*f, Key("sl-", i)), Status::kOk);
    const Bytes bytes = Serialize(*f);
    FilterPtr g;
    ASSERT_EQ(Load(bytes, &g), Status::kOk);
    EXPECT_EQ(CuckooFilterPeer::level(*g), 0u) << "a version-1 file is level 0";
    CuckooFilterPeer::SetLevel(*g, j, 3, static_cast<uint32_t>(m0));
    EXPECT_EQ(CuckooFilterPeer::level(*g), j);
    std::mt19937_64 rng(j);
    for (int t = 0; t < 2000; ++t) {
      const uint64_t h = rng();
      ASSERT_TRUE(SameProbe(CuckooFilterPeer::ProbeOf(*f, h), CuckooFilterPeer::ProbeOf(*g, h)));
      const uint32_t i = static_cast<uint32_t>(Below(rng, f->bucket_count()));
      const uint32_t fp = static_cast<uint32_t>(Below(rng, (1u << (7 + j)) - 1)) + 1;
      ASSERT_EQ(CuckooFilterPeer::AltIndex(*f, i, fp), CuckooFilterPeer::AltIndex(*g, i, fp));
    }
    for (int i = 0; i < n; ++i) ASSERT_TRUE(Contain(*g, Key("sl-", i)));
    for (int i = n; i < n + 60; ++i) {
      ASSERT_EQ(Add(*f, Key("sl-", i)), Add(*g, Key("sl-", i)));
    }
    EXPECT_EQ(Serialize(*f), Serialize(*g));
  }
}

}  // namespace
}  // namespace cuckoo_test
