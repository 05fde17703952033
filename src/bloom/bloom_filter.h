// BloomFilter: a standard Bloom filter of m bits and k hash functions (Bloom
// 1970), sized from a capacity n and a false-positive rate ε:
//   m = ceil(-n ln ε / (ln 2)^2) bits,   k = max(1, round((m / n) ln 2)),
// so that at n keys the rate is about (1 - e^(-kn/m))^k ≈ ε.
//
// Each key gets one 64-bit hash h = XXH3-64(key bytes, seed) (hash.h), and its
// k bit positions come from h alone, so a lookup hashes the key once. How
// (docs/FORMAT.md §11.6) is the filter's BloomPositions:
//   kIndependent (every new filter; format version 3, or version 4's scheme 2): position i is
//     fastrange32 onto [0, m) of one 32-bit half of z = h for i < 2, of
//     z = Mix64(h + floor(i / 2) * 0x9e3779b97f4a7c15) after, the high half
//     for even i and the low half for odd i: independent positions;
//   kDoubleHashing (version 2, or version 4's scheme 1; read and kept): enhanced
//     double hashing mod m (Kirsch & Mitzenmacher, "Less Hashing, Same
//     Performance", ESA 2006; Dillinger & Manolios 2004), position_i =
//     a + i*b + (i^3 - i)/6 mod m. All k positions follow from one of m^2
//     pairs (a, b), which puts a floor of about n/m^2 under the rate: above ε
//     for small filters at small ε.
// A lookup stops at the first clear bit it tests (they are tested in pairs).
//
// No delete: clearing a key's bits would clear bits other keys share, which
// would then be reported absent (a false negative). The cuckoo filter deletes.
//
// Bits are stored in 64-bit words, bit p being bit (p mod 64) of word p / 64;
// bits from m up to the end of the last word stay 0. Not thread-safe;
// non-copyable. Byte layout: docs/FORMAT.md §11.5-§11.7, written and read by format.h.
#ifndef CUCKOO_WASM_SRC_BLOOM_BLOOM_FILTER_H_
#define CUCKOO_WASM_SRC_BLOOM_BLOOM_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/allocation.h"
#include "common/hash.h"
#include "status.h"

namespace cuckoo {

constexpr uint64_t kMaxBloomBits = 0xffffffffULL;  // positions are 32-bit (fastrange32)
constexpr uint32_t kMaxBloomHashes = 64;

// How a key's k bit positions follow from its hash (docs/FORMAT.md §11.6).
// Version 2 of the format stores kDoubleHashing filters, version 3
// kIndependent ones; version 4 either, by its scheme byte.
enum class BloomPositions : uint8_t {
  kDoubleHashing = 2,  // enhanced double hashing mod m
  kIndependent = 3,    // a 32-bit half of h, or of a 64-bit mix of it, per position
};

// Parameters of a new Bloom filter.
struct BloomParams {
  uint64_t capacity = 0;              // keys the filter is sized for, >= 1
  double false_positive_rate = 0.01;  // ε at capacity, in (0, 1)
  uint64_t seed = kDefaultSeed;       // key-hash seed
  // kDoubleHashing only to keep a filter read from version 2 as it was.
  BloomPositions positions = BloomPositions::kIndependent;
};

class BloomFilter {
 public:
  // m for `params` (0 if a parameter is out of range or m > kMaxBloomBits).
  static uint64_t BitCountFor(const BloomParams& params);
  // k for n keys in m bits: max(1, round((m / n) ln 2)), at most kMaxBloomHashes.
  static uint32_t HashCountFor(uint64_t capacity, uint64_t bits);
  // Bytes of the bit array for m bits: ceil(m / 64) * 8.
  static uint64_t WordBytesFor(uint64_t bits) { return (bits + 63) / 64 * 8; }

