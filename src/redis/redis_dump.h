// RedisBloom's SCANDUMP / LOADCHUNK chunking, shared by the two Redis families
// (redis_cuckoo.h, redis_bloom.h): a filter is dumped as a header chunk
// (iterator 1), then its sub-filters' tables in order, each table cut into
// chunks of at most kRedisMaxChunkBytes that never span two sub-filters; a
// table chunk's iterator is 1 + the table bytes dumped so far, that chunk
// included (so two tables of 1,024 bytes give iterators 1, 1025, 2049). The
// last call returns iterator 0. Header-only.
#ifndef CUCKOO_WASM_SRC_REDIS_REDIS_DUMP_H_
#define CUCKOO_WASM_SRC_REDIS_REDIS_DUMP_H_

#include <cstdint>

namespace cuckoo {

// Most bytes of one table chunk (16 MiB).
constexpr uint64_t kRedisMaxChunkBytes = uint64_t{1} << 24;

// One chunk as SCANDUMP returns it: [iterator, bytes].
struct RedisChunk {
  uint64_t iterator = 0;
  const uint8_t* data = nullptr;
  uint64_t len = 0;
};

// Where the table chunks fall: walks the tables of a filter (their byte
// lengths, in sub-filter order) in the order SCANDUMP returns them.
class RedisChunkPlan {
 public:
  // Table chunk `j` (0-based, after the header) of tables of `lengths[0, n)`
  // bytes: *table, *offset and *len within that table, and its iterator.
  // False when there is no chunk j.
  static bool At(const uint64_t* lengths, uint32_t n, uint64_t j, uint32_t* table,
                 uint64_t* offset, uint64_t* len, uint64_t* iterator) {
    uint64_t before = 0;  // table bytes in earlier chunks
    for (uint32_t t = 0; t < n; ++t) {
      const uint64_t chunks = (lengths[t] + kRedisMaxChunkBytes - 1) / kRedisMaxChunkBytes;
      if (j < chunks) {
        *table = t;
        *offset = j * kRedisMaxChunkBytes;
        *len = lengths[t] - *offset < kRedisMaxChunkBytes ? lengths[t] - *offset
                                                          : kRedisMaxChunkBytes;
        *iterator = 1 + before + *offset + *len;
        return true;
      }
      j -= chunks;
      before += lengths[t];
    }
    return false;
  }
  // How many table chunks tables of `lengths[0, n)` bytes make.
  static uint64_t Count(const uint64_t* lengths, uint32_t n) {
    uint64_t chunks = 0;
    for (uint32_t t = 0; t < n; ++t) {
      chunks += (lengths[t] + kRedisMaxChunkBytes - 1) / kRedisMaxChunkBytes;
    }
    return chunks;
  }
};

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_REDIS_REDIS_DUMP_H_
