// RedisBloom's scalable Bloom filter (the BF.* commands of Redis 8 and of
// RedisBloom before it), byte-compatible with the server's BF.SCANDUMP /
// BF.LOADCHUNK chunks, as a family of the growth layer (growing_filter.h).
// Implemented from the description of the fixtures recorded from a real server
// (../shared/redis/README.md; docs/FORMAT.md, "Redis Bloom filter (family
// 4)"), not from RedisBloom's code.
//
// The filter is a chain of links (sub-filters); link j is a Bloom filter for
// `entries` items at `error`:
//   bpe    = -ln(error) / 0.480453013918201          (ln 2 squared, truncated as the server has it)
//   bits   = floor(entries * bpe), rounded up to a multiple of 64;  bytes = bits / 8
//   hashes = ceil(0.693147180559945 * bpe)
// Link 0 has BF.RESERVE's capacity and error / 2 (error itself for a
// NONSCALING filter); link j + 1 has entries * growth and error / 2 of link j.
// A key's bits: a = MurmurHash64A(key, 0xc6a4a7935bd1e995),
// b = MurmurHash64A(key, a), bit i at (a + i*b mod 2^64) mod bits for
// i < hashes; bit x is bit (x & 7) of byte x >> 3 (RedisBloomPositions).
//
// BF.ADD (AddUnique, and Add): a key the chain already holds (false positives
// included) changes nothing and is not counted; otherwise, when the newest
// link's size has reached its entries, a new link is added (NONSCALING:
// kNotEnoughSpace, "non scaling filter is full"), then the key's bits are set
// in the newest link and its size and the total go up by one.
//
// The chain's bound. The server has none; here a chain holds at most 255
// links (format::kMaxSubFilters, the file's count byte) and 1 GiB in all
// (kMaxFilterBytes), and a link whose error would underflow to 0 is not made:
// an add that needs more is refused with kGrowthLimit, nothing changed. With
// an expansion of 2 or more the bytes bind first (a chain of capacity 1
// doubles past 1 GiB at 27 links, error 0.01); with EXPANSION 1 the links grow
// only by their bits per entry, so 255 links of capacity 100,000 at error
// 0.01 take about 619 MB, and a small filter reaches 255 links first
// (capacity 50: 12,750 items in 317 KB).
//
// Not thread-safe; non-copyable; every block from internal::AllocateZeroed.
#ifndef CUCKOO_WASM_SRC_REDIS_REDIS_BLOOM_H_
#define CUCKOO_WASM_SRC_REDIS_REDIS_BLOOM_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/allocation.h"
#include "format/format.h"
#include "redis/redis_bloom_format.h"
#include "growth/growing_filter.h"
#include "common/murmur_hash.h"
#include "redis/redis_dump.h"
#include "status.h"

namespace cuckoo {

// BF.RESERVE's arguments.
struct RedisBloomParams {
  double error_rate = 0.01;  // in (0, 1), Redis 8's documented range
  uint64_t capacity = 100;   // 1 .. 2^30
  uint32_t expansion = 2;    // 1 .. 32768 (0: NONSCALING, stored as growth 0)
  bool non_scaling = false;  // NONSCALING; expansion must then be 2 (the default) or 0

