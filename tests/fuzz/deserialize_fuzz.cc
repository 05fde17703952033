// libFuzzer target for the core's parsers of untrusted bytes (docs/FORMAT.md,
// src/format/format.h): CuckooFilter::Deserialize (version 1),
// ScalableCuckooFilter::Deserialize (versions 1, 2 and 4, family cuckoo) and
// ScalableBloomFilter::Deserialize (versions 2, 3 and 4, family Bloom), all three on
// every input, the Redis families' readers (version 4, families 3 and 4) and
// BinaryFuseFilter::Deserialize (version 4, family 5). Built with ASan + UBSan by the CMake preset "fuzz"
// (CMakePresets.json), which scripts/fuzz.sh runs:
//
//   bash scripts/fuzz.sh            # 10,000,000 executions
//   bash scripts/fuzz.sh 50000      # the short CI run
//   build/fuzz/deserialize_fuzz tests/fuzz/<crash-file>   # replay one input
//
// Input layout: byte 0 is a mode byte, the rest is the payload.
//   mode & 1 == 0  raw: the payload is passed to Deserialize unchanged.
//   mode & 1 == 1  checksum fix-up: random bytes almost never carry a valid
//                  XXH3-64 checksum, so Deserialize would refuse nearly every
//                  mutant at kFormatChecksumMismatch and never reach the checks
//                  behind it. In this mode the checksums are recomputed as
//                  Serialize writes them: for version 1 the last 8 payload
//                  bytes; for version 2 (and 3) each cuckoo section's own checksum
//                  (where the section's length field fits), then the last 8
//                  (the only checksum of the other families' version-4 files).
//   mode & 3 == 3  length fix-up as well, before the checksums: version 1, the
//                  header's table-length field is set from its bucket count,
//                  bucket size and fingerprint bits and the payload cut or
//                  zero-padded to match; versions 2 to 4, the file is rebuilt section
//                  by section the same way (cuckoo: table length from m, b, f;
//                  Bloom: W from m, bits past m cleared; Redis cuckoo: n * b;
//                  binary fuse: array length and fingerprint bytes from the
//                  segment length and count, the arity and f, bits past the
//                  last value cleared), up to the header's
//                  sub-filter count. Only while everything stays within
//                  kMaxFixupBytes (version 1: 64 KiB) or kMaxStackFixupBytes
//                  (version 2: 16 KiB); so mutating f, b or m still reaches
//                  the table checks.
// The seed corpus (tests/fuzz/corpus, made by tests/fuzz/make_corpus.cc) holds
// valid filters of both versions and both types under each mode byte.
//
// Every input must end in kOk or a kFormat* / kOutOfMemory status, and the
// three readers must agree (a version-1 file: the growing reader gives the
// plain reader's status, the Bloom reader kFormatWrongFamily; a version-2
// or version-3 file of one type: the other type's reader names it; version 3
// never loads as a cuckoo filter). A loaded filter must
// re-serialize to exactly the payload, load again to the same bytes, keep its
// invariants, and survive operations on keys cut from the input: Add (which
// may grow it), Contain, Count, Delete, the batches, and for Bloom filters a
// Union with a second copy; after which it must still serialize to bytes that
// load. A binary fuse filter takes no key: its Add is refused and changes
// nothing, Contain and ContainBatch agree, and a filter built from the keys
// with its parameters holds them. A failed check prints what failed and
// traps; like any ASan/UBSan report or leak, that is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "bloom/bloom_filter.h"
#include "cuckoo/cuckoo_filter.h"
#include "format/format.h"
#include "fuse/binary_fuse_filter.h"
#include "fuzz_check.h"
#include "redis/redis_bloom.h"
#include "redis/redis_cuckoo.h"
#include "growth/scalable_filter.h"
#include "status.h"
#include "testing/cuckoo_peer.h"

