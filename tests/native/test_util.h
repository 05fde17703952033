// What the native tests share: short helpers over the byte-oriented API, an
// independent reader of the serialized bytes (Decode) used as an oracle of
// where every fingerprint is stored, and status printing for gtest.
//
// Everything here is deterministic: keys are fixed strings and both the key hash
// and the eviction PRNG are seeded, so any failure reproduces exactly. "Nothing
// lost, nothing duplicated" is checked as equality of two multisets of
// (fingerprint, bucket pair) signatures, one from the keys added, one from the
// table + victim as Decode reads them (StoresExactly).
#ifndef CUCKOO_WASM_TESTS_NATIVE_TEST_UTIL_H_
#define CUCKOO_WASM_TESTS_NATIVE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cuckoo/cuckoo_filter.h"
#include "format/format.h"
#include "common/hash.h"
#include "status.h"
#include "testing/cuckoo_peer.h"

// ---------------------------------------------------------------------------
// Status printing, so gtest failure messages name the status.

namespace cuckoo {

inline const char* TestStatusName(Status s) {
  switch (s) {
    case Status::kOk:
      return "kOk";
    case Status::kNotFound:
      return "kNotFound";
    case Status::kNotEnoughSpace:
      return "kNotEnoughSpace";
    case Status::kInvalidArgument:
      return "kInvalidArgument";
    case Status::kOutOfMemory:
      return "kOutOfMemory";
    case Status::kFormatTruncated:
      return "kFormatTruncated";
    case Status::kFormatBadMagic:
      return "kFormatBadMagic";
    case Status::kFormatUnsupportedVersion:
      return "kFormatUnsupportedVersion";
    case Status::kFormatBadParameter:
      return "kFormatBadParameter";
    case Status::kFormatTrailingBytes:
      return "kFormatTrailingBytes";
    case Status::kFormatChecksumMismatch:
      return "kFormatChecksumMismatch";
    case Status::kFormatCountMismatch:
      return "kFormatCountMismatch";
    case Status::kFormatBadVictim:
      return "kFormatBadVictim";
    case Status::kFormatBadPadding:
      return "kFormatBadPadding";
    case Status::kFormatWrongFamily:
      return "kFormatWrongFamily";
    case Status::kFormatBadChunk:
      return "kFormatBadChunk";
    case Status::kGrowthLimit:
      return "kGrowthLimit";
    case Status::kUrlEmpty:
      return "kUrlEmpty";
    case Status::kUrlNoHost:
      return "kUrlNoHost";
    case Status::kUrlBadHost:
      return "kUrlBadHost";
    case Status::kUrlTooLong:
      return "kUrlTooLong";
    case Status::kUrlNonAsciiHost:
      return "kUrlNonAsciiHost";
  }
  return "(unnamed status)";
}

inline void PrintTo(Status s, std::ostream* os) {
  *os << TestStatusName(s) << " (" << static_cast<int>(s) << ")";
}

}  // namespace cuckoo

namespace cuckoo_test {

namespace format = cuckoo::format;
using cuckoo::CuckooFilter;
using cuckoo::CuckooParams;
using cuckoo::Status;
using Bytes = std::vector<uint8_t>;
using FilterPtr = std::unique_ptr<CuckooFilter>;

inline constexpr uint32_t kBucketSizes[] = {2, 4, 8};

// ---------------------------------------------------------------------------
// Small helpers over the byte-oriented API.

inline const uint8_t* U8(const std::string& s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}
inline Status Add(CuckooFilter& f, const std::string& k) { return f.Add(U8(k), k.size()); }
inline bool Contain(const CuckooFilter& f, const std::string& k) {
  return f.Contain(U8(k), k.size());
}
inline Status Delete(CuckooFilter& f, const std::string& k) { return f.Delete(U8(k), k.size()); }
inline uint32_t Count(const CuckooFilter& f, const std::string& k) {
  return f.Count(U8(k), k.size());
}

inline std::string Key(const char* prefix, uint64_t i) { return prefix + std::to_string(i); }

inline CuckooParams Params(uint64_t capacity, uint32_t fingerprint_bits, uint32_t bucket_size,
                           uint32_t max_kicks = 500, uint64_t seed = 1) {
  CuckooParams p;
  p.capacity = capacity;
  p.fingerprint_bits = fingerprint_bits;
  p.bucket_size = bucket_size;
  p.max_kicks = max_kicks;
  p.seed = seed;
  return p;
}

// Creates a filter; records a test failure (and returns null) if Create refuses.
inline FilterPtr Make(const CuckooParams& p) {
  FilterPtr f;
  const Status s = CuckooFilter::Create(p, &f);
  EXPECT_EQ(s, Status::kOk) << "capacity " << p.capacity << " f " << p.fingerprint_bits << " b "
                            << p.bucket_size;
  return s == Status::kOk ? std::move(f) : nullptr;
}

inline Bytes Serialize(const CuckooFilter& f) {
  Bytes out(f.SerializedSize());
  f.Serialize(out.data());
  return out;
}

// Deserializes from an exactly-sized heap copy, so AddressSanitizer flags any
// read past `bytes.size()`.
inline Status Load(const Bytes& bytes, FilterPtr* out) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[bytes.size() == 0 ? 1 : bytes.size()]);
  if (!bytes.empty()) std::memcpy(copy.get(), bytes.data(), bytes.size());
  return CuckooFilter::Deserialize(copy.get(), bytes.size(), out);
}

