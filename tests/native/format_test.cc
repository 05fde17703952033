// Tests of the serialized format (docs/FORMAT.md; src/format/format.h and the
// files it includes, common/format_frame.h and cuckoo/cuckoo_format.h): the header
// and the packed table read back with the independent decoder of test_util.h,
// the test vectors of FORMAT.md §10, the round trip and determinism of the
// bytes, Deserialize's refusal of malformed and hostile bytes, and the golden
// fixtures in tests/golden/.
//
// Run:    ctest --test-dir build/native --output-on-failure
// Golden: CUCKOO_UPDATE_GOLDEN=1 build/native/cuckoo_native_tests --gtest_filter='Golden.*'
//         rewrites tests/golden/cuckoo-v1.bin and hostile/ (only together with a format
//         version bump).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "alloc_probe.h"
#include "cuckoo/cuckoo_filter.h"
#include "format/format.h"
#include "common/hash.h"
#include "status.h"
#include "test_util.h"

#ifndef CUCKOO_GOLDEN_DIR
#error "CUCKOO_GOLDEN_DIR must be defined (CMakeLists.txt sets it to tests/golden)"
#endif

namespace cuckoo_test {
namespace {

// ===========================================================================
// The codec on its own: integers and the common prefix (format_frame.h), a
// cuckoo header's write / read pair and the table checks (cuckoo_format.h)

TEST(FormatCodec, LittleEndianIntegersAtAnyAlignment) {
  uint8_t buf[16] = {};
  format::PutU16(buf + 1, 0x0102);
  format::PutU32(buf + 3, 0x03040506u);
  format::PutU64(buf + 7, 0x0708090a0b0c0d0eULL);
  const uint8_t expected[16] = {0,    0x02, 0x01, 0x06, 0x05, 0x04, 0x03, 0x0e,
                                0x0d, 0x0c, 0x0b, 0x0a, 0x09, 0x08, 0x07, 0};
  EXPECT_EQ(Bytes(buf, buf + 16), Bytes(expected, expected + 16)) << "least significant byte first";
  EXPECT_EQ(format::GetU16(buf + 1), 0x0102u);
  EXPECT_EQ(format::GetU32(buf + 3), 0x03040506u);
  EXPECT_EQ(format::GetU64(buf + 7), 0x0708090a0b0c0d0eULL);
  uint64_t state = 5;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t v = cuckoo::SplitMix64(&state);
    const size_t at = static_cast<size_t>(v % 8);
    format::PutU64(buf + at, v);
    ASSERT_EQ(format::GetU64(buf + at), v);
    format::PutU32(buf + at, static_cast<uint32_t>(v));
    ASSERT_EQ(format::GetU32(buf + at), static_cast<uint32_t>(v));
    format::PutU16(buf + at, static_cast<uint16_t>(v));
    ASSERT_EQ(format::GetU16(buf + at), static_cast<uint16_t>(v));
  }
}

TEST(FormatCodec, ReadPrefixJudgesTheMagicBeforeTheLengthAndReturnsAnyVersion) {
  auto read = [](const Bytes& b, uint16_t* version) {
    // An exact-size copy, so AddressSanitizer flags a read past the end.
    std::unique_ptr<uint8_t[]> copy(new uint8_t[b.size() + 1]);
    std::copy(b.begin(), b.end(), copy.get());
    return format::ReadPrefix(copy.get(), b.size(), version);
  };
  uint16_t version = 77;
  EXPECT_EQ(read(Bytes{}, &version), Status::kFormatTruncated);
  EXPECT_EQ(read(Bytes{'X', 'Y', 'Z'}, &version), Status::kFormatTruncated);
  EXPECT_EQ(read(Bytes{'C', 'K', 'O', 'X', 1, 0}, &version), Status::kFormatBadMagic);
  EXPECT_EQ(read(Bytes{'C', 'K', 'O', 'O'}, &version), Status::kFormatTruncated);
  EXPECT_EQ(read(Bytes{'C', 'K', 'O', 'O', 1}, &version), Status::kFormatTruncated);
  EXPECT_EQ(version, 77u) << "*version written on a refusal";
  EXPECT_EQ(read(Bytes{'C', 'K', 'O', 'O', 0x34, 0x12}, &version), Status::kOk);
  EXPECT_EQ(version, 0x1234u) << "the version is the caller's to judge";

  Bytes written(format::kPrefixBytes);
  format::WritePrefix(format::kFormatVersion, written.data());
  EXPECT_EQ(written, (Bytes{'C', 'K', 'O', 'O', 1, 0}));
}

// A header with every field distinct from its neighbours and from 0.
format::CuckooHeader SampleHeader() {
  format::CuckooHeader h;
  h.params = Params(90, 13, 8, 4321, 0x1122334455667788ULL);
  h.bucket_count = 12;
  h.victim_fingerprint = 0x1abc;
  h.victim_bucket = 11;
  h.item_count = 41;
  h.rng_state = 0x99aabbccddeeff00ULL;
  h.table_bytes = cuckoo::PackedTable::ByteLength(12 * 8, 13);
  return h;
}

TEST(FormatCodec, WriteCuckooPutsEachFieldAtItsOffsetAndReadCuckooHeaderGivesItBack) {
  const format::CuckooHeader h = SampleHeader();
  Bytes table(h.table_bytes);
  for (size_t i = 0; i < table.size(); ++i) table[i] = static_cast<uint8_t>(i * 37 + 1);
  Bytes file(format::CuckooFileBytes(h.table_bytes));
  ASSERT_EQ(file.size(), 80 + h.table_bytes);
  format::WriteCuckoo(h, table.data(), file.data());

  EXPECT_EQ(std::string(file.begin(), file.begin() + 4), "CKOO");
  EXPECT_EQ(GetLE(file, off::kVersion, 2), 1u);
  EXPECT_EQ(GetLE(file, off::kHashId, 1), 1u);
  EXPECT_EQ(GetLE(file, off::kEncoding, 1), 0u);
  EXPECT_EQ(GetLE(file, off::kFingerprintBits, 1), 13u);
  EXPECT_EQ(GetLE(file, off::kBucketSize, 1), 8u);
  EXPECT_EQ(GetLE(file, off::kReserved16, 2), 0u);
  EXPECT_EQ(GetLE(file, off::kBucketCount, 4), 12u);
  EXPECT_EQ(GetLE(file, off::kMaxKicks, 4), 4321u);
  EXPECT_EQ(GetLE(file, off::kVictimFingerprint, 4), 0x1abcu);
  EXPECT_EQ(GetLE(file, off::kVictimBucket, 4), 11u);
  EXPECT_EQ(GetLE(file, off::kReserved32, 4), 0u);
  EXPECT_EQ(GetLE(file, off::kSeed, 8), 0x1122334455667788ULL);
  EXPECT_EQ(GetLE(file, off::kCapacity, 8), 90u);
  EXPECT_EQ(GetLE(file, off::kItemCount, 8), 41u);
  EXPECT_EQ(GetLE(file, off::kRngState, 8), 0x99aabbccddeeff00ULL);
  EXPECT_EQ(GetLE(file, off::kTableBytes, 8), h.table_bytes);
  EXPECT_TRUE(std::equal(table.begin(), table.end(), format::CuckooTable(file.data())));
  const size_t body = file.size() - format::kChecksumBytes;
  EXPECT_EQ(GetLE(file, body, 8), cuckoo::Checksum(file.data(), body));
  EXPECT_TRUE(format::ChecksumMatches(file.data(), body));

  format::CuckooHeader back;
  ASSERT_EQ(format::ReadCuckooHeader(file.data(), file.size(), &back), Status::kOk);
  EXPECT_EQ(back.params.capacity, h.params.capacity);
  EXPECT_EQ(back.params.fingerprint_bits, h.params.fingerprint_bits);
  EXPECT_EQ(back.params.bucket_size, h.params.bucket_size);
  EXPECT_EQ(back.params.max_kicks, h.params.max_kicks);
  EXPECT_EQ(back.params.seed, h.params.seed);
  EXPECT_EQ(back.bucket_count, h.bucket_count);
  EXPECT_EQ(back.victim_fingerprint, h.victim_fingerprint);
  EXPECT_EQ(back.victim_bucket, h.victim_bucket);
  EXPECT_EQ(back.item_count, h.item_count);
  EXPECT_EQ(back.rng_state, h.rng_state);
  EXPECT_EQ(back.table_bytes, h.table_bytes);
}

TEST(FormatCodec, ReadCuckooHeaderLeavesTheHeaderAloneWhenItRefuses) {
  const format::CuckooHeader h = SampleHeader();
  const Bytes table(h.table_bytes, 0);
  Bytes file(format::CuckooFileBytes(h.table_bytes));
  format::WriteCuckoo(h, table.data(), file.data());
  Bytes sealed_bad_victim = file;
  PutLE(&sealed_bad_victim, off::kVictimBucket, 4, h.bucket_count);
  Reseal(&sealed_bad_victim);
  Bytes bad_checksum = file;
  bad_checksum[format::kCuckooHeaderBytes] ^= 1;
  const Bytes refused[] = {Bytes(file.begin(), file.end() - 1), bad_checksum, sealed_bad_victim};
  for (const Bytes& b : refused) {
    format::CuckooHeader out;
    out.item_count = 12345;
    out.params.seed = 6789;
    EXPECT_NE(format::ReadCuckooHeader(b.data(), b.size(), &out), Status::kOk);
    EXPECT_EQ(out.item_count, 12345u);
    EXPECT_EQ(out.params.seed, 6789u);
    EXPECT_EQ(out.bucket_count, 0u);
  }
}

TEST(FormatCodec, CheckCuckooTableRefusesPaddingBitsAndAWrongItemCount) {
  // 5 buckets of 2 slots of 5 bits: 50 bits in 7 bytes, 6 padding bits.
  cuckoo::PackedTable table;
  ASSERT_TRUE(table.Init(5, 2, 5));
  ASSERT_EQ(table.byte_length(), 7u);
  table.Write(0, 1, 31);
  table.Write(4, 1, 1);  // the last slot, right before the padding
  format::CuckooHeader h;
  h.params = Params(10, 5, 2);
  h.bucket_count = 5;
  h.table_bytes = table.byte_length();
  h.item_count = 2;
  EXPECT_EQ(format::CheckCuckooTable(table.PaddingIsZero(), table.CountOccupied(), h), Status::kOk);
  h.item_count = 3;
  EXPECT_EQ(format::CheckCuckooTable(table.PaddingIsZero(), table.CountOccupied(), h), Status::kFormatCountMismatch);
  h.victim_fingerprint = 9;  // the victim counts as an item
  h.victim_bucket = 2;
  EXPECT_EQ(format::CheckCuckooTable(table.PaddingIsZero(), table.CountOccupied(), h), Status::kOk);
  h.item_count = 2;
  EXPECT_EQ(format::CheckCuckooTable(table.PaddingIsZero(), table.CountOccupied(), h), Status::kFormatCountMismatch);
  h.victim_fingerprint = 0;
  h.victim_bucket = 0;
  EXPECT_EQ(format::CheckCuckooTable(table.PaddingIsZero(), table.CountOccupied(), h), Status::kOk);
  for (int bit = 2; bit < 8; ++bit) {
    table.mutable_data()[6] ^= static_cast<uint8_t>(1u << bit);
    EXPECT_EQ(format::CheckCuckooTable(table.PaddingIsZero(), table.CountOccupied(), h), Status::kFormatBadPadding) << "bit " << bit;
    table.mutable_data()[6] ^= static_cast<uint8_t>(1u << bit);
  }
  EXPECT_EQ(format::CheckCuckooTable(table.PaddingIsZero(), table.CountOccupied(), h), Status::kOk);
}

// ===========================================================================
// Serialized layout, read back with the independent decoder

TEST(Format, HeaderFieldsAndBitPackedSlotsFollowTheSpec) {
  const CuckooParams p = Params(50, 13, 4, 77, 0x0123456789abcdefULL);
  FilterPtr f = Make(p);
  ASSERT_NE(f, nullptr);
  Bytes bytes = Serialize(*f);
  ASSERT_EQ(bytes.size(),
            format::kCuckooHeaderBytes + (f->slot_count() * 13 + 7) / 8 + format::kChecksumBytes);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "CKOO");
  EXPECT_EQ(GetLE(bytes, off::kVersion, 2), format::kFormatVersion);
  EXPECT_EQ(bytes[off::kHashId], format::kHashIdXxh3_64);
  EXPECT_EQ(bytes[off::kEncoding], format::kEncodingPacked);
  EXPECT_EQ(bytes[off::kFingerprintBits], 13);
  EXPECT_EQ(bytes[off::kBucketSize], 4);
  EXPECT_EQ(GetLE(bytes, off::kReserved16, 2), 0u);
  EXPECT_EQ(GetLE(bytes, off::kBucketCount, 4), f->bucket_count());
  EXPECT_EQ(GetLE(bytes, off::kMaxKicks, 4), 77u);
  EXPECT_EQ(GetLE(bytes, off::kVictimFingerprint, 4), 0u);
  EXPECT_EQ(GetLE(bytes, off::kVictimBucket, 4), 0u);
  EXPECT_EQ(GetLE(bytes, off::kReserved32, 4), 0u);
  EXPECT_EQ(GetLE(bytes, off::kSeed, 8), p.seed);
  EXPECT_EQ(GetLE(bytes, off::kCapacity, 8), 50u);
  EXPECT_EQ(GetLE(bytes, off::kItemCount, 8), 0u);
  const size_t body = bytes.size() - format::kChecksumBytes;
  EXPECT_EQ(GetLE(bytes, off::kTableBytes, 8), body - format::kCuckooHeaderBytes);
  EXPECT_EQ(GetLE(bytes, body, 8), cuckoo::Checksum(bytes.data(), body));
  EXPECT_EQ(Decode(bytes).TotalOccupied(), 0u);

