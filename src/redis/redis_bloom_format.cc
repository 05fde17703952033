#include "redis/redis_bloom_format.h"

#include <cstring>

#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace format {

void WriteRedisBloomSection(const RedisBloomSection& r, uint8_t* out) {
  WriteFields(kRedisBloomSectionLayout, &r, out);
  std::memcpy(out + kRedisBloomSectionHeaderBytes, r.data, static_cast<size_t>(r.bits / 8));
}

Status ReadRedisBloomSection(const uint8_t* data, size_t len, RedisBloomSection* out) {
  if (len < kRedisBloomSectionHeaderBytes) return Status::kFormatTruncated;
  RedisBloomSection r;
  ReadFields(kRedisBloomSectionLayout, data, &r);
  r.data = data + kRedisBloomSectionHeaderBytes;
  if (r.bits == 0 || r.bits % 64 != 0 || RedisBloomSectionBytes(r.bits / 8) != len) {
    return Status::kFormatBadParameter;
  }
  *out = r;
  return Status::kOk;
}

namespace {

bool RedisBloomStackFieldsOk(uint8_t encoding, uint8_t scheme, uint64_t) {
  return encoding == 0 && scheme == kSchemeRedisBloom;
}

uint64_t RedisBloomSectionLength(const uint8_t* data, uint64_t remaining) {
  if (remaining < kRedisBloomSectionHeaderBytes) return 0;
  // bits / 8 < 2^61: no overflow.
  return RedisBloomSectionBytes(GetU64(data + redis_bloom_field::kBits) / 8);
}

// The header, then the bit array.
Status RedisBloomSectionShape(const uint8_t*, uint64_t n, uint32_t, uint32_t, uint64_t*,
                              SectionShape* out) {
  return BitsSectionShape(kRedisBloomSectionHeaderBytes, n, out);
}

}  // namespace

const SectionFormat kRedisBloomSectionFormat = {
    kRedisBloomSectionLayout,
    // BF.RESERVE's EXPANSION; a chain has no length limit on the server.
    1, kRedisMaxExpansion, kMaxSubFilters,
    0, 0, {0, 0},  // version 4 only
    RedisBloomStackFieldsOk, RedisBloomSectionLength, RedisBloomSectionShape,
};

}  // namespace format
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
