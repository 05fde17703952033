// What info() reports for the families of growth/scalable_filter.h (Cuckoo
// and Bloom), as X-macro lists of (name, value), two per family, found by its
// name: CUCKOO_INFO_<Name> (the filter's fields) and CUCKOO_SUB_INFO_<Name>
// (each sub-filter's, in the array `subFilters`). The bindings expand them
// into the one object a filter's info() returns (bindings/embind.cc); `f` is
// the filter, `first` its sub-filter 0, `s` a sub-filter; a value is a number
// or a bool. js/filters/read/cuckoo-filter.ts and bloom-filter.ts declare the
// same fields as TypeScript types (CoreInfo, CoreBloomInfo):
// tests/js/info-fields.test.ts holds each interface against its lists.
#ifndef CUCKOO_WASM_SRC_GROWTH_SCALABLE_INFO_H_
#define CUCKOO_WASM_SRC_GROWTH_SCALABLE_INFO_H_

#include <cstdint>

#include "bloom/bloom_format.h"
#include "growth/scalable_filter.h"
#include "growth/sizing.h"

// The parameters of the filter (those of sub-filter 0), which both families'
// own fields follow.
#define CUCKOO_SCALABLE_INFO(X)                                \
  X(capacity, static_cast<double>(first.capacity()))          \
  X(seedLow, static_cast<uint32_t>(first.seed()))             \
  X(seedHigh, static_cast<uint32_t>(first.seed() >> 32))      \
  X(expansion, f.expansion())                                 \
  X(serializedSize, static_cast<double>(f.SerializedSize()))

#define CUCKOO_INFO_Cuckoo(X)                                  \
  CUCKOO_SCALABLE_INFO(X)                                     \
  X(bucketCount, static_cast<double>(first.bucket_count()))   \
  X(fingerprintBits, first.fingerprint_bits())                \
  X(bucketSize, first.bucket_size())                          \
  X(maxKicks, first.max_kicks())                              \
  X(encoding, static_cast<int>(first.encoding()))             \
  X(falsePositiveRate, cuckoo::CuckooSizedRate(first.bucket_size(), first.fingerprint_bits(), f.expansion()))

// A sub-filter as js/filters/cuckoo-filter.ts's CuckooSubFilterInfo.
#define CUCKOO_SUB_INFO_Cuckoo(X)                              \
  X(capacity, static_cast<double>(s.capacity()))              \
  X(bucketCount, static_cast<double>(s.bucket_count()))       \
  X(fingerprintBits, s.fingerprint_bits())                    \
  X(encoding, static_cast<int>(s.encoding()))                 \
  X(size, static_cast<double>(s.size()))                      \
  X(loadFactor, s.load_factor())                              \
  X(victim, s.victim_used())                                  \
  X(byteLength, static_cast<double>(s.SerializedSize()))

#define CUCKOO_INFO_Bloom(X)                                   \
  CUCKOO_SCALABLE_INFO(X)                                     \
  X(falsePositiveRate, f.false_positive_rate())               \
  X(bitCount, static_cast<double>(f.bit_count()))             \
  X(hashCount, first.hash_count())

// A sub-filter as js/filters/bloom-filter.ts's BloomSubFilterInfo, but its
// expectedFalsePositiveRate: js/filters/bloom-filter.ts computes that and
// estimatedCount from these fields (only reported, they decide no bytes), so
// the module links no exp, pow or log1p.
#define CUCKOO_SUB_INFO_Bloom(X)                               \
  X(capacity, static_cast<double>(s.capacity()))              \
  X(falsePositiveRate, s.false_positive_rate())               \
  X(bitCount, static_cast<double>(s.bit_count()))             \
  X(hashCount, s.hash_count())                                \
  X(size, static_cast<double>(s.size()))                      \
  X(setBitCount, static_cast<double>(s.SetBitCount()))        \
  X(byteLength, static_cast<double>(cuckoo::format::BloomSectionBytes(s.word_bytes())))

#endif  // CUCKOO_WASM_SRC_GROWTH_SCALABLE_INFO_H_
