// The coder of a patch's cuckoo-table regions (docs/FORMAT.md §17.3), written
// once over the table classes (cuckoo/table_encodings.def's and ByteTable): the
// result's table as operations on the base's. An operation sits at a slot
// position p = bucket * b + slot of the base and is one of
//   clear  the base's fingerprint at p is gone;
//   set    fingerprint v is stored at p (semi-sorted: in bucket p / b);
//   move   the base's fingerprint v at p is gone from there and stored in
//          slot d of its alternate bucket Alt(p / b, v) (semi-sorted: no d).
// Moves are coded as eviction chains: a move whose destination held a
// fingerprint that moved on too is followed by that move, so a kick chain of
// L evictions is one listed operation with L links of a slot and a bit.
// Every operation reads the base's table and writes the result's: first all
// clears (a move clears its source), then all stores, so their order is only
// the coding's (positions ascending). A semi-sorted bucket is a multiset of
// fingerprints kept sorted: its clears remove a value and its stores insert
// one, so which sorted position a value takes is the table's to decide.
// Internal to the core (patch.cc). Header-only.
#ifndef CUCKOO_WASM_SRC_PATCH_PATCH_SLOTS_H_
#define CUCKOO_WASM_SRC_PATCH_PATCH_SLOTS_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "redis/byte_table.h"
#include "patch/patch_bits.h"
#include "patch/patch_layout.h"
#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace patch {