  // Makes an empty filter. kInvalidArgument if capacity is 0, ε is not in
  // (0, 1), m exceeds kMaxBloomBits, k exceeds kMaxBloomHashes or positions
  // is not a BloomPositions;
  // kOutOfMemory if it cannot be allocated (nothing stays allocated).
  static Status Create(const BloomParams& params, std::unique_ptr<BloomFilter>* out);

  // A filter with these exact fields and `word_bytes` bytes of bits copied
  // from `words` (the format reader's checks passed). kOutOfMemory as for Create.
  static Status Load(const BloomParams& params, uint64_t bits, uint32_t hashes,
                     uint64_t item_count, const uint8_t* words,
                     std::unique_ptr<BloomFilter>* out);

  BloomFilter(const BloomFilter&) = delete;
  BloomFilter& operator=(const BloomFilter&) = delete;
  static void* operator new(size_t) = delete;
  static void* operator new[](size_t) = delete;
  static void operator delete(void* p) { internal::Deallocate(p); }
  ~BloomFilter();

  // Sets the k bits of a key given by its 64-bit hash (HashKey with seed()),
  // and counts it in size(). Never fails: past capacity the false-positive
  // rate climbs (ExpectedFalsePositiveRate).
  void AddHash(uint64_t hash);
  // True if all k bits of the key are set: never false for a key added; true
  // for a non-member with probability about ExpectedFalsePositiveRate().
  bool ContainHash(uint64_t hash) const;
  // results[k] = 1 if key k (batch.h's layout) may be in the filter, else 0,
  // key by key: the batch of a filter of this one sub-filter while it is
  // small enough for the caches (GrowingFilter::ContainBatch).
  void ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, uint8_t* results) const;
  // out[i] = ContainHash(hashes[i]) for m <= kLookupGroup keys, their bits
  // tested a pair at a time for all of them (batch.h TestPairsGrouped).
  __attribute__((noinline)) void ContainHashes(const uint64_t* hashes, size_t m,
                                               uint8_t* out) const;

  // ORs `other`'s bits into this filter and adds its size() to size(): the
  // filter of both key sets. kInvalidArgument (nothing changed) unless
  // IsCompatible(other).
  Status Union(const BloomFilter& other);
  // Same m, k, seed and positions: the same key sets the same bits in both.
  bool IsCompatible(const BloomFilter& other) const {
    return bits_ == other.bits_ && hashes_ == other.hashes_ && params_.seed == other.params_.seed &&
           params_.positions == other.params_.positions;
  }

  // Number of set bits X.
  uint64_t SetBitCount() const;
  // (1 - e^(-k n / m))^k for n = size(): the rate expected at the current fill.
  // (The JS API computes this and EstimatedCount from info()'s fields itself,
  // js/filters/bloom-filter.ts, so that the wasm module links no exp, pow or log1p.)
  double ExpectedFalsePositiveRate() const;
  // Keys estimated from the set bits (Swamidass & Baldi 2007):
  // -(m / k) ln(1 - X / m); infinity when every bit is set.
  double EstimatedCount() const;

  uint64_t size() const { return size_; }            // keys added (duplicates counted)
  uint64_t capacity() const { return params_.capacity; }
  double false_positive_rate() const { return params_.false_positive_rate; }  // ε sized for
  uint64_t seed() const { return params_.seed; }
  BloomPositions positions() const { return params_.positions; }
  uint64_t bit_count() const { return bits_; }       // m
  uint32_t hash_count() const { return hashes_; }    // k
  uint64_t word_bytes() const { return WordBytesFor(bits_); }
  // The bit array as little-endian 64-bit words, word_bytes() bytes.
  const uint64_t* words() const { return words_; }

 private:
  BloomFilter() = default;
  static Status Make(const BloomParams& params, uint64_t bits, uint32_t hashes,
                     std::unique_ptr<BloomFilter>* out);

  BloomParams params_;
  uint64_t bits_ = 0;
  uint32_t hashes_ = 0;
  uint64_t size_ = 0;
  uint64_t* words_ = nullptr;  // from internal::AllocateZeroed
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_BLOOM_BLOOM_FILTER_H_
