// The process-wide half of the allocation probe (alloc_probe.h), which must be
// installed by exactly one translation unit of the test binary: under
// AddressSanitizer, which owns the allocator, the sanitizer's malloc hook;
// otherwise replacements of the global operator new / delete (plain malloc /
// free plus the probe). With it a test can assert, for example, that
// Deserialize refuses a hostile header without first allocating the huge
// table it describes, and that the core never calls operator new.
#include <cstddef>
#include <cstdlib>
#include <new>

#include "alloc_probe.h"

#ifdef CUCKOO_TEST_ASAN
#include <sanitizer/allocator_interface.h>
namespace alloc_probe {
void MallocHook(const volatile void*, size_t size) { NoteHeap(size); }
void FreeHook(const volatile void*) {}
const int g_hooks_installed = __sanitizer_install_malloc_and_free_hooks(MallocHook, FreeHook);
}  // namespace alloc_probe
#else
void* operator new(std::size_t n) {
  alloc_probe::NoteHeap(n);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  alloc_probe::NoteHeap(n);
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t& tag) noexcept {
  return ::operator new(n, tag);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#endif
