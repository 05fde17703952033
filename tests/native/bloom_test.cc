// Tests of cuckoo::BloomFilter (src/bloom/bloom_filter.h): sizing (m and k from
// capacity and ε, against values computed apart), bit positions of both
// kinds (independent implementations of docs/FORMAT.md §11.6), no false
// negatives, the measured false-positive rate against (1 - e^(-kn/m))^k (for
// small filters at small ε too, where double hashing has a floor),
// the fill estimates, Union / IsCompatible, refused parameters, and running
// out of memory.
//
// Run: ctest --test-dir build/native -R Bloom --output-on-failure

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "alloc_probe.h"
#include "common/allocation.h"
#include "bloom/bloom_filter.h"
#include "growth_test_util.h"
#include "common/hash.h"
#include "status.h"
#include "test_util.h"

namespace cuckoo_test {
namespace {

constexpr BloomPositions kV2 = BloomPositions::kDoubleHashing;
constexpr BloomPositions kV3 = BloomPositions::kIndependent;

// The k positions of a key hash in m bits for version 2 (docs/FORMAT.md
// §11.6), written from the closed form of enhanced double hashing (Kirsch &
// Mitzenmacher): a = fastrange32(hi32(h), m), b = fastrange32(lo32(h), m),
// position i = a + i*b + (i^3 - i)/6 mod m, in 128-bit arithmetic.
std::vector<uint32_t> DoubleHashingPositions(uint64_t h, uint32_t k, uint64_t m) {
  std::vector<uint32_t> out;
  const unsigned __int128 a = ((h >> 32) * m) >> 32;
  const unsigned __int128 b = ((h & 0xffffffffULL) * m) >> 32;
  for (uint32_t i = 0; i < k; ++i) {
    const unsigned __int128 cubic = (static_cast<unsigned __int128>(i) * i * i - i) / 6;
    out.push_back(static_cast<uint32_t>((a + b * i + cubic) % m));
  }
  return out;
}

// The same for version 3, written from §11.6's text: position i is the high
// (i even) or low (i odd) 32 bits of z scaled onto [0, m) as floor(half * m /
// 2^32) (a product below 2^64), z = h for i < 2, else MurmurHash3's fmix64 of h + floor(i/2) times
// the golden-ratio constant.
std::vector<uint32_t> IndependentPositions(uint64_t h, uint32_t k, uint64_t m) {
  auto fmix64 = [](uint64_t x) {
    x = (x ^ (x >> 33)) * 0xff51afd7ed558ccdULL;
    x = (x ^ (x >> 33)) * 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
  };
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < k; ++i) {
    const uint64_t z = i < 2 ? h : fmix64(h + (i / 2) * 0x9e3779b97f4a7c15ULL);
    const uint64_t half = i % 2 == 0 ? z >> 32 : z & 0xffffffffULL;
    out.push_back(static_cast<uint32_t>(half * m / 4294967296ULL));
  }
  return out;
}

std::vector<uint32_t> SpecPositions(BloomPositions kind, uint64_t h, uint32_t k, uint64_t m) {
  return kind == kV2 ? DoubleHashingPositions(h, k, m) : IndependentPositions(h, k, m);
}

bool BitSet(const BloomFilter& f, uint64_t p) { return (f.words()[p / 64] >> (p % 64)) & 1; }

// (1 - e^(-k n / m))^k.
double TheoreticalRate(uint32_t k, uint64_t n, uint64_t m) {
  return std::pow(1 - std::exp(-static_cast<double>(k) * n / static_cast<double>(m)), k);
}

// ===========================================================================
// Sizing

TEST(BloomSizing, BitAndHashCountsFollowTheFormulas) {
  // m = ceil(-n ln ε / (ln 2)^2), k = max(1, round(m / n · ln 2)), computed by
  // a separate Python script (math.log, math.ceil, round) and pasted here.
  struct Case {
    uint64_t n;
    double rate;
    uint64_t m;
    uint32_t k;
  };
  const Case cases[] = {
      {1, 0.5, 2, 1},
      {1, 0.01, 10, 7},
      {1, 0.999, 1, 1},
      {3, 1e-9, 130, 30},
      {7, 0.3, 18, 2},
      {10, 0.1, 48, 3},
      {100, 0.01, 959, 7},
      {500, 0.05, 3118, 4},
      {1000, 0.001, 14378, 10},
      {12345, 0.0001, 236656, 13},
      {100000, 0.001, 1437759, 10},
      {1000000, 0.01, 9585059, 7},
      {1000000, 1e-6, 28755176, 20},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("n " + std::to_string(c.n) + " rate " + std::to_string(c.rate));
    EXPECT_EQ(BloomFilter::BitCountFor(Bloom(c.n, c.rate)), c.m);
    EXPECT_EQ(BloomFilter::HashCountFor(c.n, c.m), c.k);
    // And the same from the formula evaluated here in long double.
    const long double ln2 = std::log(2.0L);
    const long double m = std::ceil(-static_cast<long double>(c.n) * std::log(static_cast<long double>(c.rate)) /
                                    (ln2 * ln2));
    EXPECT_EQ(static_cast<uint64_t>(m), c.m);
    EXPECT_EQ(static_cast<uint32_t>(std::max(1.0L, std::round(m / c.n * ln2))), c.k);
    BloomPtr f = MakeBloom(Bloom(c.n, c.rate, 9));
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->bit_count(), c.m);
    EXPECT_EQ(f->hash_count(), c.k);
    EXPECT_EQ(f->capacity(), c.n);
    EXPECT_EQ(f->false_positive_rate(), c.rate);
    EXPECT_EQ(f->seed(), 9u);
    EXPECT_EQ(f->size(), 0u);
    EXPECT_EQ(f->word_bytes(), (c.m + 63) / 64 * 8);
    EXPECT_EQ(f->SetBitCount(), 0u);
  }
}

