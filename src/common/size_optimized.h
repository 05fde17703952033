// Code that runs once per filter or per operation on a whole filter, not once
// per key, is compiled for size: creating, loading, saving and describing a
// filter, the Redis dump chunks, status messages, and making and applying a
// patch. Between CUCKOO_SIZE_OPTIMIZED_BEGIN and CUCKOO_SIZE_OPTIMIZED_END
// every function carries clang's `minsize` (as -Oz does for a whole file), so
// the WebAssembly module stays small while the per-key code (add, contain,
// delete, count, the batch loops, the key hash, URL canonicalization and
// expressions) keeps -O3. Neither a per-key function nor one inlined into it
// goes between them: a `minsize` function inlined into a per-key one would
// change the per-key one's code. So growth (MakeNext and the sub-filter
// constructors and sizing it calls), which the add paths inline, stays out.
// CUCKOO_NO_UNROLL, before a per-key loop, keeps clang from unrolling or
// vectorizing it where the copies would cost more bytes of WebAssembly than
// they save time (the batch loops of batch.h and binary_fuse_filter.cc).
// Other compilers (g++ for the native build) ignore both. Header-only.
#ifndef CUCKOO_WASM_SRC_COMMON_SIZE_OPTIMIZED_H_
#define CUCKOO_WASM_SRC_COMMON_SIZE_OPTIMIZED_H_

#if defined(__clang__)
#define CUCKOO_SIZE_OPTIMIZED_BEGIN                                            \
  _Pragma(                                                                     \
      "clang attribute push (__attribute__((minsize)), apply_to = function)")
#define CUCKOO_SIZE_OPTIMIZED_END _Pragma("clang attribute pop")
#define CUCKOO_NO_UNROLL _Pragma("clang loop unroll(disable) vectorize(disable)")
#else
#define CUCKOO_SIZE_OPTIMIZED_BEGIN
#define CUCKOO_SIZE_OPTIMIZED_END
#define CUCKOO_NO_UNROLL
#endif

#endif // CUCKOO_WASM_SRC_COMMON_SIZE_OPTIMIZED_H_
