#include "format/format.h"

#include <cstring>

#include "cuckoo/cuckoo_params.h"
#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace format {

void WriteStackHeader(const StackHeader& h, uint8_t* out) {
  std::memset(out, 0, StackHeaderBytes(h.version));  // reserved fields are 0
  WritePrefix(h.version, out);
  if (h.version != kFormatVersionExplicit) {
    namespace field = stack_field;
    out[field::kType] = h.type;
    out[field::kSubFilterCount] = static_cast<uint8_t>(h.sub_filter_count);
    PutU32(out + field::kExpansion, h.expansion);
    PutU64(out + field::kSeed, h.seed);
    return;
  }
  namespace field = v4_field;
  out[field::kFamily] = h.type;
  out[field::kEncoding] = h.encoding;
  out[field::kScheme] = h.scheme;
  out[field::kGrowth] = h.growth;
  out[field::kHashId] = HashIdFor(h.type);
  out[field::kSubFilterCount] = static_cast<uint8_t>(h.sub_filter_count);
  PutU32(out + field::kExpansion, h.expansion);
  PutU64(out + field::kSeed, h.seed);
}

uint8_t FileType(const uint8_t* data, size_t len, uint16_t version) {
  if (version == kFormatVersion) return kTypeCuckoo;
  if (len <= stack_field::kType) return 0;
  const uint8_t type = data[stack_field::kType];
  if (!KnownFamily(type)) return 0;
  if (version == kFormatVersionExplicit) return type;
  // Versions 2 and 3 predate the Redis families.
  if (type != kTypeCuckoo && type != kTypeBloom) return 0;
  if (version == kFormatVersionStack) return type;
  // Version 3 holds Bloom filters only: another type byte names no type (and
  // ReadStack refuses it as a bad parameter).
  if (version == kFormatVersionBloom && type == kTypeBloom) return kTypeBloom;
  return 0;
}

namespace {

// SectionBytes of a Redis cuckoo section: header + n * b, saturating.
uint64_t RedisCuckooSectionLength(const uint8_t* data, uint64_t remaining) {
  if (remaining < kRedisCuckooSectionHeaderBytes) return 0;
  const uint64_t n = GetU64(data + redis_cuckoo_field::kBucketCount);
  const uint64_t b = GetU16(data + redis_cuckoo_field::kBucketSize);
  if (b != 0 && n > (UINT64_MAX - kRedisCuckooSectionHeaderBytes) / b) return UINT64_MAX;
  return RedisCuckooSectionBytes(n * b);
}

}  // namespace

uint64_t SectionBytes(uint8_t type, const uint8_t* data, uint64_t remaining) {
  if (type == kTypeRedisCuckoo) return RedisCuckooSectionLength(data, remaining);
  if (type == kTypeRedisBloom) {
    if (remaining < kRedisBloomSectionHeaderBytes) return 0;
    const uint64_t bytes = GetU64(data + redis_bloom_field::kBits) / 8;
    return RedisBloomSectionBytes(bytes);  // bits / 8 < 2^61: no overflow
  }
  if (type == kTypeCuckoo) {
    if (remaining < kCuckooHeaderBytes) return 0;
    const uint64_t table = GetU64(data + cuckoo_field::kTableBytes);
    const uint64_t fixed = kCuckooHeaderBytes + kChecksumBytes;
    return table > UINT64_MAX - fixed ? UINT64_MAX : table + fixed;
  }
  if (remaining < kBloomSectionHeaderBytes) return 0;
  const uint64_t words = GetU64(data + bloom_field::kWordBytes);
  return words > UINT64_MAX - kBloomSectionHeaderBytes ? UINT64_MAX
                                                       : words + kBloomSectionHeaderBytes;
}

