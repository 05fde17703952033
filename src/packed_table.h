// PackedTable: the cuckoo filter's bucket array, bit-packed so that a bucket of
// b slots of f-bit fingerprints costs exactly b*f bits (Fan et al. 2014, §3;
// the reference code's singletable.h, generalised to any f in [4, 32]).
//
// Slot s (bucket * b + slot-in-bucket) occupies bits [s*f, s*f + f) of a
// little-endian bit stream: bit k is bit (k % 8) of byte k / 8. A fingerprint
// of 0 marks an empty slot. The stream's bytes are exactly the "table" section
// of the serialized format (docs/FORMAT.md); 8 zero bytes of padding follow it
// in memory only, so every slot can be read with one unaligned 64-bit load.
#ifndef CUCKOO_WASM_SRC_PACKED_TABLE_H_
#define CUCKOO_WASM_SRC_PACKED_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "cuckoo-wasm's packed table assumes a little-endian target (wasm32, x86-64, arm64)"
#endif

namespace cuckoo {

class PackedTable {
 public:
  // Bytes of the bit stream for `slots` slots of `bits` bits: ceil(slots*bits/8).
  static uint64_t ByteLength(uint64_t slots, uint32_t bits) {
    return (slots * bits + 7) / 8;
  }

  PackedTable() = default;
  PackedTable(const PackedTable&) = delete;
  PackedTable& operator=(const PackedTable&) = delete;
  PackedTable(PackedTable&&) = default;
  PackedTable& operator=(PackedTable&&) = default;

  // Allocates a zeroed (all-empty) table. Returns false if memory is short.
  bool Init(uint64_t bucket_count, uint32_t bucket_size, uint32_t fingerprint_bits) {
    bucket_count_ = bucket_count;
    bucket_size_ = bucket_size;
    bits_ = fingerprint_bits;
    mask_ = (uint64_t{1} << bits_) - 1;
    byte_length_ = ByteLength(bucket_count * bucket_size, bits_);
    data_.reset(new (std::nothrow) uint8_t[byte_length_ + kPadding]());
    return data_ != nullptr;
  }

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

  bool Contains(uint64_t bucket, uint32_t fingerprint) const {
    for (uint32_t s = 0; s < bucket_size_; ++s) {
      if (Read(bucket, s) == fingerprint) return true;
    }
    return false;
  }

  uint32_t Count(uint64_t bucket, uint32_t fingerprint) const {
    uint32_t n = 0;
    for (uint32_t s = 0; s < bucket_size_; ++s) n += Read(bucket, s) == fingerprint;
    return n;
  }

  // Puts `fingerprint` in the first empty slot of `bucket`; false if full.
  bool Insert(uint64_t bucket, uint32_t fingerprint) {
    for (uint32_t s = 0; s < bucket_size_; ++s) {
      if (Read(bucket, s) == 0) {
        Write(bucket, s, fingerprint);
        return true;
      }
    }
    return false;
  }

  // Empties one slot of `bucket` holding `fingerprint`; false if none does.
  bool Remove(uint64_t bucket, uint32_t fingerprint) {
    for (uint32_t s = 0; s < bucket_size_; ++s) {
      if (Read(bucket, s) == fingerprint) {
        Write(bucket, s, 0);
        return true;
      }
    }
    return false;
  }

  // Stores `fingerprint` in `slot` of `bucket` and returns what was there.
  uint32_t Swap(uint64_t bucket, uint32_t slot, uint32_t fingerprint) {
    const uint32_t old = Read(bucket, slot);
    Write(bucket, slot, fingerprint);
    return old;
  }

  // Number of non-empty slots in the whole table.
  uint64_t CountOccupied() const {
    uint64_t n = 0;
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
    return (data_[byte_length_ - 1] >> tail) == 0;
  }

 private:
  static constexpr size_t kPadding = 8;

  std::unique_ptr<uint8_t[]> data_;
  uint64_t bucket_count_ = 0;
  uint64_t byte_length_ = 0;
  uint64_t mask_ = 0;
  uint32_t bucket_size_ = 0;
  uint32_t bits_ = 0;
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_PACKED_TABLE_H_
