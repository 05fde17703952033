// The growth layer, written once for any filter family (Almeida, Baquero,
// Preguiça, Hutchison, "Scalable Bloom Filters", IPL 2007): a chain of
// sub-filters, each `expansion` times larger than the one before; inserts go
// to the newest, a new one is added when it is full, lookups check them all.
// A key is hashed once (the family's Hash, with the seed every sub-filter
// shares) for all sub-filters. At most Family::kMaxSubFilters sub-filters and
// kMaxFilterBytes serialized bytes: an Add that would need more returns
// kGrowthLimit and adds nothing. Internal to the core: scalable_filter.h names
// the filters.
//
// GrowingFilter<Self, Family> is the base of the public class Self; Family
// describes the sub-filters:
//   using Sub;                 the sub-filter class (delete-able, Deserialize-able)
//   using Hashed;              a key's hash, computed once for every sub-filter:
//                              static Hashed Hash(const uint8_t* key, size_t len, uint64_t seed)
//   using Walk;                a key's per-sub-filter form at sub-filters 0, 1, ...:
//                              Walk(const Sub& first, const Hashed& hash, uint32_t expansion),
//                              .key() for the current one, .Next() to the next sub-filter
//   static Status AddKey(Sub&, key), static bool ContainKey(const Sub&, key)
//   static void ContainGroup(const Sub&, const Hashed* hashes, size_t m, uint8_t* out)
//                              out[i] = 1 if the sub-filter holds the key of hashes[i]
//                              (ContainKey of its form there), for m <= kLookupGroup
//                              keys (batch.h), their loads issued together
//   Sub::ContainBatch(keys, offsets, n, results) const   (batch.h's layout), key by key
//   static bool FullBeforeAdd(const Sub& newest)   grow before this add
//   static bool GrowthHelps(const Sub& newest, key) after kNotEnoughSpace
//   static constexpr bool kFreeSlotInAnySubFilterFirst and
//             static bool AddIfFree(Sub&, key): true if an add first stores
//             the key in a free slot of any sub-filter, newest first, and only
//             then adds it to the newest (RedisBloom's cuckoo filter); a family
//             derives GrowthPolicy's "no" unless it says so
//   static constexpr uint32_t kMaxSubFilters;    most sub-filters, <= format::kMaxSubFilters
//   static Status MakeNext(const Sub& first, const Sub& newest, uint32_t level,
//                          uint32_t expansion, uint64_t bytes_now, std::unique_ptr<Sub>*)
//   static constexpr uint8_t kType;                the stack header's family byte
//   static uint8_t Encoding(const Sub& first), static uint8_t Scheme(const Sub& first)
//                              the version-4 header's encoding and scheme bytes
//   static bool Writable(uint16_t version, const Sub& first, uint32_t expansion)
//                              whether version 1, 2 or 3 can hold this filter
//   static constexpr bool kPlainWhenFixed;         version 1 exists: the sub-filter's own bytes
//   static uint64_t SectionBytes(const Sub&); static void WriteSection(const Sub&, uint8_t*)
//   static Status LoadSection(data, len, const format::StackHeader&, uint32_t j,
//                             const Sub* prev, const Sub* first, std::unique_ptr<Sub>*)
//   static Status LoadPlain(data, len, std::unique_ptr<Sub>*)   version 1
//
// A new filter is written as format version 4; a loaded one as the version it
// was read from (so legacy files re-serialize byte for byte).
#ifndef CUCKOO_WASM_SRC_GROWTH_GROWING_FILTER_H_
#define CUCKOO_WASM_SRC_GROWTH_GROWING_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>

#include "common/allocation.h"
#include "common/batch.h"
#include "format/format.h"
#include "common/size_optimized.h"
#include "status.h"

namespace cuckoo {

// Most serialized bytes a filter may grow to, all sub-filters included.
constexpr uint64_t kMaxFilterBytes = uint64_t{1} << 30;

inline bool ValidExpansion(uint32_t e) {
  return e == 0 || (e >= 2 && e <= format::kMaxExpansion);
}

// What a family of GrowingFilter does unless it says otherwise: every family
// derives from it.
struct GrowthPolicy {
  // An add does not look for a free slot in the older sub-filters first.
  static constexpr bool kFreeSlotInAnySubFilterFirst = false;
  template <class Sub, class Key>
  static bool AddIfFree(Sub&, const Key&) {
    return false;
  }
};

template <class Self, class Family>
class GrowingFilter {
 public:
  using Sub = typename Family::Sub;