  // Keys into an empty table land in the first slot of their first bucket; with
  // f = 13 most slots straddle byte boundaries, so the decoder checks the packing.
  SignatureCounts model;
  std::map<uint32_t, std::vector<uint32_t>> expected_in_bucket;
  for (uint64_t i = 0; i < 20; ++i) {
    const std::string k = Key("layout-", i);
    uint32_t fp = 0, i1 = 0;
    CuckooFilterPeer::Derive(*f, U8(k), k.size(), &fp, &i1);
    ASSERT_GE(fp, 1u);
    ASSERT_LE(fp, (1u << 13) - 1);
    ASSERT_LT(i1, f->bucket_count());
    if (expected_in_bucket[i1].size() >= 4) continue;  // keep it eviction-free
    ASSERT_EQ(Add(*f, k), Status::kOk);
    expected_in_bucket[i1].push_back(fp);
    ++model[KeySignature(*f, k)];
  }
  bytes = Serialize(*f);
  const Table t = Decode(bytes);
  for (const auto& kv : expected_in_bucket) {
    for (uint32_t s = 0; s < 4; ++s) {
      const uint32_t want = s < kv.second.size() ? kv.second[s] : 0;
      EXPECT_EQ(t.At(kv.first, s), want) << "bucket " << kv.first << " slot " << s;
    }
  }
  EXPECT_EQ(t.item_count, f->size());
  EXPECT_EQ(t.TotalOccupied(), f->size());
  EXPECT_TRUE(StoresExactly(*f, model));
  const size_t sealed = bytes.size() - format::kChecksumBytes;
  EXPECT_EQ(GetLE(bytes, sealed, 8), cuckoo::Checksum(bytes.data(), sealed));
}