namespace {

// The fields of a version-2 or version-3 stack header, with what the version
// implies (StackHeader); false if one is out of range.
bool ReadLegacyStackHeader(const uint8_t* data, uint16_t version, StackHeader* h) {
  namespace field = stack_field;
  h->type = data[field::kType];
  h->sub_filter_count = data[field::kSubFilterCount];
  h->expansion = GetU32(data + field::kExpansion);
  h->seed = GetU64(data + field::kSeed);
  h->growth = h->expansion == 0 ? kGrowthNone : kGrowthGeometric;
  const bool type_ok = version == kFormatVersionBloom
                           ? h->type == kTypeBloom
                           : h->type == kTypeCuckoo || h->type == kTypeBloom;
  if (h->type == kTypeCuckoo) {
    h->encoding = kEncodingFromSections;
    h->scheme = kSchemeCuckooPartialKey;
  } else {
    h->encoding = 0;
    h->scheme = version == kFormatVersionStack ? kSchemeBloomDoubleHashing : kSchemeBloomIndependent;
  }
  return type_ok && GetU32(data + field::kReserved) == 0;
}

// The fields of a version-4 header; false if one is out of range for its
// family or the growth byte disagrees with the expansion.
bool ReadExplicitHeader(const uint8_t* data, StackHeader* h) {
  namespace field = v4_field;
  h->type = data[field::kFamily];
  h->encoding = data[field::kEncoding];
  h->scheme = data[field::kScheme];
  h->growth = data[field::kGrowth];
  h->sub_filter_count = data[field::kSubFilterCount];
  h->expansion = GetU32(data + field::kExpansion);
  h->seed = GetU64(data + field::kSeed);
  bool family_ok = false;
  if (h->type == kTypeCuckoo) {
    family_ok = KnownEncoding(h->encoding) && h->scheme == kSchemeCuckooPartialKey;
  } else if (h->type == kTypeBloom) {
    family_ok = h->encoding == 0 && (h->scheme == kSchemeBloomDoubleHashing ||
                                     h->scheme == kSchemeBloomIndependent);
  } else if (h->type == kTypeRedisCuckoo) {
    family_ok = h->encoding == kEncodingRedisBytes && h->scheme == kSchemeRedisCuckoo &&
                h->seed == 0;
  } else if (h->type == kTypeRedisBloom) {
    family_ok = h->encoding == 0 && h->scheme == kSchemeRedisBloom;
  }
  const bool growth_ok = h->growth == kGrowthNone
                             ? h->expansion == 0
                             : h->growth == kGrowthGeometric && h->expansion != 0;
  return family_ok && growth_ok && data[field::kHashId] == HashIdFor(h->type) &&
         GetU64(data + field::kReserved) == 0;
}

}  // namespace

namespace {

// A growing stack's expansion: 2..kMaxExpansion, or for the Redis cuckoo
// filter CF.RESERVE's 1..32768, for the Redis Bloom filter BF.RESERVE's.
bool ExpansionInRange(const StackHeader& h) {
  if (h.type == kTypeRedisCuckoo) {
    return h.expansion >= 1 && h.expansion <= kMaxRedisCuckooExpansion;
  }
  if (h.type == kTypeRedisBloom) return h.expansion >= 1 && h.expansion <= kRedisMaxExpansion;
  return h.expansion >= 2 && h.expansion <= kMaxExpansion;
}

}  // namespace

Status ReadStack(const uint8_t* data, size_t len, uint16_t version, StackHeader* out,
                 uint64_t offsets[kMaxSubFilters + 1]) {
  StackHeader h;
  const Status s = ReadStackLayout(data, len, version, &h, offsets);
  if (s != Status::kOk) return s;
  // Check 9.
  if (!ChecksumMatches(data, len - kChecksumBytes)) return Status::kFormatChecksumMismatch;
  *out = h;
  return Status::kOk;
}

Status ReadStackLayout(const uint8_t* data, size_t len, uint16_t version, StackHeader* out,
                       uint64_t offsets[kMaxSubFilters + 1]) {
  const size_t header_bytes = StackHeaderBytes(version);
  // Check 5: the stack header and a checksum fit.
  if (len < header_bytes + kChecksumBytes) return Status::kFormatTruncated;
  StackHeader h;
  h.version = version;
  const bool fields_ok = version == kFormatVersionExplicit
                             ? ReadExplicitHeader(data, &h)
                             : ReadLegacyStackHeader(data, version, &h);
  // Check 6: the stack header's fields.
  const bool growth_ok = h.expansion == 0 ? h.sub_filter_count == 1 : ExpansionInRange(h);
  if (!fields_ok || h.sub_filter_count == 0 ||
      h.sub_filter_count > MaxSubFilters(h.type) || !growth_ok) {
    return Status::kFormatBadParameter;
  }
  // Checks 7-8: each section's length field, then the whole length.
  const uint64_t body = len - kChecksumBytes;
  uint64_t at = header_bytes;
  for (uint32_t j = 0; j < h.sub_filter_count; ++j) {
    offsets[j] = at;
    const uint64_t n = SectionBytes(h.type, data + at, body - at);
    if (n == 0 || n > body - at) return Status::kFormatTruncated;
    at += n;
  }
  offsets[h.sub_filter_count] = at;
  if (at < body) return Status::kFormatTrailingBytes;
  *out = h;
  return Status::kOk;
}

