// Hashing for cuckoo-wasm: XXH3-64 (xxHash 0.8.1, vendored in
// third_party/xxhash/ and pinned: its output is part of the byte format) over
// a key's bytes, with the default seed, and as the format's checksum, and the
// integer mixers used to derive bucket indexes. The one file that includes
// xxhash.h. Header-only.
#ifndef CUCKOO_WASM_SRC_COMMON_HASH_H_
#define CUCKOO_WASM_SRC_COMMON_HASH_H_

#include <cstddef>
#include <cstdint>

#define XXH_INLINE_ALL
#include "xxhash/xxhash.h"

namespace cuckoo {

// XXH3-64 of `len` bytes at `key` with `seed`: the one 64-bit hash a key gets.
inline uint64_t HashKey(const uint8_t* key, size_t len, uint64_t seed) {
  return XXH3_64bits_withSeed(key, len, seed);
}

// The key-hash seed of a filter made without one (cuckoo, Bloom and their
// growing stacks): "cukoo-wa" in ASCII, most significant byte first.
constexpr uint64_t kDefaultSeed = 0x63756b6f6f2d7761ULL;

// XXH3-64, seed 0: the serialized format's checksum. With seed 0,
// XXH3_64bits_withSeed is XXH3_64bits (xxhash.h: "seed==0 produces the same
// results as XXH3_64bits()"), so the checksum goes through the key hash and
// the module holds one copy of XXH3's code, not two.
inline uint64_t Checksum(const uint8_t* data, size_t len) {
  return HashKey(data, len, 0);
}

// 2^64 / φ rounded to odd (the golden-ratio Weyl step of SplitMix64): the
// step between SplitMix64 states, and between the salted hashes that cuckoo
// levels (FORMAT.md §11.3) and Bloom position pairs (§11.6) mix.
constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;

// MurmurHash3's 64-bit finalizer: a bijective mixer for fingerprints.
inline uint64_t Mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Maps a uniform 32-bit value onto [0, n) without division (Lemire's fastrange).
inline uint32_t FastRange32(uint32_t x, uint32_t n) {
  return static_cast<uint32_t>((static_cast<uint64_t>(x) * n) >> 32);
}

// SplitMix64 step: the seeded PRNG that picks eviction victims. Any state is valid.
inline uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += kGoldenGamma);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_COMMON_HASH_H_