  GrowingFilter(const GrowingFilter&) = delete;
  GrowingFilter& operator=(const GrowingFilter&) = delete;
  static void* operator new(size_t) = delete;
  static void* operator new[](size_t) = delete;
  static void operator delete(void* p) { internal::Deallocate(p); }

  // Loads the bytes Serialize writes: every check of FORMAT.md §7 / §12.
  // kFormatWrongFamily for the bytes of another family.
  static Status Deserialize(const uint8_t* data, size_t len, std::unique_ptr<Self>* out);

  // Inserts into the newest sub-filter, growing first or after as the family
  // says. kNotEnoughSpace (no growth, or growth would not help),
  // kGrowthLimit / kOutOfMemory (growth refused): the key is not added,
  // nothing is lost.
  Status Add(const uint8_t* key, size_t len) { return AddHash(Family::Hash(key, len, seed())); }
  // True if some sub-filter holds the key.
  bool Contain(const uint8_t* key, size_t len) const {
    return ContainHash(Family::Hash(key, len, seed()));
  }
  // Add and Contain over keys packed as batch.h describes; AddBatch stops at
  // the first key refused, returns how many went in, *status why it stopped.
  // `continues` (these keys go on an earlier batch's) matters only to a
  // family whose commands check a limit once (RedisCuckooFilter).
  size_t AddBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, Status* status,
                  bool /*continues*/ = false) {
    return AddEach(keys, offsets, n, status,
                   [this](const uint8_t* key, size_t len) { return Add(key, len); });
  }
  // Contain of each key: kLookupGroup keys at a time (ContainInGroups, then
  // ContainHashes) once the filter is too large for the caches (batch.h),
  // else key by key (by the sub-filter's own batch while there is one).
  void ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n,
                    uint8_t* results) const {
    if (SerializedSize() >= kGroupFromBytes) {
      ContainInGroups(this, GroupLookupOf<GrowingFilter>(), keys, offsets, n, results);
      return;
    }
    if (count_ == 1) {
      subs_[0]->ContainBatch(keys, offsets, n, results);
      return;
    }
    ContainEach(keys, offsets, n, results,
                [this](const uint8_t* key, size_t len) { return Contain(key, len); });
  }
  // Add and Contain of a key given by its hash (HashOf).
  using Hashed = typename Family::Hashed;
  Hashed HashOf(const uint8_t* key, size_t len) const { return Family::Hash(key, len, seed()); }
  // out[i] = ContainHash(hashes[i]) for m <= kLookupGroup keys: each
  // sub-filter, oldest first, answers the keys not found yet as one group.
  // One copy, called by the batches of keys and of URLs.
  __attribute__((noinline)) void ContainHashes(const Hashed* hashes, size_t m, uint8_t* out) const {
    static_assert(sizeof(Hashed) == 8 || sizeof(Hashed) == 16, "ContainInSubs's hash sizes");
    if (count_ == 1) {
      Family::ContainGroup(*subs_[0], hashes, m, out);
      return;
    }
    ContainInSubs(
        this, count_,
        [](const void* filter, uint32_t j, const void* group, size_t k, uint8_t* found) {
          Family::ContainGroup(*static_cast<const GrowingFilter*>(filter)->subs_[j],
                               static_cast<const Hashed*>(group), k, found);
        },
        hashes, sizeof(Hashed), m, out);
  }
  Status AddHash(const Hashed& hash);
  bool ContainHash(const Hashed& hash) const {
    typename Family::Walk walk(*subs_[0], hash, expansion_);
    for (uint32_t j = 0;; walk.Next()) {
      if (Family::ContainKey(*subs_[j], walk.key())) return true;
      if (++j == count_) return false;
    }
  }

  uint64_t SerializedSize() const;
  void Serialize(uint8_t* out) const;
  // The format version Serialize writes: kFormatVersionLatest for a new
  // filter, the version it was read from for a loaded one.
  uint16_t format_version() const { return version_; }
  // Makes Serialize write `version`: 4, or a legacy version that can hold
  // this filter as it is now (the family's Writable); kInvalidArgument
  // otherwise, and nothing changes. Growing writes on in the same version.
  Status SetFormatVersion(uint16_t version) {
    if (version != format::kFormatVersionLatest &&
        (!format::KnownVersion(version) || !Family::Writable(version, *subs_[0], expansion_))) {
      return Status::kInvalidArgument;
    }
    version_ = version;
    return Status::kOk;
  }

  uint32_t expansion() const { return expansion_; }
  uint32_t sub_filter_count() const { return count_; }
  const Sub& sub_filter(uint32_t j) const { return *subs_[j]; }
  uint64_t seed() const { return subs_[0]->seed(); }
  // Items in all sub-filters.
  uint64_t size() const {
    return Sum([](const Sub& s) { return s.size(); });
  }

 protected:
  GrowingFilter() = default;
  // A filter of one sub-filter, `first`.
  static Status Wrap(std::unique_ptr<Sub> first, uint32_t expansion, std::unique_ptr<Self>* out) {
    void* block = internal::AllocateZeroed(sizeof(Self));
    if (block == nullptr) return Status::kOutOfMemory;
    std::unique_ptr<Self> f(::new (block) Self());
    f->expansion_ = expansion;
    f->count_ = 1;
    f->version_ = format::kFormatVersionLatest;
    f->subs_[0] = std::move(first);
    *out = std::move(f);
    return Status::kOk;
  }
  // The sum of `value(sub)` over the sub-filters.
  template <class Value>
  auto Sum(Value value) const {
    decltype(value(*subs_[0])) total = 0;
    for (uint32_t j = 0; j < count_; ++j) total += value(*subs_[j]);
    return total;
  }
  Status Grow();
  // Frees the newest sub-filter: a family's compaction (RedisCuckooFilter's
  // CF.COMPACT) calls it once it has moved every item out of that sub-filter.
  // The caller keeps at least one sub-filter.
  void FreeNewest() { subs_[--count_].reset(); }

  uint32_t expansion_ = 0;
  uint32_t count_ = 0;
  uint16_t version_ = format::kFormatVersionLatest;
  std::unique_ptr<Sub> subs_[format::kMaxSubFilters];
};

