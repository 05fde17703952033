// What info() reports for the RedisCuckoo family (redis/redis_cuckoo.h): what
// the server's CF.INFO gives, by its labels camelCased, as the X-macro list
// CUCKOO_INFO_RedisCuckoo of (name, value), `f` the filter; no sub-filters
// (CUCKOO_SUB_INFO_RedisCuckoo is empty: CF.INFO reports none). The bindings
// expand it into the object info() returns (bindings/embind.cc);
// js/filters/read/redis-cuckoo-filter.ts's CoreInfo declares the same fields,
// held against this list by tests/js/info-fields.test.ts.
#ifndef CUCKOO_WASM_SRC_REDIS_REDIS_CUCKOO_INFO_H_
#define CUCKOO_WASM_SRC_REDIS_REDIS_CUCKOO_INFO_H_

#include "redis/redis_cuckoo.h"

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

#define CUCKOO_SUB_INFO_RedisCuckoo(X)

#endif  // CUCKOO_WASM_SRC_REDIS_REDIS_CUCKOO_INFO_H_
