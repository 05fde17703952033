// Word-at-a-time byte scans for the URL code (url_canon.cc,
// url_expressions.cc). Most URLs are mostly bytes that every step only copies
// or skips; those stretches are found and copied a 64-bit word at a time
// (unaligned loads and stores, little-endian, as on x86 and in WebAssembly,
// where memcpy and memchr move unaligned bytes one at a time). A mask has
// 0x80 in each byte of the word that is of the class asked for and 0 in the
// others. Header-only; internal to the URL code.
#ifndef CUCKOO_WASM_SRC_URL_WORD_SCAN_H_
#define CUCKOO_WASM_SRC_URL_WORD_SCAN_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the word-at-a-time scans assume a little-endian target"
#endif

namespace cuckoo {
namespace url {
namespace word {

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kLows = 0x7f7f7f7f7f7f7f7fULL;
constexpr uint64_t kHighs = 0x8080808080808080ULL;

inline uint64_t Load64(const uint8_t* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}

inline void Store64(uint8_t* p, uint64_t x) { std::memcpy(p, &x, 8); }

// 0x80 in each byte of x that is below n (n <= 0x80), 0 in the others. Exact:
// no carry crosses a byte, so a mask can be ANDed with another.
inline uint64_t BytesBelow(uint64_t x, uint8_t n) {
  return ~(((x & kLows) + kOnes * (0x80 - n)) | x) & kHighs;
}

inline uint64_t BytesEqual(uint64_t x, uint8_t b) { return BytesBelow(x ^ (kOnes * b), 1); }

// The index of the first byte set in a non-zero mask.
inline size_t FirstByte(uint64_t mask) { return static_cast<size_t>(__builtin_ctzll(mask)) >> 3; }

// The index of the last byte set in a non-zero mask.
inline size_t LastByte(uint64_t mask) {
  return static_cast<size_t>(63 - __builtin_clzll(mask)) >> 3;
}

// The bytes of a mask before its first set byte (all of them if none is set).
inline uint64_t BeforeFirst(uint64_t mask) { return (mask & (0 - mask)) - 1; }

}  // namespace word
}  // namespace url
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_URL_WORD_SCAN_H_