TEST(BloomSizing, HashCountIsAtLeastOneAndSaturatesPastTheLimit) {
  EXPECT_EQ(BloomFilter::HashCountFor(1000, 1), 1u);    // round(0.0007) = 0 -> 1
  EXPECT_EQ(BloomFilter::HashCountFor(0, 1000), 1u);
  EXPECT_EQ(BloomFilter::HashCountFor(1, 92), 64u);     // round(63.8)
  EXPECT_GT(BloomFilter::HashCountFor(1, 94), cuckoo::kMaxBloomHashes);  // round(65.2)
  EXPECT_EQ(BloomFilter::WordBytesFor(1), 8u);
  EXPECT_EQ(BloomFilter::WordBytesFor(64), 8u);
  EXPECT_EQ(BloomFilter::WordBytesFor(65), 16u);
}

TEST(BloomCreate, RejectsOutOfRangeParameters) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    const char* what;
    BloomParams p;
  };
  const Case cases[] = {
      {"capacity 0", Bloom(0, 0.01)},
      {"rate 0", Bloom(100, 0)},
      {"rate 1", Bloom(100, 1)},
      {"rate -0.1", Bloom(100, -0.1)},
      {"rate 1.5", Bloom(100, 1.5)},
      {"rate NaN", Bloom(100, nan)},
      {"rate inf", Bloom(100, inf)},
      {"rate -inf", Bloom(100, -inf)},
      // m = ceil(1e9 · 9.59) > 2^32 - 1 bits.
      {"m > 2^32 - 1", Bloom(1000000000, 0.01)},
      {"capacity UINT64_MAX", Bloom(UINT64_MAX, 0.5)},
      // k = round(log2(1/ε)) = 70 > 64.
      {"k > 64", Bloom(10, 1e-21)},
  };
  for (const Case& c : cases) {
    BloomPtr out = MakeBloom(Bloom(10, 0.1));
    const BloomFilter* sentinel = out.get();
    EXPECT_EQ(BloomFilter::Create(c.p, &out), Status::kInvalidArgument) << c.what;
    EXPECT_EQ(out.get(), sentinel) << c.what << ": *out changed on failure";
  }
  // The edges that are valid.
  BloomPtr f = MakeBloom(Bloom(1, 0.999));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->bit_count(), 1u);
  f = MakeBloom(Bloom(10, 1e-19));  // k = 63
  ASSERT_NE(f, nullptr);
  EXPECT_LE(f->hash_count(), cuckoo::kMaxBloomHashes);
}

// ===========================================================================
// Bits and positions

