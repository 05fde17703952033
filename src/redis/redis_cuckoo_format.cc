#include "redis/redis_cuckoo_format.h"

#include <cstring>

#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace format {

void WriteRedisCuckooSection(const RedisCuckooSection& r, uint8_t* out) {
  WriteFields(kRedisCuckooSectionLayout, &r, out);  // the reserved field as constructed, 0
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

// The header, then the byte table (FORMAT.md §15.5).
Status RedisCuckooSectionShape(const uint8_t* s, SectionShape* shape) {
  RedisCuckooSection r;
  ReadFields(kRedisCuckooSectionLayout, s, &r);
  if (!RedisTableShapeOk(r.bucket_count, r.bucket_size) ||
      shape->bytes != RedisCuckooSectionBytes(r.bucket_count * r.bucket_size)) {
    return Status::kFormatBadParameter;
  }
  shape->header_bytes = kRedisCuckooSectionHeaderBytes;
  shape->body_bytes = r.bucket_count * r.bucket_size;
  shape->body = SectionShape::Body::kSlots;
  shape->table = SectionShape::kByteTable;
  shape->alt = SectionShape::Alt::kRedis;
  shape->bucket_size = r.bucket_size;
  shape->fingerprint_bits = 8;
  shape->bucket_count = r.bucket_count;
  return Status::kOk;
}

}  // namespace

const SectionFormat kRedisCuckooSectionFormat = {
    &kRedisCuckooSectionLayout,
    // The header and n * b table bytes.
    FieldAt(kRedisCuckooSectionLayout, redis_cuckoo_field::kBucketCount),
    FieldAt(kRedisCuckooSectionLayout, redis_cuckoo_field::kBucketSize), 0, 0,
    // Version 4: one byte per slot, RedisBloom's positions, no seed.
    1u << kEncodingRedisBytes, 1u << kSchemeRedisCuckoo, true,
    0, 0, {0, 0},  // version 4 only
    // CF.RESERVE's EXPANSION; a CF.INSERT that starts below 32 sub-filters
    // grows past them on the server.
    1, kMaxRedisCuckooExpansion, kMaxSubFilters,
    RedisCuckooSectionShape,
};

}  // namespace format
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
