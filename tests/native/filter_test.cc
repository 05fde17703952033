// Tests of cuckoo::CuckooFilter's algorithm (src/cuckoo/cuckoo_filter.h): parameters
// and sizing, the partial-key alternate bucket, add / contain / delete / count
// and their batches against a model, and the false-positive rate.
//
// Run: ctest --test-dir build/native --output-on-failure

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "cuckoo/cuckoo_filter.h"
#include "common/hash.h"
#include "status.h"
#include "testing/packed_keys.h"
#include "test_util.h"

namespace cuckoo_test {
namespace {

// ===========================================================================
// Status messages

TEST(StatusMessage, EveryStatusHasADistinctNonEmptyMessage) {
  const Status all[] = {
      Status::kOk,
      Status::kNotFound,
      Status::kNotEnoughSpace,
      Status::kInvalidArgument,
      Status::kOutOfMemory,
      Status::kFormatTruncated,
      Status::kFormatBadMagic,
      Status::kFormatUnsupportedVersion,
      Status::kFormatBadParameter,
      Status::kFormatTrailingBytes,
      Status::kFormatChecksumMismatch,
      Status::kFormatCountMismatch,
      Status::kFormatBadVictim,
      Status::kFormatBadPadding,
  };
  const std::string unknown = cuckoo::StatusMessage(static_cast<Status>(200));
  EXPECT_FALSE(unknown.empty());
  std::map<std::string, Status> seen;
  for (Status s : all) {
    const char* msg = cuckoo::StatusMessage(s);
    ASSERT_NE(msg, nullptr) << ::testing::PrintToString(s);
    EXPECT_GT(std::strlen(msg), 0u) << ::testing::PrintToString(s);
    EXPECT_NE(msg, unknown) << ::testing::PrintToString(s) << " has no message of its own";
    const bool fresh = seen.emplace(msg, s).second;
    EXPECT_TRUE(fresh) << ::testing::PrintToString(s) << " shares its message with "
                       << ::testing::PrintToString(seen[msg]);
  }
  // Values are part of the JS/WASM boundary: never renumbered.
  EXPECT_EQ(static_cast<int>(Status::kNotEnoughSpace), 2);
  EXPECT_EQ(static_cast<int>(Status::kFormatTruncated), 10);
  EXPECT_EQ(static_cast<int>(Status::kFormatBadPadding), 18);
}

// ===========================================================================
// Create

struct InvalidCase {
  const char* what;
  CuckooParams params;
};

// Parameter sets Create must refuse with kInvalidArgument.
std::vector<InvalidCase> InvalidParams() {
  return {
      {"f = 3", Params(1000, 3, 4)},
      {"f = 33", Params(1000, 33, 4)},
      {"f = 0", Params(1000, 0, 4)},
      {"b = 0", Params(1000, 12, 0)},
      {"b = 1", Params(1000, 12, 1)},
      {"b = 3", Params(1000, 12, 3)},
      {"b = 16", Params(1000, 12, 16)},
      {"capacity 0", Params(0, 12, 4)},
      {"max_kicks > kMaxMaxKicks", Params(1000, 12, 4, cuckoo::kMaxMaxKicks + 1)},
      {"max_kicks = UINT32_MAX", Params(1000, 12, 4, UINT32_MAX)},
      // More than kMaxBucketCount buckets: refused before any allocation.
      {"capacity 2^40", Params(uint64_t{1} << 40, 12, 4)},
      {"capacity UINT64_MAX", Params(UINT64_MAX, 12, 8)},
  };
}

TEST(Create, RejectsOutOfRangeParameters) {
  for (const InvalidCase& c : InvalidParams()) {
    FilterPtr out = Make(Params(10, 8, 4));
    CuckooFilter* const sentinel = out.get();
    ASSERT_NE(sentinel, nullptr);
    EXPECT_EQ(CuckooFilter::Create(c.params, &out), Status::kInvalidArgument) << c.what;
    EXPECT_EQ(out.get(), sentinel) << c.what << ": *out changed on failure";
  }
}

TEST(Create, AcceptsBoundaryParametersAndReportsThem) {
  const CuckooParams cases[] = {
      Params(1, 4, 2, 0, 0),
      Params(123, 32, 8, cuckoo::kMaxMaxKicks, UINT64_MAX),
      Params(5000, 13, 4, 500, 42),
  };
  for (const CuckooParams& p : cases) {
    FilterPtr f = Make(p);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->capacity(), p.capacity);
    EXPECT_EQ(f->fingerprint_bits(), p.fingerprint_bits);
    EXPECT_EQ(f->bucket_size(), p.bucket_size);
    EXPECT_EQ(f->max_kicks(), p.max_kicks);
    EXPECT_EQ(f->seed(), p.seed);
    EXPECT_EQ(f->bucket_count(), CuckooFilter::BucketCountFor(p.capacity, p.bucket_size));
    EXPECT_EQ(f->slot_count(), f->bucket_count() * p.bucket_size);
    EXPECT_GE(f->slot_count(), p.capacity);
    EXPECT_EQ(f->size(), 0u);
    EXPECT_FALSE(f->victim_used());
    EXPECT_EQ(f->load_factor(), 0.0);
  }
}

TEST(Create, EmptyFilterHoldsNothing) {
  FilterPtr f = Make(Params(1000, 8, 4));
  ASSERT_NE(f, nullptr);
  const Bytes before = Serialize(*f);
  for (uint64_t i = 0; i < 2000; ++i) {
    const std::string k = Key("absent-", i);
    ASSERT_FALSE(Contain(*f, k)) << k;
    ASSERT_EQ(Count(*f, k), 0u) << k;
    ASSERT_EQ(Delete(*f, k), Status::kNotFound) << k;
  }
  EXPECT_EQ(f->size(), 0u);
  EXPECT_EQ(Serialize(*f), before) << "failed Deletes changed the filter";
  const std::string empty_key;
  EXPECT_EQ(f->Add(U8(empty_key), 0), Status::kOk) << "the empty key is a key like any other";
  EXPECT_TRUE(f->Contain(U8(empty_key), 0));
  EXPECT_EQ(f->Delete(U8(empty_key), 0), Status::kOk);
  EXPECT_EQ(Serialize(*f).size(), before.size());
}

// ===========================================================================
// Sizing: BucketCountFor, SerializedSizeFor, non-power-of-two tables

TEST(Sizing, LargeCapacitiesGetNonPowerOfTwoTablesWithinTheBitBudget) {
  const uint32_t f = 13, b = 4;
  for (uint64_t capacity : {uint64_t{1000003}, uint64_t{600000}}) {
    const uint64_t m = CuckooFilter::BucketCountFor(capacity, b);
    EXPECT_FALSE(IsPowerOfTwo(m)) << "capacity " << capacity << " -> " << m << " buckets";
    EXPECT_GE(m * b, capacity) << "fewer slots than the capacity";
    const uint64_t bytes = CuckooFilter::SerializedSizeFor(Params(capacity, f, b));
    EXPECT_EQ(bytes, format::kCuckooHeaderBytes + (m * b * f + 7) / 8 + format::kChecksumBytes);
    const double bits_per_item = 8.0 * static_cast<double>(bytes) / static_cast<double>(capacity);
    EXPECT_LE(bits_per_item, f / 0.92) << "capacity " << capacity;
    EXPECT_GE(bits_per_item, static_cast<double>(f));
  }
}

TEST(Sizing, BucketCountForCoversCapacityAndRefusesBadInput) {
  for (uint32_t b : kBucketSizes) {
    uint64_t prev = 0;
    for (uint64_t c = 1; c <= 5000; ++c) {
      const uint64_t m = CuckooFilter::BucketCountFor(c, b);
      ASSERT_GE(m * b, c) << "capacity " << c << " b " << b;
      ASSERT_GE(m, prev) << "bucket count shrank as capacity grew, capacity " << c;
      prev = m;
    }
    // Near the target load, not wildly oversized: slots <= capacity / alpha + 4 sqrt(c) + b.
    const uint64_t c = 1000000;
    const double limit = c / CuckooFilter::TargetLoadFactor(b) + 4 * std::sqrt(double(c)) + b;
    EXPECT_LE(static_cast<double>(CuckooFilter::BucketCountFor(c, b) * b), limit);
    EXPECT_EQ(CuckooFilter::BucketCountFor(0, b), 0u);
    EXPECT_EQ(CuckooFilter::BucketCountFor(uint64_t{1} << 40, b), 0u) << "beyond kMaxBucketCount";
  }
  EXPECT_EQ(CuckooFilter::BucketCountFor(100, 3), 0u);
  EXPECT_EQ(CuckooFilter::BucketCountFor(100, 16), 0u);
  EXPECT_EQ(CuckooFilter::SerializedSizeFor(Params(100, 3, 4)), 0u);
  EXPECT_EQ(CuckooFilter::SerializedSizeFor(Params(100, 33, 4)), 0u);
  EXPECT_EQ(CuckooFilter::SerializedSizeFor(Params(0, 12, 4)), 0u);
  EXPECT_EQ(CuckooFilter::SerializedSizeFor(Params(100, 12, 5)), 0u);
}

TEST(Sizing, SerializedSizeForIsZeroWhereCreateRefuses) {
  // Every parameter set Create refuses, max_kicks > kMaxMaxKicks included.
  for (const InvalidCase& c : InvalidParams()) {
    EXPECT_EQ(CuckooFilter::SerializedSizeFor(c.params), 0u) << c.what;
  }
}

TEST(Sizing, SerializedSizeForMatchesTheBytesWritten) {
  for (uint32_t b : kBucketSizes) {
    for (uint32_t f : {4u, 7u, 13u, 32u}) {
      for (uint64_t c : {uint64_t{1}, uint64_t{3}, uint64_t{97}, uint64_t{1000}}) {
        const CuckooParams p = Params(c, f, b);
        FilterPtr filter = Make(p);
        ASSERT_NE(filter, nullptr);
        const uint64_t predicted = CuckooFilter::SerializedSizeFor(p);
        EXPECT_EQ(predicted, filter->SerializedSize()) << "c " << c << " f " << f << " b " << b;
        EXPECT_EQ(predicted, Serialize(*filter).size());
      }
    }
  }
}

TEST(Sizing, CapacityOneWorks) {
  for (uint32_t b : kBucketSizes) {
    FilterPtr f = Make(Params(1, 12, b));
    ASSERT_NE(f, nullptr);
    EXPECT_GE(f->slot_count(), 1u);
    EXPECT_EQ(Add(*f, "only"), Status::kOk);
    EXPECT_TRUE(Contain(*f, "only"));
    EXPECT_EQ(f->size(), 1u);
    FilterPtr copy;
    ASSERT_EQ(Load(Serialize(*f), &copy), Status::kOk);
    EXPECT_TRUE(Contain(*copy, "only"));
    EXPECT_EQ(Delete(*f, "only"), Status::kOk);
    EXPECT_EQ(f->size(), 0u);
  }
}

// Filling a filter to its requested capacity with distinct keys always works.
class FillToCapacityTest : public ::testing::TestWithParam<uint32_t> {};

TEST_P(FillToCapacityTest, EveryCapacityHoldsThatManyDistinctKeys) {
  const uint32_t b = GetParam();
  std::vector<uint64_t> capacities;
  for (uint64_t c = 1; c <= 200; ++c) capacities.push_back(c);
  for (uint64_t c : {257, 1000, 4099, 10007, 100003}) capacities.push_back(c);
  // Three seeds per small capacity. b = 2 has the widest spread of achievable
  // load (src notes 3 failures in 104,000 runs); these seeds all succeed, and
  // 50 seeds per capacity 1..200 for each b also did when this was written.
  for (uint64_t c : capacities) {
    for (uint64_t s = 0; s < (c <= 200 ? 3 : 1); ++s) {
      FilterPtr f = Make(Params(c, 16, b, cuckoo::kDefaultMaxKicks, 7919 * c + b + s * 1000003));
      ASSERT_NE(f, nullptr);
      for (uint64_t i = 0; i < c; ++i) {
        ASSERT_EQ(Add(*f, Key("fill-", i)), Status::kOk)
            << "b " << b << " capacity " << c << " seed #" << s << ": key " << i
            << " refused at load " << f->load_factor();
      }
      ASSERT_EQ(f->size(), c);
      for (uint64_t i = 0; i < c; ++i)
        ASSERT_TRUE(Contain(*f, Key("fill-", i))) << "capacity " << c;
      EXPECT_LE(f->load_factor(), CuckooFilter::TargetLoadFactor(b) + 1e-9);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BucketSizes, FillToCapacityTest, ::testing::ValuesIn(kBucketSizes), BName);

// ===========================================================================
// Partial-key cuckoo hashing: the alternate bucket

TEST(AltIndex, IsAnInvolutionInRangeForNonPowerOfTwoBucketCounts) {
  const CuckooParams cases[] = {
      Params(10, 4, 4),     Params(100, 12, 2),  Params(1000, 13, 4),    Params(777, 7, 8),
      Params(12345, 16, 8), Params(5000, 32, 4), Params(1000003, 13, 4),
  };
  for (const CuckooParams& p : cases) {
    FilterPtr f = Make(p);
    ASSERT_NE(f, nullptr);
    const uint64_t m = f->bucket_count();
    ASSERT_FALSE(IsPowerOfTwo(m)) << "pick a capacity giving a non-power-of-two m, got " << m;
    const uint32_t max_fp = static_cast<uint32_t>((uint64_t{1} << p.fingerprint_bits) - 1);
    std::vector<uint32_t> fps = {1, 2, 3, max_fp - 1, max_fp};
    uint64_t state = 12345;
    while (fps.size() < 400)
      fps.push_back(static_cast<uint32_t>(cuckoo::SplitMix64(&state) % max_fp) + 1);
    std::vector<uint32_t> buckets;
    if (m <= 2000) {
      for (uint32_t i = 0; i < m; ++i) buckets.push_back(i);
    } else {
      buckets = {0, 1, static_cast<uint32_t>(m - 2), static_cast<uint32_t>(m - 1)};
      while (buckets.size() < 2000)
        buckets.push_back(static_cast<uint32_t>(cuckoo::SplitMix64(&state) % m));
    }
    for (uint32_t fp : fps) {
      uint32_t fixed_points = 0;
      for (uint32_t i : buckets) {
        const uint32_t j = CuckooFilterPeer::AltIndex(*f, i, fp);
        ASSERT_LT(j, m) << "AltIndex(" << i << ", " << fp << ")";
        ASSERT_EQ(CuckooFilterPeer::AltIndex(*f, j, fp), i) << "AltIndex(AltIndex(" << i << ", " << fp << ")) m " << m;
        fixed_points += j == i;
      }
      // (H - i) mod m == i has at most 2 solutions i for a given fp.
      if (buckets.size() == m) EXPECT_LE(fixed_points, 2u) << "fp " << fp << " m " << m;
    }
    // The alternate bucket really depends on the fingerprint.
    for (uint32_t i : {buckets.front(), buckets.back()}) {
      std::vector<uint32_t> alts;
      for (uint32_t fp : fps) alts.push_back(CuckooFilterPeer::AltIndex(*f, i, fp));
      std::sort(alts.begin(), alts.end());
      const size_t distinct =
          static_cast<size_t>(std::unique(alts.begin(), alts.end()) - alts.begin());
      EXPECT_GE(distinct, std::min<size_t>(m, fps.size()) / 3) << "bucket " << i << " m " << m;
    }
  }
}

// ===========================================================================
// Accuracy: no false negatives, false-positive rate within 2b / 2^f

using AccuracyParam = std::tuple<uint32_t, uint32_t>;  // (b, f)
class AccuracyTest : public ::testing::TestWithParam<AccuracyParam> {};

// Upper bound on the expected false-positive rate of a probe: k slots in its
// two buckets hold iid uniform fingerprints in [1, 2^f - 1], so
// P(match) = 1 - (1 - q)^k with q = 1 / (2^f - 1); concave in k, so at most
// 1 - (1 - q)^(2 b alpha), plus q for the victim.
double ExpectedFprBound(uint32_t b, uint32_t f, double alpha) {
  const double q = 1.0 / (std::ldexp(1.0, static_cast<int>(f)) - 1.0);
  return 1.0 - std::pow(1.0 - q, 2.0 * b * alpha) + q;
}

TEST_P(AccuracyTest, NoFalseNegativesAndBoundedFalsePositives) {
  const uint32_t b = std::get<0>(GetParam());
  const uint32_t f = std::get<1>(GetParam());
  const uint64_t n = 3000;
  const int probes = 20000;
  FilterPtr filter = Make(Params(n, f, b, 500, 1000 + f * 10 + b));
  ASSERT_NE(filter, nullptr);
  // b = 2 with f = 4 is below the paper's minimum fingerprint size (§4): with
  // only 15 fingerprints a bucket has at most 15 alternates, dense clusters end
  // kick chains early, and the filter may refuse keys well before `capacity`
  // (measured: 7 of 20 seeds refuse before 3000 keys, one at load 0.34). There
  // the test takes the keys that fit, and asks for at least a third of them.
  const bool tiny = b == 2 && f == 4;
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < n; ++i) {
    const std::string k = Key("member-", i);
    const Status s = Add(*filter, k);
    if (tiny && s == Status::kNotEnoughSpace) break;
    ASSERT_EQ(s, Status::kOk) << k;
    keys.push_back(k);
  }
  ASSERT_GE(keys.size(), tiny ? n / 3 : n);
  ASSERT_EQ(filter->size(), keys.size());
  ASSERT_TRUE(AllFound(*filter, keys));

  auto false_positive_rate = [&](const char* prefix) {
    int hits = 0;
    for (int i = 0; i < probes; ++i) hits += Contain(*filter, Key(prefix, i));
    return static_cast<double>(hits) / probes;
  };
  auto check_rate = [&](double rate, const char* what) {
    const double alpha = filter->load_factor();
    const double paper = 2.0 * b / std::ldexp(1.0, static_cast<int>(f));  // 2b / 2^f
    const double expected = ExpectedFprBound(b, f, alpha);
    const double sigma = std::sqrt(std::max(expected * (1 - expected), 1e-12) / probes);
    const double slack = 5 * sigma + 1.0 / probes;
    EXPECT_LE(rate, 1.5 * paper + slack) << what << ": paper bound 2b/2^f = " << paper;
    EXPECT_LE(rate, expected + slack) << what << ": expected at most " << expected;
    // And not suspiciously low: f bits really are f bits (k q (1-q)^(2b-1) <= P(match)).
    const double q = 1.0 / (std::ldexp(1.0, static_cast<int>(f)) - 1.0);
    const double lower = 0.9 * 2.0 * b * alpha * q * std::pow(1 - q, 2.0 * b - 1) - slack;
    if (lower > 0) EXPECT_GE(rate, lower) << what;
  };
  check_rate(false_positive_rate("stranger-"), "non-members, full");

  // Delete half; the other half stays, the deleted half behaves like non-members.
  std::vector<std::string> kept, deleted;
  for (size_t i = 0; i < keys.size(); ++i) (i % 2 ? kept : deleted).push_back(keys[i]);
  for (const auto& k : deleted) ASSERT_EQ(Delete(*filter, k), Status::kOk) << k;
  EXPECT_EQ(filter->size(), kept.size());
  EXPECT_TRUE(AllFound(*filter, kept));
  int still = 0;
  for (const auto& k : deleted) still += Contain(*filter, k);
  const double alpha = filter->load_factor();
  const double expected = ExpectedFprBound(b, f, alpha);
  const double sigma = std::sqrt(std::max(expected * (1 - expected), 1e-12) / deleted.size());
  EXPECT_LE(static_cast<double>(still) / deleted.size(),
            expected + 5 * sigma + 2.0 / deleted.size())
      << "deleted keys are still found more often than chance";
  check_rate(false_positive_rate("stranger-"), "non-members, half deleted");
}

INSTANTIATE_TEST_SUITE_P(BucketAndFingerprintSizes, AccuracyTest,
                         ::testing::Combine(::testing::ValuesIn(kBucketSizes),
                                            ::testing::Values(4u, 5u, 7u, 8u, 12u, 13u, 16u, 17u,
                                                              24u, 31u, 32u)),
                         [](const ::testing::TestParamInfo<AccuracyParam>& info) {
                           return "b" + std::to_string(std::get<0>(info.param)) + "_f" +
                                  std::to_string(std::get<1>(info.param));
                         });

// ===========================================================================
// Randomized operations against a model

class ModelTest : public ::testing::TestWithParam<uint32_t> {};

TEST_P(ModelTest, RandomAddsAndDeletesMatchTheModel) {
  const uint32_t b = GetParam();
  // f = 6: many fingerprint collisions, so Delete/Count semantics under
  // collisions are exercised; a small table, so kicks and the victim are too.
  FilterPtr f = Make(Params(60, 6, b, 50, 77 + b));
  ASSERT_NE(f, nullptr);
  std::mt19937_64 rng(4242 + b);
  std::vector<std::string> live;  // with repetitions for duplicates
  SignatureCounts model;
  uint64_t next_fresh = 0;
  int adds = 0, refused = 0, deletes = 0, not_found = 0;
  for (int op = 0; op < 3000; ++op) {
    const uint64_t r = Below(rng, 100);
    if (r < 55 || live.empty()) {
      // Add: a fresh key, or a duplicate of a live one.
      const std::string k =
          (r < 10 && !live.empty()) ? live[Below(rng, live.size())] : Key("model-", next_fresh++);
      const bool victim_was_used = f->victim_used();
      const Bytes before = Serialize(*f);
      const Status s = Add(*f, k);
      if (s == Status::kOk) {
        ++adds;
        live.push_back(k);
        ++model[KeySignature(*f, k)];
      } else {
        ++refused;
        ASSERT_EQ(s, Status::kNotEnoughSpace);
        ASSERT_TRUE(victim_was_used) << "refused while the victim was free";
        ASSERT_EQ(Serialize(*f), before);
      }
    } else if (r < 95) {
      const size_t at = Below(rng, live.size());
      const std::string k = live[at];
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(at));
      --model[KeySignature(*f, k)];
      ASSERT_EQ(Delete(*f, k), Status::kOk) << k;
      ++deletes;
    } else {
      // Delete of a key whose signature is absent: kNotFound, nothing changes.
      const std::string k = Key("never-", op);
      if (model[KeySignature(*f, k)] != 0) continue;
      const Bytes before = Serialize(*f);
      ASSERT_EQ(Delete(*f, k), Status::kNotFound) << k;
      ASSERT_EQ(Serialize(*f), before);
      ++not_found;
    }
    ASSERT_EQ(f->size(), live.size()) << "op " << op;
    ASSERT_TRUE(AllFound(*f, live)) << "op " << op;
    ASSERT_TRUE(StoresExactly(*f, model)) << "op " << op;
    for (size_t i = 0; i < live.size(); i += 7) {
      ASSERT_EQ(Count(*f, live[i]), static_cast<uint32_t>(model[KeySignature(*f, live[i])]))
          << live[i] << " op " << op;
    }
    if (op % 500 == 499) {
      FilterPtr copy;
      ASSERT_EQ(Load(Serialize(*f), &copy), Status::kOk);
      ASSERT_EQ(Serialize(*copy), Serialize(*f));
    }
  }
  // The run exercised what it is meant to.
  EXPECT_GT(adds, 1000);
  EXPECT_GT(deletes, 800);
  EXPECT_GT(refused, 0) << "the filter never filled up";
  EXPECT_GT(not_found, 0);
}

INSTANTIATE_TEST_SUITE_P(BucketSizes, ModelTest, ::testing::ValuesIn(kBucketSizes), BName);

// ===========================================================================
// Batches

TEST(Batch, AddBatchAndContainBatchMatchSingleCalls) {
  FilterPtr batched = Make(Params(300, 12, 4, 500, 8));
  FilterPtr single = Make(Params(300, 12, 4, 500, 8));
  ASSERT_NE(batched, nullptr);
  ASSERT_NE(single, nullptr);
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < 2 * batched->slot_count(); ++i) keys.push_back(Key("batch-", i));
  cuckoo::PackedKeys packed;
  for (const auto& k : keys) packed.Push(k);
  Status status = Status::kOk;
  const size_t added = batched->AddBatch(packed.data(), packed.offsets.data(), keys.size(), &status);
  EXPECT_EQ(status, Status::kNotEnoughSpace) << "more keys than slots";
  ASSERT_LT(added, keys.size());
  size_t expect_added = 0;
  while (Add(*single, keys[expect_added]) == Status::kOk) ++expect_added;
  EXPECT_EQ(added, expect_added) << "AddBatch must stop at the first refused key";
  EXPECT_EQ(Serialize(*batched), Serialize(*single));

  std::vector<uint8_t> results(keys.size(), 7);
  batched->ContainBatch(packed.data(), packed.offsets.data(), keys.size(), results.data());
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(results[i], Contain(*single, keys[i]) ? 1 : 0) << keys[i];
    if (i < added) ASSERT_EQ(results[i], 1) << keys[i];
  }

  FilterPtr fresh = Make(Params(300, 12, 4, 500, 8));
  ASSERT_NE(fresh, nullptr);
  status = Status::kNotFound;
  EXPECT_EQ(fresh->AddBatch(packed.data(), packed.offsets.data(), 100, &status), 100u);
  EXPECT_EQ(status, Status::kOk);
  EXPECT_EQ(fresh->size(), 100u);
}

}  // namespace
}  // namespace cuckoo_test