namespace {

using cuckoo::BinaryFuseFilter;
using cuckoo::BloomFilter;
using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterPeer;
using cuckoo::RedisBloomFilter;
using cuckoo::RedisCuckooFilter;
using cuckoo::ScalableBloomFilter;
using cuckoo::ScalableCuckooFilter;
using cuckoo::Status;
namespace format = cuckoo::format;
namespace field = cuckoo::format::cuckoo_field;

// Largest payload the length fix-up builds (bounds time per input): a version-1
// file, and a version-2 file (three readers, several sub-filters, each
// checksummed on every load and save).
constexpr uint64_t kMaxFixupBytes = 64 * 1024;
constexpr uint64_t kMaxStackFixupBytes = 16 * 1024;
// Above this max_kicks, a loaded filter is only checked read-only: a full table
// with max_kicks up to kMaxMaxKicks (1,000,000) makes each Add a million-kick
// chain, which is correct but would drop the fuzzer to a few executions/s.
constexpr uint32_t kMaxKicksForMutation = 2000;
// A growing filter is only given keys while the sub-filter an Add could make
// stays under this many bytes (growth by up to 1024 times a 64 KiB file would
// be legal, and slow: every byte is checksummed on each Serialize).
constexpr uint64_t kMaxGrowthBytes = 1 << 20;

bool IsRefusal(Status s) {
  switch (s) {
    case Status::kOutOfMemory:
    case Status::kFormatTruncated:
    case Status::kFormatBadMagic:
    case Status::kFormatUnsupportedVersion:
    case Status::kFormatBadParameter:
    case Status::kFormatTrailingBytes:
    case Status::kFormatChecksumMismatch:
    case Status::kFormatCountMismatch:
    case Status::kFormatBadVictim:
    case Status::kFormatBadPadding:
    case Status::kFormatWrongFamily:
      return true;
    default:
      return false;
  }
}

uint16_t VersionOf(const std::vector<uint8_t>& buf) {
  if (buf.size() < format::kPrefixBytes || std::memcmp(buf.data(), format::kMagic, 4) != 0) return 0;
  return format::GetU16(buf.data() + format::kVersionOffset);
}

// Table bytes for (encoding, m, b, f) as FORMAT.md §3 gives them: m·b·f
// bits packed; m·(4f - 4) bits semi-sorted (encoding 1). Other encodings: as
// packed (the reader refuses them anyway).
uint64_t TableBytesFor(uint8_t encoding, uint64_t m, uint32_t b, uint32_t f) {
  if (encoding == 1 && b == 4) return (m * (4 * f - 4) + 7) / 8;
  return cuckoo::PackedTable::ByteLength(m * b, f);
}

// Mode 3, version 1: makes the table-length field and the payload length agree
// with (encoding, m, b, f).
void FixLength(std::vector<uint8_t>* buf) {
  if (buf->size() < format::kCuckooHeaderBytes) return;
  const uint8_t* h = buf->data();
  const uint32_t f = h[field::kFingerprintBits];
  const uint32_t b = h[field::kBucketSize];
  const uint64_t m = format::GetU32(h + field::kBucketCount);
  if (!cuckoo::ValidFingerprintBits(f) || !cuckoo::ValidBucketSize(b) || m == 0) return;
  const uint64_t table = TableBytesFor(h[field::kEncoding], m, b, f);
  const uint64_t total = format::CuckooFileBytes(table);
  if (total > kMaxFixupBytes) return;
  format::PutU64(buf->data() + field::kTableBytes, table);
  buf->resize(total, 0);
}

// The stack header's sub-filter count offset in `version` (2, 3 or 4).
size_t CountOffset(uint16_t version) {
  return version == format::kFormatVersionExplicit ? format::v4_field::kSubFilterCount
                                                   : format::stack_field::kSubFilterCount;
}

// Mode 3, versions 2-4: rebuilds the file section by section from the input's
// bytes, each section's length field set from its own shape (cuckoo: m, b,
// f; Bloom: m, whose bits past m are cleared; Redis cuckoo: n, b; binary
// fuse: segment length and count, arity, f, the bits past the last value
// cleared), up to the header's sub-filter count (at most 32). Leaves the file alone if a shape is out of range or the
// result would pass kMaxStackFixupBytes.
void FixStackLengths(std::vector<uint8_t>* buf) {
  const uint16_t version = VersionOf(*buf);
  const size_t header = format::StackHeaderBytes(version);
  if (buf->size() < header) return;
  const uint8_t type = (*buf)[format::stack_field::kType];
  const uint32_t count = (*buf)[CountOffset(version)];
  if ((type != format::kTypeCuckoo && type != format::kTypeBloom &&
       type != format::kTypeRedisCuckoo && type != format::kTypeBinaryFuse) ||
      count == 0 ||
      count > format::kMaxSubFilters) {
    return;
  }
  std::vector<uint8_t> out(buf->begin(), buf->begin() + static_cast<long>(header));
  size_t at = header;  // next input byte
  // Appends n input bytes from `at` (zeros past the end).
  auto take = [&](uint64_t n) {
    for (uint64_t i = 0; i < n; ++i, ++at) out.push_back(at < buf->size() ? (*buf)[at] : 0);
  };
  for (uint32_t j = 0; j < count; ++j) {
    const size_t start = out.size();
    if (type == format::kTypeRedisCuckoo) {
      // Redis cuckoo: the table is n * b bytes, as the section header says.
      take(format::kRedisCuckooSectionHeaderBytes);
      namespace redis_field = format::redis_cuckoo_field;
      const uint64_t n = format::GetU64(out.data() + start + redis_field::kBucketCount);
      const uint64_t b = format::GetU16(out.data() + start + redis_field::kBucketSize);
      if (n == 0 || b == 0 || n > kMaxStackFixupBytes || out.size() + n * b > kMaxStackFixupBytes) {
        return;
      }
      take(n * b);
    } else if (type == format::kTypeBinaryFuse) {
      // Binary fuse: the array length and fingerprint bytes as the segment
      // length and count, the arity and f give them.
      take(format::kFuseSectionHeaderBytes);
      namespace fuse_field = format::fuse_field;
      uint8_t* h = out.data() + start;
      const uint32_t f = format::GetU32(h + fuse_field::kFingerprintBits);
      const uint32_t arity = format::GetU32(h + fuse_field::kArity);
      const uint64_t length = format::GetU32(h + fuse_field::kSegmentLength);
      const uint64_t count = format::GetU32(h + fuse_field::kSegmentCount);
      if (f < cuckoo::kMinFuseFingerprintBits || f > cuckoo::kMaxFuseFingerprintBits ||
          arity < cuckoo::kMinFuseArity || arity > cuckoo::kMaxFuseArity || length == 0 || count == 0) {
        return;
      }
      const uint64_t array = (count + arity - 1) * length;
      const uint64_t bytes = cuckoo::FuseFingerprintBytes(array, f);
      if (out.size() + bytes + format::kChecksumBytes > kMaxStackFixupBytes) return;
      format::PutU64(h + fuse_field::kArrayLength, array);
      format::PutU64(h + fuse_field::kFingerprintBytes, bytes);
      take(bytes);
      const uint64_t used = array * f % 8;
      if (used != 0) out.back() = static_cast<uint8_t>(out.back() & ((1u << used) - 1));
    } else if (type == format::kTypeCuckoo) {
      take(format::kCuckooHeaderBytes);
      const uint8_t* h = out.data() + start;
      const uint32_t f = h[field::kFingerprintBits];
      const uint32_t b = h[field::kBucketSize];
      const uint64_t m = format::GetU32(h + field::kBucketCount);
      if (!cuckoo::ValidFingerprintBits(f) || !cuckoo::ValidBucketSize(b) || m == 0) return;
      const uint64_t table = TableBytesFor(h[field::kEncoding], m, b, f);
      if (out.size() + table + 2 * format::kChecksumBytes > kMaxStackFixupBytes) return;
      format::PutU64(out.data() + start + field::kTableBytes, table);
      take(table + format::kChecksumBytes);
    } else {
      take(format::kBloomSectionHeaderBytes);
      const uint64_t m = format::GetU64(out.data() + start + format::bloom_field::kBitCount);
      if (m == 0 || m > cuckoo::kMaxBloomBits) return;
      const uint64_t words = BloomFilter::WordBytesFor(m);
      if (out.size() + words + format::kChecksumBytes > kMaxStackFixupBytes) return;
      format::PutU64(out.data() + start + format::bloom_field::kWordBytes, words);
      take(words);
      if (m % 64 != 0) {  // clear the bits past m in the last word
        uint8_t* last = out.data() + out.size() - 8;
        format::PutU64(last, format::GetU64(last) & ((uint64_t{1} << (m % 64)) - 1));
      }
    }
  }
  take(format::kChecksumBytes);
  buf->swap(out);
}

// Mode 1 and 3: the last 8 bytes become the checksum of the bytes before them;
// in a version-2 or version-4 file of family cuckoo, each section's own
// checksum first (for the sections whose length fields fit in the file).
void FixChecksum(std::vector<uint8_t>* buf) {
  if (buf->size() < format::kChecksumBytes) return;
  const size_t body = buf->size() - format::kChecksumBytes;
  const uint16_t version = VersionOf(*buf);
  const bool stack =
      version == format::kFormatVersionStack || version == format::kFormatVersionExplicit;
  if (stack && body >= format::StackHeaderBytes(version) &&
      (*buf)[format::stack_field::kType] == format::kTypeCuckoo) {
    const uint32_t count = (*buf)[CountOffset(version)];
    size_t at = format::StackHeaderBytes(version);
    for (uint32_t j = 0; j < count && j < format::kMaxSubFilters; ++j) {
      if (body - at < format::kCuckooHeaderBytes + format::kChecksumBytes) break;
      const uint64_t table = format::GetU64(buf->data() + at + field::kTableBytes);
      if (table > body - at - format::kCuckooHeaderBytes - format::kChecksumBytes) break;
      const size_t sealed = static_cast<size_t>(format::kCuckooHeaderBytes + table);
      format::WriteChecksum(buf->data() + at, sealed);
      at += sealed + format::kChecksumBytes;
    }
  }
  format::WriteChecksum(buf->data(), body);
}

template <typename Filter>
std::vector<uint8_t> SerializeToVector(const Filter& filter) {
  std::vector<uint8_t> out(filter.SerializedSize());
  filter.Serialize(out.data());
  return out;
}

void CheckInvariants(const CuckooFilter& f) {
  FUZZ_CHECK(f.bucket_count() >= 1 && f.bucket_count() <= cuckoo::kMaxBucketCount);
  FUZZ_CHECK(f.bucket_size() == 2 || f.bucket_size() == 4 || f.bucket_size() == 8);
  FUZZ_CHECK(f.fingerprint_bits() >= cuckoo::kMinFingerprintBits &&
             f.fingerprint_bits() <= cuckoo::kMaxFingerprintBits);
  FUZZ_CHECK(f.max_kicks() <= cuckoo::kMaxMaxKicks);
  FUZZ_CHECK(f.capacity() >= 1 && f.capacity() <= f.slot_count());
  FUZZ_CHECK(f.size() <= f.slot_count() + 1);
  FUZZ_CHECK(f.size() >= (f.victim_used() ? 1u : 0u));
  const double load = f.load_factor();
  FUZZ_CHECK(load >= 0.0 && load <= 1.0);
  FUZZ_CHECK(f.encoding() == cuckoo::TableEncoding::kPacked ||
             (f.encoding() == cuckoo::TableEncoding::kSemiSorted && f.bucket_size() == 4));
  FUZZ_CHECK(f.SerializedSize() ==
             format::CuckooFileBytes(TableBytesFor(static_cast<uint8_t>(f.encoding()),
                                                   f.bucket_count(), f.bucket_size(),
                                                   f.fingerprint_bits())));
}

// Contain and Count must agree for `key`; returns Count.
uint32_t Probe(const CuckooFilter& f, const uint8_t* key, size_t len) {
  const uint32_t n = f.Count(key, len);
  FUZZ_CHECK(f.Contain(key, len) == (n > 0));
  FUZZ_CHECK(n <= 2 * f.bucket_size() + 1);
  return n;
}

// Adds, probes and deletes keys cut from `input`, checking the filter's contract:
// no false negative after Add, a refused Add changes nothing, Delete undoes Add.
void Exercise(CuckooFilter* f, const uint8_t* input, size_t input_len) {
  constexpr int kKeys = 4;
  static const uint8_t kFallback[] = {'k', 'e', 'y'};
  const uint8_t* src = input_len > 0 ? input : kFallback;
  const size_t src_len = input_len > 0 ? input_len : sizeof kFallback;
  const uint64_t size0 = f->size();

  struct Key {
    const uint8_t* data;
    size_t len;
    uint32_t count_before;
    bool added;
  };
  Key keys[kKeys];
  for (int k = 0; k < kKeys; ++k) {
    // Different offsets and lengths (0, 4, 8, 12 bytes, clipped) per key.
    const size_t off = (static_cast<size_t>(k) * 29 + 3) % src_len;
    size_t len = static_cast<size_t>(k) * 4;
    if (len > src_len - off) len = src_len - off;
    keys[k] = Key{src + off, len, 0, false};
  }

  for (Key& key : keys) key.count_before = Probe(*f, key.data, key.len);

  uint64_t expected_size = size0;
  for (Key& key : keys) {
    // Not key.count_before: an earlier key may share this key's fingerprint and buckets.
    const uint32_t n = Probe(*f, key.data, key.len);
    const std::vector<uint8_t> before = SerializeToVector(*f);
    const Status s = f->Add(key.data, key.len);
    if (s == Status::kOk) {
      key.added = true;
      ++expected_size;
      FUZZ_CHECK(f->size() == expected_size);
      FUZZ_CHECK(f->Contain(key.data, key.len));
      FUZZ_CHECK(Probe(*f, key.data, key.len) == n + 1);
    } else {
      // Only a full filter (both buckets and the victim taken) refuses a key,
      // and then nothing stored changes, not even the eviction PRNG state.
      FUZZ_CHECK(s == Status::kNotEnoughSpace);
      FUZZ_CHECK(f->victim_used());
      FUZZ_CHECK(SerializeToVector(*f) == before);
    }
    FUZZ_CHECK(f->size() <= f->slot_count() + 1);
  }

  // Delete in reverse order: each Delete of an added key succeeds and takes
  // exactly one matching fingerprint away; then every key counts as before.
  for (int k = kKeys - 1; k >= 0; --k) {
    Key& key = keys[k];
    if (!key.added) continue;
    const uint32_t n = Probe(*f, key.data, key.len);
    FUZZ_CHECK(n >= 1);
    FUZZ_CHECK(f->Delete(key.data, key.len) == Status::kOk);
    --expected_size;
    FUZZ_CHECK(f->size() == expected_size);
    FUZZ_CHECK(Probe(*f, key.data, key.len) == n - 1);
  }
  FUZZ_CHECK(f->size() == size0);
  for (const Key& key : keys) FUZZ_CHECK(Probe(*f, key.data, key.len) == key.count_before);

  // The batch calls, over the same keys packed as bytes + offsets: AddBatch
  // stops at the first refusal; ContainBatch agrees with Contain.
  std::vector<uint8_t> packed;
  uint32_t offsets[kKeys + 1] = {0};
  for (int k = 0; k < kKeys; ++k) {
    packed.insert(packed.end(), keys[k].data, keys[k].data + keys[k].len);
    offsets[k + 1] = static_cast<uint32_t>(packed.size());
  }
  packed.push_back(0);  // so packed.data() is never null
  Status batch_status = Status::kOk;
  const size_t added = f->AddBatch(packed.data(), offsets, kKeys, &batch_status);
  FUZZ_CHECK(added <= static_cast<size_t>(kKeys));
  FUZZ_CHECK(added == kKeys ? batch_status == Status::kOk
                            : batch_status == Status::kNotEnoughSpace);
  FUZZ_CHECK(f->size() == size0 + added);
  uint8_t results[kKeys];
  f->ContainBatch(packed.data(), offsets, kKeys, results);
  for (size_t k = 0; k < kKeys; ++k) {
    FUZZ_CHECK(results[k] == (f->Contain(keys[k].data, keys[k].len) ? 1 : 0));
    if (k < added) FUZZ_CHECK(results[k] == 1);
  }
  for (size_t k = 0; k < added; ++k) {
    FUZZ_CHECK(f->Delete(keys[k].data, keys[k].len) == Status::kOk);
  }
  FUZZ_CHECK(f->size() == size0);
  for (const Key& key : keys) FUZZ_CHECK(Probe(*f, key.data, key.len) == key.count_before);

  // Deleting a key that may or may not be there: kOk removes one match.
  const uint32_t n = Probe(*f, src, src_len);
  const Status s = f->Delete(src, src_len);
  if (n == 0) {
    FUZZ_CHECK(s == Status::kNotFound);
    FUZZ_CHECK(f->size() == size0);
  } else {
    FUZZ_CHECK(s == Status::kOk);
    FUZZ_CHECK(f->size() == size0 - 1);
    FUZZ_CHECK(Probe(*f, src, src_len) == n - 1);
  }
  CheckInvariants(*f);
}

// ---------------------------------------------------------------------------
// The plain filter (version 1).

Status FuzzPlain(const uint8_t* bytes, size_t len, const uint8_t* data, size_t size) {
  std::unique_ptr<CuckooFilter> filter;
  const Status s = CuckooFilter::Deserialize(bytes, len, &filter);
  if (s != Status::kOk) {
    FUZZ_CHECK(IsRefusal(s));
    FUZZ_CHECK(s != Status::kFormatWrongFamily);
    FUZZ_CHECK(cuckoo::StatusMessage(s)[0] != '\0');
    FUZZ_CHECK(filter == nullptr);  // *out untouched on error
    return s;
  }
  FUZZ_CHECK(filter != nullptr);
  CheckInvariants(*filter);

  // A loaded filter re-serializes to exactly the bytes it was loaded from.
  FUZZ_CHECK(filter->SerializedSize() == len);
  const std::vector<uint8_t> again = SerializeToVector(*filter);
  FUZZ_CHECK(again.size() == len && std::memcmp(again.data(), bytes, len) == 0);

  // And those bytes load again, to the same filter.
  std::unique_ptr<CuckooFilter> reloaded;
  FUZZ_CHECK(CuckooFilter::Deserialize(again.data(), again.size(), &reloaded) == Status::kOk);
  FUZZ_CHECK(reloaded != nullptr && reloaded->size() == filter->size());
  FUZZ_CHECK(SerializeToVector(*reloaded) == again);

  if (filter->max_kicks() > kMaxKicksForMutation) {
    // Read-only probes only (see kMaxKicksForMutation).
    Probe(*filter, bytes, len);
    Probe(*filter, bytes, len < 8 ? len : 8);
    return s;
  }

  // Mutate the filter, then it must still serialize to bytes that load.
  Exercise(filter.get(), data, size);
  const std::vector<uint8_t> after = SerializeToVector(*filter);
  FUZZ_CHECK(after.size() == len);
  std::unique_ptr<CuckooFilter> after_loaded;
  FUZZ_CHECK(CuckooFilter::Deserialize(after.data(), after.size(), &after_loaded) == Status::kOk);
  FUZZ_CHECK(after_loaded->size() == filter->size());
  return s;
}

// ---------------------------------------------------------------------------
// Keys cut from the input, shared by the growing filters' exercises.

constexpr int kKeys = 4;

struct Key {
  const uint8_t* data;
  size_t len;
};

// kKeys keys at different offsets and lengths (0, 4, 8, 12 bytes, clipped),
// packed as bytes + offsets for the batch calls.
struct Keys {
  Key key[kKeys];
  std::vector<uint8_t> packed;
  uint32_t offsets[kKeys + 1] = {0};
  const uint8_t* src;
  size_t src_len;

