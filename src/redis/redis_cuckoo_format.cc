#include "redis/redis_cuckoo_format.h"

#include <cstring>

#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace format {

void WriteRedisCuckooSection(const RedisCuckooSection& r, uint8_t* out) {
  RedisCuckooSection written = r;
  written.reserved = 0;
  WriteFields(kRedisCuckooSectionLayout, &written, out);
  std::memcpy(out + kRedisCuckooSectionHeaderBytes, r.table,
              static_cast<size_t>(r.bucket_count * r.bucket_size));
}

namespace {

// True if n is a power of two below 2^32 and b a bucket size: a table whose
// length the header can give (n * b <= 2^40).
bool RedisTableShapeOk(uint64_t n, uint32_t b) {
  return n != 0 && (n & (n - 1)) == 0 && n <= (uint64_t{1} << 32) && b != 0 &&
         b <= kMaxRedisBucketSize;
}

}  // namespace

Status ReadRedisCuckooSection(const uint8_t* data, size_t len, RedisCuckooSection* out) {
  if (len < kRedisCuckooSectionHeaderBytes) return Status::kFormatTruncated;
  RedisCuckooSection r;
  ReadFields(kRedisCuckooSectionLayout, data, &r);
  r.table = data + kRedisCuckooSectionHeaderBytes;
  if (!RedisTableShapeOk(r.bucket_count, r.bucket_size) || r.max_iterations == 0 ||
      r.reserved != 0 || RedisCuckooSectionBytes(r.bucket_count * r.bucket_size) != len ||
      r.item_count > r.bucket_count * r.bucket_size) {
    return Status::kFormatBadParameter;
  }
  *out = r;
  return Status::kOk;
}

namespace {

// Version 4's header of a Redis cuckoo filter: one byte per slot, RedisBloom's
// positions, no seed.
bool RedisCuckooStackFieldsOk(uint8_t encoding, uint8_t scheme, uint64_t seed) {
  return encoding == kEncodingRedisBytes && scheme == kSchemeRedisCuckoo && seed == 0;
}

// The header and n * b table bytes, saturating.
uint64_t RedisCuckooSectionLength(const uint8_t* data, uint64_t remaining) {
  if (remaining < kRedisCuckooSectionHeaderBytes) return 0;
  const uint64_t n = GetU64(data + redis_cuckoo_field::kBucketCount);
  const uint64_t b = GetU16(data + redis_cuckoo_field::kBucketSize);
  if (b != 0 && n > (UINT64_MAX - kRedisCuckooSectionHeaderBytes) / b) return UINT64_MAX;
  return RedisCuckooSectionBytes(n * b);
}

// The header, then the byte table (FORMAT.md §15.5).
Status RedisCuckooSectionShape(const uint8_t* s, uint64_t n, uint32_t, uint32_t, uint64_t*,
                               SectionShape* out) {
  RedisCuckooSection r;
  ReadFields(kRedisCuckooSectionLayout, s, &r);
  if (!RedisTableShapeOk(r.bucket_count, r.bucket_size) ||
      n != RedisCuckooSectionBytes(r.bucket_count * r.bucket_size)) {
    return Status::kFormatBadParameter;
  }
  out->header_bytes = kRedisCuckooSectionHeaderBytes;
  out->body_bytes = r.bucket_count * r.bucket_size;
  out->body = SectionShape::Body::kSlots;
  out->table = SectionShape::kByteTable;
  out->alt = SectionShape::Alt::kRedis;
  out->bucket_size = r.bucket_size;
  out->fingerprint_bits = 8;
  out->bucket_count = r.bucket_count;
  return Status::kOk;
}

}  // namespace

const SectionFormat kRedisCuckooSectionFormat = {
    kRedisCuckooSectionLayout,
    // CF.RESERVE's EXPANSION; a CF.INSERT that starts below 32 sub-filters
    // grows past them on the server.
    1, kMaxRedisCuckooExpansion, kMaxSubFilters,
    0, 0, {0, 0},  // version 4 only
    RedisCuckooStackFieldsOk, RedisCuckooSectionLength, RedisCuckooSectionShape,
};

}  // namespace format
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
