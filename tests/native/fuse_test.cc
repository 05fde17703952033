// Tests of the binary fuse filter (src/fuse/: BinaryFuseFilter, its
// version-4 file, its layout), each a property that can fail:
//   - no false negative over random key sets (random lengths and bytes,
//     duplicates included) of 0 to 10^6 keys, both arities, f from 8 to 16;
//     size() is the number of distinct keys;
//   - the false-positive rate over millions of non-members is 2^-f;
//   - the same keys in any order, with or without duplicates, give the same
//     bytes; another seed gives other bytes;
//   - FuseLn against std::log, FuseLayoutFor against the paper's formulas
//     computed with std::log;
//   - Serialize -> Deserialize -> Serialize gives the same bytes and a filter
//     that answers as the one built;
//   - every header field of the file set out of range is refused with the
//     status fuse_format.h and format.h document (checksum recomputed so the
//     check behind it is reached), truncation, padding, a scheme byte that is
//     not the arity;
//   - a collecting filter's contract (binary_fuse_filter.h);
//   - each allocation refused in turn gives kOutOfMemory and leaks nothing;
//   - patches between two filters of the same shape (src/patch/patch.h);
//   - the golden files tests/golden/fuse-v4.bin and fuse3-v4.bin.
//
// Run: ctest --test-dir build/native -R Fuse --output-on-failure
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/allocation.h"
#include "common/hash.h"
#include "format/format.h"
#include "fuse/binary_fuse_filter.h"
#include "fuse/fuse_format.h"
#include "fuse/fuse_layout.h"
#include "patch/patch.h"
#include "testing/packed_keys.h"
#include "alloc_probe.h"
#include "test_util.h"

namespace cuckoo {
namespace {

using cuckoo_test::GetLE;
using cuckoo_test::PutLE;
using cuckoo_test::Reseal;
using Bytes = std::vector<uint8_t>;
using FusePtr = std::unique_ptr<BinaryFuseFilter>;
namespace field = format::fuse_field;
namespace v4 = format::v4_field;

constexpr uint32_t kArities[] = {3, 4};
// The section header's offset in a file (one section after the stack header).
constexpr size_t kSection = format::kHeaderV4Bytes;

const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

BinaryFuseParams FuseParams(uint32_t f, uint32_t arity, uint64_t seed = 42) {
  BinaryFuseParams p;
  p.fingerprint_bits = f;
  p.arity = arity;
  p.seed = seed;
  return p;
}

Bytes Save(const BinaryFuseFilter& f) {
  Bytes out(static_cast<size_t>(f.SerializedSize()));
  f.Serialize(out.data());
  return out;
}

// Deserializes from an exactly sized heap copy, so AddressSanitizer flags any
// read past the end.
Status Load(const Bytes& bytes, FusePtr* out) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[bytes.empty() ? 1 : bytes.size()]);
  if (!bytes.empty()) std::memcpy(copy.get(), bytes.data(), bytes.size());
  return BinaryFuseFilter::Deserialize(copy.get(), bytes.size(), out);
}

// Keys packed as common/batch.h describes (bytes + n + 1 offsets; data() is
// never null, also for a batch of empty keys).
using Packed = PackedKeys;

// Adds keys[0, n) to a collecting filter through AddBatch, 4096 at a time.
void AddAll(BinaryFuseFilter* collecting, const std::vector<std::string>& keys) {
  for (size_t at = 0; at < keys.size(); at += 4096) {
    Packed batch;
    for (size_t i = at; i < keys.size() && i < at + 4096; ++i) batch.Push(keys[i]);
    Status s = Status::kOk;
    ASSERT_EQ(collecting->AddBatch(batch.data(), batch.offsets.data(), batch.size(), &s),
              batch.size());
    ASSERT_EQ(s, Status::kOk);
  }
}

// The filter of `keys` made as the bindings make it: a collecting filter,
// AddBatch, then Create with `from`.
Status BuildFromKeys(const BinaryFuseParams& params, const std::vector<std::string>& keys, FusePtr* out) {
  BinaryFuseParams p = params;
  p.from = 0;
  FusePtr collecting;
  const Status s = BinaryFuseFilter::Create(p, &collecting);
  if (s != Status::kOk) return s;
  AddAll(collecting.get(), keys);
  p.from = reinterpret_cast<uintptr_t>(collecting.get());
  return BinaryFuseFilter::Create(p, out);
}

// The filter of `keys` through Build with their hashes.
Status BuildFromHashes(const BinaryFuseParams& params, const std::vector<std::string>& keys, FusePtr* out) {
  std::vector<uint64_t> hashes;
  hashes.reserve(keys.size());
  for (const std::string& k : keys) hashes.push_back(HashKey(U8(k), k.size(), params.seed));
  return BinaryFuseFilter::Build(params, hashes.data(), hashes.size(), out);
}

FusePtr MustBuild(const BinaryFuseParams& params, const std::vector<std::string>& keys) {
  FusePtr f;
  EXPECT_EQ(BuildFromKeys(params, keys, &f), Status::kOk)
      << keys.size() << " keys, f " << params.fingerprint_bits << " arity " << params.arity;
  return f;
}

std::vector<std::string> NamedKeys(const char* prefix, size_t from, size_t to) {
  std::vector<std::string> keys;
  for (size_t i = from; i < to; ++i) keys.push_back(prefix + std::to_string(i));
  return keys;
}

// n keys of random lengths (0 to 32 bytes) and bytes; about one in eight is a
// copy of an earlier key, and short keys repeat by chance as well.
std::vector<std::string> RandomKeys(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> keys;
  keys.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && rng() % 8 == 0) {
      keys.push_back(keys[rng() % i]);
      continue;
    }
    std::string k(static_cast<size_t>(rng() % 33), '\0');
    for (char& c : k) c = static_cast<char>(rng() & 0xff);
    keys.push_back(std::move(k));
  }
  return keys;
}

size_t Distinct(const std::vector<std::string>& keys) {
  return std::unordered_set<std::string>(keys.begin(), keys.end()).size();
}

// The first key of `keys` the filter does not report, if any.
::testing::AssertionResult NoFalseNegative(const BinaryFuseFilter& f, const std::vector<std::string>& keys) {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!f.Contain(U8(keys[i]), keys[i].size())) {
      return ::testing::AssertionFailure() << "key " << i << " of " << keys.size() << " (length "
                                           << keys[i].size() << ") not found";
    }
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// No false negatives.

class FuseNoFalseNegative : public ::testing::TestWithParam<size_t> {};

