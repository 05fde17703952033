#include "cuckoo_filter.h"

#include <cmath>
#include <cstring>
#include <new>

#include "hash.h"

namespace cuckoo {
namespace {

void Put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
void Put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void Put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint16_t Get16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t Get32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t Get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Header field offsets (docs/FORMAT.md).
constexpr size_t kOffMagic = 0;
constexpr size_t kOffVersion = 4;
constexpr size_t kOffHashId = 6;
constexpr size_t kOffEncoding = 7;
constexpr size_t kOffFingerprintBits = 8;
constexpr size_t kOffBucketSize = 9;
constexpr size_t kOffReserved16 = 10;
constexpr size_t kOffBucketCount = 12;
constexpr size_t kOffMaxKicks = 16;
constexpr size_t kOffVictimFingerprint = 20;
constexpr size_t kOffVictimBucket = 24;
constexpr size_t kOffReserved32 = 28;
constexpr size_t kOffSeed = 32;
constexpr size_t kOffCapacity = 40;
constexpr size_t kOffItemCount = 48;
constexpr size_t kOffRngState = 56;
constexpr size_t kOffTableBytes = 64;
static_assert(kOffTableBytes + 8 == kHeaderBytes, "header layout");
constexpr uint8_t kMagic[4] = {'C', 'K', 'O', 'O'};

bool ValidBucketSize(uint32_t b) { return b == 2 || b == 4 || b == 8; }
bool ValidFingerprintBits(uint32_t f) {
  return f >= kMinFingerprintBits && f <= kMaxFingerprintBits;
}

}  // namespace

const char* StatusMessage(Status status) {
  switch (status) {
    case Status::kOk: return "ok";
    case Status::kNotFound: return "no matching fingerprint is stored for this key";
    case Status::kNotEnoughSpace:
      return "the filter is full: no free slot was found after the maximum number of kicks; "
             "create a filter with a larger capacity";
    case Status::kInvalidArgument: return "a filter parameter is out of range";
    case Status::kOutOfMemory: return "not enough memory for the filter's table";
    case Status::kFormatTruncated:
      return "the bytes are truncated: fewer than the header and table length require";
    case Status::kFormatBadMagic: return "the bytes do not start with the cuckoo filter magic \"CKOO\"";
    case Status::kFormatUnsupportedVersion:
      return "unsupported format version: this build reads version 1 only";
    case Status::kFormatBadParameter:
      return "a header parameter (hash id, encoding, fingerprint bits, bucket size, bucket count, "
             "max kicks, capacity, table length or a reserved field) is out of range";
    case Status::kFormatTrailingBytes:
      return "there are bytes after the checksum: the input is longer than the filter it holds";
    case Status::kFormatChecksumMismatch:
      return "checksum mismatch: the bytes were changed or corrupted after they were written";
    case Status::kFormatCountMismatch:
      return "the header's item count disagrees with the occupied slots in the table";
    case Status::kFormatBadVictim: return "the victim fingerprint or its bucket index is out of range";
    case Status::kFormatBadPadding: return "non-zero padding bits after the last slot of the table";
  }
  return "unknown status";
}

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
  if (!ValidFingerprintBits(p.fingerprint_bits) || p.max_kicks > kMaxMaxKicks) return 0;
  const uint64_t m = BucketCountFor(p.capacity, p.bucket_size);
  if (m == 0) return 0;
  return kHeaderBytes + PackedTable::ByteLength(m * p.bucket_size, p.fingerprint_bits) +
         kChecksumBytes;
}

std::unique_ptr<CuckooFilter> CuckooFilter::NewEmpty() {
  void* block = internal::AllocateZeroed(sizeof(CuckooFilter));
  if (block == nullptr) return nullptr;
  return std::unique_ptr<CuckooFilter>(::new (block) CuckooFilter());
}

