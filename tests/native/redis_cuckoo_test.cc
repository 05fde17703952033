// RedisCuckooFilter (src/redis/redis_cuckoo.h): the key derivation by hand, the
// server's recorded filters (../shared/redis/cf-*.json, when present) replayed
// and loaded byte for byte, the kick chain's rollback, growth and its limit,
// this library's own format (golden file tests/golden/redis-cuckoo-v4.bin),
// and every refusal of a hostile SCANDUMP, with nothing allocated before the
// header is valid.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "alloc_probe.h"
#include "format/format.h"
#include "common/murmur_hash.h"
#include "redis/redis_cuckoo.h"
#include "growth/scalable_filter.h"
#include "testing/packed_keys.h"
#include "test_util.h"

namespace {

using cuckoo::Probe;
using cuckoo::RedisChunk;
using cuckoo::RedisCuckooFilter;
using cuckoo::RedisCuckooParams;
using cuckoo::RedisKeys;
using cuckoo::Status;
using Bytes = std::vector<uint8_t>;
using Chunk = std::pair<uint64_t, Bytes>;
using FilterPtr = std::unique_ptr<RedisCuckooFilter>;

const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

FilterPtr Make(uint64_t capacity, uint32_t b = 2, uint32_t iterations = 20, uint32_t e = 1) {
  RedisCuckooParams p;
  p.capacity = capacity;
  p.bucket_size = b;
  p.max_iterations = iterations;
  p.expansion = e;
  FilterPtr f;
  EXPECT_EQ(RedisCuckooFilter::Create(p, &f), Status::kOk);
  return f;
}

Status Add(RedisCuckooFilter& f, const std::string& k) { return f.Add(U8(k), k.size()); }
bool Has(const RedisCuckooFilter& f, const std::string& k) { return f.Contain(U8(k), k.size()); }

Bytes Own(const RedisCuckooFilter& f) {
  Bytes out(f.SerializedSize());
  f.Serialize(out.data());
  return out;
}

std::vector<Chunk> Dump(const RedisCuckooFilter& f) {
  std::vector<Chunk> chunks;
  uint8_t header[64];
  for (uint32_t j = 0; j < f.DumpChunkCount(); ++j) {
    const RedisChunk c = f.DumpChunk(j, header);
    chunks.emplace_back(c.iterator, Bytes(c.data, c.data + c.len));
  }
  return chunks;
}

// Loads chunks as CF.LOADCHUNK would; the first failing status, or kOk.
Status Load(const std::vector<Chunk>& chunks, FilterPtr* out) {
  if (chunks.empty()) return Status::kFormatBadChunk;
  Status s = RedisCuckooFilter::LoadDumpHeader(chunks[0].first, chunks[0].second.data(),
                                               chunks[0].second.size(), out);
  for (size_t j = 1; j < chunks.size() && s == Status::kOk; ++j) {
    s = (*out)->LoadDumpChunk(chunks[j].first, chunks[j].second.data(), chunks[j].second.size());
  }
  if (s == Status::kOk) s = (*out)->FinishDump();
  if (s != Status::kOk) out->reset();
  return s;
}

Bytes Header(uint64_t items, uint64_t buckets, uint64_t deletes, uint64_t filters, uint16_t b,
             uint16_t iterations, uint16_t e) {
  Bytes h(38);
  cuckoo_test::PutLE(&h, 0, 8, items);
  cuckoo_test::PutLE(&h, 8, 8, buckets);
  cuckoo_test::PutLE(&h, 16, 8, deletes);
  cuckoo_test::PutLE(&h, 24, 8, filters);
  cuckoo_test::PutLE(&h, 32, 2, b);
  cuckoo_test::PutLE(&h, 34, 2, iterations);
  cuckoo_test::PutLE(&h, 36, 2, e);
  return h;
}

// ---------------------------------------------------------------------------
// Keys, by hand.

TEST(RedisCuckooKeys, FingerprintBucketAndAlternateByHand) {
  // h = 1000, n = 512: fp = 1000 % 255 + 1 = 236, i1 = 1000 & 511 = 488;
  // 236 * 0x5bd1e995 = 363554100572, whose low 9 bits are 348; 488 ^ 348 = 180.
  const Probe p = RedisKeys(512).Of(1000);
  EXPECT_EQ(p.fingerprint, 236u);
  EXPECT_EQ(p.i1, 488u);
  EXPECT_EQ(p.i2, 180u);
  EXPECT_EQ(RedisKeys(512).Alt(180, 236), 488u);
  // h = 2^64 - 1: 2^64 = 1 (mod 255), so fp = 0 + 1; n = 1024: i1 = 1023,
  // 0x5bd1e995 & 1023 = 405, 1023 ^ 405 = 618.
  const Probe q = RedisKeys(1024).Of(UINT64_MAX);
  EXPECT_EQ(q.fingerprint, 1u);
  EXPECT_EQ(q.i1, 1023u);
  EXPECT_EQ(q.i2, 618u);
  // One bucket: every alternate is bucket 0.
  EXPECT_EQ(RedisKeys(1).Of(12345).i2, 0u);
}

TEST(RedisCuckooKeys, AlternateIsAnInvolutionForEveryFingerprint) {
  for (uint64_t n : {1u, 2u, 64u, 1024u}) {
    const RedisKeys keys(n);
    for (uint32_t fp = 1; fp <= 255; ++fp) {
      for (uint32_t i = 0; i < n; i += 7) ASSERT_EQ(keys.Alt(keys.Alt(i, fp), fp), i);
    }
  }
}

// ---------------------------------------------------------------------------
// CF.RESERVE's ranges and CF.INFO.

TEST(RedisCuckooCreate, RangesOfRedis8) {
  FilterPtr f;
  auto create = [&](uint64_t c, uint32_t b, uint32_t i, uint32_t e) {
    RedisCuckooParams p;
    p.capacity = c;
    p.bucket_size = b;
    p.max_iterations = i;
    p.expansion = e;
    return RedisCuckooFilter::Create(p, &f);
  };
  EXPECT_EQ(create(0, 2, 20, 1), Status::kInvalidArgument);
  EXPECT_EQ(create(1, 0, 20, 1), Status::kInvalidArgument);
  EXPECT_EQ(create(1, 256, 20, 1), Status::kInvalidArgument);
  EXPECT_EQ(create(1, 2, 0, 1), Status::kInvalidArgument);
  EXPECT_EQ(create(1, 2, 65536, 1), Status::kInvalidArgument);
  EXPECT_EQ(create(1, 2, 20, 32769), Status::kInvalidArgument);
  EXPECT_EQ(create(uint64_t{1} << 31, 1, 20, 1), Status::kInvalidArgument);  // 2 GiB of slots
  EXPECT_EQ(create(UINT64_MAX, 255, 20, 1), Status::kInvalidArgument);
  EXPECT_EQ(create(1, 255, 65535, 32768), Status::kOk);
  EXPECT_EQ(f->bucket_count(), 1u);
  EXPECT_EQ(create(1, 2, 20, 0), Status::kOk);
  // n0 = the smallest power of two >= floor(capacity / b).
  EXPECT_EQ(create(1000, 2, 20, 1), Status::kOk);
  EXPECT_EQ(f->bucket_count(), 512u);
  EXPECT_EQ(create(4096, 8, 20, 1), Status::kOk);
  EXPECT_EQ(f->bucket_count(), 512u);
  EXPECT_EQ(create(2048, 1, 20, 1), Status::kOk);
  EXPECT_EQ(f->bucket_count(), 2048u);
  EXPECT_EQ(create(1025, 1, 20, 1), Status::kOk);
  EXPECT_EQ(f->bucket_count(), 2048u);
  EXPECT_EQ(f->redis_size(), 2048u + 40 + 16);
  EXPECT_EQ(f->DumpChunkCount(), 0u);  // empty: SCANDUMP returns nothing
}

// ---------------------------------------------------------------------------
// The algorithm: add, exists, count, delete, ADDNX.

TEST(RedisCuckooOps, AddCountDeleteAndAddUnique) {
  FilterPtr f = Make(1000);
  EXPECT_EQ(Add(*f, "a"), Status::kOk);
  EXPECT_EQ(Add(*f, "a"), Status::kOk);  // duplicates are stored again
  EXPECT_EQ(f->size(), 2u);
  EXPECT_EQ(f->Count(U8("a"), 1), 2u);
  bool added = true;
  EXPECT_EQ(f->AddUnique(U8("a"), 1, &added), Status::kOk);
  EXPECT_FALSE(added);
  EXPECT_EQ(f->size(), 2u);
  EXPECT_EQ(f->AddUnique(U8("b"), 1, &added), Status::kOk);
  EXPECT_TRUE(added);
  EXPECT_EQ(f->size(), 3u);
  EXPECT_EQ(f->Delete(U8("a"), 1), Status::kOk);
  EXPECT_EQ(f->Count(U8("a"), 1), 1u);
  EXPECT_EQ(f->Delete(U8("a"), 1), Status::kOk);
  EXPECT_EQ(f->Delete(U8("a"), 1), Status::kNotFound);
  EXPECT_FALSE(Has(*f, "a"));
  EXPECT_TRUE(Has(*f, "b"));
  EXPECT_EQ(f->size(), 1u);
  EXPECT_EQ(f->deleted(), 2u);
}

TEST(RedisCuckooOps, ItemLandsInTheFirstEmptySlotOfI1ThenI2) {
  FilterPtr f = Make(64, 4);  // 16 buckets of 4
  const std::string key = "example.org";
  const Probe p = RedisKeys(16).Of(cuckoo::MurmurHash64A(U8(key), key.size(), 0));
  for (int copy = 0; copy < 8; ++copy) ASSERT_EQ(Add(*f, key), Status::kOk);
  const uint8_t* t = f->sub_filter(0).table().data();
  for (uint32_t s = 0; s < 4; ++s) {
    EXPECT_EQ(t[p.i1 * 4 + s], p.fingerprint);
    EXPECT_EQ(t[p.i2 * 4 + s], p.fingerprint);
  }
  // Delete empties the first matching slot of i1 first.
  ASSERT_EQ(f->Delete(U8(key), key.size()), Status::kOk);
  EXPECT_EQ(t[p.i1 * 4], 0);
  EXPECT_EQ(t[p.i2 * 4], p.fingerprint);
}

TEST(RedisCuckooOps, FailedKickChainLeavesTheTableExactlyAsBefore) {
  FilterPtr f = Make(64, 1, 50, 0);  // 64 buckets of 1 slot, never grows
  Status s = Status::kOk;
  uint32_t k = 0;
  Bytes before;
  while (true) {
    before = Own(*f);
    s = Add(*f, "key-" + std::to_string(k++));
    if (s != Status::kOk) break;
  }
  EXPECT_EQ(s, Status::kNotEnoughSpace);  // "Filter is full"
  EXPECT_EQ(Own(*f), before);
  // Every key added before is still found.
  for (uint32_t i = 0; i + 1 < k; ++i) ASSERT_TRUE(Has(*f, "key-" + std::to_string(i))) << i;
  EXPECT_EQ(f->size(), k - 1);
}

TEST(RedisCuckooOps, GrowsTo32SubFiltersThenRefusesEveryAddWithoutChange) {
  FilterPtr f = Make(1, 1, 1, 1);  // one bucket of one slot per sub-filter
  uint32_t k = 0;
  for (; k < 32; ++k) ASSERT_EQ(Add(*f, "k" + std::to_string(k)), Status::kOk) << k;
  EXPECT_EQ(f->sub_filter_count(), 32u);
  const Bytes before = Own(*f);
  EXPECT_EQ(Add(*f, "k32"), Status::kGrowthLimit);  // "Maximum expansions reached"
  EXPECT_EQ(Own(*f), before);
  EXPECT_EQ(f->redis_size(), 32u + 40 + 16 * 32);
  // The limit is checked at the start of each command, as the server does:
  // a delete frees a slot (no compaction: 1 delete of 31 items), and CF.ADD,
  // CF.ADDNX and CF.INSERT are refused all the same.
  ASSERT_EQ(f->Delete(U8("k3"), 2), Status::kOk);
  ASSERT_EQ(f->sub_filter_count(), 32u);
  const Bytes freed = Own(*f);
  EXPECT_EQ(Add(*f, "k32"), Status::kGrowthLimit);
  bool added = true;
  EXPECT_EQ(f->AddUnique(U8("k32"), 3, &added), Status::kGrowthLimit);
  EXPECT_FALSE(added);
  const uint32_t offsets[] = {0, 3};
  Status s = Status::kOk;
  EXPECT_EQ(f->AddBatch(U8("k32"), offsets, 1, &s), 0u);
  EXPECT_EQ(s, Status::kGrowthLimit);
  EXPECT_EQ(Own(*f), freed);
  // A batch that continues a command begun below the limit is not checked.
  EXPECT_EQ(f->AddBatch(U8("k32"), offsets, 1, &s, /*continues=*/true), 1u);
  EXPECT_EQ(s, Status::kOk);
  EXPECT_TRUE(Has(*f, "k32"));
}

TEST(RedisCuckooOps, OneInsertThatStartsBelow32GrowsPastIt) {
  FilterPtr f = Make(1, 1, 1, 1);
  for (uint32_t k = 0; k < 31; ++k) ASSERT_EQ(Add(*f, "k" + std::to_string(k)), Status::kOk);
  ASSERT_EQ(f->sub_filter_count(), 31u);
  // CF.INSERT of 20 keys: one command, checked once at 31 sub-filters.
  cuckoo::PackedKeys packed;
  for (uint32_t k = 100; k < 120; ++k) packed.Push("k" + std::to_string(k));
  Status s = Status::kGrowthLimit;
  EXPECT_EQ(f->AddBatch(packed.data(), packed.offsets.data(), 20, &s), 20u);
  EXPECT_EQ(s, Status::kOk);
  EXPECT_EQ(f->sub_filter_count(), 51u);
  for (uint32_t k = 100; k < 120; ++k) EXPECT_TRUE(Has(*f, "k" + std::to_string(k)));
  // Such a filter saves, loads, dumps and answers like any other.
  FilterPtr g;
  const Bytes own = Own(*f);
  ASSERT_EQ(RedisCuckooFilter::Deserialize(own.data(), own.size(), &g), Status::kOk);
  EXPECT_EQ(Own(*g), own);
  FilterPtr h;
  ASSERT_EQ(Load(Dump(*f), &h), Status::kOk);
  EXPECT_TRUE(Dump(*h) == Dump(*f));
  EXPECT_EQ(Add(*g, "k200"), Status::kGrowthLimit);
}

TEST(RedisCuckooOps, OneInsertStopsAt255SubFilters) {
  FilterPtr f = Make(1, 1, 1, 1);
  cuckoo::PackedKeys packed;
  for (uint32_t k = 0; k < 400; ++k) packed.Push("k" + std::to_string(k));
  Status s = Status::kOk;
  const size_t added = f->AddBatch(packed.data(), packed.offsets.data(), 400, &s);
  EXPECT_EQ(s, Status::kGrowthLimit);
  EXPECT_EQ(f->sub_filter_count(), cuckoo::format::kMaxSubFilters);
  EXPECT_EQ(added, f->size());
  EXPECT_GE(added, 255u);
}

TEST(RedisCuckooOps, ExpansionRoundsUpToAPowerOfTwo) {
  FilterPtr f = Make(4, 2, 1, 3);  // 2 buckets; e = 3 -> 4
  for (uint32_t k = 0; f->sub_filter_count() < 3; ++k) {
    ASSERT_EQ(Add(*f, "x" + std::to_string(k)), Status::kOk);
  }
  EXPECT_EQ(f->sub_filter(1).bucket_count(), 8u);
  EXPECT_EQ(f->sub_filter(2).bucket_count(), 32u);
  EXPECT_EQ(f->expansion(), 4u);  // stored rounded up, as the server stores it
  EXPECT_EQ(f->expansion_rate(), 4u);
  EXPECT_EQ(Dump(*f)[0].second[36], 4);  // the dump header's expansion (u16 at 36)
}

TEST(RedisCuckooOps, AFileOfAnEarlierReleaseWithExpansion3KeepsItsBytesAndGrowsBy4) {
  FilterPtr f = Make(4, 2, 1, 4);
  for (uint32_t k = 0; f->sub_filter_count() < 2; ++k) ASSERT_EQ(Add(*f, "x" + std::to_string(k)), Status::kOk);
  Bytes old = Own(*f);
  old[cuckoo::format::v4_field::kExpansion] = 3;  // as an earlier release wrote EXPANSION 3
  cuckoo::format::WriteChecksum(old.data(), old.size() - cuckoo::format::kChecksumBytes);
  FilterPtr g;
  ASSERT_EQ(RedisCuckooFilter::Deserialize(old.data(), old.size(), &g), Status::kOk);
  EXPECT_EQ(Own(*g), old);
  EXPECT_EQ(g->expansion(), 3u);
  EXPECT_EQ(g->expansion_rate(), 4u);
  EXPECT_EQ(Dump(*g)[0].second[36], 4);
  EXPECT_TRUE(Dump(*g) == Dump(*f));
  for (uint32_t k = 0; g->sub_filter_count() < 3; ++k) ASSERT_EQ(Add(*g, "y" + std::to_string(k)), Status::kOk);
  EXPECT_EQ(g->sub_filter(2).bucket_count(), 2u * 4 * 4);
}

// ---------------------------------------------------------------------------
// Compaction (../shared/redis/README.md, "CF delete and compaction").

// The fingerprints of every sub-filter, bucket by bucket.
std::vector<Bytes> Tables(const RedisCuckooFilter& f) {
  std::vector<Bytes> out;
  for (uint32_t j = 0; j < f.sub_filter_count(); ++j) {
    const auto& t = f.sub_filter(j).table();
    out.emplace_back(t.data(), t.data() + t.byte_length());
  }
  return out;
}

TEST(RedisCuckooCompaction, DeletePastATenthOfTheItemsCompactsAndKeepsEveryKey) {
  FilterPtr f = Make(8, 2, 20, 2);  // 4 buckets, then 8, 16, ...
  for (int k = 0; k < 60; ++k) ASSERT_EQ(Add(*f, "c" + std::to_string(k)), Status::kOk);
  const uint32_t grown = f->sub_filter_count();
  ASSERT_GE(grown, 3u);
  // Deletes up to a tenth of the items: counted, nothing moves.
  int k = 0;
  for (; (f->deleted() + 1) * 10 <= f->size() - 1; ++k) {
    const std::string key = "c" + std::to_string(k);
    ASSERT_EQ(f->Delete(U8(key), key.size()), Status::kOk);
    EXPECT_EQ(f->deleted(), static_cast<uint64_t>(k + 1));
    EXPECT_EQ(f->sub_filter_count(), grown);
  }
  // The next one crosses the threshold: the pass runs and the count restarts.
  const std::string key = "c" + std::to_string(k);
  ASSERT_EQ(f->Delete(U8(key), key.size()), Status::kOk);
  EXPECT_EQ(f->deleted(), 0u);
  EXPECT_EQ(f->size(), static_cast<uint64_t>(60 - k - 1));
  uint64_t stored = 0;
  for (const Bytes& t : Tables(*f)) {
    for (uint8_t b : t) stored += b != 0;
  }
  EXPECT_EQ(stored, f->size());
  for (int r = k + 1; r < 60; ++r) EXPECT_TRUE(Has(*f, "c" + std::to_string(r))) << r;
}

TEST(RedisCuckooCompaction, FreesTheNewestSubFiltersOnceEmptied) {
  FilterPtr f = Make(8, 2, 20, 2);
  for (int k = 0; k < 60; ++k) ASSERT_EQ(Add(*f, "c" + std::to_string(k)), Status::kOk);
  ASSERT_GE(f->sub_filter_count(), 3u);
  // Down to 4 items: they fit in sub-filter 0's 8 slots, so every newer
  // sub-filter empties and is freed.
  for (int k = 0; k < 56; ++k) {
    const std::string key = "c" + std::to_string(k);
    ASSERT_EQ(f->Delete(U8(key), key.size()), Status::kOk);
  }
  f->Compact();
  EXPECT_EQ(f->sub_filter_count(), 1u);
  EXPECT_EQ(f->size(), 4u);
  EXPECT_EQ(f->deleted(), 0u);
  EXPECT_EQ(f->redis_size(), 8u + 40 + 16);
  for (int k = 56; k < 60; ++k) EXPECT_TRUE(Has(*f, "c" + std::to_string(k))) << k;
  // It grows again as a new filter would: sub-filter 1 has n0 * 2 buckets.
  for (int k = 100; f->sub_filter_count() < 2; ++k) ASSERT_EQ(Add(*f, "c" + std::to_string(k)), Status::kOk);
  EXPECT_EQ(f->sub_filter(1).bucket_count(), 8u);
}

TEST(RedisCuckooCompaction, CompactOnOneSubFilterOnlyResetsTheDeleteCount) {
  FilterPtr f = Make(64, 2, 20, 2);
  for (int k = 0; k < 20; ++k) ASSERT_EQ(Add(*f, "d" + std::to_string(k)), Status::kOk);
  for (int k = 0; k < 10; ++k) {
    const std::string key = "d" + std::to_string(k);
    ASSERT_EQ(f->Delete(U8(key), key.size()), Status::kOk);
  }
  ASSERT_EQ(f->sub_filter_count(), 1u);
  EXPECT_EQ(f->deleted(), 10u);  // one sub-filter: deletes never compact
  const std::vector<Bytes> before = Tables(*f);
  f->Compact();
  EXPECT_EQ(f->deleted(), 0u);
  EXPECT_EQ(Tables(*f), before);
}

// ---------------------------------------------------------------------------
// Own format: round trip and golden file.

TEST(RedisCuckooFormat, SerializeDeserializeRoundTrip) {
  FilterPtr f = Make(200, 2, 20, 2);
  for (int k = 0; k < 1000; ++k) ASSERT_EQ(Add(*f, "r" + std::to_string(k)), Status::kOk);
  for (int k = 0; k < 100; ++k) {
    const std::string key = "r" + std::to_string(k);
    ASSERT_EQ(f->Delete(U8(key), key.size()), Status::kOk);
  }
  ASSERT_GT(f->sub_filter_count(), 1u);
  const Bytes bytes = Own(*f);
  FilterPtr g;
  ASSERT_EQ(RedisCuckooFilter::Deserialize(bytes.data(), bytes.size(), &g), Status::kOk);
  EXPECT_EQ(Own(*g), bytes);
  EXPECT_EQ(Dump(*g), Dump(*f));
  EXPECT_EQ(g->deleted(), f->deleted());
  EXPECT_EQ(g->sub_filter_count(), f->sub_filter_count());
  EXPECT_EQ(g->size(), 900u);
  // Another family's reader names this one, and this one names theirs.
  std::unique_ptr<cuckoo::ScalableCuckooFilter> other;
  EXPECT_EQ(cuckoo::ScalableCuckooFilter::Deserialize(bytes.data(), bytes.size(), &other),
            Status::kFormatWrongFamily);
  const Bytes v1 = cuckoo_test::Serialize(*cuckoo_test::Make(cuckoo_test::Params(100, 12, 4)));
  EXPECT_EQ(RedisCuckooFilter::Deserialize(v1.data(), v1.size(), &g), Status::kFormatWrongFamily);
}

TEST(RedisCuckooFormat, OwnFormatRefusesInconsistentSections) {
  FilterPtr f = Make(8, 2, 20, 2);
  for (int k = 0; k < 30; ++k) ASSERT_EQ(Add(*f, "s" + std::to_string(k)), Status::kOk);
  ASSERT_GE(f->sub_filter_count(), 2u);
  const Bytes good = Own(*f);
  auto refused = [&](size_t at, size_t n, uint64_t v) {
    Bytes b = good;
    cuckoo_test::PutLE(&b, at, n, v);
    cuckoo_test::Reseal(&b);
    FilterPtr g;
    return RedisCuckooFilter::Deserialize(b.data(), b.size(), &g);
  };
  const size_t s0 = cuckoo::format::kHeaderV4Bytes;
  EXPECT_EQ(refused(s0 + 8, 8, f->sub_filter(0).size() - 1), Status::kFormatCountMismatch);
  EXPECT_EQ(refused(s0 + 8, 8, 17), Status::kFormatBadParameter);  // more items than 16 slots
  EXPECT_EQ(refused(s0 + 24, 2, 0), Status::kFormatTruncated);     // b = 0: no table length
  EXPECT_NE(refused(s0 + 24, 2, 1), Status::kOk);  // b = 1: the sections' lengths do not add up to the file
  EXPECT_NE(refused(s0 + 0, 8, 3), Status::kOk);   // n = 3: likewise
  EXPECT_EQ(refused(s0 + 26, 2, 0), Status::kFormatBadParameter);         // max iterations 0
  EXPECT_EQ(refused(cuckoo::format::v4_field::kSeed, 8, 1), Status::kFormatBadParameter);
  EXPECT_EQ(refused(cuckoo::format::v4_field::kHashId, 1, 1), Status::kFormatBadParameter);
  const size_t s1 = s0 + 32 + f->sub_filter(0).table().byte_length();
  EXPECT_EQ(refused(s1 + 16, 8, 1), Status::kFormatBadParameter);  // deletes past section 0
  EXPECT_EQ(refused(s1 + 26, 2, 21), Status::kFormatBadParameter);  // max iterations differ
  EXPECT_EQ(refused(cuckoo::format::v4_field::kExpansion, 4, 32769), Status::kFormatBadParameter);
  EXPECT_EQ(refused(cuckoo::format::v4_field::kExpansion, 4, 4), Status::kFormatBadParameter);
}

TEST(RedisCuckooGolden, OwnFormatV4MatchesByteForByte) {
  // The recipe of tests/golden/README.md, redis-cuckoo-v4.bin.
  FilterPtr f = Make(100, 4, 20, 2);
  for (int k = 0; k < 300; ++k) ASSERT_EQ(Add(*f, "key-" + std::to_string(k)), Status::kOk);
  for (int k = 0; k < 30; ++k) {
    const std::string key = "key-" + std::to_string(k);
    ASSERT_EQ(f->Delete(U8(key), key.size()), Status::kOk);
  }
  const Bytes fresh = Own(*f);
  const Bytes golden = cuckoo_test::GoldenFile("redis-cuckoo-v4.bin", fresh);
  EXPECT_EQ(fresh, golden);
  FilterPtr g;
  ASSERT_EQ(RedisCuckooFilter::Deserialize(golden.data(), golden.size(), &g), Status::kOk);
  EXPECT_EQ(Own(*g), golden);
  for (int k = 30; k < 300; ++k) EXPECT_TRUE(Has(*g, "key-" + std::to_string(k))) << k;
}

// ---------------------------------------------------------------------------
// SCANDUMP / LOADCHUNK.

TEST(RedisCuckooDump, DumpLoadDumpRoundTrip) {
  FilterPtr f = Make(1000, 2, 20, 2);
  for (int k = 0; k < 5000; ++k) ASSERT_EQ(Add(*f, "d" + std::to_string(k)), Status::kOk);
  const std::vector<Chunk> chunks = Dump(*f);
  ASSERT_EQ(chunks.size(), 1u + f->sub_filter_count());
  EXPECT_EQ(chunks[0].first, 1u);
  EXPECT_EQ(chunks[1].first, 1u + 1024);  // 512 buckets of 2
  EXPECT_EQ(chunks[2].first, 1u + 1024 + 2048);
  FilterPtr g;
  ASSERT_EQ(Load(chunks, &g), Status::kOk);
  EXPECT_EQ(Dump(*g), chunks);
  EXPECT_EQ(Own(*g), Own(*f));
  for (int k = 0; k < 5000; ++k) ASSERT_TRUE(Has(*g, "d" + std::to_string(k)));
}

TEST(RedisCuckooDump, HostileHeadersAreRefused) {
  FilterPtr f;
  auto header = [&](uint64_t it, const Bytes& h) {
    return RedisCuckooFilter::LoadDumpHeader(it, h.data(), h.size(), &f);
  };
  const Bytes good = Header(0, 512, 0, 2, 2, 20, 1);
  EXPECT_EQ(header(1, good), Status::kOk);
  EXPECT_EQ(header(0, good), Status::kFormatBadChunk);
  EXPECT_EQ(header(2, good), Status::kFormatBadChunk);
  EXPECT_EQ(header(1, Bytes(good.begin(), good.end() - 1)), Status::kFormatTruncated);
  Bytes longer = good;
  longer.push_back(0);
  EXPECT_EQ(header(1, longer), Status::kFormatTrailingBytes);
  EXPECT_EQ(header(1, Header(0, 500, 0, 1, 2, 20, 1)), Status::kFormatBadParameter);  // not 2^k
  EXPECT_EQ(header(1, Header(0, 0, 0, 1, 2, 20, 1)), Status::kFormatBadParameter);
  EXPECT_EQ(header(1, Header(0, 512, 0, 1, 0, 20, 1)), Status::kFormatBadParameter);
  EXPECT_EQ(header(1, Header(0, 512, 0, 1, 256, 20, 1)), Status::kFormatBadParameter);
  EXPECT_EQ(header(1, Header(0, 512, 0, 1, 2, 0, 1)), Status::kFormatBadParameter);
  EXPECT_EQ(header(1, Header(0, 512, 0, 1, 2, 20, 32769)), Status::kFormatBadParameter);
  EXPECT_EQ(header(1, Header(0, 512, 0, 0, 2, 20, 1)), Status::kFormatBadParameter);
  EXPECT_EQ(header(1, Header(0, 512, 0, 33, 2, 20, 1)), Status::kOk);  // one CF.INSERT grows past 32
  EXPECT_EQ(header(1, Header(0, 512, 0, 255, 2, 20, 1)), Status::kOk);
  EXPECT_EQ(header(1, Header(0, 512, 0, 256, 2, 20, 1)), Status::kFormatBadParameter);
  EXPECT_EQ(header(1, Header(0, 512, 0, 2, 2, 20, 3)), Status::kFormatBadParameter);  // not 2^k
  EXPECT_EQ(header(1, Header(0, 512, 0, 2, 2, 20, 4)), Status::kOk);
  EXPECT_EQ(header(1, Header(0, 512, 0, 2, 2, 20, 0)), Status::kFormatBadParameter);
  EXPECT_EQ(header(1, Header(1025, 512, 0, 1, 2, 20, 1)), Status::kFormatBadParameter);  // > slots
  // Sizes past 1 GiB: one table, or the sum of growing ones.
  EXPECT_EQ(header(1, Header(0, uint64_t{1} << 30, 0, 1, 2, 20, 1)), Status::kFormatBadParameter);
  EXPECT_EQ(header(1, Header(0, uint64_t{1} << 62, 0, 1, 1, 20, 1)), Status::kFormatBadParameter);
  EXPECT_EQ(header(1, Header(0, uint64_t{1} << 20, 0, 17, 2, 20, 2)), Status::kFormatBadParameter);
  EXPECT_EQ(header(1, Header(0, 1, 0, 32, 1, 20, 32768)), Status::kFormatBadParameter);
  EXPECT_EQ(header(1, Header(0, uint64_t{1} << 29, 0, 2, 1, 20, 1)), Status::kOk);  // exactly 1 GiB
  f.reset();
}

TEST(RedisCuckooDump, NothingIsAllocatedBeforeTheHeaderIsValid) {
  const Bytes huge = Header(0, uint64_t{1} << 40, 0, 1, 255, 20, 1);
  const Bytes bad = Header(0, 512, 0, 256, 2, 20, 1);
  FilterPtr f;
  const auto seen = alloc_probe::During([&] {
    EXPECT_EQ(RedisCuckooFilter::LoadDumpHeader(1, huge.data(), huge.size(), &f),
              Status::kFormatBadParameter);
    EXPECT_EQ(RedisCuckooFilter::LoadDumpHeader(1, bad.data(), bad.size(), &f),
              Status::kFormatBadParameter);
    EXPECT_EQ(RedisCuckooFilter::LoadDumpHeader(1, bad.data(), 10, &f), Status::kFormatTruncated);
  });
  EXPECT_EQ(seen.Total(), 0u);
  EXPECT_EQ(f, nullptr);
  // A valid header allocates the tables it names, at their size.
  const Bytes good = Header(0, 1024, 0, 1, 4, 20, 1);
  const auto ok = alloc_probe::During([&] {
    EXPECT_EQ(RedisCuckooFilter::LoadDumpHeader(1, good.data(), good.size(), &f), Status::kOk);
  });
  EXPECT_EQ(ok.largest, 4096u);
  EXPECT_EQ(ok.Foreign(), 0u);
}

TEST(RedisCuckooDump, HostileChunksAreRefused) {
  FilterPtr f = Make(16, 2, 20, 2);  // 8 buckets of 2: 16 table bytes, then 32
  for (int k = 0; k < 30; ++k) ASSERT_EQ(Add(*f, "c" + std::to_string(k)), Status::kOk);
  const std::vector<Chunk> good = Dump(*f);
  ASSERT_EQ(good.size(), 1u + f->sub_filter_count());
  ASSERT_GE(good.size(), 3u);
  FilterPtr g;
  ASSERT_EQ(Load(good, &g), Status::kOk);

  std::vector<Chunk> c = good;
  c[1].first += 1;  // bad iterator
  EXPECT_EQ(Load(c, &g), Status::kFormatBadChunk);
  c = good;
  std::swap(c[1], c[2]);  // out of order
  EXPECT_EQ(Load(c, &g), Status::kFormatBadChunk);
  c = good;
  c.erase(c.begin() + 2);  // missing chunk
  EXPECT_EQ(Load(c, &g), Status::kFormatBadChunk);
  c = good;
  c.pop_back();  // the last one missing: FinishDump
  EXPECT_EQ(Load(c, &g), Status::kFormatBadChunk);
  c = good;
  c.push_back({c.back().first + 1, Bytes{1}});  // extra chunk after the last
  EXPECT_EQ(Load(c, &g), Status::kFormatBadChunk);
  c = good;
  {
    // One chunk spanning sub-filters 0 and 1.
    Bytes joined = c[1].second;
    joined.insert(joined.end(), c[2].second.begin(), c[2].second.end());
    c.erase(c.begin() + 2);
    c[1] = {1 + joined.size(), joined};
  }
  EXPECT_EQ(Load(c, &g), Status::kFormatBadChunk);
  c = good;
  c[1].second.clear();  // empty chunk
  c[1].first = 1;
  EXPECT_EQ(Load(c, &g), Status::kFormatBadChunk);
  c = good;
  cuckoo_test::PutLE(&c[0].second, 0, 8, f->size() - 1);  // numItems disagrees with the slots
  EXPECT_EQ(Load(c, &g), Status::kFormatCountMismatch);
  // Smaller chunks within one sub-filter load too.
  c = good;
  {
    Bytes first = c[1].second;
    const Bytes a(first.begin(), first.begin() + 5), b(first.begin() + 5, first.end());
    c[1] = {1 + 5, a};
    c.insert(c.begin() + 2, Chunk{1 + first.size(), b});
  }
  ASSERT_EQ(Load(c, &g), Status::kOk);
  EXPECT_EQ(Dump(*g), good);
}

TEST(RedisCuckooDump, OutOfMemoryIsAStatusAndLeaksNothing) {
  const size_t live = cuckoo::internal::LiveAllocationsForTesting();
  // Every table of 1 KiB or more fails to allocate.
  cuckoo::internal::SetAllocationHookForTesting([](size_t bytes) { return bytes < 1024; });
  FilterPtr f;
  RedisCuckooParams p;
  p.capacity = 2048;
  EXPECT_EQ(RedisCuckooFilter::Create(p, &f), Status::kOutOfMemory);
  const Bytes two = Header(0, 256, 0, 2, 2, 20, 2);  // tables of 512 and 1024 bytes
  EXPECT_EQ(RedisCuckooFilter::LoadDumpHeader(1, two.data(), two.size(), &f), Status::kOutOfMemory);
  EXPECT_EQ(f, nullptr);
  EXPECT_EQ(cuckoo::internal::LiveAllocationsForTesting(), live);
  // Growth that cannot allocate: kOutOfMemory, nothing changed.
  cuckoo::internal::SetAllocationHookForTesting(nullptr);
  f = Make(512, 2, 20, 2);  // 256 buckets: 512 bytes, the next table 1 KiB
  Bytes before;
  Status s = Status::kOk;
  cuckoo::internal::SetAllocationHookForTesting([](size_t bytes) { return bytes < 1024; });
  for (int k = 0; s == Status::kOk && k < 10000; ++k) {
    before = Own(*f);
    s = Add(*f, "m" + std::to_string(k));
  }
  cuckoo::internal::SetAllocationHookForTesting(nullptr);
  EXPECT_EQ(s, Status::kOutOfMemory);
  EXPECT_EQ(Own(*f), before);
  EXPECT_EQ(f->sub_filter_count(), 1u);
}

// ---------------------------------------------------------------------------
// The server's recorded filters (../shared/redis/), when present.

// A minimal JSON reader for the fixtures (objects, arrays, strings without
// escapes other than \" and \\, integers, null).
struct Json {
  enum Kind { kNull, kNumber, kString, kArray, kObject } kind = kNull;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::map<std::string, Json> fields;
  const Json& operator[](const std::string& k) const { return fields.at(k); }
  const Json& operator[](size_t i) const { return items.at(i); }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& s) : s_(s) {}
  Json Parse() {
    Space();
    Json v;
    const char c = s_.at(at_);
    if (c == '{') {
      v.kind = Json::kObject;
      ++at_;
      Space();
      if (s_[at_] == '}') return ++at_, v;
      while (true) {
        Space();
        const std::string key = Parse().text;
        Space();
        ++at_;  // ':'
        v.fields[key] = Parse();
        Space();
        if (s_[at_++] == '}') return v;
      }
    }
    if (c == '[') {
      v.kind = Json::kArray;
      ++at_;
      Space();
      if (s_[at_] == ']') return ++at_, v;
      while (true) {
        v.items.push_back(Parse());
        Space();
        if (s_[at_++] == ']') return v;
      }
    }
    if (c == '"') {
      v.kind = Json::kString;
      for (++at_; s_[at_] != '"'; ++at_) {
        if (s_[at_] == '\\') ++at_;
        v.text += s_[at_];
      }
      ++at_;
      return v;
    }
    if (c == 'n') {
      at_ += 4;
      return v;
    }
    if (c == 't' || c == 'f') {  // true, false: 1, 0
      v.kind = Json::kNumber;
      v.number = c == 't' ? 1 : 0;
      at_ += c == 't' ? 4 : 5;
      return v;
    }
    v.kind = Json::kNumber;
    size_t used = 0;
    v.number = std::stod(s_.substr(at_, 32), &used);
    at_ += used;
    return v;
  }

