// Batch lookups in groups (common/batch.h): every family's ContainBatch and
// url::MatchBatch answer key for key as Contain and url::Match do, for filters
// small enough to go key by key and large enough (kGroupFromBytes) to be
// probed in groups, of one sub-filter and of several.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/batch.h"
#include "fuse/binary_fuse_filter.h"
#include "growth/scalable_filter.h"
#include "redis/redis_bloom.h"
#include "redis/redis_cuckoo.h"
#include "status.h"
#include "testing/packed_keys.h"
#include "url/url_filter.h"

namespace cuckoo {
namespace {

using Packed = PackedKeys;

std::string Member(size_t i) { return "m" + std::to_string(i * 7919) + ".example"; }

Packed Members(size_t n) {
  Packed p;
  for (size_t i = 0; i < n; ++i) p.Push(Member(i));
  return p;
}

// Members spread over the n added, and as many others, interleaved; with a
// tail that is not a multiple of kLookupGroup.
Packed Queries(size_t n) {
  Packed q;
  for (size_t i = 0; i < 20011; ++i) {
    q.Push(Member(i * (n / 10007 + 1) % n));
    q.Push("other" + std::to_string(i) + ".test");
  }
  return q;
}

template <class Filter>
void Fill(Filter& f, const Packed& keys) {
  Status s = Status::kOk;
  ASSERT_EQ(f.AddBatch(keys.data(), keys.offsets.data(), keys.size(), &s), keys.size());
  ASSERT_EQ(s, Status::kOk);
}

template <class Filter>
void ExpectBatchAsContain(const Filter& f, const Packed& q) {
  std::vector<uint8_t> results(q.size(), 7);
  f.ContainBatch(q.data(), q.offsets.data(), q.size(), results.data());
  size_t members_found = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    ASSERT_EQ(results[i], f.Contain(q.key(i), q.len(i)) ? 1 : 0) << "key " << i;
    members_found += i % 2 == 0 && results[i] == 1;
  }
  EXPECT_EQ(members_found, q.size() / 2);
}

// URLs on the hosts of the first `entries` members (added as URL entries;
// with paths, queries, subdomains), on other hosts, refused ones, ones with a
// non-ASCII host, and some whose expressions are longer than a group's slot:
// MatchBatch answers each as Match.
template <class Filter>
void ExpectMatchBatchAsMatch(const Filter& f, size_t entries) {
  const size_t n = entries > 0 ? entries : 1;
  Packed urls;
  const char* const tails[] = {"", "index.html", "a/b/c.php?x=1", "login#top", "x/y/z/w/v/u/t"};
  for (size_t i = 0; i < 6007; ++i) {
    const std::string host =
        i % 3 == 0 ? "other" + std::to_string(i) + ".test" : Member(i * 13 % n);
    urls.Push("https://" + std::string(i % 5 == 0 ? "www." : "") + host + "/" + tails[i % 5]);
    if (i % 97 == 0) urls.Push("http://" + host + "/" + std::string(300, 'p'));
    if (i % 211 == 0) urls.Push("http://[zz]/");
    if (i % 307 == 0) urls.Push("https://b\xc3\xbc" "cher.example/");
  }
  std::vector<int8_t> results(urls.size(), 7);
  std::vector<uint8_t> buf(url::CanonicalBufferSize(4096));
  url::CanonicalUrl canon;
  url::UrlSpan spans[url::kMaxExpressions];
  url::MatchBatch(f, urls.data(), urls.offsets.data(), urls.size(), results.data(), buf.data(),
                  buf.size(), &canon, spans);
  size_t found = 0;
  for (size_t k = 0; k < urls.size(); ++k) {
    url::UrlInput in;
    in.url = urls.key(k);
    in.len = urls.len(k);
    url::UrlSpan span;
    Status s = Status::kOk;
    const bool hit = url::Match(f, in, buf.data(), buf.size(), &canon, &span, &s);
    const int expect = s != Status::kOk ? -static_cast<int>(s) : hit ? 1 : 0;
    ASSERT_EQ(results[k], expect) << std::string(reinterpret_cast<const char*>(in.url), in.len);
    found += expect == 1;
  }
  if (entries > 0) EXPECT_GT(found, urls.size() / 3);
}

template <class Filter>
void AddEntries(Filter& f, size_t n) {
  std::vector<uint8_t> buf(url::CanonicalBufferSize(256));
  url::CanonicalUrl canon;
  url::UrlSpan span;
  for (size_t i = 0; i < n; ++i) {
    const std::string entry = Member(i);
    url::UrlInput in;
    in.url = reinterpret_cast<const uint8_t*>(entry.data());
    in.len = entry.size();
    ASSERT_EQ(url::AddEntry(f, in, buf.data(), buf.size(), &canon, &span), Status::kOk);
  }
}

std::unique_ptr<ScalableCuckooFilter> MakeCuckoo(uint64_t capacity, TableEncoding encoding,
                                                 uint32_t expansion = 0) {
  ScalableCuckooParams p;
  p.first.capacity = capacity;
  p.first.fingerprint_bits = 13;
  p.first.encoding = encoding;
  p.expansion = expansion;
  std::unique_ptr<ScalableCuckooFilter> f;
  EXPECT_EQ(ScalableCuckooFilter::Create(p, &f), Status::kOk);
  return f;
}

class CuckooBatch : public ::testing::TestWithParam<TableEncoding> {};

TEST_P(CuckooBatch, SmallAndLarge) {
  for (const size_t n : {size_t{20000}, size_t{3000000}}) {
    auto f = MakeCuckoo(n + n / 4, GetParam());
    Fill(*f, Members(n));
    EXPECT_EQ(f->SerializedSize() >= kGroupFromBytes, n > 20000);
    ExpectBatchAsContain(*f, Queries(n));
    ExpectBatchAsContain(f->sub_filter(0), Queries(n));  // the plain filter's own batch
    AddEntries(*f, n / 4);
    ExpectMatchBatchAsMatch(*f, n / 4);
  }
}

TEST_P(CuckooBatch, Grown) {
  // Sub-filters of 100,000 to 3,200,000 keys: the first ones small, the last large.
  const size_t n = 3400000;
  auto f = MakeCuckoo(100000, GetParam(), 2);
  Fill(*f, Members(n));
  EXPECT_GE(f->sub_filter_count(), 4u);
  EXPECT_GE(f->SerializedSize(), kGroupFromBytes);
  ExpectBatchAsContain(*f, Queries(n));
  ExpectMatchBatchAsMatch(*f, 0);
}

INSTANTIATE_TEST_SUITE_P(Encodings, CuckooBatch,
                         ::testing::Values(TableEncoding::kPacked, TableEncoding::kSemiSorted));

TEST(BloomBatch, SmallLargeAndGrown) {
  // At 1% the other keys have false positives, which a bit left untested would add to.
  for (const BloomPositions positions :
       {BloomPositions::kIndependent, BloomPositions::kDoubleHashing}) {
    for (const uint32_t expansion : {0u, 2u}) {
      ScalableBloomParams p;
      p.capacity = expansion == 0 ? 4500000 : 300000;
      p.false_positive_rate = 0.01;
      p.positions = positions;
      p.expansion = expansion;
      std::unique_ptr<ScalableBloomFilter> small, large;
      ASSERT_EQ(ScalableBloomFilter::Create(p, &large), Status::kOk);
      p.capacity = 20000;
      ASSERT_EQ(ScalableBloomFilter::Create(p, &small), Status::kOk);
      Fill(*small, Members(20000));
      Fill(*large, Members(4500000));
      EXPECT_LT(small->SerializedSize(), kGroupFromBytes);
      EXPECT_GE(large->SerializedSize(), kGroupFromBytes);
      ExpectBatchAsContain(*small, Queries(20000));
      ExpectBatchAsContain(*large, Queries(4500000));
      AddEntries(*large, 20000);
      ExpectMatchBatchAsMatch(*large, 20000);
    }
  }
}

TEST(RedisCuckooBatch, OneAndTwoSubFilters) {
  // CF.RESERVE 2200000: tables of 2^21 buckets of 2 for 4,400,000 keys and the entries.
  for (const size_t n : {size_t{20000}, size_t{4400000}}) {
    RedisCuckooParams p;
    p.capacity = n == 20000 ? n : 2200000;
    std::unique_ptr<RedisCuckooFilter> f;
    ASSERT_EQ(RedisCuckooFilter::Create(p, &f), Status::kOk);
    Fill(*f, Members(n));
    ExpectBatchAsContain(*f, Queries(n));
    AddEntries(*f, n / 8);
    if (n > 20000) EXPECT_GE(f->sub_filter_count(), 2u);
    EXPECT_EQ(f->SerializedSize() >= kGroupFromBytes, n > 20000);
    ExpectMatchBatchAsMatch(*f, n / 8);
  }
}

TEST(RedisBloomBatch, SmallLargeAndScaling) {
  // At 1% the other keys have false positives, which a bit left untested would add to.
  for (const bool non_scaling : {true, false}) {
    for (const size_t n : {size_t{20000}, size_t{4500000}}) {
      RedisBloomParams p;
      p.error_rate = 0.01;
      p.capacity = non_scaling ? n : n / 8;
      p.non_scaling = non_scaling;
      std::unique_ptr<RedisBloomFilter> f;
      ASSERT_EQ(RedisBloomFilter::Create(p, &f), Status::kOk);
      Fill(*f, Members(n));
      EXPECT_EQ(f->SerializedSize() >= kGroupFromBytes, n > 20000);
      ExpectBatchAsContain(*f, Queries(n));
      ExpectMatchBatchAsMatch(*f, 0);
    }
  }
}

TEST(BinaryFuseBatch, SmallAndLarge) {
  for (const size_t n : {size_t{20000}, size_t{2600000}}) {
    for (const uint32_t arity : {3u, 4u}) {
      BinaryFuseParams p;
      p.fingerprint_bits = 16;
      p.arity = arity;
      std::unique_ptr<BinaryFuseFilter> collecting, built;
      ASSERT_EQ(BinaryFuseFilter::Create(p, &collecting), Status::kOk);
      Fill(*collecting, Members(n));
      AddEntries(*collecting, n / 4);
      p.from = reinterpret_cast<uintptr_t>(collecting.get());
      ASSERT_EQ(BinaryFuseFilter::Create(p, &built), Status::kOk);
      EXPECT_EQ(built->SerializedSize() >= kGroupFromBytes, n > 20000);
      ExpectBatchAsContain(*built, Queries(n));
      ExpectMatchBatchAsMatch(*built, n / 4);
    }
  }
}

}  // namespace
}  // namespace cuckoo
