#include "redis/redis_bloom.h"

#include <cmath>
#include <cstring>
#include <new>

#include "common/batch.h"
#include "common/size_optimized.h"

namespace cuckoo {

namespace {

// The server's truncated constants (the fixtures' bpe and hashes pin them).
constexpr double kRedisLn2 = 0.693147180559945;
constexpr double kRedisLn2Squared = 0.480453013918201;

double RedisBitsPerEntry(double error) { return -std::log(error) / kRedisLn2Squared; }

// floor(entries * bpe) rounded up to a multiple of 64; 0 if it is 0 or at
// least 2^63 (or not a number).
uint64_t RedisBitsFor(uint64_t entries, double bpe) {
  const double product = static_cast<double>(entries) * bpe;
  if (!(product >= 1 && product < 9223372036854775808.0 - 64)) return 0;
  const uint64_t bits = static_cast<uint64_t>(product);
  return (bits + 63) / 64 * 64;
}

uint32_t RedisHashesFor(double bpe) { return static_cast<uint32_t>(std::ceil(kRedisLn2 * bpe)); }

// The one Bloom loop over the position policy: set, or test, the k bits.
void SetRedisBits(uint8_t* data, const RedisBloomHash& h, uint64_t m, uint32_t k) {
  RedisBloomPositions pos(h, m);
  for (uint32_t i = 0; i < k; pos.Next(i++))
    data[pos.x >> 3] |= static_cast<uint8_t>(1u << (pos.x & 7));
}

bool TestRedisBits(const uint8_t* data, const RedisBloomHash& h, uint64_t m, uint32_t k) {
  RedisBloomPositions pos(h, m);
  for (uint32_t i = 0; i < k; pos.Next(i++)) {
    if ((data[pos.x >> 3] & (1u << (pos.x & 7))) == 0) return false;
  }
  return true;
}

// BF.INFO's Size of one link: its bytes and 64 bytes of bookkeeping.
constexpr uint64_t kRedisInfoLinkBytes = 64;
constexpr uint64_t kRedisInfoFilterBytes = 32;

CUCKOO_SIZE_OPTIMIZED_BEGIN
bool ValidRedisGrowth(uint32_t growth, bool non_scaling) {
  return growth <= kRedisBloomMaxExpansion && (non_scaling || growth >= 1);
}

// Link j (j >= 1) follows from link j - 1: entries * growth at error / 2.
bool RedisLinkFollows(const RedisBloomLinkShape& prev, const RedisBloomLinkShape& link,
                      uint32_t growth) {
  return growth != 0 && prev.entries <= UINT64_MAX / growth &&
         link.entries == prev.entries * growth && link.error == prev.error / 2;
}
CUCKOO_SIZE_OPTIMIZED_END

}  // namespace

// ---------------------------------------------------------------------------
// Links

bool RedisBloomLinkShape::For(uint64_t entries, double error, RedisBloomLinkShape* out) {
  if (entries == 0 || !(error > 0 && error < 1)) return false;
  RedisBloomLinkShape s;
  s.entries = entries;
  s.error = error;
  s.bpe = RedisBitsPerEntry(error);
  s.hashes = RedisHashesFor(s.bpe);
  s.bits = RedisBitsFor(entries, s.bpe);
  s.bytes = s.bits / 8;
  if (s.bits == 0) return false;
  *out = s;
  return true;
}

CUCKOO_SIZE_OPTIMIZED_BEGIN
bool RedisBloomLinkShape::Consistent() const {
  if (entries == 0 || !(error > 0 && error < 1) || !(bpe > 0) || !std::isfinite(bpe)) return false;
  const double expected = RedisBitsPerEntry(error);
  if (!(std::fabs(bpe - expected) <= expected * 1e-12)) return false;
  return hashes == RedisHashesFor(bpe) && bits != 0 && bits % 64 == 0 && bytes == bits / 8 &&
         bits == RedisBitsFor(entries, bpe);
}
CUCKOO_SIZE_OPTIMIZED_END

Status RedisBloomLink::Create(const RedisBloomLinkShape& shape,
                              std::unique_ptr<RedisBloomLink>* out) {
  if (shape.bytes > SIZE_MAX) return Status::kOutOfMemory;
  void* block = internal::AllocateZeroed(sizeof(RedisBloomLink));
  if (block == nullptr) return Status::kOutOfMemory;
  std::unique_ptr<RedisBloomLink> link(::new (block) RedisBloomLink());
  link->shape_ = shape;
  link->data_ = static_cast<uint8_t*>(internal::AllocateZeroed(static_cast<size_t>(shape.bytes)));
  if (link->data_ == nullptr) return Status::kOutOfMemory;
  *out = std::move(link);
  return Status::kOk;
}

Status RedisBloomLink::AddHash(const RedisBloomHash& h) {
  if (size_ >= shape_.entries) return Status::kNotEnoughSpace;
  SetRedisBits(data_, h, shape_.bits, shape_.hashes);
  ++size_;
  return Status::kOk;
}

bool RedisBloomLink::ContainHash(const RedisBloomHash& h) const {
  return TestRedisBits(data_, h, shape_.bits, shape_.hashes);
}

void RedisBloomLink::ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n,
                                  uint8_t* results) const {
  ContainEach(keys, offsets, n, results, [this](const uint8_t* key, size_t len) {
    return ContainHash(RedisBloomHashKey(key, len));
  });
}

