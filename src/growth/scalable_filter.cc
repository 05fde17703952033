#include "growth/scalable_filter.h"

#include <cstdint>

#include "common/size_optimized.h"

namespace cuckoo {

// ---------------------------------------------------------------------------
// Cuckoo family

bool CuckooFamily::GrowthHelps(const CuckooFilter& newest, const Probe& p) {
  // When fingerprints matching the key fill every slot of its buckets (2b, or
  // b when i1 == i2; the key was added that many times, or shares its
  // fingerprint with keys that were), a new sub-filter would fill the same way
  // after as many more copies, each one e times larger than the last: refuse.
  const uint32_t slots = (p.i1 == p.i2 ? 1 : 2) * newest.bucket_size();
  return newest.CountProbe(p) < slots;
}

Status CuckooFamily::CreateLevel(const CuckooParams& base, uint64_t base_bucket_count,
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
  const Status s = CuckooFilter::Make(params, m, &filter);
  if (s != Status::kOk) return s;
  SetLevel(*filter, level, expansion, static_cast<uint32_t>(base_bucket_count));
  *out = std::move(filter);
  return Status::kOk;
}

Status CuckooFamily::MakeNext(const CuckooFilter& first, const CuckooFilter&, uint32_t level,
                              uint32_t expansion, uint64_t bytes_now,
                              std::unique_ptr<CuckooFilter>* next) {
  CuckooParams base = first.params_;
  // Judge the new sub-filter's size before allocating it (m0 * e^j buckets of
  // b slots of f0 + j bits): a table over the limit may be gigabytes.
  uint64_t m = first.bucket_count();
  for (uint32_t l = 0; l < level && m <= kMaxBucketCount; ++l) m *= expansion;
  const uint32_t bits = base.fingerprint_bits + level;
  if (m > kMaxBucketCount || bits > kMaxFingerprintBits) return Status::kGrowthLimit;
  const uint64_t next_bytes =
      format::CuckooFileBytes(TableByteLength(base.encoding, m, base.bucket_size, bits));
  if (bytes_now + next_bytes > kMaxFilterBytes) return Status::kGrowthLimit;
  const Status s = CreateLevel(base, first.bucket_count(), expansion, level, next);
  return s == Status::kInvalidArgument ? Status::kGrowthLimit : s;  // f or m out of range
}

CUCKOO_SIZE_OPTIMIZED_BEGIN
Status CuckooFamily::LoadSection(const uint8_t* data, size_t len, const format::StackHeader& h,
                                 uint32_t j, const CuckooFilter* prev, const CuckooFilter* first,
                                 std::unique_ptr<CuckooFilter>* out) {
  std::unique_ptr<CuckooFilter> f;
  const Status s = CuckooFilter::Deserialize(data, len, &f);
  if (s != Status::kOk) return s;
  if (f->seed() != h.seed) return Status::kFormatBadParameter;
  // Version 4's header names the encoding every section has.
  if (h.encoding != format::kEncodingFromSections &&
      static_cast<uint8_t>(f->encoding()) != h.encoding) {
    return Status::kFormatBadParameter;
  }
  if (j > 0) {
    // Sub-filter j follows from sub-filter j - 1 (CreateLevel).
    if (f->bucket_size() != prev->bucket_size() || f->max_kicks() != prev->max_kicks() ||
        f->encoding() != prev->encoding() ||
        f->fingerprint_bits() != prev->fingerprint_bits() + 1 ||
        f->bucket_count() != prev->bucket_count() * h.expansion ||
        prev->capacity() > UINT64_MAX / h.expansion ||
        f->capacity() != prev->capacity() * h.expansion) {
      return Status::kFormatBadParameter;
    }
    SetLevel(*f, j, h.expansion, static_cast<uint32_t>(first->bucket_count()));
  }
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
CUCKOO_SIZE_OPTIMIZED_END

double ScalableCuckooFilter::load_factor() const {
  const uint64_t stored =
      Sum([](const CuckooFilter& s) { return s.size() - (s.victim_used() ? 1 : 0); });
  const uint64_t slots = Sum([](const CuckooFilter& s) { return s.slot_count(); });
  return static_cast<double>(stored) / static_cast<double>(slots);
}

Status ScalableCuckooFilter::Delete(const uint8_t* key, size_t len) {
  // Newest first. Keys that match the same stored fingerprint at level j
  // match the same one at every level below (cuckoo_keys.h), so if the
  // fingerprint removed is another key's, the deleted key's own fingerprint
  // stays at an older level for the other key to match: no key added and not
  // deleted is ever reported absent.
  CuckooFamily::Walk walk(*subs_[0], HashKey(key, len, seed()), expansion_);
  Probe probes[format::kMaxSubFilters];
  for (uint32_t j = 0; j < count_; walk.Next()) probes[j++] = walk.key();
  for (uint32_t j = count_; j-- > 0;) {
    if (CuckooFamily::DeleteKey(*subs_[j], probes[j]) == Status::kOk) return Status::kOk;
  }
  return Status::kNotFound;
}

uint32_t ScalableCuckooFilter::Count(const uint8_t* key, size_t len) const {
  CuckooFamily::Walk walk(*subs_[0], HashKey(key, len, seed()), expansion_);
  uint32_t n = 0;
  for (uint32_t j = 0; j < count_; walk.Next()) n += CuckooFamily::CountKey(*subs_[j++], walk.key());
  return n;
}

// ---------------------------------------------------------------------------
// Bloom family

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace {

// The scheme byte of a Bloom filter of these positions, and back (FORMAT.md
// §11.6, §14).
uint8_t SchemeFor(BloomPositions positions) {
  return positions == BloomPositions::kDoubleHashing ? format::kSchemeBloomDoubleHashing
                                                     : format::kSchemeBloomIndependent;
}
BloomPositions PositionsFor(uint8_t scheme) {
  return scheme == format::kSchemeBloomDoubleHashing ? BloomPositions::kDoubleHashing
                                                     : BloomPositions::kIndependent;
}

}  // namespace

uint8_t BloomFamily::Scheme(const BloomFilter& first) { return SchemeFor(first.positions()); }

bool BloomFamily::Writable(uint16_t version, const BloomFilter& first, uint32_t) {
  return version == (first.positions() == BloomPositions::kDoubleHashing
                         ? format::kFormatVersionStack
                         : format::kFormatVersionBloom);
}
CUCKOO_SIZE_OPTIMIZED_END

Status BloomFamily::MakeNext(const BloomFilter&, const BloomFilter& newest, uint32_t,
                             uint32_t expansion, uint64_t bytes_now,
                             std::unique_ptr<BloomFilter>* next) {
  BloomParams p;
  if (newest.capacity() > UINT64_MAX / expansion) return Status::kGrowthLimit;
  p.capacity = newest.capacity() * expansion;
  p.false_positive_rate = newest.false_positive_rate() / 2;
  p.seed = newest.seed();
  p.positions = newest.positions();
  const uint64_t bits = BloomFilter::BitCountFor(p);
  if (bits == 0 || BloomFilter::HashCountFor(p.capacity, bits) > kMaxBloomHashes ||
      bytes_now + format::BloomSectionBytes(BloomFilter::WordBytesFor(bits)) > kMaxFilterBytes) {
    return Status::kGrowthLimit;
  }
  return BloomFilter::Create(p, next);
}

CUCKOO_SIZE_OPTIMIZED_BEGIN
void BloomFamily::WriteSection(const BloomFilter& from, uint8_t* out) {
  format::BloomSection header;
  CUCKOO_BLOOM_SECTION_FIELDS(CUCKOO_FIELD_FROM)
  format::WriteBloomSection(header, from.words(), out);
}

Status BloomFamily::LoadSection(const uint8_t* data, size_t len, const format::StackHeader& h,
                                uint32_t j, const BloomFilter* prev, const BloomFilter*,
                                std::unique_ptr<BloomFilter>* out) {
  format::BloomSection b;
  const Status s = format::ReadBloomSection(data, len, &b);
  if (s != Status::kOk) return s;
  // Sub-filter j follows from sub-filter j - 1 (MakeNext).
  if (j > 0 && (prev->capacity() > UINT64_MAX / h.expansion ||
                b.capacity != prev->capacity() * h.expansion ||
                b.false_positive_rate != prev->false_positive_rate() / 2)) {
    return Status::kFormatBadParameter;
  }
  BloomParams p;
  p.capacity = b.capacity;
  p.false_positive_rate = b.false_positive_rate;
  p.seed = h.seed;
  p.positions = PositionsFor(h.scheme);
  return BloomFilter::Load(p, b.bit_count, b.hash_count, b.item_count, b.words, out);
}

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
  const Status s = BloomFilter::Create(first, &sub);
  if (s != Status::kOk) return s;
  return Wrap(std::move(sub), params.expansion, out);
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

double ScalableBloomFilter::false_positive_rate() const {
  const double first = subs_[0]->false_positive_rate();
  return expansion_ == 0 ? first : 2 * first;
}

double ScalableBloomFilter::ExpectedFalsePositiveRate() const {
  double none = 1;
  for (uint32_t j = 0; j < count_; ++j) none *= 1 - subs_[j]->ExpectedFalsePositiveRate();
  return 1 - none;
}
CUCKOO_SIZE_OPTIMIZED_END

}  // namespace cuckoo
