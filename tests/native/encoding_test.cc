// Tests of the table encodings a cuckoo filter can use (TableEncoding,
// cuckoo_tables.h) through the public API: the semi-sorted table (Fan et al.
// §5.2, semi_sorted_table.h) behind CuckooFilter and ScalableCuckooFilter,
// its header byte (docs/FORMAT.md §2, §3.1), its test vector and its golden
// file (tests/golden/README.md). The table itself is tested on its own in
// semi_sorted_table_test.cc.
//
// Run:    ctest --test-dir build/native -R 'Encoding|GoldenSemiSorted' --output-on-failure
// Golden: CUCKOO_UPDATE_GOLDEN=1 build/native/cuckoo_native_tests --gtest_filter='GoldenSemiSorted.*'
//         rewrites tests/golden/cuckoo-semisorted.bin (only with a format change).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cuckoo/cuckoo_filter.h"
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

using cuckoo::TableEncoding;

CuckooParams SemiSorted(uint64_t capacity, uint32_t f, uint64_t seed = 42) {
  CuckooParams p = Params(capacity, f, 4, 500, seed);
  p.encoding = TableEncoding::kSemiSorted;
  return p;
}

std::string Hex(const Bytes& b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (uint8_t x : b) {
    s += kDigits[x >> 4];
    s += kDigits[x & 15];
  }
  return s;
}

TEST(Encoding, SemiSortedNeedsFourSlotsPerBucket) {
  for (uint32_t b : {2u, 8u}) {
    CuckooParams p = SemiSorted(100, 12);
    p.bucket_size = b;
    FilterPtr f;
    EXPECT_EQ(CuckooFilter::Create(p, &f), Status::kInvalidArgument) << "b " << b;
    EXPECT_EQ(f, nullptr);
    EXPECT_EQ(CuckooFilter::SerializedSizeFor(p), 0u) << "b " << b;
  }
  CuckooParams unknown = Params(100, 12, 4);
  unknown.encoding = static_cast<TableEncoding>(2);
  FilterPtr f;
  EXPECT_EQ(CuckooFilter::Create(unknown, &f), Status::kInvalidArgument);
}

// 4f - 4 bits per bucket instead of 4f: one bit per slot less, every f.
TEST(Encoding, SemiSortedSavesOneBitPerSlot) {
  for (uint32_t f = 4; f <= 32; ++f) {
    const CuckooParams packed = Params(1000, f, 4);
    const CuckooParams semi = SemiSorted(1000, f);
    const uint64_t m = CuckooFilter::BucketCountFor(1000, 4);
    EXPECT_EQ(CuckooFilter::SerializedSizeFor(packed), 80 + (m * 4 * f + 7) / 8) << f;
    EXPECT_EQ(CuckooFilter::SerializedSizeFor(semi), 80 + (m * (4 * f - 4) + 7) / 8) << f;
    FilterPtr filter = Make(semi);
    ASSERT_NE(filter, nullptr);
    EXPECT_EQ(filter->SerializedSize(), CuckooFilter::SerializedSizeFor(semi));
    EXPECT_EQ(filter->encoding(), TableEncoding::kSemiSorted);
  }
}

// The filter's contract over a semi-sorted table: members always found,
// counts and deletes exact for distinct keys, the rate near 2b/2^f, and the
// bytes written back unchanged after a load.
TEST(Encoding, SemiSortedFilterKeepsTheFilterContract) {
  for (uint32_t f : {4u, 8u, 13u, 20u, 32u}) {
    FilterPtr filter = Make(SemiSorted(2000, f));
    ASSERT_NE(filter, nullptr);
    for (int i = 0; i < 1900; ++i) ASSERT_EQ(Add(*filter, Key("m", i)), Status::kOk) << f << " " << i;
    for (int i = 0; i < 1900; ++i) ASSERT_TRUE(Contain(*filter, Key("m", i))) << f << " " << i;
    EXPECT_EQ(filter->size(), 1900u);
    int false_positives = 0;
    for (int i = 0; i < 20000; ++i) false_positives += Contain(*filter, Key("n", i));
    const double bound = 8.0 / ((uint64_t{1} << f) - 1);
    EXPECT_LE(false_positives / 20000.0, 1.5 * bound + 0.002) << f;

    const Bytes bytes = Serialize(*filter);
    EXPECT_EQ(bytes[cuckoo::format::cuckoo_field::kEncoding], 1);
    FilterPtr loaded;
    ASSERT_EQ(Load(bytes, &loaded), Status::kOk) << f;
    EXPECT_EQ(Serialize(*loaded), bytes) << f;
    EXPECT_EQ(loaded->encoding(), TableEncoding::kSemiSorted);

    for (int i = 0; i < 1900; i += 2) ASSERT_EQ(Delete(*loaded, Key("m", i)), Status::kOk) << i;
    for (int i = 1; i < 1900; i += 2) ASSERT_TRUE(Contain(*loaded, Key("m", i))) << f << " " << i;
    if (f == 32) {
      for (int i = 1; i < 1900; i += 2) ASSERT_EQ(Count(*loaded, Key("m", i)), 1u) << i;
      for (int i = 0; i < 1900; i += 2) ASSERT_FALSE(Contain(*loaded, Key("m", i))) << i;
    }
    for (int i = 1; i < 1900; i += 2) ASSERT_EQ(Delete(*loaded, Key("m", i)), Status::kOk) << i;
    EXPECT_EQ(loaded->size(), 0u);
    for (int i = 0; i < 1900; ++i) ASSERT_FALSE(Contain(*loaded, Key("m", i))) << f << " " << i;
  }
}

