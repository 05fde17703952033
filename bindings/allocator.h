// The module's allocator (bindings/allocator.cc): emmalloc, counting the bytes
// of the blocks in use. Emscripten only.
#ifndef CUCKOO_WASM_BINDINGS_ALLOCATOR_H_
#define CUCKOO_WASM_BINDINGS_ALLOCATOR_H_

#include <cstddef>

namespace cuckoo_wasm {

// Bytes asked for by the heap blocks in use: the sum of the sizes passed to
// malloc, calloc, realloc, memalign, aligned_alloc and posix_memalign over
// every block they returned that free has not had back, JS's _malloc
// included; back to the same number once every block allocated since is freed.
size_t LiveHeapBytes();

}  // namespace cuckoo_wasm

#endif  // CUCKOO_WASM_BINDINGS_ALLOCATOR_H_