TEST(BloomBits, AKeySetsExactlyItsSpecPositions) {
  for (BloomPositions kind : {kV2, kV3}) {
    for (uint64_t m : {1, 7, 64, 65, 1000, 4097, 3000017}) {
      for (uint64_t capacity : {1, 3, 20}) {
        if (m > 5000 && capacity == 1) continue;
        // Load an empty filter of exactly m bits and k hashes (up to 64 for
        // the larger m: every pair source of §11.6).
        const uint32_t k = m > 5000 ? (capacity == 3 ? 64 : 33)
                                    : static_cast<uint32_t>(1 + (m + capacity) % 9);
        const Bytes zero(BloomFilter::WordBytesFor(m), 0);
        BloomPtr f;
        ASSERT_EQ(BloomFilter::Load(Bloom(capacity, 0.01, 5, kind), m, k, 0, zero.data(), &f),
                  Status::kOk);
        const std::string key = Key("pos-", m * 31 + capacity);
        const uint64_t h = HashOf(key, 5);
        const std::vector<uint32_t> spec = SpecPositions(kind, h, k, m);
        f->AddHash(h);
        const std::set<uint32_t> distinct(spec.begin(), spec.end());
        EXPECT_EQ(f->SetBitCount(), distinct.size()) << "m " << m << " k " << k;
        for (uint32_t p : distinct) {
          EXPECT_TRUE(BitSet(*f, p)) << "m " << m << " k " << k << " bit " << p;
        }
        EXPECT_TRUE(f->ContainHash(h));
        EXPECT_EQ(f->size(), 1u);
      }
    }
  }
}

// The library's two kinds place a key's bits differently (so a version-2
// filter must be read with version 2's positions), from the same first bit.
TEST(BloomBits, TheTwoKindsOfPositionsDiffer) {
  const uint64_t m = 100000;
  const Bytes zero(BloomFilter::WordBytesFor(m), 0);
  int same = 0;
  for (int i = 0; i < 100; ++i) {
    const uint64_t h = HashOf(Key("kind-", i), 1);
    std::vector<uint64_t> bits[2];
    int n = 0;
    for (BloomPositions kind : {kV2, kV3}) {
      BloomPtr f;
      ASSERT_EQ(BloomFilter::Load(Bloom(10, 0.01, 1, kind), m, 7, 0, zero.data(), &f), Status::kOk);
      f->AddHash(h);
      for (uint64_t p = 0; p < m; ++p) {
        if (BitSet(*f, p)) bits[n].push_back(p);
      }
      EXPECT_TRUE(BitSet(*f, (h >> 32) * m >> 32)) << "position 0 is fastrange32(hi32(h), m)";
      ++n;
    }
    same += bits[0] == bits[1];
  }
  EXPECT_EQ(same, 0);
}

// Positions is one of the two kinds.
TEST(BloomCreate, RefusesAnUnknownKindOfPositions) {
  BloomParams p = Bloom(100, 0.01);
  p.positions = static_cast<BloomPositions>(7);
  BloomPtr f;
  EXPECT_EQ(BloomFilter::Create(p, &f), Status::kInvalidArgument);
  EXPECT_EQ(f, nullptr);
  ScalableBloomParams g = GrowingBloom(100, 0.01, 2);
  g.positions = static_cast<BloomPositions>(0);
  GrowingBloomPtr s;
  EXPECT_EQ(ScalableBloomFilter::Create(g, &s), Status::kInvalidArgument);
  EXPECT_EQ(s, nullptr);
}

// Enhanced double hashing: from position 2 on, a position carries the term
// (i^3 - i)/6 mod m that plain double hashing (a + i*b) lacks. With b = 0 (a
// hash whose low half maps to 0), plain double hashing gives k copies of one
// position; enhanced gives a, a, a + 1, a + 4, a + 10, ... mod m.
TEST(BloomBits, VersionTwoPositionsCarryTheCubicTermOfEnhancedDoubleHashing) {
  const uint64_t m = 1000;
  const uint32_t k = 5;
  const Bytes zero(BloomFilter::WordBytesFor(m), 0);
  const uint64_t h = uint64_t{0x80000000} << 32;  // a = 500, b = 0
  BloomPtr f;
  ASSERT_EQ(BloomFilter::Load(Bloom(10, 0.01, 1, kV2), m, k, 0, zero.data(), &f), Status::kOk);
  f->AddHash(h);
  for (uint64_t p : {500, 501, 504, 510}) EXPECT_TRUE(BitSet(*f, p)) << p;
  EXPECT_EQ(f->SetBitCount(), 4u);
  EXPECT_EQ(DoubleHashingPositions(h, k, m), (std::vector<uint32_t>{500, 500, 501, 504, 510}));
}