 private:
  void Space() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
  }
  const std::string& s_;
  size_t at_ = 0;
};

Bytes Base64(const std::string& s) {
  static const std::string abc =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  Bytes out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    if (c == '=') break;
    acc = (acc << 6) | static_cast<uint32_t>(abc.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>(acc >> bits));
    }
  }
  return out;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The fixtures' folder: $CUCKOO_REDIS_FIXTURES, else ../shared/redis next to
// the repository or its worktree folder.
std::string FixtureDir() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("CUCKOO_REDIS_FIXTURES")) dirs.push_back(env);
  const std::string root = std::string(CUCKOO_GOLDEN_DIR) + "/../..";
  dirs.push_back(root + "/../shared/redis");
  dirs.push_back(root + "/../../shared/redis");
  for (const std::string& d : dirs) {
    if (std::ifstream(d + "/cf-default.json") &&
        std::ifstream(d + "/../data/blocklist_domains.txt")) {
      return d;
    }
  }
  return "";
}

std::vector<std::string> Lines(const std::string& path, const std::set<std::string>* exclude) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::string line;
  while (std::getline(in, line)) {
    const size_t a = line.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) continue;
    const size_t b = line.find_last_not_of(" \t\r\n");
    line = line.substr(a, b - a + 1);
    if (!seen.insert(line).second) continue;
    if (exclude != nullptr && exclude->count(line)) continue;
    out.push_back(line);
  }
  return out;
}