// A growable array of trivially copyable T in malloc'd memory (no operator
// new: see allocation.h); Push returns false once an allocation failed.
template <class T>
class Vec {
 public:
  Vec() = default;
  Vec(const Vec&) = delete;
  Vec& operator=(const Vec&) = delete;
  ~Vec() { std::free(data_); }
  bool Push(const T& v) {
    if (n_ == cap_) {
      const size_t cap = cap_ == 0 ? 64 : cap_ * 2;
      if (cap > SIZE_MAX / sizeof(T)) return false;
      T* grown = static_cast<T*>(std::realloc(data_, cap * sizeof(T)));
      if (grown == nullptr) return false;
      data_ = grown;
      cap_ = cap;
    }
    data_[n_++] = v;
    return true;
  }
  size_t size() const { return n_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* data() { return data_; }

 private:
  T* data_ = nullptr;
  size_t n_ = 0;
  size_t cap_ = 0;
};

// kSetAndMove: a set at the source slot of a chain's first move (where an
// insert kicked a fingerprint out), coded as one operation.
enum SlotOpKind : uint32_t { kClear = 0, kSet = 1, kMove = 2, kSetAndMove = 3 };
constexpr uint32_t kSlotOpKindBits = 2;

struct SlotOp {
  uint64_t position;  // bucket * b + slot
  uint32_t kind;
  uint32_t value;     // kSet: the fingerprint; kMove: the destination slot
  // kMove: the index in the op list of the move that continues the chain (the
  // fingerprint this one displaced from its destination), or kNoNext; and
  // whether this move continues another's chain (then it is coded there).
  size_t next;
  bool linked;
  // kMove: the fingerprint a set stores at this move's source (0: none).
  uint32_t set_value;
};
constexpr size_t kNoNext = SIZE_MAX;

// Bits of a slot index in 0..b-1 (0 for b = 1).
inline uint32_t SlotBits(uint32_t b) {
  uint32_t bits = 0;
  while ((uint32_t{1} << bits) < b) ++bits;
  return bits;
}

// A table of the region's shape holding `bytes` (null: empty); false if
// memory is short.
// A cuckoo filter's table (any of cuckoo/table_encodings.def) takes m, b and
// f; the Redis cuckoo filter's ByteTable, whose slots are bytes, m and b.
template <class Table>
inline bool InitTable(const Region& r, Table* t) {
  return t->Init(r.bucket_count, r.bucket_size, r.fingerprint_bits);
}
inline bool InitTable(const Region& r, ByteTable* t) { return t->Init(r.bucket_count, r.bucket_size); }
template <class Table>
bool LoadTable(const Region& r, const uint8_t* bytes, Table* t) {
  if (!InitTable(r, t) || t->byte_length() != r.length) return false;
  if (bytes != nullptr) std::memcpy(t->mutable_data(), bytes, static_cast<size_t>(r.length));
  return true;
}

// True for a table whose buckets are sorted multisets.
template <class Table>
inline constexpr bool kSorted = Table::kSortedBuckets;

// Sets bit i of a bitmap.
inline void Mark(uint64_t* bits, uint64_t i) { bits[i >> 6] |= uint64_t{1} << (i & 63); }
inline bool Marked(const uint64_t* bits, uint64_t i) { return (bits[i >> 6] >> (i & 63)) & 1; }

// Links moves into eviction chains: a move whose destination slot held a
// fingerprint that moved on is followed by that move (packed: the move out of
// exactly that slot; sorted: any move out of that bucket not yet linked). A
// chain is coded at its first move; the moves it links are not listed.
// The index of the first op at a position >= `position` (ops are in position order).
inline size_t FirstAtOrAfter(const Vec<SlotOp>& ops, uint64_t position) {
  size_t lo = 0, hi = ops.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (ops[mid].position < position) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

template <class Table>
void LinkChains(const Region& r, bool sorted, const Table& base, Vec<SlotOp>* ops) {
  const uint32_t b = r.bucket_size;
  for (size_t k = 0; k < ops->size(); ++k) {
    SlotOp& m = (*ops)[k];
    if (m.kind != kMove) continue;
    const uint64_t i = m.position / b;
    const uint64_t j = r.Alt(static_cast<uint32_t>(i), base.Read(i, static_cast<uint32_t>(m.position % b)));
    for (size_t x = FirstAtOrAfter(*ops, j * b); x < ops->size() && (*ops)[x].position < (j + 1) * b; ++x) {
      SlotOp& n = (*ops)[x];
      if (x == k || n.kind != kMove || n.linked) continue;
      if (!sorted && n.position != j * b + m.value) continue;
      m.next = x;
      n.linked = true;
      break;
    }
  }
  // A cycle of moves has no first move: its lowest is coded as the first, and
  // the move before it ends the chain.
  for (size_t k = 0; k < ops->size(); ++k) {
    SlotOp& m = (*ops)[k];
    if (m.kind != kMove || !m.linked) continue;
    size_t x = m.next;
    size_t steps = 0;
    while (x != kNoNext && x != k && steps++ < ops->size()) x = (*ops)[x].next;
    if (x != k) continue;
    size_t last = k;
    while ((*ops)[last].next != k) last = (*ops)[last].next;
    (*ops)[last].next = kNoNext;
    m.linked = false;
  }
  // A chain's first move takes the set at its source slot (sorted: any set
  // of its bucket), which is then not listed.
  for (size_t k = 0; k < ops->size(); ++k) {
    SlotOp& m = (*ops)[k];
    if (m.kind != kMove || m.linked) continue;
    const uint64_t from = sorted ? m.position / b * b : m.position;
    const uint64_t to = sorted ? from + b : from + 1;
    for (size_t x = FirstAtOrAfter(*ops, from); x < ops->size() && (*ops)[x].position < to; ++x) {
      SlotOp& n = (*ops)[x];
      if (n.kind != kSet || n.linked) continue;
      m.set_value = n.value;
      n.linked = true;
      break;
    }
  }
}

// The operations that turn table `base` into table `result` (same shape), in
// position order, into *ops. False if memory is short.
template <class Table>
bool DiffSlots(const Region& r, const Table& base, const Table& result, Vec<SlotOp>* ops) {
  const uint32_t b = r.bucket_size;
  const uint64_t slots = r.bucket_count * b;
  const size_t words = static_cast<size_t>((slots + 63) / 64);
  auto* removed = static_cast<uint64_t*>(std::calloc(words * 2 + 1, sizeof(uint64_t)));
  if (removed == nullptr) return false;
  uint64_t* added = removed + words;
  uint32_t was[256], now[256];
  for (uint64_t i = 0; i < r.bucket_count; ++i) {
    for (uint32_t s = 0; s < b; ++s) {
      was[s] = base.Read(i, s);
      now[s] = result.Read(i, s);
    }
    if constexpr (kSorted<Table>) {
      // Both ascending: unmatched values of either side are the changes.
      uint32_t x = 0, y = 0;
      while (x < b || y < b) {
        if (x < b && was[x] == 0) { ++x; continue; }
        if (y < b && now[y] == 0) { ++y; continue; }
        if (x < b && y < b && was[x] == now[y]) { ++x; ++y; continue; }
        if (y == b || (x < b && was[x] < now[y])) {
          Mark(removed, i * b + x++);
        } else {
          Mark(added, i * b + y++);
        }
      }
    } else {
      for (uint32_t s = 0; s < b; ++s) {
        if (was[s] == now[s]) continue;
        if (was[s] != 0) Mark(removed, i * b + s);
        if (now[s] != 0) Mark(added, i * b + s);
      }
    }
  }
  // Removals first, each a move if its fingerprint was added in its alternate
  // bucket; then the additions no move took; merged by position.
  Vec<SlotOp> gone;
  bool ok = true;
  for (uint64_t p = 0; p < slots && ok; ++p) {
    if (!Marked(removed, p)) continue;
    const uint64_t i = p / b;
    const uint32_t v = base.Read(i, static_cast<uint32_t>(p % b));
    const uint64_t j = r.Alt(static_cast<uint32_t>(i), v);
    SlotOp op{p, kClear, 0, kNoNext, false, 0};
    for (uint32_t s = 0; s < b; ++s) {
      if (Marked(added, j * b + s) && result.Read(j, s) == v) {
        added[(j * b + s) >> 6] &= ~(uint64_t{1} << ((j * b + s) & 63));
        op.kind = kMove;
        op.value = s;
        break;
      }
    }
    ok = gone.Push(op);
  }
  size_t g = 0;
  for (uint64_t p = 0; p < slots && ok; ++p) {
    if (!Marked(added, p)) continue;
    while (g < gone.size() && gone[g].position <= p && ok) ok = ops->Push(gone[g++]);
    ok = ok && ops->Push(SlotOp{p, kSet, result.Read(p / b, static_cast<uint32_t>(p % b)), kNoNext, false, 0});
  }
  while (g < gone.size() && ok) ok = ops->Push(gone[g++]);
  std::free(removed);
  if (ok) LinkChains(r, kSorted<Table>, base, ops);
  return ok;
}

// Writes ops (count, Rice parameter, then each: position gap, kind, payload);
// false if memory is short.
inline bool WriteSlotOps(const Region& r, bool sorted, Vec<SlotOp>& ops, BitWriter* w) {
  Vec<uint64_t> gaps;
  Vec<size_t> listed;
  uint64_t prev = 0;
  for (size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].linked) continue;
    if (!gaps.Push(ops[k].position - prev) || !listed.Push(k)) return false;
    prev = ops[k].position;
  }
  w->Gamma(gaps.size() + 1);
  if (gaps.size() == 0) return true;
  const uint32_t rice = BestRice(gaps.data(), gaps.size());
  w->Bits(rice, 6);
  const uint32_t slot_bits = SlotBits(r.bucket_size);
  for (size_t g = 0; g < gaps.size(); ++g) {
    const SlotOp& op = ops[listed[g]];
    w->Rice(gaps[g], rice);
    const bool set_and_move = op.kind == kMove && op.set_value != 0;
    w->Bits(set_and_move ? kSetAndMove : op.kind, kSlotOpKindBits);
    if (op.kind == kSet) w->Bits(op.value, r.fingerprint_bits);
    if (set_and_move) w->Bits(op.set_value, r.fingerprint_bits);
    if (op.kind != kMove) continue;
    // The chain: per move its destination slot (packed), a bit "continued",
    // and (sorted) the base slot of the move that continues it.
    for (const SlotOp* m = &op;; m = &ops[m->next]) {
      if (!sorted) w->Bits(m->value, slot_bits);
      w->Bits(m->next != kNoNext ? 1 : 0, 1);
      if (m->next == kNoNext) break;
      if (sorted) w->Bits(ops[m->next].position % r.bucket_size, slot_bits);
    }
  }
  return true;
}