// Odd and even k: lookups test the bits two at a time, so the last of an odd
// k is tested alone.
TEST(BloomBits, ContainIsTrueExactlyWhenEveryPositionIsSet) {
  const uint64_t m = 300;
  for (BloomPositions kind : {kV2, kV3}) {
    for (const uint32_t k : {1u, 2u, 3u, 6u, 7u}) {
      for (int i = 0; i < 50; ++i) {
        const uint64_t h = HashOf(Key("c-", i), 3);
        const std::vector<uint32_t> pos = SpecPositions(kind, h, k, m);
        // All k positions set (bit p = bit p % 64 of little-endian word p / 64).
        Bytes words(BloomFilter::WordBytesFor(m), 0);
        for (uint32_t p : pos) words[p / 8] |= static_cast<uint8_t>(1u << (p % 8));
        BloomPtr f;
        ASSERT_EQ(BloomFilter::Load(Bloom(10, 0.01, 3, kind), m, k, 1, words.data(), &f),
                  Status::kOk);
        EXPECT_TRUE(f->ContainHash(h)) << "k " << k << ", key " << i;
        // Any one of them clear: absent.
        for (uint32_t drop : pos) {
          Bytes fewer(BloomFilter::WordBytesFor(m), 0);
          for (uint32_t p : pos) {
            if (p != drop) fewer[p / 8] |= static_cast<uint8_t>(1u << (p % 8));
          }
          BloomPtr g;
          ASSERT_EQ(BloomFilter::Load(Bloom(10, 0.01, 3, kind), m, k, 1, fewer.data(), &g),
                    Status::kOk);
          EXPECT_FALSE(g->ContainHash(h)) << "k " << k << ", key " << i << " with bit " << drop
                                          << " clear";
        }
      }
    }
  }
}

TEST(BloomBits, BitsPastMStayClearAndSetBitCountIsThePopcount) {
  BloomPtr f = MakeBloom(Bloom(50, 0.2, 11));  // m = 168: 40 unused bits in the last word
  ASSERT_NE(f, nullptr);
  ASSERT_NE(f->bit_count() % 64, 0u);
  for (int i = 0; i < 5000; ++i) Add(*f, Key("fill-", i));
  uint64_t popcount = 0;
  for (uint64_t p = 0; p < f->word_bytes() * 8; ++p) {
    if (p >= f->bit_count()) {
      EXPECT_FALSE(BitSet(*f, p)) << "bit " << p << " past m = " << f->bit_count();
    } else {
      popcount += BitSet(*f, p);
    }
  }
  EXPECT_EQ(f->SetBitCount(), popcount);
  EXPECT_EQ(popcount, f->bit_count()) << "5000 keys in 168 bits set every bit";
  EXPECT_EQ(f->size(), 5000u);
}

// ===========================================================================
// Membership

TEST(BloomMembership, NoFalseNegatives) {
  const BloomParams shapes[] = {Bloom(1, 0.5, 1), Bloom(10, 0.1, 2), Bloom(1000, 0.01, 3),
                                Bloom(20000, 0.001, 4), Bloom(5000, 1e-6, 5)};
  for (const BloomParams& p : shapes) {
    BloomPtr f = MakeBloom(p);
    ASSERT_NE(f, nullptr);
    // Past capacity too: a Bloom filter never refuses a key.
    const uint64_t n = p.capacity * 3;
    for (uint64_t i = 0; i < n; ++i) {
      Add(*f, Key("m-", i));
      ASSERT_TRUE(Contain(*f, Key("m-", i))) << i;
    }
    EXPECT_EQ(f->size(), n);
    for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(Contain(*f, Key("m-", i))) << i;
  }
}

