#include "growth/sizing.h"


#include "bloom/bloom_filter.h"
#include "cuckoo/cuckoo_filter.h"
#include "cuckoo/cuckoo_params.h"
#include "format/format.h"
#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {

double CuckooSizedRate(uint32_t bucket_size, uint32_t fingerprint_bits, uint32_t expansion) {
  // Exact in binary64: 2b is small and 2^f a power of two.
  const double first = 2.0 * bucket_size / static_cast<double>(uint64_t{1} << (fingerprint_bits & 63));
  return expansion == 0 ? first : 2 * first;
}

uint32_t FingerprintBitsFor(double false_positive_rate, uint32_t bucket_size) {
  if (!(false_positive_rate > 0 && false_positive_rate < 1)) return 0;
  for (uint32_t f = 4; f <= 32; ++f) {
    if (CuckooSizedRate(bucket_size, f, 0) <= false_positive_rate) return f;
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

CuckooSizing SizeCuckoo(uint64_t capacity, double false_positive_rate, uint32_t fingerprint_bits,
                        uint32_t bucket_size, uint32_t expansion, TableEncoding encoding,
                        uint64_t max_bytes) {
  CuckooSizing s;
  s.lowest_rate = CuckooSizedRate(bucket_size, 32, expansion);
  if (fingerprint_bits == 0) {
    s.first_rate = FirstSubFilterRate(false_positive_rate, expansion);
    fingerprint_bits = FingerprintBitsFor(s.first_rate, bucket_size);
    if (fingerprint_bits == 0) return s;
  }
  s.fingerprint_bits = fingerprint_bits;
  const auto size = [&](uint64_t n) {
    return CuckooSerializedSizeFor(n, fingerprint_bits, bucket_size, expansion, encoding);
  };
  s.bytes = size(capacity);
  if (s.bytes != 0 && s.bytes <= max_bytes) return s;
  // The size grows with the capacity: the largest n < capacity that fits, bit by bit.
  const auto fits = [&](uint64_t n) {
    const uint64_t b = size(n);
    return b != 0 && b <= max_bytes;
  };
  uint64_t most = 1;
  for (uint64_t step = uint64_t{1} << 52; step >= 1; step >>= 1) {
    if (most + step < capacity && fits(most + step)) most += step;
  }
  s.max_capacity = most;
  s.bytes_at_max = size(most);
  return s;
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
