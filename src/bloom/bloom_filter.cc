#include "bloom/bloom_filter.h"

#include <cmath>
#include <cstring>
#include <new>

#include "common/batch.h"
#include "common/hash.h"
#include "common/size_optimized.h"

namespace cuckoo {

namespace {

constexpr double kLn2 = 0.69314718055994530942;

// The position policies: Positions(hash, m) starts at position 0 (x);
// Next(i) makes position i the next one, i + 1.

// BloomPositions::kIndependent: positions 2j and 2j + 1 are the high and low
// 32 bits of z_j mapped onto [0, m), z_0 = hash and
// z_j = Mix64(hash + j * kGoldenGamma) for j >= 1 (FORMAT.md §11.6).
struct IndependentPositions {
  IndependentPositions(uint64_t hash, uint32_t m)
      : x(FastRange32(static_cast<uint32_t>(hash >> 32), m)), hash(hash), z(hash), m(m) {}
  void Next(uint32_t i) {
    if ((i & 1) == 0) {
      x = FastRange32(static_cast<uint32_t>(z), m);
      return;
    }
    z = Mix64(hash + ((i + 1) / 2) * kGoldenGamma);
    x = FastRange32(static_cast<uint32_t>(z >> 32), m);
  }
  uint32_t x;
  const uint64_t hash;
  uint64_t z;
  const uint32_t m;
};

// BloomPositions::kDoubleHashing, enhanced double hashing mod m:
// position_i = a + i*b + (i^3 - i)/6 mod m, a = fastrange(hash >> 32, m),
// b = fastrange(hash, m).
struct DoubleHashing {
  DoubleHashing(uint64_t hash, uint32_t m)
      : x(FastRange32(static_cast<uint32_t>(hash >> 32), m)),
        y(FastRange32(static_cast<uint32_t>(hash), m)),
        m(m) {}
  void Next(uint32_t i) {
    x = x >= m - y ? x - (m - y) : x + y;       // x + y mod m, without overflow
    const uint64_t next = uint64_t{y} + i + 1;  // y + i + 1 mod m, in 64 bits
    y = static_cast<uint32_t>(next >= m ? next % m : next);
  }
  uint32_t x;
  uint32_t y;
  const uint32_t m;
};

// The one Bloom algorithm over a position policy: set, or test, the k bits.
template <class Positions>
void SetBits(uint64_t* words, uint64_t hash, uint32_t m, uint32_t k) {
  Positions pos(hash, m);
  for (uint32_t i = 0;; pos.Next(i++)) {
    words[pos.x >> 6] |= uint64_t{1} << (pos.x & 63);
    if (i + 1 >= k) return;  // k >= 1 (Create, Load); >= keeps a k of 0 from looping
  }
}

// The bits are ANDed and tested two at a time. A non-member stops at the
// first pair with a clear bit; with half the bits set (a filter at capacity)
// a test after every bit is a coin flip for the branch predictor, a test
// after every pair is right three times in four.
template <class Positions>
bool TestBits(const uint64_t* words, uint64_t hash, uint32_t m, uint32_t k) {
  Positions pos(hash, m);
  uint64_t all = 1;
  for (uint32_t i = 0;; pos.Next(i++)) {
    all &= words[pos.x >> 6] >> (pos.x & 63);
    if (i + 1 >= k) return (all & 1) != 0;
    if ((i & 1) != 0 && (all & 1) == 0) return false;
  }
}

}  // namespace

uint64_t BloomFilter::BitCountFor(const BloomParams& p) {
  if (p.capacity == 0 || !(p.false_positive_rate > 0 && p.false_positive_rate < 1)) return 0;
  const double m = std::ceil(-static_cast<double>(p.capacity) * std::log(p.false_positive_rate) /
                             (kLn2 * kLn2));
  if (!(m <= static_cast<double>(kMaxBloomBits))) return 0;
  return m < 1 ? 1 : static_cast<uint64_t>(m);
}

uint32_t BloomFilter::HashCountFor(uint64_t capacity, uint64_t bits) {
  if (capacity == 0) return 1;
  const double k = std::round(static_cast<double>(bits) / static_cast<double>(capacity) * kLn2);
  if (k < 1) return 1;
  return k > kMaxBloomHashes ? kMaxBloomHashes + 1 : static_cast<uint32_t>(k);
}

Status BloomFilter::Make(const BloomParams& params, uint64_t bits, uint32_t hashes,
                         std::unique_ptr<BloomFilter>* out) {
  void* block = internal::AllocateZeroed(sizeof(BloomFilter));
  if (block == nullptr) return Status::kOutOfMemory;
  std::unique_ptr<BloomFilter> filter(::new (block) BloomFilter());
  filter->params_ = params;
  filter->bits_ = bits;
  filter->hashes_ = hashes;
  const uint64_t bytes = WordBytesFor(bits);
  if (bytes > SIZE_MAX) return Status::kOutOfMemory;
  filter->words_ = static_cast<uint64_t*>(internal::AllocateZeroed(static_cast<size_t>(bytes)));
  if (filter->words_ == nullptr) return Status::kOutOfMemory;
  *out = std::move(filter);
  return Status::kOk;
}

BloomFilter::~BloomFilter() { internal::Deallocate(words_); }

Status BloomFilter::Create(const BloomParams& params, std::unique_ptr<BloomFilter>* out) {
  if (params.positions != BloomPositions::kIndependent &&
      params.positions != BloomPositions::kDoubleHashing) {
    return Status::kInvalidArgument;
  }
  const uint64_t bits = BitCountFor(params);
  if (bits == 0) return Status::kInvalidArgument;
  const uint32_t hashes = HashCountFor(params.capacity, bits);
  if (hashes > kMaxBloomHashes) return Status::kInvalidArgument;
  return Make(params, bits, hashes, out);
}

CUCKOO_SIZE_OPTIMIZED_BEGIN
Status BloomFilter::Load(const BloomParams& params, uint64_t bits, uint32_t hashes,
                         uint64_t item_count, const uint8_t* words,
                         std::unique_ptr<BloomFilter>* out) {
  std::unique_ptr<BloomFilter> filter;
  const Status s = Make(params, bits, hashes, &filter);
  if (s != Status::kOk) return s;
  // The words are little-endian in the format and in memory (wasm32, x86-64, arm64).
  std::memcpy(filter->words_, words, static_cast<size_t>(WordBytesFor(bits)));
  filter->size_ = item_count;
  *out = std::move(filter);
  return Status::kOk;
}
CUCKOO_SIZE_OPTIMIZED_END

void BloomFilter::AddHash(uint64_t hash) {
  ++size_;
  const uint32_t m = static_cast<uint32_t>(bits_);
  if (params_.positions == BloomPositions::kIndependent) {
    SetBits<IndependentPositions>(words_, hash, m, hashes_);
  } else {
    SetBits<DoubleHashing>(words_, hash, m, hashes_);
  }
}

bool BloomFilter::ContainHash(uint64_t hash) const {
  const uint32_t m = static_cast<uint32_t>(bits_);
  if (params_.positions == BloomPositions::kIndependent) {
    return TestBits<IndependentPositions>(words_, hash, m, hashes_);
  }
  return TestBits<DoubleHashing>(words_, hash, m, hashes_);
}

void BloomFilter::ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n,
                               uint8_t* results) const {
  ContainEach(keys, offsets, n, results, [this](const uint8_t* key, size_t len) {
    return ContainHash(HashKey(key, len, params_.seed));
  });
}

