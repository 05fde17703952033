// Allocation probe for the native tests: what was allocated while a function
// ran, seen through two hooks.
//  - The core's own (cuckoo::internal::SetAllocationHookForTesting,
//    src/common/allocation.h): every block the core allocates, in every build.
//  - A process-wide one, installed by alloc_probe.cc (it must live in
//    exactly one translation unit): under AddressSanitizer, which owns the
//    allocator, the sanitizer's malloc hook, which sees every malloc, calloc
//    and operator new; otherwise replacements of the global operator new /
//    delete, which see operator new only.
// So a test can check both how large the core's allocations were and that
// nothing but the core's allocator was used (the core must never call operator
// new: in the WebAssembly build it aborts when memory is short).
#ifndef CUCKOO_WASM_TESTS_NATIVE_ALLOC_PROBE_H_
#define CUCKOO_WASM_TESTS_NATIVE_ALLOC_PROBE_H_

#include <atomic>
#include <cstddef>

#include "common/allocation.h"

#if defined(__SANITIZE_ADDRESS__)
#define CUCKOO_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUCKOO_TEST_ASAN 1
#endif
#endif

namespace alloc_probe {

// True if the process-wide hook sees malloc and calloc too (AddressSanitizer).
#ifdef CUCKOO_TEST_ASAN
constexpr bool kHeapHookSeesMalloc = true;
#else
constexpr bool kHeapHookSeesMalloc = false;
#endif

inline std::atomic<bool> g_active{false};
inline std::atomic<size_t> g_largest{0};
inline std::atomic<size_t> g_heap_calls{0};
inline std::atomic<size_t> g_core_blocks{0};

inline void NoteSize(size_t n) {
  size_t prev = g_largest.load(std::memory_order_relaxed);
  while (n > prev && !g_largest.compare_exchange_weak(prev, n, std::memory_order_relaxed)) {
  }
}

// Called by the process-wide hook for every allocation it sees.
inline void NoteHeap(size_t n) {
  if (!g_active.load(std::memory_order_relaxed)) return;
  g_heap_calls.fetch_add(1, std::memory_order_relaxed);
  NoteSize(n);
}

// The core's hook: notes the block and lets it be allocated.
inline bool NoteCore(size_t n) {
  if (g_active.load(std::memory_order_relaxed)) {
    g_core_blocks.fetch_add(1, std::memory_order_relaxed);
    NoteSize(n);
  }
  return true;
}

struct Seen {
  size_t largest = 0;      // bytes of the largest allocation either hook saw
  size_t heap_calls = 0;   // allocations the process-wide hook saw
  size_t core_blocks = 0;  // blocks the core allocated

  // Allocations not made by the core's allocator: calls of operator new, and
  // under AddressSanitizer also of malloc / calloc by anything but the core.
  size_t Foreign() const { return kHeapHookSeesMalloc ? heap_calls - core_blocks : heap_calls; }
  // Every allocation seen.
  size_t Total() const { return Foreign() + core_blocks; }
};

// What was allocated while `fn` ran. Replaces any core allocation hook a test
// installed, and removes it at the end.
template <typename Fn>
Seen During(Fn fn) {
  g_largest.store(0);
  g_heap_calls.store(0);
  g_core_blocks.store(0);
  cuckoo::internal::SetAllocationHookForTesting(&NoteCore);
  g_active.store(true);
  fn();
  g_active.store(false);
  cuckoo::internal::SetAllocationHookForTesting(nullptr);
  Seen seen;
  seen.largest = g_largest.load();
  seen.heap_calls = g_heap_calls.load();
  seen.core_blocks = g_core_blocks.load();
  return seen;
}

// Largest allocation (bytes) made while `fn` ran.
template <typename Fn>
size_t LargestAllocationDuring(Fn fn) {
  return During(fn).largest;
}

}  // namespace alloc_probe

#endif  // CUCKOO_WASM_TESTS_NATIVE_ALLOC_PROBE_H_
