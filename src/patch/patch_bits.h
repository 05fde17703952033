// The bit stream of a patch's body (docs/FORMAT.md §17.3): bits least
// significant first within each byte, as the table's bit stream (§3); fixed
// width fields, Elias-gamma counts and Golomb-Rice coded gaps (Rice's
// parameter k: a value v is v >> k in unary, q one bits then a zero bit, then
// the k low bits of v). The writer grows a malloc'd buffer; the reader checks
// every read against the end and reports a short or malformed stream by a
// flag, never by reading past it. Internal to the core (patch.cc). Header-only.
#ifndef CUCKOO_WASM_SRC_PATCH_PATCH_BITS_H_
#define CUCKOO_WASM_SRC_PATCH_PATCH_BITS_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace patch {

// Bits a Rice code of `v` with parameter k takes.
inline uint64_t RiceBits(uint64_t v, uint32_t k) { return (v >> k) + 1 + k; }

// Bits an Elias-gamma code of n >= 1 takes: 2 * floor(log2 n) + 1.
inline uint32_t GammaBits(uint64_t n) {
  uint32_t lg = 0;
  while ((n >> lg) > 1) ++lg;
  return 2 * lg + 1;
}

// The k in 0..kMaxRice that codes `gaps` (n values) in the fewest bits.
constexpr uint32_t kMaxRice = 40;
inline uint32_t BestRice(const uint64_t* gaps, size_t n) {
  uint32_t best = 0;
  uint64_t best_bits = UINT64_MAX;
  for (uint32_t k = 0; k <= kMaxRice; ++k) {
    uint64_t bits = 0;
    for (size_t i = 0; i < n && bits < best_bits; ++i) bits += RiceBits(gaps[i], k);
    if (bits < best_bits) {
      best_bits = bits;
      best = k;
    }
  }
  return best;
}

class BitWriter {
 public:
  BitWriter() = default;
  BitWriter(const BitWriter&) = delete;
  BitWriter& operator=(const BitWriter&) = delete;
  ~BitWriter() { std::free(data_); }

  // False once an allocation failed (everything written after it is lost).
  bool ok() const { return ok_; }
  uint64_t bit_count() const { return bits_; }

  // Appends `bytes` whole bytes; the stream must be at a byte boundary.
  void Bytes(const uint8_t* bytes, size_t n) {
    if (!Reserve(bits_ + 8 * uint64_t{n})) return;
    std::memcpy(data_ + bits_ / 8, bytes, n);
    bits_ += 8 * uint64_t{n};
  }
  // The low `width` (0..64) bits of v.
  void Bits(uint64_t v, uint32_t width) {
    if (width == 0 || !Reserve(bits_ + width)) return;
    for (uint32_t i = 0; i < width; ++i) {
      if ((v >> i) & 1) data_[(bits_ + i) >> 3] |= static_cast<uint8_t>(1u << ((bits_ + i) & 7));
    }
    bits_ += width;
  }
  void Rice(uint64_t v, uint32_t k) {
    uint64_t q = v >> k;
    while (q >= 64) {
      Bits(~uint64_t{0}, 64);
      q -= 64;
    }
    Bits((uint64_t{1} << q) - 1, static_cast<uint32_t>(q) + 1);  // q ones, then a zero
    Bits(v, k);
  }
  // n >= 1: floor(log2 n) zero bits, then n's bits from the highest down.
  void Gamma(uint64_t n) {
    uint32_t lg = 0;
    while ((n >> lg) > 1) ++lg;
    Bits(0, lg);
    for (uint32_t i = lg + 1; i-- > 0;) Bits((n >> i) & 1, 1);
  }
  // Appends every bit `other` holds.
  void Append(const BitWriter& other) {
    for (uint64_t at = 0; at < other.bits_; at += 64) {
      const uint64_t n = other.bits_ - at < 64 ? other.bits_ - at : 64;
      uint64_t v = 0;
      for (uint64_t k = 0; k < n; ++k) {
        v |= uint64_t{(other.data_[(at + k) >> 3] >> ((at + k) & 7)) & 1u} << k;
      }
      Bits(v, static_cast<uint32_t>(n));
    }
  }
  // Zero bits up to the next byte boundary.
  void Align() { Bits(0, static_cast<uint32_t>((8 - bits_ % 8) % 8)); }

