// Tests of serialized format versions 2 and 3 (docs/FORMAT.md §11-§13;
// src/format/format.h, ScalableCuckooFilter / ScalableBloomFilter::Deserialize): the
// layout read back field by field, the type errors between the two filter
// types, every truncation and every single-bit flip of small grown files
// refused, every flip with the checksums recomputed either refused or loaded
// to exactly those bytes, the relations between consecutive sub-filters, the
// Bloom section's ranges and padding, other versions, and the test vectors of
// §13 with their golden files.
//
// Run:    ctest --test-dir build/native -R 'FormatV2|FormatV3|GoldenV' --output-on-failure
// Golden: CUCKOO_UPDATE_GOLDEN=1 build/native/cuckoo_native_tests --gtest_filter='GoldenV*'
//         rewrites tests/golden/cuckoo-v2.bin, bloom-v2.bin and bloom-v3.bin
//         (only together with a format version bump).

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "alloc_probe.h"
#include "bloom/bloom_filter.h"
#include "cuckoo/cuckoo_filter.h"
#include "format/format.h"
#include "growth_test_util.h"
#include "common/hash.h"
#include "growth/scalable_filter.h"
#include "status.h"
#include "test_util.h"

#ifndef CUCKOO_GOLDEN_DIR
#error "CUCKOO_GOLDEN_DIR must be defined (CMakeLists.txt sets it to tests/golden)"
#endif

