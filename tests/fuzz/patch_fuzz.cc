// libFuzzer target for ApplyPatch and ReadPatchInfo (src/patch/patch.h,
// docs/FORMAT.md §17): patch bytes from the fuzzer applied to real bases, one
// per family and shape (cuckoo packed, semi-sorted, growing, version 1;
// Bloom, growing; the Redis families; binary fuse, three- and four-wise),
// each with a real patch to its next version. Built with ASan + UBSan by the CMake preset "fuzz", which
// scripts/fuzz.sh runs:
//
//   bash scripts/fuzz.sh --target patch 20000
//   build/fuzz/patch_fuzz FILE...        # replay inputs
//
// Input layout: byte 0 = mode (bits 0-1) and base (bits 2-7, modulo the
// number of bases); the rest is the payload.
//   mode 0  the payload is the patch;
//   mode 1  the payload's first two bytes are an offset (u16, little-endian,
//           modulo the patch's length); the rest is XORed into the base's real
//           patch from there (cut to its length), whose checksum is then
//           recomputed, so mutants reach the body's decoder;
//   mode 2  the payload replaces the real patch's body (header kept, checksum
//           recomputed);
//   mode 3  as mode 1, but applied to another base (the next one in the list).
// Every input must end in kOk or a refusal (kPatch*, kFormat*, kOutOfMemory);
// a result must load, carry the checksum its patch names, and be reached
// again by the diff from the base to it; the base is never written.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "cuckoo/cuckoo_filter.h"
#include "format/format.h"
#include "fuse/binary_fuse_filter.h"
#include "fuzz_check.h"
#include "patch/patch.h"
#include "redis/redis_bloom.h"
#include "redis/redis_cuckoo.h"
#include "growth/scalable_filter.h"