Status CuckooFilter::Create(const CuckooParams& params, std::unique_ptr<CuckooFilter>* out) {
  if (!ValidFingerprintBits(params.fingerprint_bits) || !ValidBucketSize(params.bucket_size) ||
      params.max_kicks > kMaxMaxKicks) {
    return Status::kInvalidArgument;
  }
  const uint64_t m = BucketCountFor(params.capacity, params.bucket_size);
  if (m == 0) return Status::kInvalidArgument;
  std::unique_ptr<CuckooFilter> filter = NewEmpty();
  if (!filter) return Status::kOutOfMemory;
  filter->params_ = params;
  filter->bucket_count_ = static_cast<uint32_t>(m);
  filter->fingerprint_range_ = static_cast<uint32_t>((uint64_t{1} << params.fingerprint_bits) - 1);
  filter->rng_state_ = params.seed;
  if (!filter->table_.Init(m, params.bucket_size, params.fingerprint_bits)) {
    return Status::kOutOfMemory;
  }
  *out = std::move(filter);
  return Status::kOk;
}

void CuckooFilter::Derive(const uint8_t* key, size_t len, uint32_t* fingerprint,
                          uint32_t* bucket) const {
  const uint64_t h = HashKey(key, len, params_.seed);
  *fingerprint = FastRange32(static_cast<uint32_t>(h >> 32), fingerprint_range_) + 1;
  *bucket = FastRange32(static_cast<uint32_t>(h), bucket_count_);
}

