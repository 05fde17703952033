// The bucket tables a cuckoo filter can use, one per TableEncoding
// (table_encodings.def, the one list of them). AnyTable holds the table of a
// filter's encoding and hands it, as its own type, to the algorithm
// (cuckoo_core.h), so each operation is compiled once per table and chosen by
// one branch. Internal to the core.
#ifndef CUCKOO_WASM_SRC_CUCKOO_CUCKOO_TABLES_H_
#define CUCKOO_WASM_SRC_CUCKOO_CUCKOO_TABLES_H_

#include <cstdint>
#include <type_traits>

#include "cuckoo/cuckoo_params.h"
#include "cuckoo/packed_table.h"
#include "cuckoo/semi_sorted_table.h"

namespace cuckoo {

// TableOf<E>::type: the table class of encoding E.
template <TableEncoding E>
struct TableOf;
#define CUCKOO_TABLE_ENCODING(Name, id, Table, ...)   \
  template <>                                         \
  struct TableOf<TableEncoding::k##Name> {            \
    using type = Table;                               \
  };
#include "cuckoo/table_encodings.def"

// The default encoding's table (id 0), whose lookup CuckooFilter inlines.
using DefaultTable = TableOf<TableEncoding{}>::type;

// Bytes of the table section of m = `bucket_count` buckets of b =
// `bucket_size` slots of f = `bits` bits in `encoding` (FORMAT.md §3); 0 for
// an encoding that names none (every caller checked ValidShape before).
inline uint64_t TableByteLength(TableEncoding encoding, uint64_t bucket_count,
                                uint32_t bucket_size, uint32_t bits) {
  switch (encoding) {
#define CUCKOO_TABLE_ENCODING(Name, id, Table, ...) \
    case TableEncoding::k##Name: return Table::TableBytes(bucket_count, bucket_size, bits);
#include "cuckoo/table_encodings.def"
  }
  return 0;
}

class AnyTable {
  using DefaultId = std::integral_constant<int, 0>;  // the default encoding's id

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
  // The default encoding's table, or null if the encoding is another one.
  const DefaultTable* default_table() const {
    return encoding_ == TableEncoding{} ? &At(DefaultId{}) : nullptr;
  }

  // `encoding` is one ValidShape accepted (CuckooFilter::Make's callers check
  // it), so every stored encoding_ has its case in VisitTable.
  bool Init(TableEncoding encoding, uint64_t bucket_count, uint32_t bucket_size,
            uint32_t fingerprint_bits) {
    encoding_ = encoding;
    return Visit([&](auto& t) { return t.Init(bucket_count, bucket_size, fingerprint_bits); });
  }
  TableEncoding encoding() const { return encoding_; }

 private:
  // Visit for *this, const or not: one case per encoding, each compiling f
  // once (Init stores only encodings that have one, so there is no fallback
  // to compile f for a second time).
  template <class Self, class F>
  static auto VisitTable(Self& self, F& f) -> decltype(f(self.At(DefaultId{}))) {
    switch (self.encoding_) {
#define CUCKOO_TABLE_ENCODING(Name, ...) \
      case TableEncoding::k##Name: return f(self.table_##Name);
#include "cuckoo/table_encodings.def"
    }
    __builtin_unreachable();
  }

  // One member per encoding, table_<Name>, and At(its id) for it.
  TableEncoding encoding_ = TableEncoding{};
#define CUCKOO_TABLE_ENCODING(Name, id, Table, ...)                                \
  Table table_##Name;                                                              \
  Table& At(std::integral_constant<int, id>) { return table_##Name; }             \
  const Table& At(std::integral_constant<int, id>) const { return table_##Name; }
#include "cuckoo/table_encodings.def"
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_CUCKOO_CUCKOO_TABLES_H_
