#include "redis/redis_cuckoo.h"

#include <cstring>
#include <new>

#include "common/batch.h"
#include "common/murmur_hash.h"
#include "common/size_optimized.h"

namespace cuckoo {

namespace {

bool IsPowerOfTwo(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

}  // namespace

// ---------------------------------------------------------------------------
// Sub-filters

Status RedisCuckooSub::Make(uint64_t bucket_count, uint32_t bucket_size, uint32_t max_iterations,
                            std::unique_ptr<RedisCuckooSub>* out) {
  void* block = internal::AllocateZeroed(sizeof(RedisCuckooSub));
  if (block == nullptr) return Status::kOutOfMemory;
  std::unique_ptr<RedisCuckooSub> f(::new (block) RedisCuckooSub());
  if (!f->table_.Init(bucket_count, bucket_size)) return Status::kOutOfMemory;
  f->keys_ = RedisKeys(bucket_count);
  f->shape_ = CuckooShape{bucket_size, max_iterations};
  *out = std::move(f);
  return Status::kOk;
}

void RedisCuckooSub::ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n,
                                  uint8_t* results) const {
  ContainEach(keys, offsets, n, results, [this](const uint8_t* key, size_t len) {
    return ContainProbe(keys_.Of(MurmurHash64A(key, len, 0)));
  });
}

void RedisCuckooSub::ContainHashes(const uint64_t* hashes, size_t m, uint8_t* out) const {
  Probe probes[kLookupGroup];
  for (size_t i = 0; i < m; ++i) probes[i] = keys_.Of(hashes[i]);
  if (table_.byte_length() >= kGroupFromBytes) {
    TouchList<kLookupGroup * 2> touch;
    for (size_t i = 0; i < m; ++i) {
      touch.Add(table_.BucketAt(probes[i].i1));
      touch.Add(table_.BucketAt(probes[i].i2));
    }
    touch.Load();
  }
  for (size_t i = 0; i < m; ++i) out[i] = ContainProbe(probes[i]);
}

// ---------------------------------------------------------------------------
// Family

uint64_t RedisCuckooFamily::Hash(const uint8_t* key, size_t len, uint64_t seed) {
  return MurmurHash64A(key, len, seed);
}

uint32_t RedisCuckooFamily::GrowthShift(uint32_t expansion) {
  uint32_t shift = 0;
  while (expansion > (uint32_t{1} << shift)) ++shift;
  return shift;
}

uint64_t RedisCuckooFamily::TableBytes(uint64_t n0, uint32_t bucket_size, uint32_t shift,
                                       uint32_t count) {
  uint64_t total = 0;
  uint64_t n = n0;
  for (uint32_t j = 0; j < count; ++j) {
    if (n > kMaxFilterBytes / bucket_size) return UINT64_MAX;
    total += n * bucket_size;
    if (total > kMaxFilterBytes) return UINT64_MAX;
    if (j + 1 < count) {
      if (shift >= 31 || n > (kMaxFilterBytes >> shift)) return UINT64_MAX;
      n <<= shift;
    }
  }
  return total;
}

Status RedisCuckooFamily::MakeNext(const RedisCuckooSub& first, const RedisCuckooSub&,
                                   uint32_t level, uint32_t expansion, uint64_t,
                                   std::unique_ptr<RedisCuckooSub>* next) {
  // The tables of all level + 1 sub-filters stay within kMaxFilterBytes.
  const uint32_t shift = GrowthShift(expansion);
  if (TableBytes(first.bucket_count(), first.bucket_size(), shift, level + 1) == UINT64_MAX) {
    return Status::kGrowthLimit;
  }
  return RedisCuckooSub::Make(first.bucket_count() << (shift * level), first.bucket_size(),
                              first.max_iterations(), next);
}

CUCKOO_SIZE_OPTIMIZED_BEGIN
void RedisCuckooFamily::WriteSection(const RedisCuckooSub& from, uint8_t* out) {
  format::RedisCuckooSection header;
  CUCKOO_REDIS_CUCKOO_SECTION_FIELDS(CUCKOO_FIELD_FROM)
  header.table = from.table().data();
  format::WriteRedisCuckooSection(header, out);
}

Status RedisCuckooFamily::LoadSection(const uint8_t* data, size_t len, const format::StackHeader& h,
                                      uint32_t j, const RedisCuckooSub* prev,
                                      const RedisCuckooSub* first,
                                      std::unique_ptr<RedisCuckooSub>* out) {
  format::RedisCuckooSection r;
  Status s = format::ReadRedisCuckooSection(data, len, &r);
  if (s != Status::kOk) return s;
  const uint32_t shift = GrowthShift(h.expansion);
  if (j > 0) {
    // Sub-filter j follows from sub-filter j - 1 (MakeNext); deletes are
    // counted by sub-filter 0.
    if (r.bucket_size != prev->bucket_size() || r.max_iterations != prev->max_iterations() ||
        r.deletes != 0 || prev->bucket_count() > (UINT64_MAX >> shift) ||
        r.bucket_count != prev->bucket_count() << shift) {
      return Status::kFormatBadParameter;
    }
  }
  const uint64_t n0 = j == 0 ? r.bucket_count : first->bucket_count();
  if (TableBytes(n0, r.bucket_size, shift, j + 1) == UINT64_MAX) return Status::kFormatBadParameter;
  std::unique_ptr<RedisCuckooSub> f;
  s = RedisCuckooSub::Make(r.bucket_count, r.bucket_size, r.max_iterations, &f);
  if (s != Status::kOk) return s;
  std::memcpy(f->table_.mutable_data(), r.table, static_cast<size_t>(f->table_.byte_length()));
  if (f->table_.CountOccupied() != r.item_count) return Status::kFormatCountMismatch;
  f->size_ = r.item_count;
  f->deletes_ = r.deletes;
  *out = std::move(f);
  return Status::kOk;
}

// ---------------------------------------------------------------------------
// The filter

Status RedisCuckooFilter::Create(const RedisCuckooParams& params,
                                 std::unique_ptr<RedisCuckooFilter>* out) {
  if (params.capacity == 0 || params.bucket_size == 0 ||
      params.bucket_size > format::kMaxRedisBucketSize || params.max_iterations == 0 ||
      params.max_iterations > format::kMaxRedisIterations ||
      params.expansion > format::kMaxRedisCuckooExpansion) {
    return Status::kInvalidArgument;
  }
  const uint64_t wanted = params.capacity / params.bucket_size;
  if (wanted > kMaxFilterBytes) return Status::kInvalidArgument;
  uint64_t n0 = 1;
  while (n0 < wanted) n0 <<= 1;
  if (n0 * params.bucket_size > kMaxFilterBytes) return Status::kInvalidArgument;
  std::unique_ptr<RedisCuckooSub> first;
  const Status s = RedisCuckooSub::Make(n0, params.bucket_size, params.max_iterations, &first);
  if (s != Status::kOk) return s;
  // Stored rounded up to a power of two, as the server stores it.
  return Wrap(std::move(first), RedisCuckooFamily::ExpansionRate(params.expansion), out);
}
CUCKOO_SIZE_OPTIMIZED_END

void RedisCuckooFilter::Probes(const uint8_t* key, size_t len, Probe* out) const {
  RedisCuckooFamily::Walk walk(*subs_[0], RedisCuckooFamily::Hash(key, len, seed()), expansion_);
  out[0] = walk.key();
  for (uint32_t j = 1; j < count_; ++j) {
    walk.Next();
    out[j] = walk.key();
  }
}

Status RedisCuckooFilter::AddUnique(const uint8_t* key, size_t len, bool* added) {
  *added = false;
  if (count_ >= kCommandSubFilters) return Status::kGrowthLimit;
  const uint64_t hash = RedisCuckooFamily::Hash(key, len, seed());
  if (ContainHash(hash)) return Status::kOk;
  const Status s = AddHash(hash);
  *added = s == Status::kOk;
  return s;
}

Status RedisCuckooFilter::Delete(const uint8_t* key, size_t len) {
  Probe probes[format::kMaxSubFilters];
  Probes(key, len, probes);
  for (uint32_t j = count_; j-- > 0;) {
    if (subs_[j]->DeleteProbe(probes[j]) == Status::kOk) {
      ++subs_[0]->deletes_;
      // deleted > 0.10 * items, exactly (0.1 * items rounds to items / 10
      // whenever that is a whole number).
      if (count_ > 1 && deleted() * 10 > size()) CompactPass(/*stop_at_stuck=*/true);
      return Status::kOk;
    }
  }
  return Status::kNotFound;
}

// A pass over whole sub-filters, after at most one delete in ten: compiled for
// size, out of line from Delete.
CUCKOO_SIZE_OPTIMIZED_BEGIN
bool RedisCuckooSub::AddMoved(uint64_t x, uint32_t fp) {
  const uint32_t i = keys_.Fold(x);
  if (!table_.Insert(i, fp) && !table_.Insert(keys_.Alt(i, fp), fp)) return false;
  ++size_;
  return true;
}

void RedisCuckooFilter::CompactPass(bool stop_at_stuck) {
  for (uint32_t i = count_; i-- > 1;) {
    RedisCuckooSub& sub = *subs_[i];
    ByteTable& table = sub.table_;
    for (uint64_t x = 0; x < table.bucket_count(); ++x) {
      for (uint32_t slot = 0; slot < table.bucket_size(); ++slot) {
        const uint32_t fp = table.Read(x, slot);
        if (fp == 0) continue;
        for (uint32_t j = 0; j < i; ++j) {
          if (subs_[j]->AddMoved(x, fp)) {
            table.Write(x, slot, 0);
            --sub.size_;
            break;
          }
        }
      }
    }
    if (sub.size_ == 0 && i + 1 == count_) {
      FreeNewest();
    } else if (sub.size_ != 0 && stop_at_stuck) {
      break;
    }
  }
  subs_[0]->deletes_ = 0;
}
CUCKOO_SIZE_OPTIMIZED_END

uint32_t RedisCuckooFilter::Count(const uint8_t* key, size_t len) const {
  Probe probes[format::kMaxSubFilters];
  Probes(key, len, probes);
  uint32_t n = 0;
  for (uint32_t j = 0; j < count_; ++j) n += subs_[j]->CountProbe(probes[j]);
  return n;
}

CUCKOO_SIZE_OPTIMIZED_BEGIN
uint64_t RedisCuckooFilter::redis_size() const {
  return Sum([](const RedisCuckooSub& s) { return s.table().byte_length(); }) + 40 +
         16 * uint64_t{count_};
}

uint32_t RedisCuckooFilter::DumpChunkCount() const {
  if (size() == 0) return 0;
  uint64_t lengths[format::kMaxSubFilters];
  for (uint32_t j = 0; j < count_; ++j) lengths[j] = subs_[j]->table().byte_length();
  return static_cast<uint32_t>(1 + RedisChunkPlan::Count(lengths, count_));
}

RedisChunk RedisCuckooFilter::DumpChunk(uint32_t j, uint8_t* header_out) const {
  RedisChunk chunk;
  if (j == 0) {
    const RedisCuckooFilter& from = *this;
    format::RedisCuckooDumpHeader header;
    CUCKOO_REDIS_CUCKOO_DUMP_FIELDS(CUCKOO_FIELD_FROM)
    format::WriteFields(format::kRedisCuckooDumpLayout, &header, header_out);
    chunk.iterator = 1;
    chunk.data = header_out;
    chunk.len = format::kRedisCuckooHeaderBytes;
    return chunk;
  }
  uint64_t lengths[format::kMaxSubFilters];
  for (uint32_t t = 0; t < count_; ++t) lengths[t] = subs_[t]->table().byte_length();
  uint32_t table = 0;
  uint64_t offset = 0;
  if (RedisChunkPlan::At(lengths, count_, j - 1, &table, &offset, &chunk.len, &chunk.iterator)) {
    chunk.data = subs_[table]->table().data() + offset;
  }
  return chunk;
}

Status RedisCuckooFilter::LoadDumpHeader(uint64_t iterator, const uint8_t* data, size_t len,
                                         std::unique_ptr<RedisCuckooFilter>* out) {
  if (iterator != 1) return Status::kFormatBadChunk;
  if (len < format::kRedisCuckooHeaderBytes) return Status::kFormatTruncated;
  if (len > format::kRedisCuckooHeaderBytes) return Status::kFormatTrailingBytes;
  format::RedisCuckooDumpHeader h;
  format::ReadFields(format::kRedisCuckooDumpLayout, data, &h);
  if (!IsPowerOfTwo(h.num_buckets) || h.bucket_size == 0 ||
      h.bucket_size > format::kMaxRedisBucketSize || h.max_iterations == 0 ||
      h.expansion > format::kMaxRedisCuckooExpansion ||
      (h.expansion != 0 && !IsPowerOfTwo(h.expansion)) || h.num_filters == 0 ||
      h.num_filters > format::kMaxSubFilters || (h.expansion == 0 && h.num_filters > 1)) {
    return Status::kFormatBadParameter;
  }
  const uint32_t count = static_cast<uint32_t>(h.num_filters);
  const uint32_t shift = RedisCuckooFamily::GrowthShift(h.expansion);
  const uint64_t bytes = RedisCuckooFamily::TableBytes(h.num_buckets, h.bucket_size, shift, count);
  if (bytes == UINT64_MAX || h.num_items > bytes) return Status::kFormatBadParameter;
  // Valid: allocate the sub-filters, empty until their chunks arrive.
  std::unique_ptr<RedisCuckooSub> subs[format::kMaxSubFilters];
  for (uint32_t j = 0; j < count; ++j) {
    const Status s = RedisCuckooSub::Make(h.num_buckets << (shift * j), h.bucket_size,
                                          h.max_iterations, &subs[j]);
    if (s != Status::kOk) return s;
  }
  subs[0]->deletes_ = h.num_deletes;
  std::unique_ptr<RedisCuckooFilter> filter;
  const Status s = Wrap(std::move(subs[0]), h.expansion, &filter);
  if (s != Status::kOk) return s;
  for (uint32_t j = 1; j < count; ++j) filter->subs_[j] = std::move(subs[j]);
  filter->count_ = count;
  filter->expected_items_ = h.num_items;
  *out = std::move(filter);
  return Status::kOk;
}

Status RedisCuckooFilter::LoadDumpChunk(uint64_t iterator, const uint8_t* data, size_t len) {
  // len is at most the tables' bytes (<= 1 GiB) here, so the sum cannot wrap.
  if (len == 0 || len > kMaxFilterBytes || iterator != 1 + loaded_bytes_ + len) {
    return Status::kFormatBadChunk;
  }
  // The sub-filter where the chunk starts; the chunk must end within it.
  uint64_t start = 0;
  for (uint32_t j = 0; j < count_; ++j) {
    ByteTable& table = subs_[j]->table_;
    const uint64_t at = loaded_bytes_ - start;
    if (at < table.byte_length()) {
      if (len > table.byte_length() - at) return Status::kFormatBadChunk;
      std::memcpy(table.mutable_data() + at, data, len);
      loaded_bytes_ += len;
      return Status::kOk;
    }
    start += table.byte_length();
  }
  return Status::kFormatBadChunk;  // after the last table byte
}

Status RedisCuckooFilter::FinishDump() {
  uint64_t total = 0;
  for (uint32_t j = 0; j < count_; ++j) total += subs_[j]->table().byte_length();
  if (loaded_bytes_ != total) return Status::kFormatBadChunk;
  uint64_t items = 0;
  for (uint32_t j = 0; j < count_; ++j) {
    subs_[j]->size_ = subs_[j]->table().CountOccupied();
    items += subs_[j]->size_;
  }
  if (items != expected_items_) return Status::kFormatCountMismatch;
  return Status::kOk;
}
CUCKOO_SIZE_OPTIMIZED_END

}  // namespace cuckoo
