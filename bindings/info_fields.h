// What info() reports for each family, as X-macro lists of (name, value),
// two per family of src/common/families.def, found by its name:
// CUCKOO_INFO_<Name> (the filter's fields) and CUCKOO_SUB_INFO_<Name> (each
// sub-filter's, in the array `subFilters`; empty for a family that reports
// none). bindings/embind.cc expands them into the one JS object a filter's
// info() returns. `f` is the filter, `first` its sub-filter 0, `s` a
// sub-filter; a value is a number, a bool, or a val (null where the family
// has no such value). js/filters/read/*.ts declare the same fields as
// TypeScript types (CoreInfo): tests/js/info-fields.test.ts holds each
// interface against its lists, both ways.
#ifndef CUCKOO_WASM_BINDINGS_INFO_FIELDS_H_
#define CUCKOO_WASM_BINDINGS_INFO_FIELDS_H_

// A growing filter of this library's own families: the parameters of the
// filter (those of sub-filter 0), which its own fields follow.
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

// The Redis families (src/redis/redis_cuckoo.h, src/redis/redis_bloom.h):
// what the server's CF.INFO / BF.INFO give, by the labels camelCased.
#define CUCKOO_INFO_RedisCuckoo(X)                            \
  X(size, static_cast<double>(f.redis_size()))                \
  X(numberOfBuckets, static_cast<double>(f.bucket_count()))   \
  X(numberOfFilters, f.sub_filter_count())                    \
  X(numberOfItemsInserted, static_cast<double>(f.size()))     \
  X(numberOfItemsDeleted, static_cast<double>(f.deleted()))   \
  X(bucketSize, f.bucket_size())                              \
  X(expansionRate, f.expansion_rate())                        \
  X(maxIterations, f.max_iterations())                        \
  X(serializedSize, static_cast<double>(f.SerializedSize()))

#define CUCKOO_INFO_RedisBloom(X)                             \
  X(capacity, static_cast<double>(f.capacity()))              \
  X(size, static_cast<double>(f.redis_size()))                \
  X(numberOfFilters, f.sub_filter_count())                    \
  X(numberOfItemsInserted, static_cast<double>(f.size()))     \
  X(expansionRate, f.non_scaling() ? val::null() : val(static_cast<double>(f.growth()))) \
  X(errorRate, f.error_rate())                                \
  X(initialCapacity, static_cast<double>(f.link(0).entries())) \
  X(serializedSize, static_cast<double>(f.SerializedSize()))

// The Redis families report no sub-filters (CF.INFO and BF.INFO do not).
#define CUCKOO_SUB_INFO_RedisCuckoo(X)
#define CUCKOO_SUB_INFO_RedisBloom(X)

#endif  // CUCKOO_WASM_BINDINGS_INFO_FIELDS_H_
