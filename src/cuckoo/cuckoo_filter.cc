#include "cuckoo/cuckoo_filter.h"

#include <cmath>
#include <cstring>
#include <new>

#include "common/batch.h"
#include "cuckoo/cuckoo_format.h"
#include "common/hash.h"
#include "common/size_optimized.h"

namespace cuckoo {

CUCKOO_SIZE_OPTIMIZED_BEGIN
double CuckooFilter::TargetLoadFactor(uint32_t bucket_size) {
  switch (bucket_size) {
    case 2: return 0.84;
    case 4: return 0.96;
    default: return 0.98;
  }
}

uint64_t CuckooFilter::BucketCountFor(uint64_t capacity, uint32_t bucket_size) {
  if (capacity == 0 || !ValidBucketSize(bucket_size)) return 0;
  // capacity / alpha slots, plus c * sqrt(capacity) for the spread of the
  // achievable load in small tables (c = 2; 4 for b = 2, whose spread is widest).
  // Measured with max_kicks = 500: every insert up to `capacity` succeeded in
  // 41,600 runs over capacities 1..3000 for b = 4 and 8 (3 failures in 104,000
  // for b = 2), and at 1M keys the table still had 1.4% (b = 4) of headroom.
  const double n = static_cast<double>(capacity);
  const double spread = bucket_size == 2 ? 4.0 : 2.0;
  const double slots = n / TargetLoadFactor(bucket_size) + spread * std::sqrt(n);
  const double buckets = std::ceil(slots / bucket_size);
  if (!(buckets <= static_cast<double>(kMaxBucketCount))) return 0;
  return static_cast<uint64_t>(buckets);
}

uint64_t CuckooFilter::SerializedSizeFor(const CuckooParams& p) {
  if (!ValidShape(p)) return 0;
  const uint64_t m = BucketCountFor(p.capacity, p.bucket_size);
  if (m == 0) return 0;
  return format::CuckooFileBytes(
      TableByteLength(p.encoding, m, p.bucket_size, p.fingerprint_bits));
}
CUCKOO_SIZE_OPTIMIZED_END

Status CuckooFilter::Make(const CuckooParams& params, uint64_t bucket_count,
                          std::unique_ptr<CuckooFilter>* out) {
  void* block = internal::AllocateZeroed(sizeof(CuckooFilter));
  if (block == nullptr) return Status::kOutOfMemory;
  std::unique_ptr<CuckooFilter> filter(::new (block) CuckooFilter());
  filter->params_ = params;
  filter->bucket_count_ = static_cast<uint32_t>(bucket_count);
  filter->keys_.InitBase(static_cast<uint32_t>(bucket_count), params.fingerprint_bits);
  filter->eviction_.Init(params.seed);
  if (!filter->table_.Init(params.encoding, bucket_count, params.bucket_size,
                           params.fingerprint_bits)) {
    return Status::kOutOfMemory;
  }
  *out = std::move(filter);
  return Status::kOk;
}

Status CuckooFilter::Create(const CuckooParams& params, std::unique_ptr<CuckooFilter>* out) {
  if (!ValidShape(params)) return Status::kInvalidArgument;
  const uint64_t m = BucketCountFor(params.capacity, params.bucket_size);
  if (m == 0) return Status::kInvalidArgument;
  return Make(params, m, out);
}

Status CuckooFilter::Add(const uint8_t* key, size_t len) {
  return AddProbe(ProbeOf(HashKey(key, len, params_.seed)));
}

bool CuckooFilter::Contain(const uint8_t* key, size_t len) const {
  return ContainProbe(ProbeOf(HashKey(key, len, params_.seed)));
}

uint32_t CuckooFilter::Count(const uint8_t* key, size_t len) const {
  return CountProbe(ProbeOf(HashKey(key, len, params_.seed)));
}

Status CuckooFilter::Delete(const uint8_t* key, size_t len) {
  return DeleteProbe(ProbeOf(HashKey(key, len, params_.seed)));
}

size_t CuckooFilter::AddBatch(const uint8_t* keys, const uint32_t* offsets, size_t n,
                              Status* status) {
  return AddEach(keys, offsets, n, status,
                 [this](const uint8_t* key, size_t len) { return Add(key, len); });
}

void CuckooFilter::ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n,
                                uint8_t* results) const {
  if (SerializedSize() >= kGroupFromBytes) {
    ContainInGroups(this, GroupLookupOf<CuckooFilter>(), keys, offsets, n, results);
    return;
  }
  // The table's type is chosen once for the whole batch.
  table_.Visit([&](const auto& t) {
    ContainEach(keys, offsets, n, results, [&](const uint8_t* key, size_t len) {
      return Algorithm<std::decay_t<decltype(t)>>::Contain(
          t, eviction_, ProbeOf(HashKey(key, len, params_.seed)));
    });
  });
}

void CuckooFilter::ContainHashes(const uint64_t* hashes, size_t m, uint8_t* out) const {
  Probe probes[kLookupGroup];
  for (size_t i = 0; i < m; ++i) probes[i] = ProbeOf(hashes[i]);
  table_.Visit([&](const auto& t) {
    if (t.byte_length() < kGroupFromBytes) return;
    TouchList<kLookupGroup * 4> touch;
    for (size_t i = 0; i < m; ++i) {
      touch.AddWord(t.WordAt(probes[i].i1));
      touch.AddWord(t.WordAt(probes[i].i2));
    }
    touch.Load();
  });
  for (size_t i = 0; i < m; ++i) out[i] = ContainProbe(probes[i]);
}

uint64_t CuckooFilter::SerializedSize() const {
  return format::CuckooFileBytes(table_.Visit([](const auto& t) { return t.byte_length(); }));
}

CUCKOO_SIZE_OPTIMIZED_BEGIN
format::CuckooHeader CuckooFilter::Header() const {
  format::CuckooHeader h;
  h.params = params_;
  h.bucket_count = bucket_count_;
  h.victim_fingerprint = eviction_.victim().fingerprint;
  h.victim_bucket = eviction_.victim().bucket;
  h.item_count = size_;
  h.rng_state = eviction_.rng_state();
  h.table_bytes = table_.Visit([](const auto& t) { return t.byte_length(); });
  return h;
}

void CuckooFilter::Serialize(uint8_t* out) const {
  table_.Visit([&](const auto& t) { format::WriteCuckoo(Header(), t.data(), out); });
}

Status CuckooFilter::Deserialize(const uint8_t* data, size_t len,
                                 std::unique_ptr<CuckooFilter>* out) {
  format::CuckooHeader h;
  Status s = format::ReadCuckooHeader(data, len, &h);
  if (s != Status::kOk) return s;
  std::unique_ptr<CuckooFilter> filter;
  s = Make(h.params, h.bucket_count, &filter);
  if (s != Status::kOk) return s;
  Eviction::Victim victim;
  victim.fingerprint = h.victim_fingerprint;
  victim.bucket = h.victim_bucket;
  filter->eviction_.Restore(h.rng_state, victim);
  filter->size_ = h.item_count;
  s = filter->table_.Visit([&](auto& t) {
    std::memcpy(t.mutable_data(), format::CuckooTable(data), h.table_bytes);
    // A table that fails PaddingIsZero (for a semi-sorted one: not in
    // canonical form) is not read any further.
    const bool padding_is_zero = t.PaddingIsZero();
    return format::CheckCuckooTable(padding_is_zero, padding_is_zero ? t.CountOccupied() : 0, h);
  });
  if (s != Status::kOk) return s;
  *out = std::move(filter);
  return Status::kOk;
}
CUCKOO_SIZE_OPTIMIZED_END

}  // namespace cuckoo