void RedisBloomLink::ContainHashes(const RedisBloomHash* hashes, size_t m, uint8_t* out) const {
  // Pair p: positions 2p and 2p + 1, (a + i*b mod 2^64) mod bits.
  const uint64_t bits = shape_.bits;
  const uint32_t k = shape_.hashes;
  TestPairsGrouped(
      m, (k + 1) / 2, out,
      [&](size_t i, uint32_t p, uint64_t* x, uint64_t* y) {
        const RedisBloomHash& h = hashes[i];
        *x = (h.a + 2 * p * h.b) % bits;
        *y = 2 * p + 1 < k ? (h.a + (2 * p + 1) * h.b) % bits : *x;
      },
      data_);
}

// ---------------------------------------------------------------------------
// Family

Status RedisBloomFamily::MakeNext(const RedisBloomLink&, const RedisBloomLink& newest, uint32_t,
                                  uint32_t expansion, uint64_t bytes_now,
                                  std::unique_ptr<RedisBloomLink>* next) {
  if (expansion == 0 || newest.entries() > UINT64_MAX / expansion) return Status::kGrowthLimit;
  RedisBloomLinkShape shape;
  if (!RedisBloomLinkShape::For(newest.entries() * expansion, newest.error() / 2, &shape) ||
      format::RedisBloomSectionBytes(shape.bytes) > kMaxFilterBytes - bytes_now) {
    return Status::kGrowthLimit;
  }
  const Status s = RedisBloomLink::Create(shape, next);
  if (s == Status::kOk) (*next)->set_growth(newest.growth());
  return s;
}

CUCKOO_SIZE_OPTIMIZED_BEGIN
void RedisBloomFamily::WriteSection(const RedisBloomLink& from, uint8_t* out) {
  format::RedisBloomSection header;
  CUCKOO_REDIS_BLOOM_SECTION_FIELDS(CUCKOO_FIELD_FROM)
  header.data = from.data();
  format::WriteRedisBloomSection(header, out);
}

Status RedisBloomFamily::LoadSection(const uint8_t* data, size_t len, const format::StackHeader& h,
                                     uint32_t j, const RedisBloomLink* prev, const RedisBloomLink*,
                                     std::unique_ptr<RedisBloomLink>* out) {
  format::RedisBloomSection r;
  const Status s = format::ReadRedisBloomSection(data, len, &r);
  if (s != Status::kOk) return s;
  RedisBloomLinkShape shape;
  shape.entries = r.entries;
  shape.error = r.error;
  shape.bpe = r.bpe;
  shape.hashes = r.hashes;
  shape.bits = r.bits;
  shape.bytes = r.bits / 8;
  const bool non_scaling = h.expansion == 0;
  // A scaling filter's growth is the header's expansion; every section holds
  // link 0's.
  if (h.seed != 0 || !shape.Consistent() || r.size > r.entries ||
      !ValidRedisGrowth(r.growth, non_scaling) || (!non_scaling && r.growth != h.expansion) ||
      (j > 0 &&
       (r.growth != prev->growth() || !RedisLinkFollows(prev->shape(), shape, r.growth)))) {
    return Status::kFormatBadParameter;
  }
  std::unique_ptr<RedisBloomLink> link;
  const Status made = RedisBloomLink::Create(shape, &link);
  if (made != Status::kOk) return made;
  std::memcpy(link->mutable_data(), r.data, static_cast<size_t>(shape.bytes));
  link->set_size(r.size);
  link->set_growth(r.growth);
  *out = std::move(link);
  return Status::kOk;
}

