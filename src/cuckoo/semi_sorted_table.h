// SemiSortedTable: the cuckoo filter's bucket array with semi-sorted buckets
// (Fan, Andersen, Kaminsky, Mitzenmacher, "Cuckoo Filter: Practically Better
// Than Bloom", CoNEXT 2014, §5.2; the reference code's PackedTable with
// PermEncoding). Buckets have b = 4 slots of f-bit fingerprints, f in [4, 32];
// a bucket costs 4f - 4 bits instead of 4f: one bit per item saved. It has the
// public interface of PackedTable (packed_table.h), so the filter can use
// either.
//
// Encoding of one bucket. Fingerprint 0 marks an empty slot. The bucket's four
// fingerprints (empty ones as 0) are kept in ascending numeric order,
// fp0 <= fp1 <= fp2 <= fp3. With g = f - 4, fingerprint fpj is split into its
// prefix pj = fpj >> g (its top 4 bits) and its low part lj = fpj & (2^g - 1).
// Ascending fingerprints have ascending prefixes, p0 <= p1 <= p2 <= p3: a sorted
// 4-tuple of values 0..15, one of C(19, 4) = 3876. It is stored as its rank
//   index = p0 + C(p1 + 1, 2) + C(p2 + 2, 3) + C(p3 + 3, 4)   (C = binomial)
// (the colexicographic rank of the 4-subset {p0, p1+1, p2+2, p3+3} of 0..18),
// a 12-bit number in 0..3875; an empty bucket is index 0. The bucket's 4f - 4
// bits, least significant first, are then
//   bits [0, 12)               index
//   bits [12 + j*g, 12 + j*g + g)  lj, for j = 0, 1, 2, 3
// and fpj = (pj << g) | lj. For f = 4 (g = 0) a bucket is its index alone.
//
// Stream. Bucket i occupies bits [i*(4f-4), (i+1)*(4f-4)) of a little-endian
// bit stream: stream bit k is bit (k % 8) of byte k / 8, and bucket bit n is
// stream bit i*(4f-4) + n. The stream is ceil(m*(4f-4)/8) bytes for m buckets;
// the 0..7 bits after the last bucket, in the final byte, are 0. These bytes
// are exactly what is serialized; 8 zero bytes of padding follow them in
// memory only, so that any field can be read with one unaligned 64-bit load.
//
// Canonical form. Every multiset of four fingerprints has exactly one
// encoding: the index is below 3876 and, where two neighbouring prefixes are
// equal, their low parts are in ascending order (that is, fp0 <= ... <= fp3).
// The same multisets per bucket therefore give the same bytes whatever the
// order of the operations that made them. PaddingIsZero is the table's
// validity check: it refuses a stream that breaks this form (or has non-zero
// padding bits), so bytes the code could not have written never load.
// Every other method assumes a valid table: one written through this class,
// or accepted by PaddingIsZero (an index >= 3876 would be read past the end
// of the decode table).
//
// Slots. Slot j of a bucket is position j of its ascending order, so empty
// slots come first. Write(bucket, j, fp) replaces the fingerprint at position
// j and re-sorts the bucket; Swap(bucket, j, fp) does the same and returns the
// fingerprint it replaced. Positions refer to the bucket as it is when the
// call is made. So the cuckoo algorithm's eviction, which swaps its
// fingerprint into a (pseudo)random slot of a full bucket and carries the old
// one on, evicts the j-th smallest resident: as random as any slot choice, and
// determined by the bucket's contents, which are determined by its multiset.
// Read(bucket, j) followed by Write(bucket, j, fp), with no change to that
// bucket in between, replaces exactly the fingerprint that was read.
//
// Decoding goes through a 3876-entry table of 16-bit words (the four prefixes
// as nibbles, p0 lowest), built at compile time; insert and delete rank the
// prefixes with the formula above. Lookups for f = 8..15 use a second table,
// built from the first at run time once per f, that holds each index's
// prefixes already in place beside the low parts, so that a bucket is
// compared with a fingerprint as one 64-bit word (see ContainsEither); other
// widths decode the bucket.
#ifndef CUCKOO_WASM_SRC_CUCKOO_SEMI_SORTED_TABLE_H_
#define CUCKOO_WASM_SRC_CUCKOO_SEMI_SORTED_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "common/allocation.h"
#include "common/batch.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "cuckoo-wasm's semi-sorted table assumes a little-endian target (wasm32, x86-64, arm64)"
#endif