TEST(BloomMembership, MeasuredFalsePositiveRateAtCapacityMatchesTheory) {
  const uint64_t n = 100000;
  const uint64_t probes = 200000;
  for (double rate : {0.05, 0.01, 0.001}) {
    BloomPtr f = MakeBloom(Bloom(n, rate, 77));
    ASSERT_NE(f, nullptr);
    for (uint64_t i = 0; i < n; ++i) Add(*f, Key("member-", i));
    uint64_t hits = 0;
    for (uint64_t i = 0; i < probes; ++i) hits += Contain(*f, Key("stranger-", i));
    const double measured = static_cast<double>(hits) / probes;
    const double expected = TheoreticalRate(f->hash_count(), n, f->bit_count());
    // Binomial spread of the measurement: 5 standard deviations.
    const double sigma = std::sqrt(expected * (1 - expected) / probes);
    EXPECT_NEAR(measured, expected, 5 * sigma)
        << "rate " << rate << ": m " << f->bit_count() << " k " << f->hash_count();
    EXPECT_LE(measured, rate * 1.1 + 5 * sigma) << "rate " << rate;
    EXPECT_NEAR(f->ExpectedFalsePositiveRate(), expected, 1e-12);
    EXPECT_NEAR(expected, rate, rate * 0.1) << "the sizing gives about ε at capacity";
  }
}

// Small filters at small ε: with version 2's double hashing all k positions
// follow from one of m^2 pairs, so a non-member that draws a member's pair is
// a false positive, a floor of about n/m^2 (1.2e-5 here, 12 times ε).
// Version 3's independent positions have no such floor: the measured rate is
// the fill's, (X/m)^k for X set bits, whatever the filter's size.
TEST(BloomMembership, SmallFiltersAtSmallRatesKeepTheirRate) {
  const uint64_t n = 100;  // m = 2876, k = 20
  const int filters = 100;
  const uint64_t probes = 100000;
  for (BloomPositions kind : {kV3, kV2}) {
    uint64_t hits = 0;
    double expected = 0;  // false positives (X/m)^k predicts over all probes
    for (int t = 0; t < filters; ++t) {
      BloomPtr f = MakeBloom(Bloom(n, 1e-6, 1000 + t, kind));
      ASSERT_NE(f, nullptr);
      for (uint64_t i = 0; i < n; ++i) Add(*f, Key("small-", i));
      const double fill = static_cast<double>(f->SetBitCount()) / f->bit_count();
      expected += std::pow(fill, f->hash_count()) * probes;
      for (uint64_t i = 0; i < probes; ++i) hits += Contain(*f, Key("other-", i));
    }
    // About 10 expected: a Poisson count stays below 10 + 6 sigma + 5.
    const double limit = expected + 6 * std::sqrt(expected) + 5;
    if (kind == kV3) {
      EXPECT_LE(static_cast<double>(hits), limit) << "expected " << expected;
    } else {
      EXPECT_GT(static_cast<double>(hits), 4 * limit) << "the floor this test would catch";
    }
  }
}

TEST(BloomMembership, ExpectedRateAndEstimatedCountTrackTheFill) {
  BloomPtr f = MakeBloom(Bloom(50000, 0.01, 8));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->ExpectedFalsePositiveRate(), 0.0);
  EXPECT_EQ(f->EstimatedCount(), 0.0);
  uint64_t added = 0;
  for (uint64_t target : {500, 5000, 25000, 50000, 100000}) {
    for (; added < target; ++added) Add(*f, Key("est-", added));
    EXPECT_NEAR(f->EstimatedCount(), static_cast<double>(target), 0.03 * target) << target;
    EXPECT_NEAR(f->ExpectedFalsePositiveRate(),
                TheoreticalRate(f->hash_count(), target, f->bit_count()), 1e-12);
    // The estimate is -(m/k) ln(1 - X/m) of the set bits X.
    const double m = static_cast<double>(f->bit_count());
    const double estimate = -(m / f->hash_count()) * std::log(1 - f->SetBitCount() / m);
    EXPECT_NEAR(f->EstimatedCount(), estimate, 1e-9 * estimate);
  }
  // Every bit set: infinitely many keys.
  BloomPtr tiny = MakeBloom(Bloom(1, 0.5, 8));
  ASSERT_NE(tiny, nullptr);
  for (int i = 0; tiny->SetBitCount() < tiny->bit_count() && i < 1000; ++i) Add(*tiny, Key("t", i));
  ASSERT_EQ(tiny->SetBitCount(), tiny->bit_count());
  EXPECT_TRUE(std::isinf(tiny->EstimatedCount()));
  EXPECT_DOUBLE_EQ(tiny->ExpectedFalsePositiveRate(),
                   TheoreticalRate(tiny->hash_count(), tiny->size(), tiny->bit_count()));
}