template <class Self, class Family>
Status GrowingFilter<Self, Family>::Grow() {
  if (expansion_ == 0) return Status::kNotEnoughSpace;
  static_assert(Family::kMaxSubFilters <= format::kMaxSubFilters, "the file's count byte");
  if (count_ >= Family::kMaxSubFilters) return Status::kGrowthLimit;
  std::unique_ptr<Sub> next;
  const Status s = Family::MakeNext(*subs_[0], *subs_[count_ - 1], count_, expansion_,
                                    SerializedSize(), &next);
  if (s != Status::kOk) return s;
  subs_[count_++] = std::move(next);
  return Status::kOk;
}

template <class Self, class Family>
Status GrowingFilter<Self, Family>::AddHash(const Hashed& hash) {
  if (expansion_ != 0 && Family::FullBeforeAdd(*subs_[count_ - 1])) {
    const Status s = Grow();
    if (s != Status::kOk) return s;
  }
  typename Family::Walk walk(*subs_[0], hash, expansion_);
  if constexpr (Family::kFreeSlotInAnySubFilterFirst) {
    if (count_ > 1) {
      std::decay_t<decltype(walk.key())> keys[format::kMaxSubFilters];
      keys[0] = walk.key();
      for (uint32_t j = 1; j < count_; ++j) {
        walk.Next();
        keys[j] = walk.key();
      }
      for (uint32_t j = count_; j-- > 0;) {
        if (Family::AddIfFree(*subs_[j], keys[j])) return Status::kOk;
      }
    }
  } else {
    for (uint32_t j = 1; j < count_; ++j) walk.Next();
  }
  Sub& newest = *subs_[count_ - 1];
  Status s = Family::AddKey(newest, walk.key());
  if (s != Status::kNotEnoughSpace || expansion_ == 0) return s;
  if (!Family::GrowthHelps(newest, walk.key())) return s;
  s = Grow();
  if (s != Status::kOk) return s;
  walk.Next();
  return Family::AddKey(*subs_[count_ - 1], walk.key());
}

