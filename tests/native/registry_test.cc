// The two registries (src/common/families.def, src/cuckoo/table_encodings.def),
// each property written once and run over every row of the list: a new family
// or table encoding is tested here by its line in the .def file plus, for a
// family, its Sample<> below (how to make one).
//   Families: the format's type byte and the enum agree; a filter's bytes say
//   its family (PeekFamily) and the key hash of its row; every other family's
//   class refuses them with kFormatWrongFamily; they load and save back
//   byte for byte; a diff to a fuller filter applies to them exactly.
//   Encodings: a cuckoo filter of each stores its encoding byte and a table of
//   TableByteLength bytes, loads and saves back byte for byte, patches exactly,
//   and takes exactly the bucket sizes its row says.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/family.h"
#include "cuckoo/cuckoo_filter.h"
#include "cuckoo/cuckoo_tables.h"
#include "format/format.h"
#include "format/peek_family.h"
#include "fuse/binary_fuse_filter.h"
#include "growth/scalable_filter.h"
#include "patch/patch.h"
#include "redis/redis_bloom.h"
#include "redis/redis_cuckoo.h"

namespace cuckoo {
namespace {

using Bytes = std::vector<uint8_t>;

template <class Filter>
Bytes Save(const Filter& f) {
  Bytes out(static_cast<size_t>(f.SerializedSize()));
  f.Serialize(out.data());
  return out;
}

template <class Filter>
void AddKeys(Filter* f, int from, int to) {
  for (int i = from; i < to; ++i) {
    const std::string key = "key-" + std::to_string(i);
    ASSERT_EQ(f->Add(reinterpret_cast<const uint8_t*>(key.data()), key.size()), Status::kOk) << i;
  }
}

// Sample<F>(n): the bytes of a filter of family F holding n keys.
template <Family F>
Bytes Sample(int n);

template <>
Bytes Sample<Family::kCuckoo>(int n) {
  CuckooParams p;
  p.capacity = 1000;
  std::unique_ptr<ScalableCuckooFilter> f;
  EXPECT_EQ(ScalableCuckooFilter::Create(p, 2, &f), Status::kOk);
  AddKeys(f.get(), 0, n);
  return Save(*f);
}

template <>
Bytes Sample<Family::kBloom>(int n) {
  ScalableBloomParams p;
  p.capacity = 1000;
  p.expansion = 2;
  std::unique_ptr<ScalableBloomFilter> f;
  EXPECT_EQ(ScalableBloomFilter::Create(p, &f), Status::kOk);
  AddKeys(f.get(), 0, n);
  return Save(*f);
}

template <>
Bytes Sample<Family::kRedisCuckoo>(int n) {
  RedisCuckooParams p;
  p.capacity = 1000;
  std::unique_ptr<RedisCuckooFilter> f;
  EXPECT_EQ(RedisCuckooFilter::Create(p, &f), Status::kOk);
  AddKeys(f.get(), 0, n);
  return Save(*f);
}

template <>
Bytes Sample<Family::kRedisBloom>(int n) {
  RedisBloomParams p;
  p.capacity = 1000;
  std::unique_ptr<RedisBloomFilter> f;
  EXPECT_EQ(RedisBloomFilter::Create(p, &f), Status::kOk);
  AddKeys(f.get(), 0, n);
  return Save(*f);
}

// A static family holds a set, not a history of adds: its sample is a set of
// 1000 keys of which n are "key-i", so that samples of any n have one shape
// (a newer version of a list of the same length) and a patch joins them.
template <>
Bytes Sample<Family::kBinaryFuse>(int n) {
  BinaryFuseParams p;
  p.fingerprint_bits = 12;
  std::unique_ptr<BinaryFuseFilter> collecting;
  EXPECT_EQ(BinaryFuseFilter::Create(p, &collecting), Status::kOk);
  AddKeys(collecting.get(), 0, n);
  for (int i = n; i < 1000; ++i) {
    const std::string key = "other-" + std::to_string(i);
    EXPECT_EQ(collecting->Add(reinterpret_cast<const uint8_t*>(key.data()), key.size()), Status::kOk);
  }
  p.from = reinterpret_cast<uintptr_t>(collecting.get());
  std::unique_ptr<BinaryFuseFilter> f;
  EXPECT_EQ(BinaryFuseFilter::Create(p, &f), Status::kOk);
  return Save(*f);
}

// The patch Diff(older, newer) applied to older: newer, byte for byte.
void ExpectPatches(const Bytes& older, const Bytes& newer) {
  uint8_t* patch = nullptr;
  size_t patch_len = 0;
  ASSERT_EQ(Diff(older.data(), older.size(), newer.data(), newer.size(), &patch, &patch_len),
            Status::kOk);
  uint8_t* result = nullptr;
  size_t result_len = 0;
  EXPECT_EQ(ApplyPatch(older.data(), older.size(), patch, patch_len, &result, &result_len),
            Status::kOk);
  EXPECT_EQ(Bytes(result, result + result_len), newer);
  std::free(patch);
  std::free(result);
}

// One row of families.def, as a type: RowOf<F>.
template <Family F>
struct RowOf;
#define CUCKOO_FAMILY(Name, id, prefix, Class, hash, ...)      \
  template <>                                                   \
  struct RowOf<Family::k##Name> {                               \
    static constexpr Family kFamily = Family::k##Name;          \
    using Filter = Class;                                       \
    static constexpr uint8_t kHashId = format::kHashId##hash;   \
  };
#include "common/families.def"

// Every row (ids are 1 .. kFamilyCount, common/family.h).
template <class Ids>
struct AllRows;
template <size_t... I>
struct AllRows<std::index_sequence<I...>> {
  using type = ::testing::Types<RowOf<static_cast<Family>(I + 1)>...>;
};
using Families = AllRows<std::make_index_sequence<kFamilyCount>>::type;

template <class Row>
class FamilyRegistry : public ::testing::Test {};

// Loads `bytes` with family G's class: the status.
template <Family G>
Status LoadAs(const Bytes& bytes);
#define CUCKOO_FAMILY(Name, id, prefix, Class, ...)                        \
  template <>                                                              \
  Status LoadAs<Family::k##Name>(const Bytes& bytes) {                     \
    std::unique_ptr<Class> f;                                              \
    return Class::Deserialize(bytes.data(), bytes.size(), &f);             \
  }