namespace {

using cuckoo::Status;
using Bytes = std::vector<uint8_t>;

template <class F>
Bytes BytesOf(const F& f) {
  Bytes out(f.SerializedSize());
  f.Serialize(out.data());
  return out;
}

std::string Key(int i) { return "k" + std::to_string(i); }
const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

struct Pair {
  Bytes base;
  Bytes patch;
};

// Day 0 (keys 0..n-1) and day 1 (every 7th deleted where the family deletes,
// n/2 more added) of filter f, and the patch between them.
template <class F>
Pair Days(F& f, int n, bool deletes) {
  for (int i = 0; i < n; ++i) f.Add(U8(Key(i)), Key(i).size());
  Pair p;
  p.base = BytesOf(f);
  if constexpr (!std::is_same_v<F, cuckoo::ScalableBloomFilter> && !std::is_same_v<F, cuckoo::RedisBloomFilter>) {
    if (deletes) {
      for (int i = 0; i < n; i += 7) f.Delete(U8(Key(i)), Key(i).size());
    }
  }
  for (int i = n; i < n + n / 2; ++i) f.Add(U8(Key(i)), Key(i).size());
  const Bytes next = BytesOf(f);
  uint8_t* out = nullptr;
  size_t len = 0;
  FUZZ_CHECK(cuckoo::Diff(p.base.data(), p.base.size(), next.data(), next.size(), &out, &len) == Status::kOk);
  p.patch.assign(out, out + len);
  std::free(out);
  return p;
}

// A binary fuse filter is static: day 0 is the set of keys 0..n-1, day 1
// the same set with every 7th key replaced by a new one (as many keys: the
// same shape, which a patch needs), each built from a collecting filter.
Bytes FuseOf(const cuckoo::BinaryFuseParams& params, int n, bool replaced) {
  std::unique_ptr<cuckoo::BinaryFuseFilter> collecting;
  FUZZ_CHECK(cuckoo::BinaryFuseFilter::Create(params, &collecting) == Status::kOk);
  for (int i = 0; i < n; ++i) {
    const std::string k = replaced && i % 7 == 0 ? Key(n + i) : Key(i);
    FUZZ_CHECK(collecting->Add(U8(k), k.size()) == Status::kOk);
  }
  cuckoo::BinaryFuseParams p = params;
  p.from = reinterpret_cast<uintptr_t>(collecting.get());
  std::unique_ptr<cuckoo::BinaryFuseFilter> f;
  FUZZ_CHECK(cuckoo::BinaryFuseFilter::Create(p, &f) == Status::kOk);
  return BytesOf(*f);
}

Pair FuseDays(uint32_t arity, uint32_t fingerprint_bits, int n) {
  cuckoo::BinaryFuseParams p;
  p.arity = arity;
  p.fingerprint_bits = fingerprint_bits;
  Pair pair;
  pair.base = FuseOf(p, n, false);
  const Bytes next = FuseOf(p, n, true);
  uint8_t* out = nullptr;
  size_t len = 0;
  FUZZ_CHECK(cuckoo::Diff(pair.base.data(), pair.base.size(), next.data(), next.size(), &out, &len) == Status::kOk);
  pair.patch.assign(out, out + len);
  std::free(out);
  return pair;
}

std::vector<Pair> MakePairs() {
  std::vector<Pair> pairs;
  for (auto e : {cuckoo::TableEncoding::kPacked, cuckoo::TableEncoding::kSemiSorted}) {
    for (uint32_t expansion : {0u, 2u}) {
      cuckoo::CuckooParams p;
      p.capacity = 60;
      p.fingerprint_bits = 9;
      p.encoding = e;
      std::unique_ptr<cuckoo::ScalableCuckooFilter> f;
      FUZZ_CHECK(cuckoo::ScalableCuckooFilter::Create(p, expansion, &f) == Status::kOk);
      pairs.push_back(Days(*f, expansion == 0 ? 40 : 60, true));
    }
  }
  {
    cuckoo::CuckooParams p;
    p.capacity = 60;
    p.fingerprint_bits = 7;
    p.bucket_size = 2;
    std::unique_ptr<cuckoo::CuckooFilter> f;
    FUZZ_CHECK(cuckoo::CuckooFilter::Create(p, &f) == Status::kOk);
    pairs.push_back(Days(*f, 40, true));
  }
  for (uint32_t expansion : {0u, 2u}) {
    cuckoo::ScalableBloomParams p;
    p.capacity = 40;
    p.expansion = expansion;
    std::unique_ptr<cuckoo::ScalableBloomFilter> f;
    FUZZ_CHECK(cuckoo::ScalableBloomFilter::Create(p, &f) == Status::kOk);
    pairs.push_back(Days(*f, 40, false));
  }
  {
    cuckoo::RedisCuckooParams p;
    p.capacity = 32;
    p.bucket_size = 4;
    p.expansion = 2;
    std::unique_ptr<cuckoo::RedisCuckooFilter> f;
    FUZZ_CHECK(cuckoo::RedisCuckooFilter::Create(p, &f) == Status::kOk);
    pairs.push_back(Days(*f, 40, true));
  }
  {
    cuckoo::RedisBloomParams p;
    p.capacity = 30;
    std::unique_ptr<cuckoo::RedisBloomFilter> f;
    FUZZ_CHECK(cuckoo::RedisBloomFilter::Create(p, &f) == Status::kOk);
    pairs.push_back(Days(*f, 40, false));
  }
  // Last, so that the seeds' base numbers of the shapes above stay theirs.
  pairs.push_back(FuseDays(3, 9, 40));
  pairs.push_back(FuseDays(4, 13, 40));
  return pairs;
}

constexpr uint64_t kMaxResultBytes = 4 << 20;

bool Refusal(Status s) {
  const int v = static_cast<int>(s);
  return s == Status::kOutOfMemory || (v >= 10 && v <= 23) || (v >= 40 && v <= 46);
}

void Rechecksum(Bytes* p) {
  if (p->size() >= 8) cuckoo::format::WriteChecksum(p->data(), p->size() - 8);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<Pair> pairs = MakePairs();
  if (size == 0) return 0;
  const uint32_t mode = data[0] & 3;
  const size_t which = (data[0] >> 2) % pairs.size();
  const Pair& real = pairs[which];
  const uint8_t* payload = data + 1;
  const size_t n = size - 1;
  Bytes patch;
  if (mode == 0) {
    patch.assign(payload, payload + n);
  } else if (mode == 2) {
    patch.assign(real.patch.begin(), real.patch.begin() + cuckoo::kPatchHeaderBytes);
    patch.insert(patch.end(), payload, payload + n);
    patch.resize(patch.size() + 8);
    Rechecksum(&patch);
  } else {
    patch = real.patch;
    const size_t at = n >= 2 ? (payload[0] | size_t{payload[1]} << 8) % patch.size() : 0;
    for (size_t i = 2; i < n && at + i - 2 < patch.size(); ++i) patch[at + i - 2] ^= payload[i];
    Rechecksum(&patch);
  }
  const Bytes& base = mode == 3 ? pairs[(which + 1) % pairs.size()].base : real.base;
  const Bytes copy = base;

  cuckoo::PatchInfo info;
  const Status si = cuckoo::ReadPatchInfo(patch.data(), patch.size(), &info);
  FUZZ_CHECK(si == Status::kOk || Refusal(si));
  // A patch may name a result of up to 1 GiB, which ApplyPatch allocates
  // before it decodes the body (correctly, but slowly under ASan): such
  // inputs are skipped, as the other targets skip huge valid headers.
  if (si == Status::kOk && info.result_length > kMaxResultBytes) return 0;

  uint8_t* out = nullptr;
  size_t len = 0;
  const Status s = cuckoo::ApplyPatch(base.data(), base.size(), patch.data(), patch.size(), &out, &len);
  FUZZ_CHECK(base == copy);
  FUZZ_CHECK(s == Status::kOk || Refusal(s));
  if (s != Status::kOk) {
    FUZZ_CHECK(out == nullptr);
    return 0;
  }
  FUZZ_CHECK(si == Status::kOk && len == info.result_length);
  FUZZ_CHECK(cuckoo::format::GetU64(out + len - 8) == info.result_checksum);
  // The result is a filter with the base's parameters (ApplyPatch checks
  // them): the diff from the base reaches it again.
  uint8_t* again = nullptr;
  size_t again_len = 0;
  const Status sd = cuckoo::Diff(base.data(), base.size(), out, len, &again, &again_len);
  FUZZ_CHECK(sd == Status::kOk);
  uint8_t* redo = nullptr;
  size_t redo_len = 0;
  FUZZ_CHECK(cuckoo::ApplyPatch(base.data(), base.size(), again, again_len, &redo, &redo_len) == Status::kOk);
  FUZZ_CHECK(redo_len == len && std::memcmp(redo, out, len) == 0);
  std::free(redo);
  std::free(again);
  std::free(out);
  return 0;
}