void BloomFilter::ContainHashes(const uint64_t* hashes, size_t m, uint8_t* out) const {
  const uint32_t bits = static_cast<uint32_t>(bits_);
  if (params_.positions != BloomPositions::kIndependent) {
    for (size_t i = 0; i < m; ++i) out[i] = ContainHash(hashes[i]);
    return;
  }
  // IndependentPositions' pair p: the two halves of z_p (z_0 = the hash).
  // The words read as bytes: bit x is bit x % 8 of byte x / 8 as the words
  // are little-endian.
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the words read as bytes");
  const uint32_t k = hashes_;
  TestPairsGrouped(
      m, (k + 1) / 2, out,
      [&](size_t i, uint32_t p, uint64_t* x, uint64_t* y) {
        const uint64_t z = p == 0 ? hashes[i] : Mix64(hashes[i] + p * kGoldenGamma);
        *x = FastRange32(static_cast<uint32_t>(z >> 32), bits);
        *y = 2 * p + 1 < k ? FastRange32(static_cast<uint32_t>(z), bits) : *x;
      },
      reinterpret_cast<const uint8_t*>(words_));
}

CUCKOO_SIZE_OPTIMIZED_BEGIN
Status BloomFilter::Union(const BloomFilter& other) {
  if (!IsCompatible(other)) return Status::kInvalidArgument;
  const uint64_t n = word_bytes() / 8;
  for (uint64_t i = 0; i < n; ++i) words_[i] |= other.words_[i];
  size_ = size_ > UINT64_MAX - other.size_ ? UINT64_MAX : size_ + other.size_;
  return Status::kOk;
}

uint64_t BloomFilter::SetBitCount() const {
  const uint64_t n = word_bytes() / 8;
  uint64_t set = 0;
  for (uint64_t i = 0; i < n; ++i) set += static_cast<uint64_t>(__builtin_popcountll(words_[i]));
  return set;
}

double BloomFilter::ExpectedFalsePositiveRate() const {
  const double k = hashes_;
  return std::pow(1 - std::exp(-k * static_cast<double>(size_) / static_cast<double>(bits_)), k);
}

double BloomFilter::EstimatedCount() const {
  const double m = static_cast<double>(bits_);
  const double x = static_cast<double>(SetBitCount());
  if (x >= m) return HUGE_VAL;
  return -(m / hashes_) * std::log1p(-x / m);
}
CUCKOO_SIZE_OPTIMIZED_END

}  // namespace cuckoo