// A semi-sorted table holds each bucket's fingerprints as a multiset, so the
// same multisets give the same table bytes whatever the order of the adds.
TEST(Encoding, SemiSortedTableBytesDependOnlyOnWhatEachBucketHolds) {
  FilterPtr a = Make(SemiSorted(200, 9));
  FilterPtr b = Make(SemiSorted(200, 9));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  // Few keys, so that no insert kicks: each key lands in its first bucket
  // with room, whatever the order.
  for (int i = 0; i < 20; ++i) ASSERT_EQ(Add(*a, Key("k", i)), Status::kOk);
  for (int i = 19; i >= 0; --i) ASSERT_EQ(Add(*b, Key("k", i)), Status::kOk);
  const Bytes x = Serialize(*a);
  const Bytes y = Serialize(*b);
  ASSERT_EQ(x.size(), y.size());
  EXPECT_EQ(Bytes(x.begin() + 72, x.end() - 8), Bytes(y.begin() + 72, y.end() - 8));
}

// Bytes a reader must refuse: encoding 1 with b other than 4, an unknown
// encoding, a table length of the other encoding.
TEST(Encoding, HeaderEncodingIsCheckedAgainstTheShape) {
  namespace field = cuckoo::format::cuckoo_field;
  FilterPtr packed_b2 = Make(Params(50, 10, 2));
  ASSERT_NE(packed_b2, nullptr);
  Bytes b2 = Serialize(*packed_b2);
  b2[field::kEncoding] = 1;
  Reseal(&b2);
  FilterPtr out;
  EXPECT_EQ(Load(b2, &out), Status::kFormatBadParameter);

  FilterPtr semi = Make(SemiSorted(50, 10));
  ASSERT_NE(semi, nullptr);
  for (uint8_t e : {0, 2, 255}) {
    Bytes b = Serialize(*semi);
    b[field::kEncoding] = e;
    Reseal(&b);
    EXPECT_EQ(Load(b, &out), Status::kFormatBadParameter) << int(e);
  }
  EXPECT_EQ(out, nullptr);
}

// A semi-sorted table not in canonical form (here bucket 0's index 4095,
// beyond the 3,876 sorted tuples) is refused before anything reads it.
TEST(Encoding, SemiSortedTableOutOfCanonicalFormIsRefused) {
  FilterPtr semi = Make(SemiSorted(50, 10));
  ASSERT_NE(semi, nullptr);
  for (int i = 0; i < 30; ++i) ASSERT_EQ(Add(*semi, Key("c", i)), Status::kOk);
  Bytes b = Serialize(*semi);
  b[72] = 0xff;
  b[73] |= 0x0f;
  Reseal(&b);
  FilterPtr out;
  EXPECT_EQ(Load(b, &out), Status::kFormatBadPadding);
  EXPECT_EQ(out, nullptr);
}

