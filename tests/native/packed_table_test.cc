// Tests of cuckoo::PackedTable (src/cuckoo/packed_table.h), the bit-packed bucket
// array, on its own.
//
// Run: ctest --test-dir build/native -R PackedTable --output-on-failure

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuckoo/cuckoo_params.h"
#include "common/hash.h"
#include "cuckoo/packed_table.h"

namespace cuckoo_test {
namespace {

// ===========================================================================
// Word and slot probes

// PackedTable probes a bucket as one 64-bit word when b*f <= 57 and slot by
// slot otherwise. For every (b, f), random contents with empty slots and
// repeated fingerprints: Contains, Insert and Remove agree with a model of the
// slots read one at a time, and touch only the slot they should; CountOccupied
// counts the non-zero slots.
TEST(PackedTable, WordAndSlotProbesAgreeWithAModelForEveryShape) {
  uint64_t state = 99;
  for (uint32_t b : {2u, 4u, 8u}) {
    for (uint32_t f = cuckoo::kMinFingerprintBits; f <= cuckoo::kMaxFingerprintBits; ++f) {
      constexpr uint64_t kBuckets = 37;
      cuckoo::PackedTable t;
      ASSERT_TRUE(t.Init(kBuckets, b, f));
      const uint64_t max = (uint64_t{1} << f) - 1;
      std::vector<uint32_t> model(kBuckets * b);
      // Few distinct values per bucket so that matches, repeats and 0s are common.
      const uint32_t values[] = {0, 1, static_cast<uint32_t>(max), static_cast<uint32_t>(max / 3 + 1)};
      for (uint64_t i = 0; i < kBuckets; ++i) {
        for (uint32_t s = 0; s < b; ++s) {
          const uint32_t v = values[cuckoo::SplitMix64(&state) % 4];
          t.Write(i, s, v);
          model[i * b + s] = v;
        }
      }
      auto first = [&](uint64_t i, uint32_t v) {
        for (uint32_t s = 0; s < b; ++s)
          if (model[i * b + s] == v) return static_cast<int>(s);
        return -1;
      };
      auto check_all = [&](const char* after) {
        for (uint64_t i = 0; i < kBuckets; ++i)
          for (uint32_t s = 0; s < b; ++s)
            ASSERT_EQ(t.Read(i, s), model[i * b + s]) << after << " b " << b << " f " << f;
        const auto occupied = static_cast<uint64_t>(
            std::count_if(model.begin(), model.end(), [](uint32_t v) { return v != 0; }));
        ASSERT_EQ(t.CountOccupied(), occupied) << after << " b " << b << " f " << f;
      };
      for (int round = 0; round < 200; ++round) {
        const uint64_t i = cuckoo::SplitMix64(&state) % kBuckets;
        const uint32_t v = round % 5 == 4 ? static_cast<uint32_t>(cuckoo::SplitMix64(&state) % max) + 1
                                          : values[1 + cuckoo::SplitMix64(&state) % 3];
        ASSERT_EQ(t.Contains(i, v), first(i, v) >= 0) << "b " << b << " f " << f << " v " << v;
        const int free_slot = first(i, 0);
        ASSERT_EQ(t.Insert(i, v), free_slot >= 0) << "b " << b << " f " << f;
        if (free_slot >= 0) model[i * b + static_cast<uint32_t>(free_slot)] = v;
        check_all("Insert");
        const uint64_t j = cuckoo::SplitMix64(&state) % kBuckets;
        const int match = first(j, v);
        ASSERT_EQ(t.Remove(j, v), match >= 0) << "b " << b << " f " << f;
        if (match >= 0) model[j * b + static_cast<uint32_t>(match)] = 0;
        check_all("Remove");
      }
    }
  }
}

}  // namespace
}  // namespace cuckoo_test
