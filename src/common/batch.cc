#include "common/batch.h"

#include <cstring>

namespace cuckoo {

void ContainInSubs(const void* filter, uint32_t count, ContainInSub contain, const void* hashes,
                   size_t hash_bytes, size_t m, uint8_t* out) {
  // The keys not found yet: their hashes, and which of the group each is.
  const uint8_t* keys = static_cast<const uint8_t*>(hashes);
  alignas(8) uint8_t left[kLookupGroup * kMaxHashBytes];
  uint8_t live[kLookupGroup];
  uint8_t found[kLookupGroup];
  for (size_t i = 0; i < m; ++i) live[i] = static_cast<uint8_t>(i);
  for (uint32_t j = 0; j < count && m > 0; ++j) {
    contain(filter, j, keys, m, found);
    size_t still = 0;
    for (size_t c = 0; c < m; ++c) {
      out[live[c]] = found[c];
      // In place when keys is left: still <= c.
      uint64_t word[2];
      std::memcpy(word, keys + c * hash_bytes, 8);
      std::memcpy(left + still * hash_bytes, word, 8);
      if (hash_bytes == 16) {
        std::memcpy(word + 1, keys + c * hash_bytes + 8, 8);
        std::memcpy(left + still * hash_bytes + 8, word + 1, 8);
      }
      live[still] = live[c];
      still += found[c] == 0;
    }
    m = still;
    keys = left;
  }
}

void ContainInGroups(const void* filter, const GroupLookup& lookup, const uint8_t* keys,
                     const uint32_t* offsets, size_t n, uint8_t* results) {
  alignas(8) unsigned char hashes[kLookupGroup * kMaxHashBytes];
  for (size_t at = 0; at < n; at += kLookupGroup) {
    const size_t m = n - at < kLookupGroup ? n - at : kLookupGroup;
    for (size_t i = 0; i < m; ++i) {
      lookup.hash(filter, keys + offsets[at + i], offsets[at + i + 1] - offsets[at + i],
                  hashes + i * lookup.hash_bytes);
    }
    lookup.contain(filter, hashes, m, results + at);
  }
}

}  // namespace cuckoo
