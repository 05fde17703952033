// Tests of cuckoo::SemiSortedTable (src/cuckoo/semi_sorted_table.h), the semi-sorted
// bucket array (Fan et al. 2014, §5.2), on its own: every public method
// against a model (the multiset of each bucket's four fingerprints, 0 for an
// empty slot), the prefix decode table and its ranking, the byte layout
// against an encoder written from the header comment's description, the
// validity check, and the independence of the bytes from the order of
// operations.
//
// Run: ctest --test-dir build/native -R SemiSorted --output-on-failure

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "common/allocation.h"
#include "common/hash.h"
#include "cuckoo/semi_sorted_table.h"

namespace cuckoo_test {
namespace {

using cuckoo::SemiSortedTable;
using Model = std::vector<std::multiset<uint32_t>>;  // per bucket: 4 values, 0 = empty

constexpr uint32_t kRequiredBits[] = {4, 5, 8, 12, 13, 16, 31, 32};

uint64_t Next(uint64_t* state) { return cuckoo::SplitMix64(state); }

// C(n, k) by the multiplicative formula, independent of semi_sorted::Rank.
uint32_t Binomial(uint32_t n, uint32_t k) {
  if (k > n) return 0;
  uint64_t r = 1;
  for (uint32_t i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return static_cast<uint32_t>(r);
}

// The stream the header comment describes, built bit by bit from a model.
std::vector<uint8_t> SpecBytes(const Model& model, uint32_t f) {
  const uint32_t g = f - 4;
  std::vector<bool> bits;
  auto put = [&bits](uint64_t value, uint32_t width) {
    for (uint32_t i = 0; i < width; ++i) bits.push_back((value >> i) & 1);
  };
  for (const auto& bucket : model) {
    const std::vector<uint32_t> fp(bucket.begin(), bucket.end());  // ascending
    uint32_t index = 0;
    for (uint32_t k = 0; k < 4; ++k) index += Binomial((fp[k] >> g) + k, k + 1);
    put(index, 12);
    for (uint32_t k = 0; k < 4; ++k) put(fp[k] & ((uint64_t{1} << g) - 1), g);
  }
  std::vector<uint8_t> bytes((bits.size() + 7) / 8, 0);
  for (size_t k = 0; k < bits.size(); ++k) {
    if (bits[k]) bytes[k / 8] |= static_cast<uint8_t>(1u << (k % 8));
  }
  return bytes;
}

std::vector<uint8_t> Bytes(const SemiSortedTable& t) {
  return std::vector<uint8_t>(t.data(), t.data() + t.byte_length());
}

// A pool of fingerprints made of 3 prefixes x 3 low parts, so that buckets
// often hold values sharing a prefix or a low part with the query but not
// both, plus a few random ones. For f = 4 (no low part), all of 1..15.
std::vector<uint32_t> Pool(uint32_t f, uint64_t* state) {
  std::vector<uint32_t> pool;
  if (f == 4) {
    for (uint32_t v = 1; v < 16; ++v) pool.push_back(v);
    return pool;
  }
  const uint32_t g = f - 4;
  const uint64_t low_mask = (uint64_t{1} << g) - 1;
  const uint32_t prefixes[] = {0, 7, 15};
  const uint32_t lows[] = {1, static_cast<uint32_t>(low_mask), static_cast<uint32_t>(Next(state) & low_mask)};
  for (uint32_t p : prefixes)
    for (uint32_t l : lows) {
      const uint32_t v = p << g | l;
      if (v != 0) pool.push_back(v);
    }
  const uint64_t max = (uint64_t{1} << f) - 1;
  for (int i = 0; i < 3; ++i) pool.push_back(static_cast<uint32_t>(Next(state) % max) + 1);
  return pool;
}

uint32_t NthOf(const std::multiset<uint32_t>& s, uint32_t n) { return *std::next(s.begin(), n); }

void Replace(std::multiset<uint32_t>* s, uint32_t old_value, uint32_t new_value) {
  s->erase(s->find(old_value));
  s->insert(new_value);
}

// Every read-only method agrees with the model, and the bytes are those of the spec.
void ExpectMatchesModel(const SemiSortedTable& t, const Model& model, uint32_t f,
                        const std::vector<uint32_t>& pool, const char* after) {
  uint64_t occupied = 0;
  for (uint64_t i = 0; i < model.size(); ++i) {
    for (uint32_t j = 0; j < 4; ++j) {
      ASSERT_EQ(t.Read(i, j), NthOf(model[i], j)) << after << " f " << f << " bucket " << i;
    }
    for (uint32_t v : pool) {
      const auto n = static_cast<uint32_t>(model[i].count(v));
      ASSERT_EQ(t.Count(i, v), n) << after << " f " << f << " v " << v;
      ASSERT_EQ(t.Contains(i, v), n > 0) << after << " f " << f << " v " << v;
      const uint64_t other = (i * 7 + 3) % model.size();
      ASSERT_EQ(t.ContainsEither(i, other, v), n > 0 || model[other].count(v) > 0)
          << after << " f " << f << " v " << v;
    }
    occupied += 4 - model[i].count(0);
  }
  ASSERT_EQ(t.CountOccupied(), occupied) << after << " f " << f;
  ASSERT_TRUE(t.PaddingIsZero()) << after << " f " << f;
  ASSERT_EQ(Bytes(t), SpecBytes(model, f)) << after << " f " << f;
  for (size_t k = 0; k < 8; ++k) ASSERT_EQ(t.data()[t.byte_length() + k], 0) << "memory padding";
}

// ===========================================================================
// Every method against the model

void RunModel(uint32_t f, int rounds, uint64_t seed) {
  constexpr uint64_t kBuckets = 13;
  uint64_t state = seed;
  SemiSortedTable t;
  ASSERT_TRUE(t.Init(kBuckets, 4, f));
  ASSERT_EQ(t.byte_length(), SemiSortedTable::ByteLength(kBuckets, f));
  Model model(kBuckets, std::multiset<uint32_t>{0, 0, 0, 0});
  const std::vector<uint32_t> pool = Pool(f, &state);
  ExpectMatchesModel(t, model, f, pool, "Init");
  for (int round = 0; round < rounds; ++round) {
    const uint64_t i = Next(&state) % kBuckets;
    const uint32_t v = pool[Next(&state) % pool.size()];
    const uint32_t j = static_cast<uint32_t>(Next(&state) % 4);
    const char* op = "";
    switch (Next(&state) % 6) {
      case 0:
      case 1: {
        op = "Insert";
        const bool has_empty = model[i].count(0) > 0;
        ASSERT_EQ(t.Insert(i, v), has_empty) << "f " << f;
        if (has_empty) Replace(&model[i], 0, v);
        break;
      }
      case 2: {
        op = "Remove";
        const bool present = model[i].count(v) > 0;
        ASSERT_EQ(t.Remove(i, v), present) << "f " << f;
        if (present) Replace(&model[i], v, 0);
        break;
      }
      case 3: {
        op = "Swap";
        const uint32_t old_value = NthOf(model[i], j);
        ASSERT_EQ(t.Swap(i, j, v), old_value) << "f " << f;
        Replace(&model[i], old_value, v);
        break;
      }
      case 4: {
        op = "Write";
        const uint32_t w = Next(&state) % 4 == 0 ? 0 : v;  // writing 0 empties the slot
        Replace(&model[i], NthOf(model[i], j), w);
        t.Write(i, j, w);
        break;
      }
      default: {
        // The cuckoo algorithm's lookahead: read a slot, then write in its place.
        op = "Read+Write";
        ASSERT_EQ(t.Read(i, j), NthOf(model[i], j));
        Replace(&model[i], NthOf(model[i], j), v);
        t.Write(i, j, v);
        break;
      }
    }
    ExpectMatchesModel(t, model, f, pool, op);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(SemiSortedTable, EveryMethodAgreesWithAMultisetModel) {
  for (uint32_t f : kRequiredBits) {
    RunModel(f, 600, 1000 + f);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The word probe covers f = 8..15, the slot-by-slot path the others:
// every f in [4, 32], fewer operations.
TEST(SemiSortedTable, EveryFingerprintWidthAgreesWithTheModel) {
  for (uint32_t f = 4; f <= 32; ++f) {
    RunModel(f, 150, 77 * f);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// A bucket holding (P, 1) and (Q, 0), queried for (P, 0) and (Q, 1): the
// prefix of one slot and the low part of another must not make a match.
TEST(SemiSortedTable, APrefixAndALowPartFromDifferentSlotsAreNoMatch) {
  for (uint32_t f = 5; f <= 32; ++f) {
    const uint32_t g = f - 4;
    SemiSortedTable t;
    ASSERT_TRUE(t.Init(2, 4, f));
    const uint32_t a = 3u << g | 1, b = 9u << g;
    ASSERT_TRUE(t.Insert(0, a));
    ASSERT_TRUE(t.Insert(0, b));
    for (uint32_t q : {3u << g, 9u << g | 1}) {
      EXPECT_FALSE(t.Contains(0, q)) << "f " << f << " q " << q;
      EXPECT_FALSE(t.ContainsEither(0, 1, q)) << "f " << f << " q " << q;
      EXPECT_EQ(t.Count(0, q), 0u) << "f " << f << " q " << q;
    }
    EXPECT_TRUE(t.ContainsEither(1, 0, a)) << "f " << f;
    EXPECT_TRUE(t.ContainsEither(0, 1, b)) << "f " << f;
  }
}

// Eviction as the cuckoo algorithm does it: Swap into a full bucket returns
// the fingerprint at that position of the ascending order, and the bucket
// then holds the others plus the new one.
TEST(SemiSortedTable, SwapIntoAFullBucketEvictsThePositionInAscendingOrder) {
  SemiSortedTable t;
  ASSERT_TRUE(t.Init(1, 4, 12));
  for (uint32_t v : {0x900u, 0x123u, 0x901u, 0x122u}) ASSERT_TRUE(t.Insert(0, v));
  EXPECT_FALSE(t.Insert(0, 0x555));
  EXPECT_EQ(t.Swap(0, 2, 0x555), 0x900u);
  EXPECT_EQ(t.Read(0, 0), 0x122u);
  EXPECT_EQ(t.Read(0, 1), 0x123u);
  EXPECT_EQ(t.Read(0, 2), 0x555u);
  EXPECT_EQ(t.Read(0, 3), 0x901u);
  EXPECT_EQ(t.Swap(0, 0, 0xfff), 0x122u);
  EXPECT_EQ(t.Read(0, 3), 0xfffu);
  EXPECT_EQ(t.CountOccupied(), 4u);
}

// The worked example of the format description (docs/FORMAT.md): f = 12,
// fingerprints 0x122, 0x123, 0x900, 0x901: prefixes (1, 1, 9, 9), index 662
// = 0x296, low parts 0x22, 0x23, 0x00, 0x01.
TEST(SemiSortedTable, AKnownBucketHasTheDocumentedBytes) {
  SemiSortedTable t;
  ASSERT_TRUE(t.Init(1, 4, 12));
  for (uint32_t v : {0x901u, 0x122u, 0x900u, 0x123u}) ASSERT_TRUE(t.Insert(0, v));
  EXPECT_EQ(Bytes(t), (std::vector<uint8_t>{0x96, 0x22, 0x32, 0x02, 0x10, 0x00}));
}

// ===========================================================================
// The prefix decode table and its ranking

TEST(SemiSortedTable, DecodeTableHoldsEachSortedTupleOnceAndRanksRoundTrip) {
  namespace ss = cuckoo::semi_sorted;
  static_assert(ss::kTupleCount == 3876, "C(19, 4)");
  static_assert(sizeof(ss::kDecode.nibbles) == 3876 * 2, "3876 entries of 16 bits");
  std::set<uint16_t> seen;
  for (uint32_t r = 0; r < ss::kTupleCount; ++r) {
    const uint16_t e = ss::kDecode.nibbles[r];
    const uint32_t p0 = e & 0xf, p1 = e >> 4 & 0xf, p2 = e >> 8 & 0xf, p3 = e >> 12;
    ASSERT_TRUE(p0 <= p1 && p1 <= p2 && p2 <= p3) << "entry " << r;
    ASSERT_EQ(ss::Rank(p0, p1, p2, p3), r);
    seen.insert(e);
  }
  EXPECT_EQ(seen.size(), 3876u);
  EXPECT_EQ(ss::kDecode.nibbles[0], 0) << "index 0 is the empty bucket";
  EXPECT_EQ(ss::kDecode.nibbles[3875], 0xffff);
  // Every 4-tuple of 0..15, sorted, ranks below 3876 and back to itself; and
  // the rank is the binomial sum of the format description.
  for (uint32_t v = 0; v < 65536; ++v) {
    uint32_t p[4] = {v & 0xf, v >> 4 & 0xf, v >> 8 & 0xf, v >> 12};
    std::sort(p, p + 4);
    const uint32_t r = ss::Rank(p[0], p[1], p[2], p[3]);
    ASSERT_LT(r, 3876u);
    ASSERT_EQ(r, Binomial(p[0], 1) + Binomial(p[1] + 1, 2) + Binomial(p[2] + 2, 3) + Binomial(p[3] + 3, 4));
    ASSERT_EQ(ss::kDecode.nibbles[r], p[0] | p[1] << 4 | p[2] << 8 | p[3] << 12);
  }
}

// ===========================================================================
// Sizes, Init and memory

TEST(SemiSortedTable, ByteLengthIsBucketsTimesFourFMinusFourBits) {
  EXPECT_EQ(SemiSortedTable::ByteLength(1, 4), 2u);     // 12 bits
  EXPECT_EQ(SemiSortedTable::ByteLength(2, 4), 3u);     // 24 bits
  EXPECT_EQ(SemiSortedTable::ByteLength(1, 12), 6u);    // 44 bits
  EXPECT_EQ(SemiSortedTable::ByteLength(3, 12), 17u);   // 132 bits
  EXPECT_EQ(SemiSortedTable::ByteLength(1, 13), 6u);    // 48 bits
  EXPECT_EQ(SemiSortedTable::ByteLength(1, 32), 16u);   // 124 bits
  EXPECT_EQ(SemiSortedTable::ByteLength(uint64_t{1} << 32, 32), uint64_t{31} << 31);
  for (uint32_t f = 4; f <= 32; ++f) {
    for (uint64_t m : {1u, 2u, 7u, 1000u}) {
      SemiSortedTable t;
      ASSERT_TRUE(t.Init(m, 4, f));
      EXPECT_EQ(t.byte_length(), (m * (4 * f - 4) + 7) / 8);
      EXPECT_EQ(t.byte_length(), SemiSortedTable::ByteLength(m, f));
      EXPECT_TRUE(t.PaddingIsZero());
      EXPECT_EQ(t.CountOccupied(), 0u);
      for (uint64_t k = 0; k < t.byte_length() + 8; ++k) ASSERT_EQ(t.data()[k], 0);
    }
  }
}

TEST(SemiSortedTable, InitRefusesOtherBucketSizesAndWidthsAndShortMemory) {
  SemiSortedTable t;
  for (uint32_t b : {0u, 1u, 2u, 3u, 5u, 8u}) EXPECT_FALSE(t.Init(10, b, 12)) << "b " << b;
  EXPECT_FALSE(t.Init(10, 4, 3));
  EXPECT_FALSE(t.Init(10, 4, 33));
  EXPECT_EQ(t.data(), nullptr);
  cuckoo::internal::SetAllocationHookForTesting([](size_t) { return false; });
  const bool ok = t.Init(10, 4, 12);
  cuckoo::internal::SetAllocationHookForTesting(nullptr);
  EXPECT_FALSE(ok);
  EXPECT_EQ(t.data(), nullptr);
  ASSERT_TRUE(t.Init(10, 4, 12));
  EXPECT_NE(t.data(), nullptr);
}

TEST(SemiSortedTable, AMovedTableKeepsItsContents) {
  SemiSortedTable a;
  ASSERT_TRUE(a.Init(5, 4, 13));
  ASSERT_TRUE(a.Insert(3, 4321));
  SemiSortedTable b(std::move(a));
  EXPECT_TRUE(b.Contains(3, 4321));
  SemiSortedTable c;
  c = std::move(b);
  EXPECT_EQ(c.Count(3, 4321), 1u);
  EXPECT_EQ(c.CountOccupied(), 1u);
}

// ===========================================================================
// Validity: bytes this class could not have written are refused

// Sets bits [bit, bit + width) of the table's stream to `value`.
void SetStreamBits(SemiSortedTable* t, uint64_t bit, uint32_t width, uint64_t value) {
  for (uint32_t i = 0; i < width; ++i) {
    uint8_t& byte = t->mutable_data()[(bit + i) / 8];
    const auto mask = static_cast<uint8_t>(1u << ((bit + i) % 8));
    byte = static_cast<uint8_t>(((value >> i) & 1) ? byte | mask : byte & ~mask);
  }
}

TEST(SemiSortedTable, ValidityCheckRefusesIndexesBeyondTheTuples) {
  for (uint32_t f : kRequiredBits) {
    const uint64_t w = 4 * f - 4;
    for (uint64_t index : {3876u, 3877u, 4000u, 4095u}) {
      SemiSortedTable t;
      ASSERT_TRUE(t.Init(3, 4, f));
      SetStreamBits(&t, 1 * w, 12, 3875);  // (15, 15, 15, 15), low parts 0: valid
      EXPECT_TRUE(t.PaddingIsZero()) << "f " << f;
      SetStreamBits(&t, 2 * w, 12, index);
      EXPECT_FALSE(t.PaddingIsZero()) << "f " << f << " index " << index;
    }
  }
}

TEST(SemiSortedTable, ValidityCheckRefusesUnsortedLowPartsUnderEqualPrefixes) {
  for (uint32_t f : kRequiredBits) {
    if (f == 4) continue;  // no low parts
    const uint32_t g = f - 4;
    const uint64_t w = 4 * f - 4;
    SemiSortedTable t;
    ASSERT_TRUE(t.Init(2, 4, f));
    // Bucket 1: prefixes (2, 5, 5, 9) = index 2 + C(6, 2) + C(7, 3) + C(12, 4).
    SetStreamBits(&t, w, 12, 2 + 15 + 35 + 495);
    SetStreamBits(&t, w + 12 + 0 * g, g, 1);  // low parts 1, 0, 1, 0: ascending
    SetStreamBits(&t, w + 12 + 2 * g, g, 1);  // wherever prefixes are equal
    EXPECT_TRUE(t.PaddingIsZero()) << "f " << f;
    EXPECT_EQ(t.Read(1, 1), 5u << g);
    EXPECT_EQ(t.Read(1, 2), 5u << g | 1);
    SetStreamBits(&t, w + 12 + 1 * g, g, 1);  // 5|1 before 5|0: not canonical
    SetStreamBits(&t, w + 12 + 2 * g, g, 0);
    EXPECT_FALSE(t.PaddingIsZero()) << "f " << f;
    SetStreamBits(&t, w + 12 + 2 * g, g, 1);  // 5|1, 5|1: equal is ascending
    EXPECT_TRUE(t.PaddingIsZero()) << "f " << f;
  }
}

TEST(SemiSortedTable, ValidityCheckRefusesNonZeroPaddingBits) {
  SemiSortedTable t;
  ASSERT_TRUE(t.Init(3, 4, 12));  // 132 bits: 4 padding bits in byte 16
  ASSERT_TRUE(t.Insert(2, 0xabc));
  EXPECT_TRUE(t.PaddingIsZero());
  for (uint32_t bit = 132; bit < 136; ++bit) {
    t.mutable_data()[16] = static_cast<uint8_t>(t.data()[16] | 1u << (bit - 128));
    EXPECT_FALSE(t.PaddingIsZero()) << "bit " << bit;
    t.mutable_data()[16] = static_cast<uint8_t>(t.data()[16] & ~(1u << (bit - 128)));
  }
  EXPECT_TRUE(t.PaddingIsZero());
}

// A written table reloads: its bytes copied into a fresh table are accepted
// and answer the same.
TEST(SemiSortedTable, AWrittenTableIsValidAndReloads) {
  for (uint32_t f : kRequiredBits) {
    uint64_t state = f;
    constexpr uint64_t kBuckets = 101;
    SemiSortedTable t;
    ASSERT_TRUE(t.Init(kBuckets, 4, f));
    const uint64_t max = (uint64_t{1} << f) - 1;
    std::vector<std::pair<uint64_t, uint32_t>> added;
    for (int k = 0; k < 350; ++k) {
      const uint64_t i = Next(&state) % kBuckets;
      const auto v = static_cast<uint32_t>(Next(&state) % max) + 1;
      if (t.Insert(i, v)) added.emplace_back(i, v);
    }
    ASSERT_TRUE(t.PaddingIsZero()) << "f " << f;
    SemiSortedTable u;
    ASSERT_TRUE(u.Init(kBuckets, 4, f));
    std::memcpy(u.mutable_data(), t.data(), t.byte_length());
    EXPECT_TRUE(u.PaddingIsZero()) << "f " << f;
    EXPECT_EQ(u.CountOccupied(), added.size());
    for (const auto& [i, v] : added) ASSERT_TRUE(u.Contains(i, v)) << "f " << f;
  }
}

// ===========================================================================
// Determinism: the bytes depend on the multisets only

TEST(SemiSortedTable, BytesDependOnlyOnEachBucketsMultiset) {
  for (uint32_t f : kRequiredBits) {
    uint64_t state = 5 * f;
    constexpr uint64_t kBuckets = 64;
    const uint64_t max = (uint64_t{1} << f) - 1;
    const std::vector<uint32_t> pool = Pool(f, &state);
    // Per bucket 0..4 fingerprints, with repeats and shared prefixes.
    std::vector<std::vector<uint32_t>> contents(kBuckets);
    for (auto& c : contents) {
      const uint64_t n = Next(&state) % 5;
      for (uint64_t k = 0; k < n; ++k) {
        c.push_back(Next(&state) % 2 ? pool[Next(&state) % pool.size()]
                                     : static_cast<uint32_t>(Next(&state) % max) + 1);
      }
    }
    std::vector<uint8_t> first;
    for (int order = 0; order < 6; ++order) {
      SemiSortedTable t;
      ASSERT_TRUE(t.Init(kBuckets, 4, f));
      // Visit buckets in a shuffled order; insert each bucket's items in a
      // shuffled order; in odd orders, pass through a detour (insert extra
      // items, swap and remove them) first.
      std::vector<uint64_t> buckets(kBuckets);
      for (uint64_t i = 0; i < kBuckets; ++i) buckets[i] = i;
      for (uint64_t i = kBuckets - 1; i > 0; --i) std::swap(buckets[i], buckets[Next(&state) % (i + 1)]);
      for (uint64_t i : buckets) {
        std::vector<uint32_t> c = contents[i];
        for (size_t k = c.size(); k > 1; --k) std::swap(c[k - 1], c[Next(&state) % k]);
        if (order % 2 == 1) {
          const uint32_t extra = static_cast<uint32_t>(Next(&state) % max) + 1;
          ASSERT_TRUE(t.Insert(i, extra));
          for (size_t k = 0; k < c.size() && k < 3; ++k) ASSERT_TRUE(t.Insert(i, c[k]));
          if (c.size() == 4) {
            // Full with the extra and three items: swap the fourth in for the extra.
            uint32_t slot = 0;
            while (t.Read(i, slot) != extra) ++slot;
            ASSERT_EQ(t.Swap(i, slot, c[3]), extra);
          } else {
            ASSERT_TRUE(t.Remove(i, extra));
          }
        } else {
          for (uint32_t v : c) ASSERT_TRUE(t.Insert(i, v));
        }
      }
      ASSERT_TRUE(t.PaddingIsZero());
      if (order == 0) {
        first = Bytes(t);
      } else {
        ASSERT_EQ(Bytes(t), first) << "f " << f << " order " << order;
      }
    }
  }
}

}  // namespace
}  // namespace cuckoo_test