  // Each field create() takes, by its name there (bindings/embind.cc).
  template <typename Visit>
  void Fields(Visit&& visit) {
    visit("errorRate", error_rate);
    visit("capacity", capacity);
    visit("expansion", expansion);
    visit("nonScaling", non_scaling);
  }
};

constexpr uint64_t kRedisBloomMaxCapacity = uint64_t{1} << 30;
constexpr uint32_t kRedisBloomMaxExpansion = 32768;
// SCANDUMP header: u64 total, u32 links, u32 options, u32 growth; 53 bytes a link.
// (redis_bloom_format.h: RedisBloomDumpHeader, RedisBloomDumpLink).
constexpr uint64_t kRedisBloomHeaderBytes = format::kRedisBloomDumpHeaderBytes;
constexpr uint64_t kRedisBloomLinkHeaderBytes = format::kRedisBloomDumpLinkBytes;
// The options word: FORCE64 | NOROUND for every filter, | NO_SCALING (8).
constexpr uint32_t kRedisBloomOptions = 5;
constexpr uint32_t kRedisBloomOptionsNonScaling = 13;

// A key's two 64-bit hashes.
struct RedisBloomHash {
  uint64_t a = 0;
  uint64_t b = 0;
};

inline RedisBloomHash RedisBloomHashKey(const uint8_t* key, size_t len) {
  RedisBloomHash h;
  h.a = MurmurHash64A(key, len, 0xc6a4a7935bd1e995ULL);
  h.b = MurmurHash64A(key, len, h.a);
  return h;
}

// The position policy (the shape of bloom_filter.cc's: x is position 0,
// Next(i) makes position i + 1 current): x_i = (a + i*b mod 2^64) mod bits.
struct RedisBloomPositions {
  RedisBloomPositions(const RedisBloomHash& h, uint64_t m)
      : x(h.a % m), sum(h.a), step(h.b), m(m) {}
  void Next(uint32_t) {
    sum += step;  // wraps mod 2^64, as the server's u64 arithmetic does
    x = sum % m;
  }
  uint64_t x;
  uint64_t sum;
  const uint64_t step;
  const uint64_t m;
};

// One link's numbers: its header in the SCANDUMP header chunk, less n2.
struct RedisBloomLinkShape {
  uint64_t entries = 0;
  double error = 0;
  double bpe = 0;
  uint32_t hashes = 0;
  uint64_t bits = 0;
  uint64_t bytes = 0;

  // The server's sizing for `entries` items at `error` (false if error is
  // not in (0, 1), entries is 0, or bits would be 0 or past 2^63).
  static bool For(uint64_t entries, double error, RedisBloomLinkShape* out);
  // Whether these numbers are the server's for their entries and error:
  // hashes == ceil(0.693147180559945 * bpe), bits == bytes * 8 and a multiple
  // of 64, bits == floor(entries * bpe) rounded up to 64, and bpe within a
  // relative 1e-12 of -ln(error) / ln2² (so a libm 1 ulp from the server's
  // still reads the server's bytes).
  bool Consistent() const;
};

// A link of the chain: the growth layer's sub-filter.
class RedisBloomLink {
 public:
  // A zeroed link of this shape; kOutOfMemory if it cannot be allocated.
  static Status Create(const RedisBloomLinkShape& shape, std::unique_ptr<RedisBloomLink>* out);

  RedisBloomLink(const RedisBloomLink&) = delete;
  RedisBloomLink& operator=(const RedisBloomLink&) = delete;
  static void* operator new(size_t) = delete;
  static void* operator new[](size_t) = delete;
  static void operator delete(void* p) { internal::Deallocate(p); }
  ~RedisBloomLink() { internal::Deallocate(data_); }

  // Sets the key's bits and counts it; kNotEnoughSpace (nothing changed) if
  // size() has reached entries.
  Status AddHash(const RedisBloomHash& h);
  bool ContainHash(const RedisBloomHash& h) const;
  // Contain of each key, for a filter of this one link while it is small
  // enough for the caches (batch.h's layout; GrowingFilter::ContainBatch).
  void ContainBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, uint8_t* results) const;
  // out[i] = ContainHash(hashes[i]) for m <= kLookupGroup keys, their bits
  // tested a pair at a time for all of them (batch.h TestPairsGrouped).
  __attribute__((noinline)) void ContainHashes(const RedisBloomHash* hashes, size_t m,
                                               uint8_t* out) const;

  const RedisBloomLinkShape& shape() const { return shape_; }
  uint64_t entries() const { return shape_.entries; }
  double error() const { return shape_.error; }
  double bpe() const { return shape_.bpe; }
  uint32_t hashes() const { return shape_.hashes; }
  uint64_t bits() const { return shape_.bits; }
  uint64_t bytes() const { return shape_.bytes; }
  uint64_t size() const { return size_; }  // items added to this link
  uint64_t seed() const { return 0; }      // the hash seeds are fixed (RedisBloomHashKey)
  // The filter's growth as SCANDUMP stores it (every link holds it, for the
  // own format's sections).
  uint32_t growth() const { return growth_; }
  const uint8_t* data() const { return data_; }
  uint8_t* mutable_data() { return data_; }
  void set_size(uint64_t size) { size_ = size; }
  void set_growth(uint32_t growth) { growth_ = growth; }

