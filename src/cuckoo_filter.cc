#include "cuckoo_filter.h"

#include <cmath>
#include <cstring>
#include <new>

#include "batch.h"
#include "format.h"
#include "hash.h"

namespace cuckoo {

static_assert(CuckooFilter::kLevelSalt == kGoldenGamma, "the level salt is the golden-ratio step");

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
  return format::CuckooFileBytes(PackedTable::ByteLength(m * p.bucket_size, p.fingerprint_bits));
}

Status CuckooFilter::Make(const CuckooParams& params, uint64_t bucket_count,
                          std::unique_ptr<CuckooFilter>* out) {
  void* block = internal::AllocateZeroed(sizeof(CuckooFilter));
  if (block == nullptr) return Status::kOutOfMemory;
  std::unique_ptr<CuckooFilter> filter(::new (block) CuckooFilter());
  filter->params_ = params;
  filter->bucket_count_ = static_cast<uint32_t>(bucket_count);
  filter->base_bucket_count_ = static_cast<uint32_t>(bucket_count);
  filter->fingerprint_range_ =
      static_cast<uint32_t>((uint64_t{1} << params.fingerprint_bits) - 1);
  filter->rng_state_ = params.seed;
  if (!filter->table_.Init(bucket_count, params.bucket_size, params.fingerprint_bits)) {
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

namespace {

// G(fp) of a level >= 1: the low base-e digit the alternate bucket is
// reflected about.
inline uint32_t LevelDigit(uint32_t fingerprint, uint32_t expansion) {
  return FastRange32(static_cast<uint32_t>(Mix64(fingerprint) >> 32), expansion);
}

// Level 0's alternate bucket in `m` buckets: (H(fp) - bucket) mod m.
inline uint32_t BaseAlt(uint32_t bucket, uint32_t fingerprint, uint32_t m) {
  const uint32_t h = FastRange32(static_cast<uint32_t>(Mix64(fingerprint)), m);
  return h >= bucket ? h - bucket : h + (m - bucket);
}

}  // namespace

Status CuckooFilter::CreateLevel(const CuckooParams& base, uint64_t base_bucket_count,
                                 uint32_t expansion, uint32_t level,
                                 std::unique_ptr<CuckooFilter>* out) {
  if (level == 0 || expansion < 2 || !ValidShape(base) || base_bucket_count == 0) {
    return Status::kInvalidArgument;
  }
  if (base.fingerprint_bits + level > kMaxFingerprintBits) return Status::kInvalidArgument;
  uint64_t m = base_bucket_count;
  uint64_t capacity = base.capacity;
  for (uint32_t l = 0; l < level; ++l) {
    m *= expansion;
    if (m > kMaxBucketCount) return Status::kInvalidArgument;
    capacity = capacity > UINT64_MAX / expansion ? UINT64_MAX : capacity * expansion;
  }
  CuckooParams params = base;
  params.capacity = capacity;
  params.fingerprint_bits = base.fingerprint_bits + level;
  std::unique_ptr<CuckooFilter> filter;
  const Status s = Make(params, m, &filter);
  if (s != Status::kOk) return s;
  filter->SetLevel(level, expansion, static_cast<uint32_t>(base_bucket_count));
  *out = std::move(filter);
  return Status::kOk;
}

void CuckooFilter::SetLevel(uint32_t level, uint32_t expansion, uint32_t base_bucket_count) {
  level_ = level;
  expansion_ = level == 0 ? 0 : expansion;
  base_bucket_count_ = base_bucket_count;
  fingerprint_range_ =
      static_cast<uint32_t>((uint64_t{1} << (params_.fingerprint_bits - level)) - 1);
}

CuckooFilter::Probe CuckooFilter::BaseProbe(uint64_t hash) const {
  Probe p;
  p.fingerprint = FastRange32(static_cast<uint32_t>(hash >> 32), fingerprint_range_) + 1;
  p.i1 = FastRange32(static_cast<uint32_t>(hash), base_bucket_count_);
  p.i2 = BaseAlt(p.i1, p.fingerprint, base_bucket_count_);
  return p;
}

CuckooFilter::Probe CuckooFilter::LevelStep(const Probe& p, uint64_t salted, uint32_t expansion) {
  const uint64_t x = Mix64(salted);
  const uint32_t d = FastRange32(static_cast<uint32_t>(x), expansion);
  Probe q;
  q.fingerprint = (p.fingerprint << 1) | static_cast<uint32_t>(x >> 63);
  const uint32_t g = LevelDigit(q.fingerprint, expansion);
  q.i1 = p.i1 * expansion + d;
  q.i2 = p.i2 * expansion + (g >= d ? g - d : g + expansion - d);
  return q;
}

void CuckooFilter::Derive(const uint8_t* key, size_t len, uint32_t* fingerprint,
                          uint32_t* bucket) const {
  const Probe p = ProbeOf(HashKey(key, len, params_.seed));
  *fingerprint = p.fingerprint;
  *bucket = p.i1;
}

uint32_t CuckooFilter::AltIndex(uint32_t bucket, uint32_t fingerprint) const {
  if (level_ == 0) return BaseAlt(bucket, fingerprint, bucket_count_);
  // bucket = e^level * q + sum of digits[l] * e^(level - l); reflect q at
  // level 0, then each digit about G of that level's fingerprint.
  uint32_t digits[kMaxFingerprintBits + 1];
  uint32_t q = bucket;
  for (uint32_t l = level_; l >= 1; --l) {
    digits[l] = q % expansion_;
    q /= expansion_;
  }
  uint32_t alt = BaseAlt(q, fingerprint >> level_, base_bucket_count_);
  for (uint32_t l = 1; l <= level_; ++l) {
    const uint32_t g = LevelDigit(fingerprint >> (level_ - l), expansion_);
    const uint32_t d = digits[l];
    alt = alt * expansion_ + (g >= d ? g - d : g + expansion_ - d);
  }
  return alt;
}

Status CuckooFilter::Place(uint32_t bucket, uint32_t fingerprint) {
  const uint32_t alt = AltIndex(bucket, fingerprint);
  if (table_.Insert(bucket, fingerprint) || table_.Insert(alt, fingerprint)) return Status::kOk;
  // A kick chain may end with a fingerprint parked in the victim slot, so it
  // can only start while that slot is free.
  if (victim_used()) return Status::kNotEnoughSpace;
  const uint64_t r = SplitMix64(&rng_state_);
  uint32_t i = (r & 1) ? alt : bucket;
  uint32_t current = fingerprint;
  for (uint32_t kick = 0; kick < params_.max_kicks; ++kick) {
    // One-step lookahead: if some fingerprint in bucket i can move to a free
    // slot of its own alternate bucket, move it and take its slot.
    for (uint32_t s = 0; s < params_.bucket_size; ++s) {
      const uint32_t resident = table_.Read(i, s);
      if (table_.Insert(AltIndex(i, resident), resident)) {
        table_.Write(i, s, current);
        return Status::kOk;
      }
    }
    // No resident can move: evict a random one and carry it to its alternate
    // bucket (full, as the lookahead just found), where the next kick starts.
    const uint32_t slot =
        FastRange32(static_cast<uint32_t>(SplitMix64(&rng_state_)), params_.bucket_size);
    current = table_.Swap(i, slot, current);
    i = AltIndex(i, current);
  }
  victim_.fingerprint = current;
  victim_.bucket = i;
  return Status::kOk;
}

Status CuckooFilter::AddProbe(const Probe& p) {
  const Status s = Place(p.i1, p.fingerprint);
  if (s == Status::kOk) ++size_;
  return s;
}

Status CuckooFilter::Add(const uint8_t* key, size_t len) {
  return AddProbe(ProbeOf(HashKey(key, len, params_.seed)));
}

bool CuckooFilter::Contain(const uint8_t* key, size_t len) const {
  return ContainProbe(ProbeOf(HashKey(key, len, params_.seed)));
}

uint32_t CuckooFilter::CountProbe(const Probe& p) const {
  uint32_t n = table_.Count(p.i1, p.fingerprint);
  if (p.i2 != p.i1) n += table_.Count(p.i2, p.fingerprint);
  return n + (VictimMatches(p) ? 1 : 0);
}

uint32_t CuckooFilter::Count(const uint8_t* key, size_t len) const {
  return CountProbe(ProbeOf(HashKey(key, len, params_.seed)));
}

Status CuckooFilter::DeleteProbe(const Probe& p) {
  if (table_.Remove(p.i1, p.fingerprint) || table_.Remove(p.i2, p.fingerprint)) {
    --size_;
    if (victim_used()) {
      // A slot is free again: move the victim back into the table (it may
      // come back to the victim slot if the new kick chain fails too).
      const Victim v = victim_;
      victim_ = Victim();
      Place(v.bucket, v.fingerprint);
    }
    return Status::kOk;
  }
  if (VictimMatches(p)) {
    victim_ = Victim();
    --size_;
    return Status::kOk;
  }
  return Status::kNotFound;
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
  ContainEach(keys, offsets, n, results,
              [this](const uint8_t* key, size_t len) { return Contain(key, len); });
}

uint64_t CuckooFilter::SerializedSize() const {
  return format::CuckooFileBytes(table_.byte_length());
}

format::CuckooHeader CuckooFilter::Header() const {
  format::CuckooHeader h;
  h.params = params_;
  h.bucket_count = bucket_count_;
  h.victim_fingerprint = victim_.fingerprint;
  h.victim_bucket = victim_.bucket;
  h.item_count = size_;
  h.rng_state = rng_state_;
  h.table_bytes = table_.byte_length();
  return h;
}

void CuckooFilter::Serialize(uint8_t* out) const {
  format::WriteCuckoo(Header(), table_.data(), out);
}

Status CuckooFilter::Deserialize(const uint8_t* data, size_t len,
                                 std::unique_ptr<CuckooFilter>* out) {
  format::CuckooHeader h;
  Status s = format::ReadCuckooHeader(data, len, &h);
  if (s != Status::kOk) return s;
  std::unique_ptr<CuckooFilter> filter;
  s = Make(h.params, h.bucket_count, &filter);
  if (s != Status::kOk) return s;
  filter->victim_.fingerprint = h.victim_fingerprint;
  filter->victim_.bucket = h.victim_bucket;
  filter->size_ = h.item_count;
  filter->rng_state_ = h.rng_state;
  std::memcpy(filter->table_.mutable_data(), format::CuckooTable(data), h.table_bytes);
  s = format::CheckCuckooTable(filter->table_, h);
  if (s != Status::kOk) return s;
  *out = std::move(filter);
  return Status::kOk;
}

}  // namespace cuckoo
