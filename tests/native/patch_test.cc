// Patches (src/patch/patch.h, docs/FORMAT.md §17), for every family and shape: a
// diff applied to its base gives the newer bytes exactly; patches chain and a
// diff spans several versions; an empty diff; a wrong base, a truncated,
// flipped or re-checksummed patch, a patch of another family and a patch
// whose result has other parameters (made by hand) each give their status and
// leave the base as it was; filters that grew sub-filters in between. The
// shapes are one list, each test runs over all of them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "alloc_probe.h"
#include "cuckoo/cuckoo_filter.h"
#include "common/family.h"
#include "format/format.h"
#include "common/hash.h"
#include "patch/patch.h"
#include "patch_test_util.h"
#include "redis/redis_bloom.h"
#include "redis/redis_cuckoo.h"
#include "growth/scalable_filter.h"

namespace cuckoo {
namespace {

using patch_test::Bytes;
using patch_test::CraftPatch;
using patch_test::Own;
using patch_test::Subject;
using patch_test::Wrap;

struct Shape {
  const char* name;
  std::function<Subject()> make;
  bool grows;  // the day-2 filter has more sub-filters than day 0
};

// gtest names a failing shape by its name.
void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.name; }

CuckooParams Cuckoo(uint64_t capacity, TableEncoding encoding) {
  CuckooParams p;
  p.capacity = capacity;
  p.fingerprint_bits = 12;
  p.bucket_size = 4;
  p.seed = 42;
  p.encoding = encoding;
  return p;
}

Subject ScalableCuckoo(uint64_t capacity, TableEncoding encoding, uint32_t expansion, uint16_t version) {
  std::unique_ptr<ScalableCuckooFilter> f;
  EXPECT_EQ(ScalableCuckooFilter::Create(Cuckoo(capacity, encoding), expansion, &f), Status::kOk);
  if (version != 0) EXPECT_EQ(f->SetFormatVersion(version), Status::kOk);
  return Wrap(Own(std::move(f)), true);
}

Subject ScalableBloom(uint64_t capacity, double rate, uint32_t expansion, uint16_t version) {
  ScalableBloomParams p;
  p.capacity = capacity;
  p.false_positive_rate = rate;
  p.seed = 7;
  p.expansion = expansion;
  std::unique_ptr<ScalableBloomFilter> f;
  EXPECT_EQ(ScalableBloomFilter::Create(p, &f), Status::kOk);
  if (version != 0) EXPECT_EQ(f->SetFormatVersion(version), Status::kOk);
  return Wrap(Own(std::move(f)), false);
}

const std::vector<Shape>& Shapes() {
  static const std::vector<Shape> shapes = {
      {"CuckooPacked", [] { return ScalableCuckoo(1500, TableEncoding::kPacked, 0, 0); }, false},
      {"CuckooSemiSorted", [] { return ScalableCuckoo(1500, TableEncoding::kSemiSorted, 0, 0); }, false},
      {"CuckooGrowing", [] { return ScalableCuckoo(300, TableEncoding::kPacked, 2, 0); }, true},
      {"CuckooSemiSortedGrowing", [] { return ScalableCuckoo(300, TableEncoding::kSemiSorted, 2, 0); }, true},
      {"CuckooV2Growing", [] { return ScalableCuckoo(300, TableEncoding::kPacked, 2, 2); }, true},
      {"CuckooV1",
       [] {
         std::unique_ptr<CuckooFilter> f;
         EXPECT_EQ(CuckooFilter::Create(Cuckoo(1500, TableEncoding::kPacked), &f), Status::kOk);
         return Wrap(Own(std::move(f)), true);
       },
       false},
      {"Bloom", [] { return ScalableBloom(1500, 0.01, 0, 0); }, false},
      {"BloomGrowing", [] { return ScalableBloom(300, 0.01, 2, 0); }, true},
      {"BloomV3Growing", [] { return ScalableBloom(300, 0.01, 2, 3); }, true},
      {"RedisCuckoo",
       [] {
         RedisCuckooParams p;
         p.capacity = 300;
         p.bucket_size = 4;
         p.expansion = 2;
         std::unique_ptr<RedisCuckooFilter> f;
         EXPECT_EQ(RedisCuckooFilter::Create(p, &f), Status::kOk);
         return Wrap(Own(std::move(f)), true);
       },
       true},
      {"RedisBloom",
       [] {
         RedisBloomParams p;
         p.capacity = 300;
         std::unique_ptr<RedisBloomFilter> f;
         EXPECT_EQ(RedisBloomFilter::Create(p, &f), Status::kOk);
         return Wrap(Own(std::move(f)), false);
       },
       true},
  };
  return shapes;
}

std::string Key(int i) { return "key-" + std::to_string(i); }

// Day 0: keys 0..999. Day d: keys d*100 .. d*100 + 99 deleted, and
// 1000 + (d-1)*150 .. 1000 + d*150 - 1 added: a cuckoo filter under churn, a
// growing filter that gains a sub-filter by day 2. Returns each day's bytes.
std::vector<Bytes> Days(const Shape& shape, int days) {
  Subject s = shape.make();
  for (int i = 0; i < 1000; ++i) s.add(Key(i));
  std::vector<Bytes> out{s.bytes()};
  for (int d = 1; d <= days; ++d) {
    for (int i = d * 100; i < d * 100 + 100; ++i) s.del(Key(i));
    for (int i = 1000 + (d - 1) * 150; i < 1000 + d * 150; ++i) s.add(Key(i));
    out.push_back(s.bytes());
  }
  return out;
}

Status MakeDiff(const Bytes& older, const Bytes& newer, Bytes* patch) {
  uint8_t* p = nullptr;
  size_t n = 0;
  const Status s = Diff(older.data(), older.size(), newer.data(), newer.size(), &p, &n);
  if (s == Status::kOk) {
    patch->assign(p, p + n);
    std::free(p);
  }
  return s;
}

Bytes MustDiff(const Bytes& older, const Bytes& newer) {
  Bytes patch;
  EXPECT_EQ(MakeDiff(older, newer, &patch), Status::kOk);
  return patch;
}

// ApplyPatch, checking that the base is not written and that *result is
// untouched on failure.
Status Apply(const Bytes& base, const Bytes& patch, Bytes* result, PatchMismatch* why = nullptr) {
  const Bytes copy = base;
  uint8_t* r = reinterpret_cast<uint8_t*>(uintptr_t{1});
  size_t n = 12345;
  const Status s = ApplyPatch(base.data(), base.size(), patch.data(), patch.size(), &r, &n, why);
  EXPECT_EQ(base, copy) << "the base was written";
  if (s == Status::kOk) {
    result->assign(r, r + n);
    std::free(r);
  } else {
    EXPECT_EQ(r, reinterpret_cast<uint8_t*>(uintptr_t{1}));
    EXPECT_EQ(n, 12345u);
  }
  return s;
}

bool IsPatchRefusal(Status s) {
  return s == Status::kPatchTruncated || s == Status::kPatchCorrupt || s == Status::kPatchNotAPatch ||
         s == Status::kPatchVersion || s == Status::kPatchFamily || s == Status::kPatchResultMismatch ||
         s == Status::kPatchWrongBase;
}

class PatchShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(PatchShapes, RoundTripChainSpanAndEmpty) {
  const std::vector<Bytes> day = Days(GetParam(), 3);
  ASSERT_NE(day[0], day[1]);
  Bytes result;
  // Day by day, chained.
  Bytes now = day[0];
  for (int d = 1; d <= 3; ++d) {
    const Bytes p = MustDiff(day[d - 1], day[d]);
    ASSERT_EQ(Apply(now, p, &result), Status::kOk) << "day " << d;
    ASSERT_EQ(result, day[d]) << "day " << d;
    now = result;
    PatchInfo info;
    ASSERT_EQ(ReadPatchInfo(p.data(), p.size(), &info), Status::kOk);
    EXPECT_EQ(info.base_length, day[d - 1].size());
    EXPECT_EQ(info.result_length, day[d].size());
    EXPECT_EQ(info.base_checksum, format::GetU64(day[d - 1].data() + day[d - 1].size() - 8));
    EXPECT_GT(info.changes, 0u);
  }
  // One patch across three versions.
  ASSERT_EQ(Apply(day[0], MustDiff(day[0], day[3]), &result), Status::kOk);
  EXPECT_EQ(result, day[3]);
  // The same filter: no changes, and the patch gives the filter back.
  const Bytes empty = MustDiff(day[2], day[2]);
  PatchInfo info;
  ASSERT_EQ(ReadPatchInfo(empty.data(), empty.size(), &info), Status::kOk);
  EXPECT_EQ(info.changes, 0u);
  EXPECT_LE(empty.size(), kPatchHeaderBytes + kPatchChecksumBytes + 8);
  ASSERT_EQ(Apply(day[2], empty, &result), Status::kOk);
  EXPECT_EQ(result, day[2]);
}

TEST_P(PatchShapes, GrowingFiltersGainSubFilters) {
  Subject s = GetParam().make();
  for (int i = 0; i < 1000; ++i) s.add(Key(i));
  const Bytes before = s.bytes();
  const uint32_t subs = s.sub_filters();
  // Growing shapes get past their capacity; the others stay within it.
  const int end = GetParam().grows ? 2500 : 1400;
  for (int i = 1000; i < end; ++i) s.add(Key(i));
  const Bytes after = s.bytes();
  if (GetParam().grows) {
    ASSERT_GT(s.sub_filters(), subs) << "the shape must grow for this test";
  }
  Bytes result;
  ASSERT_EQ(Apply(before, MustDiff(before, after), &result), Status::kOk);
  EXPECT_EQ(result, after);
}

TEST_P(PatchShapes, WrongBaseIsRefusedAndNothingChanges) {
  const std::vector<Bytes> day = Days(GetParam(), 2);
  const Bytes p2 = MustDiff(day[1], day[2]);
  Bytes result;
  EXPECT_EQ(Apply(day[0], p2, &result), Status::kPatchWrongBase);
  EXPECT_EQ(Apply(day[2], p2, &result), Status::kPatchWrongBase);
  // The base's checksum as the patch names it, but other bytes: the base is corrupt.
  Bytes forged = day[1];
  forged[forged.size() / 2] ^= 1;
  EXPECT_EQ(Apply(forged, p2, &result), Status::kFormatChecksumMismatch);
}

TEST_P(PatchShapes, EveryTruncationAndEveryFlippedBitIsRefused) {
  const std::vector<Bytes> day = Days(GetParam(), 1);
  const Bytes p = MustDiff(day[0], day[1]);
  Bytes result;
  for (size_t n = 0; n < p.size(); ++n) {
    const Bytes cut(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(n));
    const Status s = Apply(day[0], cut, &result);
    ASSERT_TRUE(IsPatchRefusal(s)) << "length " << n << ": " << static_cast<int>(s);
  }
  const size_t step = p.size() > 4000 ? p.size() / 4000 : 1;
  for (size_t i = 0; i < p.size(); i += step) {
    Bytes flipped = p;
    flipped[i] ^= static_cast<uint8_t>(1u << (i % 8));
    ASSERT_TRUE(IsPatchRefusal(Apply(day[0], flipped, &result))) << "byte " << i;
  }
}

// Changes to the body with a valid patch checksum: the body's own checks and
// the result's checksum catch them; never a wrong result.
TEST_P(PatchShapes, ReChecksummedCorruptionsAreRefused) {
  const std::vector<Bytes> day = Days(GetParam(), 1);
  const Bytes p = MustDiff(day[0], day[1]);
  Bytes result;
  for (size_t i = kPatchHeaderBytes; i + kPatchChecksumBytes < p.size(); ++i) {
    for (int bit : {0, 3, 7}) {
      Bytes bad = p;
      bad[i] ^= static_cast<uint8_t>(1u << bit);
      format::WriteChecksum(bad.data(), bad.size() - kPatchChecksumBytes);
      const Status s = Apply(day[0], bad, &result);
      if (s == Status::kOk) {
        ASSERT_EQ(result, day[1]) << "byte " << i << " bit " << bit << " gave another result";
      } else {
        ASSERT_TRUE(s == Status::kPatchCorrupt || s == Status::kPatchResultMismatch)
            << "byte " << i << ": " << static_cast<int>(s);
      }
    }
  }
}

// A patch (checksums right) that names a result length the result's headers
// do not give: far more than the base (2^30 bytes, 64 MiB more) with the
// headers as the base has them, or a byte edit to a header field that gives
// the length (the sub-filter count; version 1: the table's bytes). Refused
// with kPatchCorrupt before anything of the claimed length is allocated: the
// headers are read through the base's bytes and the edits, the result is not
// made.
TEST_P(PatchShapes, ResultLengthItsHeadersDoNotGiveIsRefusedBeforeItIsAllocated) {
  const std::vector<Bytes> day = Days(GetParam(), 1);
  const Bytes& base = day[0];
  const Bytes p = MustDiff(base, day[1]);
  const auto claiming = [](Bytes patch, uint64_t length) {
    format::PutU64(patch.data() + patch_field::kResultLength, length);
    format::WriteChecksum(patch.data(), patch.size() - kPatchChecksumBytes);
    return patch;
  };
  const uint16_t version = format::GetU16(base.data() + format::kVersionOffset);
  const size_t field = version == format::kFormatVersion ? format::cuckoo_field::kTableBytes
                       : version == format::kFormatVersionExplicit ? format::v4_field::kSubFilterCount
                                                                   : format::stack_field::kSubFilterCount;
  Bytes edited = base;
  edited[field] ^= 1;
  const Family family = static_cast<Family>(p[patch_field::kFamily]);
  // No lists for the tables: the refusal comes before them.
  const Bytes header_edit = CraftPatch(base, edited, family, 0);
  const uint64_t more = base.size() + (uint64_t{64} << 20);
  const struct {
    const char* what;
    Bytes patch;
  } cases[] = {
      {"2^30 bytes", claiming(p, uint64_t{1} << 30)},
      {"64 MiB more than the base", claiming(p, more)},
      {"a header edit, 64 MiB more", claiming(header_edit, more)},
      {"a header edit, the base's length", header_edit},
  };
  for (const auto& c : cases) {
    Status s = Status::kOk;
    Bytes result;
    const size_t largest = alloc_probe::LargestAllocationDuring([&] { s = Apply(base, c.patch, &result); });
    EXPECT_EQ(s, Status::kPatchCorrupt) << c.what;
    EXPECT_LT(largest, size_t{1} << 20) << c.what;
  }
  // The real patch still applies; its result is allocated at its length.
  Bytes result;
  EXPECT_GE(alloc_probe::LargestAllocationDuring([&] { ASSERT_EQ(Apply(base, p, &result), Status::kOk); }),
            day[1].size());
  EXPECT_EQ(result, day[1]);
}

INSTANTIATE_TEST_SUITE_P(AllFamilies, PatchShapes, ::testing::ValuesIn(Shapes()),
                         [](const ::testing::TestParamInfo<Shape>& i) { return std::string(i.param.name); });

TEST(Patch, HeaderChecksInOrder) {
  const std::vector<Bytes> day = Days(Shapes()[0], 1);
  const Bytes p = MustDiff(day[0], day[1]);
  Bytes result;
  Bytes bad = p;
  bad[0] = 'X';
  EXPECT_EQ(Apply(day[0], bad, &result), Status::kPatchNotAPatch);
  EXPECT_EQ(Apply(day[0], Bytes(p.begin(), p.begin() + 3), &result), Status::kPatchTruncated);
  EXPECT_EQ(Apply(day[0], Bytes(p.begin(), p.begin() + 47), &result), Status::kPatchTruncated);
  bad = p;
  bad[patch_field::kVersion] = 2;
  EXPECT_EQ(Apply(day[0], bad, &result), Status::kPatchVersion);
  bad = p;
  bad[patch_field::kReserved] = 1;
  format::WriteChecksum(bad.data(), bad.size() - 8);
  EXPECT_EQ(Apply(day[0], bad, &result), Status::kPatchCorrupt);
  bad = p;
  bad[p.size() - 1] ^= 0x80;
  EXPECT_EQ(Apply(day[0], bad, &result), Status::kPatchCorrupt);
  // A base that is no filter: its own format status.
  Bytes junk(100, 0);
  EXPECT_EQ(Apply(junk, p, &result), Status::kFormatBadMagic);
}

TEST(Patch, OtherFamilyAndOtherParametersAreRefusedByName) {
  const std::vector<Bytes> cuckoo = Days(Shapes()[0], 1);   // CuckooPacked
  const std::vector<Bytes> semi = Days(Shapes()[1], 1);     // CuckooSemiSorted
  const std::vector<Bytes> bloom = Days(Shapes()[6], 1);    // Bloom
  Bytes patch, result;
  // Apply: a cuckoo patch to a Bloom filter.
  EXPECT_EQ(Apply(bloom[0], MustDiff(cuckoo[0], cuckoo[1]), &result), Status::kPatchFamily);
  // Diff: each pair that differs, the field and both values.
  struct Case {
    const Bytes* older;
    const Bytes* newer;
    const char* field;
    uint64_t was, is;
  };
  CuckooParams p = Cuckoo(1500, TableEncoding::kPacked);
  p.fingerprint_bits = 13;
  std::unique_ptr<ScalableCuckooFilter> g;
  ASSERT_EQ(ScalableCuckooFilter::Create(p, 0, &g), Status::kOk);
  const Bytes thirteen = Wrap(Own(std::move(g)), true).bytes();
  p.fingerprint_bits = 12;
  p.seed = 43;
  ASSERT_EQ(ScalableCuckooFilter::Create(p, 0, &g), Status::kOk);
  const Bytes seed43 = Wrap(Own(std::move(g)), true).bytes();
  const Case cases[] = {
      {&cuckoo[0], &bloom[0], "family", 1, 2},
      {&cuckoo[0], &semi[0], "table encoding", 0, 1},
      {&cuckoo[0], &thirteen, "fingerprint bits", 12, 13},
      {&cuckoo[0], &seed43, "seed", 42, 43},
  };
  uint8_t* out = nullptr;
  size_t out_len = 0;
  PatchMismatch why;
  for (const Case& c : cases) {
    why = PatchMismatch{"stale", 7, 7, true, 3};
    EXPECT_EQ(Diff(c.older->data(), c.older->size(), c.newer->data(), c.newer->size(), &out, &out_len, &why),
              Status::kPatchFamily);
    EXPECT_STREQ(why.field, c.field);
    EXPECT_EQ(why.older, c.was);
    EXPECT_EQ(why.newer, c.is);
    EXPECT_FALSE(why.real);
    EXPECT_EQ(why.section, -1);
  }
  // A rate: its f64 bits, marked real (the rates so close that bit and hash counts agree).
  const Bytes rate = ScalableBloom(1000, 0.01, 0, 0).bytes();
  const Bytes near = ScalableBloom(1000, 0.010000001, 0, 0).bytes();
  why = PatchMismatch{};
  EXPECT_EQ(Diff(rate.data(), rate.size(), near.data(), near.size(), &out, &out_len, &why), Status::kPatchFamily);
  ASSERT_NE(why.field, nullptr);
  EXPECT_STREQ(why.field, "false-positive rate");
  EXPECT_TRUE(why.real);
  double older_rate = 0, newer_rate = 0;
  std::memcpy(&older_rate, &why.older, sizeof older_rate);
  std::memcpy(&newer_rate, &why.newer, sizeof newer_rate);
  EXPECT_EQ(older_rate, 0.01);
  EXPECT_EQ(newer_rate, 0.010000001);
  // Filters a patch joins: no mismatch.
  ASSERT_EQ(Diff(cuckoo[0].data(), cuckoo[0].size(), cuckoo[1].data(), cuckoo[1].size(), &out, &out_len, &why),
            Status::kOk);
  std::free(out);
  EXPECT_EQ(why.field, nullptr);
  // Diff of bytes that are no filter: their format status.
  Bytes junk = cuckoo[1];
  junk[junk.size() / 2] ^= 1;
  EXPECT_EQ(MakeDiff(cuckoo[0], junk, &patch), Status::kFormatChecksumMismatch);
}

// A patch whose result differs from its base only in a parameter that loading
// does not judge, every checksum right, is refused with kPatchFamily naming
// the field as Diff does; the base and *result untouched (Apply checks).
// (Crafted: Diff refuses such a pair.)
TEST(Patch, ResultWithOtherParametersIsRefusedByName) {
  // The same keys in a cuckoo filter (version 4, version 1) and a Redis cuckoo filter.
  const auto filters = [](uint32_t kicks) {
    CuckooParams p = Cuckoo(300, TableEncoding::kPacked);
    p.max_kicks = kicks;
    RedisCuckooParams r;
    r.capacity = 300;
    r.max_iterations = kicks;
    std::unique_ptr<ScalableCuckooFilter> v4;
    std::unique_ptr<CuckooFilter> v1;
    std::unique_ptr<RedisCuckooFilter> redis;
    EXPECT_EQ(ScalableCuckooFilter::Create(p, 0, &v4), Status::kOk);
    EXPECT_EQ(CuckooFilter::Create(p, &v1), Status::kOk);
    EXPECT_EQ(RedisCuckooFilter::Create(r, &redis), Status::kOk);
    std::vector<Bytes> out;
    for (Subject f : {Wrap(Own(std::move(v4)), true), Wrap(Own(std::move(v1)), true),
                      Wrap(Own(std::move(redis)), true)}) {
      for (int i = 0; i < 200; ++i) f.add(Key(i));
      out.push_back(f.bytes());
    }
    return out;
  };
  const std::vector<Bytes> base = filters(500), result = filters(10);
  const Family family[] = {Family::kCuckoo, Family::kCuckoo, Family::kRedisCuckoo};
  const char* const field[] = {"max kicks", "max kicks", "max iterations"};
  for (size_t k = 0; k < base.size(); ++k) {
    const std::string says = field[k];
    PatchMismatch why;
    uint8_t* out = nullptr;
    size_t n = 0;
    ASSERT_EQ(Diff(base[k].data(), base[k].size(), result[k].data(), result[k].size(), &out, &n, &why),
              Status::kPatchFamily);
    ASSERT_NE(why.field, nullptr);
    EXPECT_EQ(std::string(why.field), says);
    EXPECT_EQ(why.older, 500u);
    EXPECT_EQ(why.newer, 10u);
    Bytes got;  // the hand-made framing is right: to the base itself, it applies
    ASSERT_EQ(Apply(base[k], CraftPatch(base[k], base[k], family[k], 1), &got), Status::kOk) << says;
    EXPECT_EQ(got, base[k]);
    ASSERT_EQ(result[k].size(), base[k].size());
    const Bytes crafted = CraftPatch(base[k], result[k], family[k], 1);
    PatchInfo info;
    ASSERT_EQ(ReadPatchInfo(crafted.data(), crafted.size(), &info), Status::kOk);
    EXPECT_GT(info.changes, 0u);
    why = PatchMismatch{"stale", 7, 7, true, 3};
    EXPECT_EQ(Apply(base[k], crafted, &got, &why), Status::kPatchFamily) << says;
    ASSERT_NE(why.field, nullptr);
    EXPECT_EQ(std::string(why.field), says);
    EXPECT_EQ(why.older, 500u);
    EXPECT_EQ(why.newer, 10u);
  }
}

// The golden patches (tests/golden/README.md): each a golden filter, loaded,
// then changed by a fixed recipe; the diff is the file byte for byte, and it
// applies to the golden filter to give the changed filter's bytes.
// Golden: CUCKOO_UPDATE_GOLDEN=1 build/native/cuckoo_native_tests --gtest_filter='PatchGolden.*'
Bytes ReadGolden(const std::string& name) {
  std::ifstream in(std::string(CUCKOO_GOLDEN_DIR) + "/" + name, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

template <class F>
void CheckGoldenPatch(const char* base_name, const char* patch_name, const std::function<void(F&)>& change) {
  const Bytes base = ReadGolden(base_name);
  ASSERT_FALSE(base.empty()) << base_name;
  std::unique_ptr<F> f;
  ASSERT_EQ(F::Deserialize(base.data(), base.size(), &f), Status::kOk);
  change(*f);
  Bytes newer(f->SerializedSize());
  f->Serialize(newer.data());
  const Bytes patch = MustDiff(base, newer);
  if (std::getenv("CUCKOO_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(std::string(CUCKOO_GOLDEN_DIR) + "/" + patch_name, std::ios::binary)
        .write(reinterpret_cast<const char*>(patch.data()), static_cast<std::streamsize>(patch.size()));
  }
  const Bytes golden = ReadGolden(patch_name);
  EXPECT_EQ(patch, golden) << patch_name << ": the diff is not the golden patch";
  Bytes result;
  ASSERT_EQ(Apply(base, golden, &result), Status::kOk);
  EXPECT_EQ(result, newer);
}

void Keys(const char* prefix, int from, int to, const std::function<void(const uint8_t*, size_t)>& fn) {
  for (int i = from; i < to; ++i) {
    const std::string k = prefix + std::to_string(i);
    fn(reinterpret_cast<const uint8_t*>(k.data()), k.size());
  }
}

TEST(PatchGolden, CuckooV1) {
  // cuckoo-v1.bin, then key-100 .. key-149 deleted and key-1000 .. key-1049 added.
  CheckGoldenPatch<CuckooFilter>("cuckoo-v1.bin", "patch-cuckoo-v1.bin", [](CuckooFilter& f) {
    Keys("key-", 100, 150, [&](const uint8_t* k, size_t n) { ASSERT_EQ(f.Delete(k, n), Status::kOk); });
    Keys("key-", 1000, 1050, [&](const uint8_t* k, size_t n) { ASSERT_EQ(f.Add(k, n), Status::kOk); });
  });
}

TEST(PatchGolden, BloomV4) {
  // bloom-v4.bin, then "b15" .. "b39" added (a fourth sub-filter).
  CheckGoldenPatch<ScalableBloomFilter>("bloom-v4.bin", "patch-bloom-v4.bin", [](ScalableBloomFilter& f) {
    Keys("b", 15, 40, [&](const uint8_t* k, size_t n) { ASSERT_EQ(f.Add(k, n), Status::kOk); });
  });
}

TEST(PatchGolden, RedisCuckooV4) {
  // redis-cuckoo-v4.bin, then key-30 .. key-59 deleted and key-300 .. key-329 added.
  CheckGoldenPatch<RedisCuckooFilter>("redis-cuckoo-v4.bin", "patch-redis-cuckoo-v4.bin", [](RedisCuckooFilter& f) {
    Keys("key-", 30, 60, [&](const uint8_t* k, size_t n) { ASSERT_EQ(f.Delete(k, n), Status::kOk); });
    Keys("key-", 300, 330, [&](const uint8_t* k, size_t n) { ASSERT_EQ(f.Add(k, n), Status::kOk); });
  });
}

// A Redis cuckoo filter's compaction frees sub-filters: patches from the grown
// state to the compacted one (a sub-filter fewer) and back both apply.
TEST(Patch, RedisCuckooAcrossACompactionThatFreesSubFilters) {
  RedisCuckooParams p;
  p.capacity = 16;
  p.bucket_size = 2;
  p.expansion = 2;
  std::unique_ptr<RedisCuckooFilter> f;
  ASSERT_EQ(RedisCuckooFilter::Create(p, &f), Status::kOk);
  Keys("k", 0, 200, [&](const uint8_t* k, size_t n) { ASSERT_EQ(f->Add(k, n), Status::kOk); });
  ASSERT_GE(f->sub_filter_count(), 4u);
  const uint32_t grown = f->sub_filter_count();
  Bytes older(f->SerializedSize());
  f->Serialize(older.data());
  Keys("k", 0, 190, [&](const uint8_t* k, size_t n) { ASSERT_EQ(f->Delete(k, n), Status::kOk); });
  ASSERT_LT(f->sub_filter_count(), grown);
  Bytes newer(f->SerializedSize());
  f->Serialize(newer.data());
  ASSERT_LT(newer.size(), older.size());
  Bytes result;
  ASSERT_EQ(Apply(older, MustDiff(older, newer), &result), Status::kOk);
  EXPECT_EQ(result, newer);
  ASSERT_EQ(Apply(newer, MustDiff(newer, older), &result), Status::kOk);
  EXPECT_EQ(result, older);
  std::unique_ptr<RedisCuckooFilter> g;
  ASSERT_EQ(RedisCuckooFilter::Deserialize(result.data(), result.size(), &g), Status::kOk);
  EXPECT_EQ(g->sub_filter_count(), grown);
}

}  // namespace
}  // namespace cuckoo