  Keys(const uint8_t* input, size_t input_len) {
    static const uint8_t kFallback[] = {'k', 'e', 'y'};
    src = input_len > 0 ? input : kFallback;
    src_len = input_len > 0 ? input_len : sizeof kFallback;
    for (int k = 0; k < kKeys; ++k) {
      const size_t off = (static_cast<size_t>(k) * 29 + 3) % src_len;
      size_t len = static_cast<size_t>(k) * 4;
      if (len > src_len - off) len = src_len - off;
      key[k] = Key{src + off, len};
      packed.insert(packed.end(), key[k].data, key[k].data + len);
      offsets[k + 1] = static_cast<uint32_t>(packed.size());
    }
    packed.push_back(0);  // so packed.data() is never null
  }
};

// ---------------------------------------------------------------------------
// ScalableCuckooFilter (versions 1 and 2, type cuckoo).

void CheckGrowingInvariants(const ScalableCuckooFilter& f) {
  const uint32_t count = f.sub_filter_count();
  FUZZ_CHECK(count >= 1 && count <= format::kMaxSubFilters);
  FUZZ_CHECK(f.expansion() == 0 ? count == 1
                                : f.expansion() >= 2 && f.expansion() <= format::kMaxExpansion);
  const CuckooFilter& first = f.sub_filter(0);
  uint64_t size = 0;
  uint64_t bytes = f.format_version() == format::kFormatVersion
                       ? 0
                       : format::StackHeaderBytes(f.format_version()) + format::kChecksumBytes;
  for (uint32_t j = 0; j < count; ++j) {
    const CuckooFilter& s = f.sub_filter(j);
    CheckInvariants(s);
    // Sub-filter j is level j of sub-filter 0 (CuckooFamily::CreateLevel).
    FUZZ_CHECK(CuckooFilterPeer::level(s) == j);
    FUZZ_CHECK(s.seed() == first.seed() && s.bucket_size() == first.bucket_size() &&
               s.max_kicks() == first.max_kicks() && s.encoding() == first.encoding());
    FUZZ_CHECK(s.fingerprint_bits() == first.fingerprint_bits() + j);
    FUZZ_CHECK(CuckooFilterPeer::base_bucket_count(s) == first.bucket_count());
    if (j > 0) {
      const CuckooFilter& prev = f.sub_filter(j - 1);
      FUZZ_CHECK(s.bucket_count() == prev.bucket_count() * f.expansion());
      FUZZ_CHECK(s.capacity() == prev.capacity() * f.expansion());
    }
    size += s.size();
    bytes += s.SerializedSize();
  }
  FUZZ_CHECK(f.size() == size);
  FUZZ_CHECK(f.SerializedSize() == bytes);
}

uint32_t Probe(const ScalableCuckooFilter& f, const uint8_t* key, size_t len) {
  const uint32_t n = f.Count(key, len);
  FUZZ_CHECK(f.Contain(key, len) == (n > 0));
  FUZZ_CHECK(n <= f.sub_filter_count() * (2 * f.sub_filter(0).bucket_size() + 1));
  return n;
}

bool GrowthIsSmall(const ScalableCuckooFilter& f) {
  const CuckooFilter& newest = f.sub_filter(f.sub_filter_count() - 1);
  const uint64_t e = f.expansion() == 0 ? 1 : f.expansion();
  // The next sub-filter: e times the buckets, one more bit per slot.
  const uint64_t next = newest.bucket_count() * e * newest.bucket_size() *
                        (newest.fingerprint_bits() + 1) / 8;
  return next <= kMaxGrowthBytes && newest.max_kicks() <= kMaxKicksForMutation;
}

bool IsRefusedAdd(const ScalableCuckooFilter& f, Status s) {
  return (f.expansion() == 0 && s == Status::kNotEnoughSpace) || s == Status::kGrowthLimit ||
         s == Status::kOutOfMemory;
}

// The contract of CuckooFilter's Exercise, for a filter that may grow: no false
// negative after Add; Count up by exactly one; a refused Add changes nothing;
// Delete (newest matching sub-filter first) undoes Add, so every key counts
// as before once the added keys are deleted again in reverse.
void ExerciseGrowing(ScalableCuckooFilter* f, const Keys& keys) {
  const uint64_t size0 = f->size();
  uint32_t before[kKeys];
  bool added[kKeys] = {};
  for (int k = 0; k < kKeys; ++k) before[k] = Probe(*f, keys.key[k].data, keys.key[k].len);
  uint64_t expected_size = size0;
  for (int k = 0; k < kKeys; ++k) {
    const Key& key = keys.key[k];
    if (!GrowthIsSmall(*f)) break;
    const uint32_t n = Probe(*f, key.data, key.len);
    const uint32_t subs = f->sub_filter_count();
    // Only a newest sub-filter whose victim is taken can refuse a key (§6.3):
    // keep its bytes then, to check that a refusal changed nothing. (Serialize
    // checksums every byte, which is slow under coverage instrumentation.)
    const bool may_refuse = f->sub_filter(subs - 1).victim_used();
    const std::vector<uint8_t> bytes = may_refuse ? SerializeToVector(*f) : std::vector<uint8_t>();
    const Status s = f->Add(key.data, key.len);
    if (s == Status::kOk) {
      added[k] = true;
      ++expected_size;
      FUZZ_CHECK(f->sub_filter_count() == subs || f->sub_filter_count() == subs + 1);
      FUZZ_CHECK(f->Contain(key.data, key.len));
      FUZZ_CHECK(Probe(*f, key.data, key.len) == n + 1);
    } else {
      FUZZ_CHECK(may_refuse);
      FUZZ_CHECK(IsRefusedAdd(*f, s));
      FUZZ_CHECK(SerializeToVector(*f) == bytes);
    }
    FUZZ_CHECK(f->size() == expected_size);
    CheckGrowingInvariants(*f);
  }
  for (int k = kKeys - 1; k >= 0; --k) {
    if (!added[k]) continue;
    const Key& key = keys.key[k];
    const uint32_t n = Probe(*f, key.data, key.len);
    FUZZ_CHECK(n >= 1);
    FUZZ_CHECK(f->Delete(key.data, key.len) == Status::kOk);
    --expected_size;
    FUZZ_CHECK(f->size() == expected_size);
    FUZZ_CHECK(Probe(*f, key.data, key.len) == n - 1);
  }
  FUZZ_CHECK(f->size() == size0);
  for (int k = 0; k < kKeys; ++k) {
    FUZZ_CHECK(Probe(*f, keys.key[k].data, keys.key[k].len) == before[k]);
  }

  // The batches: AddBatch stops at the first refusal; ContainBatch agrees.
  if (GrowthIsSmall(*f)) {
    Status batch = Status::kOk;
    const size_t n = f->AddBatch(keys.packed.data(), keys.offsets, kKeys, &batch);
    FUZZ_CHECK(n <= static_cast<size_t>(kKeys));
    FUZZ_CHECK(n == kKeys ? batch == Status::kOk : IsRefusedAdd(*f, batch));
    FUZZ_CHECK(f->size() == size0 + n);
    uint8_t results[kKeys];
    f->ContainBatch(keys.packed.data(), keys.offsets, kKeys, results);
    for (size_t k = 0; k < kKeys; ++k) {
      FUZZ_CHECK(results[k] == (f->Contain(keys.key[k].data, keys.key[k].len) ? 1 : 0));
      if (k < n) FUZZ_CHECK(results[k] == 1);
    }
    for (size_t k = n; k-- > 0;) {
      FUZZ_CHECK(f->Delete(keys.key[k].data, keys.key[k].len) == Status::kOk);
    }
    FUZZ_CHECK(f->size() == size0);
  }

  // Deleting a key that may or may not be there: kOk removes one match.
  const uint32_t n = Probe(*f, keys.src, keys.src_len);
  const Status s = f->Delete(keys.src, keys.src_len);
  FUZZ_CHECK(s == (n == 0 ? Status::kNotFound : Status::kOk));
  FUZZ_CHECK(f->size() == (n == 0 ? size0 : size0 - 1));
  if (n > 0) FUZZ_CHECK(Probe(*f, keys.src, keys.src_len) == n - 1);
  CheckGrowingInvariants(*f);
}

Status FuzzGrowingCuckoo(const uint8_t* bytes, size_t len, const Keys& keys) {
  std::unique_ptr<ScalableCuckooFilter> filter;
  const Status s = ScalableCuckooFilter::Deserialize(bytes, len, &filter);
  if (s != Status::kOk) {
    FUZZ_CHECK(IsRefusal(s));
    FUZZ_CHECK(filter == nullptr);
    return s;
  }
  FUZZ_CHECK(filter != nullptr);
  CheckGrowingInvariants(*filter);
  // Exactly the payload again, and it loads again to the same bytes.
  const std::vector<uint8_t> again = SerializeToVector(*filter);
  FUZZ_CHECK(again.size() == len && std::memcmp(again.data(), bytes, len) == 0);
  std::unique_ptr<ScalableCuckooFilter> reloaded;
  FUZZ_CHECK(ScalableCuckooFilter::Deserialize(again.data(), again.size(), &reloaded) == Status::kOk);
  FUZZ_CHECK(SerializeToVector(*reloaded) == again);

  if (filter->sub_filter(0).max_kicks() > kMaxKicksForMutation) {
    // Read-only probes only (see kMaxKicksForMutation).
    Probe(*filter, bytes, len);
    Probe(*filter, keys.key[kKeys - 1].data, keys.key[kKeys - 1].len);
    return s;
  }
  ExerciseGrowing(filter.get(), keys);
  const std::vector<uint8_t> after = SerializeToVector(*filter);
  std::unique_ptr<ScalableCuckooFilter> after_loaded;
  FUZZ_CHECK(ScalableCuckooFilter::Deserialize(after.data(), after.size(), &after_loaded) ==
             Status::kOk);
  FUZZ_CHECK(SerializeToVector(*after_loaded) == after);
  FUZZ_CHECK(after_loaded->sub_filter_count() == filter->sub_filter_count());
  return s;
}

// ---------------------------------------------------------------------------
// ScalableBloomFilter (versions 2 and 3, type Bloom).

void CheckBloomInvariants(const ScalableBloomFilter& f) {
  const uint32_t count = f.sub_filter_count();
  FUZZ_CHECK(count >= 1 && count <= format::kMaxSubFilters);
  FUZZ_CHECK(f.expansion() == 0 ? count == 1
                                : f.expansion() >= 2 && f.expansion() <= format::kMaxExpansion);
  uint64_t bytes = format::StackHeaderBytes(f.format_version()) + format::kChecksumBytes;
  for (uint32_t j = 0; j < count; ++j) {
    const BloomFilter& s = f.sub_filter(j);
    FUZZ_CHECK(s.bit_count() >= 1 && s.bit_count() <= cuckoo::kMaxBloomBits);
    FUZZ_CHECK(s.hash_count() >= 1 && s.hash_count() <= cuckoo::kMaxBloomHashes);
    FUZZ_CHECK(s.capacity() >= 1);
    FUZZ_CHECK(s.false_positive_rate() > 0 && s.false_positive_rate() < 1);
    FUZZ_CHECK(s.seed() == f.seed());
    FUZZ_CHECK(s.positions() == f.positions());
    FUZZ_CHECK(s.SetBitCount() <= s.bit_count());
    if (s.bit_count() % 64 != 0) {
      FUZZ_CHECK((s.words()[s.word_bytes() / 8 - 1] >> (s.bit_count() % 64)) == 0);
    }
    if (j > 0) {
      const BloomFilter& prev = f.sub_filter(j - 1);
      FUZZ_CHECK(s.capacity() == prev.capacity() * f.expansion());
      FUZZ_CHECK(s.false_positive_rate() == prev.false_positive_rate() / 2);
    }
    bytes += format::kBloomSectionHeaderBytes + s.word_bytes();
  }
  FUZZ_CHECK(f.SerializedSize() == bytes);
  const double rate = f.ExpectedFalsePositiveRate();
  FUZZ_CHECK(rate >= 0 && rate <= 1);
  FUZZ_CHECK(f.EstimatedCount() >= 0);
}

// Whether the next Add may make a sub-filter, and if so whether it is small.
bool BloomGrowthIsSmall(const ScalableBloomFilter& f) {
  const BloomFilter& newest = f.sub_filter(f.sub_filter_count() - 1);
  if (f.expansion() == 0 || newest.size() < newest.capacity()) return true;
  if (newest.capacity() > UINT64_MAX / f.expansion()) return true;  // kGrowthLimit
  cuckoo::BloomParams next;
  next.capacity = newest.capacity() * f.expansion();
  next.false_positive_rate = newest.false_positive_rate() / 2;
  const uint64_t bits = BloomFilter::BitCountFor(next);
  return bits / 8 <= kMaxGrowthBytes;  // 0: kGrowthLimit, no allocation
}

void ExerciseBloom(ScalableBloomFilter* f, const Keys& keys) {
  bool added[kKeys] = {};
  for (int k = 0; k < kKeys; ++k) {
    const Key& key = keys.key[k];
    if (!BloomGrowthIsSmall(*f)) break;
    const uint64_t size = f->size();
    const uint32_t subs = f->sub_filter_count();
    // Only an Add that must grow can be refused: keep the bytes then.
    const BloomFilter& newest = f->sub_filter(subs - 1);
    const bool may_refuse = f->expansion() != 0 && newest.size() >= newest.capacity();
    const std::vector<uint8_t> bytes = may_refuse ? SerializeToVector(*f) : std::vector<uint8_t>();
    const Status s = f->Add(key.data, key.len);
    if (s == Status::kOk) {
      added[k] = true;
      FUZZ_CHECK(f->size() == size + 1);
      FUZZ_CHECK(f->sub_filter_count() == subs || f->sub_filter_count() == subs + 1);
    } else {
      FUZZ_CHECK(may_refuse);
      FUZZ_CHECK(s == Status::kGrowthLimit || s == Status::kOutOfMemory);
      FUZZ_CHECK(SerializeToVector(*f) == bytes);
    }
    for (int i = 0; i <= k; ++i) {
      if (added[i]) FUZZ_CHECK(f->Contain(keys.key[i].data, keys.key[i].len));
    }
    CheckBloomInvariants(*f);
  }
  // The batches.
  uint8_t results[kKeys];
  f->ContainBatch(keys.packed.data(), keys.offsets, kKeys, results);
  for (int k = 0; k < kKeys; ++k) {
    FUZZ_CHECK(results[k] == (f->Contain(keys.key[k].data, keys.key[k].len) ? 1 : 0));
    if (added[k]) FUZZ_CHECK(results[k] == 1);
  }
  if (BloomGrowthIsSmall(*f)) {
    Status batch = Status::kOk;
    const uint64_t size = f->size();
    const size_t n = f->AddBatch(keys.packed.data(), keys.offsets, kKeys, &batch);
    FUZZ_CHECK(n == kKeys ? batch == Status::kOk
                          : batch == Status::kGrowthLimit || batch == Status::kOutOfMemory);
    FUZZ_CHECK(f->size() == size + n);
    for (size_t k = 0; k < n; ++k) FUZZ_CHECK(f->Contain(keys.key[k].data, keys.key[k].len));
  }
  CheckBloomInvariants(*f);
}

Status FuzzGrowingBloom(const uint8_t* bytes, size_t len, const Keys& keys) {
  std::unique_ptr<ScalableBloomFilter> filter;
  const Status s = ScalableBloomFilter::Deserialize(bytes, len, &filter);
  if (s != Status::kOk) {
    FUZZ_CHECK(IsRefusal(s));
    FUZZ_CHECK(filter == nullptr);
    return s;
  }
  FUZZ_CHECK(filter != nullptr);
  CheckBloomInvariants(*filter);
  const std::vector<uint8_t> again = SerializeToVector(*filter);
  FUZZ_CHECK(again.size() == len && std::memcmp(again.data(), bytes, len) == 0);
  std::unique_ptr<ScalableBloomFilter> copy;
  FUZZ_CHECK(ScalableBloomFilter::Deserialize(again.data(), again.size(), &copy) == Status::kOk);
  FUZZ_CHECK(SerializeToVector(*copy) == again);

  ExerciseBloom(filter.get(), keys);
  const std::vector<uint8_t> after = SerializeToVector(*filter);
  std::unique_ptr<ScalableBloomFilter> after_loaded;
  FUZZ_CHECK(ScalableBloomFilter::Deserialize(after.data(), after.size(), &after_loaded) ==
             Status::kOk);
  FUZZ_CHECK(SerializeToVector(*after_loaded) == after);

  // Union with the copy as loaded: compatible while no sub-filter was added;
  // then every key of either is found. Otherwise refused, nothing changed.
  if (filter->IsCompatible(*copy)) {
    FUZZ_CHECK(copy->IsCompatible(*filter));
    FUZZ_CHECK(filter->sub_filter_count() == copy->sub_filter_count());
    FUZZ_CHECK(filter->Union(*copy) == Status::kOk);
    for (int k = 0; k < kKeys; ++k) {
      if (copy->Contain(keys.key[k].data, keys.key[k].len)) {
        FUZZ_CHECK(filter->Contain(keys.key[k].data, keys.key[k].len));
      }
    }
    CheckBloomInvariants(*filter);
  } else {
    FUZZ_CHECK(filter->sub_filter_count() != copy->sub_filter_count());
    FUZZ_CHECK(filter->Union(*copy) == Status::kInvalidArgument);
    FUZZ_CHECK(SerializeToVector(*filter) == after);
  }
  std::unique_ptr<ScalableBloomFilter> united;
  const std::vector<uint8_t> last = SerializeToVector(*filter);
  FUZZ_CHECK(ScalableBloomFilter::Deserialize(last.data(), last.size(), &united) == Status::kOk);
  return s;
}

// The Redis cuckoo filter's own format (version 4, family 3): loads, writes
// itself back, dumps SCANDUMP chunks that load back to the same filter, and
// keeps its contract under Add / AddUnique / Count / Delete.
Status FuzzRedisCuckoo(const uint8_t* bytes, size_t len, const Keys& keys) {
  std::unique_ptr<RedisCuckooFilter> filter;
  const Status s = RedisCuckooFilter::Deserialize(bytes, len, &filter);
  if (s != Status::kOk) {
    FUZZ_CHECK(IsRefusal(s));
    FUZZ_CHECK(filter == nullptr);
    return s;
  }
  const std::vector<uint8_t> again = SerializeToVector(*filter);
  FUZZ_CHECK(again.size() == len && std::memcmp(again.data(), bytes, len) == 0);
  uint64_t table_bytes = 0;
  for (uint32_t j = 0; j < filter->sub_filter_count(); ++j) {
    const auto& sub = filter->sub_filter(j);
    FUZZ_CHECK(sub.table().CountOccupied() == sub.size());
    FUZZ_CHECK(sub.bucket_size() == filter->bucket_size());
    table_bytes += sub.table().byte_length();
  }
  // SCANDUMP and back: the same filter.
  std::vector<uint8_t> header(filter->DumpHeaderBytes());
  std::unique_ptr<RedisCuckooFilter> loaded;
  const uint32_t chunks = filter->DumpChunkCount();
  FUZZ_CHECK(chunks == 0 || chunks >= 1 + filter->sub_filter_count());
  for (uint32_t j = 0; j < chunks; ++j) {
    const cuckoo::RedisChunk c = filter->DumpChunk(j, header.data());
    const Status l = j == 0 ? RedisCuckooFilter::LoadDumpHeader(c.iterator, c.data, c.len, &loaded)
                            : loaded->LoadDumpChunk(c.iterator, c.data, c.len);
    FUZZ_CHECK(l == Status::kOk);
  }
  if (chunks > 0) {
    FUZZ_CHECK(loaded->FinishDump() == Status::kOk);
    const std::vector<uint8_t> reloaded = SerializeToVector(*loaded);
    if (filter->expansion() == filter->expansion_rate()) {
      FUZZ_CHECK(reloaded == again);
    } else {
      // A file of an earlier release holding EXPANSION as given (3): the
      // dump carries the power of two, as the server stores it, and so
      // does the filter loaded from it; every other byte but the checksum
      // is the same.
      FUZZ_CHECK(loaded->expansion() == filter->expansion_rate());
      FUZZ_CHECK(reloaded.size() == again.size());
      const size_t at = format::v4_field::kExpansion;
      FUZZ_CHECK(std::memcmp(reloaded.data(), again.data(), at) == 0);
      FUZZ_CHECK(std::memcmp(reloaded.data() + at + 4, again.data() + at + 4,
                             again.size() - at - 4 - format::kChecksumBytes) == 0);
    }
  }
  // Keys, while the sub-filter an Add could make stays small.
  if (table_bytes > kMaxGrowthBytes) return s;
  const uint32_t shift = cuckoo::RedisCuckooFamily::GrowthShift(filter->expansion());
  for (int k = 0; k < kKeys; ++k) {
    const uint64_t shifted = uint64_t{shift} * filter->sub_filter_count();
    if (shifted >= 32 ||
        (filter->bucket_count() << shifted) * filter->bucket_size() > kMaxGrowthBytes) {
      break;
    }
    const uint8_t* key = keys.key[k].data;
    const size_t n = keys.key[k].len;
    const uint32_t before = filter->Count(key, n);
    FUZZ_CHECK(filter->Contain(key, n) == (before > 0));
    const std::vector<uint8_t> saved = SerializeToVector(*filter);
    bool added = false;
    const Status a = (k & 1) ? filter->AddUnique(key, n, &added) : filter->Add(key, n);
    if (a == Status::kOk) {
      FUZZ_CHECK(filter->Contain(key, n));
      const bool grew = (k & 1) ? added : true;
      // One more, or two where the key's fingerprint went into a bucket
      // that is both of its buckets (a Redis cuckoo filter's CF.COUNT
      // counts such a bucket twice).
      const uint32_t after = filter->Count(key, n);
      FUZZ_CHECK(grew ? (after == before + 1 || after == before + 2) : after == before);
      if ((k & 1) && before > 0) FUZZ_CHECK(!added);
    } else {
      FUZZ_CHECK(a == Status::kNotEnoughSpace || a == Status::kGrowthLimit ||
                 a == Status::kOutOfMemory);
      FUZZ_CHECK(SerializeToVector(*filter) == saved);
    }
    if (k % 4 == 3) {
      const uint32_t c = filter->Count(key, n);
      const uint64_t deleted = filter->deleted();
      FUZZ_CHECK(filter->Delete(key, n) == (c > 0 ? Status::kOk : Status::kNotFound));
      const uint32_t left = filter->Count(key, n);
      FUZZ_CHECK(filter->Contain(key, n) == (left > 0));
      if (c == 0) {
        FUZZ_CHECK(left == 0);
      } else if (filter->deleted() == deleted + 1) {
        // One fewer, or two where the slot freed was in a bucket that is both
        // of the key's buckets (counted twice by CF.COUNT).
        FUZZ_CHECK(left == c - 1 || (c >= 2 && left == c - 2));
      } else {
        // The delete compacted (deleted() back to 0): fingerprints moved
        // from newer sub-filters into older ones, whose fewer buckets can
        // put another key's matching fingerprint into one of this key's, so
        // its count may go up as CF.COUNT's would.
        FUZZ_CHECK(filter->deleted() == 0);
      }
    }
  }
  std::vector<uint8_t> results(kKeys);
  filter->ContainBatch(keys.packed.data(), keys.offsets, kKeys, results.data());
  for (int k = 0; k < kKeys; ++k) {
    FUZZ_CHECK(results[k] == (filter->Contain(keys.key[k].data, keys.key[k].len) ? 1 : 0));
  }
  const std::vector<uint8_t> after = SerializeToVector(*filter);
  std::unique_ptr<RedisCuckooFilter> after_loaded;
  FUZZ_CHECK(RedisCuckooFilter::Deserialize(after.data(), after.size(), &after_loaded) ==
             Status::kOk);
  FUZZ_CHECK(SerializeToVector(*after_loaded) == after);
  return s;
}

// The Redis Bloom filter's own format (version 4, family 4): loads, writes
// itself back, dumps SCANDUMP chunks that load back to the same filter, and
// keeps BF.ADD's contract (no false negative; an item it holds changes nothing).
Status FuzzRedisBloom(const uint8_t* bytes, size_t len, const Keys& keys) {
  std::unique_ptr<RedisBloomFilter> filter;
  const Status s = RedisBloomFilter::Deserialize(bytes, len, &filter);
  if (s != Status::kOk) {
    FUZZ_CHECK(IsRefusal(s));
    FUZZ_CHECK(filter == nullptr);
    return s;
  }
  const std::vector<uint8_t> again = SerializeToVector(*filter);
  FUZZ_CHECK(again.size() == len && std::memcmp(again.data(), bytes, len) == 0);
  std::vector<uint8_t> header(filter->DumpHeaderBytes());
  std::unique_ptr<RedisBloomFilter> loaded;
  const uint32_t chunks = filter->DumpChunkCount();
  for (uint32_t j = 0; j < chunks; ++j) {
    const cuckoo::RedisChunk c = filter->DumpChunk(j, header.data());
    const Status l = j == 0 ? RedisBloomFilter::LoadDumpHeader(c.iterator, c.data, c.len, &loaded)
                            : loaded->LoadDumpChunk(c.iterator, c.data, c.len);
    FUZZ_CHECK(l == Status::kOk);
  }
  if (chunks > 0) {
    FUZZ_CHECK(loaded->FinishDump() == Status::kOk);
    FUZZ_CHECK(SerializeToVector(*loaded) == again);
  }
  // Keys, while a new link stays small.
  uint64_t bytes_now = 0;
  for (uint32_t j = 0; j < filter->sub_filter_count(); ++j) bytes_now += filter->link(j).bytes();
  // The next link is about growth() times the newest (4 bpe more at most).
  const uint64_t growth = filter->growth() == 0 ? 1 : filter->growth();
  for (int k = 0; k < kKeys && bytes_now <= kMaxGrowthBytes / 4 / growth; ++k) {
    const uint8_t* key = keys.key[k].data;
    const size_t n = keys.key[k].len;
    const bool held = filter->Contain(key, n);
    const uint64_t size = filter->size();
    const std::vector<uint8_t> saved = SerializeToVector(*filter);
    bool added = false;
    const Status a = filter->AddUnique(key, n, &added);
    if (a == Status::kOk) {
      FUZZ_CHECK(filter->Contain(key, n));
      FUZZ_CHECK(added == !held);
      FUZZ_CHECK(filter->size() == size + (added ? 1 : 0));
      if (held) FUZZ_CHECK(SerializeToVector(*filter) == saved);
    } else {
      FUZZ_CHECK(a == Status::kNotEnoughSpace || a == Status::kGrowthLimit ||
                 a == Status::kOutOfMemory);
      FUZZ_CHECK(SerializeToVector(*filter) == saved);
    }
    bytes_now = 0;
    for (uint32_t j = 0; j < filter->sub_filter_count(); ++j) bytes_now += filter->link(j).bytes();
  }
  std::vector<uint8_t> results(kKeys);
  filter->ContainBatch(keys.packed.data(), keys.offsets, kKeys, results.data());
  for (int k = 0; k < kKeys; ++k) {
    FUZZ_CHECK(results[k] == (filter->Contain(keys.key[k].data, keys.key[k].len) ? 1 : 0));
  }
  return s;
}

// The binary fuse filter's format (version 4, family 5): loads, writes itself
// back and loads again to the same bytes; its fields agree with each other;
// it is static (Add and AddBatch refused, nothing changed; no Create from
// it); Contain and ContainBatch agree; and a filter built from the keys with
// its parameters holds every one of them (no false negative can be checked
// on the loaded one: its keys are unknown).
Status FuzzBinaryFuse(const uint8_t* bytes, size_t len, const Keys& keys) {
  std::unique_ptr<BinaryFuseFilter> filter;
  const Status s = BinaryFuseFilter::Deserialize(bytes, len, &filter);
  if (s != Status::kOk) {
    FUZZ_CHECK(IsRefusal(s));
    FUZZ_CHECK(filter == nullptr);
    return s;
  }
  const std::vector<uint8_t> again = SerializeToVector(*filter);
  FUZZ_CHECK(again.size() == len && std::memcmp(again.data(), bytes, len) == 0);
  std::unique_ptr<BinaryFuseFilter> reloaded;
  FUZZ_CHECK(BinaryFuseFilter::Deserialize(again.data(), again.size(), &reloaded) == Status::kOk);
  FUZZ_CHECK(SerializeToVector(*reloaded) == again);

  const uint32_t f = filter->fingerprint_bits();
  const uint32_t arity = filter->arity();
  const uint64_t length = filter->segment_length();
  FUZZ_CHECK(f >= cuckoo::kMinFuseFingerprintBits && f <= cuckoo::kMaxFuseFingerprintBits);
  FUZZ_CHECK(arity == 3 || arity == 4);
  FUZZ_CHECK(length >= cuckoo::kMinFuseSegmentLength && length <= cuckoo::kMaxFuseSegmentLength &&
             (length & (length - 1)) == 0);
  FUZZ_CHECK(filter->segment_count() >= 1);
  FUZZ_CHECK(filter->array_length() == (uint64_t{filter->segment_count()} + arity - 1) * length);
  FUZZ_CHECK(filter->array_length() <= cuckoo::kMaxFuseArrayLength);
  FUZZ_CHECK(filter->size() <= filter->array_length());
  FUZZ_CHECK(filter->fingerprint_bytes() == cuckoo::FuseFingerprintBytes(filter->array_length(), f));
  FUZZ_CHECK(filter->SerializedSize() == format::kHeaderV4Bytes +
                                             format::FuseSectionBytes(filter->fingerprint_bytes()) +
                                             format::kChecksumBytes);
  FUZZ_CHECK(!filter->collecting() && filter->pending() == 0);
  FUZZ_CHECK(bytes[format::v4_field::kScheme] == arity);

  // Static: every key refused, nothing changed; no filter is built from it.
  for (int k = 0; k < kKeys; ++k) {
    FUZZ_CHECK(filter->Add(keys.key[k].data, keys.key[k].len) == Status::kInvalidArgument);
  }
  Status batch_status = Status::kOk;
  FUZZ_CHECK(filter->AddBatch(keys.packed.data(), keys.offsets, kKeys, &batch_status) == 0);
  FUZZ_CHECK(batch_status == Status::kInvalidArgument);
  cuckoo::BinaryFuseParams params;
  params.fingerprint_bits = f;
  params.arity = arity;
  params.seed = filter->seed();
  params.from = reinterpret_cast<uintptr_t>(filter.get());
  std::unique_ptr<BinaryFuseFilter> built;
  FUZZ_CHECK(BinaryFuseFilter::Create(params, &built) == Status::kInvalidArgument && built == nullptr);
  FUZZ_CHECK(SerializeToVector(*filter) == again);

  // Contain and ContainBatch agree; the filter of no keys reports none.
  std::vector<uint8_t> results(kKeys);
  filter->ContainBatch(keys.packed.data(), keys.offsets, kKeys, results.data());
  for (int k = 0; k < kKeys; ++k) {
    const bool in = filter->Contain(keys.key[k].data, keys.key[k].len);
    FUZZ_CHECK(results[k] == (in ? 1 : 0));
    FUZZ_CHECK(reloaded->Contain(keys.key[k].data, keys.key[k].len) == in);
    if (filter->size() == 0) FUZZ_CHECK(!in);
  }
  FUZZ_CHECK(filter->Contain(keys.src, keys.src_len) == reloaded->Contain(keys.src, keys.src_len));

  // A filter of the keys with this one's parameters (its seed from the
  // input) holds them, and its bytes load.
  params.from = 0;
  std::unique_ptr<BinaryFuseFilter> collecting;
  FUZZ_CHECK(BinaryFuseFilter::Create(params, &collecting) == Status::kOk);
  FUZZ_CHECK(collecting->AddBatch(keys.packed.data(), keys.offsets, kKeys, &batch_status) == size_t{kKeys});
  FUZZ_CHECK(batch_status == Status::kOk);
  params.from = reinterpret_cast<uintptr_t>(collecting.get());
  FUZZ_CHECK(BinaryFuseFilter::Create(params, &built) == Status::kOk);
  FUZZ_CHECK(collecting->pending() == 0);
  for (int k = 0; k < kKeys; ++k) FUZZ_CHECK(built->Contain(keys.key[k].data, keys.key[k].len));
  const std::vector<uint8_t> fresh = SerializeToVector(*built);
  std::unique_ptr<BinaryFuseFilter> fresh_loaded;
  FUZZ_CHECK(BinaryFuseFilter::Deserialize(fresh.data(), fresh.size(), &fresh_loaded) == Status::kOk);
  FUZZ_CHECK(SerializeToVector(*fresh_loaded) == fresh);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::vector<uint8_t> payload(data + 1, data + size);
  if ((mode & 3) == 3) {
    if (VersionOf(payload) == format::kFormatVersionStack ||
        VersionOf(payload) == format::kFormatVersionBloom ||
        VersionOf(payload) == format::kFormatVersionExplicit) {
      FixStackLengths(&payload);
    } else {
      FixLength(&payload);
    }
  }
  if (mode & 1) FixChecksum(&payload);
  const uint16_t version = VersionOf(payload);  // after the fix-ups (a short file's checksum may cover it)
  // Deserialize must never read past len: hand it an exact-size heap copy
  // (a std::vector of size 0 has no buffer, so use a 1-byte dummy then).
  std::unique_ptr<uint8_t[]> bytes(new uint8_t[payload.empty() ? 1 : payload.size()]);
  if (!payload.empty()) std::memcpy(bytes.get(), payload.data(), payload.size());
  const size_t len = payload.size();
  const Keys keys(data, size);

  const Status plain = FuzzPlain(bytes.get(), len, data, size);
  const Status growing = FuzzGrowingCuckoo(bytes.get(), len, keys);
  const Status bloom = FuzzGrowingBloom(bytes.get(), len, keys);
  const Status redis = FuzzRedisCuckoo(bytes.get(), len, keys);
  const Status redis_bloom = FuzzRedisBloom(bytes.get(), len, keys);
  const Status fuse = FuzzBinaryFuse(bytes.get(), len, keys);
  FUZZ_CHECK(redis != Status::kOk || (growing != Status::kOk && bloom != Status::kOk));
  FUZZ_CHECK(redis_bloom != Status::kOk ||
             (growing != Status::kOk && bloom != Status::kOk && redis != Status::kOk));
  FUZZ_CHECK(fuse != Status::kOk || (plain != Status::kOk && growing != Status::kOk && bloom != Status::kOk &&
                                     redis != Status::kOk && redis_bloom != Status::kOk));
  // A known version whose family byte names a family: every other family's
  // reader names it (kFormatWrongFamily), and only those.
  const uint8_t named =
      format::KnownVersion(version) ? format::FileType(bytes.get(), len, version) : 0;
  if (named != 0) {
    FUZZ_CHECK((growing == Status::kFormatWrongFamily) == (named != format::kTypeCuckoo));
    FUZZ_CHECK((bloom == Status::kFormatWrongFamily) == (named != format::kTypeBloom));
    FUZZ_CHECK((redis == Status::kFormatWrongFamily) == (named != format::kTypeRedisCuckoo));
    FUZZ_CHECK((redis_bloom == Status::kFormatWrongFamily) == (named != format::kTypeRedisBloom));
    FUZZ_CHECK((fuse == Status::kFormatWrongFamily) == (named != format::kTypeBinaryFuse));
  } else {
    FUZZ_CHECK(redis != Status::kFormatWrongFamily);
    FUZZ_CHECK(redis_bloom != Status::kFormatWrongFamily);
    FUZZ_CHECK(fuse != Status::kFormatWrongFamily);
  }

  // The three readers agree on what the bytes are.
  FUZZ_CHECK(growing != Status::kOk || bloom != Status::kOk);
  if (plain == Status::kOk) FUZZ_CHECK(growing == Status::kOk);
  if (version == format::kFormatVersion && len >= format::kPrefixBytes) {
    FUZZ_CHECK(growing == plain);
    FUZZ_CHECK(bloom == Status::kFormatWrongFamily);
  }
  // Versions 2 and 4 hold either family, named by the byte at offset 6.
  const bool either = version == format::kFormatVersionStack ||
                      version == format::kFormatVersionExplicit;
  if (either || version == format::kFormatVersionBloom) {
    FUZZ_CHECK(plain == Status::kFormatUnsupportedVersion);
    const uint8_t type = len > format::stack_field::kType ? payload[format::stack_field::kType] : 0;
    if (type == format::kTypeBloom) FUZZ_CHECK(growing == Status::kFormatWrongFamily);
    if (either && type == format::kTypeCuckoo) FUZZ_CHECK(bloom == Status::kFormatWrongFamily);
    // Version 3 holds no cuckoo filter, and another type byte names no type:
    // both readers refuse it with the same status.
    if (version == format::kFormatVersionBloom) FUZZ_CHECK(growing != Status::kOk);
    if (version == format::kFormatVersionBloom && type != format::kTypeBloom) {
      FUZZ_CHECK(growing == bloom);
    }
    // A reader names only the other family, never its own or an unknown one.
    if (growing == Status::kFormatWrongFamily) FUZZ_CHECK(type != format::kTypeCuckoo);
    if (bloom == Status::kFormatWrongFamily) FUZZ_CHECK(either && type != format::kTypeBloom);
  }
  if (!format::KnownVersion(version) && len >= format::kPrefixBytes) {
    FUZZ_CHECK(growing != Status::kFormatWrongFamily && bloom != Status::kFormatWrongFamily);
  }
  if (!format::KnownVersion(version) &&
      len >= format::kPrefixBytes && std::memcmp(payload.data(), format::kMagic, 4) == 0) {
    FUZZ_CHECK(plain == Status::kFormatUnsupportedVersion);
    FUZZ_CHECK(growing == Status::kFormatUnsupportedVersion);
    FUZZ_CHECK(bloom == Status::kFormatUnsupportedVersion);
  }
  return 0;
}
