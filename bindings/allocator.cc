// The module's allocator: emmalloc (-sMALLOC=emmalloc, smaller than dlmalloc),
// counting the bytes asked for by the blocks in use, for allocatedBytes (the
// leak checks of the tests and the memory figures of the benchmark).
//
// emmalloc defines malloc, calloc, realloc, free, memalign, aligned_alloc,
// posix_memalign and malloc_usable_size as weak symbols over its emmalloc_*
// functions; the definitions here replace them, so every block the module
// hands out (to the core, to libc++, and to JS through _malloc) is
// counted as it is made and as it is freed. Neither emmalloc's mallinfo nor
// its usable sizes can give that count: mallinfo adds the header of every
// free region, and an allocation may hand the few bytes that align it to the
// block in use before it, so a block's usable size can grow while it is in
// use. So each block carries a Header before the address handed out, holding
// the bytes asked for and where emmalloc's block starts.
#include "allocator.h"

#include <emscripten/emmalloc.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

struct Header {
  uint32_t size;    // bytes asked for
  uint32_t offset;  // from emmalloc's block to the address handed out
};

constexpr size_t kAlignment = alignof(std::max_align_t);
// The header's room before an address aligned for any type.
constexpr size_t kHeaderRoom = kAlignment >= sizeof(Header) ? kAlignment : sizeof(Header);
static_assert(kHeaderRoom % kAlignment == 0, "an address handed out is aligned for any type");

size_t g_live_bytes = 0;

Header* HeaderOf(void* p) { return reinterpret_cast<Header*>(static_cast<uint8_t*>(p) - sizeof(Header)); }

bool IsPowerOfTwo(size_t x) { return x != 0 && (x & (x - 1)) == 0; }

// `size` bytes aligned to `alignment` (a power of two), counted; null if
// memory is short.
void* Allocate(size_t alignment, size_t size) {
  if (alignment < kAlignment) alignment = kAlignment;
  const size_t room = alignment > kHeaderRoom ? alignment : kHeaderRoom;
  if (size > UINT32_MAX - room) return nullptr;
  auto* block = static_cast<uint8_t*>(emmalloc_memalign(alignment, size + room));
  if (block == nullptr) return nullptr;
  void* p = block + room;
  *HeaderOf(p) = Header{static_cast<uint32_t>(size), static_cast<uint32_t>(room)};
  g_live_bytes += size;
  return p;
}

}  // namespace

namespace cuckoo_wasm {

size_t LiveHeapBytes() { return g_live_bytes; }

}  // namespace cuckoo_wasm

extern "C" {

void* malloc(size_t size) { return Allocate(kAlignment, size); }

void* memalign(size_t alignment, size_t size) {
  return IsPowerOfTwo(alignment) ? Allocate(alignment, size) : nullptr;
}

void* aligned_alloc(size_t alignment, size_t size) {
  // C11's conditions, as emmalloc's aligned_alloc checks them.
  if (alignment % sizeof(void*) != 0 || size % alignment != 0) return nullptr;
  return memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment % sizeof(void*) != 0 || !IsPowerOfTwo(alignment)) return EINVAL;
  void* p = Allocate(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

void* calloc(size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size) return nullptr;
  void* p = malloc(count * size);
  if (p != nullptr) std::memset(p, 0, count * size);
  return p;
}

void free(void* p) {
  if (p == nullptr) return;
  const Header h = *HeaderOf(p);
  g_live_bytes -= h.size;
  emmalloc_free(static_cast<uint8_t*>(p) - h.offset);
}

void* realloc(void* p, size_t size) {
  if (p == nullptr) return malloc(size);
  if (size == 0) {
    free(p);
    return nullptr;
  }
  Header* h = HeaderOf(p);
  // In place when emmalloc can (the block keeps its start, so its alignment).
  if (size <= UINT32_MAX - h->offset &&
      emmalloc_realloc_try(static_cast<uint8_t*>(p) - h->offset, size + h->offset) != nullptr) {
    g_live_bytes = g_live_bytes - h->size + size;
    h->size = static_cast<uint32_t>(size);
    return p;
  }
  void* q = malloc(size);
  if (q == nullptr) return nullptr;
  std::memcpy(q, p, h->size < size ? h->size : size);
  free(p);
  return q;
}

size_t malloc_usable_size(void* p) { return p == nullptr ? 0 : HeaderOf(p)->size; }

}  // extern "C"