TEST_P(FuseNoFalseNegative, EveryKeyIsFoundAndSizeIsTheDistinctCount) {
  const size_t n = GetParam();
  const std::vector<std::string> keys = RandomKeys(n, 1000 + n);
  const size_t distinct = Distinct(keys);
  // Fewer fingerprint sizes for the largest set (each build of 10^6 keys
  // takes a second or more under AddressSanitizer).
  const std::vector<uint32_t> bits =
      n >= 1000000 ? std::vector<uint32_t>{9, 16} : std::vector<uint32_t>{8, 11, 13, 16};
  for (uint32_t arity : kArities) {
    for (uint32_t f : bits) {
      SCOPED_TRACE("n " + std::to_string(n) + " arity " + std::to_string(arity) + " f " + std::to_string(f));
      const BinaryFuseParams p = FuseParams(f, arity, 7 + f);
      FusePtr filter = MustBuild(p, keys);
      ASSERT_NE(filter, nullptr);
      EXPECT_EQ(filter->size(), distinct);
      EXPECT_FALSE(filter->collecting());
      EXPECT_EQ(filter->fingerprint_bits(), f);
      EXPECT_EQ(filter->arity(), arity);
      const FuseLayout layout = FuseLayoutFor(distinct, arity);
      EXPECT_EQ(filter->segment_length(), layout.segment_length);
      EXPECT_EQ(filter->segment_count(), layout.segment_count);
      EXPECT_EQ(filter->array_length(), layout.array_length);
      EXPECT_GE(filter->array_length(), distinct);
      EXPECT_EQ(filter->SerializedSize(), format::kHeaderV4Bytes + format::kFuseSectionHeaderBytes +
                                              FuseFingerprintBytes(layout.array_length, f) +
                                              format::kChecksumBytes);
      EXPECT_TRUE(NoFalseNegative(*filter, keys));
      // ContainBatch answers as Contain, over members and as many others.
      Packed batch;
      const size_t probes = std::min<size_t>(n, 20000);
      for (size_t i = 0; i < probes; ++i) batch.Push(keys[i]);
      for (size_t i = 0; i < probes; ++i) batch.Push("non-member-" + std::to_string(i));
      std::vector<uint8_t> results(batch.size(), 2);
      filter->ContainBatch(batch.data(), batch.offsets.data(), batch.size(), results.data());
      for (size_t i = 0; i < batch.size(); ++i) {
        ASSERT_EQ(results[i], filter->Contain(batch.key(i), batch.len(i)) ? 1 : 0) << i;
        if (i < probes) ASSERT_EQ(results[i], 1) << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, FuseNoFalseNegative,
                         ::testing::Values(0, 1, 2, 3, 4, 5, 10, 100, 1000, 10000, 100000, 1000000),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return "n" + std::to_string(info.param);
                         });

TEST(FuseEmpty, TheEmptyFilterReportsNothing) {
  for (uint32_t arity : kArities) {
    FusePtr f = MustBuild(FuseParams(8, arity), {});
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->size(), 0u);
    for (int i = 0; i < 100000; ++i) {
      const std::string k = "k" + std::to_string(i);
      ASSERT_FALSE(f->Contain(U8(k), k.size())) << k;
    }
  }
}

// ---------------------------------------------------------------------------
// False-positive rate.

// Members are 9-byte keys ('m' and a 64-bit counter), non-members 8-byte
// keys (the counter alone): no non-member is a member.
std::string MemberKey(uint64_t i) {
  std::string k(9, 'm');
  for (int b = 0; b < 8; ++b) k[1 + b] = static_cast<char>(i >> (8 * b));
  return k;
}

uint64_t CountFalsePositives(const BinaryFuseFilter& f, uint64_t probes) {
  uint64_t hits = 0;
  uint8_t key[8];
  for (uint64_t i = 0; i < probes; ++i) {
    for (int b = 0; b < 8; ++b) key[b] = static_cast<uint8_t>(i >> (8 * b));
    hits += f.Contain(key, sizeof key) ? 1 : 0;
  }
  return hits;
}

TEST(FuseFalsePositiveRate, IsTwoToTheMinusF) {
  std::vector<std::string> members;
  for (uint64_t i = 0; i < 200000; ++i) members.push_back(MemberKey(i));
  // (f, non-members, allowed relative error): at f = 8, 10^6 probes expect
  // 3906 hits (σ = 62, 10% is 6σ); at f = 12, 10^7 expect 2441 (σ = 49, 10%
  // is 5σ; 10^6 would make 10% only 1.6σ); at f = 16, 10^7 expect 153 (σ =
  // 12, 35% is 4.3σ).
  const struct {
    uint32_t f;
    uint64_t probes;
    double tolerance;
  } kCases[] = {{8, 1000000, 0.10}, {12, 10000000, 0.10}, {16, 10000000, 0.35}};
  for (uint32_t arity : kArities) {
    for (const auto& c : kCases) {
      FusePtr f = MustBuild(FuseParams(c.f, arity, 99), members);
      ASSERT_NE(f, nullptr);
      const double expected = std::ldexp(1.0, -static_cast<int>(c.f));
      EXPECT_EQ(f->false_positive_rate(), expected);
      const uint64_t hits = CountFalsePositives(*f, c.probes);
      const double rate = static_cast<double>(hits) / static_cast<double>(c.probes);
      std::printf("[ fpr      ] arity %u f %2u: %llu of %llu non-members reported, rate %.3g (2^-f = %.3g, %+.1f%%)\n",
                  arity, c.f, static_cast<unsigned long long>(hits), static_cast<unsigned long long>(c.probes),
                  rate, expected, 100 * (rate / expected - 1));
      EXPECT_NEAR(rate, expected, c.tolerance * expected) << "arity " << arity << " f " << c.f;
    }
  }
}

// ---------------------------------------------------------------------------
// Determinism.

TEST(FuseDeterminism, SameKeysInAnyOrderWithDuplicatesGiveTheSameBytes) {
  const std::vector<std::string> keys = RandomKeys(5000, 5);
  for (uint32_t arity : kArities) {
    for (uint32_t f : {8u, 13u}) {
      SCOPED_TRACE("arity " + std::to_string(arity) + " f " + std::to_string(f));
      const BinaryFuseParams p = FuseParams(f, arity, 11);
      FusePtr first = MustBuild(p, keys);
      ASSERT_NE(first, nullptr);
      const Bytes bytes = Save(*first);
      // Shuffled, each key once, each key three times, through Build.
      std::vector<std::string> shuffled = keys;
      cuckoo_test::Shuffle(&shuffled, 77);
      std::unordered_set<std::string> seen;
      std::vector<std::string> once;
      for (const std::string& k : shuffled) {
        if (seen.insert(k).second) once.push_back(k);
      }
      std::vector<std::string> thrice;
      for (int r = 0; r < 3; ++r) thrice.insert(thrice.end(), once.begin(), once.end());
      cuckoo_test::Shuffle(&thrice, 78);
      FusePtr g;
      ASSERT_EQ(BuildFromKeys(p, shuffled, &g), Status::kOk);
      EXPECT_EQ(Save(*g), bytes);
      ASSERT_EQ(BuildFromKeys(p, once, &g), Status::kOk);
      EXPECT_EQ(Save(*g), bytes);
      ASSERT_EQ(BuildFromKeys(p, thrice, &g), Status::kOk);
      EXPECT_EQ(Save(*g), bytes);
      ASSERT_EQ(BuildFromHashes(p, thrice, &g), Status::kOk);
      EXPECT_EQ(Save(*g), bytes);
      // Another seed: other bytes (the seed field, and the table).
      FusePtr other = MustBuild(FuseParams(f, arity, 12), keys);
      ASSERT_NE(other, nullptr);
      const Bytes other_bytes = Save(*other);
      ASSERT_EQ(other_bytes.size(), bytes.size());
      EXPECT_NE(other_bytes, bytes);
      const size_t table = kSection + format::kFuseSectionHeaderBytes;
      EXPECT_FALSE(std::equal(bytes.begin() + table, bytes.end() - format::kChecksumBytes,
                              other_bytes.begin() + table))
          << "another seed gave the same table";
      EXPECT_TRUE(NoFalseNegative(*other, keys));
    }
  }
}

// ---------------------------------------------------------------------------
// FuseLn and FuseLayoutFor.

TEST(FuseLayout, FuseLnIsStdLogToWithinOneIn10To14) {
  std::vector<uint64_t> xs;
  for (uint64_t x = 1; x <= 200000; ++x) xs.push_back(x);
  for (int e = 1; e < 64; ++e) {
    const uint64_t p = uint64_t{1} << e;
    xs.insert(xs.end(), {p - 1, p, p + 1, p + p / 2, p + p / 3});
  }
  xs.push_back(UINT64_MAX);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200000; ++i) xs.push_back(rng() >> (rng() % 64));
  double worst = 0;
  uint64_t worst_x = 0;
  for (uint64_t x : xs) {
    if (x == 0) continue;
    const double want = std::log(static_cast<double>(x));
    const double got = FuseLn(x);
    if (x == 1) {
      ASSERT_EQ(got, 0.0);
      continue;
    }
    const double err = std::fabs(got - want) / want;
    if (err > worst) {
      worst = err;
      worst_x = x;
    }
    ASSERT_LT(err, 1e-14) << "x " << x << ": FuseLn " << got << ", std::log " << want;
  }
  std::printf("[ ln       ] %zu values: largest relative error %.3g (x = %llu)\n", xs.size(), worst,
              static_cast<unsigned long long>(worst_x));
}

