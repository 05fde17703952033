// A key's slots and fingerprint in a binary fuse filter (Graf and Lemire
// 2022, §4; docs/FORMAT.md, "Binary fuse filter (family 5)"). A key's 64-bit
// hash h (XXH3-64 with the filter's seed, common/hash.h) is mixed with the
// table's construction seed s into x = Mix64(h + s); then
//   h0      = floor(x * (segment_count * segment_length) / 2^64)
//   h_i     = (h0 + i * segment_length) XOR (o_i AND (segment_length - 1)),  i = 1 .. arity - 1
//             with the 18-bit offsets o_i of x: three-wise o_1 = x >> 18, o_2 = x;
//             four-wise o_1 = x >> 36, o_2 = x >> 18, o_3 = x
//   fingerprint = (x XOR (x >> 32)) AND (2^f - 1)
// and the key is in the filter when the fingerprint is the XOR of the table's
// values at its `arity` slots. The slots are distinct and each lies in its
// own segment, h_i in segment (h0 / segment_length) + i.
#ifndef CUCKOO_WASM_SRC_FUSE_FUSE_KEYS_H_
#define CUCKOO_WASM_SRC_FUSE_FUSE_KEYS_H_

#include <cstdint>
#include <cstring>

#include "common/hash.h"

namespace cuckoo {

// The table's numbers a key's slots are derived from.
struct FuseShape {
  uint32_t arity = 3;
  uint32_t segment_length = 0;
  uint32_t segment_mask = 0;          // segment_length - 1
  uint32_t segment_count_length = 0;  // segment_count * segment_length, < 2^32
  uint32_t fingerprint_bits = 8;
  uint32_t fingerprint_mask = 0xff;   // 2^f - 1
};

// x for a key's hash and the construction seed.
inline uint64_t FuseMix(uint64_t hash, uint64_t construction_seed) {
  return Mix64(hash + construction_seed);
}

inline uint32_t FuseFingerprint(const FuseShape& s, uint64_t x) {
  return static_cast<uint32_t>(x ^ (x >> 32)) & s.fingerprint_mask;
}

// The key's first slot h0: floor(x * n / 2^64) for n = segment_count *
// segment_length < 2^32, from two 32x32-bit products, exact (no 128-bit
// product, which WebAssembly lacks).
inline uint32_t FuseFirstSlot(const FuseShape& s, uint64_t x) {
  const uint64_t n = s.segment_count_length;
  return static_cast<uint32_t>(((x >> 32) * n + (((x & 0xffffffffu) * n) >> 32)) >> 32);
}

// The key's slot i, 1 .. arity - 1, from its first slot h0: its offset o_i
// is the 18 bits of x from bit 18 * (arity - 1 - i) (x >> 18, x three-wise;
// x >> 36, x >> 18, x four-wise).
inline uint32_t FuseSlot(const FuseShape& s, uint64_t x, uint32_t h0, uint32_t i) {
  return (h0 + i * s.segment_length) ^ (static_cast<uint32_t>(x >> (18 * (s.arity - 1 - i))) & s.segment_mask);
}

// The key's slots, `arity` of them.
inline void FuseSlots(const FuseShape& s, uint64_t x, uint32_t slots[4]) {
  slots[0] = FuseFirstSlot(s, x);
  slots[1] = FuseSlot(s, x, slots[0], 1);
  slots[2] = FuseSlot(s, x, slots[0], 2);
  if (s.arity == 4) slots[3] = FuseSlot(s, x, slots[0], 3);
}

// The f-bit value of slot `slot` in a table of f-bit values packed
// little-endian (slot p at bits p*f ..), from 4 bytes: the table has at least
// 3 bytes of padding after its last value (BinaryFuseFilter keeps 8).
inline uint32_t FuseGet(const uint8_t* table, uint32_t bits, uint32_t mask, uint64_t slot) {
  const uint64_t bit = slot * bits;
  uint32_t w;
  std::memcpy(&w, table + (bit >> 3), 4);  // little-endian (packed_table.h refuses other targets)
  return (w >> (bit & 7)) & mask;
}

inline void FuseSet(uint8_t* table, uint32_t bits, uint32_t mask, uint64_t slot, uint32_t value) {
  const uint64_t bit = slot * bits;
  uint32_t w;
  std::memcpy(&w, table + (bit >> 3), 4);
  const uint32_t shift = static_cast<uint32_t>(bit & 7);
  w = (w & ~(mask << shift)) | (value << shift);
  std::memcpy(table + (bit >> 3), &w, 4);
}

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_FUSE_FUSE_KEYS_H_