// ===========================================================================
// Test vectors of docs/FORMAT.md §10, computed there by an independent script

Bytes FromHex(const std::string& hex) {
  Bytes out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::string ToHex(const uint8_t* p, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[p[i] >> 4];
    out += kDigits[p[i] & 15];
  }
  return out;
}

TEST(FormatSpec, HashCheckValues) {
  EXPECT_EQ(cuckoo::Checksum(nullptr, 0), 0x2d06800538d394c2ULL);
  EXPECT_EQ(cuckoo::HashKey(U8("a"), 1, 42), 0x4c437dd47f0716f4ULL);
  EXPECT_EQ(CuckooFilter::BucketCountFor(10, 4), 5u);  // §8 example
}

TEST(FormatSpec, SmallFilterOfSection10_1) {
  FilterPtr f = Make(Params(10, 12, 4, 500, 42));
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->bucket_count(), 5u);
  struct Expected {
    const char* key;
    uint32_t fp, i1, i2;
  };
  // §10.2.
  for (const Expected& e :
       {Expected{"a", 1220, 2, 4}, Expected{"b", 1826, 0, 1}, Expected{"c", 542, 2, 1}}) {
    uint32_t fp = 0, i1 = 0;
    CuckooFilterPeer::Derive(*f, U8(e.key), 1, &fp, &i1);
    EXPECT_EQ(fp, e.fp) << e.key;
    EXPECT_EQ(i1, e.i1) << e.key;
    EXPECT_EQ(CuckooFilterPeer::AltIndex(*f, i1, fp), e.i2) << e.key;
    ASSERT_EQ(Add(*f, e.key), Status::kOk);
  }
  const Bytes spec = FromHex(
      "434b4f4f010001000c04000005000000f40100000000000000000000000000002a000000000000000a0000000000"
      "0000"
      "03000000000000002a000000000000001e00000000000000220700000000000000000000c4e42100000000000000"
      "0000"
      "000000000000c0b0347cba1527df");
  ASSERT_EQ(spec.size(), 110u);
  EXPECT_EQ(ToHex(Serialize(*f).data(), 110), ToHex(spec.data(), spec.size()));
  FilterPtr loaded;
  ASSERT_EQ(Load(spec, &loaded), Status::kOk);
  EXPECT_TRUE(AllFound(*loaded, {"a", "b", "c"}));
}

