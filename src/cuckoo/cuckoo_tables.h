// The bucket tables a cuckoo filter can use, one per TableEncoding
// (cuckoo_params.h): the one list a new table encoding joins. AnyTable holds
// the table of a filter's encoding and hands it, as its own type, to the
// algorithm (cuckoo_core.h), so each operation is compiled once per table and
// chosen by one branch. Internal to the core.
#ifndef CUCKOO_WASM_SRC_CUCKOO_CUCKOO_TABLES_H_
#define CUCKOO_WASM_SRC_CUCKOO_CUCKOO_TABLES_H_

#include <cstdint>

#include "cuckoo/cuckoo_params.h"
#include "cuckoo/packed_table.h"
#include "cuckoo/semi_sorted_table.h"

namespace cuckoo {

// Bytes of the table section of m = `bucket_count` buckets of b =
// `bucket_size` slots of f = `bits` bits in `encoding` (FORMAT.md §3).
inline uint64_t TableByteLength(TableEncoding encoding, uint64_t bucket_count,
                                uint32_t bucket_size, uint32_t bits) {
  switch (encoding) {
    case TableEncoding::kPacked: break;
    case TableEncoding::kSemiSorted: return SemiSortedTable::ByteLength(bucket_count, bits);
  }
  return PackedTable::ByteLength(bucket_count * bucket_size, bits);
}

class AnyTable {
 public:
  // f(table) with the table as its own type.
  template <class F>
  decltype(auto) Visit(F&& f) {
    return VisitTable(*this, f);
  }
  template <class F>
  decltype(auto) Visit(F&& f) const {
    return VisitTable(*this, f);
  }
  // The packed table, or null if the encoding is another one.
  const PackedTable* packed() const {
    return encoding_ == TableEncoding::kPacked ? &packed_ : nullptr;
  }

  bool Init(TableEncoding encoding, uint64_t bucket_count, uint32_t bucket_size,
            uint32_t fingerprint_bits) {
    encoding_ = encoding;
    return Visit([&](auto& t) { return t.Init(bucket_count, bucket_size, fingerprint_bits); });
  }
  TableEncoding encoding() const { return encoding_; }

 private:
  // Visit for *this, const or not.
  template <class Self, class F>
  static auto VisitTable(Self& self, F& f) -> decltype(f(self.packed_)) {
    switch (self.encoding_) {
      case TableEncoding::kPacked: break;
      case TableEncoding::kSemiSorted: return f(self.semi_sorted_);
    }
    return f(self.packed_);
  }

  TableEncoding encoding_ = TableEncoding::kPacked;
  PackedTable packed_;
  SemiSortedTable semi_sorted_;
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_CUCKOO_CUCKOO_TABLES_H_
