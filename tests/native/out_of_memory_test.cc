// Out-of-memory tests of the cuckoo-wasm core (src/common/allocation.h,
// CuckooFilter::Create / Deserialize): every allocation Create and Deserialize
// make is refused in turn through the core's test hook, and each refusal must
// give kOutOfMemory with `*out` untouched and nothing left allocated (counted
// by the core, and under AddressSanitizer also checked by LeakSanitizer).
// Filters made before must keep working. The core must never call operator
// new: in the WebAssembly build it aborts the module when memory is short.
//
// Run: ctest --test-dir build/native -R OutOfMemory --output-on-failure

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "alloc_probe.h"
#include "common/allocation.h"
#include "cuckoo/cuckoo_filter.h"
#include "format/format.h"
#include "status.h"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::CuckooParams;
using cuckoo::Status;
using cuckoo::internal::LiveAllocationsForTesting;
using cuckoo::internal::SetAllocationHookForTesting;
using Bytes = std::vector<uint8_t>;
using FilterPtr = std::unique_ptr<CuckooFilter>;

// ---------------------------------------------------------------------------
// Refusing allocations: a plan for the core's allocation hook.

struct FailurePlan {
  size_t fail_at = SIZE_MAX;            // refuse allocation number fail_at (0-based)
  size_t fail_above_bytes = SIZE_MAX;   // refuse every allocation larger than this
  bool fail_all = false;                // refuse every allocation
};

FailurePlan g_plan;
size_t g_calls = 0;    // allocations asked for since the plan was installed
size_t g_refused = 0;  // of which refused

bool PlannedHook(size_t bytes) {
  const size_t call = g_calls++;
  const bool refuse = g_plan.fail_all || call == g_plan.fail_at || bytes > g_plan.fail_above_bytes;
  if (refuse) ++g_refused;
  return !refuse;
}

// Installs `plan` for the core's allocations while in scope.
class ScopedFailurePlan {
 public:
  explicit ScopedFailurePlan(const FailurePlan& plan) {
    g_plan = plan;
    g_calls = 0;
    g_refused = 0;
    SetAllocationHookForTesting(&PlannedHook);
  }
  ~ScopedFailurePlan() { SetAllocationHookForTesting(nullptr); }
  ScopedFailurePlan(const ScopedFailurePlan&) = delete;
  ScopedFailurePlan& operator=(const ScopedFailurePlan&) = delete;

  size_t calls() const { return g_calls; }
  size_t refused() const { return g_refused; }
};

FailurePlan FailAt(size_t n) {
  FailurePlan p;
  p.fail_at = n;
  return p;
}
FailurePlan FailAll() {
  FailurePlan p;
  p.fail_all = true;
  return p;
}
FailurePlan FailAbove(size_t bytes) {
  FailurePlan p;
  p.fail_above_bytes = bytes;
  return p;
}

// ---------------------------------------------------------------------------
// Helpers.

const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }
std::string Key(uint64_t i) { return "key-" + std::to_string(i); }

CuckooParams Params(uint64_t capacity, uint32_t fingerprint_bits, uint32_t bucket_size) {
  CuckooParams p;
  p.capacity = capacity;
  p.fingerprint_bits = fingerprint_bits;
  p.bucket_size = bucket_size;
  p.seed = 7;
  return p;
}

// Shapes covering every bucket size, word-probed and slot-probed tables, and
// tables whose last byte is partly padding.
const CuckooParams kShapes[] = {
    Params(1, 4, 2),     Params(100, 7, 8),     Params(1000, 12, 4),
    Params(1000, 13, 4), Params(5000, 16, 2),   Params(777, 32, 8),
};

// A filter of `p` holding keys [0, n), or null (and a test failure).
FilterPtr MakeFilled(const CuckooParams& p, uint64_t n) {
  FilterPtr f;
  EXPECT_EQ(CuckooFilter::Create(p, &f), Status::kOk);
  if (!f) return nullptr;
  for (uint64_t i = 0; i < n; ++i) {
    const std::string k = Key(i);
    EXPECT_EQ(f->Add(U8(k), k.size()), Status::kOk) << k;
  }
  return f;
}

Bytes Serialize(const CuckooFilter& f) {
  Bytes out(f.SerializedSize());
  f.Serialize(out.data());
  return out;
}

