// What the patch tests (patch_test.cc) share: a filter of any family behind
// one interface (Subject), and patches written by hand, the bytes
// docs/FORMAT.md §17 defines made without Diff, so a test can make a patch
// whose checksums are all right and whose result is one Diff never makes.
#ifndef CUCKOO_WASM_TESTS_NATIVE_PATCH_TEST_UTIL_H_
#define CUCKOO_WASM_TESTS_NATIVE_PATCH_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "cuckoo/cuckoo_filter.h"
#include "common/family.h"
#include "format/format.h"
#include "patch/patch.h"
#include "patch/patch_bits.h"
#include "redis/redis_bloom.h"
#include "growth/scalable_filter.h"

namespace cuckoo {
namespace patch_test {

using Bytes = std::vector<uint8_t>;

// One filter of a shape: add and delete keys (Bloom: delete does nothing),
// and its serialized bytes.
struct Subject {
  std::function<void(const std::string&)> add;
  std::function<void(const std::string&)> del;
  std::function<Bytes()> bytes;
  std::function<uint32_t()> sub_filters;
};

template <class F>
Subject Wrap(std::shared_ptr<F> f, bool deletes) {
  Subject s;
  s.add = [f](const std::string& k) {
    ASSERT_EQ(f->Add(reinterpret_cast<const uint8_t*>(k.data()), k.size()), Status::kOk) << k;
  };
  s.del = [f, deletes](const std::string& k) {
    if constexpr (std::is_same_v<F, ScalableBloomFilter> || std::is_same_v<F, RedisBloomFilter>) {
      (void)k;
      (void)deletes;
    } else {
      if (deletes) f->Delete(reinterpret_cast<const uint8_t*>(k.data()), k.size());
    }
  };
  s.bytes = [f] {
    Bytes out(f->SerializedSize());
    f->Serialize(out.data());
    return out;
  };
  s.sub_filters = [f]() -> uint32_t {
    if constexpr (std::is_same_v<F, CuckooFilter>) {
      return 1;
    } else {
      return f->sub_filter_count();
    }
  };
  return s;
}

template <class F>
std::shared_ptr<F> Own(std::unique_ptr<F> p) {
  return std::shared_ptr<F>(p.release(), [](F* x) { delete x; });
}

// The patch from the filter `base` to the bytes `result` (of equal length,
// with the same tables): a byte edit at every byte that differs (checksum
// bytes too: the decoder makes those again), then an empty list for each of
// the result's `tables` tables or bit arrays (§17.3); the header names both
// files' lengths and checksums (§17.1), and the patch's checksum is right.
inline Bytes CraftPatch(const Bytes& base, const Bytes& result, Family family, int tables) {
  std::vector<uint64_t> edits;
  for (size_t p = 0; p < result.size(); ++p) {
    if (base[p] != result[p]) edits.push_back(p);
  }
  uint8_t header[kPatchHeaderBytes] = {'C', 'K', 'P', 'T'};
  format::PutU16(header + patch_field::kVersion, kPatchVersion);
  header[patch_field::kFamily] = static_cast<uint8_t>(family);
  format::PutU64(header + patch_field::kBaseLength, base.size());
  format::PutU64(header + patch_field::kBaseChecksum, format::GetU64(base.data() + base.size() - 8));
  format::PutU64(header + patch_field::kResultLength, result.size());
  format::PutU64(header + patch_field::kResultChecksum, format::GetU64(result.data() + result.size() - 8));
  patch::BitWriter w;
  w.Bytes(header, sizeof header);
  w.Gamma(edits.size() + 1);  // the number of changes
  w.Gamma(edits.size() + 1);  // the byte edits: a position list, gaps in Rice k = 0
  if (!edits.empty()) w.Bits(0, 6);
  for (size_t k = 0; k < edits.size(); ++k) {
    w.Rice(edits[k] - (k == 0 ? 0 : edits[k - 1] + 1), 0);
    w.Bits(base[edits[k]] ^ result[edits[k]], 8);
  }
  for (int i = 0; i < tables; ++i) w.Gamma(1);
  w.Align();
  w.Bits(0, 8 * kPatchChecksumBytes);
  size_t n = 0;
  uint8_t* bytes = w.Release(&n);
  Bytes out(bytes, bytes + n);
  std::free(bytes);
  format::WriteChecksum(out.data(), out.size() - kPatchChecksumBytes);
  return out;
}

}  // namespace patch_test
}  // namespace cuckoo

#endif  // CUCKOO_WASM_TESTS_NATIVE_PATCH_TEST_UTIL_H_