  // The bytes written (bit_count() / 8 rounded up); the caller owns them
  // (free()) and the writer is empty afterwards.
  uint8_t* Release(size_t* len) {
    *len = static_cast<size_t>((bits_ + 7) / 8);
    uint8_t* out = data_;
    data_ = nullptr;
    bits_ = capacity_ = 0;
    return out;
  }

 private:
  bool Reserve(uint64_t bits) {
    if (!ok_) return false;
    const uint64_t bytes = bits / 8 + 1;
    if (bytes <= capacity_) return true;
    uint64_t cap = capacity_ < 64 ? 64 : capacity_;
    while (cap < bytes) cap *= 2;
    if (cap > SIZE_MAX / 2) return ok_ = false;
    auto* grown = static_cast<uint8_t*>(std::realloc(data_, static_cast<size_t>(cap)));
    if (grown == nullptr) return ok_ = false;
    std::memset(grown + capacity_, 0, static_cast<size_t>(cap - capacity_));
    data_ = grown;
    capacity_ = cap;
    return true;
  }

  uint8_t* data_ = nullptr;
  uint64_t bits_ = 0;
  uint64_t capacity_ = 0;  // bytes
  bool ok_ = true;
};

class BitReader {
 public:
  BitReader(const uint8_t* data, size_t len) : data_(data), end_(uint64_t{len} * 8) {}

  // False once a read ran past the end or a code was malformed; every read
  // after that returns 0.
  bool ok() const { return ok_; }
  uint64_t position() const { return at_; }
  void Seek(uint64_t bit) { at_ = bit; }
  uint64_t remaining() const { return ok_ ? end_ - at_ : 0; }

  uint64_t Bits(uint32_t width) {
    if (!ok_ || width > end_ - at_) return Fail();
    uint64_t v = 0;
    for (uint32_t i = 0; i < width; ++i) {
      v |= uint64_t{(data_[(at_ + i) >> 3] >> ((at_ + i) & 7)) & 1u} << i;
    }
    at_ += width;
    return v;
  }
  // A Rice value (k <= kMaxRice); malformed if v would not fit in 64 bits.
  uint64_t Rice(uint32_t k) {
    uint64_t q = 0;
    while (ok_ && Bits(1) == 1) {
      if (++q > (UINT64_MAX >> k)) return Fail();
    }
    if (!ok_) return 0;
    return (q << k) | Bits(k);
  }
  // A gamma code of n >= 1 (at most 64 bits of n).
  uint64_t Gamma() {
    uint32_t lg = 0;
    while (ok_ && Bits(1) == 0) {
      if (++lg > 63) return Fail();
    }
    if (!ok_) return 0;
    uint64_t n = 1;
    for (uint32_t i = 0; i < lg; ++i) n = (n << 1) | Bits(1);
    return ok_ ? n : 0;
  }
  // True if the bits up to the next byte boundary are zero and nothing follows.
  bool AtPaddedEnd() {
    const uint32_t pad = static_cast<uint32_t>((8 - at_ % 8) % 8);
    return ok_ && Bits(pad) == 0 && ok_ && at_ == end_;
  }

 private:
  uint64_t Fail() {
    ok_ = false;
    return 0;
  }

  const uint8_t* data_;
  uint64_t end_;
  uint64_t at_ = 0;
  bool ok_ = true;
};

}  // namespace patch
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END

#endif  // CUCKOO_WASM_SRC_PATCH_PATCH_BITS_H_
