// ByteTable: a cuckoo bucket table of one byte per slot, for any bucket size b
// in 1..255 (a Table policy of cuckoo_core.h, as far as an algorithm without
// a stash needs it). Slot s of bucket i is byte i*b + s; 0 marks an empty
// slot. This is RedisBloom's cuckoo table as CF.SCANDUMP returns it
// (docs/FORMAT.md, Redis cuckoo filter): the bytes are the table chunk, byte
// for byte. Insert takes the first empty slot of a bucket, Remove empties the
// first slot holding the fingerprint, as the server does. Header-only.
#ifndef CUCKOO_WASM_SRC_REDIS_BYTE_TABLE_H_
#define CUCKOO_WASM_SRC_REDIS_BYTE_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "common/allocation.h"
#include "common/slot_ops.h"

namespace cuckoo {

class ByteTable : public SlotOps<ByteTable> {
 public:
  // A bucket's slots keep the order they were written in (patch/patch_slots.h).
  static constexpr bool kSortedBuckets = false;

  ByteTable() = default;
  ByteTable(const ByteTable&) = delete;
  ByteTable& operator=(const ByteTable&) = delete;

  // Allocates a zeroed (all-empty) table of `bucket_count` buckets of
  // `bucket_size` one-byte slots with internal::AllocateZeroed. False,
  // allocating nothing, if memory is short or the bytes do not fit in size_t.
  bool Init(uint64_t bucket_count, uint32_t bucket_size) {
    bucket_count_ = bucket_count;
    bucket_size_ = bucket_size;
    byte_length_ = bucket_count * bucket_size;
    return internal::AllocatePadded(byte_length_, 0, &data_);
  }

  uint64_t bucket_count() const { return bucket_count_; }
  uint32_t bucket_size() const { return bucket_size_; }
  uint64_t byte_length() const { return byte_length_; }
  const uint8_t* data() const { return data_.get(); }
  uint8_t* mutable_data() { return data_.get(); }

  uint32_t Read(uint64_t bucket, uint32_t slot) const { return Bucket(bucket)[slot]; }
  // The first byte of a bucket (a batch loads it before its lookups).
  const uint8_t* BucketAt(uint64_t bucket) const { return Bucket(bucket); }
  void Write(uint64_t bucket, uint32_t slot, uint32_t fingerprint) {
    Bucket(bucket)[slot] = static_cast<uint8_t>(fingerprint);
  }

  // Every slot of both buckets compared, with no branch on what they hold:
  // a batch's lookups overlap their loads (common/batch.h).
  bool ContainsEither(uint64_t b1, uint64_t b2, uint32_t fingerprint) const {
    const uint8_t* x = Bucket(b1);
    const uint8_t* y = Bucket(b2);
    const uint8_t fp = static_cast<uint8_t>(fingerprint);
    bool hit = false;
    for (uint32_t s = 0; s < bucket_size_; ++s) hit |= (x[s] == fp) | (y[s] == fp);
    return hit;
  }

  // Number of non-zero slots in the whole table.
  uint64_t CountOccupied() const {
    uint64_t n = 0;
    const uint8_t* p = data_.get();
    for (uint64_t i = 0; i < byte_length_; ++i) n += p[i] != 0;
    return n;
  }
  // A byte table has no padding.
  bool PaddingIsZero() const { return true; }

 private:
  friend class SlotOps<ByteTable>;
  const uint8_t* Bucket(uint64_t bucket) const { return data_.get() + bucket * bucket_size_; }
  uint8_t* Bucket(uint64_t bucket) { return data_.get() + bucket * bucket_size_; }
  int FirstSlotHolding(uint64_t bucket, uint32_t value) const {
    const void* hit = std::memchr(Bucket(bucket), static_cast<int>(value), bucket_size_);
    if (hit == nullptr) return -1;
    return static_cast<int>(static_cast<const uint8_t*>(hit) - Bucket(bucket));
  }

  std::unique_ptr<uint8_t, internal::FreeDeleter> data_;
  uint64_t bucket_count_ = 0;
  uint64_t byte_length_ = 0;
  uint32_t bucket_size_ = 0;
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_REDIS_BYTE_TABLE_H_