namespace cuckoo {

namespace semi_sorted {

constexpr uint32_t kSlots = 4;           // b: the only bucket size semi-sorting has
constexpr uint32_t kPrefixBits = 4;      // bits of each fingerprint in the index
constexpr uint32_t kIndexBits = 12;      // bits of the index
constexpr uint32_t kTupleCount = 3876;   // sorted 4-tuples of 0..15: C(19, 4)

// Rank of the sorted tuple p0 <= p1 <= p2 <= p3 (each 0..15): see the header
// comment. C(x, 2) = x(x-1)/2, C(x, 3) = x(x-1)(x-2)/6, C(x, 4) = x(x-1)(x-2)(x-3)/24.
constexpr uint32_t Rank(uint32_t p0, uint32_t p1, uint32_t p2, uint32_t p3) {
  const uint32_t a = p1 + 1, c = p2 + 2, d = p3 + 3;
  return p0 + a * (a - 1) / 2 + c * (c - 1) * (c - 2) / 6 + d * (d - 1) * (d - 2) * (d - 3) / 24;
}

// The four prefixes of each index as nibbles, p0 in bits 0..3 up to p3 in
// bits 12..15. Filled by its constructor when the program starts (7.6 KB of
// memory, none of the module's data: a table in the data would be 5.8 KB of
// the deflated WebAssembly module; tests/size-budget.json fails `npm test` if
// a compiler ever folds it back into data).
struct DecodeTable {
  DecodeTable() {
    for (uint32_t p3 = 0; p3 < 16; ++p3)
      for (uint32_t p2 = 0; p2 <= p3; ++p2)
        for (uint32_t p1 = 0; p1 <= p2; ++p1)
          for (uint32_t p0 = 0; p0 <= p1; ++p0)
            nibbles[Rank(p0, p1, p2, p3)] = static_cast<uint16_t>(p0 | p1 << 4 | p2 << 8 | p3 << 12);
  }
  uint16_t nibbles[kTupleCount];
};

inline const DecodeTable kDecode;

// For low parts of g bits, 4 <= g <= 11: the four prefixes of each index put
// in the bucket word where the four low parts start, p_j << (12 + j*g) (at
// most 12 + 3g + 4 <= 49 bits). Built from kDecode at run time, once per g
// per program (a function-local static: 31 KB of memory per g in use, none
// in the module's data).
struct SpreadTable {
  explicit SpreadTable(uint32_t g) {
    for (uint32_t r = 0; r < kTupleCount; ++r) {
      const uint64_t d = kDecode.nibbles[r];
      entries[r] = ((d & 0xf) | (d >> 4 & 0xf) << g | (d >> 8 & 0xf) << (2 * g) | (d >> 12) << (3 * g))
                   << kIndexBits;
    }
  }
  uint64_t entries[kTupleCount];
};

template <uint32_t kLowBits>
const uint64_t* SpreadFor() {
  static const SpreadTable table(kLowBits);
  return table.entries;
}

// The spread table for low parts of g bits, or null if g is not in [4, 11].
inline const uint64_t* Spread(uint32_t g) {
  switch (g) {
    case 4: return SpreadFor<4>();
    case 5: return SpreadFor<5>();
    case 6: return SpreadFor<6>();
    case 7: return SpreadFor<7>();
    case 8: return SpreadFor<8>();
    case 9: return SpreadFor<9>();
    case 10: return SpreadFor<10>();
    case 11: return SpreadFor<11>();
    default: return nullptr;
  }
}

}  // namespace semi_sorted

class SemiSortedTable {
 public:
  // Bytes of the bit stream for `bucket_count` buckets of f-bit fingerprints:
  // ceil(bucket_count * (4f - 4) / 8). (PackedTable::ByteLength takes a slot
  // count; here the bucket count, since a bucket is the unit of the stream.)
  static uint64_t ByteLength(uint64_t bucket_count, uint32_t fingerprint_bits) {
    return (bucket_count * (semi_sorted::kSlots * fingerprint_bits - semi_sorted::kPrefixBits) + 7) / 8;
  }
  // Bytes of the table of `bucket_count` buckets of 4 slots (table_encodings.def).
  static uint64_t TableBytes(uint64_t bucket_count, uint32_t, uint32_t fingerprint_bits) {
    return ByteLength(bucket_count, fingerprint_bits);
  }
  // A bucket is a sorted multiset: slot order is not kept (patch/patch_slots.h).
  static constexpr bool kSortedBuckets = true;