// The paper's sizes (Graf and Lemire 2022, §4, as their reference code
// computes them) with std::log and std::round, and the clamp of the segment
// length to 4 .. 2^18 that fuse_layout.h documents.
FuseLayout PaperLayout(uint64_t n, uint32_t arity, int* unclamped_exponent) {
  const double ln_n = std::log(static_cast<double>(n == 0 ? 1 : n));
  const double e = arity == 3 ? ln_n / std::log(3.33) + 2.25 : ln_n / std::log(2.91) - 0.5;
  int exponent = static_cast<int>(std::floor(e));
  *unclamped_exponent = exponent;
  exponent = std::min(18, std::max(2, exponent));
  FuseLayout l;
  l.segment_length = uint32_t{1} << exponent;
  uint64_t capacity = 0;
  if (n > 1) {
    const double factor = arity == 3 ? std::max(1.125, 0.875 + 0.25 * std::log(1000000.0) / ln_n)
                                     : std::max(1.075, 0.77 + 0.305 * std::log(600000.0) / ln_n);
    capacity = static_cast<uint64_t>(std::round(static_cast<double>(n) * factor));
  }
  const uint64_t segments = (capacity + l.segment_length - 1) / l.segment_length;
  l.segment_count = segments > arity - 1 ? static_cast<uint32_t>(segments - (arity - 1)) : 1;
  l.array_length = (uint64_t{l.segment_count} + arity - 1) * l.segment_length;
  return l;
}

TEST(FuseLayout, FuseLayoutForIsThePapersFormulas) {
  std::vector<uint64_t> ns;
  for (uint64_t n = 0; n <= (uint64_t{1} << 20); ++n) ns.push_back(n);
  std::mt19937_64 rng(4);
  for (int i = 0; i < 200000; ++i) ns.push_back((uint64_t{1} << 20) + rng() % (kMaxFuseKeys - (1 << 20) + 1));
  // Around every segment length's first n (the exponent's integer steps)
  // and where the size factor reaches its floor (10^6 and 600,000 keys).
  for (int k = 2; k <= 19; ++k) {
    for (double root : {std::exp((k - 2.25) * std::log(3.33)), std::exp((k + 0.5) * std::log(2.91))}) {
      if (root > static_cast<double>(kMaxFuseKeys)) continue;
      const uint64_t c = static_cast<uint64_t>(root);
      for (uint64_t n = c > 1000 ? c - 1000 : 0; n <= c + 1000; ++n) ns.push_back(n);
    }
  }
  ns.push_back(kMaxFuseKeys);
  uint64_t differ = 0;
  uint64_t clamped_up_to[5] = {};  // per arity: the largest n whose paper's segment length is below 4
  for (uint32_t arity : kArities) {
    for (uint64_t n : ns) {
      int unclamped = 0;
      const FuseLayout want = PaperLayout(n, arity, &unclamped);
      const FuseLayout got = FuseLayoutFor(n, arity);
      if (unclamped < 2) clamped_up_to[arity] = std::max(clamped_up_to[arity], n);
      if (got.segment_length != want.segment_length || got.segment_count != want.segment_count ||
          got.array_length != want.array_length) {
        if (++differ <= 10) {
          ADD_FAILURE() << "arity " << arity << " n " << n << ": segment length " << got.segment_length
                        << " count " << got.segment_count << ", the paper's " << want.segment_length
                        << " and " << want.segment_count;
        }
      }
      ASSERT_EQ(got.array_length, (uint64_t{got.segment_count} + arity - 1) * got.segment_length);
      ASSERT_LE(got.array_length, kMaxFuseArrayLength);
      if (n > 1) ASSERT_GE(got.array_length, n) << n;
    }
  }
  std::printf("[ layout   ] %zu sizes x 2 arities: %llu differ from the paper's formulas; the paper's segment "
              "length is below 4 (clamped to 4) for n <= %llu (three-wise), n <= %llu (four-wise)\n",
              ns.size(), static_cast<unsigned long long>(differ), static_cast<unsigned long long>(clamped_up_to[3]),
              static_cast<unsigned long long>(clamped_up_to[4]));
  EXPECT_EQ(differ, 0u);
}

// ---------------------------------------------------------------------------
// Round trip.