// Growth with a semi-sorted table: every sub-filter semi-sorted (one more
// fingerprint bit each), the members found, the bytes written back unchanged;
// a stack whose sub-filters' encodings differ is refused.
TEST(Encoding, SemiSortedFilterGrows) {
  GrowingCuckooPtr f;
  ASSERT_EQ(ScalableCuckooFilter::Create(SemiSorted(100, 10), 2, &f), Status::kOk);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(Add(*f, Key("g", i)), Status::kOk) << i;
  ASSERT_GE(f->sub_filter_count(), 3u);
  for (uint32_t j = 0; j < f->sub_filter_count(); ++j) {
    EXPECT_EQ(f->sub_filter(j).encoding(), TableEncoding::kSemiSorted) << j;
    EXPECT_EQ(f->sub_filter(j).fingerprint_bits(), 10 + j);
  }
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(Contain(*f, Key("g", i))) << i;
  for (int i = 0; i < 1000; i += 3) ASSERT_EQ(Delete(*f, Key("g", i)), Status::kOk) << i;
  for (int i = 0; i < 1000; ++i) {
    if (i % 3 != 0) ASSERT_TRUE(Contain(*f, Key("g", i))) << i;
  }
  const Bytes bytes = Serialize(*f);
  GrowingCuckooPtr loaded;
  ASSERT_EQ(LoadAs(bytes, &loaded), Status::kOk);
  EXPECT_EQ(Serialize(*loaded), bytes);

  // Sub-filter 1 of a packed stack, relabelled semi-sorted with a table of
  // that length: each section is valid alone, the stack is not. Version 2,
  // whose header does not name the encoding (version 4's:
  // FormatV4Reader.SectionsMustHaveTheHeadersEncoding).
  GrowingCuckooPtr mixed;
  ASSERT_EQ(ScalableCuckooFilter::Create(Params(20, 8, 4), 2, &mixed), Status::kOk);
  ASSERT_EQ(mixed->SetFormatVersion(cuckoo::format::kFormatVersionStack), Status::kOk);
  for (int i = 0; i < 60; ++i) ASSERT_EQ(Add(*mixed, Key("x", i)), Status::kOk);
  ASSERT_GE(mixed->sub_filter_count(), 2u);
  GrowingCuckooPtr semi_first;
  CuckooParams p = SemiSorted(20, 8);
  ASSERT_EQ(ScalableCuckooFilter::Create(p, 2, &semi_first), Status::kOk);
  ASSERT_EQ(semi_first->SetFormatVersion(cuckoo::format::kFormatVersionStack), Status::kOk);
  for (int i = 0; i < 60; ++i) ASSERT_EQ(Add(*semi_first, Key("x", i)), Status::kOk);
  ASSERT_GE(semi_first->sub_filter_count(), 2u);
  // Splice: semi-sorted sub-filter 0, packed sub-filter 1.
  Bytes a = Serialize(*semi_first);
  Bytes b = Serialize(*mixed);
  const std::vector<size_t> sa = SectionOffsets(a);
  const std::vector<size_t> sb = SectionOffsets(b);
  Bytes spliced(a.begin(), a.begin() + static_cast<long>(sa[1]));
  spliced.insert(spliced.end(), b.begin() + static_cast<long>(sb[1]),
                 b.begin() + static_cast<long>(sb[2]));
  spliced.insert(spliced.end(), 8, 0);
  spliced[cuckoo::format::stack_field::kSubFilterCount] = 2;
  ASSERT_TRUE(ResealAll(&spliced));
  GrowingCuckooPtr out;
  EXPECT_EQ(LoadAs(spliced, &out), Status::kFormatBadParameter);
  // The same splice of two semi-sorted sub-filters loads.
  Bytes same(a.begin(), a.begin() + static_cast<long>(sa[2]));
  same.insert(same.end(), 8, 0);
  same[cuckoo::format::stack_field::kSubFilterCount] = 2;
  ASSERT_TRUE(ResealAll(&same));
  EXPECT_EQ(LoadAs(same, &out), Status::kOk);
}

// docs/FORMAT.md §10.4: capacity 8, f = 8, b = 4, seed 42, semi-sorted; "s0"
// .. "s7" added: 4 buckets of 28 bits, a 14-byte table.
constexpr char kSemiSortedVectorHex[] =
    // header: encoding 1, f 8, b 4, m 4, max kicks 500, seed 42, capacity 8,
    // 8 items, PRNG state 42 (no kick), T = 14
    "434b4f4f010001010804000004000000f401000000000000000000000000000"
    "02a00000000000000080000000000000008000000000000002a000000000000"
    "000e00000000000000"
    // table: buckets 0..3 of 28 bits each
    "7e00004de20020ef0100a84a1a10"
    // checksum
    "c86286f0a6225675";

TEST(Encoding, SemiSortedTestVector) {
  FilterPtr f = Make(SemiSorted(8, 8));
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 8; ++i) ASSERT_EQ(Add(*f, Key("s", i)), Status::kOk);
  const Bytes b = Serialize(*f);
  EXPECT_EQ(b.size(), 80u + 14u);
  EXPECT_EQ(Hex(b), kSemiSortedVectorHex);
}

// tests/golden/README.md: cuckoo-semisorted.bin.
GrowingCuckooPtr BuildSemiSortedGolden() {
  GrowingCuckooPtr f;
  EXPECT_EQ(ScalableCuckooFilter::Create(SemiSorted(100, 10), 2, &f), Status::kOk);
  if (f == nullptr) return nullptr;
  // The golden file is version 2 (a new filter's version-4 bytes hold the same
  // sections: FormatV4Golden.*).
  EXPECT_EQ(f->SetFormatVersion(cuckoo::format::kFormatVersionStack), Status::kOk);
  for (int i = 0; i < 400; ++i) EXPECT_EQ(Add(*f, Key("key-", i)), Status::kOk) << i;
  for (int i = 0; i < 50; ++i) EXPECT_EQ(Delete(*f, Key("key-", i)), Status::kOk) << i;
  return f;
}

TEST(GoldenSemiSorted, CuckooSemiSortedMatchesByteForByte) {
  GrowingCuckooPtr f = BuildSemiSortedGolden();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->sub_filter_count(), 3u);
  const Bytes fresh = Serialize(*f);
  const Bytes golden = GoldenFile("cuckoo-semisorted.bin", fresh);
  EXPECT_EQ(golden, fresh) << "the serialized bytes changed: a format change";
  GrowingCuckooPtr loaded;
  ASSERT_EQ(LoadAs(golden, &loaded), Status::kOk);
  EXPECT_EQ(Serialize(*loaded), golden);
  for (int i = 50; i < 400; ++i) EXPECT_TRUE(Contain(*loaded, Key("key-", i))) << i;
}

}  // namespace
}  // namespace cuckoo_test