#include "common/families.def"

TYPED_TEST_SUITE(FamilyRegistry, Families);

TYPED_TEST(FamilyRegistry, BytesNameTheirFamilyAndLoadOnlyAsIt) {
  constexpr Family kOwn = TypeParam::kFamily;
  const Bytes bytes = Sample<kOwn>(200);
  ASSERT_GT(bytes.size(), format::kHeaderV4Bytes);
  EXPECT_TRUE(KnownFamily(static_cast<unsigned>(kOwn)));
  EXPECT_EQ(bytes[format::v4_field::kFamily], static_cast<uint8_t>(kOwn));
  EXPECT_EQ(bytes[format::v4_field::kHashId], TypeParam::kHashId);
  EXPECT_EQ(format::HashIdFor(static_cast<uint8_t>(kOwn)), TypeParam::kHashId);
  Family peeked = Family{};
  ASSERT_EQ(PeekFamily(bytes.data(), bytes.size(), &peeked), Status::kOk);
  EXPECT_EQ(peeked, kOwn);
#define CUCKOO_FAMILY(Name, ...)                                                      \
  EXPECT_EQ(LoadAs<Family::k##Name>(bytes),                                         \
            Family::k##Name == kOwn ? Status::kOk : Status::kFormatWrongFamily)     \
      << #Name;
#include "common/families.def"
  std::unique_ptr<typename TypeParam::Filter> loaded;
  ASSERT_EQ(TypeParam::Filter::Deserialize(bytes.data(), bytes.size(), &loaded), Status::kOk);
  EXPECT_EQ(Save(*loaded), bytes);
}

TYPED_TEST(FamilyRegistry, PatchesApplyExactly) {
  constexpr Family kOwn = TypeParam::kFamily;
  ExpectPatches(Sample<kOwn>(100), Sample<kOwn>(300));
}

TEST(FamilyRegistry, IdsAreTheListInOrder) {
  unsigned count = 0;
#define CUCKOO_FAMILY(Name, id, ...)                                       \
  EXPECT_EQ(static_cast<unsigned>(Family::k##Name), ++count) << #Name;     \
  EXPECT_EQ(format::kType##Name, id) << #Name;
#include "common/families.def"
  EXPECT_EQ(count, kFamilyCount);
  EXPECT_FALSE(KnownFamily(0));
  EXPECT_FALSE(KnownFamily(kFamilyCount + 1));
}

// One row of table_encodings.def.
struct EncodingRow {
  const char* name;
  TableEncoding encoding;
  uint32_t only_bucket_size;
};

const EncodingRow kEncodings[] = {
#define CUCKOO_TABLE_ENCODING(Name, id, Table, only_bucket_size) \
  {#Name, TableEncoding::k##Name, only_bucket_size},
#include "cuckoo/table_encodings.def"
};

class EncodingRegistry : public ::testing::TestWithParam<EncodingRow> {};

std::unique_ptr<CuckooFilter> CuckooOf(const EncodingRow& row, int keys) {
  CuckooParams p;
  p.capacity = 2000;
  p.fingerprint_bits = 12;
  p.bucket_size = row.only_bucket_size == 0 ? 4 : row.only_bucket_size;
  p.encoding = row.encoding;
  std::unique_ptr<CuckooFilter> f;
  EXPECT_EQ(CuckooFilter::Create(p, &f), Status::kOk);
  AddKeys(f.get(), 0, keys);
  return f;
}

TEST_P(EncodingRegistry, StoresLoadsAndPatchesItsTable) {
  const EncodingRow& row = GetParam();
  EXPECT_TRUE(KnownEncoding(static_cast<uint8_t>(row.encoding)));
  const std::unique_ptr<CuckooFilter> f = CuckooOf(row, 1000);
  EXPECT_EQ(f->encoding(), row.encoding);
  const Bytes bytes = Save(*f);
  EXPECT_EQ(bytes[format::cuckoo_field::kEncoding], static_cast<uint8_t>(row.encoding));
  EXPECT_EQ(format::GetU64(bytes.data() + format::cuckoo_field::kTableBytes),
            TableByteLength(row.encoding, f->bucket_count(), f->bucket_size(), f->fingerprint_bits()));
  std::unique_ptr<CuckooFilter> loaded;
  ASSERT_EQ(CuckooFilter::Deserialize(bytes.data(), bytes.size(), &loaded), Status::kOk);
  EXPECT_EQ(Save(*loaded), bytes);
  ExpectPatches(Save(*CuckooOf(row, 500)), bytes);
}

TEST_P(EncodingRegistry, TakesTheBucketSizesOfItsRow) {
  const EncodingRow& row = GetParam();
  for (uint32_t b : {2u, 4u, 8u}) {
    EXPECT_EQ(ValidEncoding(row.encoding, b), row.only_bucket_size == 0 || b == row.only_bucket_size)
        << row.name << " b=" << b;
  }
}

INSTANTIATE_TEST_SUITE_P(AllEncodings, EncodingRegistry, ::testing::ValuesIn(kEncodings),
                         [](const ::testing::TestParamInfo<EncodingRow>& i) { return std::string(i.param.name); });

TEST(EncodingRegistry, NoOtherEncodingByte) {
  EXPECT_FALSE(KnownEncoding(static_cast<uint8_t>(std::size(kEncodings))));
  EXPECT_FALSE(KnownEncoding(0xff));
}

}  // namespace
}  // namespace cuckoo
