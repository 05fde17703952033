// The packed-keys batch layout every batch call of the core takes: n keys
// back to back, key k at keys[offsets[k] .. offsets[k+1]) (offsets holds
// n + 1 entries, in bytes). Header-only.
#ifndef CUCKOO_WASM_SRC_COMMON_BATCH_H_
#define CUCKOO_WASM_SRC_COMMON_BATCH_H_

#include <cstddef>
#include <cstdint>

#include "status.h"

namespace cuckoo {

// Calls add(key, len) for the keys in order, stopping at the first that does
// not return kOk. Returns how many returned kOk; *status is kOk, or the first
// failure's status.
template <typename Add>
size_t AddEach(const uint8_t* keys, const uint32_t* offsets, size_t n, Status* status, Add add) {
  for (size_t k = 0; k < n; ++k) {
    const Status s = add(keys + offsets[k], offsets[k + 1] - offsets[k]);
    if (s != Status::kOk) {
      *status = s;
      return k;
    }
  }
  *status = Status::kOk;
  return n;
}

// results[k] = contain(key k) ? 1 : 0 for the n keys.
template <typename Contain>
void ContainEach(const uint8_t* keys, const uint32_t* offsets, size_t n, uint8_t* results,
                 Contain contain) {
  for (size_t k = 0; k < n; ++k) {
    results[k] = contain(keys + offsets[k], offsets[k + 1] - offsets[k]) ? 1 : 0;
  }
}

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_COMMON_BATCH_H_
