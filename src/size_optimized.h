// Code that runs once per operation on a whole filter (making and applying a
// patch), not once per key, is compiled for size: between
// CUCKOO_SIZE_OPTIMIZED_BEGIN and CUCKOO_SIZE_OPTIMIZED_END every function
// carries clang's `minsize` (as -Oz does for a whole file), so the
// WebAssembly module stays small while the per-key code keeps -O3. Other
// compilers (g++ for the native build) ignore it. Header-only.
#ifndef CUCKOO_WASM_SRC_SIZE_OPTIMIZED_H_
#define CUCKOO_WASM_SRC_SIZE_OPTIMIZED_H_

#if defined(__clang__)
#define CUCKOO_SIZE_OPTIMIZED_BEGIN                                            \
  _Pragma(                                                                     \
      "clang attribute push (__attribute__((minsize)), apply_to = function)")
#define CUCKOO_SIZE_OPTIMIZED_END _Pragma("clang attribute pop")
#else
#define CUCKOO_SIZE_OPTIMIZED_BEGIN
#define CUCKOO_SIZE_OPTIMIZED_END
#endif

#endif // CUCKOO_WASM_SRC_SIZE_OPTIMIZED_H_
