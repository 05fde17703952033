// Test- and benchmark-only: keys packed in the batch layout of common/batch.h
// (n keys back to back in `bytes`, key i at bytes[offsets[i] .. offsets[i+1]),
// offsets holding n + 1 entries in bytes), built one key at a time. For the
// native tests and benchmarks; not part of the core's API. Header-only.
#ifndef CUCKOO_WASM_SRC_TESTING_PACKED_KEYS_H_
#define CUCKOO_WASM_SRC_TESTING_PACKED_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cuckoo {

struct PackedKeys {
  std::string bytes;
  std::vector<uint32_t> offsets{0};
  size_t size() const { return offsets.size() - 1; }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(bytes.data()); }
  const uint8_t* key(size_t i) const { return data() + offsets[i]; }
  size_t len(size_t i) const { return offsets[i + 1] - offsets[i]; }
  void Push(const std::string& k) {
    bytes += k;
    offsets.push_back(static_cast<uint32_t>(bytes.size()));
  }
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_TESTING_PACKED_KEYS_H_