TEST(FormatSpec, VictimAndReplacementVectorsOfSection10_3A) {
  FilterPtr f = Make(Params(10, 12, 4, 500, 42));
  ASSERT_NE(f, nullptr);
  std::string results;
  for (int i = 0; i < 25; ++i) results += Add(*f, Key("k", i)) == Status::kOk ? 'o' : 'x';
  EXPECT_EQ(results, "ooooooooooooooooooooxxoxx");
  auto expect_state = [&](uint64_t count, uint32_t victim_fp, uint32_t victim_bucket, uint64_t rng,
                          const char* table, uint64_t checksum) {
    const Bytes b = Serialize(*f);
    ASSERT_EQ(b.size(), 110u);
    EXPECT_EQ(GetLE(b, off::kItemCount, 8), count);
    EXPECT_EQ(GetLE(b, off::kVictimFingerprint, 4), victim_fp);
    EXPECT_EQ(GetLE(b, off::kVictimBucket, 4), victim_bucket);
    EXPECT_EQ(GetLE(b, off::kRngState, 8), rng);
    EXPECT_EQ(ToHex(b.data() + format::kCuckooHeaderBytes, 30), table);
    EXPECT_EQ(GetLE(b, format::kCuckooHeaderBytes + 30, 8), checksum);
  };
  expect_state(21, 152, 1, 0x24404d5790b712a8ULL,
               "abfa9a5c68c8f3de28bf9ec2af88436e3629b7a4d5128b8a87c90666d82d",
               0xccf9bcc2f7ab791cULL);
  ASSERT_EQ(Delete(*f, "k3"), Status::kOk);
  {
    const Bytes b = Serialize(*f);
    EXPECT_EQ(GetLE(b, off::kVictimFingerprint, 4), 152u);
    EXPECT_EQ(GetLE(b, off::kVictimBucket, 4), 1u);
    EXPECT_EQ(GetLE(b, off::kRngState, 8), 0xc6d1855dad7be7c1ULL);
  }
  ASSERT_EQ(Delete(*f, "k7"), Status::kOk);
  expect_state(19, 108, 4, 0x6962bd63ca40bcdaULL,
               "ab0a005c68c89830efbf9ec26e8643af382900a0d5128b8a6678988dd22d",
               0xc4d682ab610ac560ULL);
}

TEST(FormatSpec, GoldenSummaryOfSection10_3B) {
  // The golden fixture's recipe (tests/golden/README.md) gives the §10.3 B summary.
  FilterPtr f = Make(Params(1000, 12, 4, 500, 42));
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(Add(*f, Key("key-", i)), Status::kOk);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(Delete(*f, Key("key-", i)), Status::kOk);
  const Bytes b = Serialize(*f);
  EXPECT_EQ(f->bucket_count(), 277u);
  EXPECT_EQ(b.size(), 1742u);
  EXPECT_EQ(GetLE(b, off::kTableBytes, 8), 1662u);
  EXPECT_EQ(GetLE(b, off::kItemCount, 8), 900u);
  EXPECT_EQ(GetLE(b, off::kVictimFingerprint, 4), 0u);
  EXPECT_EQ(GetLE(b, off::kRngState, 8), 0x0292a2fa81ca46c4ULL);
  EXPECT_EQ(GetLE(b, b.size() - format::kChecksumBytes, 8), 0x1224f5cf13f01f4fULL);
}

// ===========================================================================
// Serialization round trip and determinism

// Serialize -> Deserialize gives the same bytes and answers, and both copies
// evolve identically (the eviction PRNG state travels with the bytes).
void ExpectTwinsEvolveIdentically(CuckooFilter& a, CuckooFilter& b, const char* prefix, int adds) {
  for (int i = 0; i < adds; ++i) {
    const std::string k = Key(prefix, i);
    const Status sa = Add(a, k);
    const Status sb = Add(b, k);
    ASSERT_EQ(sa, sb) << k;
    ASSERT_EQ(Serialize(a), Serialize(b)) << "diverged after adding " << k;
  }
}

