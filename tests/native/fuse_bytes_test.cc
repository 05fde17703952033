// Tests of cuckoo::BinaryFuseFilter's build (src/fuse/binary_fuse_filter.h):
// the bytes of fixed sets pinned (a change of the sort, the peeling or the
// layout that moves one byte fails here), the same bytes from the keys in any
// order and with duplicates, every key found, and a collecting filter's adds
// (what a built filter refuses, how the hashes grow).
//
// Run: ctest --preset native -R Fuse --output-on-failure

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/hash.h"
#include "fuse/binary_fuse_filter.h"
#include "status.h"
#include "test_util.h"

namespace cuckoo_test {
namespace {

using cuckoo::BinaryFuseFilter;
using cuckoo::BinaryFuseParams;
using cuckoo::Status;

// n hashes of a SplitMix64 sequence from state 7.
std::vector<uint64_t> Hashes(size_t n) {
  std::vector<uint64_t> h(n);
  uint64_t state = 7;
  for (uint64_t& x : h) x = cuckoo::SplitMix64(&state);
  return h;
}

std::vector<uint8_t> Built(uint32_t arity, uint32_t bits, std::vector<uint64_t> hashes) {
  BinaryFuseParams p;
  p.arity = arity;
  p.fingerprint_bits = bits;
  std::unique_ptr<BinaryFuseFilter> f;
  EXPECT_EQ(BinaryFuseFilter::Build(p, hashes.data(), hashes.size(), &f), Status::kOk);
  if (f == nullptr) return {};
  std::vector<uint8_t> out(static_cast<size_t>(f->SerializedSize()));
  f->Serialize(out.data());
  return out;
}

// FNV-1a 64 of the bytes.
uint64_t Fnv1a(const std::vector<uint8_t>& bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// The bytes of Built(arity, bits, Hashes(n)), by their FNV-1a hash: any sort
// that orders the hashes gives them.
struct Pinned {
  uint32_t arity;
  uint32_t bits;
  size_t n;
  uint64_t fnv1a;
};
constexpr Pinned kPinned[] = {
    {3, 8, 0, 0xec0a6bc818cce389ULL},     {3, 8, 1, 0x7ed117889965845cULL},
    {3, 8, 1000, 0xd90266a679abeb62ULL},  {3, 8, 100000, 0x2c1e636bb3833ae5ULL},
    {3, 13, 0, 0xbec075159671a42dULL},    {3, 13, 1, 0x40c37198b4ccd5d0ULL},
    {3, 13, 1000, 0x7ffa5f14c183dcb8ULL}, {3, 13, 100000, 0x4ca7c7d9cf1deaa8ULL},
    {4, 8, 0, 0x4a3d049eac63717fULL},     {4, 8, 1, 0x2aaf7a70d6f18203ULL},
    {4, 8, 1000, 0x5102996133239595ULL},  {4, 8, 100000, 0x5672b03fdf8e2898ULL},
    {4, 13, 0, 0x87b068b64bf210b0ULL},    {4, 13, 1, 0x51f4a4a4ff9fb16dULL},
    {4, 13, 1000, 0x974cea153a51f956ULL}, {4, 13, 100000, 0xe6e6646270b63d18ULL},
};

TEST(FuseBuild, WritesThePinnedBytes) {
  for (const Pinned& c : kPinned) {
    SCOPED_TRACE("arity " + std::to_string(c.arity) + ", f " + std::to_string(c.bits) + ", n " +
                 std::to_string(c.n));
    EXPECT_EQ(Fnv1a(Built(c.arity, c.bits, Hashes(c.n))), c.fnv1a);
  }
}

TEST(FuseBuild, TheSameBytesInAnyOrderAndWithDuplicates) {
  const std::vector<uint64_t> hashes = Hashes(20000);
  std::vector<uint64_t> shuffled(hashes.rbegin(), hashes.rend());
  for (size_t k = 0; k < hashes.size(); k += 3) shuffled.push_back(hashes[k]);
  shuffled.push_back(hashes[0]);
  for (uint32_t arity : {3u, 4u}) {
    EXPECT_EQ(Built(arity, 9, hashes), Built(arity, 9, shuffled)) << "arity " << arity;
  }
}

TEST(FuseBuild, FindsEveryKeyAndCountsDistinctOnes) {
  std::vector<uint64_t> hashes = Hashes(50000);
  const std::vector<uint64_t> keys = hashes;
  hashes.insert(hashes.end(), keys.begin(), keys.begin() + 1000);
  BinaryFuseParams p;
  std::unique_ptr<BinaryFuseFilter> f;
  ASSERT_EQ(BinaryFuseFilter::Build(p, hashes.data(), hashes.size(), &f), Status::kOk);
  EXPECT_EQ(f->size(), keys.size());
  for (uint64_t h : keys) ASSERT_TRUE(f->ContainHash(h));
}

TEST(FuseCollect, KeepsEveryHashAndABuiltFilterTakesNone) {
  BinaryFuseParams p;
  std::unique_ptr<BinaryFuseFilter> collecting;
  ASSERT_EQ(BinaryFuseFilter::Create(p, &collecting), Status::kOk);
  // Past the first block of 1024 hashes and its doubling.
  for (int i = 0; i < 5000; ++i) {
    const std::string key = "key-" + std::to_string(i % 4000);
    ASSERT_EQ(collecting->Add(reinterpret_cast<const uint8_t*>(key.data()), key.size()), Status::kOk);
  }
  EXPECT_EQ(collecting->pending(), 5000u);
  p.from = reinterpret_cast<uintptr_t>(collecting.get());
  std::unique_ptr<BinaryFuseFilter> f;
  ASSERT_EQ(BinaryFuseFilter::Create(p, &f), Status::kOk);
  EXPECT_EQ(f->size(), 4000u);
  EXPECT_EQ(collecting->pending(), 0u);
  for (int i = 0; i < 4000; ++i) {
    const std::string key = "key-" + std::to_string(i);
    ASSERT_TRUE(f->Contain(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
  }
  const uint8_t key[] = {'x'};
  EXPECT_EQ(f->Add(key, 1), Status::kInvalidArgument);
  EXPECT_EQ(f->size(), 4000u);
}

}  // namespace
}  // namespace cuckoo_test
