// Tests of cuckoo::PeekFamily (src/family.h): the family of serialized
// filters of every format version, and the status of bytes that name none.
//
// Run: ctest --test-dir build/native -R Family --output-on-failure

#include "family.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "cuckoo_params.h"
#include "scalable_filter.h"

namespace cuckoo_test {
namespace {

std::vector<uint8_t> CuckooBytes(uint32_t expansion) {
  cuckoo::CuckooParams p;
  p.capacity = 100;
  std::unique_ptr<cuckoo::ScalableCuckooFilter> f;
  EXPECT_EQ(cuckoo::ScalableCuckooFilter::Create(p, expansion, &f), cuckoo::Status::kOk);
  std::vector<uint8_t> bytes(f->SerializedSize());
  f->Serialize(bytes.data());
  return bytes;
}

std::vector<uint8_t> BloomBytes() {
  cuckoo::ScalableBloomParams p;
  p.capacity = 100;
  p.false_positive_rate = 0.01;
  std::unique_ptr<cuckoo::ScalableBloomFilter> f;
  EXPECT_EQ(cuckoo::ScalableBloomFilter::Create(p, &f), cuckoo::Status::kOk);
  std::vector<uint8_t> bytes(f->SerializedSize());
  f->Serialize(bytes.data());
  return bytes;
}

cuckoo::Status Peek(const std::vector<uint8_t>& bytes, size_t len, cuckoo::Family* out) {
  return cuckoo::PeekFamily(bytes.data(), len, out);
}

TEST(Family, NamesTheFamilyOfEveryVersion) {
  const std::vector<uint8_t> v1 = CuckooBytes(0), v2 = CuckooBytes(2), v3 = BloomBytes();
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
}

// Only the header is read: a truncated or corrupted filter still names its family.
TEST(Family, ReadsTheHeaderOnly) {
  std::vector<uint8_t> v1 = CuckooBytes(0), v3 = BloomBytes();
  cuckoo::Family family = cuckoo::Family::kBloom;
  EXPECT_EQ(Peek(v1, 6, &family), cuckoo::Status::kOk);  // version 1: the prefix says cuckoo
  EXPECT_EQ(family, cuckoo::Family::kCuckoo);
  EXPECT_EQ(Peek(v3, 7, &family), cuckoo::Status::kOk);
  EXPECT_EQ(family, cuckoo::Family::kBloom);
  v3.back() ^= 1;  // checksum
  EXPECT_EQ(Peek(v3, v3.size(), &family), cuckoo::Status::kOk);
}

TEST(Family, RefusesBytesThatNameNoFamily) {
  std::vector<uint8_t> v2 = CuckooBytes(2), v3 = BloomBytes();
  cuckoo::Family family = cuckoo::Family::kCuckoo;
  EXPECT_EQ(Peek(v2, 3, &family), cuckoo::Status::kFormatTruncated);
  EXPECT_EQ(Peek(v2, 5, &family), cuckoo::Status::kFormatTruncated);
  EXPECT_EQ(Peek(v2, 6, &family), cuckoo::Status::kFormatTruncated);  // no type byte yet
  EXPECT_EQ(Peek(v3, 6, &family), cuckoo::Status::kFormatTruncated);
  std::vector<uint8_t> bad = v2;
  bad[0] = 'X';
  EXPECT_EQ(Peek(bad, bad.size(), &family), cuckoo::Status::kFormatBadMagic);
  bad = v2;
  bad[4] = 9;
  EXPECT_EQ(Peek(bad, bad.size(), &family), cuckoo::Status::kFormatUnsupportedVersion);
  bad = v2;
  bad[6] = 7;  // a type byte that names no family
  EXPECT_EQ(Peek(bad, bad.size(), &family), cuckoo::Status::kFormatBadParameter);
  bad = v3;
  bad[6] = 1;  // version 3 holds Bloom filters only
  EXPECT_EQ(Peek(bad, bad.size(), &family), cuckoo::Status::kFormatBadParameter);
  EXPECT_EQ(family, cuckoo::Family::kCuckoo);  // untouched by every refusal
}

}  // namespace
}  // namespace cuckoo_test
