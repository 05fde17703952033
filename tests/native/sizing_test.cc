// Tests of the sizing functions (src/growth/sizing.h): the fingerprint size for a
// false-positive rate, the growth rule, and the serialized size of a new
// filter, each against the filters the core then makes.
//
// Run: ctest --test-dir build/native -R Sizing --output-on-failure

#include "growth/sizing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>

#include "cuckoo/cuckoo_params.h"
#include "growth/scalable_filter.h"

namespace cuckoo_test {
namespace {

// f is the smallest with 2b / 2^f <= ε: at ε exactly 2b / 2^f it is that f,
// just below it one more.
TEST(Sizing, FingerprintBitsIsTheSmallestMeetingTheBound) {
  for (uint32_t b : {2u, 4u, 8u}) {
    for (uint32_t f = 4; f <= 32; ++f) {
      const double bound = 2.0 * b / std::ldexp(1.0, static_cast<int>(f));
      if (bound >= 1) continue;
      // The smallest f for a bound of exactly 2b/2^f is f unless a smaller f meets it too.
      EXPECT_EQ(cuckoo::FingerprintBitsFor(bound, b), f) << "b=" << b << " f=" << f;
      if (f < 32) {
        EXPECT_EQ(cuckoo::FingerprintBitsFor(std::nextafter(bound, 0.0), b), f + 1)
            << "b=" << b << " f=" << f;
      }
    }
  }
  EXPECT_EQ(cuckoo::FingerprintBitsFor(0.001, 4), 13u);  // 8/8192 = 0.000977
  EXPECT_EQ(cuckoo::FingerprintBitsFor(0.01, 4), 10u);
  EXPECT_EQ(cuckoo::FingerprintBitsFor(0.9, 2), 4u);     // never below 4
}

TEST(Sizing, FingerprintBitsRefusesRatesNoFingerprintMeets) {
  EXPECT_EQ(cuckoo::FingerprintBitsFor(std::nextafter(8.0 / std::ldexp(1.0, 32), 0.0), 4), 0u);
  EXPECT_EQ(cuckoo::FingerprintBitsFor(8.0 / std::ldexp(1.0, 32), 4), 32u);
  for (double rate : {0.0, -0.5, 1.0, 2.0, std::nan("")}) {
    EXPECT_EQ(cuckoo::FingerprintBitsFor(rate, 4), 0u) << rate;
  }
}

TEST(Sizing, AGrowingFilterSizesItsFirstSubFilterForHalfTheRate) {
  EXPECT_EQ(cuckoo::FirstSubFilterRate(0.01, 0), 0.01);
  EXPECT_EQ(cuckoo::FirstSubFilterRate(0.01, 2), 0.005);
  EXPECT_EQ(cuckoo::FirstSubFilterRate(0.01, 1024), 0.005);
}

// What CuckooSerializedSizeFor says is what the new filter serializes to.
TEST(Sizing, CuckooSizeIsWhatANewFilterSerializesTo) {
  for (uint64_t capacity : {1ull, 1000ull, 123457ull}) {
    for (uint32_t b : {2u, 4u, 8u}) {
      for (uint32_t f : {4u, 13u, 32u}) {
        for (uint32_t expansion : {0u, 2u}) {
          cuckoo::CuckooParams p;
          p.capacity = capacity;
          p.fingerprint_bits = f;
          p.bucket_size = b;
          std::unique_ptr<cuckoo::ScalableCuckooFilter> filter;
          ASSERT_EQ(cuckoo::ScalableCuckooFilter::Create(p, expansion, &filter), cuckoo::Status::kOk);
          EXPECT_EQ(cuckoo::CuckooSerializedSizeFor(capacity, f, b, expansion), filter->SerializedSize())
              << capacity << " " << b << " " << f << " " << expansion;
        }
      }
    }
  }
}

TEST(Sizing, CuckooSizeIsZeroForOptionsCreateRefuses) {
  EXPECT_EQ(cuckoo::CuckooSerializedSizeFor(0, 13, 4, 0), 0u);
  EXPECT_EQ(cuckoo::CuckooSerializedSizeFor(1000, 3, 4, 0), 0u);
  EXPECT_EQ(cuckoo::CuckooSerializedSizeFor(1000, 33, 4, 2), 0u);
  EXPECT_EQ(cuckoo::CuckooSerializedSizeFor(1000, 13, 3, 0), 0u);
  EXPECT_EQ(cuckoo::CuckooSerializedSizeFor(uint64_t{1} << 40, 13, 4, 0), 0u);  // > 2^32 buckets
}

TEST(Sizing, BloomSizeIsWhatANewFilterSerializesTo) {
  for (uint64_t capacity : {1ull, 1000ull, 123457ull}) {
    for (double rate : {0.5, 0.01, 0.001, 1e-9}) {
      for (uint32_t expansion : {0u, 2u}) {
        cuckoo::ScalableBloomParams p;
        p.capacity = capacity;
        p.false_positive_rate = rate;
        p.expansion = expansion;
        std::unique_ptr<cuckoo::ScalableBloomFilter> filter;
        const cuckoo::Status s = cuckoo::ScalableBloomFilter::Create(p, &filter);
        const uint64_t size = cuckoo::BloomSerializedSizeFor(capacity, rate, expansion);
        if (s != cuckoo::Status::kOk) {
          EXPECT_EQ(size, 0u) << capacity << " " << rate << " " << expansion;
          continue;
        }
        EXPECT_EQ(size, filter->SerializedSize()) << capacity << " " << rate << " " << expansion;
      }
    }
  }
}

TEST(Sizing, BloomSizeIsZeroForOptionsCreateRefuses) {
  EXPECT_EQ(cuckoo::BloomSerializedSizeFor(0, 0.01, 0), 0u);
  EXPECT_EQ(cuckoo::BloomSerializedSizeFor(1000, 0, 0), 0u);
  EXPECT_EQ(cuckoo::BloomSerializedSizeFor(1000, 1, 0), 0u);
  EXPECT_EQ(cuckoo::BloomSerializedSizeFor(1000, 1e-30, 0), 0u);  // k > 64
  EXPECT_EQ(cuckoo::BloomSerializedSizeFor(uint64_t{1} << 40, 0.01, 0), 0u);  // m > 2^32 - 1
}

}  // namespace
}  // namespace cuckoo_test

