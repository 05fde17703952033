#include "scalable_filter.h"

#include <cmath>
#include <new>

#include "batch.h"
#include "hash.h"

namespace cuckoo {

namespace {

bool ValidExpansion(uint32_t e) { return e == 0 || (e >= 2 && e <= format::kMaxExpansion); }

}  // namespace

// ---------------------------------------------------------------------------
// ScalableCuckooFilter

Status ScalableCuckooFilter::Wrap(std::unique_ptr<CuckooFilter> first, uint32_t expansion,
                                  std::unique_ptr<ScalableCuckooFilter>* out) {
  void* block = internal::AllocateZeroed(sizeof(ScalableCuckooFilter));
  if (block == nullptr) return Status::kOutOfMemory;
  std::unique_ptr<ScalableCuckooFilter> f(::new (block) ScalableCuckooFilter());
  f->expansion_ = expansion;
  f->count_ = 1;
  f->subs_[0] = std::move(first);
  *out = std::move(f);
  return Status::kOk;
}

Status ScalableCuckooFilter::Create(const CuckooParams& params, uint32_t expansion,
                                    std::unique_ptr<ScalableCuckooFilter>* out) {
  if (!ValidExpansion(expansion)) return Status::kInvalidArgument;
  std::unique_ptr<CuckooFilter> first;
  const Status s = CuckooFilter::Create(params, &first);
  if (s != Status::kOk) return s;
  return Wrap(std::move(first), expansion, out);
}

uint64_t ScalableCuckooFilter::size() const {
  uint64_t n = 0;
  for (uint32_t j = 0; j < count_; ++j) n += subs_[j]->size();
  return n;
}

double ScalableCuckooFilter::load_factor() const {
  uint64_t stored = 0;
  uint64_t slots = 0;
  for (uint32_t j = 0; j < count_; ++j) {
    stored += subs_[j]->size() - (subs_[j]->victim_used() ? 1 : 0);
    slots += subs_[j]->slot_count();
  }
  return static_cast<double>(stored) / static_cast<double>(slots);
}

Status ScalableCuckooFilter::Grow() {
  if (expansion_ == 0) return Status::kNotEnoughSpace;
  if (count_ == format::kMaxSubFilters) return Status::kGrowthLimit;
  const CuckooFilter& first = *subs_[0];
  CuckooParams base;
  base.capacity = first.capacity();
  base.fingerprint_bits = first.fingerprint_bits();
  base.bucket_size = first.bucket_size();
  base.max_kicks = first.max_kicks();
  base.seed = first.seed();
  // Judge the new sub-filter's size before allocating it (m0 * e^j buckets of
  // b slots of f0 + j bits): a table over the limit may be gigabytes.
  uint64_t m = first.bucket_count();
  for (uint32_t l = 0; l < count_ && m <= kMaxBucketCount; ++l) m *= expansion_;
  const uint32_t bits = base.fingerprint_bits + count_;
  if (m > kMaxBucketCount || bits > kMaxFingerprintBits) return Status::kGrowthLimit;
  const uint64_t next_bytes =
      format::CuckooFileBytes(PackedTable::ByteLength(m * base.bucket_size, bits));
  if (SerializedSize() + next_bytes > kMaxFilterBytes) return Status::kGrowthLimit;
  std::unique_ptr<CuckooFilter> next;
  const Status s = CuckooFilter::CreateLevel(base, first.bucket_count(), expansion_, count_, &next);
  if (s == Status::kInvalidArgument) return Status::kGrowthLimit;  // f or m out of range
  if (s != Status::kOk) return s;
  subs_[count_++] = std::move(next);
  return Status::kOk;
}

Status ScalableCuckooFilter::AddHash(uint64_t hash) {
  CuckooFilter& newest = *subs_[count_ - 1];
  const CuckooFilter::Probe p = newest.ProbeOf(hash);
  Status s = newest.AddProbe(p);
  if (s != Status::kNotEnoughSpace || expansion_ == 0) return s;
  // When fingerprints matching the key fill every slot of its buckets (2b, or
  // b when i1 == i2; the key was added that many times, or shares its
  // fingerprint with keys that were), a new sub-filter would fill the same way
  // after as many more copies, each one e times larger than the last: refuse.
  const uint32_t slots = (p.i1 == p.i2 ? 1 : 2) * newest.bucket_size();
  if (newest.CountProbe(p) >= slots) return s;
  s = Grow();
  if (s != Status::kOk) return s;
  // An empty filter has a free slot in any bucket.
  CuckooFilter& grown = *subs_[count_ - 1];
  return grown.AddProbe(grown.ProbeOf(hash));
}

Status ScalableCuckooFilter::Add(const uint8_t* key, size_t len) {
  return AddHash(HashKey(key, len, seed()));
}

bool ScalableCuckooFilter::ContainHash(uint64_t hash) const {
  const CuckooFilter& first = *subs_[0];
  CuckooFilter::Probe p = first.BaseProbe(hash);
  if (first.ContainProbe(p)) return true;
  uint64_t salted = hash;
  for (uint32_t j = 1; j < count_; ++j) {
    salted += CuckooFilter::kLevelSalt;
    p = CuckooFilter::LevelStep(p, salted, expansion_);
    if (subs_[j]->ContainProbe(p)) return true;
  }
  return false;
}

bool ScalableCuckooFilter::Contain(const uint8_t* key, size_t len) const {
  return ContainHash(HashKey(key, len, seed()));
}

Status ScalableCuckooFilter::Delete(const uint8_t* key, size_t len) {
  const uint64_t hash = HashKey(key, len, seed());
  CuckooFilter::Probe probes[format::kMaxSubFilters];
  probes[0] = subs_[0]->ProbeOf(hash);
  for (uint32_t j = 1; j < count_; ++j) {
    probes[j] = CuckooFilter::NextLevel(probes[j - 1], hash, j, expansion_);
  }
  // Newest first: see the header for why this never loses another key.
  for (uint32_t j = count_; j-- > 0;) {
    if (subs_[j]->DeleteProbe(probes[j]) == Status::kOk) return Status::kOk;
  }
  return Status::kNotFound;
}

uint32_t ScalableCuckooFilter::Count(const uint8_t* key, size_t len) const {
  const uint64_t hash = HashKey(key, len, seed());
  CuckooFilter::Probe p = subs_[0]->ProbeOf(hash);
  uint32_t n = subs_[0]->CountProbe(p);
  for (uint32_t j = 1; j < count_; ++j) {
    p = CuckooFilter::NextLevel(p, hash, j, expansion_);
    n += subs_[j]->CountProbe(p);
  }
  return n;
}

size_t ScalableCuckooFilter::AddBatch(const uint8_t* keys, const uint32_t* offsets, size_t n,
                                      Status* status) {
  return AddEach(keys, offsets, n, status,
                 [this](const uint8_t* key, size_t len) { return Add(key, len); });
}

void ScalableCuckooFilter::ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n,
                                        uint8_t* results) const {
  if (count_ == 1) {
    subs_[0]->ContainBatch(keys, offsets, n, results);
    return;
  }
  const uint64_t seed = this->seed();
  ContainEach(keys, offsets, n, results, [this, seed](const uint8_t* key, size_t len) {
    return ContainHash(HashKey(key, len, seed));
  });
}