TEST(RoundTrip, SameBytesSameAnswersSameFuture) {
  for (uint32_t b : kBucketSizes) {
    FilterPtr original = Make(Params(2000, 12, b, 500, 31 + b));
    ASSERT_NE(original, nullptr);
    std::vector<std::string> keys;
    // Load to ~90%, so the continued adds below need kicks.
    while (original->load_factor() < 0.9 * CuckooFilter::TargetLoadFactor(b)) {
      keys.push_back(Key("rt-", keys.size()));
      ASSERT_EQ(Add(*original, keys.back()), Status::kOk);
    }
    const Bytes bytes = Serialize(*original);
    FilterPtr copy;
    ASSERT_EQ(Load(bytes, &copy), Status::kOk);
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(Serialize(*copy), bytes);
    EXPECT_EQ(copy->size(), original->size());
    EXPECT_EQ(copy->capacity(), original->capacity());
    EXPECT_EQ(copy->bucket_count(), original->bucket_count());
    EXPECT_EQ(copy->fingerprint_bits(), original->fingerprint_bits());
    EXPECT_EQ(copy->bucket_size(), original->bucket_size());
    EXPECT_EQ(copy->max_kicks(), original->max_kicks());
    EXPECT_EQ(copy->seed(), original->seed());
    EXPECT_EQ(copy->victim_used(), original->victim_used());
    EXPECT_TRUE(AllFound(*copy, keys));
    for (int i = 0; i < 5000; ++i) {
      const std::string k = Key("other-", i);
      ASSERT_EQ(Contain(*copy, k), Contain(*original, k)) << k;
      ASSERT_EQ(Count(*copy, k), Count(*original, k)) << k;
    }
    // Continue past the point where a kick chain first runs out.
    ExpectTwinsEvolveIdentically(*original, *copy, "more-", 400);
    EXPECT_TRUE(original->victim_used()) << "the continuation should have filled the filter";
    // And deletes with the victim used (which re-place it by a kick chain).
    for (size_t i = 0; i < 40; ++i) {
      ASSERT_EQ(Delete(*original, keys[i]), Status::kOk);
      ASSERT_EQ(Delete(*copy, keys[i]), Status::kOk);
      ASSERT_EQ(Serialize(*original), Serialize(*copy)) << "after deleting " << keys[i];
    }
    ExpectTwinsEvolveIdentically(*original, *copy, "again-", 100);
  }
}

TEST(RoundTrip, ThePrngStateInTheBytesDecidesFutureKicks) {
  // Shows the round-trip test above can fail: a copy whose serialized PRNG state
  // is altered (checksum recomputed) loads fine but evicts differently.
  FilterPtr original = Make(Params(2000, 12, 4, 500, 5));
  ASSERT_NE(original, nullptr);
  int i = 0;
  while (original->load_factor() < 0.9) ASSERT_EQ(Add(*original, Key("p-", i++)), Status::kOk);
  Bytes bytes = Serialize(*original);
  PutLE(&bytes, off::kRngState, 8, GetLE(bytes, off::kRngState, 8) ^ 0x5555);
  Reseal(&bytes);
  FilterPtr altered;
  ASSERT_EQ(Load(bytes, &altered), Status::kOk);
  bool diverged = false;
  for (int j = 0; j < 300 && !diverged; ++j) {
    const std::string k = Key("q-", j);
    Add(*original, k);
    Add(*altered, k);
    const Bytes x = Serialize(*original), y = Serialize(*altered);
    diverged = !std::equal(x.begin() + format::kCuckooHeaderBytes, x.end() - format::kChecksumBytes,
                           y.begin() + format::kCuckooHeaderBytes);
  }
  EXPECT_TRUE(diverged) << "the PRNG state had no effect on where fingerprints go";
}

TEST(RoundTrip, EmptyAndVictimHoldingFilters) {
  for (uint32_t b : kBucketSizes) {
    FilterPtr empty = Make(Params(10, 9, b));
    ASSERT_NE(empty, nullptr);
    FilterPtr copy;
    ASSERT_EQ(Load(Serialize(*empty), &copy), Status::kOk);
    EXPECT_EQ(Serialize(*copy), Serialize(*empty));
    EXPECT_EQ(copy->size(), 0u);

    FilterPtr full = Make(Params(50, 9, b, 100, 4));
    ASSERT_NE(full, nullptr);
    std::string failed;
    const std::vector<std::string> added = FillUntilFull(*full, "v-", 1000, &failed);
    ASSERT_TRUE(full->victim_used());
    FilterPtr loaded;
    ASSERT_EQ(Load(Serialize(*full), &loaded), Status::kOk);
    EXPECT_TRUE(loaded->victim_used());
    EXPECT_TRUE(AllFound(*loaded, added));
    EXPECT_EQ(Add(*loaded, failed), Status::kNotEnoughSpace);
    EXPECT_EQ(Serialize(*loaded), Serialize(*full));
  }
}

TEST(Determinism, SameParamsAndKeysGiveSameBytes) {
  for (uint32_t b : kBucketSizes) {
    const CuckooParams p = Params(1500, 11, b, 500, 2024);
    FilterPtr x = Make(p), y = Make(p);
    ASSERT_NE(x, nullptr);
    ASSERT_NE(y, nullptr);
    // Past capacity, to go through kicks and the victim.
    std::string failed_x, failed_y;
    const auto added_x = FillUntilFull(*x, "det-", 5000, &failed_x);
    const auto added_y = FillUntilFull(*y, "det-", 5000, &failed_y);
    EXPECT_EQ(added_x, added_y);
    EXPECT_EQ(Serialize(*x), Serialize(*y));
    for (size_t i = 0; i < 100; ++i) {
      ASSERT_EQ(Delete(*x, added_x[i * 3]), Status::kOk);
      ASSERT_EQ(Delete(*y, added_y[i * 3]), Status::kOk);
    }
    EXPECT_EQ(Serialize(*x), Serialize(*y));

    // Sensitivity: another seed gives other bytes.
    FilterPtr z = Make(Params(1500, 11, b, 500, 2025));
    ASSERT_NE(z, nullptr);
    for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(Add(*z, Key("det-", i)), Status::kOk);
    FilterPtr w = Make(p);
    ASSERT_NE(w, nullptr);
    for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(Add(*w, Key("det-", i)), Status::kOk);
    EXPECT_NE(Serialize(*z), Serialize(*w));
  }
}

// ===========================================================================
// Deserialize refuses malformed bytes

class DeserializeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FilterPtr f = Make(Params(20, 12, 4, 500, 9));
    ASSERT_NE(f, nullptr);
    for (int i = 0; i < 15; ++i) ASSERT_EQ(Add(*f, Key("small-", i)), Status::kOk);
    valid_ = Serialize(*f);
    FilterPtr check;
    ASSERT_EQ(Load(valid_, &check), Status::kOk);
  }

  // Deserializes `bytes` into a slot holding a sentinel filter; checks that a
  // refusal leaves the slot alone.
  Status LoadKeepingSentinel(const Bytes& bytes) {
    FilterPtr out = Make(Params(5, 8, 2));
    CuckooFilter* const sentinel = out.get();
    const Status s = Load(bytes, &out);
    if (s != Status::kOk) EXPECT_EQ(out.get(), sentinel) << "*out changed on refusal";
    return s;
  }

  Bytes valid_;
};