// SizeCuckoo: the fingerprint bits and bytes of the functions above in one
// call, and past the memory bound the most keys that fit.
TEST(Sizing, SizeCuckooIsTheOtherCallsInOne) {
  const cuckoo::CuckooSizing s =
      cuckoo::SizeCuckoo(100000, 0.001, 0, 4, 2, cuckoo::TableEncoding{}, uint64_t{1} << 30);
  EXPECT_EQ(s.first_rate, cuckoo::FirstSubFilterRate(0.001, 2));
  EXPECT_EQ(s.fingerprint_bits, cuckoo::FingerprintBitsFor(0.0005, 4));
  EXPECT_EQ(s.bytes, cuckoo::CuckooSerializedSizeFor(100000, s.fingerprint_bits, 4, 2));
  EXPECT_EQ(s.max_capacity, 0u);
  const cuckoo::CuckooSizing given =
      cuckoo::SizeCuckoo(1000, 0, 12, 4, 0, cuckoo::TableEncoding{}, uint64_t{1} << 30);
  EXPECT_EQ(given.fingerprint_bits, 12u);
  EXPECT_EQ(given.first_rate, 0);
  EXPECT_EQ(cuckoo::SizeCuckoo(1000, 1e-12, 0, 4, 0, cuckoo::TableEncoding{}, 1 << 30).fingerprint_bits, 0u);
}

TEST(Sizing, SizeCuckooPastTheBoundGivesTheMostKeysThatFit) {
  const uint64_t limit = 1 << 20;
  const cuckoo::CuckooSizing s =
      cuckoo::SizeCuckoo(10000000, 0.01, 0, 4, 0, cuckoo::TableEncoding{}, limit);
  ASSERT_GT(s.bytes, limit);
  ASSERT_GT(s.max_capacity, 1u);
  EXPECT_EQ(s.bytes_at_max, cuckoo::CuckooSerializedSizeFor(s.max_capacity, s.fingerprint_bits, 4, 0));
  EXPECT_LE(s.bytes_at_max, limit);
  EXPECT_GT(cuckoo::CuckooSerializedSizeFor(s.max_capacity + 1, s.fingerprint_bits, 4, 0), limit);
  // More than 2^32 buckets: no size, and still the most that fit.
  const cuckoo::CuckooSizing huge =
      cuckoo::SizeCuckoo(uint64_t{1} << 45, 0.01, 0, 2, 0, cuckoo::TableEncoding{}, limit);
  EXPECT_EQ(huge.bytes, 0u);
  ASSERT_GT(huge.max_capacity, 1u);
  EXPECT_LE(huge.bytes_at_max, limit);
  EXPECT_GT(cuckoo::CuckooSerializedSizeFor(huge.max_capacity + 1, huge.fingerprint_bits, 2, 0), limit);
}
