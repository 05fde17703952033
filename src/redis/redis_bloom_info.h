// What info() reports for the RedisBloom family (redis/redis_bloom.h): what
// the server's BF.INFO gives, by its labels camelCased, as the X-macro list
// CUCKOO_INFO_RedisBloom of (name, value), `f` the filter; a value is a
// number, or a std::optional<double> that is null when empty (the expansion
// rate of a NONSCALING filter, which BF.INFO shows as nil); no sub-filters
// (CUCKOO_SUB_INFO_RedisBloom is empty: BF.INFO reports none). The bindings
// expand it into the object info() returns (bindings/embind.cc);
// js/filters/read/redis-bloom-filter.ts's CoreInfo declares the same fields,
// held against this list by tests/js/info-fields.test.ts.
#ifndef CUCKOO_WASM_SRC_REDIS_REDIS_BLOOM_INFO_H_
#define CUCKOO_WASM_SRC_REDIS_REDIS_BLOOM_INFO_H_

#include <optional>

#include "redis/redis_bloom.h"

#define CUCKOO_INFO_RedisBloom(X)                             \
  X(capacity, static_cast<double>(f.capacity()))              \
  X(size, static_cast<double>(f.redis_size()))                \
  X(numberOfFilters, f.sub_filter_count())                    \
  X(numberOfItemsInserted, static_cast<double>(f.size()))     \
  X(expansionRate, f.non_scaling() ? std::nullopt : std::optional<double>(f.growth())) \
  X(errorRate, f.error_rate())                                \
  X(initialCapacity, static_cast<double>(f.link(0).entries())) \
  X(serializedSize, static_cast<double>(f.SerializedSize()))

#define CUCKOO_SUB_INFO_RedisBloom(X)

#endif  // CUCKOO_WASM_SRC_REDIS_REDIS_BLOOM_INFO_H_
