// Heap allocation for the cuckoo-wasm core. Every block the core allocates (a
// CuckooFilter and its table) comes from AllocateZeroed and goes back through
// Deallocate: std::calloc and std::free, checked for null (a block the caller
// frees, a patch's result, comes from AllocateForCaller). The core never uses
// operator new, not even new (std::nothrow): Emscripten's libc++ is built
// without exceptions, and its nothrow new calls the throwing new, which aborts
// the whole WebAssembly module when memory runs out. calloc returns null
// instead, which the core reports as Status::kOutOfMemory. Header-only.
#ifndef CUCKOO_WASM_SRC_COMMON_ALLOCATION_H_
#define CUCKOO_WASM_SRC_COMMON_ALLOCATION_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace cuckoo {
namespace internal {

// Test seam: called with the size of each allocation before it is made;
// returning false makes that allocation fail as if memory were short.
using AllocationHook = bool (*)(size_t bytes);

inline std::atomic<AllocationHook> g_allocation_hook{nullptr};
inline std::atomic<size_t> g_live_allocations{0};

// Installs `hook` (nullptr removes it). For tests only.
inline void SetAllocationHookForTesting(AllocationHook hook) {
  g_allocation_hook.store(hook, std::memory_order_relaxed);
}

// Blocks returned by AllocateZeroed and not yet passed to Deallocate. For tests
// (a leak check that works without a sanitizer).
inline size_t LiveAllocationsForTesting() {
  return g_live_allocations.load(std::memory_order_relaxed);
}

// `bytes` zeroed bytes aligned for any type, or null if memory is short (or
// the test hook refuses). Never throws, never aborts.
inline void* AllocateZeroed(size_t bytes) {
  const AllocationHook hook = g_allocation_hook.load(std::memory_order_relaxed);
  if (hook != nullptr && !hook(bytes)) return nullptr;
  void* p = std::calloc(1, bytes == 0 ? 1 : bytes);
  if (p != nullptr) g_live_allocations.fetch_add(1, std::memory_order_relaxed);
  return p;
}

// `bytes` bytes, not zeroed, for a block the core hands over to its caller,
// who frees it with std::free (a patch's result, patch.h): the test hook sees
// it (and may refuse it), the count of live blocks does not. Null if memory
// is short.
inline void* AllocateForCaller(size_t bytes) {
  const AllocationHook hook = g_allocation_hook.load(std::memory_order_relaxed);
  if (hook != nullptr && !hook(bytes)) return nullptr;
  return std::malloc(bytes == 0 ? 1 : bytes);
}

// Releases a block from AllocateZeroed; null does nothing.
inline void Deallocate(void* p) {
  if (p == nullptr) return;
  g_live_allocations.fetch_sub(1, std::memory_order_relaxed);
  std::free(p);
}

// std::unique_ptr deleter for blocks from AllocateZeroed holding trivially
// destructible data.
struct FreeDeleter {
  void operator()(void* p) const { Deallocate(p); }
};

// Replaces *out with `bytes` zeroed bytes followed by `padding` more zero
// bytes (so that a table can read any of its bytes with one unaligned 64-bit
// load). False, with *out empty, if memory is short or the block would not
// fit in size_t (wasm32: 4 GiB or more).
inline bool AllocatePadded(uint64_t bytes, size_t padding,
                           std::unique_ptr<uint8_t, FreeDeleter>* out) {
  out->reset();
  if (bytes > SIZE_MAX - padding) return false;
  out->reset(static_cast<uint8_t*>(AllocateZeroed(static_cast<size_t>(bytes + padding))));
  return *out != nullptr;
}

}  // namespace internal
}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_COMMON_ALLOCATION_H_
