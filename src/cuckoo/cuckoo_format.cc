#include "cuckoo/cuckoo_format.h"

#include <cstring>

#include "cuckoo/cuckoo_tables.h"
#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace format {

void WriteCuckoo(const CuckooHeader& h, const uint8_t* table, uint8_t* out) {
  namespace field = cuckoo_field;
  std::memset(out, 0, kCuckooHeaderBytes);  // reserved fields are 0
  WritePrefix(kFormatVersion, out);
  out[field::kHashId] = kHashIdXxh3_64;
  out[field::kEncoding] = static_cast<uint8_t>(h.params.encoding);
  out[field::kFingerprintBits] = static_cast<uint8_t>(h.params.fingerprint_bits);
  out[field::kBucketSize] = static_cast<uint8_t>(h.params.bucket_size);
  PutU32(out + field::kBucketCount, h.bucket_count);
  PutU32(out + field::kMaxKicks, h.params.max_kicks);
  PutU32(out + field::kVictimFingerprint, h.victim_fingerprint);
  PutU32(out + field::kVictimBucket, h.victim_bucket);
  PutU64(out + field::kSeed, h.params.seed);
  PutU64(out + field::kCapacity, h.params.capacity);
  PutU64(out + field::kItemCount, h.item_count);
  PutU64(out + field::kRngState, h.rng_state);
  PutU64(out + field::kTableBytes, h.table_bytes);
  std::memcpy(out + kCuckooHeaderBytes, table, h.table_bytes);
  WriteChecksum(out, kCuckooHeaderBytes + h.table_bytes);
}

Status ReadCuckooHeader(const uint8_t* data, size_t len, CuckooHeader* out) {
  namespace field = cuckoo_field;
  uint16_t version = 0;
  const Status prefix = ReadPrefix(data, len, &version);
  if (prefix != Status::kOk) return prefix;
  if (version != kFormatVersion) return Status::kFormatUnsupportedVersion;
  if (len < kCuckooHeaderBytes + kChecksumBytes) return Status::kFormatTruncated;

  CuckooHeader h;
  h.params.fingerprint_bits = data[field::kFingerprintBits];
  h.params.bucket_size = data[field::kBucketSize];
  h.params.max_kicks = GetU32(data + field::kMaxKicks);
  h.params.seed = GetU64(data + field::kSeed);
  h.params.capacity = GetU64(data + field::kCapacity);
  h.params.encoding = static_cast<TableEncoding>(data[field::kEncoding]);
  h.bucket_count = GetU32(data + field::kBucketCount);
  h.victim_fingerprint = GetU32(data + field::kVictimFingerprint);
  h.victim_bucket = GetU32(data + field::kVictimBucket);
  h.item_count = GetU64(data + field::kItemCount);
  h.rng_state = GetU64(data + field::kRngState);
  h.table_bytes = GetU64(data + field::kTableBytes);

  // Check 6. m * b <= 2^35 and m * b * f <= 2^40: no product overflows.
  const uint64_t m = h.bucket_count;
  const uint64_t slots = m * h.params.bucket_size;
  if (data[field::kHashId] != kHashIdXxh3_64 ||
      GetU16(data + field::kReserved16) != 0 || GetU32(data + field::kReserved32) != 0 ||
      !ValidShape(h.params) || m == 0 || h.params.capacity == 0 || h.params.capacity > slots ||
      h.table_bytes !=
          TableByteLength(h.params.encoding, m, h.params.bucket_size, h.params.fingerprint_bits)) {
    return Status::kFormatBadParameter;
  }
  // Checks 7-9. table_bytes <= 2^37, so the sum cannot overflow.
  const uint64_t total = CuckooFileBytes(h.table_bytes);
  if (len < total) return Status::kFormatTruncated;
  if (len > total) return Status::kFormatTrailingBytes;
  if (!ChecksumMatches(data, kCuckooHeaderBytes + h.table_bytes)) {
    return Status::kFormatChecksumMismatch;
  }
  // Check 10: an empty victim is (0, 0); a victim fits in f bits and m buckets.
  const uint64_t fingerprint_max = (uint64_t{1} << h.params.fingerprint_bits) - 1;
  const bool victim_ok = h.victim_fingerprint == 0
                             ? h.victim_bucket == 0
                             : h.victim_fingerprint <= fingerprint_max && h.victim_bucket < m;
  if (!victim_ok) return Status::kFormatBadVictim;
  *out = h;
  return Status::kOk;
}

Status CheckCuckooTable(bool padding_is_zero, uint64_t occupied, const CuckooHeader& h) {
  if (!padding_is_zero) return Status::kFormatBadPadding;
  if (occupied + (h.victim_fingerprint != 0 ? 1 : 0) != h.item_count) {
    return Status::kFormatCountMismatch;
  }
  return Status::kOk;
}

}  // namespace format
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