 private:
  RedisBloomLink() = default;
  RedisBloomLinkShape shape_;
  uint64_t size_ = 0;
  uint32_t growth_ = 0;
  uint8_t* data_ = nullptr;  // bytes(), from internal::AllocateZeroed
};

// The family of the growth layer (growing_filter.h documents each member).
struct RedisBloomFamily : GrowthPolicy {
  using Sub = RedisBloomLink;
  using Hashed = RedisBloomHash;
  // The server has no limit on links; here the file's count byte and
  // kMaxFilterBytes are one (redis_bloom.h's header says which binds first).
  static constexpr uint32_t kMaxSubFilters = format::kMaxSubFilters;
  static RedisBloomHash Hash(const uint8_t* key, size_t len, uint64_t) {
    return RedisBloomHashKey(key, len);
  }
  class Walk {
   public:
    Walk(const RedisBloomLink&, const RedisBloomHash& hash, uint32_t) : hash_(hash) {}
    const RedisBloomHash& key() const { return hash_; }
    void Next() {}

   private:
    RedisBloomHash hash_;
  };
  static Status AddKey(RedisBloomLink& link, const RedisBloomHash& h) { return link.AddHash(h); }
  static bool ContainKey(const RedisBloomLink& link, const RedisBloomHash& h) {
    return link.ContainHash(h);
  }
  static void ContainGroup(const RedisBloomLink& link, const RedisBloomHash* h, size_t m,
                           uint8_t* out) {
    link.ContainHashes(h, m, out);
  }
  // A new link when the newest holds its entries.
  static bool FullBeforeAdd(const RedisBloomLink& newest) {
    return newest.size() >= newest.entries();
  }
  static bool GrowthHelps(const RedisBloomLink&, const RedisBloomHash&) { return true; }
  // entries * expansion at error / 2 of the newest link; kGrowthLimit past
  // 2^63 bits or kMaxFilterBytes in all.
  static Status MakeNext(const RedisBloomLink& first, const RedisBloomLink& newest, uint32_t level,
                         uint32_t expansion, uint64_t bytes_now,
                         std::unique_ptr<RedisBloomLink>* next);
  static constexpr uint8_t kType = format::kTypeRedisBloom;
  static constexpr bool kPlainWhenFixed = false;
  static uint8_t Encoding(const RedisBloomLink&) { return 0; }
  static uint8_t Scheme(const RedisBloomLink&) { return format::kSchemeRedisBloom; }
  static bool Writable(uint16_t, const RedisBloomLink&, uint32_t) {
    return false;
  }  // version 4 only
  static uint64_t SectionBytes(const RedisBloomLink& link) {
    return format::RedisBloomSectionBytes(link.bytes());
  }
  static void WriteSection(const RedisBloomLink& link, uint8_t* out);
  static Status LoadPlain(const uint8_t*, size_t, std::unique_ptr<RedisBloomLink>*) {
    return Status::kFormatWrongFamily;
  }
  static Status LoadSection(const uint8_t* data, size_t len, const format::StackHeader& h,
                            uint32_t j, const RedisBloomLink* prev, const RedisBloomLink* first,
                            std::unique_ptr<RedisBloomLink>* out);
};

class RedisBloomFilter final : public GrowingFilter<RedisBloomFilter, RedisBloomFamily> {
 public:
  using Params = RedisBloomParams;
  // BF.RESERVE: kInvalidArgument if error_rate is not in (0, 1) (or not
  // finite), capacity not in 1..2^30, expansion above 32768, non_scaling with
  // an expansion other than 2 or 0 ("Nonscaling filters cannot expand"), or
  // link 0 would have 0 bits or more than kMaxFilterBytes; kOutOfMemory.
  // expansion 0 makes a NONSCALING filter that stores growth 0.
  static Status Create(const RedisBloomParams& params, std::unique_ptr<RedisBloomFilter>* out);