// ---------------------------------------------------------------------------
// Filter

Status RedisBloomFilter::Create(const RedisBloomParams& p, std::unique_ptr<RedisBloomFilter>* out) {
  const bool non_scaling = p.non_scaling || p.expansion == 0;
  if (!(p.error_rate > 0 && p.error_rate < 1) || p.capacity < 1 ||
      p.capacity > kRedisBloomMaxCapacity || p.expansion > kRedisBloomMaxExpansion ||
      (p.non_scaling && p.expansion != 2 && p.expansion != 0)) {
    return Status::kInvalidArgument;
  }
  RedisBloomLinkShape shape;
  if (!RedisBloomLinkShape::For(p.capacity, non_scaling ? p.error_rate : p.error_rate / 2,
                                &shape) ||
      format::kHeaderV4Bytes + format::kChecksumBytes +
              format::RedisBloomSectionBytes(shape.bytes) >
          kMaxFilterBytes) {
    return Status::kInvalidArgument;
  }
  std::unique_ptr<RedisBloomLink> first;
  const Status s = RedisBloomLink::Create(shape, &first);
  if (s != Status::kOk) return s;
  first->set_growth(p.expansion);
  return Wrap(std::move(first), non_scaling ? 0 : p.expansion, out);
}
CUCKOO_SIZE_OPTIMIZED_END

Status RedisBloomFilter::AddUnique(const uint8_t* key, size_t len, bool* added) {
  *added = false;
  const RedisBloomHash h = RedisBloomHashKey(key, len);
  if (ContainHash(h)) return Status::kOk;
  const Status s = AddHash(h);
  *added = s == Status::kOk;
  return s;
}

CUCKOO_SIZE_OPTIMIZED_BEGIN
uint64_t RedisBloomFilter::redis_size() const {
  return kRedisInfoFilterBytes +
         Sum([](const RedisBloomLink& l) { return l.bytes() + kRedisInfoLinkBytes; });
}

// ---------------------------------------------------------------------------
// SCANDUMP

namespace {

// Each link's bit-array bytes, for RedisChunkPlan.
template <class Links>
void RedisLinkBytes(const Links& links, uint32_t n, uint64_t* lengths) {
  for (uint32_t j = 0; j < n; ++j) lengths[j] = links[j]->bytes();
}

}  // namespace

uint32_t RedisBloomFilter::DumpChunkCount() const {
  uint64_t lengths[format::kMaxSubFilters];
  RedisLinkBytes(subs_, count_, lengths);
  return static_cast<uint32_t>(1 + RedisChunkPlan::Count(lengths, count_));
}

RedisChunk RedisBloomFilter::DumpChunk(uint32_t j, uint8_t* header_out) const {
  RedisChunk chunk;
  if (j == 0) {
    {
      const RedisBloomFilter& from = *this;
      format::RedisBloomDumpHeader header;
      CUCKOO_REDIS_BLOOM_DUMP_FIELDS(CUCKOO_FIELD_FROM)
      format::WriteFields(format::kRedisBloomDumpLayout, &header, header_out);
    }
    uint8_t* p = header_out + kRedisBloomHeaderBytes;
    for (uint32_t k = 0; k < count_; ++k, p += kRedisBloomLinkHeaderBytes) {
      const RedisBloomLink& from = *subs_[k];
      format::RedisBloomDumpLink header;
      CUCKOO_REDIS_BLOOM_DUMP_LINK_FIELDS(CUCKOO_FIELD_FROM)
      format::WriteFields(format::kRedisBloomDumpLinkLayout, &header, p);
    }
    chunk.iterator = 1;
    chunk.data = header_out;
    chunk.len = DumpHeaderBytes();
    return chunk;
  }
  uint64_t lengths[format::kMaxSubFilters];
  RedisLinkBytes(subs_, count_, lengths);
  uint32_t table = 0;
  uint64_t offset = 0, len = 0, iterator = 0;
  if (!RedisChunkPlan::At(lengths, count_, j - 1, &table, &offset, &len, &iterator)) return chunk;
  chunk.iterator = iterator;
  chunk.data = subs_[table]->data() + offset;
  chunk.len = len;
  return chunk;
}

// ---------------------------------------------------------------------------
// LOADCHUNK