TEST(FuseRoundTrip, SerializeDeserializeSerializeGivesTheSameBytesAndAnswers) {
  const std::vector<std::string> non_members = NamedKeys("absent-", 0, 100000);
  for (uint32_t arity : kArities) {
    for (uint32_t f : {8u, 9u, 12u, 13u, 16u}) {
      for (size_t n : {0, 1, 2, 7, 100, 5000}) {
        SCOPED_TRACE("arity " + std::to_string(arity) + " f " + std::to_string(f) + " n " + std::to_string(n));
        const std::vector<std::string> keys = NamedKeys("key-", 0, n);
        FusePtr built = MustBuild(FuseParams(f, arity, n + f), keys);
        ASSERT_NE(built, nullptr);
        const Bytes bytes = Save(*built);
        FusePtr loaded;
        ASSERT_EQ(Load(bytes, &loaded), Status::kOk);
        EXPECT_EQ(Save(*loaded), bytes);
        EXPECT_FALSE(loaded->collecting());
        EXPECT_EQ(loaded->size(), built->size());
        EXPECT_EQ(loaded->seed(), built->seed());
        EXPECT_EQ(loaded->fingerprint_bits(), f);
        EXPECT_EQ(loaded->arity(), arity);
        EXPECT_EQ(loaded->segment_length(), built->segment_length());
        EXPECT_EQ(loaded->segment_count(), built->segment_count());
        EXPECT_EQ(loaded->array_length(), built->array_length());
        EXPECT_EQ(loaded->construction_seed(), built->construction_seed());
        EXPECT_TRUE(NoFalseNegative(*loaded, keys));
        for (const std::string& k : non_members) {
          ASSERT_EQ(loaded->Contain(U8(k), k.size()), built->Contain(U8(k), k.size())) << k;
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Hostile bytes.

// A small valid file: 100 keys, f = 12.
Bytes SmallFile(uint32_t arity, uint32_t f = 12, size_t n = 100) {
  FusePtr built = MustBuild(FuseParams(f, arity), NamedKeys("key-", 0, n));
  return built ? Save(*built) : Bytes();
}

Status LoadStatus(const Bytes& bytes) {
  FusePtr f;
  const Status s = Load(bytes, &f);
  EXPECT_EQ(s == Status::kOk, f != nullptr) << "*out set on an error, or not on kOk";
  if (s == Status::kOk) EXPECT_EQ(Save(*f), bytes) << "a loaded file did not write itself back";
  return s;
}

struct Mutation {
  const char* what;
  size_t offset;
  size_t width;
  uint64_t value;
  Status sealed;    // with the checksum recomputed
  Status unsealed;  // as mutated
};

void ExpectMutations(const Bytes& file, const std::vector<Mutation>& mutations) {
  for (const Mutation& m : mutations) {
    Bytes bytes = file;
    PutLE(&bytes, m.offset, m.width, m.value);
    ASSERT_NE(bytes, file) << m.what << " changed nothing";
    EXPECT_EQ(LoadStatus(bytes), m.unsealed) << m.what << " = " << m.value << ", checksum as it was";
    Reseal(&bytes);
    EXPECT_EQ(LoadStatus(bytes), m.sealed) << m.what << " = " << m.value << ", checksum recomputed";
  }
}

TEST(FuseHostile, SectionFieldsOutOfRangeAreRefused) {
  for (uint32_t arity : kArities) {
    SCOPED_TRACE("arity " + std::to_string(arity));
    const Bytes file = SmallFile(arity);
    ASSERT_FALSE(file.empty());
    ASSERT_EQ(LoadStatus(file), Status::kOk);
    const auto at = [](size_t offset) { return kSection + offset; };
    const uint64_t length = GetLE(file, at(field::kSegmentLength), 4);
    const uint64_t count = GetLE(file, at(field::kSegmentCount), 4);
    const uint64_t array = GetLE(file, at(field::kArrayLength), 8);
    const uint64_t bytes = GetLE(file, at(field::kFingerprintBytes), 8);
    ASSERT_EQ(array, (count + arity - 1) * length);
    ASSERT_EQ(bytes, FuseFingerprintBytes(array, 12));
    const Status bad = Status::kFormatBadParameter;
    const Status sum = Status::kFormatChecksumMismatch;
    ExpectMutations(file, {
        {"key count", at(field::kKeyCount), 8, array + 1, bad, sum},
        {"key count", at(field::kKeyCount), 8, UINT64_MAX, bad, sum},
        {"fingerprint bits", at(field::kFingerprintBits), 4, 7, bad, sum},
        {"fingerprint bits", at(field::kFingerprintBits), 4, 17, bad, sum},
        {"fingerprint bits", at(field::kFingerprintBits), 4, 0, bad, sum},
        {"fingerprint bits", at(field::kFingerprintBits), 4, 13, bad, sum},  // bytes no longer match
        {"fingerprint bits", at(field::kFingerprintBits), 4, 0xffffffff, bad, sum},
        {"arity", at(field::kArity), 4, 2, bad, sum},
        {"arity", at(field::kArity), 4, 5, bad, sum},
        {"arity", at(field::kArity), 4, 0, bad, sum},
        {"arity", at(field::kArity), 4, 7 - arity, bad, sum},  // the array length no longer matches
        {"segment length", at(field::kSegmentLength), 4, 0, bad, sum},
        {"segment length", at(field::kSegmentLength), 4, 2, bad, sum},
        {"segment length", at(field::kSegmentLength), 4, length + 1, bad, sum},
        {"segment length", at(field::kSegmentLength), 4, length / 2, bad, sum},
        {"segment length", at(field::kSegmentLength), 4, uint64_t{1} << 19, bad, sum},
        {"segment length", at(field::kSegmentLength), 4, uint64_t{1} << 31, bad, sum},
        {"segment count", at(field::kSegmentCount), 4, 0, bad, sum},
        {"segment count", at(field::kSegmentCount), 4, count + 1, bad, sum},
        {"segment count", at(field::kSegmentCount), 4, 0xffffffff, bad, sum},
        {"array length", at(field::kArrayLength), 8, array + 1, bad, sum},
        {"array length", at(field::kArrayLength), 8, 0, bad, sum},
        {"array length", at(field::kArrayLength), 8, uint64_t{1} << 32, bad, sum},
        // The stack reader delimits the section by this field (format.h
        // checks 7-8) before any checksum or section check.
        {"fingerprint bytes", at(field::kFingerprintBytes), 8, bytes + 1, Status::kFormatTruncated,
         Status::kFormatTruncated},
        {"fingerprint bytes", at(field::kFingerprintBytes), 8, UINT64_MAX, Status::kFormatTruncated,
         Status::kFormatTruncated},
        {"fingerprint bytes", at(field::kFingerprintBytes), 8, bytes - 1, Status::kFormatTrailingBytes,
         Status::kFormatTrailingBytes},
        {"fingerprint bytes", at(field::kFingerprintBytes), 8, 0, Status::kFormatTrailingBytes,
         Status::kFormatTrailingBytes},
        // Fields with no invalid value: the file loads (and answers otherwise).
        {"key count", at(field::kKeyCount), 8, array, Status::kOk, sum},
        {"construction seed", at(field::kConstructionSeed), 8, 12345, Status::kOk, sum},
    });
  }
}

TEST(FuseHostile, AFileOfKeyCountZeroReportsNoKey) {
  const Bytes file = SmallFile(4);
  Bytes zero = file;
  PutLE(&zero, kSection + field::kKeyCount, 8, 0);
  Reseal(&zero);
  FusePtr f;
  ASSERT_EQ(Load(zero, &f), Status::kOk);
  EXPECT_EQ(f->size(), 0u);
  for (const std::string& k : NamedKeys("key-", 0, 100)) EXPECT_FALSE(f->Contain(U8(k), k.size())) << k;
}

TEST(FuseHostile, AHeaderClaimingAHugeTableIsTruncatedNotAllocated) {
  const Bytes file = SmallFile(3);
  // Segments of 2^18 slots, as many as the 32-bit slot index allows: the
  // fields agree with each other, the file holds none of the table.
  const uint64_t length = uint64_t{1} << 18;
  const uint64_t count = ((uint64_t{1} << 32) - 1) / length;
  const uint64_t array = (count + 2) * length;
  Bytes bytes = file;
  PutLE(&bytes, kSection + field::kSegmentLength, 4, length);
  PutLE(&bytes, kSection + field::kSegmentCount, 4, count);
  PutLE(&bytes, kSection + field::kArrayLength, 8, array);
  PutLE(&bytes, kSection + field::kFingerprintBytes, 8, FuseFingerprintBytes(array, 12));
  Reseal(&bytes);
  const size_t live = internal::LiveAllocationsForTesting();
  const alloc_probe::Seen seen = alloc_probe::During([&] { EXPECT_EQ(LoadStatus(bytes), Status::kFormatTruncated); });
  EXPECT_LT(seen.largest, size_t{1} << 16) << "allocated for a table the file does not hold";
  EXPECT_EQ(internal::LiveAllocationsForTesting(), live);
  // Past 2^32 - 1 slots: ReadFuseSection refuses the fields before it reads
  // any table byte (handed the header alone, with the length it claims).
  uint8_t header[format::kFuseSectionHeaderBytes];
  std::memcpy(header, bytes.data() + kSection, sizeof header);
  format::PutU32(header + field::kSegmentCount, static_cast<uint32_t>(count + 1));
  const uint64_t past = (count + 3) * length;
  format::PutU64(header + field::kArrayLength, past);
  format::PutU64(header + field::kFingerprintBytes, FuseFingerprintBytes(past, 12));
  format::FuseSection section;
  EXPECT_EQ(format::ReadFuseSection(header, static_cast<size_t>(format::FuseSectionBytes(FuseFingerprintBytes(past, 12))),
                                    &section),
            Status::kFormatBadParameter);
  EXPECT_EQ(format::ReadFuseSection(header, sizeof header - 1, &section), Status::kFormatTruncated);
}

TEST(FuseHostile, StackHeaderFieldsOutOfRangeAreRefused) {
  for (uint32_t arity : kArities) {
    SCOPED_TRACE("arity " + std::to_string(arity));
    const Bytes file = SmallFile(arity);
    const Status bad = Status::kFormatBadParameter;
    const Status wrong = Status::kFormatWrongFamily;
    // The stack header's checks (format.h, FORMAT.md §14 check 6) come before
    // the checksum's (check 9): the same status either way.
    std::vector<Mutation> m = {
        {"magic", format::kMagicOffset, 1, 'X', Status::kFormatBadMagic, Status::kFormatBadMagic},
        {"version", format::kVersionOffset, 2, 0, Status::kFormatUnsupportedVersion,
         Status::kFormatUnsupportedVersion},
        {"version", format::kVersionOffset, 2, 5, Status::kFormatUnsupportedVersion,
         Status::kFormatUnsupportedVersion},
        // Version 1 is a cuckoo filter's file; versions 2 and 3 hold no
        // binary fuse filter.
        {"version", format::kVersionOffset, 2, 1, wrong, wrong},
        {"version", format::kVersionOffset, 2, 2, bad, bad},
        {"version", format::kVersionOffset, 2, 3, bad, bad},
        {"family", v4::kFamily, 1, 0, bad, bad},
        {"family", v4::kFamily, 1, 6, bad, bad},
        {"family", v4::kFamily, 1, 255, bad, bad},
        {"encoding", v4::kEncoding, 1, 1, bad, bad},
        {"encoding", v4::kEncoding, 1, 255, bad, bad},
        {"scheme", v4::kScheme, 1, 0, bad, bad},
        {"scheme", v4::kScheme, 1, 2, bad, bad},
        {"scheme", v4::kScheme, 1, 5, bad, bad},
        {"scheme", v4::kScheme, 1, 255, bad, bad},
        // A scheme byte of the family that is not the section's arity.
        {"scheme", v4::kScheme, 1, 7 - arity, bad, Status::kFormatChecksumMismatch},
        {"growth", v4::kGrowth, 1, 1, bad, bad},
        {"growth", v4::kGrowth, 1, 2, bad, bad},
        {"hash id", v4::kHashId, 1, 0, bad, bad},
        {"hash id", v4::kHashId, 1, format::kHashIdMurmur64A, bad, bad},
        {"sub-filter count", v4::kSubFilterCount, 1, 0, bad, bad},
        {"sub-filter count", v4::kSubFilterCount, 1, 2, bad, bad},
        {"sub-filter count", v4::kSubFilterCount, 1, 255, bad, bad},
        {"expansion", v4::kExpansion, 4, 2, bad, bad},
        {"reserved", v4::kReserved, 8, 1, bad, bad},
        {"reserved", v4::kReserved + 7, 1, 0x80, bad, bad},
        // Any seed is valid.
        {"seed", v4::kSeed, 8, 1, Status::kOk, Status::kFormatChecksumMismatch},
    };
    for (uint8_t family = 1; family <= kFamilyCount; ++family) {
      if (family != format::kTypeBinaryFuse) m.push_back({"family", v4::kFamily, 1, family, wrong, wrong});
    }
    ExpectMutations(file, m);
    // Growth geometric with an expansion: in range for the header, not for
    // the family (one section, no expansion).
    Bytes grown = file;
    grown[v4::kGrowth] = format::kGrowthGeometric;
    PutLE(&grown, v4::kExpansion, 4, 2);
    Reseal(&grown);
    EXPECT_EQ(LoadStatus(grown), bad);
  }
}

TEST(FuseHostile, AnotherFamilysBytesAreNamed) {
  for (uint8_t family = 1; family <= kFamilyCount; ++family) {
    if (family == format::kTypeBinaryFuse) continue;
    Bytes bytes = SmallFile(4);
    bytes[v4::kFamily] = family;
    Reseal(&bytes);
    EXPECT_EQ(LoadStatus(bytes), Status::kFormatWrongFamily) << int{family};
  }
}

TEST(FuseHostile, EveryTruncationIsRefusedAndTrailingBytesToo) {
  for (uint32_t arity : kArities) {
    const Bytes file = SmallFile(arity, 12, 3);
    for (size_t len = 0; len < file.size(); ++len) {
      const Bytes cut(file.begin(), file.begin() + static_cast<long>(len));
      EXPECT_EQ(LoadStatus(cut), Status::kFormatTruncated) << "first " << len << " of " << file.size() << " bytes";
      // Cut, then sealed: the checksum cannot make a short file whole.
      if (len >= format::kHeaderV4Bytes + format::kChecksumBytes) {
        Bytes sealed = cut;
        Reseal(&sealed);
        EXPECT_EQ(LoadStatus(sealed), Status::kFormatTruncated) << len;
      }
    }
    Bytes longer = file;
    longer.insert(longer.end() - format::kChecksumBytes, 0);
    Reseal(&longer);
    EXPECT_EQ(LoadStatus(longer), Status::kFormatTrailingBytes);
  }
}

TEST(FuseHostile, PaddingBitsSetAreRefused) {
  // Files whose table ends inside a byte: f odd and an odd number of 4-slot
  // segments (segments of 4 slots: small n).
  int files = 0;
  for (uint32_t arity : kArities) {
    for (uint32_t f : {9u, 11u, 13u, 15u}) {
      for (size_t n : {0, 1, 2, 5, 10, 30}) {
        const FuseLayout layout = FuseLayoutFor(n, arity);
        const uint64_t used = layout.array_length * f % 8;
        if (used == 0) continue;
        ++files;
        const Bytes file = SmallFile(arity, f, n);
        ASSERT_EQ(LoadStatus(file), Status::kOk);
        const size_t last = file.size() - format::kChecksumBytes - 1;
        ASSERT_EQ(file[last] >> used, 0) << "padding written as 0";
        for (uint64_t bit = used; bit < 8; ++bit) {
          Bytes bytes = file;
          bytes[last] = static_cast<uint8_t>(bytes[last] | (1u << bit));
          EXPECT_EQ(LoadStatus(bytes), Status::kFormatChecksumMismatch);
          Reseal(&bytes);
          EXPECT_EQ(LoadStatus(bytes), Status::kFormatBadPadding)
              << "arity " << arity << " f " << f << " n " << n << " bit " << bit;
        }
      }
    }
  }
  EXPECT_GT(files, 4) << "too few shapes with padding";
}

TEST(FuseHostile, AnyByteChangedIsRefusedOrLoadsAndWritesItselfBack) {
  for (uint32_t arity : kArities) {
    const Bytes file = SmallFile(arity, 13, 10);
    for (size_t i = 0; i + format::kChecksumBytes < file.size(); ++i) {
      for (uint8_t x : {0x01, 0x80, 0xff}) {
        Bytes bytes = file;
        bytes[i] ^= x;
        Reseal(&bytes);
        const Status s = LoadStatus(bytes);  // checks a loaded one writes itself back
        EXPECT_TRUE(s == Status::kOk || cuckoo_test::IsFormatStatus(s) || s == Status::kFormatWrongFamily)
            << "byte " << i << " ^ " << int{x} << ": " << static_cast<int>(s);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Collecting filters.

TEST(FuseCollecting, AddOnABuiltOrLoadedFilterIsRefused) {
  FusePtr built = MustBuild(FuseParams(8, 4), NamedKeys("key-", 0, 50));
  ASSERT_NE(built, nullptr);
  const Bytes bytes = Save(*built);
  FusePtr loaded;
  ASSERT_EQ(Load(bytes, &loaded), Status::kOk);
  for (BinaryFuseFilter* f : {built.get(), loaded.get()}) {
    EXPECT_FALSE(f->collecting());
    const std::string k = "new-key";
    EXPECT_EQ(f->Add(U8(k), k.size()), Status::kInvalidArgument);
    const uint8_t packed[] = {'a', 'b'};
    const uint32_t offsets[] = {0, 1, 2};
    Status s = Status::kOk;
    EXPECT_EQ(f->AddBatch(packed, offsets, 2, &s), 0u);
    EXPECT_EQ(s, Status::kInvalidArgument);
    EXPECT_EQ(f->pending(), 0u);
    EXPECT_EQ(Save(*f), bytes);
  }
}

TEST(FuseCollecting, CreateFromAFilterThatIsNotCollectingIsRefused) {
  FusePtr built = MustBuild(FuseParams(8, 4), NamedKeys("key-", 0, 50));
  ASSERT_NE(built, nullptr);
  FusePtr loaded;
  ASSERT_EQ(Load(Save(*built), &loaded), Status::kOk);
  for (BinaryFuseFilter* from : {built.get(), loaded.get()}) {
    BinaryFuseParams p = FuseParams(8, 4);
    p.from = reinterpret_cast<uintptr_t>(from);
    FusePtr out = MustBuild(FuseParams(8, 3), NamedKeys("x-", 0, 3));
    const BinaryFuseFilter* before = out.get();
    EXPECT_EQ(BinaryFuseFilter::Create(p, &out), Status::kInvalidArgument);
    EXPECT_EQ(out.get(), before) << "*out changed on an error";
  }
}

TEST(FuseCollecting, CreateFromACollectingFilterOfAnotherSeedIsRefused) {
  // Its keys' hashes are of its own seed: a filter of another seed would
  // report none of them.
  BinaryFuseParams p = FuseParams(8, 4, 1);
  FusePtr collecting;
  ASSERT_EQ(BinaryFuseFilter::Create(p, &collecting), Status::kOk);
  const std::vector<std::string> keys = NamedKeys("key-", 0, 100);
  AddAll(collecting.get(), keys);
  BinaryFuseParams q = FuseParams(8, 4, 2);
  q.from = reinterpret_cast<uintptr_t>(collecting.get());
  FusePtr out;
  EXPECT_EQ(BinaryFuseFilter::Create(q, &out), Status::kInvalidArgument);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(collecting->pending(), keys.size()) << "a refused Create took the keys";
  // Its own seed: every key found.
  q.seed = 1;
  ASSERT_EQ(BinaryFuseFilter::Create(q, &out), Status::kOk);
  EXPECT_TRUE(NoFalseNegative(*out, keys));
}

TEST(FuseCollecting, CreateFromTheFilterItReplaces) {
  // *out holds the collecting filter the new one is built from.
  BinaryFuseParams p = FuseParams(9, 3);
  FusePtr f;
  ASSERT_EQ(BinaryFuseFilter::Create(p, &f), Status::kOk);
  const std::vector<std::string> keys = NamedKeys("key-", 0, 500);
  AddAll(f.get(), keys);
  p.from = reinterpret_cast<uintptr_t>(f.get());
  ASSERT_EQ(BinaryFuseFilter::Create(p, &f), Status::kOk);
  EXPECT_FALSE(f->collecting());
  EXPECT_EQ(f->size(), keys.size());
  EXPECT_TRUE(NoFalseNegative(*f, keys));
}

TEST(FuseCollecting, CreateFromTakesTheKeysAndLeavesTheCollectingFilterEmpty) {
  for (uint32_t arity : kArities) {
    BinaryFuseParams p = FuseParams(10, arity);
    FusePtr collecting;
    ASSERT_EQ(BinaryFuseFilter::Create(p, &collecting), Status::kOk);
    EXPECT_TRUE(collecting->collecting());
    const std::vector<std::string> keys = NamedKeys("key-", 0, 3000);
    AddAll(collecting.get(), keys);
    AddAll(collecting.get(), NamedKeys("key-", 0, 10));  // duplicates count as pending
    EXPECT_EQ(collecting->pending(), 3010u);
    EXPECT_EQ(collecting->size(), 0u);
    p.from = reinterpret_cast<uintptr_t>(collecting.get());
    FusePtr built;
    ASSERT_EQ(BinaryFuseFilter::Create(p, &built), Status::kOk);
    EXPECT_EQ(built->size(), 3000u);
    EXPECT_TRUE(NoFalseNegative(*built, keys));
    EXPECT_EQ(collecting->pending(), 0u);
    EXPECT_TRUE(collecting->collecting());
    // Built again from it: the filter of no keys.
    FusePtr again;
    ASSERT_EQ(BinaryFuseFilter::Create(p, &again), Status::kOk);
    EXPECT_EQ(again->size(), 0u);
    // It takes keys again.
    AddAll(collecting.get(), NamedKeys("more-", 0, 5));
    EXPECT_EQ(collecting->pending(), 5u);
  }
}

TEST(FuseCollecting, ACollectingFilterAnswersFalseAndSavesAsTheEmptyFilter) {
  for (uint32_t arity : kArities) {
    for (uint32_t f : {8u, 13u, 16u}) {
      const BinaryFuseParams p = FuseParams(f, arity, 5);
      FusePtr collecting;
      ASSERT_EQ(BinaryFuseFilter::Create(p, &collecting), Status::kOk);
      const std::vector<std::string> keys = NamedKeys("key-", 0, 200);
      AddAll(collecting.get(), keys);
      for (const std::string& k : keys) ASSERT_FALSE(collecting->Contain(U8(k), k.size())) << k;
      FusePtr empty;
      ASSERT_EQ(BinaryFuseFilter::Build(p, nullptr, 0, &empty), Status::kOk);
      const Bytes bytes = Save(*collecting);
      EXPECT_EQ(bytes, Save(*empty)) << "arity " << arity << " f " << f;
      FusePtr loaded;
      ASSERT_EQ(Load(bytes, &loaded), Status::kOk);
      EXPECT_EQ(loaded->size(), 0u);
      EXPECT_FALSE(loaded->collecting());
    }
  }
}

TEST(FuseCollecting, InvalidParametersAreRefused) {
  FusePtr collecting;
  ASSERT_EQ(BinaryFuseFilter::Create(FuseParams(8, 4), &collecting), Status::kOk);
  AddAll(collecting.get(), NamedKeys("key-", 0, 10));
  const struct {
    uint32_t f;
    uint32_t arity;
  } kBad[] = {{7, 4}, {17, 4}, {0, 3}, {8, 2}, {8, 5}, {12, 0}, {7, 2}};
  for (const auto& b : kBad) {
    SCOPED_TRACE("f " + std::to_string(b.f) + " arity " + std::to_string(b.arity));
    BinaryFuseParams p = FuseParams(b.f, b.arity);
    FusePtr out;
    EXPECT_EQ(BinaryFuseFilter::Create(p, &out), Status::kInvalidArgument);
    uint64_t hashes[] = {1, 2, 3};
    EXPECT_EQ(BinaryFuseFilter::Build(p, hashes, 3, &out), Status::kInvalidArgument);
    p.from = reinterpret_cast<uintptr_t>(collecting.get());
    EXPECT_EQ(BinaryFuseFilter::Create(p, &out), Status::kInvalidArgument);
    EXPECT_EQ(out, nullptr);
    EXPECT_EQ(collecting->pending(), 10u) << "a refused Create took the keys";
  }
  for (uint32_t f = kMinFuseFingerprintBits; f <= kMaxFuseFingerprintBits; ++f) {
    for (uint32_t arity : kArities) {
      FusePtr out;
      EXPECT_EQ(BinaryFuseFilter::Create(FuseParams(f, arity), &out), Status::kOk) << f << " " << arity;
    }
  }
}

// ---------------------------------------------------------------------------
// Out of memory.

size_t g_calls = 0;
size_t g_fail_at = SIZE_MAX;

bool RefuseOne(size_t) { return g_calls++ != g_fail_at; }

// Runs `fn` with allocation number `fail_at` (0-based) refused, or none
// (SIZE_MAX); returns how many allocations it asked for.
template <typename Fn>
size_t WithRefusal(size_t fail_at, Fn fn) {
  g_calls = 0;
  g_fail_at = fail_at;
  internal::SetAllocationHookForTesting(&RefuseOne);
  fn();
  internal::SetAllocationHookForTesting(nullptr);
  return g_calls;
}

std::vector<uint64_t> HashesOf(const std::vector<std::string>& keys, uint64_t seed) {
  std::vector<uint64_t> h;
  for (const std::string& k : keys) h.push_back(HashKey(U8(k), k.size(), seed));
  return h;
}

TEST(FuseOutOfMemory, BuildReportsEachRefusedAllocationAndLeavesNothing) {
  for (uint32_t arity : kArities) {
    for (size_t n : {0, 1, 100, 5000}) {
      const BinaryFuseParams p = FuseParams(12, arity);
      const std::vector<uint64_t> hashes = HashesOf(NamedKeys("key-", 0, n), p.seed);
      FusePtr out = MustBuild(FuseParams(8, 3), NamedKeys("x-", 0, 3));
      const BinaryFuseFilter* before = out.get();
      const size_t live = internal::LiveAllocationsForTesting();
      std::vector<uint64_t> copy = hashes;
      FusePtr ok;
      const size_t calls =
          WithRefusal(SIZE_MAX, [&] { EXPECT_EQ(BinaryFuseFilter::Build(p, copy.data(), n, &ok), Status::kOk); });
      EXPECT_GE(calls, 2u);
      ok.reset();
      ASSERT_EQ(internal::LiveAllocationsForTesting(), live);
      for (size_t k = 0; k < calls; ++k) {
        copy = hashes;
        Status s = Status::kOk;
        WithRefusal(k, [&] { s = BinaryFuseFilter::Build(p, copy.data(), n, &out); });
        EXPECT_EQ(s, Status::kOutOfMemory) << "arity " << arity << " n " << n << " refused " << k;
        EXPECT_EQ(out.get(), before);
        EXPECT_EQ(internal::LiveAllocationsForTesting(), live) << "arity " << arity << " n " << n << " refused " << k;
      }
    }
  }
}

TEST(FuseOutOfMemory, CreateReportsEachRefusedAllocationAndLeavesNothing) {
  for (uint32_t arity : kArities) {
    const BinaryFuseParams p = FuseParams(12, arity);
    // A collecting filter.
    const size_t live = internal::LiveAllocationsForTesting();
    FusePtr out;
    const size_t calls = WithRefusal(SIZE_MAX, [&] { EXPECT_EQ(BinaryFuseFilter::Create(p, &out), Status::kOk); });
    out.reset();
    for (size_t k = 0; k < calls; ++k) {
      Status s = Status::kOk;
      WithRefusal(k, [&] { s = BinaryFuseFilter::Create(p, &out); });
      EXPECT_EQ(s, Status::kOutOfMemory) << k;
      EXPECT_EQ(out, nullptr);
      EXPECT_EQ(internal::LiveAllocationsForTesting(), live) << k;
    }
    // Built from a collecting filter: on an error it keeps its keys, and a
    // later Create builds the filter of all of them.
    const std::vector<std::string> keys = NamedKeys("key-", 0, 2000);
    FusePtr collecting;
    ASSERT_EQ(BinaryFuseFilter::Create(p, &collecting), Status::kOk);
    AddAll(collecting.get(), keys);
    AddAll(collecting.get(), NamedKeys("key-", 0, 100));
    BinaryFuseParams q = p;
    q.from = reinterpret_cast<uintptr_t>(collecting.get());
    const size_t live_collecting = internal::LiveAllocationsForTesting();
    size_t k = 0;
    for (;; ++k) {
      Status s = Status::kOk;
      const size_t asked = WithRefusal(k, [&] { s = BinaryFuseFilter::Create(q, &out); });
      if (k >= asked) {
        // Every allocation was made: the filter is built.
        ASSERT_EQ(s, Status::kOk);
        break;
      }
      EXPECT_EQ(s, Status::kOutOfMemory) << k;
      EXPECT_EQ(out, nullptr);
      EXPECT_EQ(internal::LiveAllocationsForTesting(), live_collecting) << "refused " << k;
      ASSERT_GT(collecting->pending(), 0u) << "refused " << k << ": the keys were dropped";
    }
    EXPECT_GE(k, 2u);
    EXPECT_EQ(out->size(), keys.size());
    EXPECT_TRUE(NoFalseNegative(*out, keys));
    EXPECT_EQ(collecting->pending(), 0u);
  }
}

TEST(FuseOutOfMemory, DeserializeReportsEachRefusedAllocationAndLeavesNothing) {
  for (uint32_t arity : kArities) {
    const Bytes bytes = SmallFile(arity, 13, 500);
    const size_t live = internal::LiveAllocationsForTesting();
    FusePtr out;
    const size_t calls = WithRefusal(SIZE_MAX, [&] { EXPECT_EQ(Load(bytes, &out), Status::kOk); });
    EXPECT_EQ(calls, 2u) << "the filter and its table";
    out.reset();
    for (size_t k = 0; k < calls; ++k) {
      Status s = Status::kOk;
      WithRefusal(k, [&] { s = Load(bytes, &out); });
      EXPECT_EQ(s, Status::kOutOfMemory);
      EXPECT_EQ(out, nullptr);
      EXPECT_EQ(internal::LiveAllocationsForTesting(), live);
    }
  }
}

TEST(FuseOutOfMemory, AddReportsARefusedAllocationAndKeepsWhatItHad) {
  FusePtr collecting;
  ASSERT_EQ(BinaryFuseFilter::Create(FuseParams(8, 4), &collecting), Status::kOk);
  // Each key is first added with its first allocation refused: an Add that
  // allocates nothing succeeds; one that must grow the block of hashes
  // reports kOutOfMemory, keeps what it had and leaks nothing, as does the
  // batch call (which says how many keys it kept); the key then goes in.
  const uint64_t kKeys = 5000;
  int refusals = 0;
  for (uint64_t i = 0; i < kKeys; ++i) {
    const std::string k = "key-" + std::to_string(i);
    const size_t live = internal::LiveAllocationsForTesting();
    Status s = Status::kOk;
    const size_t calls = WithRefusal(0, [&] { s = collecting->Add(U8(k), k.size()); });
    if (calls == 0) {
      ASSERT_EQ(s, Status::kOk) << i;
      EXPECT_EQ(collecting->pending(), i + 1);
      continue;
    }
    ++refusals;
    EXPECT_EQ(s, Status::kOutOfMemory) << i;
    EXPECT_EQ(collecting->pending(), i) << i;
    EXPECT_EQ(internal::LiveAllocationsForTesting(), live) << i;
    const uint32_t offsets[] = {0, static_cast<uint32_t>(k.size()), static_cast<uint32_t>(2 * k.size())};
    const std::string packed = k + k;
    Status bs = Status::kOk;
    size_t kept = 2;
    WithRefusal(0, [&] { kept = collecting->AddBatch(U8(packed), offsets, 2, &bs); });
    EXPECT_EQ(kept, 0u);
    EXPECT_EQ(bs, Status::kOutOfMemory);
    EXPECT_EQ(collecting->pending(), i);
    EXPECT_EQ(internal::LiveAllocationsForTesting(), live) << i;
    ASSERT_EQ(collecting->Add(U8(k), k.size()), Status::kOk) << i;
  }
  EXPECT_GE(refusals, 2) << "the block of hashes never grew";
  EXPECT_EQ(collecting->pending(), kKeys);
  BinaryFuseParams p = FuseParams(8, 4);
  p.from = reinterpret_cast<uintptr_t>(collecting.get());
  FusePtr built;
  ASSERT_EQ(BinaryFuseFilter::Create(p, &built), Status::kOk);
  EXPECT_EQ(built->size(), kKeys);
  EXPECT_TRUE(NoFalseNegative(*built, NamedKeys("key-", 0, kKeys)));
}

// ---------------------------------------------------------------------------
// Patches.

TEST(FusePatch, OnePercentOfTheKeysReplacedPatchesExactly) {
  for (uint32_t arity : kArities) {
    for (uint32_t f : {8u, 12u, 16u}) {
      const BinaryFuseParams p = FuseParams(f, arity, 3);
      const std::vector<std::string> older_keys = NamedKeys("key-", 0, 10000);
      std::vector<std::string> newer_keys = older_keys;
      for (size_t i = 0; i < newer_keys.size(); i += 100) newer_keys[i] = "replaced-" + std::to_string(i);
      FusePtr older = MustBuild(p, older_keys);
      FusePtr newer = MustBuild(p, newer_keys);
      ASSERT_NE(older, nullptr);
      ASSERT_NE(newer, nullptr);
      ASSERT_EQ(older->segment_count(), newer->segment_count());
      const Bytes a = Save(*older);
      const Bytes b = Save(*newer);
      uint8_t* patch = nullptr;
      size_t patch_len = 0;
      PatchMismatch why;
      ASSERT_EQ(Diff(a.data(), a.size(), b.data(), b.size(), &patch, &patch_len, &why), Status::kOk)
          << (why.field ? why.field : "");
      uint8_t* result = nullptr;
      size_t result_len = 0;
      EXPECT_EQ(ApplyPatch(a.data(), a.size(), patch, patch_len, &result, &result_len), Status::kOk);
      EXPECT_EQ(Bytes(result, result + result_len), b);
      size_t changed_bits = 0;
      for (size_t i = 0; i < a.size(); ++i) changed_bits += static_cast<size_t>(__builtin_popcount(a[i] ^ b[i]));
      std::printf("[ patch    ] arity %u f %2u: 10,000 keys, 100 replaced: filter %zu B, patch %zu B (%.1f%% of "
                  "the filter), %zu bits differ\n",
                  arity, f, b.size(), patch_len, 100.0 * static_cast<double>(patch_len) / static_cast<double>(b.size()),
                  changed_bits);
      const std::string name = "arity" + std::to_string(arity) + "_f" + std::to_string(f);
      RecordProperty(name + "_filter_bytes", static_cast<int>(b.size()));
      RecordProperty(name + "_patch_bytes", static_cast<int>(patch_len));
      std::free(patch);
      std::free(result);
    }
  }
}

TEST(FusePatch, FiltersOfAnotherSizeAreRefusedWithTheField) {
  for (uint32_t arity : kArities) {
    const BinaryFuseParams p = FuseParams(12, arity, 3);
    FusePtr older = MustBuild(p, NamedKeys("key-", 0, 10000));
    FusePtr newer = MustBuild(p, NamedKeys("key-", 0, 20000));
    ASSERT_NE(older, nullptr);
    ASSERT_NE(newer, nullptr);
    const Bytes a = Save(*older);
    const Bytes b = Save(*newer);
    uint8_t* patch = nullptr;
    size_t patch_len = 0;
    PatchMismatch why;
    EXPECT_EQ(Diff(a.data(), a.size(), b.data(), b.size(), &patch, &patch_len, &why), Status::kPatchFamily);
    EXPECT_EQ(patch, nullptr);
    ASSERT_NE(why.field, nullptr);
    std::printf("[ patch    ] arity %u: 10,000 and 20,000 keys differ in %s: %llu and %llu\n", arity, why.field,
                static_cast<unsigned long long>(why.older), static_cast<unsigned long long>(why.newer));
    const std::string field_name = why.field;
    EXPECT_TRUE(field_name == "segment count" || field_name == "segment length") << field_name;
    EXPECT_NE(why.older, why.newer);
    // Other f or arity: refused as well, naming it.
    FusePtr other_f = MustBuild(FuseParams(13, arity, 3), NamedKeys("key-", 0, 10000));
    const Bytes c = Save(*other_f);
    EXPECT_EQ(Diff(a.data(), a.size(), c.data(), c.size(), &patch, &patch_len, &why), Status::kPatchFamily);
    ASSERT_NE(why.field, nullptr);
    EXPECT_STREQ(why.field, "fingerprint bits");
    EXPECT_EQ(why.older, 12u);
    EXPECT_EQ(why.newer, 13u);
  }
}

// ---------------------------------------------------------------------------
// Golden files (tests/golden/README.md).

Bytes GoldenRecipe(uint32_t arity) {
  BinaryFuseParams p = FuseParams(12, arity, 42);
  FusePtr collecting;
  EXPECT_EQ(BinaryFuseFilter::Create(p, &collecting), Status::kOk);
  for (const std::string& k : NamedKeys("key-", 0, 1000)) {
    EXPECT_EQ(collecting->Add(U8(k), k.size()), Status::kOk) << k;
  }
  p.from = reinterpret_cast<uintptr_t>(collecting.get());
  FusePtr f;
  EXPECT_EQ(BinaryFuseFilter::Create(p, &f), Status::kOk);
  return f ? Save(*f) : Bytes();
}

void ExpectGolden(const char* name, uint32_t arity) {
  const Bytes fresh = GoldenRecipe(arity);
  const Bytes golden = cuckoo_test::GoldenFile(name, fresh);
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(fresh, golden) << name << ": the recipe gives other bytes";
  FusePtr loaded;
  ASSERT_EQ(Load(golden, &loaded), Status::kOk);
  EXPECT_EQ(Save(*loaded), golden);
  EXPECT_EQ(loaded->size(), 1000u);
  EXPECT_EQ(loaded->arity(), arity);
  EXPECT_EQ(loaded->fingerprint_bits(), 12u);
  EXPECT_EQ(loaded->seed(), 42u);
  EXPECT_EQ(golden[v4::kFamily], format::kTypeBinaryFuse);
  EXPECT_EQ(golden[v4::kScheme], arity);
  EXPECT_TRUE(NoFalseNegative(*loaded, NamedKeys("key-", 0, 1000)));
}

TEST(FuseGolden, FourWiseMatchesByteForByte) { ExpectGolden("fuse-v4.bin", 4); }
TEST(FuseGolden, ThreeWiseMatchesByteForByte) { ExpectGolden("fuse3-v4.bin", 3); }

}  // namespace
}  // namespace cuckoo
