// Tests of serialized format version 4 (docs/FORMAT.md §14; src/format/format.h):
// every (family, encoding, growth) written as version 4 and read back to the
// same bytes; each header field refused when out of range or inconsistent
// (every single-byte change of the header, with and without the checksum
// resealed); version 4's sections are the sections of the earlier versions,
// byte for byte; legacy files keep their own version; the test vector of
// §14.4 and the golden files of version 4.
//
// Run:    ctest --test-dir build/native -R 'FormatV4' --output-on-failure
// Golden: CUCKOO_UPDATE_GOLDEN=1 build/native/cuckoo_native_tests --gtest_filter='FormatV4Golden.*'
//         rewrites tests/golden/*-v4.bin (only together with a format version bump).

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "format/format.h"
#include "growth_test_util.h"
#include "growth/scalable_filter.h"
#include "status.h"
#include "test_util.h"

#ifndef CUCKOO_GOLDEN_DIR
#error "CUCKOO_GOLDEN_DIR must be defined (CMakeLists.txt sets it to tests/golden)"
#endif

namespace cuckoo_test {
namespace {

namespace format = cuckoo::format;
namespace field = cuckoo::format::v4_field;
using cuckoo::TableEncoding;

std::string ToHex(const uint8_t* p, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += kDigits[p[i] >> 4];
    s += kDigits[p[i] & 15];
  }
  return s;
}

// ---------------------------------------------------------------------------
// Filters of every kind, written as version 4.

struct Kind {
  const char* name;
  bool bloom;
  TableEncoding encoding;      // cuckoo
  BloomPositions positions;    // Bloom
  uint32_t expansion;
};

const Kind kKinds[] = {
    {"cuckoo packed", false, TableEncoding::kPacked, BloomPositions::kIndependent, 0},
    {"cuckoo packed, growing", false, TableEncoding::kPacked, BloomPositions::kIndependent, 2},
    {"cuckoo semi-sorted", false, TableEncoding::kSemiSorted, BloomPositions::kIndependent, 0},
    {"cuckoo semi-sorted, growing", false, TableEncoding::kSemiSorted, BloomPositions::kIndependent, 3},
    {"Bloom", true, TableEncoding::kPacked, BloomPositions::kIndependent, 0},
    {"Bloom, growing", true, TableEncoding::kPacked, BloomPositions::kIndependent, 2},
    {"Bloom double hashing", true, TableEncoding::kPacked, BloomPositions::kDoubleHashing, 0},
    {"Bloom double hashing, growing", true, TableEncoding::kPacked, BloomPositions::kDoubleHashing, 2},
};

GrowingCuckooPtr MakeCuckoo(const Kind& k) {
  CuckooParams p = Params(12, 9, 4, 50, 0x5eed);
  p.encoding = k.encoding;
  return MakeGrowing(p, k.expansion);
}

GrowingBloomPtr MakeBloomOf(const Kind& k) {
  ScalableBloomParams p = GrowingBloom(6, 0.05, k.expansion, 0x5eed);
  p.positions = k.positions;
  return MakeGrowingBloom(p);
}

// Fills a filter of kind `k` (to 3 sub-filters when it grows) and returns
// its bytes and the keys it holds.
Bytes Filled(const Kind& k, std::vector<std::string>* keys) {
  const uint32_t target = k.expansion == 0 ? 1 : 3;
  if (k.bloom) {
    GrowingBloomPtr f = MakeBloomOf(k);
    for (int i = 0; f->sub_filter_count() < target || i < 5; ++i) {
      if (Add(*f, Key("v4-", i)) != Status::kOk) break;
      keys->push_back(Key("v4-", i));
    }
    return Serialize(*f);
  }
  GrowingCuckooPtr f = MakeCuckoo(k);
  for (int i = 0; f->sub_filter_count() < target || i < 5; ++i) {
    if (Add(*f, Key("v4-", i)) != Status::kOk) break;
    keys->push_back(Key("v4-", i));
  }
  return Serialize(*f);
}

// Loads `bytes` with the reader of kind `k`'s family; on success checks that
// it writes the same bytes back.
Status LoadOwn(const Kind& k, const Bytes& bytes, Bytes* back = nullptr) {
  Status s;
  Bytes written;
  if (k.bloom) {
    GrowingBloomPtr f;
    s = LoadAs(bytes, &f);
    if (s == Status::kOk) written = Serialize(*f);
  } else {
    GrowingCuckooPtr f;
    s = LoadAs(bytes, &f);
    if (s == Status::kOk) written = Serialize(*f);
  }
  if (back != nullptr) *back = written;
  return s;
}

Status LoadOther(const Kind& k, const Bytes& bytes) {
  if (k.bloom) {
    GrowingCuckooPtr f;
    return LoadAs(bytes, &f);
  }
  GrowingBloomPtr f;
  return LoadAs(bytes, &f);
}

TEST(FormatV4Layout, EveryKindIsVersion4WithItsHeaderAndReadsBackToItsBytes) {
  for (const Kind& k : kKinds) {
    SCOPED_TRACE(k.name);
    std::vector<std::string> keys;
    const Bytes bytes = Filled(k, &keys);
    ASSERT_GE(bytes.size(), format::kHeaderV4Bytes + format::kChecksumBytes);
    EXPECT_EQ(GetLE(bytes, 0, 4), 0x4f4f4b43u);  // "CKOO"
    EXPECT_EQ(GetLE(bytes, 4, 2), 4u);
    EXPECT_EQ(bytes[field::kFamily], k.bloom ? 2 : 1);
    EXPECT_EQ(bytes[field::kEncoding], k.bloom ? 0 : static_cast<int>(k.encoding));
    const int scheme = !k.bloom ? 1 : k.positions == BloomPositions::kDoubleHashing ? 1 : 2;
    EXPECT_EQ(bytes[field::kScheme], scheme);
    EXPECT_EQ(bytes[field::kGrowth], k.expansion == 0 ? 0 : 1);
    EXPECT_EQ(bytes[field::kHashId], 1);
    EXPECT_EQ(bytes[field::kSubFilterCount], k.expansion == 0 ? 1u : 3u);
    EXPECT_EQ(GetLE(bytes, field::kExpansion, 4), k.expansion);
    EXPECT_EQ(GetLE(bytes, field::kSeed, 8), 0x5eedu);
    EXPECT_EQ(GetLE(bytes, field::kReserved, 8), 0u);
    if (!k.bloom) {
      // A cuckoo section is a whole version-1 file of the header's encoding.
      EXPECT_EQ(GetLE(bytes, format::kHeaderV4Bytes + 4, 2), 1u);
      EXPECT_EQ(bytes[format::kHeaderV4Bytes + format::cuckoo_field::kEncoding],
                static_cast<int>(k.encoding));
    }
    Bytes back;
    ASSERT_EQ(LoadOwn(k, bytes, &back), Status::kOk);
    EXPECT_EQ(back, bytes);
    EXPECT_EQ(LoadOther(k, bytes), Status::kFormatWrongFamily);
    if (k.bloom) {
      GrowingBloomPtr f;
      ASSERT_EQ(LoadAs(bytes, &f), Status::kOk);
      EXPECT_EQ(f->format_version(), 4u);
      EXPECT_EQ(f->positions(), k.positions);
      for (const std::string& key : keys) EXPECT_TRUE(Contain(*f, key)) << key;
    } else {
      GrowingCuckooPtr f;
      ASSERT_EQ(LoadAs(bytes, &f), Status::kOk);
      EXPECT_EQ(f->format_version(), 4u);
      for (uint32_t j = 0; j < f->sub_filter_count(); ++j) {
        EXPECT_EQ(f->sub_filter(j).encoding(), k.encoding);
      }
      for (const std::string& key : keys) EXPECT_TRUE(Contain(*f, key)) << key;
    }
  }
}

// The status a resealed file must get when header byte `at` of a file of kind
// `k` is changed to `value`; kOk where the change names another valid filter
// (a Bloom filter's seed or position scheme live in the header alone).
Status ExpectedForHeaderChange(const Kind& k, size_t at, uint8_t value, const Bytes& base) {
  if (at < 4) return Status::kFormatBadMagic;
  if (at < 6) {
    Bytes b = base;
    b[at] = value;
    const uint16_t v = static_cast<uint16_t>(GetLE(b, 4, 2));
    // Versions 1-3 read the bytes in their own layout and refuse them in one
    // way or another (CheckResealedHeaderChanges checks only that they do).
    return format::KnownVersion(v) ? Status::kOk : Status::kFormatUnsupportedVersion;
  }
  if (at == field::kFamily) {
    const uint8_t own = k.bloom ? 2 : 1;
    return cuckoo::KnownFamily(value) ? (value == own ? Status::kOk : Status::kFormatWrongFamily)
                                      : Status::kFormatBadParameter;
  }
  if (k.bloom && at == field::kScheme && (value == 1 || value == 2)) return Status::kOk;
  if (k.bloom && at >= field::kSeed && at < field::kSeed + 8) return Status::kOk;
  return Status::kFormatBadParameter;
}

TEST(FormatV4Reader, EveryHeaderByteChangeIsRefusedWithItsStatus) {
  for (const Kind& k : kKinds) {
    SCOPED_TRACE(k.name);
    std::vector<std::string> keys;
    const Bytes base = Filled(k, &keys);
    int loaded_elsewhere = 0;
    for (size_t at = 0; at < format::kHeaderV4Bytes; ++at) {
      for (int value = 0; value < 256; ++value) {
        if (value == base[at]) continue;
        Bytes b = base;
        b[at] = static_cast<uint8_t>(value);
        // As changed: refused (the checksum, if nothing before it refuses).
        EXPECT_NE(LoadOwn(k, b), Status::kOk) << "byte " << at << " = " << value;
        Reseal(&b);
        Bytes back;
        const Status s = LoadOwn(k, b, &back);
        const Status expected = ExpectedForHeaderChange(k, at, static_cast<uint8_t>(value), base);
        const bool legacy_version = at >= 4 && at < 6 && expected == Status::kOk;
        if (legacy_version) {
          EXPECT_NE(s, Status::kOk) << "byte " << at << " = " << value;
          // Version 1 names the cuckoo family.
          EXPECT_TRUE(IsFormatStatus(s) || (k.bloom && s == Status::kFormatWrongFamily))
              << "byte " << at << " = " << value << ": " << TestStatusName(s);
        } else if (at == field::kSubFilterCount) {
          // Another count: the sections no longer add up, or the count is out of range.
          EXPECT_TRUE(s == Status::kFormatBadParameter || s == Status::kFormatTruncated ||
                      s == Status::kFormatTrailingBytes)
              << "count " << value << ": " << TestStatusName(s);
        } else {
          EXPECT_EQ(s, expected) << "byte " << at << " = " << value;
          if (s == Status::kOk) {
            EXPECT_EQ(back, b) << "byte " << at << " = " << value;
            ++loaded_elsewhere;
          }
        }
      }
    }
    // Only a Bloom filter's seed and scheme name another valid filter.
    EXPECT_EQ(loaded_elsewhere, k.bloom ? 8 * 255 + 1 : 0);
  }
}

// A header whose encoding is not its sections': refused, though each section
// is valid alone.
TEST(FormatV4Reader, SectionsMustHaveTheHeadersEncoding) {
  for (const Kind& k : kKinds) {
    if (k.bloom) continue;
    SCOPED_TRACE(k.name);
    std::vector<std::string> keys;
    Bytes b = Filled(k, &keys);
    b[field::kEncoding] = k.encoding == TableEncoding::kPacked ? 1 : 0;
    Reseal(&b);
    EXPECT_EQ(LoadOwn(k, b), Status::kFormatBadParameter);
  }
}

TEST(FormatV4Reader, TruncationsAndTrailingBytesAreRefused) {
  for (const Kind& k : kKinds) {
    SCOPED_TRACE(k.name);
    std::vector<std::string> keys;
    const Bytes base = Filled(k, &keys);
    for (size_t len = 0; len < base.size(); ++len) {
      const Bytes b(base.begin(), base.begin() + static_cast<long>(len));
      const Status s = LoadOwn(k, b);
      EXPECT_TRUE(s == Status::kFormatTruncated || (len < 6 && s == Status::kFormatBadMagic))
          << len << ": " << TestStatusName(s);
    }
    Bytes longer = base;
    longer.push_back(0);
    EXPECT_EQ(LoadOwn(k, longer), Status::kFormatTrailingBytes);
  }
}

// SetFormatVersion: a legacy version only where it holds the filter.
TEST(FormatV4Versions, SetFormatVersionAcceptsOnlyAVersionThatHoldsTheFilter) {
  GrowingCuckooPtr fixed = MakeGrowing(Params(20, 8, 4), 0);
  GrowingCuckooPtr growing = MakeGrowing(Params(20, 8, 4), 2);
  ASSERT_TRUE(fixed && growing);
  EXPECT_EQ(fixed->format_version(), 4u);
  for (uint16_t v : {0, 2, 3, 5, 0xffff}) EXPECT_EQ(fixed->SetFormatVersion(v), Status::kInvalidArgument) << v;
  for (uint16_t v : {0, 1, 3, 5}) EXPECT_EQ(growing->SetFormatVersion(v), Status::kInvalidArgument) << v;
  EXPECT_EQ(fixed->format_version(), 4u);
  EXPECT_EQ(fixed->SetFormatVersion(1), Status::kOk);
  EXPECT_EQ(growing->SetFormatVersion(2), Status::kOk);
  EXPECT_EQ(fixed->SetFormatVersion(4), Status::kOk);

  ScalableBloomParams p = GrowingBloom(20, 0.01, 2);
  GrowingBloomPtr independent = MakeGrowingBloom(p);
  p.positions = BloomPositions::kDoubleHashing;
  GrowingBloomPtr doubled = MakeGrowingBloom(p);
  ASSERT_TRUE(independent && doubled);
  for (uint16_t v : {0, 1, 2, 5}) EXPECT_EQ(independent->SetFormatVersion(v), Status::kInvalidArgument) << v;
  for (uint16_t v : {0, 1, 3, 5}) EXPECT_EQ(doubled->SetFormatVersion(v), Status::kInvalidArgument) << v;
  EXPECT_EQ(independent->SetFormatVersion(3), Status::kOk);
  EXPECT_EQ(doubled->SetFormatVersion(2), Status::kOk);
}

// ---------------------------------------------------------------------------
// Golden files: every legacy file loads, keeps its version and writes itself
// back; version 4 of the same filter is the version-4 header, the same
// sections and a new checksum.

Bytes ReadGolden(const std::string& name) {
  std::ifstream in(std::string(CUCKOO_GOLDEN_DIR) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in) << "missing tests/golden/" << name;
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The sections of a legacy file: version 1 is one section, itself; versions
// 2 and 3 the bytes between their 24-byte header and the checksum.
Bytes LegacySections(const Bytes& file) {
  if (GetLE(file, 4, 2) == 1) return file;
  return Bytes(file.begin() + format::kStackHeaderBytes, file.end() - format::kChecksumBytes);
}
Bytes V4Sections(const Bytes& file) {
  return Bytes(file.begin() + format::kHeaderV4Bytes, file.end() - format::kChecksumBytes);
}

template <class Ptr>
void CheckLegacyGolden(const std::string& name, uint16_t version) {
  SCOPED_TRACE(name);
  const Bytes golden = ReadGolden(name);
  ASSERT_EQ(GetLE(golden, 4, 2), version);
  Ptr f;
  ASSERT_EQ(LoadAs(golden, &f), Status::kOk);
  EXPECT_EQ(f->format_version(), version);
  EXPECT_EQ(Serialize(*f), golden);
  // The same filter in version 4: its header, the same sections.
  ASSERT_EQ(f->SetFormatVersion(4), Status::kOk);
  const Bytes v4 = Serialize(*f);
  EXPECT_EQ(V4Sections(v4), LegacySections(golden));
  Ptr g;
  ASSERT_EQ(LoadAs(v4, &g), Status::kOk);
  EXPECT_EQ(Serialize(*g), v4);
  // And back.
  ASSERT_EQ(g->SetFormatVersion(version), Status::kOk);
  EXPECT_EQ(Serialize(*g), golden);
}

TEST(FormatV4Versions, LegacyGoldenFilesKeepTheirVersionAndBecomeVersion4OnRequest) {
  CheckLegacyGolden<GrowingCuckooPtr>("cuckoo-v1.bin", 1);
  CheckLegacyGolden<GrowingCuckooPtr>("cuckoo-v2.bin", 2);
  CheckLegacyGolden<GrowingCuckooPtr>("cuckoo-semisorted.bin", 2);
  CheckLegacyGolden<GrowingBloomPtr>("bloom-v2.bin", 2);
  CheckLegacyGolden<GrowingBloomPtr>("bloom-v3.bin", 3);
}

// Like Golden.CuckooV1MatchesByteForByte (format_test.cc): the recipe's bytes
// against the file, byte for byte; CUCKOO_UPDATE_GOLDEN=1 rewrites it.
void CheckV4Golden(const std::string& name, const Bytes& fresh, const std::string& legacy) {
  const Bytes golden = GoldenFile(name, fresh);
  EXPECT_EQ(golden, fresh) << name << ": the serialized bytes changed: a format change needs a version bump";
  // The recipe is the legacy file's: the same sections.
  EXPECT_EQ(V4Sections(golden), LegacySections(ReadGolden(legacy))) << name;
}

// tests/golden/README.md: cuckoo-v4.bin, the recipe of cuckoo-v1.bin.
TEST(FormatV4Golden, CuckooV4MatchesByteForByte) {
  GrowingCuckooPtr f = MakeGrowing(Params(1000, 12, 4, 500, 42), 0);
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(Add(*f, Key("key-", i)), Status::kOk);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(Delete(*f, Key("key-", i)), Status::kOk);
  const Bytes fresh = Serialize(*f);
  ASSERT_EQ(fresh.size(), 1782u);
  CheckV4Golden("cuckoo-v4.bin", fresh, "cuckoo-v1.bin");
}

// cuckoo-semisorted-v4.bin, the recipe of cuckoo-semisorted.bin.
TEST(FormatV4Golden, CuckooSemiSortedV4MatchesByteForByte) {
  CuckooParams p = Params(100, 10, 4, 500, 42);
  p.encoding = TableEncoding::kSemiSorted;
  GrowingCuckooPtr f = MakeGrowing(p, 2);
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 400; ++i) ASSERT_EQ(Add(*f, Key("key-", i)), Status::kOk) << i;
  for (int i = 0; i < 50; ++i) ASSERT_EQ(Delete(*f, Key("key-", i)), Status::kOk) << i;
  CheckV4Golden("cuckoo-semisorted-v4.bin", Serialize(*f), "cuckoo-semisorted.bin");
}

// docs/FORMAT.md §14.4: the recipe of §13.3 (bloom-v3.bin) as version 4.
constexpr char kBloomV4HeaderHex[] =
    "434b4f4f0400"      // "CKOO", version 4
    "02000201"          // family Bloom, encoding 0, scheme 2 (independent), growth 1
    "0103"              // hash id 1, 3 sub-filters
    "02000000"          // expansion 2
    "2a00000000000000"  // seed 42
    "0000000000000000";  // reserved

GrowingBloomPtr BuildBloomV4() {
  GrowingBloomPtr f = MakeGrowingBloom(GrowingBloom(4, 0.1, 2, 42));
  if (f == nullptr) return nullptr;
  for (int i = 0; i <= 14; ++i) EXPECT_EQ(Add(*f, Key("b", i)), Status::kOk) << i;
  return f;
}

TEST(FormatV4Golden, BloomV4MatchesByteForByteAndTheVectorOfSection14_4) {
  GrowingBloomPtr f = BuildBloomV4();
  ASSERT_NE(f, nullptr);
  const Bytes fresh = Serialize(*f);
  ASSERT_EQ(fresh.size(), 224u);
  EXPECT_EQ(ToHex(fresh.data(), format::kHeaderV4Bytes), kBloomV4HeaderHex);
  EXPECT_EQ(ToHex(fresh.data() + fresh.size() - 8, 8), "e6ff6bfb71f19a45");
  CheckV4Golden("bloom-v4.bin", fresh, "bloom-v3.bin");
}

}  // namespace
}  // namespace cuckoo_test