uint32_t CuckooFilter::AltIndex(uint32_t bucket, uint32_t fingerprint) const {
  const uint32_t h = FastRange32(static_cast<uint32_t>(Mix64(fingerprint)), bucket_count_);
  return h >= bucket ? h - bucket : h + (bucket_count_ - bucket);
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

Status CuckooFilter::Add(const uint8_t* key, size_t len) {
  uint32_t fp, i1;
  Derive(key, len, &fp, &i1);
  const Status s = Place(i1, fp);
  if (s == Status::kOk) ++size_;
  return s;
}

bool CuckooFilter::Contain(const uint8_t* key, size_t len) const {
  uint32_t fp, i1;
  Derive(key, len, &fp, &i1);
  const uint32_t i2 = AltIndex(i1, fp);
  return table_.ContainsEither(i1, i2, fp) || VictimMatches(fp, i1, i2);
}

uint32_t CuckooFilter::Count(const uint8_t* key, size_t len) const {
  uint32_t fp, i1;
  Derive(key, len, &fp, &i1);
  const uint32_t i2 = AltIndex(i1, fp);
  uint32_t n = table_.Count(i1, fp);
  if (i2 != i1) n += table_.Count(i2, fp);
  return n + (VictimMatches(fp, i1, i2) ? 1 : 0);
}

Status CuckooFilter::Delete(const uint8_t* key, size_t len) {
  uint32_t fp, i1;
  Derive(key, len, &fp, &i1);
  const uint32_t i2 = AltIndex(i1, fp);
  if (table_.Remove(i1, fp) || table_.Remove(i2, fp)) {
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
  if (VictimMatches(fp, i1, i2)) {
    victim_ = Victim();
    --size_;
    return Status::kOk;
  }
  return Status::kNotFound;
}

size_t CuckooFilter::AddBatch(const uint8_t* keys, const uint32_t* offsets, size_t n,
                              Status* status) {
  for (size_t k = 0; k < n; ++k) {
    const Status s = Add(keys + offsets[k], offsets[k + 1] - offsets[k]);
    if (s != Status::kOk) {
      *status = s;
      return k;
    }
  }
  *status = Status::kOk;
  return n;
}

void CuckooFilter::ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n,
                                uint8_t* results) const {
  for (size_t k = 0; k < n; ++k) {
    results[k] = Contain(keys + offsets[k], offsets[k + 1] - offsets[k]) ? 1 : 0;
  }
}

uint64_t CuckooFilter::SerializedSize() const {
  return kHeaderBytes + table_.byte_length() + kChecksumBytes;
}

void CuckooFilter::Serialize(uint8_t* out) const {
  std::memset(out, 0, kHeaderBytes);
  std::memcpy(out + kOffMagic, kMagic, sizeof kMagic);
  Put16(out + kOffVersion, kFormatVersion);
  out[kOffHashId] = kHashIdXxh3_64;
  out[kOffEncoding] = kEncodingPacked;
  out[kOffFingerprintBits] = static_cast<uint8_t>(params_.fingerprint_bits);
  out[kOffBucketSize] = static_cast<uint8_t>(params_.bucket_size);
  Put32(out + kOffBucketCount, bucket_count_);
  Put32(out + kOffMaxKicks, params_.max_kicks);
  Put32(out + kOffVictimFingerprint, victim_.fingerprint);
  Put32(out + kOffVictimBucket, victim_.bucket);
  Put64(out + kOffSeed, params_.seed);
  Put64(out + kOffCapacity, params_.capacity);
  Put64(out + kOffItemCount, size_);
  Put64(out + kOffRngState, rng_state_);
  Put64(out + kOffTableBytes, table_.byte_length());
  std::memcpy(out + kHeaderBytes, table_.data(), table_.byte_length());
  const size_t body = kHeaderBytes + table_.byte_length();
  Put64(out + body, Checksum(out, body));
}

Status CuckooFilter::Deserialize(const uint8_t* data, size_t len,
                                 std::unique_ptr<CuckooFilter>* out) {
  if (len < sizeof kMagic) return Status::kFormatTruncated;
  if (std::memcmp(data + kOffMagic, kMagic, sizeof kMagic) != 0) return Status::kFormatBadMagic;
  if (len < kOffVersion + 2) return Status::kFormatTruncated;
  if (Get16(data + kOffVersion) != kFormatVersion) return Status::kFormatUnsupportedVersion;
  if (len < kHeaderBytes + kChecksumBytes) return Status::kFormatTruncated;

  CuckooParams p;
  p.fingerprint_bits = data[kOffFingerprintBits];
  p.bucket_size = data[kOffBucketSize];
  p.max_kicks = Get32(data + kOffMaxKicks);
  p.seed = Get64(data + kOffSeed);
  p.capacity = Get64(data + kOffCapacity);
  const uint64_t m = Get32(data + kOffBucketCount);
  const uint64_t table_bytes = Get64(data + kOffTableBytes);
  if (data[kOffHashId] != kHashIdXxh3_64 || data[kOffEncoding] != kEncodingPacked ||
      Get16(data + kOffReserved16) != 0 || Get32(data + kOffReserved32) != 0 ||
      !ValidFingerprintBits(p.fingerprint_bits) || !ValidBucketSize(p.bucket_size) ||
      p.max_kicks > kMaxMaxKicks || m == 0 || p.capacity == 0 ||
      p.capacity > m * p.bucket_size ||
      table_bytes != PackedTable::ByteLength(m * p.bucket_size, p.fingerprint_bits)) {
    return Status::kFormatBadParameter;
  }
  // table_bytes <= 2^32 * 8 * 32 / 8, so this sum cannot overflow.
  const uint64_t total = kHeaderBytes + table_bytes + kChecksumBytes;
  if (len < total) return Status::kFormatTruncated;
  if (len > total) return Status::kFormatTrailingBytes;
  if (Get64(data + kHeaderBytes + table_bytes) != Checksum(data, kHeaderBytes + table_bytes)) {
    return Status::kFormatChecksumMismatch;
  }

  const uint32_t fingerprint_range =
      static_cast<uint32_t>((uint64_t{1} << p.fingerprint_bits) - 1);
  Victim v;
  v.fingerprint = Get32(data + kOffVictimFingerprint);
  v.bucket = Get32(data + kOffVictimBucket);
  if (v.fingerprint == 0 ? v.bucket != 0 : (v.fingerprint > fingerprint_range || v.bucket >= m)) {
    return Status::kFormatBadVictim;
  }

  std::unique_ptr<CuckooFilter> filter = NewEmpty();
  if (!filter) return Status::kOutOfMemory;
  filter->params_ = p;
  filter->bucket_count_ = static_cast<uint32_t>(m);
  filter->fingerprint_range_ = fingerprint_range;
  filter->victim_ = v;
  filter->size_ = Get64(data + kOffItemCount);
  filter->rng_state_ = Get64(data + kOffRngState);
  if (!filter->table_.Init(m, p.bucket_size, p.fingerprint_bits)) return Status::kOutOfMemory;
  std::memcpy(filter->table_.mutable_data(), data + kHeaderBytes, table_bytes);
  if (!filter->table_.PaddingIsZero()) return Status::kFormatBadPadding;
  if (filter->table_.CountOccupied() + filter->victim_used() != filter->size_) {
    return Status::kFormatCountMismatch;
  }
  *out = std::move(filter);
  return Status::kOk;
}

}  // namespace cuckoo
