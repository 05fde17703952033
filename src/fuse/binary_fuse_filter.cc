#include "fuse/binary_fuse_filter.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "common/batch.h"
#include "common/size_optimized.h"
#include "format/format.h"

namespace cuckoo {

namespace {

// Bytes after the table's last value, so that FuseGet / FuseSet may read 4
// bytes at the last value's first byte.
constexpr size_t kTablePadding = 8;
// XORed with a collecting filter's address into its check_.
constexpr uint64_t kCollectingCheck = 0x66757365636f6c6cULL;  // "fusecoll"

bool ValidParams(const BinaryFuseParams& p) {
  return p.fingerprint_bits >= kMinFuseFingerprintBits && p.fingerprint_bits <= kMaxFuseFingerprintBits &&
         p.arity >= kMinFuseArity && p.arity <= kMaxFuseArity;
}

// A block of n T's from internal::AllocateZeroed, freed at scope exit.
template <typename T>
struct Scratch {
  explicit Scratch(uint64_t n)
      : p(n <= SIZE_MAX / sizeof(T) ? static_cast<T*>(internal::AllocateZeroed(static_cast<size_t>(n) * sizeof(T)))
                                    : nullptr) {}
  ~Scratch() { internal::Deallocate(p); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  T* p;
};

// Before a loop: clang keeps it rolled, its body once in the module (g++,
// natively, decides for itself).
#if defined(__clang__)
#define CUCKOO_FUSE_ROLLED _Pragma("clang loop unroll(disable)")
#else
#define CUCKOO_FUSE_ROLLED
#endif

// Sorts hashes[0, n) ascending with scratch[0, n): a least-significant-digit
// radix sort, eight stable passes of one byte each (an even number, so the
// result ends in `hashes`). Its loops stay rolled: unrolled they are larger
// in the module and no faster.
void SortHashes(uint64_t* hashes, uint64_t* scratch, size_t n) {
  CUCKOO_FUSE_ROLLED
  for (uint32_t shift = 0; shift < 64; shift += 8) {
    size_t start[257] = {};  // start[b + 1]: the hashes whose byte is b; then where bucket b starts
    CUCKOO_FUSE_ROLLED
    for (size_t k = 0; k < n; ++k) ++start[((hashes[k] >> shift) & 0xff) + 1];
    CUCKOO_FUSE_ROLLED
    for (uint32_t b = 0; b < 256; ++b) start[b + 1] += start[b];
    CUCKOO_FUSE_ROLLED
    for (size_t k = 0; k < n; ++k) scratch[start[(hashes[k] >> shift) & 0xff]++] = hashes[k];
    std::swap(hashes, scratch);
  }
}

}  // namespace

BinaryFuseFilter::~BinaryFuseFilter() {
  check_ = 0;  // a stale handle names no collecting filter
  internal::Deallocate(table_);
  internal::Deallocate(pending_);
}

CUCKOO_SIZE_OPTIMIZED_BEGIN
Status BinaryFuseFilter::Make(const Params& params, const FuseLayout& layout,
                              std::unique_ptr<BinaryFuseFilter>* out) {
  void* block = internal::AllocateZeroed(sizeof(BinaryFuseFilter));
  if (block == nullptr) return Status::kOutOfMemory;
  std::unique_ptr<BinaryFuseFilter> f(::new (block) BinaryFuseFilter());
  f->seed_ = params.seed;
  f->shape_.arity = params.arity;
  f->shape_.fingerprint_bits = params.fingerprint_bits;
  f->shape_.fingerprint_mask = (uint32_t{1} << params.fingerprint_bits) - 1;
  f->shape_.segment_length = layout.segment_length;
  f->shape_.segment_mask = layout.segment_length - 1;
  f->shape_.segment_count_length = layout.segment_count * layout.segment_length;
  f->segment_count_ = layout.segment_count;
  f->array_length_ = layout.array_length;
  const uint64_t bytes = FuseFingerprintBytes(layout.array_length, params.fingerprint_bits);
  if (bytes > SIZE_MAX - kTablePadding) return Status::kOutOfMemory;
  f->table_ = static_cast<uint8_t*>(internal::AllocateZeroed(static_cast<size_t>(bytes) + kTablePadding));
  if (f->table_ == nullptr) return Status::kOutOfMemory;
  *out = std::move(f);
  return Status::kOk;
}

Status BinaryFuseFilter::Create(const Params& params, std::unique_ptr<BinaryFuseFilter>* out) {
  if (!ValidParams(params)) return Status::kInvalidArgument;
  if (params.from == 0) {
    std::unique_ptr<BinaryFuseFilter> f;
    const Status s = Make(params, FuseLayoutFor(0, params.arity), &f);
    if (s != Status::kOk) return s;
    // The construction seed Build gives the filter of no keys, so that a
    // collecting filter writes that filter's bytes.
    uint64_t state = params.seed;
    f->construction_seed_ = SplitMix64(&state);
    f->check_ = reinterpret_cast<uintptr_t>(f.get()) ^ kCollectingCheck;
    *out = std::move(f);
    return Status::kOk;
  }
  if (params.from > UINTPTR_MAX) return Status::kInvalidArgument;
  auto* from = reinterpret_cast<BinaryFuseFilter*>(static_cast<uintptr_t>(params.from));
  // Its hashes are of its seed: a filter of another seed would find none of its keys.
  if (from->check_ != (params.from ^ kCollectingCheck) || from->seed_ != params.seed) {
    return Status::kInvalidArgument;
  }
  // Made unique here, so that on an error the collecting filter keeps the
  // same set of keys.
  size_t unique = 0;
  Status s = SortUnique(from->pending_, static_cast<size_t>(from->pending_count_), &unique);
  if (s != Status::kOk) return s;
  from->pending_count_ = unique;
  std::unique_ptr<BinaryFuseFilter> built;
  s = BuildUnique(params, from->pending_, static_cast<size_t>(from->pending_count_), &built);
  if (s != Status::kOk) return s;
  internal::Deallocate(from->pending_);
  from->pending_ = nullptr;
  from->pending_count_ = 0;
  from->pending_capacity_ = 0;
  // Last: `from` may be the filter *out holds.
  *out = std::move(built);
  return Status::kOk;
}

Status BinaryFuseFilter::GrowPending() {
  if (!collecting()) return Status::kInvalidArgument;
  if (pending_count_ >= kMaxFuseKeys) return Status::kGrowthLimit;
  uint64_t grown = pending_capacity_ < 1024 ? 1024 : pending_capacity_ * 2;
  if (grown > kMaxFuseKeys) grown = kMaxFuseKeys;
  if (grown > SIZE_MAX / sizeof(uint64_t)) return Status::kOutOfMemory;
  auto* block = static_cast<uint64_t*>(internal::AllocateForCaller(static_cast<size_t>(grown) * sizeof(uint64_t)));
  if (block == nullptr) return Status::kOutOfMemory;
  // AllocateForCaller's block is the caller's to count: counted as a live
  // allocation here, as Deallocate uncounts it.
  internal::g_live_allocations.fetch_add(1, std::memory_order_relaxed);
  if (pending_count_ != 0) std::memcpy(block, pending_, static_cast<size_t>(pending_count_) * sizeof(uint64_t));
  internal::Deallocate(pending_);
  pending_ = block;
  pending_capacity_ = grown;
  return Status::kOk;
}

uint64_t BinaryFuseFilter::SerializedSize() const {
  return format::kHeaderV4Bytes + format::FuseSectionBytes(fingerprint_bytes()) + format::kChecksumBytes;
}

void BinaryFuseFilter::Serialize(uint8_t* out) const {
  format::StackHeader h;
  h.version = format::kFormatVersionExplicit;
  h.type = format::kTypeBinaryFuse;
  h.encoding = 0;
  h.scheme = static_cast<uint8_t>(shape_.arity);
  h.growth = format::kGrowthNone;
  h.sub_filter_count = 1;
  h.expansion = 0;
  h.seed = seed_;
  format::WriteStackHeader(h, out);
  format::FuseSection header;
  const BinaryFuseFilter& from = *this;
  CUCKOO_FUSE_SECTION_FIELDS(CUCKOO_FIELD_FROM)
  header.fingerprints = table_;
  format::WriteFuseSection(header, out + format::kHeaderV4Bytes);
  format::WriteChecksum(out, static_cast<size_t>(SerializedSize() - format::kChecksumBytes));
}

Status BinaryFuseFilter::Deserialize(const uint8_t* data, size_t len, std::unique_ptr<BinaryFuseFilter>* out) {
  uint16_t version = 0;
  Status s = format::ReadPrefix(data, len, &version);
  if (s != Status::kOk) return s;
  if (!format::KnownVersion(version)) return Status::kFormatUnsupportedVersion;
  const uint8_t type = format::FileType(data, len, version);
  if (KnownFamily(type) && type != format::kTypeBinaryFuse) return Status::kFormatWrongFamily;
  if (version != format::kFormatVersionExplicit) return Status::kFormatBadParameter;
  format::StackHeader h;
  uint64_t offsets[format::kMaxSubFilters + 1];
  s = format::ReadStack(data, len, version, &h, offsets);
  if (s != Status::kOk) return s;
  if (h.type != format::kTypeBinaryFuse) return Status::kFormatWrongFamily;
  format::FuseSection section;
  s = format::ReadFuseSection(data + offsets[0], static_cast<size_t>(offsets[1] - offsets[0]), &section);
  if (s != Status::kOk) return s;
  if (section.arity != h.scheme) return Status::kFormatBadParameter;
  Params params;
  params.fingerprint_bits = section.fingerprint_bits;
  params.arity = section.arity;
  params.seed = h.seed;
  FuseLayout layout;
  layout.segment_length = section.segment_length;
  layout.segment_count = section.segment_count;
  layout.array_length = section.array_length;
  std::unique_ptr<BinaryFuseFilter> f;
  s = Make(params, layout, &f);
  if (s != Status::kOk) return s;
  std::memcpy(f->table_, section.fingerprints, static_cast<size_t>(section.fingerprint_bytes));
  f->construction_seed_ = section.construction_seed;
  f->key_count_ = section.key_count;
  *out = std::move(f);
  return Status::kOk;
}
CUCKOO_SIZE_OPTIMIZED_END

// A built or loaded filter holds no block of pending hashes (its count and
// capacity are 0), so GrowPending refuses its keys.
Status BinaryFuseFilter::Add(const uint8_t* key, size_t len) {
  if (pending_count_ == pending_capacity_) {
    const Status s = GrowPending();
    if (s != Status::kOk) return s;
  }
  pending_[pending_count_++] = HashKey(key, len, seed_);
  return Status::kOk;
}

size_t BinaryFuseFilter::AddBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, Status* status,
                                  bool) {
  return AddEach(keys, offsets, n, status, [this](const uint8_t* key, size_t len) { return Add(key, len); });
}

Status BinaryFuseFilter::Build(const Params& params, uint64_t* hashes, size_t n,
                               std::unique_ptr<BinaryFuseFilter>* out) {
  if (!ValidParams(params)) return Status::kInvalidArgument;
  size_t unique = 0;
  const Status s = SortUnique(hashes, n, &unique);
  return s != Status::kOk ? s : BuildUnique(params, hashes, unique, out);
}

Status BinaryFuseFilter::SortUnique(uint64_t* hashes, size_t n, size_t* unique) {
  Scratch<uint64_t> scratch(n);
  if (scratch.p == nullptr) return Status::kOutOfMemory;
  SortHashes(hashes, scratch.p, n);
  *unique = static_cast<size_t>(std::unique(hashes, hashes + n) - hashes);
  return Status::kOk;
}

Status BinaryFuseFilter::BuildUnique(const Params& params, const uint64_t* hashes, size_t n,
                                     std::unique_ptr<BinaryFuseFilter>* out) {
  if (n > kMaxFuseKeys) return Status::kGrowthLimit;
  const FuseLayout layout = FuseLayoutFor(n, params.arity);
  std::unique_ptr<BinaryFuseFilter> f;
  Status s = Make(params, layout, &f);
  if (s != Status::kOk) return s;
  f->key_count_ = n;
  const uint64_t slots = layout.array_length;
  Scratch<uint32_t> counts(slots);
  Scratch<uint64_t> xors(slots);
  Scratch<uint32_t> alone(slots);
  Scratch<uint64_t> order(n);
  Scratch<uint8_t> order_slot(n);
  if (counts.p == nullptr || xors.p == nullptr || alone.p == nullptr || order.p == nullptr ||
      order_slot.p == nullptr) {
    return Status::kOutOfMemory;
  }
  uint64_t state = params.seed;
  for (uint32_t attempt = 0; attempt < kMaxFuseAttempts; ++attempt) {
    f->construction_seed_ = SplitMix64(&state);
    if (attempt != 0) {
      std::memset(counts.p, 0, static_cast<size_t>(slots) * sizeof(uint32_t));
      std::memset(xors.p, 0, static_cast<size_t>(slots) * sizeof(uint64_t));
    }
    if (f->Peel(hashes, n, counts.p, xors.p, alone.p, order.p, order_slot.p)) {
      *out = std::move(f);
      return Status::kOk;
    }
  }
  return Status::kNotEnoughSpace;
}

bool BinaryFuseFilter::Peel(const uint64_t* hashes, size_t n, uint32_t* counts, uint64_t* xors,
                            uint32_t* alone, uint64_t* order, uint8_t* order_slot) {
  const FuseShape& shape = shape_;
  const uint32_t arity = shape.arity;
  uint32_t slot[4];
  // counts[p]: 4 x the keys with a slot at p, XOR the index (0 .. arity - 1)
  // of that slot among each key's; xors[p]: the XOR of their x. A slot used
  // by one key names that key (xors) and which of its slots it is (counts & 3).
  for (size_t k = 0; k < n; ++k) {
    const uint64_t x = FuseMix(hashes[k], construction_seed_);
    FuseSlots(shape, x, slot);
    for (uint32_t i = 0; i < arity; ++i) {
      counts[slot[i]] += 4;
      counts[slot[i]] ^= i;
      xors[slot[i]] ^= x;
    }
  }
  uint64_t queued = 0;
  for (uint64_t p = 0; p < array_length_; ++p) {
    if ((counts[p] >> 2) == 1) alone[queued++] = static_cast<uint32_t>(p);
  }
  size_t peeled = 0;
  while (queued != 0) {
    const uint32_t p = alone[--queued];
    if ((counts[p] >> 2) != 1) continue;  // its key peeled off another slot since
    const uint64_t x = xors[p];
    const uint32_t found = counts[p] & 3;
    order[peeled] = x;
    order_slot[peeled] = static_cast<uint8_t>(found);
    ++peeled;
    FuseSlots(shape, x, slot);
    for (uint32_t i = 0; i < arity; ++i) {
      const uint32_t q = slot[i];
      counts[q] -= 4;
      counts[q] ^= i;
      xors[q] ^= x;
      if (i != found && (counts[q] >> 2) == 1) alone[queued++] = q;
    }
  }
  if (peeled != n) return false;
  // Each key, in the reverse of the order it peeled, sets its free slot so
  // that the XOR of its slots is its fingerprint.
  for (size_t k = n; k-- > 0;) {
    const uint64_t x = order[k];
    FuseSlots(shape, x, slot);
    const uint32_t found = order_slot[k];
    uint32_t value = FuseFingerprint(shape, x);
    for (uint32_t i = 0; i < arity; ++i) {
      if (i != found) value ^= FuseGet(table_, shape.fingerprint_bits, shape.fingerprint_mask, slot[i]);
    }
    FuseSet(table_, shape.fingerprint_bits, shape.fingerprint_mask, slot[found], value);
  }
  return true;
}

bool BinaryFuseFilter::ContainHash(uint64_t hash) const {
  if (key_count_ == 0) return false;
  const uint64_t x = FuseMix(hash, construction_seed_);
  const uint32_t bits = shape_.fingerprint_bits;
  const uint32_t mask = shape_.fingerprint_mask;
  // Each slot computed where it is read: an array of them (FuseSlots) would
  // live in the WebAssembly stack's memory.
  const uint32_t h0 = FuseFirstSlot(shape_, x);
  uint32_t v = FuseFingerprint(shape_, x) ^ FuseGet(table_, bits, mask, h0) ^
               FuseGet(table_, bits, mask, FuseSlot(shape_, x, h0, 1)) ^
               FuseGet(table_, bits, mask, FuseSlot(shape_, x, h0, 2));
  if (shape_.arity == 4) v ^= FuseGet(table_, bits, mask, FuseSlot(shape_, x, h0, 3));
  return v == 0;
}

void BinaryFuseFilter::ContainHashes(const uint64_t* hashes, size_t m, uint8_t* out) const {
  if (key_count_ == 0 || SerializedSize() < kGroupFromBytes) {
    for (size_t i = 0; i < m; ++i) out[i] = ContainHash(hashes[i]);
    return;
  }
  // Every key's slots and fingerprint first, with a byte of each slot listed,
  // then those bytes loaded (TouchList: as many in flight as the CPU allows),
  // then the values read from the cache.
  uint32_t slots[kLookupGroup][4];
  uint32_t value[kLookupGroup];
  TouchList<kLookupGroup * 4> touch;
  const uint32_t bits = shape_.fingerprint_bits;
  const uint32_t mask = shape_.fingerprint_mask;
  const uint32_t arity = shape_.arity;
  CUCKOO_NO_UNROLL
  for (size_t i = 0; i < m; ++i) {
    const uint64_t x = FuseMix(hashes[i], construction_seed_);
    FuseSlots(shape_, x, slots[i]);
    if (arity == 3) slots[i][3] = slots[i][2];
    value[i] = FuseFingerprint(shape_, x);
    for (uint32_t j = 0; j < 4; ++j) touch.Add(&table_[(uint64_t{slots[i][j]} * bits) >> 3]);
  }
  touch.Load();
  CUCKOO_NO_UNROLL
  for (size_t i = 0; i < m; ++i) {
    uint32_t v = value[i];
    for (uint32_t j = 0; j < arity; ++j) v ^= FuseGet(table_, bits, mask, slots[i][j]);
    out[i] = v == 0;
  }
}

void BinaryFuseFilter::ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n,
                                    uint8_t* results) const {
  if (SerializedSize() >= kGroupFromBytes) {
    ContainInGroups(this, GroupLookupOf<BinaryFuseFilter>(), keys, offsets, n, results);
    return;
  }
  ContainEach(keys, offsets, n, results,
              [this](const uint8_t* key, size_t len) { return ContainHash(HashOf(key, len)); });
}

}  // namespace cuckoo