void WriteBloomSection(const BloomSection& b, const uint64_t* words, uint8_t* out) {
  namespace field = bloom_field;
  std::memset(out, 0, kBloomSectionHeaderBytes);
  PutU32(out + field::kHashCount, b.hash_count);
  PutU64(out + field::kBitCount, b.bit_count);
  PutU64(out + field::kCapacity, b.capacity);
  PutU64(out + field::kItemCount, b.item_count);
  uint64_t rate;
  static_assert(sizeof rate == sizeof b.false_positive_rate, "binary64");
  std::memcpy(&rate, &b.false_positive_rate, sizeof rate);
  PutU64(out + field::kFalsePositiveRate, rate);
  PutU64(out + field::kWordBytes, b.word_bytes);
  // Words are little-endian in memory (packed_table.h refuses other targets).
  std::memcpy(out + kBloomSectionHeaderBytes, words, static_cast<size_t>(b.word_bytes));
}

Status ReadBloomSection(const uint8_t* data, size_t len, BloomSection* out) {
  namespace field = bloom_field;
  if (len < kBloomSectionHeaderBytes) return Status::kFormatTruncated;
  BloomSection b;
  b.hash_count = GetU32(data + field::kHashCount);
  b.bit_count = GetU64(data + field::kBitCount);
  b.capacity = GetU64(data + field::kCapacity);
  b.item_count = GetU64(data + field::kItemCount);
  const uint64_t rate = GetU64(data + field::kFalsePositiveRate);
  std::memcpy(&b.false_positive_rate, &rate, sizeof rate);
  b.word_bytes = GetU64(data + field::kWordBytes);
  b.words = data + kBloomSectionHeaderBytes;
  if (b.hash_count == 0 || b.hash_count > 64 || GetU32(data + field::kReserved) != 0 ||
      b.bit_count == 0 || b.bit_count > 0xffffffffULL || b.capacity == 0 ||
      !(b.false_positive_rate > 0 && b.false_positive_rate < 1) ||
      b.word_bytes != (b.bit_count + 63) / 64 * 8 || BloomSectionBytes(b.word_bytes) != len) {
    return Status::kFormatBadParameter;
  }
  // Bits from m to the end of the last word are 0.
  const uint64_t tail = b.bit_count % 64;
  if (tail != 0) {
    const uint64_t last = GetU64(b.words + b.word_bytes - 8);
    if ((last >> tail) != 0) return Status::kFormatBadPadding;
  }
  *out = b;
  return Status::kOk;
}

void WriteRedisCuckooSection(const RedisCuckooSection& r, uint8_t* out) {
  namespace field = redis_cuckoo_field;
  std::memset(out, 0, kRedisCuckooSectionHeaderBytes);
  PutU64(out + field::kBucketCount, r.bucket_count);
  PutU64(out + field::kItemCount, r.item_count);
  PutU64(out + field::kDeletes, r.deletes);
  PutU16(out + field::kBucketSize, static_cast<uint16_t>(r.bucket_size));
  PutU16(out + field::kMaxIterations, static_cast<uint16_t>(r.max_iterations));
  std::memcpy(out + kRedisCuckooSectionHeaderBytes, r.table,
              static_cast<size_t>(r.bucket_count * r.bucket_size));
}

