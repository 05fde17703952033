// libFuzzer target for CuckooFilter::Deserialize, the core's one parser of
// untrusted bytes (docs/FORMAT.md, src/format.h). Built with ASan + UBSan by
// the CMake preset "fuzz" (CMakePresets.json), which scripts/fuzz.sh runs:
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
//                  behind it (victim, padding, item count). In this mode the
//                  last 8 payload bytes are overwritten with cuckoo::Checksum
//                  (XXH3-64, seed 0) of all preceding payload bytes, little-
//                  endian, as Serialize writes it.
//   mode & 3 == 3  length fix-up as well: before the checksum, the header's
//                  table-length field is set from its bucket count, bucket size
//                  and fingerprint bits, and the payload is cut or zero-padded to
//                  header + table + checksum (only when those three are in range
//                  and the total is at most kMaxFixupBytes), so that mutating f,
//                  b or m still reaches the table checks.
// The seed corpus (tests/fuzz/corpus, made by tests/fuzz/make_corpus.cc) holds
// valid filters under each mode byte.
//
// Every input must end in kOk or a kFormat* / kOutOfMemory status. A loaded
// filter must re-serialize to exactly the payload, load again, keep its
// invariants (size <= slots + 1, capacity <= slots, ...), and survive Add /
// Contain / Count / Delete of keys cut from the input, after which it must
// still serialize to bytes that load. A failed check prints what failed and
// traps; like any ASan/UBSan report or leak, that is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "cuckoo_filter.h"
#include "format.h"
#include "status.h"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::Status;
namespace format = cuckoo::format;
namespace field = cuckoo::format::cuckoo_field;

#define FUZZ_CHECK(cond)                                                          \
  do {                                                                            \
    if (!(cond)) {                                                                \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s:%d)\n", #cond, __FILE__,    \
                   __LINE__);                                                     \
      __builtin_trap();                                                           \
    }                                                                             \
  } while (0)

// Largest payload the length fix-up builds (bounds time per input).
constexpr uint64_t kMaxFixupBytes = 64 * 1024;
// Above this max_kicks, a loaded filter is only checked read-only: a full table
// with max_kicks up to kMaxMaxKicks (1,000,000) makes each Add a million-kick
// chain, which is correct but would drop the fuzzer to a few executions/s.
constexpr uint32_t kMaxKicksForMutation = 2000;

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
      return true;
    default:
      return false;
  }
}

// Mode 3: makes the table-length field and the payload length agree with (m, b, f).
void FixLength(std::vector<uint8_t>* buf) {
  if (buf->size() < format::kCuckooHeaderBytes) return;
  const uint8_t* h = buf->data();
  const uint32_t f = h[field::kFingerprintBits];
  const uint32_t b = h[field::kBucketSize];
  const uint64_t m = format::GetU32(h + field::kBucketCount);
  if (!cuckoo::ValidFingerprintBits(f) || !cuckoo::ValidBucketSize(b) || m == 0) return;
  const uint64_t table = cuckoo::PackedTable::ByteLength(m * b, f);
  const uint64_t total = format::CuckooFileBytes(table);
  if (total > kMaxFixupBytes) return;
  format::PutU64(buf->data() + field::kTableBytes, table);
  buf->resize(total, 0);
}

// Mode 1 and 3: the last 8 bytes become the checksum of the bytes before them.
void FixChecksum(std::vector<uint8_t>* buf) {
  if (buf->size() < format::kChecksumBytes) return;
  format::WriteChecksum(buf->data(), buf->size() - format::kChecksumBytes);
}

std::vector<uint8_t> SerializeToVector(const CuckooFilter& filter) {
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
  FUZZ_CHECK(f.SerializedSize() ==
             format::CuckooFileBytes(
                 cuckoo::PackedTable::ByteLength(f.slot_count(), f.fingerprint_bits())));
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::vector<uint8_t> payload(data + 1, data + size);
  if ((mode & 3) == 3) FixLength(&payload);
  if (mode & 1) FixChecksum(&payload);
  // Deserialize must never read past len: hand it an exact-size heap copy
  // (a std::vector of size 0 has no buffer, so use a 1-byte dummy then).
  std::unique_ptr<uint8_t[]> bytes(new uint8_t[payload.empty() ? 1 : payload.size()]);
  if (!payload.empty()) std::memcpy(bytes.get(), payload.data(), payload.size());
  const size_t len = payload.size();

  std::unique_ptr<CuckooFilter> filter;
  const Status s = CuckooFilter::Deserialize(bytes.get(), len, &filter);
  if (s != Status::kOk) {
    FUZZ_CHECK(IsRefusal(s));
    FUZZ_CHECK(cuckoo::StatusMessage(s)[0] != '\0');
    FUZZ_CHECK(filter == nullptr);  // *out untouched on error
    return 0;
  }
  FUZZ_CHECK(filter != nullptr);
  CheckInvariants(*filter);

  // A loaded filter re-serializes to exactly the bytes it was loaded from.
  FUZZ_CHECK(filter->SerializedSize() == len);
  const std::vector<uint8_t> again = SerializeToVector(*filter);
  FUZZ_CHECK(again.size() == len && std::memcmp(again.data(), bytes.get(), len) == 0);

  // And those bytes load again, to the same filter.
  std::unique_ptr<CuckooFilter> reloaded;
  FUZZ_CHECK(CuckooFilter::Deserialize(again.data(), again.size(), &reloaded) == Status::kOk);
  FUZZ_CHECK(reloaded != nullptr && reloaded->size() == filter->size());
  FUZZ_CHECK(SerializeToVector(*reloaded) == again);

  if (filter->max_kicks() > kMaxKicksForMutation) {
    // Read-only probes only (see kMaxKicksForMutation).
    Probe(*filter, bytes.get(), len);
    Probe(*filter, bytes.get(), len < 8 ? len : 8);
    return 0;
  }

  // Mutate the filter, then it must still serialize to bytes that load.
  Exercise(filter.get(), data, size);
  const std::vector<uint8_t> after = SerializeToVector(*filter);
  FUZZ_CHECK(after.size() == len);
  std::unique_ptr<CuckooFilter> after_loaded;
  FUZZ_CHECK(CuckooFilter::Deserialize(after.data(), after.size(), &after_loaded) == Status::kOk);
  FUZZ_CHECK(after_loaded->size() == filter->size());
  return 0;
}
