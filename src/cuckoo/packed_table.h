// PackedTable: the cuckoo filter's bucket array, bit-packed so that a bucket of
// b slots of f-bit fingerprints costs exactly b*f bits (Fan et al. 2014, §3;
// the reference code's singletable.h, generalised to any f in [4, 32]).
//
// Slot s (bucket * b + slot-in-bucket) occupies bits [s*f, s*f + f) of a
// little-endian bit stream: bit k is bit (k % 8) of byte k / 8. A fingerprint
// of 0 marks an empty slot. The stream's bytes are exactly the "table" section
// of the serialized format (docs/FORMAT.md); 8 zero bytes of padding follow it
// in memory only, so every slot can be read with one unaligned 64-bit load.
#ifndef CUCKOO_WASM_SRC_CUCKOO_PACKED_TABLE_H_
#define CUCKOO_WASM_SRC_CUCKOO_PACKED_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "common/allocation.h"
#include "common/batch.h"
#include "common/slot_ops.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "cuckoo-wasm's packed table assumes a little-endian target (wasm32, x86-64, arm64)"
#endif

namespace cuckoo {

class PackedTable : public SlotOps<PackedTable> {
 public:
  // Bytes of the bit stream for `slots` slots of `bits` bits: ceil(slots*bits/8).
  static uint64_t ByteLength(uint64_t slots, uint32_t bits) {
    return (slots * bits + 7) / 8;
  }
  // Bytes of the table of `bucket_count` buckets of `bucket_size` slots (table_encodings.def).
  static uint64_t TableBytes(uint64_t bucket_count, uint32_t bucket_size, uint32_t bits) {
    return ByteLength(bucket_count * bucket_size, bits);
  }
  // A bucket's slots keep the order they were written in (patch/patch_slots.h).
  static constexpr bool kSortedBuckets = false;

  PackedTable() = default;
  PackedTable(const PackedTable&) = delete;
  PackedTable& operator=(const PackedTable&) = delete;
  PackedTable(PackedTable&&) = default;
  PackedTable& operator=(PackedTable&&) = default;

  // Allocates a zeroed (all-empty) table with internal::AllocateZeroed.
  // Returns false, allocating nothing, if memory is short or the table's bytes
  // do not fit in size_t (wasm32: a table of 4 GiB or more).
  bool Init(uint64_t bucket_count, uint32_t bucket_size, uint32_t fingerprint_bits) {
    bucket_count_ = bucket_count;
    bucket_size_ = bucket_size;
    bits_ = fingerprint_bits;
    mask_ = (uint64_t{1} << bits_) - 1;
    bucket_bits_ = bucket_size * fingerprint_bits;
    // A bucket whose b*f bits fit in one 64-bit load at any bit offset (0..7)
    // is probed as one word: b = 4 with f <= 14, b = 2 with f <= 28, b = 8 with f <= 7.
    word_probe_ = bucket_bits_ <= 64 - 7;
    ones_ = highs_ = bucket_mask_ = 0;
    slot_reciprocal_ = (65536 + bits_ - 1) / bits_;
    if (word_probe_) {
      for (uint32_t s = 0; s < bucket_size; ++s) ones_ |= uint64_t{1} << (s * bits_);
      highs_ = ones_ << (bits_ - 1);
      bucket_mask_ = (uint64_t{1} << bucket_bits_) - 1;
    }
    byte_length_ = ByteLength(bucket_count * bucket_size, bits_);
    return internal::AllocatePadded(byte_length_, kPadding, &data_);
  }

  uint32_t bucket_size() const { return bucket_size_; }
  uint64_t byte_length() const { return byte_length_; }
  const uint8_t* data() const { return data_.get(); }
  uint8_t* mutable_data() { return data_.get(); }

  uint32_t Read(uint64_t bucket, uint32_t slot) const {
    const uint64_t bit = (bucket * bucket_size_ + slot) * bits_;
    uint64_t word;
    std::memcpy(&word, data_.get() + (bit >> 3), sizeof word);
    return static_cast<uint32_t>((word >> (bit & 7)) & mask_);
  }

  void Write(uint64_t bucket, uint32_t slot, uint32_t fingerprint) {
    const uint64_t bit = (bucket * bucket_size_ + slot) * bits_;
    uint8_t* p = data_.get() + (bit >> 3);
    const unsigned shift = bit & 7;
    uint64_t word;
    std::memcpy(&word, p, sizeof word);
    word = (word & ~(mask_ << shift)) | (static_cast<uint64_t>(fingerprint) << shift);
    std::memcpy(p, &word, sizeof word);
  }