uint64_t ScalableCuckooFilter::SerializedSize() const {
  if (expansion_ == 0) return subs_[0]->SerializedSize();
  uint64_t n = format::kStackHeaderBytes + format::kChecksumBytes;
  for (uint32_t j = 0; j < count_; ++j) n += subs_[j]->SerializedSize();
  return n;
}

void ScalableCuckooFilter::Serialize(uint8_t* out) const {
  if (expansion_ == 0) {
    subs_[0]->Serialize(out);
    return;
  }
  format::StackHeader h;
  h.type = format::kTypeCuckoo;
  h.sub_filter_count = count_;
  h.expansion = expansion_;
  h.seed = seed();
  format::WriteStackHeader(h, out);
  uint64_t at = format::kStackHeaderBytes;
  for (uint32_t j = 0; j < count_; ++j) {
    subs_[j]->Serialize(out + at);
    at += subs_[j]->SerializedSize();
  }
  format::WriteChecksum(out, static_cast<size_t>(at));
}

Status ScalableCuckooFilter::Deserialize(const uint8_t* data, size_t len,
                                         std::unique_ptr<ScalableCuckooFilter>* out) {
  uint16_t version = 0;
  Status s = format::ReadPrefix(data, len, &version);
  if (s != Status::kOk) return s;
  if (version == format::kFormatVersion) {
    std::unique_ptr<CuckooFilter> only;
    s = CuckooFilter::Deserialize(data, len, &only);
    if (s != Status::kOk) return s;
    return Wrap(std::move(only), 0, out);
  }
  if (version != format::kFormatVersionStack && version != format::kFormatVersionBloom) {
    return Status::kFormatUnsupportedVersion;
  }
  if (format::FileType(data, len, version) == format::kTypeBloom) return Status::kFormatIsBloomFilter;
  format::StackHeader h;
  uint64_t offsets[format::kMaxSubFilters + 1];
  s = format::ReadStack(data, len, version, &h, offsets);
  if (s != Status::kOk) return s;
  if (h.type != format::kTypeCuckoo) return Status::kFormatIsBloomFilter;
  // A cuckoo filter that does not grow is written as version 1, never as
  // version 2 with expansion 0 (which would load, then save as other bytes).
  if (h.expansion == 0) return Status::kFormatBadParameter;

  std::unique_ptr<CuckooFilter> subs[format::kMaxSubFilters];
  for (uint32_t j = 0; j < h.sub_filter_count; ++j) {
    s = CuckooFilter::Deserialize(data + offsets[j], static_cast<size_t>(offsets[j + 1] - offsets[j]),
                                  &subs[j]);
    if (s != Status::kOk) return s;
    const CuckooFilter& f = *subs[j];
    if (f.seed() != h.seed) return Status::kFormatBadParameter;
    if (j == 0) continue;
    // Sub-filter j follows from sub-filter j - 1 (CuckooFilter::CreateLevel).
    const CuckooFilter& prev = *subs[j - 1];
    if (f.bucket_size() != prev.bucket_size() || f.max_kicks() != prev.max_kicks() ||
        f.fingerprint_bits() != prev.fingerprint_bits() + 1 ||
        f.bucket_count() != prev.bucket_count() * h.expansion ||
        prev.capacity() > UINT64_MAX / h.expansion ||
        f.capacity() != prev.capacity() * h.expansion) {
      return Status::kFormatBadParameter;
    }
  }
  const uint32_t base_buckets = static_cast<uint32_t>(subs[0]->bucket_count());
  for (uint32_t j = 1; j < h.sub_filter_count; ++j) subs[j]->SetLevel(j, h.expansion, base_buckets);
  std::unique_ptr<ScalableCuckooFilter> filter;
  s = Wrap(std::move(subs[0]), h.expansion, &filter);
  if (s != Status::kOk) return s;
  for (uint32_t j = 1; j < h.sub_filter_count; ++j) filter->subs_[j] = std::move(subs[j]);
  filter->count_ = h.sub_filter_count;
  *out = std::move(filter);
  return Status::kOk;
}