namespace cuckoo_test {
namespace {

// ---------------------------------------------------------------------------
// Filters written in versions 2 and 3, which this file tests: a new filter is
// written as version 4 (format_v4_test.cc) unless told otherwise.

GrowingCuckooPtr MakeV2(const CuckooParams& p, uint32_t expansion) {
  GrowingCuckooPtr f = MakeGrowing(p, expansion);
  if (f != nullptr) EXPECT_EQ(f->SetFormatVersion(format::kFormatVersionStack), Status::kOk);
  return f;
}
// Version 2 for kDoubleHashing, version 3 for kIndependent.
GrowingBloomPtr MakeLegacyBloom(const ScalableBloomParams& p) {
  GrowingBloomPtr f = MakeGrowingBloom(p);
  const uint16_t version = p.positions == BloomPositions::kDoubleHashing
                               ? format::kFormatVersionStack
                               : format::kFormatVersionBloom;
  if (f != nullptr) EXPECT_EQ(f->SetFormatVersion(version), Status::kOk);
  return f;
}

// ---------------------------------------------------------------------------
// Small grown filters of each type, and loading under a sentinel.

// 3 sub-filters: f = 5, 6, 7; 3, 6, 12 buckets of 2 (about 300 bytes).
Bytes SmallGrownCuckoo(uint32_t subs = 3) {
  GrowingCuckooPtr f = MakeV2(Params(1, 5, 2, 10, 77), 2);
  std::vector<std::string> keys;
  for (int i = 0; f->sub_filter_count() < subs || i < 3; ++i) {
    EXPECT_EQ(Add(*f, Key("sc-", i)), Status::kOk);
    keys.push_back(Key("sc-", i));
  }
  EXPECT_EQ(Delete(*f, keys[0]), Status::kOk);
  return Serialize(*f);
}

// 3 sub-filters of capacity 2, 4, 8 (about 220 bytes); version 3, or
// version 2 with kDoubleHashing.
Bytes SmallGrownBloom(uint32_t subs = 3,
                      BloomPositions positions = BloomPositions::kIndependent) {
  ScalableBloomParams p = GrowingBloom(2, 0.1, 2, 77);
  p.positions = positions;
  GrowingBloomPtr f = MakeLegacyBloom(p);
  for (int i = 0; f->sub_filter_count() < subs; ++i) EXPECT_EQ(Add(*f, Key("sb-", i)), Status::kOk);
  EXPECT_EQ(Add(*f, "one more"), Status::kOk);
  return Serialize(*f);
}

// Loads `bytes` into a slot holding a sentinel filter; checks that a refusal
// leaves the slot alone.
Status LoadCuckooKeepingSentinel(const Bytes& bytes) {
  GrowingCuckooPtr out = MakeV2(Params(5, 8, 2), 2);
  const ScalableCuckooFilter* sentinel = out.get();
  const Status s = LoadAs(bytes, &out);
  if (s != Status::kOk) EXPECT_EQ(out.get(), sentinel) << "*out changed on refusal";
  return s;
}
Status LoadBloomKeepingSentinel(const Bytes& bytes) {
  GrowingBloomPtr out = MakeLegacyBloom(GrowingBloom(5, 0.1, 2));
  const ScalableBloomFilter* sentinel = out.get();
  const Status s = LoadAs(bytes, &out);
  if (s != Status::kOk) EXPECT_EQ(out.get(), sentinel) << "*out changed on refusal";
  return s;
}

Bytes Flipped(const Bytes& b, size_t bit) {
  Bytes out = b;
  out[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
  return out;
}

// ===========================================================================
// Layout

TEST(FormatV2Layout, AGrowingCuckooFilterIsAStackHeaderAndWholeVersion1Files) {
  GrowingCuckooPtr f = MakeV2(Params(12, 9, 4, 300, 0x1122334455667788ULL), 3);
  ASSERT_NE(f, nullptr);
  std::vector<std::string> keys;
  for (int i = 0; f->sub_filter_count() < 3; ++i) ASSERT_EQ(Add(*f, Key("lay-", i)), Status::kOk);
  const Bytes b = Serialize(*f);
  EXPECT_EQ(std::string(b.begin(), b.begin() + 4), "CKOO");
  EXPECT_EQ(GetLE(b, 4, 2), 2u);
  EXPECT_EQ(b[stack_off::kType], format::kTypeCuckoo);
  EXPECT_EQ(b[stack_off::kSubFilterCount], 3u);
  EXPECT_EQ(GetLE(b, stack_off::kExpansion, 4), 3u);
  EXPECT_EQ(GetLE(b, stack_off::kReserved, 4), 0u);
  EXPECT_EQ(GetLE(b, stack_off::kSeed, 8), 0x1122334455667788ULL);
  size_t at = format::kStackHeaderBytes;
  for (uint32_t j = 0; j < 3; ++j) {
    const Bytes own = Serialize(f->sub_filter(j));
    ASSERT_LE(at + own.size(), b.size());
    EXPECT_TRUE(std::equal(own.begin(), own.end(), b.begin() + static_cast<std::ptrdiff_t>(at)))
        << "section " << j << " is sub-filter " << j << "'s version-1 file";
    EXPECT_EQ(GetLE(own, off::kVersion, 2), 1u);
    EXPECT_EQ(own[off::kFingerprintBits], 9 + j);
    FilterPtr alone;
    EXPECT_EQ(Load(own, &alone), Status::kOk) << "section " << j << " loads as a plain filter";
    at += own.size();
  }
  EXPECT_EQ(SectionOffsets(b).back(), at);
  ASSERT_EQ(b.size(), at + format::kChecksumBytes);
  EXPECT_EQ(GetLE(b, at, 8), cuckoo::Checksum(b.data(), at));
}

TEST(FormatV2Layout, ABloomFilterIsAStackHeaderAndBloomSections) {
  GrowingBloomPtr f = MakeLegacyBloom(GrowingBloom(20, 0.03, 4, 0x0102030405060708ULL));
  ASSERT_NE(f, nullptr);
  for (int i = 0; f->sub_filter_count() < 3; ++i) ASSERT_EQ(Add(*f, Key("bl-", i)), Status::kOk);
  const Bytes b = Serialize(*f);
  EXPECT_EQ(std::string(b.begin(), b.begin() + 4), "CKOO");
  EXPECT_EQ(GetLE(b, 4, 2), 3u) << "a new Bloom filter is version 3";
  EXPECT_EQ(b[stack_off::kType], format::kTypeBloom);
  EXPECT_EQ(b[stack_off::kSubFilterCount], 3u);
  EXPECT_EQ(GetLE(b, stack_off::kExpansion, 4), 4u);
  EXPECT_EQ(GetLE(b, stack_off::kReserved, 4), 0u);
  EXPECT_EQ(GetLE(b, stack_off::kSeed, 8), 0x0102030405060708ULL);
  size_t at = format::kStackHeaderBytes;
  for (uint32_t j = 0; j < 3; ++j) {
    const BloomFilter& s = f->sub_filter(j);
    EXPECT_EQ(GetLE(b, at + bloom_off::kHashCount, 4), s.hash_count());
    EXPECT_EQ(GetLE(b, at + bloom_off::kReserved, 4), 0u);
    EXPECT_EQ(GetLE(b, at + bloom_off::kBitCount, 8), s.bit_count());
    EXPECT_EQ(GetLE(b, at + bloom_off::kCapacity, 8), s.capacity());
    EXPECT_EQ(GetLE(b, at + bloom_off::kItemCount, 8), s.size());
    double rate;
    const uint64_t raw = GetLE(b, at + bloom_off::kFalsePositiveRate, 8);
    std::memcpy(&rate, &raw, sizeof rate);
    EXPECT_EQ(rate, s.false_positive_rate()) << "IEEE 754 binary64, little-endian";
    EXPECT_EQ(GetLE(b, at + bloom_off::kWordBytes, 8), (s.bit_count() + 63) / 64 * 8);
    at += format::kBloomSectionHeaderBytes;
    // Bit p is bit p % 8 of byte p / 8 of the array (little-endian 64-bit words).
    for (uint64_t p = 0; p < s.word_bytes() * 8; ++p) {
      const bool in_file = (b[at + p / 8] >> (p % 8)) & 1;
      const bool in_filter = (s.words()[p / 64] >> (p % 64)) & 1;
      ASSERT_EQ(in_file, in_filter) << "sub " << j << " bit " << p;
      if (p >= s.bit_count()) ASSERT_FALSE(in_file) << "padding bit " << p;
    }
    at += s.word_bytes();
  }
  EXPECT_EQ(SectionOffsets(b).back(), at);
  ASSERT_EQ(b.size(), at + format::kChecksumBytes);
  EXPECT_EQ(GetLE(b, at, 8), cuckoo::Checksum(b.data(), at));
}

// ===========================================================================
// The reader: which type, which version

TEST(FormatV2Reader, EachTypesBytesAreNamedToTheOtherTypesReader) {
  const Bytes bloom = SmallGrownBloom();
  const Bytes cuckoo_v2 = SmallGrownCuckoo();
  FilterPtr plain = Make(Params(10, 8, 4));
  ASSERT_NE(plain, nullptr);
  const Bytes cuckoo_v1 = Serialize(*plain);
  EXPECT_EQ(LoadCuckooKeepingSentinel(bloom), Status::kFormatWrongFamily);
  EXPECT_EQ(LoadBloomKeepingSentinel(cuckoo_v2), Status::kFormatWrongFamily);
  EXPECT_EQ(LoadBloomKeepingSentinel(cuckoo_v1), Status::kFormatWrongFamily);
  // The plain filter reads version 1 only.
  FilterPtr out;
  EXPECT_EQ(Load(cuckoo_v2, &out), Status::kFormatUnsupportedVersion);
  EXPECT_EQ(Load(bloom, &out), Status::kFormatUnsupportedVersion);
  // The type is judged before the length and the checksum (FORMAT.md §12,
  // check 4a): a cut or damaged file of the other type is still named.
  EXPECT_EQ(LoadCuckooKeepingSentinel(Bytes(bloom.begin(), bloom.begin() + 7)),
            Status::kFormatWrongFamily);
  EXPECT_EQ(LoadBloomKeepingSentinel(Bytes(cuckoo_v2.begin(), cuckoo_v2.begin() + 7)),
            Status::kFormatWrongFamily);
  EXPECT_EQ(LoadBloomKeepingSentinel(Bytes(cuckoo_v1.begin(), cuckoo_v1.begin() + 6)),
            Status::kFormatWrongFamily);
  Bytes damaged = bloom;
  damaged.back() ^= 1;
  EXPECT_EQ(LoadCuckooKeepingSentinel(damaged), Status::kFormatWrongFamily);
  EXPECT_EQ(LoadBloomKeepingSentinel(damaged), Status::kFormatChecksumMismatch);
}

// One status for "another family's bytes" (22), whatever the two families.
TEST(FormatV2Reader, AnotherFamilysBytesAreOneStatusWithItsOwnMessage) {
  EXPECT_EQ(static_cast<int>(Status::kFormatWrongFamily), 22);
  const std::string message = cuckoo::StatusMessage(Status::kFormatWrongFamily);
  EXPECT_NE(message.find("another family"), std::string::npos) << message;
  const Bytes bloom_v3 = SmallGrownBloom();
  const Bytes bloom_v2 = SmallGrownBloom(3, BloomPositions::kDoubleHashing);
  const Bytes cuckoo_v2 = SmallGrownCuckoo();
  FilterPtr plain = Make(Params(10, 8, 4));
  ASSERT_NE(plain, nullptr);
  const Bytes cuckoo_v1 = Serialize(*plain);
  for (const Bytes* b : {&bloom_v3, &bloom_v2}) {
    EXPECT_EQ(LoadCuckooKeepingSentinel(*b), Status::kFormatWrongFamily);
    GrowingBloomPtr f;
    EXPECT_EQ(LoadAs(*b, &f), Status::kOk);
  }
  for (const Bytes* b : {&cuckoo_v1, &cuckoo_v2}) {
    EXPECT_EQ(LoadBloomKeepingSentinel(*b), Status::kFormatWrongFamily);
    GrowingCuckooPtr f;
    EXPECT_EQ(LoadAs(*b, &f), Status::kOk);
  }
}

TEST(FormatV2Reader, VersionsOtherThanOneToFourAreRefused) {
  for (const Bytes& base : {SmallGrownCuckoo(), SmallGrownBloom()}) {
    for (uint16_t version : {0, 5, 0x103, 0x104, 0xffff}) {
      Bytes b = base;
      PutLE(&b, 4, 2, version);
      Reseal(&b);
      EXPECT_EQ(LoadCuckooKeepingSentinel(b), Status::kFormatUnsupportedVersion) << version;
      EXPECT_EQ(LoadBloomKeepingSentinel(b), Status::kFormatUnsupportedVersion) << version;
    }
    // Magic and version come before a full header is required.
    EXPECT_EQ(LoadCuckooKeepingSentinel(Bytes{'C', 'K', 'O', 'O', 5, 0}),
              Status::kFormatUnsupportedVersion);
    EXPECT_EQ(LoadBloomKeepingSentinel(Bytes{'C', 'K', 'O', 'O', 5, 0}),
              Status::kFormatUnsupportedVersion);
    EXPECT_EQ(LoadBloomKeepingSentinel(Bytes{'C', 'K', 'O', 'X', 2, 0}), Status::kFormatBadMagic);
    EXPECT_EQ(LoadBloomKeepingSentinel(Bytes{'C', 'K', 'O'}), Status::kFormatTruncated);
  }
}

// Version 3 holds Bloom filters only; version 2 both types. A version-3 file
// with type byte 1 names no type: both readers refuse it alike (a bad
// parameter, or truncated while too short), and neither sends the caller to
// the other.
TEST(FormatV2Reader, VersionThreeOfTypeCuckooIsABadParameter) {
  Bytes cuckoo = SmallGrownCuckoo();
  PutLE(&cuckoo, 4, 2, 3);
  Reseal(&cuckoo);
  EXPECT_EQ(LoadCuckooKeepingSentinel(cuckoo), Status::kFormatBadParameter);
  EXPECT_EQ(LoadBloomKeepingSentinel(cuckoo), Status::kFormatBadParameter);
  EXPECT_EQ(LoadCuckooKeepingSentinel(Bytes{'C', 'K', 'O', 'O', 3, 0, 1}), Status::kFormatTruncated);
  EXPECT_EQ(LoadBloomKeepingSentinel(Bytes{'C', 'K', 'O', 'O', 3, 0, 1}), Status::kFormatTruncated);
  // A version-3 Bloom file is named by type before anything else, as in version 2.
  EXPECT_EQ(LoadCuckooKeepingSentinel(Bytes{'C', 'K', 'O', 'O', 3, 0, 2}),
            Status::kFormatWrongFamily);
  EXPECT_EQ(LoadBloomKeepingSentinel(Bytes{'C', 'K', 'O', 'O', 3, 0, 2}), Status::kFormatTruncated);
  Bytes bloom = SmallGrownBloom(3, BloomPositions::kDoubleHashing);
  ASSERT_EQ(GetLE(bloom, 4, 2), 2u);
  GrowingBloomPtr f;
  EXPECT_EQ(LoadAs(bloom, &f), Status::kOk);
}

TEST(FormatV2Reader, EveryTruncationIsRefusedAsTruncated) {
  const Bytes cuckoo = SmallGrownCuckoo();
  const Bytes bloom = SmallGrownBloom();
  ASSERT_LT(cuckoo.size(), 400u);
  ASSERT_LT(bloom.size(), 400u);
  for (size_t len = 0; len < cuckoo.size(); ++len) {
    const Bytes cut(cuckoo.begin(), cuckoo.begin() + static_cast<std::ptrdiff_t>(len));
    EXPECT_EQ(LoadCuckooKeepingSentinel(cut), Status::kFormatTruncated) << "cuckoo, length " << len;
  }
  for (size_t len = 0; len < bloom.size(); ++len) {
    const Bytes cut(bloom.begin(), bloom.begin() + static_cast<std::ptrdiff_t>(len));
    EXPECT_EQ(LoadBloomKeepingSentinel(cut), Status::kFormatTruncated) << "bloom, length " << len;
  }
}

TEST(FormatV2Reader, TrailingBytesAndChecksums) {
  for (const Bytes& base : {SmallGrownCuckoo(), SmallGrownBloom()}) {
    const bool is_cuckoo = base[stack_off::kType] == format::kTypeCuckoo;
    auto load = [&](const Bytes& b) {
      return is_cuckoo ? LoadCuckooKeepingSentinel(b) : LoadBloomKeepingSentinel(b);
    };
    Bytes b = base;
    b.push_back(0);
    EXPECT_EQ(load(b), Status::kFormatTrailingBytes);
    b.insert(b.end(), base.end() - 8, base.end());  // a checksum after the checksum
    EXPECT_EQ(load(b), Status::kFormatTrailingBytes);
    b = base;
    b.back() ^= 0x40;
    EXPECT_EQ(load(b), Status::kFormatChecksumMismatch);
    b = base;
    b[format::kStackHeaderBytes + 20] ^= 1;
    EXPECT_EQ(load(b), Status::kFormatChecksumMismatch);
  }
  // A cuckoo section's own checksum is checked too, under a right outer one.
  Bytes b = SmallGrownCuckoo();
  const std::vector<size_t> at = SectionOffsets(b);
  b[at[2] - 1] ^= 0x10;  // last byte of section 1: its checksum
  Reseal(&b);
  EXPECT_EQ(LoadCuckooKeepingSentinel(b), Status::kFormatChecksumMismatch);
}

// Every single-bit flip changes a file whose checksum covers every byte, so
// every one must be refused, with a format status, never kOk.
TEST(FormatV2Reader, EverySingleBitFlipIsRefused) {
  const Bytes cuckoo = SmallGrownCuckoo();
  const Bytes bloom = SmallGrownBloom();
  std::map<Status, int> seen;
  for (size_t bit = 0; bit < cuckoo.size() * 8; ++bit) {
    const Bytes b = Flipped(cuckoo, bit);
    const Status s = LoadCuckooKeepingSentinel(b);
    ASSERT_NE(s, Status::kOk) << "cuckoo: flipping bit " << bit << " went unnoticed";
    EXPECT_TRUE(IsRefusal(s)) << "cuckoo bit " << bit << ": " << ::testing::PrintToString(s);
    ++seen[s];
    EXPECT_NE(LoadBloomKeepingSentinel(b), Status::kOk) << "cuckoo bit " << bit;
  }
  for (size_t bit = 0; bit < bloom.size() * 8; ++bit) {
    const Bytes b = Flipped(bloom, bit);
    const Status s = LoadBloomKeepingSentinel(b);
    ASSERT_NE(s, Status::kOk) << "bloom: flipping bit " << bit << " went unnoticed";
    EXPECT_TRUE(IsRefusal(s)) << "bloom bit " << bit << ": " << ::testing::PrintToString(s);
    ++seen[s];
    EXPECT_NE(LoadCuckooKeepingSentinel(b), Status::kOk) << "bloom bit " << bit;
  }
  // Most are checksum mismatches; the magic and the version are judged first.
  // Of the 16 version bits, flipping bit 0 of the cuckoo file's 2 gives 3,
  // which holds no cuckoo filter (bad parameter); of the Bloom file's 3 gives
  // 2 (then its checksum fails), and bit 1 gives 1 (a cuckoo filter's).
  EXPECT_GT(seen[Status::kFormatChecksumMismatch], 3000);
  EXPECT_EQ(seen[Status::kFormatBadMagic], 2 * 32);
  EXPECT_EQ(seen[Status::kFormatUnsupportedVersion], 15 + 14);
}

// With every checksum recomputed after the flip, a file either is refused or
// loads to a filter that writes exactly those bytes back: a reader accepts
// only what a writer could have written.
TEST(FormatV2Reader, EveryResealedBitFlipIsRefusedOrLoadsToItself) {
  const Bytes files[] = {SmallGrownCuckoo(3), SmallGrownCuckoo(1), SmallGrownBloom(3),
                         SmallGrownBloom(1), SmallGrownBloom(3, BloomPositions::kDoubleHashing)};
  for (const Bytes& base : files) {
    const bool is_cuckoo = base[stack_off::kType] == format::kTypeCuckoo;
    const std::string what = std::string(is_cuckoo ? "cuckoo" : "bloom") + " with " +
                             std::to_string(base[stack_off::kSubFilterCount]) + " sub-filters";
    int loaded = 0;
    for (size_t bit = 0; bit < (base.size() - format::kChecksumBytes) * 8; ++bit) {
      Bytes b = Flipped(base, bit);
      if (!ResealAll(&b)) Reseal(&b);
      Status s;
      Bytes back;
      if (is_cuckoo) {
        GrowingCuckooPtr f;
        s = LoadAs(b, &f);
        if (s == Status::kOk) back = Serialize(*f);
      } else {
        GrowingBloomPtr f;
        s = LoadAs(b, &f);
        if (s == Status::kOk) back = Serialize(*f);
      }
      if (s == Status::kOk) {
        ++loaded;
        EXPECT_EQ(back, b) << what << ": bit " << bit << " loaded but wrote other bytes";
      } else {
        EXPECT_TRUE(IsRefusal(s)) << what << " bit " << bit << ": " << ::testing::PrintToString(s);
      }
    }
    EXPECT_GT(loaded, 0) << what << ": some fields take any value (seed, PRNG state, bits)";
  }
}

// ===========================================================================
// Version 2, type cuckoo: the stack header and the relation between
// consecutive sub-filters (FORMAT.md §12), in files sealed right.

// Three empty sections of a growing cuckoo filter with expansion 2.
std::vector<CuckooSectionSpec> ValidCuckooSections() {
  std::vector<CuckooSectionSpec> s(3);
  for (uint32_t j = 0; j < 3; ++j) {
    s[j].f = 6 + j;
    s[j].b = 4;
    s[j].m = 5u << j;
    s[j].capacity = 10u << j;
    s[j].max_kicks = 100;
    s[j].seed = 0xfeed;
    s[j].rng_state = 0xfeed + j;
  }
  return s;
}

Bytes CuckooFile(const std::vector<CuckooSectionSpec>& sections, uint32_t expansion = 2,
                 uint64_t seed = 0xfeed) {
  StackFile file;
  file.type = format::kTypeCuckoo;
  file.expansion = expansion;
  file.seed = seed;
  for (const CuckooSectionSpec& s : sections) file.sections.push_back(s.Write());
  return file.Write();
}

TEST(FormatV2Cuckoo, HandMadeFileLoads) {
  GrowingCuckooPtr f;
  const Bytes b = CuckooFile(ValidCuckooSections());
  ASSERT_EQ(LoadAs(b, &f), Status::kOk);
  EXPECT_EQ(f->sub_filter_count(), 3u);
  EXPECT_EQ(f->expansion(), 2u);
  EXPECT_EQ(Serialize(*f), b);
  EXPECT_EQ(Add(*f, "x"), Status::kOk);
  // Bucket counts and capacities times 3 with expansion 3.
  std::vector<CuckooSectionSpec> s = ValidCuckooSections();
  for (uint32_t j = 1; j < 3; ++j) {
    s[j].m = s[j - 1].m * 3;
    s[j].capacity = s[j - 1].capacity * 3;
  }
  ASSERT_EQ(LoadAs(CuckooFile(s, 3), &f), Status::kOk);
  EXPECT_EQ(f->sub_filter(2).bucket_count(), 45u);
}

TEST(FormatV2Cuckoo, SubFilterRelationViolationsAreBadParameters) {
  struct Case {
    const char* what;
    void (*edit)(std::vector<CuckooSectionSpec>*);
  };
  const Case cases[] = {
      {"f of sub 1 = f0 + 2", [](std::vector<CuckooSectionSpec>* s) { (*s)[1].f = 8; }},
      {"f of sub 1 = f0", [](std::vector<CuckooSectionSpec>* s) { (*s)[1].f = 6; }},
      {"f of sub 2 = f1", [](std::vector<CuckooSectionSpec>* s) { (*s)[2].f = 7; }},
      {"m of sub 1 + 1", [](std::vector<CuckooSectionSpec>* s) { (*s)[1].m = 11; }},
      {"m of sub 1 - 1", [](std::vector<CuckooSectionSpec>* s) { (*s)[1].m = 9; }},
      {"m of sub 2 = m1", [](std::vector<CuckooSectionSpec>* s) { (*s)[2].m = 10; }},
      {"capacity of sub 1 + 1", [](std::vector<CuckooSectionSpec>* s) { (*s)[1].capacity = 21; }},
      {"capacity of sub 2 - 1", [](std::vector<CuckooSectionSpec>* s) { (*s)[2].capacity = 39; }},
      {"seed of sub 1", [](std::vector<CuckooSectionSpec>* s) { (*s)[1].seed = 0xfeee; }},
      {"seed of every sub", [](std::vector<CuckooSectionSpec>* s) {
         for (auto& x : *s) x.seed = 0xfeee;
       }},
      {"max kicks of sub 2", [](std::vector<CuckooSectionSpec>* s) { (*s)[2].max_kicks = 101; }},
      {"b of sub 1", [](std::vector<CuckooSectionSpec>* s) { (*s)[1].b = 8; }},
      {"b of sub 0", [](std::vector<CuckooSectionSpec>* s) { (*s)[0].b = 2; }},
  };
  for (const Case& c : cases) {
    std::vector<CuckooSectionSpec> s = ValidCuckooSections();
    c.edit(&s);
    EXPECT_EQ(LoadCuckooKeepingSentinel(CuckooFile(s)), Status::kFormatBadParameter) << c.what;
  }
  // Each section is itself a valid version-1 file in every case above.
  for (const Case& c : cases) {
    std::vector<CuckooSectionSpec> s = ValidCuckooSections();
    c.edit(&s);
    for (const CuckooSectionSpec& x : s) {
      FilterPtr alone;
      EXPECT_EQ(Load(x.Write(), &alone), Status::kOk) << c.what;
    }
  }
}

TEST(FormatV2Cuckoo, StackHeaderFieldsOutOfRangeAreBadParameters) {
  const std::vector<CuckooSectionSpec> valid = ValidCuckooSections();
  struct Case {
    const char* what;
    uint32_t expansion;
    uint8_t count;
    uint32_t reserved;
    uint8_t type;
    size_t sections;
  };
  const Case cases[] = {
      {"expansion 1", 1, 0xff, 0, format::kTypeCuckoo, 3},
      {"expansion 3 for sections grown by 2", 3, 0xff, 0, format::kTypeCuckoo, 3},
      {"expansion 0 with 3 sub-filters", 0, 0xff, 0, format::kTypeCuckoo, 3},
      {"expansion 0 with 1 sub-filter: written as version 1", 0, 0xff, 0, format::kTypeCuckoo, 1},
      {"expansion 1025", 1025, 0xff, 0, format::kTypeCuckoo, 3},
      {"expansion 2^32 - 1", UINT32_MAX, 0xff, 0, format::kTypeCuckoo, 3},
      {"count 0", 2, 0, 0, format::kTypeCuckoo, 3},
      {"count 33", 2, 33, 0, format::kTypeCuckoo, 3},
      {"reserved 1", 2, 0xff, 1, format::kTypeCuckoo, 3},
      {"reserved 2^31", 2, 0xff, 0x80000000u, format::kTypeCuckoo, 3},
      {"type 0", 2, 0xff, 0, 0, 3},
      {"type 3", 2, 0xff, 0, 3, 3},
  };
  for (const Case& c : cases) {
    StackFile file;
    file.type = c.type;
    file.expansion = c.expansion;
    file.count = c.count;
    file.reserved = c.reserved;
    file.seed = 0xfeed;
    for (size_t j = 0; j < c.sections; ++j) file.sections.push_back(valid[j].Write());
    EXPECT_EQ(LoadCuckooKeepingSentinel(file.Write()), Status::kFormatBadParameter) << c.what;
  }
  // Expansion 1024 is the largest (with sections that follow it).
  std::vector<CuckooSectionSpec> s = ValidCuckooSections();
  s.resize(2);
  s[1].m = 5 * 1024;
  s[1].capacity = 10 * 1024;
  GrowingCuckooPtr f;
  EXPECT_EQ(LoadAs(CuckooFile(s, 1024), &f), Status::kOk);
  // A count that disagrees with the sections present.
  StackFile fewer;
  fewer.seed = 0xfeed;
  for (const auto& x : valid) fewer.sections.push_back(x.Write());
  fewer.count = 2;
  EXPECT_EQ(LoadCuckooKeepingSentinel(fewer.Write()), Status::kFormatTrailingBytes);
  fewer.count = 4;
  EXPECT_EQ(LoadCuckooKeepingSentinel(fewer.Write()), Status::kFormatTruncated);
}

TEST(FormatV2Cuckoo, ASectionsOwnRefusalIsReported) {
  struct Case {
    const char* what;
    void (*edit)(std::vector<CuckooSectionSpec>*);
    Status expected;
  };
  const Case cases[] = {
      {"item count of sub 1", [](std::vector<CuckooSectionSpec>* s) { (*s)[1].item_count = 1; },
       Status::kFormatCountMismatch},
      {"victim of sub 2 past m",
       [](std::vector<CuckooSectionSpec>* s) {
         (*s)[2].victim_fp = 3;
         (*s)[2].victim_bucket = 20;
         (*s)[2].item_count = 1;
       },
       Status::kFormatBadVictim},
      {"f of sub 0 = 3", [](std::vector<CuckooSectionSpec>* s) { (*s)[0].f = 3; },
       Status::kFormatBadParameter},
      {"capacity of sub 0 > slots",
       [](std::vector<CuckooSectionSpec>* s) { (*s)[0].capacity = 21; },
       Status::kFormatBadParameter},
  };
  for (const Case& c : cases) {
    std::vector<CuckooSectionSpec> s = ValidCuckooSections();
    c.edit(&s);
    EXPECT_EQ(LoadCuckooKeepingSentinel(CuckooFile(s)), c.expected) << c.what;
  }
  // A section of version 2 inside version 2.
  StackFile file;
  file.seed = 0xfeed;
  const std::vector<CuckooSectionSpec> valid = ValidCuckooSections();
  file.sections.push_back(valid[0].Write());
  Bytes inner = valid[1].Write();
  PutLE(&inner, off::kVersion, 2, 2);
  Reseal(&inner);
  file.sections.push_back(inner);
  EXPECT_EQ(LoadCuckooKeepingSentinel(file.Write()), Status::kFormatUnsupportedVersion);
}

TEST(FormatV2Cuckoo, HugeSectionsAreRefusedBeforeAnythingIsAllocated) {
  // Sub-filter 1 claims 2^32 - 1 buckets and a table to match; the file is short.
  std::vector<CuckooSectionSpec> s = ValidCuckooSections();
  s.resize(2);
  Bytes file = CuckooFile(s);
  const std::vector<size_t> at = SectionOffsets(file);
  PutLE(&file, at[1] + off::kBucketCount, 4, 0xffffffffu);
  PutLE(&file, at[1] + off::kTableBytes, 8, (0xffffffffULL * 4 * 7 + 7) / 8);
  ResealAll(&file);
  Status st = Status::kOk;
  const size_t largest =
      alloc_probe::LargestAllocationDuring([&] { st = LoadCuckooKeepingSentinel(file); });
  EXPECT_EQ(st, Status::kFormatTruncated);
  EXPECT_LT(largest, size_t{1} << 16) << "allocated " << largest << " bytes";
}

// ===========================================================================
// Version 2, type Bloom

// Two Bloom sections: capacity 10 at 2%, then 20 at 1% (expansion 2).
std::vector<BloomSectionSpec> ValidBloomSections() {
  std::vector<BloomSectionSpec> s(2);
  s[0].k = 5;
  s[0].m = 100;
  s[0].capacity = 10;
  s[0].rate = 0.02;
  s[1].k = 6;
  s[1].m = 230;
  s[1].capacity = 20;
  s[1].rate = 0.01;
  return s;
}

Bytes BloomFile(const std::vector<BloomSectionSpec>& sections, uint32_t expansion = 2,
                uint8_t count = 0xff) {
  StackFile file;
  file.type = format::kTypeBloom;
  file.expansion = expansion;
  file.count = count;
  file.seed = 0xb100;
  for (const BloomSectionSpec& s : sections) file.sections.push_back(s.Write());
  return file.Write();
}

TEST(FormatV2Bloom, HandMadeFileLoads) {
  GrowingBloomPtr f;
  std::vector<BloomSectionSpec> s = ValidBloomSections();
  s[0].words.assign(16, 0);
  s[0].words[0] = 0x81;  // bits 0 and 7
  s[0].words[12] = 0x0f; // bits 96..99, the last four below m = 100
  s[0].item_count = 3;
  const Bytes b = BloomFile(s);
  ASSERT_EQ(LoadAs(b, &f), Status::kOk);
  EXPECT_EQ(f->sub_filter_count(), 2u);
  EXPECT_EQ(f->sub_filter(0).SetBitCount(), 6u);
  EXPECT_EQ(f->sub_filter(0).size(), 3u);
  EXPECT_EQ(f->sub_filter(1).hash_count(), 6u);
  EXPECT_EQ(f->seed(), 0xb100u);
  EXPECT_EQ(Serialize(*f), b);
  // m and k are stored, not recomputed: any m and k in range load.
  s[1].m = 64;
  s[1].k = 64;
  EXPECT_EQ(LoadAs(BloomFile(s), &f), Status::kOk);
  // One section without growth.
  s.resize(1);
  EXPECT_EQ(LoadAs(BloomFile(s, 0), &f), Status::kOk);
  EXPECT_EQ(f->false_positive_rate(), 0.02);
}

TEST(FormatV2Bloom, FieldsOutOfRangeAndBrokenRelationsAreBadParameters) {
  struct Case {
    const char* what;
    size_t j;  // section edited
    void (*edit)(BloomSectionSpec*);
  };
  const Case cases[] = {
      {"k 0", 0, [](BloomSectionSpec* s) { s->k = 0; }},
      {"k 65", 1, [](BloomSectionSpec* s) { s->k = 65; }},
      {"reserved 1", 0, [](BloomSectionSpec* s) { s->reserved = 1; }},
      {"reserved 2^31", 1, [](BloomSectionSpec* s) { s->reserved = 0x80000000u; }},
      {"m 0", 0, [](BloomSectionSpec* s) { s->m = 0; }},
      {"m 2^32", 1, [](BloomSectionSpec* s) { s->m = uint64_t{1} << 32; s->word_bytes = 8; }},
      {"capacity 0", 0, [](BloomSectionSpec* s) { s->capacity = 0; }},
      {"rate 0", 0, [](BloomSectionSpec* s) { s->rate = 0; }},
      {"rate 1", 0, [](BloomSectionSpec* s) { s->rate = 1; }},
      {"rate -0.02", 0, [](BloomSectionSpec* s) { s->rate = -0.02; }},
      {"rate NaN", 1, [](BloomSectionSpec* s) { s->rate = std::numeric_limits<double>::quiet_NaN(); }},
      {"rate infinity", 1, [](BloomSectionSpec* s) { s->rate = std::numeric_limits<double>::infinity(); }},
      {"W one word more", 0, [](BloomSectionSpec* s) { s->word_bytes = 24; }},
      {"W one word less", 1, [](BloomSectionSpec* s) { s->word_bytes = 24; }},
      {"W not whole words", 0, [](BloomSectionSpec* s) { s->word_bytes = 13; }},
      {"capacity of sub 1 + 1", 1, [](BloomSectionSpec* s) { s->capacity = 21; }},
      {"capacity of sub 1 = capacity of sub 0", 1, [](BloomSectionSpec* s) { s->capacity = 10; }},
      {"rate of sub 1 = rate of sub 0", 1, [](BloomSectionSpec* s) { s->rate = 0.02; }},
      {"rate of sub 1 a quarter", 1, [](BloomSectionSpec* s) { s->rate = 0.005; }},
      {"rate of sub 1 one ulp above half", 1,
       [](BloomSectionSpec* s) { s->rate = std::nextafter(0.01, 1.0); }},
  };
  for (const Case& c : cases) {
    std::vector<BloomSectionSpec> s = ValidBloomSections();
    c.edit(&s[c.j]);
    EXPECT_EQ(LoadBloomKeepingSentinel(BloomFile(s)), Status::kFormatBadParameter) << c.what;
  }
  // The stack header.
  const std::vector<BloomSectionSpec> s = ValidBloomSections();
  EXPECT_EQ(LoadBloomKeepingSentinel(BloomFile(s, 1)), Status::kFormatBadParameter) << "expansion 1";
  EXPECT_EQ(LoadBloomKeepingSentinel(BloomFile(s, 0)), Status::kFormatBadParameter)
      << "expansion 0 with 2 sub-filters";
  EXPECT_EQ(LoadBloomKeepingSentinel(BloomFile(s, 1025)), Status::kFormatBadParameter)
      << "expansion 1025";
  EXPECT_EQ(LoadBloomKeepingSentinel(BloomFile(s, 3)), Status::kFormatBadParameter)
      << "expansion 3 for sections grown by 2";
  EXPECT_EQ(LoadBloomKeepingSentinel(BloomFile(s, 2, 0)), Status::kFormatBadParameter) << "count 0";
  EXPECT_EQ(LoadBloomKeepingSentinel(BloomFile(s, 2, 33)), Status::kFormatBadParameter) << "count 33";
  Bytes reserved = BloomFile(s);
  PutLE(&reserved, stack_off::kReserved, 4, 7);
  Reseal(&reserved);
  EXPECT_EQ(LoadBloomKeepingSentinel(reserved), Status::kFormatBadParameter) << "stack reserved";
}

TEST(FormatV2Bloom, SetBitsPastMAreBadPadding) {
  for (uint64_t bit : {100, 101, 120, 127}) {  // m = 100: bits 100..127 of the last word
    std::vector<BloomSectionSpec> s = ValidBloomSections();
    s[0].words.assign(16, 0);
    s[0].words[bit / 8] = static_cast<uint8_t>(1u << (bit % 8));
    EXPECT_EQ(LoadBloomKeepingSentinel(BloomFile(s)), Status::kFormatBadPadding) << bit;
  }
  for (uint64_t bit : {230, 255}) {  // sub 1: m = 230 of 256
    std::vector<BloomSectionSpec> s = ValidBloomSections();
    s[1].words.assign(32, 0);
    s[1].words[bit / 8] = static_cast<uint8_t>(1u << (bit % 8));
    EXPECT_EQ(LoadBloomKeepingSentinel(BloomFile(s)), Status::kFormatBadPadding) << bit;
  }
  // Bit m - 1 is a bit of the filter.
  std::vector<BloomSectionSpec> s = ValidBloomSections();
  s[0].words.assign(16, 0);
  s[0].words[99 / 8] = static_cast<uint8_t>(1u << (99 % 8));
  GrowingBloomPtr f;
  EXPECT_EQ(LoadAs(BloomFile(s), &f), Status::kOk);
  // A whole last word (m a multiple of 64) has no padding.
  s = ValidBloomSections();
  s[0].m = 128;
  s[0].words.assign(16, 0xff);
  EXPECT_EQ(LoadAs(BloomFile(s), &f), Status::kOk);
  EXPECT_EQ(f->sub_filter(0).SetBitCount(), 128u);
}

TEST(FormatV2Bloom, HugeBitArraysAreRefusedBeforeAnythingIsAllocated) {
  std::vector<BloomSectionSpec> s = ValidBloomSections();
  Bytes file = BloomFile(s);
  const std::vector<size_t> at = SectionOffsets(file);
  PutLE(&file, at[1] + bloom_off::kBitCount, 8, 0xffffffffULL);
  PutLE(&file, at[1] + bloom_off::kWordBytes, 8, (0xffffffffULL + 63) / 64 * 8);
  Reseal(&file);
  Status st = Status::kOk;
  const size_t largest =
      alloc_probe::LargestAllocationDuring([&] { st = LoadBloomKeepingSentinel(file); });
  EXPECT_EQ(st, Status::kFormatTruncated);
  EXPECT_LT(largest, size_t{1} << 16) << "allocated " << largest << " bytes";
  PutLE(&file, at[1] + bloom_off::kWordBytes, 8, UINT64_MAX);
  Reseal(&file);
  EXPECT_EQ(LoadBloomKeepingSentinel(file), Status::kFormatTruncated);
}

// ===========================================================================
// Test vectors of docs/FORMAT.md §13, reproduced there byte for byte by an
// independent implementation of §11 (Python, with xxHash 0.8.1 for XXH3), and
// their golden files (tests/golden/README.md).

Bytes FromHex(const std::string& hex) {
  Bytes out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::string ToHex(const Bytes& b) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (uint8_t c : b) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// §13.1: capacity 1, f 5, b 2, max kicks 2, seed 42, expansion 2; add "k0" ..
// "k22" (sub-filter 1 starts at "k7", sub-filter 2 at "k20"); delete "k1", "k3".
const char kCuckooV2Hex[] =
    "434b4f4f0200010302000000000000002a00000000000000"
    "434b4f4f010001000502000003000000020000000000000000000000000000002a00000000000000"
    "010000000000000005000000000000007ef029fde5e6dd780400000000000000"
    "3981302b"
    "633e29576e3cda88"
    "434b4f4f010001000602000006000000020000001b00000005000000000000002a00000000000000"
    "02000000000000000d000000000000007ef029fde5e6dd780900000000000000"
    "cb2ec68bd81667cd88"
    "ea3357c923e996f0"
    "434b4f4f01000100070200000c000000020000000000000000000000000000002a00000000000000"
    "040000000000000003000000000000002a000000000000001500000000000000"
    "57220000000000000000000000000000000000c401"
    "8b6abce8f56c167b"
    "f49ae74962e1c27e";

// §13.2: capacity 4, ε 0.1, seed 42, expansion 2; add "b0" .. "b14" (sub-filter
// 1 starts at "b4", sub-filter 2 at "b12").
const char kBloomV2Hex[] =
    "434b4f4f0200020302000000000000002a00000000000000"
    "04000000000000001900000000000000040000000000000004000000000000009a9999999999a93f0800000000000000"
    "24b7470100000000"
    "05000000000000003e00000000000000080000000000000008000000000000009a9999999999993f0800000000000000"
    "d1f6eb29c990480b"
    "06000000000000009200000000000000100000000000000003000000000000009a9999999999893f1800000000000000"
    "0010101000000888001004a0418002008408000000000000"
    "0f69257c4c458059";

GrowingCuckooPtr BuildCuckooV2() {
  GrowingCuckooPtr f = MakeV2(Params(1, 5, 2, 2, 42), 2);
  if (f == nullptr) return nullptr;
  for (int i = 0; i <= 22; ++i) {
    EXPECT_EQ(Add(*f, Key("k", i)), Status::kOk) << i;
    EXPECT_EQ(f->sub_filter_count(), i < 7 ? 1u : i < 20 ? 2u : 3u) << i;
  }
  EXPECT_EQ(Delete(*f, "k1"), Status::kOk);
  EXPECT_EQ(Delete(*f, "k3"), Status::kOk);
  return f;
}

// §13.3: the same filter as §13.2 in version 3.
const char kBloomV3Hex[] =
    "434b4f4f0300020302000000000000002a00000000000000"
    "04000000000000001900000000000000040000000000000004000000000000009a9999999999a93f0800000000000000"
    "4c95d70100000000"
    "05000000000000003e00000000000000080000000000000008000000000000009a9999999999993f0800000000000000"
    "983da16dc9a26e0c"
    "06000000000000009200000000000000100000000000000003000000000000009a9999999999893f1800000000000000"
    "0010820b2208828200910400000000080000000000000000"
    "32dd006d10bae71d";

GrowingBloomPtr BuildBloom(BloomPositions positions) {
  ScalableBloomParams p = GrowingBloom(4, 0.1, 2, 42);
  p.positions = positions;
  GrowingBloomPtr f = MakeLegacyBloom(p);
  if (f == nullptr) return nullptr;
  for (int i = 0; i <= 14; ++i) {
    EXPECT_EQ(Add(*f, Key("b", i)), Status::kOk) << i;
    EXPECT_EQ(f->sub_filter_count(), i < 4 ? 1u : i < 12 ? 2u : 3u) << i;
  }
  return f;
}

TEST(FormatV2Spec, CuckooVectorOfSection13_1) {
  GrowingCuckooPtr f = BuildCuckooV2();
  ASSERT_NE(f, nullptr);
  const Bytes spec = FromHex(kCuckooV2Hex);
  ASSERT_EQ(spec.size(), 306u);
  EXPECT_EQ(ToHex(Serialize(*f)), ToHex(spec));
  // §13.1's table: sub-filter shapes, and the victim parked in sub-filter 1.
  const uint64_t m[] = {3, 6, 12};
  const uint64_t items[] = {5, 13, 3};
  for (uint32_t j = 0; j < 3; ++j) {
    EXPECT_EQ(f->sub_filter(j).bucket_count(), m[j]);
    EXPECT_EQ(f->sub_filter(j).fingerprint_bits(), 5 + j);
    EXPECT_EQ(f->sub_filter(j).size(), items[j]);
  }
  EXPECT_TRUE(f->sub_filter(1).victim_used());
  // §13.1: "k0" at each level.
  const uint64_t h = HashOf("k0", 42);
  EXPECT_EQ(h, 0x986d6081f77537d7ULL);
  const uint32_t expected[3][3] = {{19, 2, 0}, {39, 5, 1}, {78, 11, 2}};
  for (uint32_t j = 0; j < 3; ++j) {
    const cuckoo::Probe p = CuckooFilterPeer::ProbeOf(f->sub_filter(j), h);
    EXPECT_EQ(p.fingerprint, expected[j][0]) << "level " << j;
    EXPECT_EQ(p.i1, expected[j][1]) << "level " << j;
    EXPECT_EQ(p.i2, expected[j][2]) << "level " << j;
  }
  GrowingCuckooPtr loaded;
  ASSERT_EQ(LoadAs(spec, &loaded), Status::kOk);
  for (int i = 0; i <= 22; ++i) {
    if (i != 1 && i != 3) EXPECT_TRUE(Contain(*loaded, Key("k", i))) << i;
  }
}

GrowingBloomPtr BuildBloomV2() { return BuildBloom(BloomPositions::kDoubleHashing); }
GrowingBloomPtr BuildBloomV3() { return BuildBloom(BloomPositions::kIndependent); }

TEST(FormatV2Spec, BloomVectorOfSection13_2) {
  GrowingBloomPtr f = BuildBloomV2();
  ASSERT_NE(f, nullptr);
  const Bytes spec = FromHex(kBloomV2Hex);
  ASSERT_EQ(spec.size(), 216u);
  EXPECT_EQ(ToHex(Serialize(*f)), ToHex(spec));
  const uint64_t m[] = {25, 62, 146};
  const uint32_t k[] = {4, 5, 6};
  for (uint32_t j = 0; j < 3; ++j) {
    EXPECT_EQ(f->sub_filter(j).bit_count(), m[j]);
    EXPECT_EQ(f->sub_filter(j).hash_count(), k[j]);
  }
  // §13.2: "b0"'s positions in sub-filter 0.
  const uint64_t h = HashOf("b0", 42);
  EXPECT_EQ(h, 0x7f15e648ee5bf9caULL);
  for (uint64_t p : {12, 10, 9}) EXPECT_TRUE((f->sub_filter(0).words()[0] >> p) & 1) << p;
  GrowingBloomPtr loaded;
  ASSERT_EQ(LoadAs(spec, &loaded), Status::kOk);
  for (int i = 0; i <= 14; ++i) EXPECT_TRUE(Contain(*loaded, Key("b", i))) << i;
}

TEST(FormatV3Spec, BloomVectorOfSection13_3) {
  GrowingBloomPtr f = BuildBloomV3();
  ASSERT_NE(f, nullptr);
  const Bytes spec = FromHex(kBloomV3Hex);
  ASSERT_EQ(spec.size(), 216u);
  EXPECT_EQ(ToHex(Serialize(*f)), ToHex(spec));
  // §13.3: "b0"'s positions in sub-filter 0 (k = 4, m = 25): fastrange32 of
  // hi32(h), lo32(h), then of the halves of Mix64(h + 0x9e3779b97f4a7c15).
  const uint64_t h = HashOf("b0", 42);
  EXPECT_EQ(cuckoo::Mix64(h + 0x9e3779b97f4a7c15ULL), 0xd6a2f57f9ccfc15cULL);
  for (uint64_t p : {12, 23, 20, 15}) EXPECT_TRUE((f->sub_filter(0).words()[0] >> p) & 1) << p;
  GrowingBloomPtr loaded;
  ASSERT_EQ(LoadAs(spec, &loaded), Status::kOk);
  EXPECT_EQ(loaded->positions(), BloomPositions::kIndependent);
  for (int i = 0; i <= 14; ++i) EXPECT_TRUE(Contain(*loaded, Key("b", i))) << i;
}

// Like Golden.CuckooV1MatchesByteForByte (format_test.cc): the recipe's bytes
// against the file, byte for byte; CUCKOO_UPDATE_GOLDEN=1 rewrites it.
void CheckGolden(const std::string& name, const Bytes& fresh) {
  const Bytes golden = GoldenFile(name, fresh);
  ASSERT_EQ(golden.size(), fresh.size()) << name;
  size_t first_diff = 0;
  while (first_diff < golden.size() && golden[first_diff] == fresh[first_diff]) ++first_diff;
  EXPECT_EQ(first_diff, golden.size()) << name << ": the serialized bytes changed at offset "
                                       << first_diff << ": a format change needs a version bump";
}

TEST(GoldenV2, CuckooV2MatchesByteForByte) {
  GrowingCuckooPtr f = BuildCuckooV2();
  ASSERT_NE(f, nullptr);
  const Bytes fresh = Serialize(*f);
  EXPECT_EQ(fresh, FromHex(kCuckooV2Hex));
  CheckGolden("cuckoo-v2.bin", fresh);
}

TEST(GoldenV2, BloomV2MatchesByteForByte) {
  GrowingBloomPtr f = BuildBloomV2();
  ASSERT_NE(f, nullptr);
  const Bytes fresh = Serialize(*f);
  EXPECT_EQ(fresh, FromHex(kBloomV2Hex));
  CheckGolden("bloom-v2.bin", fresh);
}

TEST(GoldenV3, BloomV3MatchesByteForByte) {
  GrowingBloomPtr f = BuildBloomV3();
  ASSERT_NE(f, nullptr);
  const Bytes fresh = Serialize(*f);
  EXPECT_EQ(fresh, FromHex(kBloomV3Hex));
  CheckGolden("bloom-v3.bin", fresh);
}

}  // namespace
}  // namespace cuckoo_test
