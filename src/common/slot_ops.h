// SlotOps<Table>: what a bucket table of addressable slots does the same way
// whatever its encoding (a part of cuckoo_core.h's Table policy): Contains,
// Count, Insert (the first empty slot), Remove (the first matching slot) and
// Swap, over the table's own Read, Write and FirstSlotHolding(bucket, value)
// (the index of the first slot of `bucket` holding `value`, or -1). Table
// derives from SlotOps<Table> (CRTP), so every call compiles into the table's
// own code. PackedTable and ByteTable use it; SemiSortedTable, whose buckets
// are kept sorted, has its own. Header-only.
#ifndef CUCKOO_WASM_SRC_COMMON_SLOT_OPS_H_
#define CUCKOO_WASM_SRC_COMMON_SLOT_OPS_H_

#include <cstdint>

namespace cuckoo {

template <class Table>
class SlotOps {
 public:
  bool Contains(uint64_t bucket, uint32_t fingerprint) const {
    return self().FirstSlotHolding(bucket, fingerprint) >= 0;
  }
  // Slots of `bucket` holding `fingerprint`.
  uint32_t Count(uint64_t bucket, uint32_t fingerprint) const {
    uint32_t n = 0;
    for (uint32_t s = 0; s < self().bucket_size(); ++s) n += self().Read(bucket, s) == fingerprint;
    return n;
  }
  // Puts `fingerprint` in the first empty slot of `bucket`; false if full.
  bool Insert(uint64_t bucket, uint32_t fingerprint) {
    const int s = self().FirstSlotHolding(bucket, 0);
    if (s < 0) return false;
    self().Write(bucket, static_cast<uint32_t>(s), fingerprint);
    return true;
  }
  // Empties the first slot of `bucket` holding `fingerprint`; false if none does.
  bool Remove(uint64_t bucket, uint32_t fingerprint) {
    const int s = self().FirstSlotHolding(bucket, fingerprint);
    if (s < 0) return false;
    self().Write(bucket, static_cast<uint32_t>(s), 0);
    return true;
  }
  // Stores `fingerprint` in `slot` of `bucket` and returns what was there.
  uint32_t Swap(uint64_t bucket, uint32_t slot, uint32_t fingerprint) {
    const uint32_t old = self().Read(bucket, slot);
    self().Write(bucket, slot, fingerprint);
    return old;
  }

 private:
  const Table& self() const { return static_cast<const Table&>(*this); }
  Table& self() { return static_cast<Table&>(*this); }
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_COMMON_SLOT_OPS_H_