TEST_F(DeserializeTest, EveryTruncationIsRefusedAsTruncated) {
  for (size_t len = 0; len < valid_.size(); ++len) {
    const Bytes prefix(valid_.begin(), valid_.begin() + static_cast<std::ptrdiff_t>(len));
    EXPECT_EQ(LoadKeepingSentinel(prefix), Status::kFormatTruncated) << "length " << len;
  }
}

TEST_F(DeserializeTest, BadMagicAndUnsupportedVersion) {
  Bytes b = valid_;
  b[0] = 'X';
  Reseal(&b);
  EXPECT_EQ(LoadKeepingSentinel(b), Status::kFormatBadMagic);
  b = valid_;
  b[3] = 'P';
  EXPECT_EQ(LoadKeepingSentinel(b), Status::kFormatBadMagic);
  EXPECT_EQ(LoadKeepingSentinel(Bytes{'N', 'O', 'P', 'E'}), Status::kFormatBadMagic);
  // docs/FORMAT.md §7: under 4 bytes is truncated even without the magic; magic
  // and version are judged before a full header is required.
  EXPECT_EQ(LoadKeepingSentinel(Bytes{'N', 'O', 'P'}), Status::kFormatTruncated);
  EXPECT_EQ(LoadKeepingSentinel(Bytes{'C', 'K', 'O', 'O', 2, 0}),
            Status::kFormatUnsupportedVersion);
  for (uint16_t version : {0, 2, 0x100, 0xffff}) {
    b = valid_;
    PutLE(&b, off::kVersion, 2, version);
    Reseal(&b);
    EXPECT_EQ(LoadKeepingSentinel(b), Status::kFormatUnsupportedVersion) << "version " << version;
  }
}

TEST_F(DeserializeTest, TrailingBytesAndChecksum) {
  Bytes b = valid_;
  b.push_back(0);
  EXPECT_EQ(LoadKeepingSentinel(b), Status::kFormatTrailingBytes);
  b = valid_;
  b[format::kCuckooHeaderBytes + 5] ^= 0x10;  // a bit inside the table
  EXPECT_EQ(LoadKeepingSentinel(b), Status::kFormatChecksumMismatch);
  b = valid_;
  b.back() ^= 0x80;  // a bit of the checksum itself
  EXPECT_EQ(LoadKeepingSentinel(b), Status::kFormatChecksumMismatch);
  b = valid_;
  PutLE(&b, off::kSeed, 8, 1234);  // a header field the checksum covers
  EXPECT_EQ(LoadKeepingSentinel(b), Status::kFormatChecksumMismatch);
}