class RedisCuckooFixture : public ::testing::TestWithParam<const char*> {
 protected:
  static void SetUpTestSuite() {
    dir_ = FixtureDir();
    if (dir_.empty()) return;
    members_ = Lines(dir_ + "/../data/blocklist_domains.txt", nullptr);
    const std::set<std::string> all(members_.begin(), members_.end());
    nonmembers_ = Lines(dir_ + "/../data/benign_opendns.txt", &all);
  }
  static std::string dir_;
  static std::vector<std::string> members_, nonmembers_;
};
std::string RedisCuckooFixture::dir_;
std::vector<std::string> RedisCuckooFixture::members_, RedisCuckooFixture::nonmembers_;

TEST_P(RedisCuckooFixture, ReplayAndLoadMatchTheServer) {
  if (dir_.empty()) GTEST_SKIP() << "../shared/redis not found (set CUCKOO_REDIS_FIXTURES)";
  const std::string text = ReadText(dir_ + "/" + GetParam() + ".json");
  const Json fx = JsonParser(text).Parse();
  std::vector<Chunk> want;
  for (const Json& c : fx["chunks"].items) {
    want.emplace_back(static_cast<uint64_t>(c[0].number), Base64(c[1].text));
  }
  // CF.RESERVE KEY capacity [BUCKETSIZE b] [MAXITERATIONS i] [EXPANSION e]
  std::istringstream reserve(fx["reserve"].text);
  std::string word, key;
  RedisCuckooParams p;
  reserve >> word >> key >> p.capacity;
  while (reserve >> word) {
    uint32_t v = 0;
    reserve >> v;
    if (word == "BUCKETSIZE") p.bucket_size = v;
    if (word == "MAXITERATIONS") p.max_iterations = v;
    if (word == "EXPANSION") p.expansion = v;
  }
  FilterPtr f;
  ASSERT_EQ(RedisCuckooFilter::Create(p, &f), Status::kOk);
  size_t used = 0;
  for (const Json& step : fx["build"].items) {
    const std::string command = step["command"].text;
    const size_t count = static_cast<size_t>(step["count"].number);
    const size_t from = step["items"].text == "members" ? used : 0;
    if (step["items"].text == "members") used += count;
    const bool batch = step.fields.count("batch") != 0;
    const std::string label = command + " " + step["items"].text + " x" + std::to_string(count) +
                              (batch ? " batch" : "");
    const Json& outcome = fx["outcome"][label];
    size_t applied = 0;
    Status error = Status::kOk;
    if (batch) {
      // CF.INSERT: one command for all the items; the server's answer per item.
      ASSERT_EQ(command, "CF.INSERT");
      cuckoo::PackedKeys packed;
      for (size_t k = from; k < from + count; ++k) packed.Push(members_.at(k));
      applied = f->AddBatch(packed.data(), packed.offsets.data(), count, &error);
      size_t answered = 0;
      while (answered < outcome["answers"].items.size() &&
             outcome["answers"][answered].number == 1) {
        ++answered;
      }
      EXPECT_EQ(applied, answered) << label;
      EXPECT_EQ(outcome["answers"].items.size(), count) << label;
      if (outcome["error"].kind == Json::kNull) EXPECT_EQ(error, Status::kOk) << label;
      continue;
    }
    for (size_t k = from; k < from + count; ++k) {
      if (command == "CF.COMPACT") {  // items: none; takes only the key
        f->Compact();
        ++applied;
        continue;
      }
      const std::string& item = members_.at(k);
      bool added = false;
      if (command == "CF.ADD") error = f->Add(U8(item), item.size());
      if (command == "CF.ADDNX") error = f->AddUnique(U8(item), item.size(), &added);
      if (command == "CF.DEL") error = f->Delete(U8(item), item.size());
      if (error != Status::kOk) break;
      ++applied;
    }
    EXPECT_EQ(applied, static_cast<size_t>(outcome["applied"].number)) << label;
    if (outcome["error"].kind == Json::kNull) {
      EXPECT_EQ(error, Status::kOk) << label;
    } else if (outcome["error"].text == "Filter is full") {
      EXPECT_EQ(error, Status::kNotEnoughSpace) << label;
    } else {
      EXPECT_EQ(outcome["error"].text, "Maximum expansions reached");
      EXPECT_EQ(error, Status::kGrowthLimit) << label;
    }
  }
  // The replayed filter dumps the server's bytes and reports its CF.INFO.
  EXPECT_TRUE(Dump(*f) == want) << GetParam() << ": replayed SCANDUMP differs";
  const Json& info = fx["info"];
  EXPECT_EQ(f->redis_size(), info["Size"].number);
  EXPECT_EQ(f->bucket_count(), info["Number of buckets"].number);
  EXPECT_EQ(f->sub_filter_count(), info["Number of filters"].number);
  EXPECT_EQ(f->size(), info["Number of items inserted"].number);
  EXPECT_EQ(f->deleted(), info["Number of items deleted"].number);
  EXPECT_EQ(f->bucket_size(), info["Bucket size"].number);
  EXPECT_EQ(f->expansion_rate(), info["Expansion rate"].number);
  EXPECT_EQ(f->max_iterations(), info["Max iterations"].number);

  // The server's chunks load, dump back byte for byte, and answer as it did.
  FilterPtr g;
  ASSERT_EQ(Load(want, &g), Status::kOk);
  EXPECT_TRUE(Dump(*g) == want);
  EXPECT_EQ(Own(*g), Own(*f));
  const Json& probes = fx["probes"];
  const std::string& ma = probes["memberAnswers"].text;
  const std::string& na = probes["nonMemberAnswers"].text;
  size_t wrong = 0;
  for (size_t k = 0; k < ma.size(); ++k) wrong += Has(*g, members_[k]) != (ma[k] == '1');
  for (size_t k = 0; k < na.size(); ++k) wrong += Has(*g, nonmembers_[k]) != (na[k] == '1');
  EXPECT_EQ(wrong, 0u) << "answers differing from the server's, of " << ma.size() + na.size();
  // CF.COUNT of the same keys, where the fixture recorded it.
  for (const char* which : {"memberCounts", "nonMemberCounts"}) {
    if (probes.fields.count(which) == 0) continue;
    const std::vector<std::string>& keys =
        std::string(which) == "memberCounts" ? members_ : nonmembers_;
    std::istringstream counts(probes[which].text);
    std::string count;
    size_t k = 0, differ = 0;
    for (; std::getline(counts, count, ','); ++k) {
      differ += g->Count(U8(keys.at(k)), keys[k].size()) != std::stoul(count);
      differ += f->Count(U8(keys.at(k)), keys[k].size()) != std::stoul(count);
    }
    EXPECT_GT(k, 0u) << which;
    EXPECT_EQ(differ, 0u) << which << ": CF.COUNTs differing from the server's, of " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Server, RedisCuckooFixture,
                         ::testing::Values("cf-default", "cf-b4", "cf-full", "cf-grow",
                                           "cf-deletes", "cf-addnx", "cf-compact",
                                           "cf-compact-flat", "cf-compact-free",
                                           "cf-compact-cmd", "cf-count-twin", "cf-limit-add",
                                           "cf-insert-past-limit", "cf-expansion-3"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           std::string n = i.param;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

}  // namespace