// ===========================================================================
// Union and compatibility

TEST(BloomUnion, IsTheFilterOfBothKeySets) {
  const BloomParams p = Bloom(3000, 0.01, 21);
  BloomPtr a = MakeBloom(p);
  BloomPtr b = MakeBloom(p);
  BloomPtr both = MakeBloom(p);
  ASSERT_TRUE(a && b && both);
  for (int i = 0; i < 2000; ++i) {
    Add(*a, Key("a-", i));
    Add(*both, Key("a-", i));
  }
  for (int i = 0; i < 1500; ++i) {
    Add(*b, Key("b-", i));
    Add(*both, Key("b-", i));
  }
  ASSERT_TRUE(a->IsCompatible(*b));
  ASSERT_EQ(a->Union(*b), Status::kOk);
  EXPECT_EQ(a->size(), 3500u);
  const size_t words = a->word_bytes() / 8;
  for (size_t w = 0; w < words; ++w) ASSERT_EQ(a->words()[w], both->words()[w]) << "word " << w;
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(Contain(*a, Key("a-", i)));
  for (int i = 0; i < 1500; ++i) ASSERT_TRUE(Contain(*a, Key("b-", i)));
  // b is unchanged; a union with itself changes only the count.
  EXPECT_EQ(b->size(), 1500u);
  const uint64_t set = a->SetBitCount();
  ASSERT_EQ(a->Union(*a), Status::kOk);
  EXPECT_EQ(a->SetBitCount(), set);
  EXPECT_EQ(a->size(), 7000u);
}

TEST(BloomUnion, RefusesIncompatibleFiltersAndChangesNothing) {
  BloomPtr base = MakeBloom(Bloom(1000, 0.01, 1));
  ASSERT_NE(base, nullptr);
  for (int i = 0; i < 100; ++i) Add(*base, Key("u-", i));
  // Every one of the m bits set (none past m).
  Bytes ones(BloomFilter::WordBytesFor(base->bit_count()), 0);
  for (uint64_t p = 0; p < base->bit_count(); ++p) ones[p / 8] |= static_cast<uint8_t>(1u << (p % 8));
  BloomPtr other_m = MakeBloom(Bloom(1001, 0.01, 1));      // m differs
  BloomPtr other_seed = MakeBloom(Bloom(1000, 0.01, 2));   // seed differs
  BloomPtr other_k;                                        // same m, k + 1
  ASSERT_EQ(BloomFilter::Load(Bloom(1000, 0.01, 1), base->bit_count(), base->hash_count() + 1, 0,
                              ones.data(), &other_k),
            Status::kOk);
  BloomPtr same;  // same m, k, seed; another capacity and rate: compatible
  ASSERT_EQ(BloomFilter::Load(Bloom(7, 0.3, 1), base->bit_count(), base->hash_count(), 0,
                              ones.data(), &same),
            Status::kOk);
  ASSERT_TRUE(other_m && other_seed);
  ASSERT_NE(other_m->bit_count(), base->bit_count());
  ASSERT_EQ(other_m->hash_count(), base->hash_count());
  for (const BloomFilter* other : {other_m.get(), other_seed.get(), other_k.get()}) {
    EXPECT_FALSE(base->IsCompatible(*other));
    EXPECT_FALSE(other->IsCompatible(*base));
    const uint64_t set = base->SetBitCount();
    EXPECT_EQ(base->Union(*other), Status::kInvalidArgument);
    EXPECT_EQ(base->SetBitCount(), set);
    EXPECT_EQ(base->size(), 100u);
  }
  EXPECT_TRUE(base->IsCompatible(*same));
  ASSERT_EQ(base->Union(*same), Status::kOk);
  EXPECT_EQ(base->SetBitCount(), base->bit_count());
}