inline bool IsPowerOfTwo(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

inline bool IsFormatStatus(Status s) {
  return static_cast<int>(s) >= static_cast<int>(Status::kFormatTruncated) &&
         static_cast<int>(s) <= static_cast<int>(Status::kFormatBadPadding);
}

// Portable deterministic PRNG for test data (std::mt19937_64's output is fully
// specified; the std distributions are not, so they are not used).
inline uint64_t Below(std::mt19937_64& rng, uint64_t n) { return rng() % n; }

template <typename T>
void Shuffle(std::vector<T>* v, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (size_t i = v->size(); i > 1; --i) std::swap((*v)[i - 1], (*v)[Below(rng, i)]);
}

// ---------------------------------------------------------------------------
// An independent reader of the serialized format (docs/FORMAT.md): 72-byte
// little-endian header, the packed table (slot s at bits [s*f, s*f+f) of a
// little-endian bit stream), then an XXH3-64 checksum of everything before it.
// The field offsets are cuckoo_format.h's; the reading (little-endian integers, the
// bit unpacking) is written from the spec, not shared with the core.

namespace off = cuckoo::format::cuckoo_field;

inline uint64_t GetLE(const Bytes& b, size_t at, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(b.at(at + i)) << (8 * i);
  return v;
}

inline void PutLE(Bytes* b, size_t at, size_t n, uint64_t v) {
  for (size_t i = 0; i < n; ++i) b->at(at + i) = static_cast<uint8_t>(v >> (8 * i));
}

// Recomputes the trailing checksum, so that only the check under test can
// catch an edited field.
inline void Reseal(Bytes* b) {
  const size_t body = b->size() - format::kChecksumBytes;
  PutLE(b, body, format::kChecksumBytes, cuckoo::Checksum(b->data(), body));
}

struct Table {
  uint32_t f = 0;
  uint32_t b = 0;
  uint64_t m = 0;
  uint32_t victim_fp = 0;
  uint32_t victim_bucket = 0;
  uint64_t item_count = 0;
  std::vector<uint32_t> slots;  // m * b fingerprints, 0 = empty

  uint32_t At(uint64_t bucket, uint32_t s) const { return slots.at(bucket * b + s); }
  uint32_t Occupied(uint64_t bucket) const {
    uint32_t n = 0;
    for (uint32_t s = 0; s < b; ++s) n += At(bucket, s) != 0;
    return n;
  }
  bool Full(uint64_t bucket) const { return Occupied(bucket) == b; }
  uint64_t TotalOccupied() const {
    return static_cast<uint64_t>(
        std::count_if(slots.begin(), slots.end(), [](uint32_t x) { return x != 0; }));
  }
};

inline Table Decode(const Bytes& bytes) {
  Table t;
  t.f = bytes.at(off::kFingerprintBits);
  t.b = bytes.at(off::kBucketSize);
  t.m = GetLE(bytes, off::kBucketCount, 4);
  t.victim_fp = static_cast<uint32_t>(GetLE(bytes, off::kVictimFingerprint, 4));
  t.victim_bucket = static_cast<uint32_t>(GetLE(bytes, off::kVictimBucket, 4));
  t.item_count = GetLE(bytes, off::kItemCount, 8);
  const uint8_t* table = bytes.data() + format::kCuckooHeaderBytes;
  t.slots.resize(t.m * t.b);
  for (uint64_t s = 0; s < t.m * t.b; ++s) {
    uint32_t v = 0;
    for (uint32_t j = 0; j < t.f; ++j) {
      const uint64_t bit = s * t.f + j;
      v |= static_cast<uint32_t>((table[bit >> 3] >> (bit & 7)) & 1u) << j;
    }
    t.slots[s] = v;
  }
  return t;
}

inline Table Decode(const CuckooFilter& f) { return Decode(Serialize(f)); }

// (fingerprint, lower bucket, upper bucket): what a stored fingerprint says
// about the keys it may stand for. Two keys with the same fingerprint sharing
// one bucket share both, so this identifies interchangeable entries exactly.
using Signature = std::tuple<uint32_t, uint32_t, uint32_t>;
using SignatureCounts = std::map<Signature, int>;

inline Signature SignatureAt(const CuckooFilter& f, uint32_t fp, uint32_t bucket) {
  const uint32_t alt = cuckoo::CuckooFilterPeer::AltIndex(f, bucket, fp);
  return Signature(fp, std::min(bucket, alt), std::max(bucket, alt));
}

inline Signature KeySignature(const CuckooFilter& f, const std::string& key) {
  uint32_t fp = 0, i1 = 0;
  cuckoo::CuckooFilterPeer::Derive(f, U8(key), key.size(), &fp, &i1);
  return SignatureAt(f, fp, i1);
}

inline SignatureCounts StoredSignatures(const CuckooFilter& f) {
  const Table t = Decode(f);
  SignatureCounts counts;
  for (uint64_t i = 0; i < t.m; ++i) {
    for (uint32_t s = 0; s < t.b; ++s) {
      if (t.At(i, s) != 0) ++counts[SignatureAt(f, t.At(i, s), static_cast<uint32_t>(i))];
    }
  }
  if (t.victim_fp != 0) ++counts[SignatureAt(f, t.victim_fp, t.victim_bucket)];
  return counts;
}

// The table + victim hold exactly the signatures of the keys in `model`.
inline ::testing::AssertionResult StoresExactly(const CuckooFilter& f,
                                               const SignatureCounts& model) {
  SignatureCounts expected;
  for (const auto& kv : model) {
    if (kv.second != 0) expected.insert(kv);
  }
  const SignatureCounts stored = StoredSignatures(f);
  if (stored == expected) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure();
  int shown = 0;
  for (const auto& kv : expected) {
    auto it = stored.find(kv.first);
    const int have = it == stored.end() ? 0 : it->second;
    if (have != kv.second && shown++ < 5) {
      failure << "fp " << std::get<0>(kv.first) << " buckets {" << std::get<1>(kv.first) << ","
              << std::get<2>(kv.first) << "}: added " << kv.second << ", stored " << have << "; ";
    }
  }
  for (const auto& kv : stored) {
    if (expected.count(kv.first) == 0 && shown++ < 10) {
      failure << "fp " << std::get<0>(kv.first) << " stored " << kv.second
              << " times but never added; ";
    }
  }
  return failure;
}

// Checks that every key in `keys` is found, reporting the first that is not.
inline ::testing::AssertionResult AllFound(const CuckooFilter& f,
                                          const std::vector<std::string>& keys) {
  for (const auto& k : keys) {
    if (!Contain(f, k)) return ::testing::AssertionFailure() << "key \"" << k << "\" not found";
  }
  return ::testing::AssertionSuccess();
}

// Adds fresh keys `prefix`0, `prefix`1, ... until Add fails (or `limit` tries).
// Returns the keys added; *failed_key gets the key whose Add failed.
inline std::vector<std::string> FillUntilFull(CuckooFilter& f, const char* prefix,
                                              uint64_t limit, std::string* failed_key) {
  std::vector<std::string> added;
  for (uint64_t i = 0; i < limit; ++i) {
    const std::string k = Key(prefix, i);
    if (Add(f, k) != Status::kOk) {
      *failed_key = k;
      return added;
    }
    added.push_back(k);
  }
  failed_key->clear();
  return added;
}

// First key `prefix`i whose fingerprint and buckets satisfy `pred(fp, i1, i2)`.
template <typename Pred>
std::string FindKey(const CuckooFilter& f, const char* prefix, Pred pred) {
  for (uint64_t i = 0; i < 1000000; ++i) {
    const std::string k = Key(prefix, i);
    uint32_t fp = 0, i1 = 0;
    cuckoo::CuckooFilterPeer::Derive(f, U8(k), k.size(), &fp, &i1);
    if (pred(fp, i1, cuckoo::CuckooFilterPeer::AltIndex(f, i1, fp))) return k;
  }
  return std::string();
}

inline std::string BName(const ::testing::TestParamInfo<uint32_t>& info) {
  return "b" + std::to_string(info.param);
}

#ifdef CUCKOO_GOLDEN_DIR
// The bytes of tests/golden/`name`, after writing `fresh` there when the
// environment has CUCKOO_UPDATE_GOLDEN=1 (how a recipe makes its golden file:
// tests/golden/README.md). A missing file fails the test and reads as empty.
inline Bytes GoldenFile(const std::string& name, const Bytes& fresh) {
  const std::string path = std::string(CUCKOO_GOLDEN_DIR) + "/" + name;
  const char* update = std::getenv("CUCKOO_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(fresh.data()), static_cast<std::streamsize>(fresh.size()));
    EXPECT_TRUE(out.good()) << "cannot write " << path;
    std::printf("wrote %s (%zu bytes)\n", path.c_str(), fresh.size());
  }
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "missing " << path << " (see tests/golden/README.md)";
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
#endif  // CUCKOO_GOLDEN_DIR

}  // namespace cuckoo_test

using cuckoo::CuckooFilterPeer;

#endif  // CUCKOO_WASM_TESTS_NATIVE_TEST_UTIL_H_
