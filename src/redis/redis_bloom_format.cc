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

const SectionFormat kRedisBloomSectionFormat = {
    &kRedisBloomSectionLayout,
    // The header and bits / 8 bytes of bits.
    FieldAt(kRedisBloomSectionLayout, redis_bloom_field::kBits), nullptr, 3, 0,
    // Version 4: no encoding, RedisBloom's positions; the seed is the
    // family's to check (RedisBloomFamily::LoadSection).
    1u << 0, 1u << kSchemeRedisBloom, false,
    0, 0, {0, 0},  // version 4 only
    // BF.RESERVE's EXPANSION; a chain has no length limit on the server.
    1, kRedisMaxExpansion, kMaxSubFilters,
    BitsSectionShape<kRedisBloomSectionHeaderBytes>,
};

}  // namespace format
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
