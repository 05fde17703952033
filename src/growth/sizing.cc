#include "growth/sizing.h"

#include <cmath>

#include "bloom/bloom_filter.h"
#include "cuckoo/cuckoo_filter.h"
#include "cuckoo/cuckoo_params.h"
#include "format/format.h"
#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {

uint32_t FingerprintBitsFor(double false_positive_rate, uint32_t bucket_size) {
  if (!(false_positive_rate > 0 && false_positive_rate < 1)) return 0;
  for (uint32_t f = 4; f <= 32; ++f) {
    // Exact in binary64: 2b is small and 2^f a power of two.
    if (2.0 * bucket_size / std::ldexp(1.0, static_cast<int>(f)) <= false_positive_rate) return f;
  }
  return 0;
}

double FirstSubFilterRate(double false_positive_rate, uint32_t expansion) {
  return expansion == 0 ? false_positive_rate : false_positive_rate / 2;
}

uint64_t CuckooSerializedSizeFor(uint64_t capacity, uint32_t fingerprint_bits,
                                 uint32_t bucket_size, uint32_t /*expansion: every new filter is a stack*/,
                                 TableEncoding encoding) {
  CuckooParams p;
  p.capacity = capacity;
  p.fingerprint_bits = fingerprint_bits;
  p.bucket_size = bucket_size;
  p.encoding = encoding;
  const uint64_t first = CuckooFilter::SerializedSizeFor(p);
  if (first == 0) return 0;
  // A new filter: the first sub-filter as a version-1 section in a version-4 stack.
  return first + format::kHeaderV4Bytes + format::kChecksumBytes;
}

uint64_t BloomSerializedSizeFor(uint64_t capacity, double false_positive_rate,
                                uint32_t expansion) {
  BloomParams p;
  p.capacity = capacity;
  p.false_positive_rate = FirstSubFilterRate(false_positive_rate, expansion);
  const uint64_t bits = BloomFilter::BitCountFor(p);
  if (bits == 0 || BloomFilter::HashCountFor(p.capacity, bits) > kMaxBloomHashes) return 0;
  return format::kHeaderV4Bytes + format::kChecksumBytes +
         format::BloomSectionBytes(BloomFilter::WordBytesFor(bits));
}

}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