  SemiSortedTable() = default;
  SemiSortedTable(const SemiSortedTable&) = delete;
  SemiSortedTable& operator=(const SemiSortedTable&) = delete;
  SemiSortedTable(SemiSortedTable&&) = default;
  SemiSortedTable& operator=(SemiSortedTable&&) = default;

  // Allocates a zeroed (all-empty) table with internal::AllocateZeroed.
  // Returns false, allocating nothing, if bucket_size is not 4, f is not in
  // [4, 32], memory is short or the table's bytes do not fit in size_t.
  bool Init(uint64_t bucket_count, uint32_t bucket_size, uint32_t fingerprint_bits) {
    data_.reset();
    if (bucket_size != semi_sorted::kSlots || fingerprint_bits < 4 || fingerprint_bits > 32) {
      return false;
    }
    bucket_count_ = bucket_count;
    bits_ = fingerprint_bits;
    low_bits_ = fingerprint_bits - semi_sorted::kPrefixBits;
    low_mask_ = (uint64_t{1} << low_bits_) - 1;
    bucket_bits_ = semi_sorted::kSlots * fingerprint_bits - semi_sorted::kPrefixBits;
    low_ones_ = low_rest_ = low_highs_ = 0;
    // The word probe reads a whole bucket with one 64-bit load at any bit
    // offset (4f - 4 <= 57, f <= 15) and needs each prefix to fit in its low
    // part's field (g >= 4): f = 8..15.
    spread_ = semi_sorted::Spread(low_bits_);
    if (spread_ != nullptr) {
      for (uint32_t j = 0; j < semi_sorted::kSlots; ++j) {
        low_ones_ |= uint64_t{1} << (semi_sorted::kIndexBits + j * low_bits_);
      }
      low_highs_ = low_ones_ << (low_bits_ - 1);
      low_rest_ = low_highs_ - low_ones_;
    }
    byte_length_ = ByteLength(bucket_count, bits_);
    return internal::AllocatePadded(byte_length_, kPadding, &data_);
  }

  uint64_t byte_length() const { return byte_length_; }
  const uint8_t* data() const { return data_.get(); }
  uint8_t* mutable_data() { return data_.get(); }

  // The fingerprint at position `slot` (0..3) of the bucket's ascending order.
  uint32_t Read(uint64_t bucket, uint32_t slot) const {
    uint32_t fp[semi_sorted::kSlots];
    Decode(bucket, fp);
    return fp[slot];
  }

  // Replaces the fingerprint at position `slot` with `fingerprint` and
  // re-sorts the bucket.
  void Write(uint64_t bucket, uint32_t slot, uint32_t fingerprint) {
    uint32_t fp[semi_sorted::kSlots];
    Decode(bucket, fp);
    fp[slot] = fingerprint;
    SortAndEncode(bucket, fp);
  }

  bool Contains(uint64_t bucket, uint32_t fingerprint) const {
    if (spread_ != nullptr) return HasZeroField(Fields(bucket, fingerprint)) != 0;
    return CountBySlot(bucket, fingerprint) != 0;
  }

  // Contains(b1, fp) || Contains(b2, fp), without a branch between the two
  // probes for word-probed tables (as PackedTable::ContainsEither).
  bool ContainsEither(uint64_t b1, uint64_t b2, uint32_t fingerprint) const {
    if (spread_ != nullptr) {
      return (HasZeroField(Fields(b1, fingerprint)) | HasZeroField(Fields(b2, fingerprint))) != 0;
    }
    return ContainsEitherBySlot(b1, b2, fingerprint);
  }

  uint32_t Count(uint64_t bucket, uint32_t fingerprint) const {
    if (spread_ != nullptr) {
      // Exact per field: ((z & rest) + rest) | z has the top bit of each
      // field set iff the field is non-zero (no carry crosses a field).
      const uint64_t z = Fields(bucket, fingerprint);
      const uint64_t nonzero = (((z & low_rest_) + low_rest_) | z) & low_highs_;
      return semi_sorted::kSlots - static_cast<uint32_t>(__builtin_popcountll(nonzero));
    }
    return CountBySlot(bucket, fingerprint);
  }

  // Adds `fingerprint` to `bucket` if it has an empty slot; false if full.
  bool Insert(uint64_t bucket, uint32_t fingerprint) {
    uint32_t fp[semi_sorted::kSlots];
    Decode(bucket, fp);
    if (fp[0] != 0) return false;  // ascending order: an empty slot would be first
    fp[0] = fingerprint;
    SortAndEncode(bucket, fp);
    return true;
  }