// True if `f` holds keys [0, n).
bool HoldsKeys(const CuckooFilter& f, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    const std::string k = Key(i);
    if (!f.Contain(U8(k), k.size())) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------

TEST(OutOfMemory, CreateMakesTwoBlocksAndDestroyFreesThem) {
  const size_t live = LiveAllocationsForTesting();
  for (const CuckooParams& p : kShapes) {
    FilterPtr f;
    {
      ScopedFailurePlan plan{FailurePlan()};
      ASSERT_EQ(CuckooFilter::Create(p, &f), Status::kOk);
      EXPECT_EQ(plan.calls(), 2u) << "the filter and its table";
    }
    EXPECT_EQ(LiveAllocationsForTesting(), live + 2);
    f.reset();
    EXPECT_EQ(LiveAllocationsForTesting(), live);
  }
}

TEST(OutOfMemory, CreateReportsEachRefusedAllocationAndLeavesNothing) {
  for (const CuckooParams& p : kShapes) {
    // *out holds a filter already: a failed Create must leave it as it is.
    FilterPtr out = MakeFilled(Params(100, 12, 4), 50);
    ASSERT_NE(out, nullptr);
    const CuckooFilter* before = out.get();
    const Bytes before_bytes = Serialize(*out);
    const size_t live = LiveAllocationsForTesting();
    for (size_t n = 0; n < 2; ++n) {
      SCOPED_TRACE("refused allocation " + std::to_string(n) + ", capacity " +
                   std::to_string(p.capacity) + " f " + std::to_string(p.fingerprint_bits) +
                   " b " + std::to_string(p.bucket_size));
      Status s;
      size_t refused;
      {
        ScopedFailurePlan plan(FailAt(n));
        s = CuckooFilter::Create(p, &out);
        refused = plan.refused();
      }
      EXPECT_EQ(s, Status::kOutOfMemory);
      EXPECT_EQ(refused, 1u);
      EXPECT_EQ(LiveAllocationsForTesting(), live) << "a failed Create left a block allocated";
      ASSERT_EQ(out.get(), before);
      EXPECT_EQ(Serialize(*out), before_bytes);
    }
  }
}

TEST(OutOfMemory, CreateReportsATableLargerThanMemoryAllows) {
  const size_t live = LiveAllocationsForTesting();
  FilterPtr f;
  {
    // 10 million 16-bit fingerprints: a ~20 MB table, refused; the filter itself is small.
    ScopedFailurePlan plan(FailAbove(1 << 20));
    EXPECT_EQ(CuckooFilter::Create(Params(10000000, 16, 4), &f), Status::kOutOfMemory);
    EXPECT_EQ(f, nullptr);
    EXPECT_EQ(LiveAllocationsForTesting(), live);
    // A small filter still fits.
    EXPECT_EQ(CuckooFilter::Create(Params(1000, 16, 4), &f), Status::kOk);
    EXPECT_NE(f, nullptr);
  }
}

TEST(OutOfMemory, DeserializeReportsEachRefusedAllocationAndLeavesNothing) {
  for (const CuckooParams& p : kShapes) {
    FilterPtr source = MakeFilled(p, p.capacity / 2 + 1);
    ASSERT_NE(source, nullptr);
    const Bytes bytes = Serialize(*source);
    FilterPtr out = MakeFilled(Params(100, 12, 4), 50);
    ASSERT_NE(out, nullptr);
    const CuckooFilter* before = out.get();
    const Bytes before_bytes = Serialize(*out);
    const size_t live = LiveAllocationsForTesting();

    size_t blocks;
    {
      ScopedFailurePlan plan{FailurePlan()};
      FilterPtr loaded;
      ASSERT_EQ(CuckooFilter::Deserialize(bytes.data(), bytes.size(), &loaded), Status::kOk);
      blocks = plan.calls();
    }
    EXPECT_EQ(blocks, 2u) << "the filter and its table";
    for (size_t n = 0; n < blocks; ++n) {
      SCOPED_TRACE("refused allocation " + std::to_string(n) + " of " + std::to_string(blocks));
      Status s;
      {
        ScopedFailurePlan plan(FailAt(n));
        s = CuckooFilter::Deserialize(bytes.data(), bytes.size(), &out);
      }
      EXPECT_EQ(s, Status::kOutOfMemory);
      EXPECT_EQ(LiveAllocationsForTesting(), live) << "a failed Deserialize left a block allocated";
      ASSERT_EQ(out.get(), before);
      EXPECT_EQ(Serialize(*out), before_bytes);
    }
    // With memory back, the same bytes load.
    ASSERT_EQ(CuckooFilter::Deserialize(bytes.data(), bytes.size(), &out), Status::kOk);
    EXPECT_EQ(Serialize(*out), bytes);
  }
}

TEST(OutOfMemory, DeserializeChecksTheHeaderBeforeAllocatingAnything) {
  FilterPtr source = MakeFilled(Params(1000, 12, 4), 400);
  ASSERT_NE(source, nullptr);
  const Bytes valid = Serialize(*source);
  auto with = [&](size_t offset, uint8_t value) {
    Bytes b = valid;
    b[offset] = value;
    // Re-seal, so that only the changed field is wrong.
    cuckoo::format::WriteChecksum(b.data(), b.size() - cuckoo::format::kChecksumBytes);
    return b;
  };
  Bytes bad_checksum = valid;
  bad_checksum.back() ^= 1;
  Bytes trailing = valid;
  trailing.push_back(0);
  const Bytes truncated(valid.begin(), valid.end() - 1);
  struct Case {
    const char* what;
    Bytes bytes;
    Status expected;
  };
  namespace field = cuckoo::format::cuckoo_field;
  const Case cases[] = {
      {"magic", with(field::kMagic, 'X'), Status::kFormatBadMagic},
      {"version", with(field::kVersion, 2), Status::kFormatUnsupportedVersion},
      {"bucket size", with(field::kBucketSize, 3), Status::kFormatBadParameter},
      {"truncated", truncated, Status::kFormatTruncated},
      {"trailing bytes", trailing, Status::kFormatTrailingBytes},
      {"checksum", bad_checksum, Status::kFormatChecksumMismatch},
      // Victim bucket set while the victim fingerprint is 0 (empty).
      {"victim", with(field::kVictimBucket, 1), Status::kFormatBadVictim},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    FilterPtr out;
    Status s = Status::kOk;
    const alloc_probe::Seen seen = alloc_probe::During(
        [&] { s = CuckooFilter::Deserialize(c.bytes.data(), c.bytes.size(), &out); });
    EXPECT_EQ(s, c.expected);
    EXPECT_EQ(seen.Total(), 0u) << "allocated before refusing the header";
    EXPECT_EQ(out, nullptr);
    // And with no memory at all, the header's own error is what is reported.
    ScopedFailurePlan plan(FailAll());
    EXPECT_EQ(CuckooFilter::Deserialize(c.bytes.data(), c.bytes.size(), &out), c.expected);
  }
}

// Adds keys 1000..1799, then deletes keys 0..99, each expected to succeed.
void AddAndDelete(CuckooFilter& f) {
  for (uint64_t i = 1000; i < 1800; ++i) {
    const std::string k = Key(i);
    EXPECT_EQ(f.Add(U8(k), k.size()), Status::kOk) << k;
  }
  for (uint64_t i = 0; i < 100; ++i) {
    const std::string k = Key(i);
    EXPECT_EQ(f.Delete(U8(k), k.size()), Status::kOk) << k;
  }
}

TEST(OutOfMemory, FiltersMadeBeforeKeepWorkingAfterRefusals) {
  const CuckooParams p = Params(2000, 12, 4);
  FilterPtr f = MakeFilled(p, 1000);
  FilterPtr twin = MakeFilled(p, 1000);  // the same operations, with no refusals in between
  ASSERT_NE(f, nullptr);
  ASSERT_NE(twin, nullptr);
  const Bytes bytes = Serialize(*f);
  {
    ScopedFailurePlan plan(FailAll());
    for (const CuckooParams& q : kShapes) {
      FilterPtr g;
      EXPECT_EQ(CuckooFilter::Create(q, &g), Status::kOutOfMemory);
      EXPECT_EQ(CuckooFilter::Deserialize(bytes.data(), bytes.size(), &g), Status::kOutOfMemory);
      EXPECT_EQ(g, nullptr);
    }
    // Nothing on a filter's own path allocates: it works with no memory at all.
    EXPECT_TRUE(HoldsKeys(*f, 1000));
    AddAndDelete(*f);
    EXPECT_GT(plan.refused(), 0u);
  }
  AddAndDelete(*twin);
  EXPECT_EQ(Serialize(*f), Serialize(*twin));
  // With memory back, new filters are made again, and load what f wrote.
  FilterPtr g;
  ASSERT_EQ(CuckooFilter::Create(p, &g), Status::kOk);
  const Bytes after = Serialize(*f);
  ASSERT_EQ(CuckooFilter::Deserialize(after.data(), after.size(), &g), Status::kOk);
  EXPECT_EQ(Serialize(*g), after);
}

TEST(OutOfMemory, TheCoreNeverCallsOperatorNew) {
  // Everything the JS side calls, from create to destroy, for every shape.
  // Keys are short (no std::string allocation); buffers are made beforehand.
  for (const CuckooParams& p : kShapes) {
    FilterPtr probe = MakeFilled(p, 0);
    ASSERT_NE(probe, nullptr);
    Bytes bytes(probe->SerializedSize());
    const char* const keys[] = {"a", "bb", "ccc", "dddd"};
    Status create = Status::kNotFound;
    Status load = Status::kNotFound;
    const alloc_probe::Seen seen = alloc_probe::During([&] {
      FilterPtr f;
      create = CuckooFilter::Create(p, &f);
      if (!f) return;
      for (const char* k : keys) f->Add(reinterpret_cast<const uint8_t*>(k), std::strlen(k));
      f->Delete(reinterpret_cast<const uint8_t*>(keys[0]), 1);
      f->Serialize(bytes.data());
      FilterPtr g;
      load = CuckooFilter::Deserialize(bytes.data(), bytes.size(), &g);
      f.reset();
      g.reset();
    });
    EXPECT_EQ(create, Status::kOk);
    EXPECT_EQ(load, Status::kOk);
    EXPECT_EQ(seen.core_blocks, 4u) << "two filters, two blocks each";
    EXPECT_EQ(seen.Foreign(), 0u) << "allocations outside the core's allocator (operator new"
                                  << (alloc_probe::kHeapHookSeesMalloc ? ", malloc)" : ")");
  }
}

}  // namespace
