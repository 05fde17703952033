// The bucket tables a cuckoo filter can use, one per TableEncoding
// (cuckoo_params.h): the one list a new table encoding joins. AnyTable holds
// the table of a filter's encoding and hands it, as its own type, to the
// algorithm (cuckoo_core.h), so each operation is compiled once per table and
// chosen by one branch. Internal to the core.
#ifndef CUCKOO_WASM_SRC_CUCKOO_TABLES_H_
#define CUCKOO_WASM_SRC_CUCKOO_TABLES_H_

#include <cstdint>

#include "cuckoo_params.h"
#include "packed_table.h"

namespace cuckoo {

// Bytes of the table section of m = `bucket_count` buckets of b =
// `bucket_size` slots of f = `bits` bits in `encoding` (FORMAT.md §3).
inline uint64_t TableByteLength(TableEncoding encoding, uint64_t bucket_count,
                                uint32_t bucket_size, uint32_t bits) {
  switch (encoding) {
    case TableEncoding::kPacked: break;
  }
  return PackedTable::ByteLength(bucket_count * bucket_size, bits);
}

class AnyTable {
 public:
  // f(table) with the table as its own type.
  template <class F>
  decltype(auto) Visit(F&& f) {
    switch (encoding_) {
      case TableEncoding::kPacked: break;
    }
    return f(packed_);
  }
  template <class F>
  decltype(auto) Visit(F&& f) const {
    switch (encoding_) {
      case TableEncoding::kPacked: break;
    }
    return f(packed_);
  }

  bool Init(TableEncoding encoding, uint64_t bucket_count, uint32_t bucket_size,
            uint32_t fingerprint_bits) {
    encoding_ = encoding;
    return Visit([&](auto& t) { return t.Init(bucket_count, bucket_size, fingerprint_bits); });
  }
  TableEncoding encoding() const { return encoding_; }

 private:
  TableEncoding encoding_ = TableEncoding::kPacked;
  PackedTable packed_;
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_CUCKOO_TABLES_H_