  // Empties one slot of `bucket` holding `fingerprint`; false if none does.
  bool Remove(uint64_t bucket, uint32_t fingerprint) {
    uint32_t fp[semi_sorted::kSlots];
    Decode(bucket, fp);
    for (uint32_t j = 0; j < semi_sorted::kSlots; ++j) {
      if (fp[j] == fingerprint) {
        fp[j] = 0;
        SortAndEncode(bucket, fp);
        return true;
      }
    }
    return false;
  }

  // Replaces the fingerprint at position `slot` with `fingerprint`, re-sorts
  // the bucket, and returns the fingerprint replaced.
  uint32_t Swap(uint64_t bucket, uint32_t slot, uint32_t fingerprint) {
    uint32_t fp[semi_sorted::kSlots];
    Decode(bucket, fp);
    const uint32_t old = fp[slot];
    fp[slot] = fingerprint;
    SortAndEncode(bucket, fp);
    return old;
  }

  // The first byte of the 64-bit word `bucket` is read from (a batch loads
  // the word before its lookups: TouchList::AddWord).
  const uint8_t* WordAt(uint64_t bucket) const { return data_.get() + ((bucket * bucket_bits_) >> 3); }

  // Number of non-empty slots in the whole table.
  uint64_t CountOccupied() const {
    uint64_t n = 0;
    for (uint64_t i = 0; i < bucket_count_; ++i) {
      uint32_t fp[semi_sorted::kSlots];
      Decode(i, fp);
      n += (fp[0] != 0) + (fp[1] != 0) + (fp[2] != 0) + (fp[3] != 0);
    }
    return n;
  }

  // The table's validity check (the name is PackedTable's): true if the bits
  // after the last bucket, up to the end of the last byte, are 0 and every
  // bucket is in canonical form (index < 3876, fingerprints ascending), that
  // is, if these are bytes this class could have written.
  bool PaddingIsZero() const {
    const uint64_t used_bits = bucket_count_ * bucket_bits_;
    const unsigned tail = used_bits & 7;
    if (tail != 0 && (data_.get()[byte_length_ - 1] >> tail) != 0) return false;
    for (uint64_t i = 0; i < bucket_count_; ++i) {
      if ((Load(i * bucket_bits_) & kIndexMask) >= semi_sorted::kTupleCount) return false;
      uint32_t fp[semi_sorted::kSlots];
      Decode(i, fp);
      if (fp[0] > fp[1] || fp[1] > fp[2] || fp[2] > fp[3]) return false;
    }
    return true;
  }

 private:
  static constexpr size_t kPadding = 8;
  static constexpr uint64_t kIndexMask = (uint64_t{1} << semi_sorted::kIndexBits) - 1;

  // The 64 bits of the stream from bit `bit` on (at least 57 of them valid).
  uint64_t Load(uint64_t bit) const {
    uint64_t word;
    std::memcpy(&word, data_.get() + (bit >> 3), sizeof word);
    return word >> (bit & 7);
  }

  // Sets the `width` (<= 57) bits of the stream from bit `bit` on to `value`.
  void Store(uint64_t bit, uint32_t width, uint64_t value) {
    uint8_t* p = data_.get() + (bit >> 3);
    const unsigned shift = bit & 7;
    const uint64_t mask = ((uint64_t{1} << width) - 1) << shift;
    uint64_t word;
    std::memcpy(&word, p, sizeof word);
    word = (word & ~mask) | (value << shift);
    std::memcpy(p, &word, sizeof word);
  }

  // For word-probed tables (f = 8..15): the word z of `bucket` whose four
  // g-bit fields at bits 12 + j*g are (lj ^ ql) | (pj ^ qp), for the
  // fingerprint (qp, ql): field j is zero iff slot j holds the fingerprint.
  // The stored prefixes come in place from the spread table (g >= 4: a
  // prefix fits in the low bits of its field). Other bits are garbage.
  uint64_t Fields(uint64_t bucket, uint32_t fingerprint) const {
    const uint64_t word = Load(bucket * bucket_bits_);
    const uint64_t query_low = (fingerprint & low_mask_) * low_ones_;
    const uint64_t query_prefix = (fingerprint >> low_bits_) * low_ones_;
    return (word ^ query_low) | (spread_[word & kIndexMask] ^ query_prefix);
  }

