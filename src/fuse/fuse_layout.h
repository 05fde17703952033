// The shape of a binary fuse filter's table (Graf and Lemire, "Binary Fuse
// Filters: Fast and Smaller Than Xor Filters", ACM JEA 2022, §3-§4): the
// array of fingerprints is segment_count + arity - 1 segments of
// segment_length slots; a key's first slot h0 lies in the first segment_count
// segments and its slot i (i < arity) in segment (h0 / segment_length) + i.
//
// The sizes follow the paper's formulas, for n distinct keys:
//   three-wise: segment_length = 2^floor(ln n / ln 3.33 + 2.25),
//               size factor    = max(1.125, 0.875 + 0.25 ln 10^6 / ln n)
//   four-wise:  segment_length = 2^floor(ln n / ln 2.91 - 0.5),
//               size factor    = max(1.075, 0.77 + 0.305 ln 600000 / ln n)
// segment_length clamped to 4 .. 2^18; capacity = round(n * size factor) (0
// for n <= 1); segment_count = max(1, ceil(capacity / segment_length) -
// (arity - 1)). Logarithms are computed with +, -, * and / alone (FuseLn), so
// the same n gives the same shape, and the same keys the same bytes, on every
// IEEE 754 target (natively and in WebAssembly), whatever its libm.
#ifndef CUCKOO_WASM_SRC_FUSE_FUSE_LAYOUT_H_
#define CUCKOO_WASM_SRC_FUSE_FUSE_LAYOUT_H_

#include <cstdint>

namespace cuckoo {

// Fingerprint bits f (ε = 2^-f) and arities a binary fuse filter takes.
constexpr uint32_t kMinFuseFingerprintBits = 8;
constexpr uint32_t kMaxFuseFingerprintBits = 16;
constexpr uint32_t kMinFuseArity = 3;
constexpr uint32_t kMaxFuseArity = 4;
// Segment lengths: powers of two from 4 to 2^18 (the 18-bit offset fields of
// a key's hash, fuse_keys.h).
constexpr uint32_t kMinFuseSegmentLength = 4;
constexpr uint32_t kMaxFuseSegmentLength = uint32_t{1} << 18;
// Slots of a table: h0 is a 32-bit product (fuse_keys.h), so
// segment_count * segment_length < 2^32, and the array is at most that plus
// three segments.
constexpr uint64_t kMaxFuseArrayLength = (uint64_t{1} << 32) - 1;

struct FuseLayout {
  uint32_t segment_length = 0;
  uint32_t segment_count = 0;
  uint64_t array_length = 0;  // (segment_count + arity - 1) * segment_length
};

// ln x for x >= 1, from +, -, * and / alone: x = 2^e m with m in [1, 2),
// ln m = 2 atanh((m - 1) / (m + 1)) by its series.
double FuseLn(uint64_t x);

// The table's shape for n distinct keys and arity 3 or 4.
FuseLayout FuseLayoutFor(uint64_t n, uint32_t arity);

// Bytes of a table of `array_length` slots of f bits: ceil(array_length * f / 8).
inline uint64_t FuseFingerprintBytes(uint64_t array_length, uint32_t fingerprint_bits) {
  return (array_length * fingerprint_bits + 7) / 8;
}

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_FUSE_FUSE_LAYOUT_H_