template <class Self, class Family>
uint64_t GrowingFilter<Self, Family>::SerializedSize() const {
  if (version_ == format::kFormatVersion) return Family::SectionBytes(*subs_[0]);
  return format::StackHeaderBytes(version_) + format::kChecksumBytes +
         Sum([](const Sub& s) { return Family::SectionBytes(s); });
}

CUCKOO_SIZE_OPTIMIZED_BEGIN
template <class Self, class Family>
void GrowingFilter<Self, Family>::Serialize(uint8_t* out) const {
  if (version_ == format::kFormatVersion) {
    Family::WriteSection(*subs_[0], out);
    return;
  }
  format::StackHeader h;
  h.version = version_;
  h.type = Family::kType;
  h.encoding = Family::Encoding(*subs_[0]);
  h.scheme = Family::Scheme(*subs_[0]);
  h.growth = expansion_ == 0 ? format::kGrowthNone : format::kGrowthGeometric;
  h.sub_filter_count = count_;
  h.expansion = expansion_;
  h.seed = seed();
  format::WriteStackHeader(h, out);
  uint64_t at = format::StackHeaderBytes(version_);
  for (uint32_t j = 0; j < count_; ++j) {
    Family::WriteSection(*subs_[j], out + at);
    at += Family::SectionBytes(*subs_[j]);
  }
  format::WriteChecksum(out, static_cast<size_t>(at));
}

template <class Self, class Family>
Status GrowingFilter<Self, Family>::Deserialize(const uint8_t* data, size_t len,
                                                std::unique_ptr<Self>* out) {
  uint16_t version = 0;
  Status s = format::ReadPrefix(data, len, &version);
  if (s != Status::kOk) return s;
  if (!format::KnownVersion(version)) return Status::kFormatUnsupportedVersion;
  // A known family other than this one (an unknown type byte is ReadStack's
  // kFormatBadParameter).
  const uint8_t type = format::FileType(data, len, version);
  if (KnownFamily(type) && type != Family::kType) {
    return Status::kFormatWrongFamily;
  }
  if (version == format::kFormatVersion) {
    std::unique_ptr<Sub> only;
    s = Family::LoadPlain(data, len, &only);
    if (s != Status::kOk) return s;
    s = Wrap(std::move(only), 0, out);
    if (s == Status::kOk) (*out)->version_ = version;
    return s;
  }
  format::StackHeader h;
  uint64_t offsets[format::kMaxSubFilters + 1];
  s = format::ReadStack(data, len, version, &h, offsets);
  if (s != Status::kOk) return s;
  if (h.type != Family::kType) return Status::kFormatWrongFamily;
  // In version 2, a filter that has version 1 for when it does not grow is
  // never a stack of expansion 0 (which would load, then save as other bytes).
  if (version == format::kFormatVersionStack && Family::kPlainWhenFixed && h.expansion == 0) {
    return Status::kFormatBadParameter;
  }

  std::unique_ptr<Sub> subs[format::kMaxSubFilters];
  for (uint32_t j = 0; j < h.sub_filter_count; ++j) {
    s = Family::LoadSection(data + offsets[j], static_cast<size_t>(offsets[j + 1] - offsets[j]),
                            h, j, j == 0 ? nullptr : subs[j - 1].get(), subs[0].get(), &subs[j]);
    if (s != Status::kOk) return s;
  }
  std::unique_ptr<Self> filter;
  s = Wrap(std::move(subs[0]), h.expansion, &filter);
  if (s != Status::kOk) return s;
  for (uint32_t j = 1; j < h.sub_filter_count; ++j) filter->subs_[j] = std::move(subs[j]);
  filter->count_ = h.sub_filter_count;
  filter->version_ = version;
  *out = std::move(filter);
  return Status::kOk;
}
CUCKOO_SIZE_OPTIMIZED_END

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_GROWTH_GROWING_FILTER_H_