// Stores fingerprint v at slot s of bucket i (a sorted table: anywhere in bucket i).
template <class Table>
bool Store(Table* t, uint64_t i, uint32_t s, uint32_t v) {
  if constexpr (kSorted<Table>) return t->Insert(i, v);
  t->Write(i, s, v);
  return true;
}

// Reads one region's operations from `in` and applies them to `work` (a copy
// of `base`): two passes over the same bits, clears then stores. False if
// the bits do not decode, or an operation does not fit the tables; *changes
// gets the number of operations.
template <class Table>
bool ApplySlots(const Region& r, const Table& base, Table* work, BitReader* in, uint64_t* changes) {
  const uint32_t b = r.bucket_size;
  const uint64_t slots = r.bucket_count * b;
  const uint32_t slot_bits = SlotBits(b);
  const uint64_t n = in->Gamma() - 1;
  if (!in->ok()) return false;
  if (n == 0) return true;
  const uint32_t rice = static_cast<uint32_t>(in->Bits(6));
  if (rice > kMaxRice) return false;
  const uint64_t start = in->position();
  for (int pass = 0; pass < 2; ++pass) {
    in->Seek(start);
    *changes = n;
    uint64_t p = 0;
    for (uint64_t k = 0; k < n; ++k) {
      p += in->Rice(rice);
      uint32_t kind = static_cast<uint32_t>(in->Bits(kSlotOpKindBits));
      if (!in->ok() || p >= slots) return false;
      uint64_t i = p / b;
      uint32_t s = static_cast<uint32_t>(p % b);
      if (kind == kSet || kind == kSetAndMove) {
        const uint32_t value = static_cast<uint32_t>(in->Bits(r.fingerprint_bits));
        if (!in->ok() || value == 0 || (pass == 1 && !Store(work, i, s, value))) return false;
        if (kind == kSet) continue;
        ++*changes;
        kind = kMove;
      }
      // A clear, or a chain of moves from (i, s).
      for (bool more = true; more;) {
        const uint32_t v = base.Read(i, s);
        if (v == 0) return false;
        const uint64_t j = r.Alt(static_cast<uint32_t>(i), v);
        uint32_t d = 0;
        more = false;
        if (kind == kMove) {
          if constexpr (!kSorted<Table>) d = static_cast<uint32_t>(in->Bits(slot_bits));
          more = in->Bits(1) == 1;
          if (!in->ok() || d >= b) return false;
        }
        if (pass == 0) {
          if constexpr (kSorted<Table>) {
            if (!work->Remove(i, v)) return false;
          } else {
            work->Write(i, s, 0);
          }
        } else if (kind == kMove && !Store(work, j, d, v)) {
          return false;
        }
        if (!more) break;
        // The fingerprint displaced from the destination moves on.
        ++*changes;
        i = j;
        s = d;
        if constexpr (kSorted<Table>) s = static_cast<uint32_t>(in->Bits(slot_bits));
        if (!in->ok() || s >= b) return false;
      }
    }
  }
  return true;
}

}  // namespace patch
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END

#endif  // CUCKOO_WASM_SRC_PATCH_PATCH_SLOTS_H_
