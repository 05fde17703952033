// MurmurHash64A (Austin Appleby, SMHasher, placed in the public domain): the
// 64-bit hash RedisBloom applies to an item's bytes, so the Redis families
// (redis_cuckoo.h, redis_bloom.h) place a key where the server does. Reads the
// bytes as little-endian 64-bit words, as the server does on the x86-64 and
// arm64 hosts it runs on. Header-only.
#ifndef CUCKOO_WASM_SRC_COMMON_MURMUR_HASH_H_
#define CUCKOO_WASM_SRC_COMMON_MURMUR_HASH_H_

#include <cstddef>
#include <cstdint>

namespace cuckoo {

// MurmurHash64A of `len` bytes at `key` with `seed`.
inline uint64_t MurmurHash64A(const uint8_t* key, size_t len, uint64_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  uint64_t h = seed ^ (static_cast<uint64_t>(len) * m);
  const size_t words = len / 8;
  for (size_t w = 0; w < words; ++w) {
    uint64_t k = 0;
    for (int b = 7; b >= 0; --b) k = (k << 8) | key[w * 8 + b];
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const uint8_t* tail = key + words * 8;
  const size_t rest = len & 7;
  if (rest != 0) {
    for (size_t b = rest; b-- > 0;) h ^= static_cast<uint64_t>(tail[b]) << (8 * b);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_COMMON_MURMUR_HASH_H_