  // Contains(b1, fp) || Contains(b2, fp), without a branch between the two
  // probes when buckets are read as words: a member is in either bucket at
  // random, so that branch would be mispredicted half the time, and the
  // second bucket's cache miss would wait for it.
  bool ContainsEither(uint64_t b1, uint64_t b2, uint32_t fingerprint) const {
    if (word_probe_) return (MatchMask(b1, fingerprint) | MatchMask(b2, fingerprint)) != 0;
    return ContainsEitherBySlot(b1, b2, fingerprint);
  }

  // The first byte of the 64-bit word `bucket` is read from (a batch loads
  // the word before its lookups: TouchList::AddWord).
  const uint8_t* WordAt(uint64_t bucket) const { return data_.get() + ((bucket * bucket_bits_) >> 3); }

  // Number of non-empty slots in the whole table.
  uint64_t CountOccupied() const {
    uint64_t n = 0;
    if (word_probe_) {
      // Per slot, ((x & low) + low) | x has the slot's top bit set iff the
      // slot is non-zero; no carry crosses a slot (2 * (2^(f-1) - 1) < 2^f).
      const uint64_t low = highs_ - ones_;
      for (uint64_t i = 0; i < bucket_count_; ++i) {
        const uint64_t x = BucketWord(i);
        n += static_cast<uint64_t>(__builtin_popcountll((((x & low) + low) | x) & highs_));
      }
      return n;
    }
    for (uint64_t i = 0; i < bucket_count_; ++i) {
      for (uint32_t s = 0; s < bucket_size_; ++s) n += Read(i, s) != 0;
    }
    return n;
  }

  // True if the bits after the last slot, up to the end of the last byte, are 0.
  bool PaddingIsZero() const {
    const uint64_t used_bits = bucket_count_ * bucket_size_ * bits_;
    const unsigned tail = used_bits & 7;
    if (tail == 0) return true;
    return (data_.get()[byte_length_ - 1] >> tail) == 0;
  }

 private:
  friend class SlotOps<PackedTable>;
  static constexpr size_t kPadding = 8;

  // For word_probe_ tables: bit f-1 of each slot of `bucket` that holds
  // `value`, and possibly of slots above a match (never below the first one).
  // The "has zero field" test on x = bucket ^ broadcast(value): subtracting
  // 1 from every field borrows out of a field only if it is 0 (Hacker's
  // Delight §6-1, for f-bit fields), so the lowest set bit is exact.
  uint64_t MatchMask(uint64_t bucket, uint32_t value) const {
    const uint64_t x = BucketWord(bucket) ^ (value * ones_);
    return (x - ones_) & ~x & highs_;
  }

  // For word_probe_ tables: the b*f bits of `bucket`, slot 0 lowest.
  uint64_t BucketWord(uint64_t bucket) const {
    const uint64_t bit = bucket * bucket_bits_;
    uint64_t word;
    std::memcpy(&word, data_.get() + (bit >> 3), sizeof word);
    return (word >> (bit & 7)) & bucket_mask_;
  }

  // ContainsEither for tables whose buckets are read slot by slot. Kept out of
  // line, so that ContainsEither's word path is small enough to be inlined
  // into every lookup.
  __attribute__((noinline)) bool ContainsEitherBySlot(uint64_t b1, uint64_t b2,
                                                      uint32_t fingerprint) const {
    return Contains(b1, fingerprint) || Contains(b2, fingerprint);
  }

  // Index of the first slot of `bucket` holding `value`, or -1.
  int FirstSlotHolding(uint64_t bucket, uint32_t value) const {
    if (word_probe_) {
      const uint64_t m = MatchMask(bucket, value);
      if (m == 0) return -1;
      // The lowest set bit is bit f-1 of the slot: slot = bit / f, by a
      // multiply (exact for bit < 64 and f <= 32) instead of a division.
      return static_cast<int>((static_cast<uint32_t>(__builtin_ctzll(m)) * slot_reciprocal_) >> 16);
    }
    for (uint32_t s = 0; s < bucket_size_; ++s) {
      if (Read(bucket, s) == value) return static_cast<int>(s);
    }
    return -1;
  }

  std::unique_ptr<uint8_t, internal::FreeDeleter> data_;
  uint64_t bucket_count_ = 0;
  uint64_t byte_length_ = 0;
  uint64_t mask_ = 0;
  uint64_t ones_ = 0;         // bit 0 of every slot of a bucket
  uint64_t highs_ = 0;        // bit f-1 of every slot of a bucket
  uint64_t bucket_mask_ = 0;  // the low b*f bits
  uint32_t bucket_size_ = 0;
  uint32_t bits_ = 0;
  uint32_t bucket_bits_ = 0;  // b*f
  uint32_t slot_reciprocal_ = 0;  // ceil(2^16 / f)
  bool word_probe_ = false;
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_CUCKOO_PACKED_TABLE_H_