Status RedisBloomFilter::LoadDumpHeader(uint64_t iterator, const uint8_t* data, size_t len,
                                        std::unique_ptr<RedisBloomFilter>* out) {
  if (iterator != 1) return Status::kFormatBadChunk;
  if (len < kRedisBloomHeaderBytes) return Status::kFormatTruncated;
  format::RedisBloomDumpHeader h;
  format::ReadFields(format::kRedisBloomDumpLayout, data, &h);
  const uint64_t total = h.total;
  const uint32_t n = h.links;
  const uint32_t options = h.options;
  const uint32_t growth = h.growth;
  if (n == 0 || n > format::kMaxSubFilters) return Status::kFormatBadParameter;
  const uint64_t want = kRedisBloomHeaderBytes + kRedisBloomLinkHeaderBytes * n;
  if (len < want) return Status::kFormatTruncated;
  if (len > want) return Status::kFormatTrailingBytes;
  const bool non_scaling = options == kRedisBloomOptionsNonScaling;
  if ((options != kRedisBloomOptions && !non_scaling) || (non_scaling && n != 1) ||
      !ValidRedisGrowth(growth, non_scaling)) {
    return Status::kFormatBadParameter;
  }
  // Every link's numbers, before anything is allocated.
  RedisBloomLinkShape shapes[format::kMaxSubFilters];
  uint64_t sizes[format::kMaxSubFilters];
  uint64_t bytes = format::kHeaderV4Bytes + format::kChecksumBytes;  // as Serialize would write it
  uint64_t sum = 0;
  const uint8_t* p = data + kRedisBloomHeaderBytes;
  for (uint32_t j = 0; j < n; ++j, p += kRedisBloomLinkHeaderBytes) {
    RedisBloomLinkShape& s = shapes[j];
    format::RedisBloomDumpLink d;
    format::ReadFields(format::kRedisBloomDumpLinkLayout, p, &d);
    s.bytes = d.bytes;
    s.bits = d.bits;
    sizes[j] = d.size;
    s.error = d.error;
    s.bpe = d.bpe;
    s.hashes = d.hashes;
    s.entries = d.entries;
    if (d.n2 != 0 || !s.Consistent() || sizes[j] > s.entries ||
        (j > 0 && !RedisLinkFollows(shapes[j - 1], s, growth))) {
      return Status::kFormatBadParameter;
    }
    if (s.bytes > kMaxFilterBytes) return Status::kFormatBadParameter;
    bytes += format::RedisBloomSectionBytes(s.bytes);  // at most 2^31 + 48 here: no overflow
    if (bytes > kMaxFilterBytes) return Status::kFormatBadParameter;
    sum += sizes[j];
    if (sum < sizes[j]) return Status::kFormatCountMismatch;  // wrapped: no total matches
  }
  if (sum != total) return Status::kFormatCountMismatch;

  std::unique_ptr<RedisBloomLink> links[format::kMaxSubFilters];
  for (uint32_t j = 0; j < n; ++j) {
    const Status s = RedisBloomLink::Create(shapes[j], &links[j]);
    if (s != Status::kOk) return s;
    links[j]->set_size(sizes[j]);
    links[j]->set_growth(growth);
  }
  std::unique_ptr<RedisBloomFilter> filter;
  const Status s = Wrap(std::move(links[0]), non_scaling ? 0 : growth, &filter);
  if (s != Status::kOk) return s;
  for (uint32_t j = 1; j < n; ++j) filter->subs_[j] = std::move(links[j]);
  filter->count_ = n;
  *out = std::move(filter);
  return Status::kOk;
}

Status RedisBloomFilter::LoadDumpChunk(uint64_t iterator, const uint8_t* data, size_t len) {
  // The link the next byte belongs to, and the bytes of it already loaded.
  uint64_t before = 0;
  uint32_t j = 0;
  while (j < count_ && loaded_ >= before + subs_[j]->bytes()) before += subs_[j++]->bytes();
  if (j == count_ || len == 0) return Status::kFormatBadChunk;  // after the last, or empty
  const uint64_t offset = loaded_ - before;
  if (len > subs_[j]->bytes() - offset || iterator != 1 + loaded_ + len) {
    return Status::kFormatBadChunk;
  }
  std::memcpy(subs_[j]->mutable_data() + offset, data, len);
  loaded_ += len;
  return Status::kOk;
}

Status RedisBloomFilter::FinishDump() {
  const uint64_t total = Sum([](const RedisBloomLink& l) { return l.bytes(); });
  return loaded_ == total ? Status::kOk : Status::kFormatBadChunk;
}
CUCKOO_SIZE_OPTIMIZED_END

}  // namespace cuckoo