TEST(BloomUnion, CountSaturates) {
  const Bytes zeros(8, 0);
  BloomPtr a;
  BloomPtr b;
  ASSERT_EQ(BloomFilter::Load(Bloom(1, 0.1, 1), 10, 2, UINT64_MAX - 5, zeros.data(), &a), Status::kOk);
  ASSERT_EQ(BloomFilter::Load(Bloom(1, 0.1, 1), 10, 2, 10, zeros.data(), &b), Status::kOk);
  ASSERT_EQ(a->Union(*b), Status::kOk);
  EXPECT_EQ(a->size(), UINT64_MAX);
}

// ===========================================================================
// Out of memory (src/common/allocation.h): Create and Load make two blocks, the
// filter and its bits; refusing either gives kOutOfMemory and leaves nothing.

TEST(BloomOutOfMemory, CreateAndLoadReportEachRefusedAllocationAndLeaveNothing) {
  const BloomParams p = Bloom(5000, 0.01, 3);
  BloomPtr source = MakeBloom(p);
  ASSERT_NE(source, nullptr);
  for (int i = 0; i < 100; ++i) Add(*source, Key("oom-", i));
  const uint8_t* words = reinterpret_cast<const uint8_t*>(source->words());
  BloomPtr out = MakeBloom(Bloom(10, 0.1, 1));
  const BloomFilter* sentinel = out.get();
  const size_t live = cuckoo::internal::LiveAllocationsForTesting();
  {
    ScopedAllocationPlan plan(AllowAll());
    BloomPtr f;
    ASSERT_EQ(BloomFilter::Create(p, &f), Status::kOk);
    EXPECT_EQ(plan.calls(), 2u) << "the filter and its bits";
  }
  EXPECT_EQ(cuckoo::internal::LiveAllocationsForTesting(), live);
  for (size_t n = 0; n < 2; ++n) {
    SCOPED_TRACE("refused allocation " + std::to_string(n));
    {
      ScopedAllocationPlan plan(FailAllocation(n));
      EXPECT_EQ(BloomFilter::Create(p, &out), Status::kOutOfMemory);
      EXPECT_EQ(plan.refused(), 1u);
    }
    EXPECT_EQ(cuckoo::internal::LiveAllocationsForTesting(), live) << "Create leaked";
    EXPECT_EQ(out.get(), sentinel);
    {
      ScopedAllocationPlan plan(FailAllocation(n));
      EXPECT_EQ(BloomFilter::Load(p, source->bit_count(), source->hash_count(), 100, words, &out),
                Status::kOutOfMemory);
    }
    EXPECT_EQ(cuckoo::internal::LiveAllocationsForTesting(), live) << "Load leaked";
    EXPECT_EQ(out.get(), sentinel);
  }
  // A large bit array refused; the filter still works and memory comes back.
  {
    ScopedAllocationPlan plan(FailAbove(1 << 20));
    EXPECT_EQ(BloomFilter::Create(Bloom(10000000, 0.01), &out), Status::kOutOfMemory);
    EXPECT_EQ(out.get(), sentinel);
    Add(*source, "during");
    EXPECT_TRUE(Contain(*source, "during"));
  }
  EXPECT_EQ(cuckoo::internal::LiveAllocationsForTesting(), live);
  ASSERT_EQ(BloomFilter::Load(p, source->bit_count(), source->hash_count(), 100, words, &out),
            Status::kOk);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(Contain(*out, Key("oom-", i)));
}

TEST(BloomOutOfMemory, TheFilterNeverCallsOperatorNew) {
  const Bytes copy(BloomFilter::WordBytesFor(1000), 0);
  const alloc_probe::Seen seen = alloc_probe::During([&] {
    BloomPtr f;
    if (BloomFilter::Create(Bloom(100, 0.01), &f) != Status::kOk) return;
    f->AddHash(1);
    f->ContainHash(2);
    BloomPtr g;
    if (BloomFilter::Load(Bloom(100, 0.01), 1000, 3, 0, copy.data(), &g) != Status::kOk) return;
    f.reset();
    g.reset();
  });
  EXPECT_EQ(seen.core_blocks, 4u) << "two filters, two blocks each";
  EXPECT_EQ(seen.Foreign(), 0u) << "allocations outside the core's allocator";
}

}  // namespace
}  // namespace cuckoo_test