// ---------------------------------------------------------------------------
// ScalableBloomFilter

namespace {

// The format version that stores a Bloom filter of these positions, and back
// (FORMAT.md §11.6): version 2 for double hashing, version 3 otherwise.
uint16_t VersionFor(BloomPositions positions) {
  return positions == BloomPositions::kDoubleHashing ? format::kFormatVersionStack
                                                     : format::kFormatVersionBloom;
}
BloomPositions PositionsFor(uint16_t version) {
  return version == format::kFormatVersionStack ? BloomPositions::kDoubleHashing
                                                : BloomPositions::kIndependent;
}

}  // namespace

Status ScalableBloomFilter::Create(const ScalableBloomParams& params,
                                   std::unique_ptr<ScalableBloomFilter>* out) {
  if (!ValidExpansion(params.expansion)) return Status::kInvalidArgument;
  // ε is the whole filter's; sub-filter 0 gets ε / 2 when the filter grows,
  // which is in (0, 1) for some ε >= 1 too.
  if (!(params.false_positive_rate > 0 && params.false_positive_rate < 1)) {
    return Status::kInvalidArgument;
  }
  BloomParams first;
  first.capacity = params.capacity;
  first.false_positive_rate =
      params.expansion == 0 ? params.false_positive_rate : params.false_positive_rate / 2;
  first.seed = params.seed;
  first.positions = params.positions;
  std::unique_ptr<BloomFilter> sub;
  Status s = BloomFilter::Create(first, &sub);
  if (s != Status::kOk) return s;
  void* block = internal::AllocateZeroed(sizeof(ScalableBloomFilter));
  if (block == nullptr) return Status::kOutOfMemory;
  std::unique_ptr<ScalableBloomFilter> f(::new (block) ScalableBloomFilter());
  f->expansion_ = params.expansion;
  f->count_ = 1;
  f->subs_[0] = std::move(sub);
  *out = std::move(f);
  return Status::kOk;
}

