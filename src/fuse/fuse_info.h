// What info() reports for the binary fuse family (fuse/binary_fuse_filter.h),
// as the X-macro list CUCKOO_INFO_BinaryFuse of (name, value), `f` the
// filter; no sub-filters (CUCKOO_SUB_INFO_BinaryFuse is empty). The bindings
// expand it into the object info() returns (bindings/embind.cc);
// js/filters/read/binary-fuse-filter.ts's CoreBinaryFuseInfo declares the
// same fields, held against this list by tests/js/info-fields.test.ts.
#ifndef CUCKOO_WASM_SRC_FUSE_FUSE_INFO_H_
#define CUCKOO_WASM_SRC_FUSE_FUSE_INFO_H_

#include <cstdint>

#include "fuse/binary_fuse_filter.h"

#define CUCKOO_INFO_BinaryFuse(X)                                  \
  X(capacity, static_cast<double>(f.capacity()))                  \
  X(seedLow, static_cast<uint32_t>(f.seed()))                     \
  X(seedHigh, static_cast<uint32_t>(f.seed() >> 32))              \
  X(expansion, f.expansion())                                     \
  X(serializedSize, static_cast<double>(f.SerializedSize()))      \
  X(size, static_cast<double>(f.size()))                          \
  X(fingerprintBits, f.fingerprint_bits())                        \
  X(arity, f.arity())                                             \
  X(segmentLength, f.segment_length())                            \
  X(segmentCount, f.segment_count())                              \
  X(arrayLength, static_cast<double>(f.array_length()))           \
  X(falsePositiveRate, f.false_positive_rate())

#define CUCKOO_SUB_INFO_BinaryFuse(X)

#endif  // CUCKOO_WASM_SRC_FUSE_FUSE_INFO_H_