  // BF.ADD: *added = true if the key was new and went in; false (kOk) if the
  // chain already held it (nothing changes). kNotEnoughSpace: a NONSCALING
  // filter is full; kGrowthLimit / kOutOfMemory: a new link was refused
  // (format::kMaxSubFilters links, kMaxFilterBytes); nothing changed.
  Status AddUnique(const uint8_t* key, size_t len, bool* added);
  // BF.ADD without its answer: kOk whether the key was new or not.
  Status Add(const uint8_t* key, size_t len) {
    bool added = false;
    return AddUnique(key, len, &added);
  }
  // Add over keys packed as batch.h describes (BF.MADD / BF.INSERT): stops at
  // the first key refused, returns how many were accepted (new or not).
  size_t AddBatch(const uint8_t* keys, const uint32_t* offsets, size_t n, Status* status,
                  bool /*continues*/ = false) {
    return AddEach(keys, offsets, n, status,
                   [this](const uint8_t* key, size_t len) { return Add(key, len); });
  }

  // BF.INFO: Capacity (sum of entries), Size (sum of bytes + 32 + 64 per link).
  uint64_t capacity() const {
    return Sum([](const RedisBloomLink& l) { return l.entries(); });
  }
  uint64_t redis_size() const;
  // Growth as stored in the dump (BF.INFO's Expansion rate unless NONSCALING).
  uint32_t growth() const { return subs_[0]->growth(); }
  bool non_scaling() const { return expansion_ == 0; }
  // The rate BF.RESERVE was given: link 0's error, times 2 when scaling.
  double error_rate() const { return non_scaling() ? subs_[0]->error() : subs_[0]->error() * 2; }
  const RedisBloomLink& link(uint32_t j) const { return *subs_[j]; }

  // BF.SCANDUMP, as the server returns it: chunk 0 is the header (iterator 1,
  // DumpHeaderBytes() bytes written to header_out); chunks 1.. are the links'
  // bit arrays in order, cut as redis_dump.h's RedisChunkPlan says, each a
  // view of this filter (valid until it changes). An empty filter dumps its
  // header and zeroed arrays like any other (what the server does is not
  // pinned by a fixture).
  uint32_t DumpChunkCount() const;
  uint64_t DumpHeaderBytes() const {
    return kRedisBloomHeaderBytes + kRedisBloomLinkHeaderBytes * count_;
  }
  RedisChunk DumpChunk(uint32_t j, uint8_t* header_out) const;

  // BF.LOADCHUNK, in order. LoadDumpHeader validates the whole header before
  // it allocates anything: iterator 1 (else kFormatBadChunk); length 20 +
  // 53 * links (kFormatTruncated / kFormatTrailingBytes); options 5 or 13, 1
  // to format::kMaxSubFilters (255) links (one if NONSCALING), growth 1..32768 when
  // scaling, every link's numbers the server's (RedisBloomLinkShape::
  // Consistent), n2 0, size <= entries, each link entries * growth and
  // error / 2 of the one before, kMaxFilterBytes in all (kFormatBadParameter);
  // total == the sum of the links' sizes (kFormatCountMismatch).
  // LoadDumpChunk: iterator 1 + bytes so far + len, within one link, not
  // empty, not past the last (kFormatBadChunk). FinishDump: every byte loaded
  // (kFormatBadChunk). A filter whose FinishDump has not returned kOk must
  // not be used; the caller destroys it on any error.
  static Status LoadDumpHeader(uint64_t iterator, const uint8_t* data, size_t len,
                               std::unique_ptr<RedisBloomFilter>* out);
  Status LoadDumpChunk(uint64_t iterator, const uint8_t* data, size_t len);
  Status FinishDump();

 private:
  friend class GrowingFilter<RedisBloomFilter, RedisBloomFamily>;
  RedisBloomFilter() = default;
  uint64_t loaded_ = 0;  // bit-array bytes loaded by LoadDumpChunk
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_REDIS_REDIS_BLOOM_H_
