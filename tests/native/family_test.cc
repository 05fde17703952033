// Tests of cuckoo::PeekFamily (src/common/family.h): the family of serialized
// filters of every format version, and the status of bytes that name none.
//
// Run: ctest --test-dir build/native -R Family --output-on-failure

#include "format/peek_family.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "cuckoo/cuckoo_params.h"
#include "growth/scalable_filter.h"

namespace cuckoo_test {
namespace {

// A new filter's bytes in `version` (4, or the legacy version its shape has).
std::vector<uint8_t> CuckooBytes(uint32_t expansion, uint16_t version) {
  cuckoo::CuckooParams p;
  p.capacity = 100;
  std::unique_ptr<cuckoo::ScalableCuckooFilter> f;
  EXPECT_EQ(cuckoo::ScalableCuckooFilter::Create(p, expansion, &f), cuckoo::Status::kOk);
  EXPECT_EQ(f->SetFormatVersion(version), cuckoo::Status::kOk);
  std::vector<uint8_t> bytes(f->SerializedSize());
  f->Serialize(bytes.data());
  return bytes;
}

std::vector<uint8_t> BloomBytes(uint16_t version) {
  cuckoo::ScalableBloomParams p;
  p.capacity = 100;
  p.false_positive_rate = 0.01;
  std::unique_ptr<cuckoo::ScalableBloomFilter> f;
  EXPECT_EQ(cuckoo::ScalableBloomFilter::Create(p, &f), cuckoo::Status::kOk);
  EXPECT_EQ(f->SetFormatVersion(version), cuckoo::Status::kOk);
  std::vector<uint8_t> bytes(f->SerializedSize());
  f->Serialize(bytes.data());
  return bytes;
}

cuckoo::Status Peek(const std::vector<uint8_t>& bytes, size_t len, cuckoo::Family* out) {
  return cuckoo::PeekFamily(bytes.data(), len, out);
}

TEST(Family, NamesTheFamilyOfEveryVersion) {
  const std::vector<uint8_t> v1 = CuckooBytes(0, 1), v2 = CuckooBytes(2, 2), v3 = BloomBytes(3);
  ASSERT_EQ(v1[4], 1);
  ASSERT_EQ(v2[4], 2);
  ASSERT_EQ(v3[4], 3);
  cuckoo::Family family = cuckoo::Family::kBloom;
  ASSERT_EQ(Peek(v1, v1.size(), &family), cuckoo::Status::kOk);
  EXPECT_EQ(family, cuckoo::Family::kCuckoo);
  ASSERT_EQ(Peek(v2, v2.size(), &family), cuckoo::Status::kOk);
  EXPECT_EQ(family, cuckoo::Family::kCuckoo);
  ASSERT_EQ(Peek(v3, v3.size(), &family), cuckoo::Status::kOk);
  EXPECT_EQ(family, cuckoo::Family::kBloom);
  // Version 4: the family byte, with or without growth.
  for (uint32_t e : {0u, 2u}) {
    const std::vector<uint8_t> c4 = CuckooBytes(e, 4);
    ASSERT_EQ(c4[4], 4);
    ASSERT_EQ(Peek(c4, c4.size(), &family), cuckoo::Status::kOk);
    EXPECT_EQ(family, cuckoo::Family::kCuckoo);
  }
  const std::vector<uint8_t> b4 = BloomBytes(4);
  ASSERT_EQ(b4[4], 4);
  ASSERT_EQ(Peek(b4, b4.size(), &family), cuckoo::Status::kOk);
  EXPECT_EQ(family, cuckoo::Family::kBloom);
}

// Only the header is read: a truncated or corrupted filter still names its family.
TEST(Family, ReadsTheHeaderOnly) {
  std::vector<uint8_t> v1 = CuckooBytes(0, 1), v3 = BloomBytes(3), c4 = CuckooBytes(0, 4);
  cuckoo::Family family = cuckoo::Family::kBloom;
  EXPECT_EQ(Peek(c4, 7, &family), cuckoo::Status::kOk);  // version 4: the family byte alone
  EXPECT_EQ(family, cuckoo::Family::kCuckoo);
  family = cuckoo::Family::kBloom;
  EXPECT_EQ(Peek(v1, 6, &family), cuckoo::Status::kOk);  // version 1: the prefix says cuckoo
  EXPECT_EQ(family, cuckoo::Family::kCuckoo);
  EXPECT_EQ(Peek(v3, 7, &family), cuckoo::Status::kOk);
  EXPECT_EQ(family, cuckoo::Family::kBloom);
  v3.back() ^= 1;  // checksum
  EXPECT_EQ(Peek(v3, v3.size(), &family), cuckoo::Status::kOk);
}

TEST(Family, RefusesBytesThatNameNoFamily) {
  std::vector<uint8_t> v2 = CuckooBytes(2, 2), v3 = BloomBytes(3), b4 = BloomBytes(4);
  cuckoo::Family family = cuckoo::Family::kCuckoo;
  EXPECT_EQ(Peek(b4, 6, &family), cuckoo::Status::kFormatTruncated);  // no family byte yet
  for (uint8_t named_none : {0, static_cast<int>(cuckoo::kFamilyCount) + 1, 0xff}) {
    std::vector<uint8_t> bad4 = b4;
    bad4[6] = named_none;
    EXPECT_EQ(Peek(bad4, bad4.size(), &family), cuckoo::Status::kFormatBadParameter) << +named_none;
  }
  EXPECT_EQ(Peek(v2, 3, &family), cuckoo::Status::kFormatTruncated);
  EXPECT_EQ(Peek(v2, 5, &family), cuckoo::Status::kFormatTruncated);
  EXPECT_EQ(Peek(v2, 6, &family), cuckoo::Status::kFormatTruncated);  // no type byte yet
  EXPECT_EQ(Peek(v3, 6, &family), cuckoo::Status::kFormatTruncated);
  std::vector<uint8_t> bad = v2;
  bad[0] = 'X';
  EXPECT_EQ(Peek(bad, bad.size(), &family), cuckoo::Status::kFormatBadMagic);
  bad = v2;
  bad[4] = 5;
  EXPECT_EQ(Peek(bad, bad.size(), &family), cuckoo::Status::kFormatUnsupportedVersion);
  bad = v2;
  bad[6] = 7;  // a type byte that names no family
  EXPECT_EQ(Peek(bad, bad.size(), &family), cuckoo::Status::kFormatBadParameter);
  bad = v3;
  bad[6] = 1;  // version 3 holds Bloom filters only
  EXPECT_EQ(Peek(bad, bad.size(), &family), cuckoo::Status::kFormatBadParameter);
  for (uint8_t redis : {3, 4, 5}) {  // the Redis and binary fuse families exist in version 4 only
    bad = v2;
    bad[6] = redis;
    EXPECT_EQ(Peek(bad, bad.size(), &family), cuckoo::Status::kFormatBadParameter) << +redis;
  }
  EXPECT_EQ(family, cuckoo::Family::kCuckoo);  // untouched by every refusal
}

}  // namespace
}  // namespace cuckoo_test