Status ReadRedisCuckooSection(const uint8_t* data, size_t len, RedisCuckooSection* out) {
  namespace field = redis_cuckoo_field;
  if (len < kRedisCuckooSectionHeaderBytes) return Status::kFormatTruncated;
  RedisCuckooSection r;
  r.bucket_count = GetU64(data + field::kBucketCount);
  r.item_count = GetU64(data + field::kItemCount);
  r.deletes = GetU64(data + field::kDeletes);
  r.bucket_size = GetU16(data + field::kBucketSize);
  r.max_iterations = GetU16(data + field::kMaxIterations);
  r.table = data + kRedisCuckooSectionHeaderBytes;
  const bool power_of_two = r.bucket_count != 0 && (r.bucket_count & (r.bucket_count - 1)) == 0;
  if (!power_of_two || r.bucket_size == 0 || r.bucket_size > kMaxRedisBucketSize ||
      r.max_iterations == 0 || GetU32(data + field::kReserved) != 0 ||
      r.bucket_count > (len - kRedisCuckooSectionHeaderBytes) / r.bucket_size ||
      RedisCuckooSectionBytes(r.bucket_count * r.bucket_size) != len ||
      r.item_count > r.bucket_count * r.bucket_size) {
    return Status::kFormatBadParameter;
  }
  *out = r;
  return Status::kOk;
}

void WriteRedisCuckooDumpHeader(const RedisCuckooDumpHeader& h, uint8_t* out) {
  namespace field = redis_cuckoo_dump_field;
  PutU64(out + field::kNumItems, h.num_items);
  PutU64(out + field::kNumBuckets, h.num_buckets);
  PutU64(out + field::kNumDeletes, h.num_deletes);
  PutU64(out + field::kNumFilters, h.num_filters);
  PutU16(out + field::kBucketSize, static_cast<uint16_t>(h.bucket_size));
  PutU16(out + field::kMaxIterations, static_cast<uint16_t>(h.max_iterations));
  PutU16(out + field::kExpansion, static_cast<uint16_t>(h.expansion));
}

RedisCuckooDumpHeader ReadRedisCuckooDumpHeader(const uint8_t* data) {
  namespace field = redis_cuckoo_dump_field;
  RedisCuckooDumpHeader h;
  h.num_items = GetU64(data + field::kNumItems);
  h.num_buckets = GetU64(data + field::kNumBuckets);
  h.num_deletes = GetU64(data + field::kNumDeletes);
  h.num_filters = GetU64(data + field::kNumFilters);
  h.bucket_size = GetU16(data + field::kBucketSize);
  h.max_iterations = GetU16(data + field::kMaxIterations);
  h.expansion = GetU16(data + field::kExpansion);
  return h;
}

void WriteRedisBloomSection(const RedisBloomSection& r, uint8_t* out) {
  namespace field = redis_bloom_field;
  PutU64(out + field::kEntries, r.entries);
  PutU64(out + field::kSize, r.size);
  uint64_t word;
  static_assert(sizeof word == sizeof r.error, "binary64");
  std::memcpy(&word, &r.error, sizeof word);
  PutU64(out + field::kError, word);
  std::memcpy(&word, &r.bpe, sizeof word);
  PutU64(out + field::kBpe, word);
  PutU32(out + field::kHashes, r.hashes);
  PutU32(out + field::kGrowth, r.growth);
  PutU64(out + field::kBits, r.bits);
  std::memcpy(out + kRedisBloomSectionHeaderBytes, r.data, static_cast<size_t>(r.bits / 8));
}

Status ReadRedisBloomSection(const uint8_t* data, size_t len, RedisBloomSection* out) {
  namespace field = redis_bloom_field;
  if (len < kRedisBloomSectionHeaderBytes) return Status::kFormatTruncated;
  RedisBloomSection r;
  r.entries = GetU64(data + field::kEntries);
  r.size = GetU64(data + field::kSize);
  uint64_t word = GetU64(data + field::kError);
  std::memcpy(&r.error, &word, sizeof word);
  word = GetU64(data + field::kBpe);
  std::memcpy(&r.bpe, &word, sizeof word);
  r.hashes = GetU32(data + field::kHashes);
  r.growth = GetU32(data + field::kGrowth);
  r.bits = GetU64(data + field::kBits);
  r.data = data + kRedisBloomSectionHeaderBytes;
  if (r.bits == 0 || r.bits % 64 != 0 || RedisBloomSectionBytes(r.bits / 8) != len) {
    return Status::kFormatBadParameter;
  }
  *out = r;
  return Status::kOk;
}

}  // namespace format
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