TEST_F(DeserializeTest, EverySingleBitFlipIsRefused) {
  for (size_t bit = 0; bit < valid_.size() * 8; ++bit) {
    Bytes b = valid_;
    b[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    const Status s = LoadKeepingSentinel(b);
    EXPECT_NE(s, Status::kOk) << "flipping bit " << bit << " went unnoticed";
    EXPECT_TRUE(IsFormatStatus(s)) << "bit " << bit << ": " << ::testing::PrintToString(s);
  }
}

TEST_F(DeserializeTest, HugeBucketCountIsRefusedWithoutAllocatingTheTable) {
  const uint64_t huge = 0xffffffffULL;
  // Table length left as is: it disagrees with the bucket count.
  Bytes b = valid_;
  PutLE(&b, off::kBucketCount, 4, huge);
  Reseal(&b);
  Status s = Status::kOk;
  size_t largest = alloc_probe::LargestAllocationDuring([&] { s = LoadKeepingSentinel(b); });
  EXPECT_EQ(s, Status::kFormatBadParameter);
  EXPECT_LT(largest, size_t{1} << 20);
  // Table length consistent with the huge bucket count (~25 GB): the payload is short.
  PutLE(&b, off::kTableBytes, 8, (huge * 4 * 12 + 7) / 8);
  Reseal(&b);
  largest = alloc_probe::LargestAllocationDuring([&] { s = LoadKeepingSentinel(b); });
  EXPECT_TRUE(s == Status::kFormatTruncated || s == Status::kFormatBadParameter)
      << ::testing::PrintToString(s);
  EXPECT_LT(largest, size_t{1} << 20) << "Deserialize allocated " << largest << " bytes";

  // The probe does see a table allocation on the success path (so the checks
  // above can fail): a 1 MB table.
  FilterPtr big = Make(Params(700000, 12, 4));
  ASSERT_NE(big, nullptr);
  const Bytes big_bytes = Serialize(*big);
  FilterPtr out;
  largest = alloc_probe::LargestAllocationDuring(
      [&] { s = CuckooFilter::Deserialize(big_bytes.data(), big_bytes.size(), &out); });
  EXPECT_EQ(s, Status::kOk);
  EXPECT_GE(largest, big_bytes.size() - format::kCuckooHeaderBytes - format::kChecksumBytes);
}

TEST_F(DeserializeTest, ItemCountThatDisagreesWithTheTable) {
  const uint64_t count = GetLE(valid_, off::kItemCount, 8);
  ASSERT_EQ(count, 15u);
  for (uint64_t wrong : {count - 1, count + 1, uint64_t{0}, UINT64_MAX}) {
    Bytes b = valid_;
    PutLE(&b, off::kItemCount, 8, wrong);
    Reseal(&b);
    EXPECT_EQ(LoadKeepingSentinel(b), Status::kFormatCountMismatch) << "count " << wrong;
  }
  // Emptying a table slot without fixing the count.
  Bytes b = valid_;
  const Table t = Decode(b);
  const auto first =
      std::find_if(t.slots.begin(), t.slots.end(), [](uint32_t x) { return x != 0; });
  ASSERT_NE(first, t.slots.end());
  const uint64_t bit = static_cast<uint64_t>(first - t.slots.begin()) * t.f;
  for (uint32_t j = 0; j < t.f; ++j) {
    b[format::kCuckooHeaderBytes + (bit + j) / 8] &= static_cast<uint8_t>(~(1u << ((bit + j) % 8)));
  }
  Reseal(&b);
  EXPECT_EQ(Decode(b).TotalOccupied(), 14u);
  EXPECT_EQ(LoadKeepingSentinel(b), Status::kFormatCountMismatch);
}

TEST_F(DeserializeTest, BadVictim) {
  const uint64_t m = GetLE(valid_, off::kBucketCount, 4);
  const uint64_t count = GetLE(valid_, off::kItemCount, 8);
  struct Case {
    uint64_t fp, bucket;
  };
  // Each with the item count raised by one, so the count check alone would pass.
  for (const Case& c :
       {Case{1u << 12, 0}, Case{0xffffffffu, 1}, Case{5, m}, Case{5, 0xffffffffu}}) {
    Bytes b = valid_;
    PutLE(&b, off::kVictimFingerprint, 4, c.fp);
    PutLE(&b, off::kVictimBucket, 4, c.bucket);
    PutLE(&b, off::kItemCount, 8, count + 1);
    Reseal(&b);
    EXPECT_EQ(LoadKeepingSentinel(b), Status::kFormatBadVictim)
        << "fp " << c.fp << " bucket " << c.bucket;
  }
  // An empty victim must have bucket 0.
  Bytes b = valid_;
  PutLE(&b, off::kVictimBucket, 4, 1);
  Reseal(&b);
  EXPECT_EQ(LoadKeepingSentinel(b), Status::kFormatBadVictim);
  // The largest fingerprint in the last bucket is a valid victim.
  b = valid_;
  PutLE(&b, off::kVictimFingerprint, 4, (1u << 12) - 1);
  PutLE(&b, off::kVictimBucket, 4, m - 1);
  PutLE(&b, off::kItemCount, 8, count + 1);
  Reseal(&b);
  FilterPtr out;
  EXPECT_EQ(Load(b, &out), Status::kOk);
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(out->victim_used());
  EXPECT_EQ(out->size(), count + 1);
}

TEST_F(DeserializeTest, NonZeroPaddingBits) {
  // Find a shape whose table does not end on a byte boundary.
  FilterPtr f;
  for (uint64_t c = 10; c < 200 && f == nullptr; ++c) {
    const uint64_t m = CuckooFilter::BucketCountFor(c, 2);
    if ((m * 2 * 13) % 8 != 0) f = Make(Params(c, 13, 2, 500, 17));
  }
  ASSERT_NE(f, nullptr);
  const uint64_t bits = f->slot_count() * 13;
  ASSERT_NE(bits % 8, 0u);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(Add(*f, Key("pad-", i)), Status::kOk);
  const Bytes good = Serialize(*f);
  FilterPtr out;
  ASSERT_EQ(Load(good, &out), Status::kOk);
  const size_t last = good.size() - format::kChecksumBytes - 1;
  for (uint64_t pad_bit = bits % 8; pad_bit < 8; ++pad_bit) {
    Bytes b = good;
    b[last] |= static_cast<uint8_t>(1u << pad_bit);
    Reseal(&b);
    EXPECT_EQ(LoadKeepingSentinel(b), Status::kFormatBadPadding) << "padding bit " << pad_bit;
  }
}

TEST_F(DeserializeTest, HeaderParametersOutOfRange) {
  const uint64_t m = GetLE(valid_, off::kBucketCount, 4);
  struct Case {
    const char* what;
    size_t at, width;
    uint64_t value;
  };
  const Case cases[] = {
      {"hash id 0", off::kHashId, 1, 0},
      {"hash id 2", off::kHashId, 1, 2},
      {"encoding 1", off::kEncoding, 1, 1},
      {"f 3", off::kFingerprintBits, 1, 3},
      {"f 33", off::kFingerprintBits, 1, 33},
      {"f 13 (table length then wrong)", off::kFingerprintBits, 1, 13},
      {"b 0", off::kBucketSize, 1, 0},
      {"b 3", off::kBucketSize, 1, 3},
      {"b 16", off::kBucketSize, 1, 16},
      {"reserved16", off::kReserved16, 2, 1},
      {"reserved32", off::kReserved32, 4, 0x80000000u},
      {"bucket count 0", off::kBucketCount, 4, 0},
      {"max kicks", off::kMaxKicks, 4, cuckoo::kMaxMaxKicks + 1},
      {"capacity 0", off::kCapacity, 8, 0},
      {"capacity > slots", off::kCapacity, 8, m * 4 + 1},
      {"table bytes + 1", off::kTableBytes, 8, GetLE(valid_, off::kTableBytes, 8) + 1},
      {"table bytes huge", off::kTableBytes, 8, UINT64_MAX},
  };
  for (const Case& c : cases) {
    Bytes b = valid_;
    PutLE(&b, c.at, c.width, c.value);
    Reseal(&b);
    EXPECT_EQ(LoadKeepingSentinel(b), Status::kFormatBadParameter) << c.what;
  }
  // Edge values that are valid.
  const Case fine[] = {
      {"max kicks at the limit", off::kMaxKicks, 4, cuckoo::kMaxMaxKicks},
      {"max kicks 0", off::kMaxKicks, 4, 0},
      {"capacity = slots", off::kCapacity, 8, m * 4},
      {"any seed", off::kSeed, 8, UINT64_MAX},
      {"any PRNG state", off::kRngState, 8, 0},
  };
  for (const Case& c : fine) {
    Bytes b = valid_;
    PutLE(&b, c.at, c.width, c.value);
    Reseal(&b);
    FilterPtr out;
    EXPECT_EQ(Load(b, &out), Status::kOk) << c.what;
  }
}

// ===========================================================================
// Golden fixture (tests/golden/README.md): the format must not drift silently.

FilterPtr BuildGoldenFilter() {
  FilterPtr f = Make(Params(1000, 12, 4, 500, 42));
  if (f == nullptr) return nullptr;
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(Add(*f, Key("key-", i)), Status::kOk) << i;
  for (int i = 0; i < 100; ++i) EXPECT_EQ(Delete(*f, Key("key-", i)), Status::kOk) << i;
  return f;
}

TEST(Golden, CuckooV1MatchesByteForByte) {
  const std::string path = std::string(CUCKOO_GOLDEN_DIR) + "/cuckoo-v1.bin";
  FilterPtr f = BuildGoldenFilter();
  ASSERT_NE(f, nullptr);
  const Bytes fresh = Serialize(*f);
  const char* update = std::getenv("CUCKOO_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    ASSERT_TRUE(out) << "cannot write " << path;
    out.write(reinterpret_cast<const char*>(fresh.data()),
              static_cast<std::streamsize>(fresh.size()));
    ASSERT_TRUE(out.good());
    std::printf("wrote %s (%zu bytes)\n", path.c_str(), fresh.size());
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing " << path << " (see tests/golden/README.md)";
  const Bytes golden((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(golden.size(), fresh.size());
  size_t first_diff = 0;
  while (first_diff < golden.size() && golden[first_diff] == fresh[first_diff]) ++first_diff;
  EXPECT_EQ(first_diff, golden.size()) << "the serialized bytes changed at offset " << first_diff
                                       << ": a format change needs a version bump";

  FilterPtr loaded;
  ASSERT_EQ(Load(golden, &loaded), Status::kOk);
  EXPECT_EQ(loaded->size(), 900u);
  EXPECT_EQ(loaded->capacity(), 1000u);
  EXPECT_EQ(loaded->fingerprint_bits(), 12u);
  EXPECT_EQ(loaded->bucket_size(), 4u);
  EXPECT_EQ(loaded->max_kicks(), 500u);
  EXPECT_EQ(loaded->seed(), 42u);
  for (int i = 100; i < 1000; ++i) ASSERT_TRUE(Contain(*loaded, Key("key-", i))) << "key-" << i;
}

// Hostile fixtures (tests/golden/README.md): well-sealed bytes (valid checksum)
// whose header disagrees with the payload, for the JavaScript tests, which
// cannot recompute XXH3. Each must be refused with its own status.
struct HostileFixture {
  const char* name;
  Status expected;
  Bytes bytes;
};

std::vector<HostileFixture> MakeHostileFixtures() {
  std::vector<HostileFixture> out;
  FilterPtr golden = BuildGoldenFilter();
  const Bytes base = Serialize(*golden);

  Bytes count = base;  // one more item than the table holds
  PutLE(&count, off::kItemCount, 8, GetLE(count, off::kItemCount, 8) + 1);
  Reseal(&count);
  out.push_back({"count-mismatch.bin", Status::kFormatCountMismatch, count});

  Bytes victim = base;  // victim fingerprint 2^12, one past the largest 12-bit value
  PutLE(&victim, off::kVictimFingerprint, 4, 1u << 12);
  Reseal(&victim);
  out.push_back({"bad-victim.bin", Status::kFormatBadVictim, victim});

  Bytes huge = base;  // 2^32 - 1 buckets, consistent table length, no table
  PutLE(&huge, off::kBucketCount, 4, 0xffffffffULL);
  PutLE(&huge, off::kCapacity, 8, 1000);
  PutLE(&huge, off::kTableBytes, 8, (0xffffffffULL * 4 * 12 + 7) / 8);
  Reseal(&huge);
  out.push_back({"huge-bucket-count.bin", Status::kFormatTruncated, huge});

  // Padding: f = 5, b = 2 gives 10 bits per bucket; pick a filter whose table
  // does not end on a byte boundary and set the last byte's top bit.
  FilterPtr small = Make(Params(3, 5, 2, 500, 7));  // 6 buckets: 60 bits
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Add(*small, Key("p-", i)), Status::kOk);
  EXPECT_NE((small->bucket_count() * 2 * 5) % 8, 0u);
  Bytes padding = Serialize(*small);
  padding[padding.size() - format::kChecksumBytes - 1] |= 0x80;
  Reseal(&padding);
  out.push_back({"bad-padding.bin", Status::kFormatBadPadding, padding});
  return out;
}

TEST(Golden, HostileFixturesAreRefusedAndUnchanged) {
  const char* update = std::getenv("CUCKOO_UPDATE_GOLDEN");
  const bool write = update != nullptr && std::string(update) == "1";
  for (const HostileFixture& h : MakeHostileFixtures()) {
    const std::string path = std::string(CUCKOO_GOLDEN_DIR) + "/hostile/" + h.name;
    FilterPtr out;
    EXPECT_EQ(Load(h.bytes, &out), h.expected) << h.name;
    if (write) {
      std::ofstream file(path, std::ios::binary | std::ios::trunc);
      ASSERT_TRUE(file) << "cannot write " << path;
      file.write(reinterpret_cast<const char*>(h.bytes.data()),
                 static_cast<std::streamsize>(h.bytes.size()));
    }
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << "missing " << path << " (see tests/golden/README.md)";
    const Bytes stored((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_TRUE(stored == h.bytes) << h.name << " differs from what the recipe makes";
  }
}

}  // namespace
}  // namespace cuckoo_test