  // Non-zero iff some field of z is zero: the top bit of the lowest zero
  // field is set in (z - ones) & ~z, and a borrow only ever marks fields above
  // a zero one (Hacker's Delight §6-1), so the yes/no answer is exact.
  uint64_t HasZeroField(uint64_t z) const { return (z - low_ones_) & ~z & low_highs_; }

  // The four fingerprints of `bucket`, ascending.
  void Decode(uint64_t bucket, uint32_t fp[semi_sorted::kSlots]) const {
    const uint64_t start = bucket * bucket_bits_;
    const uint32_t prefixes = semi_sorted::kDecode.nibbles[Load(start) & kIndexMask];
    const uint32_t g = low_bits_;
    // Two low parts per load: 2g <= 56 bits.
    const uint64_t first = Load(start + semi_sorted::kIndexBits);
    const uint64_t second = Load(start + semi_sorted::kIndexBits + 2 * g);
    fp[0] = ((prefixes & 0xf) << g) | static_cast<uint32_t>(first & low_mask_);
    fp[1] = ((prefixes >> 4 & 0xf) << g) | static_cast<uint32_t>((first >> g) & low_mask_);
    fp[2] = ((prefixes >> 8 & 0xf) << g) | static_cast<uint32_t>(second & low_mask_);
    fp[3] = ((prefixes >> 12) << g) | static_cast<uint32_t>((second >> g) & low_mask_);
  }

  // Sorts fp ascending and stores it as `bucket`'s canonical encoding.
  void SortAndEncode(uint64_t bucket, uint32_t fp[semi_sorted::kSlots]) {
    auto order = [](uint32_t& a, uint32_t& b) {
      const uint32_t lo = a < b ? a : b;
      b = a < b ? b : a;
      a = lo;
    };
    order(fp[0], fp[1]);
    order(fp[2], fp[3]);
    order(fp[0], fp[2]);
    order(fp[1], fp[3]);
    order(fp[1], fp[2]);
    const uint32_t g = low_bits_;
    const uint64_t index = semi_sorted::Rank(fp[0] >> g, fp[1] >> g, fp[2] >> g, fp[3] >> g);
    const uint64_t first = (fp[0] & low_mask_) | (fp[1] & low_mask_) << g;
    const uint64_t second = (fp[2] & low_mask_) | (fp[3] & low_mask_) << g;
    const uint64_t start = bucket * bucket_bits_;
    if (bucket_bits_ <= 57) {
      Store(start, bucket_bits_, index | first << semi_sorted::kIndexBits |
                                     second << (semi_sorted::kIndexBits + 2 * g));
    } else {
      Store(start, semi_sorted::kIndexBits, index);
      Store(start + semi_sorted::kIndexBits, 2 * g, first);
      Store(start + semi_sorted::kIndexBits + 2 * g, 2 * g, second);
    }
  }

  uint32_t CountBySlot(uint64_t bucket, uint32_t fingerprint) const {
    uint32_t fp[semi_sorted::kSlots];
    Decode(bucket, fp);
    return (fp[0] == fingerprint) + (fp[1] == fingerprint) + (fp[2] == fingerprint) +
           (fp[3] == fingerprint);
  }

  // ContainsEither for tables whose buckets are decoded slot by slot, kept
  // out of line so that the word path stays small enough to inline.
  __attribute__((noinline)) bool ContainsEitherBySlot(uint64_t b1, uint64_t b2,
                                                      uint32_t fingerprint) const {
    return CountBySlot(b1, fingerprint) != 0 || CountBySlot(b2, fingerprint) != 0;
  }

  std::unique_ptr<uint8_t, internal::FreeDeleter> data_;
  const uint64_t* spread_ = nullptr;  // semi_sorted::Spread(g): the word probe; or null
  uint64_t bucket_count_ = 0;
  uint64_t byte_length_ = 0;
  uint64_t low_mask_ = 0;    // 2^g - 1
  // For word-probed tables, masks of the four low parts' fields in a bucket word:
  uint64_t low_ones_ = 0;   // bit 0 of each
  uint64_t low_rest_ = 0;   // all but the top bit of each
  uint64_t low_highs_ = 0;  // the top bit of each
  uint32_t bits_ = 0;        // f
  uint32_t low_bits_ = 0;    // g = f - 4
  uint32_t bucket_bits_ = 0;  // 4f - 4
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_CUCKOO_SEMI_SORTED_TABLE_H_