Status ScalableBloomFilter::Grow() {
  if (count_ == format::kMaxSubFilters) return Status::kGrowthLimit;
  const BloomFilter& prev = *subs_[count_ - 1];
  BloomParams p;
  if (prev.capacity() > UINT64_MAX / expansion_) return Status::kGrowthLimit;
  p.capacity = prev.capacity() * expansion_;
  p.false_positive_rate = prev.false_positive_rate() / 2;
  p.seed = prev.seed();
  p.positions = prev.positions();
  const uint64_t bits = BloomFilter::BitCountFor(p);
  if (bits == 0 || BloomFilter::HashCountFor(p.capacity, bits) > kMaxBloomHashes ||
      SerializedSize() + format::BloomSectionBytes(BloomFilter::WordBytesFor(bits)) >
          kMaxFilterBytes) {
    return Status::kGrowthLimit;
  }
  std::unique_ptr<BloomFilter> next;
  const Status s = BloomFilter::Create(p, &next);
  if (s != Status::kOk) return s;
  subs_[count_++] = std::move(next);
  return Status::kOk;
}

Status ScalableBloomFilter::Add(const uint8_t* key, size_t len) {
  return AddHash(HashKey(key, len, seed()));
}

Status ScalableBloomFilter::AddHash(uint64_t hash) {
  if (expansion_ != 0 && subs_[count_ - 1]->size() >= subs_[count_ - 1]->capacity()) {
    const Status s = Grow();
    if (s != Status::kOk) return s;
  }
  subs_[count_ - 1]->AddHash(hash);
  return Status::kOk;
}

bool ScalableBloomFilter::Contain(const uint8_t* key, size_t len) const {
  return ContainHash(HashKey(key, len, seed()));
}

bool ScalableBloomFilter::ContainHash(uint64_t hash) const {
  // Newest first: it holds the most keys.
  for (uint32_t j = count_; j-- > 0;) {
    if (subs_[j]->ContainHash(hash)) return true;
  }
  return false;
}

size_t ScalableBloomFilter::AddBatch(const uint8_t* keys, const uint32_t* offsets, size_t n,
                                     Status* status) {
  return AddEach(keys, offsets, n, status,
                 [this](const uint8_t* key, size_t len) { return Add(key, len); });
}

void ScalableBloomFilter::ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n,
                                       uint8_t* results) const {
  ContainEach(keys, offsets, n, results,
              [this](const uint8_t* key, size_t len) { return Contain(key, len); });
}

bool ScalableBloomFilter::IsCompatible(const ScalableBloomFilter& other) const {
  if (expansion_ != other.expansion_ || count_ != other.count_) return false;
  for (uint32_t j = 0; j < count_; ++j) {
    if (!subs_[j]->IsCompatible(*other.subs_[j])) return false;
  }
  return true;
}

Status ScalableBloomFilter::Union(const ScalableBloomFilter& other) {
  if (!IsCompatible(other)) return Status::kInvalidArgument;
  for (uint32_t j = 0; j < count_; ++j) subs_[j]->Union(*other.subs_[j]);
  return Status::kOk;
}

uint64_t ScalableBloomFilter::SerializedSize() const {
  uint64_t n = format::kStackHeaderBytes + format::kChecksumBytes;
  for (uint32_t j = 0; j < count_; ++j) n += format::BloomSectionBytes(subs_[j]->word_bytes());
  return n;
}

void ScalableBloomFilter::Serialize(uint8_t* out) const {
  format::StackHeader h;
  h.version = VersionFor(positions());
  h.type = format::kTypeBloom;
  h.sub_filter_count = count_;
  h.expansion = expansion_;
  h.seed = seed();
  format::WriteStackHeader(h, out);
  uint64_t at = format::kStackHeaderBytes;
  for (uint32_t j = 0; j < count_; ++j) {
    const BloomFilter& f = *subs_[j];
    format::BloomSection b;
    b.hash_count = f.hash_count();
    b.bit_count = f.bit_count();
    b.capacity = f.capacity();
    b.item_count = f.size();
    b.false_positive_rate = f.false_positive_rate();
    b.word_bytes = f.word_bytes();
    format::WriteBloomSection(b, f.words(), out + at);
    at += format::BloomSectionBytes(b.word_bytes);
  }
  format::WriteChecksum(out, static_cast<size_t>(at));
}

Status ScalableBloomFilter::Deserialize(const uint8_t* data, size_t len,
                                        std::unique_ptr<ScalableBloomFilter>* out) {
  uint16_t version = 0;
  Status s = format::ReadPrefix(data, len, &version);
  if (s != Status::kOk) return s;
  if (version == format::kFormatVersion) return Status::kFormatIsCuckooFilter;
  if (version != format::kFormatVersionStack && version != format::kFormatVersionBloom) {
    return Status::kFormatUnsupportedVersion;
  }
  if (format::FileType(data, len, version) == format::kTypeCuckoo) {
    return Status::kFormatIsCuckooFilter;
  }
  format::StackHeader h;
  uint64_t offsets[format::kMaxSubFilters + 1];
  s = format::ReadStack(data, len, version, &h, offsets);
  if (s != Status::kOk) return s;
  if (h.type != format::kTypeBloom) return Status::kFormatIsCuckooFilter;

  format::BloomSection sections[format::kMaxSubFilters];
  for (uint32_t j = 0; j < h.sub_filter_count; ++j) {
    s = format::ReadBloomSection(data + offsets[j],
                                 static_cast<size_t>(offsets[j + 1] - offsets[j]), &sections[j]);
    if (s != Status::kOk) return s;
    if (j == 0) continue;
    // Sub-filter j follows from sub-filter j - 1 (Grow).
    const format::BloomSection& prev = sections[j - 1];
    if (prev.capacity > UINT64_MAX / h.expansion ||
        sections[j].capacity != prev.capacity * h.expansion ||
        sections[j].false_positive_rate != prev.false_positive_rate / 2) {
      return Status::kFormatBadParameter;
    }
  }
  void* block = internal::AllocateZeroed(sizeof(ScalableBloomFilter));
  if (block == nullptr) return Status::kOutOfMemory;
  std::unique_ptr<ScalableBloomFilter> f(::new (block) ScalableBloomFilter());
  f->expansion_ = h.expansion;
  for (uint32_t j = 0; j < h.sub_filter_count; ++j) {
    const format::BloomSection& b = sections[j];
    BloomParams p;
    p.capacity = b.capacity;
    p.false_positive_rate = b.false_positive_rate;
    p.seed = h.seed;
    p.positions = PositionsFor(version);
    s = BloomFilter::Load(p, b.bit_count, b.hash_count, b.item_count, b.words, &f->subs_[j]);
    if (s != Status::kOk) return s;
    f->count_ = j + 1;
  }
  *out = std::move(f);
  return Status::kOk;
}

double ScalableBloomFilter::false_positive_rate() const {
  const double first = subs_[0]->false_positive_rate();
  return expansion_ == 0 ? first : 2 * first;
}

double ScalableBloomFilter::ExpectedFalsePositiveRate() const {
  double none = 1;
  for (uint32_t j = 0; j < count_; ++j) none *= 1 - subs_[j]->ExpectedFalsePositiveRate();
  return 1 - none;
}

double ScalableBloomFilter::EstimatedCount() const {
  double n = 0;
  for (uint32_t j = 0; j < count_; ++j) n += subs_[j]->EstimatedCount();
  return n;
}

uint64_t ScalableBloomFilter::size() const {
  uint64_t n = 0;
  for (uint32_t j = 0; j < count_; ++j) n += subs_[j]->size();
  return n;
}

uint64_t ScalableBloomFilter::bit_count() const {
  uint64_t n = 0;
  for (uint32_t j = 0; j < count_; ++j) n += subs_[j]->bit_count();
  return n;
}

}  // namespace cuckoo
