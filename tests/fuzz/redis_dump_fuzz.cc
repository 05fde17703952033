// libFuzzer target for the SCANDUMP / LOADCHUNK readers of the Redis families
// (docs/FORMAT.md, "Redis cuckoo filter"): LoadDumpHeader, LoadDumpChunk and
// FinishDump, one template over that API, instantiated once per family
// (RedisCuckooFilter, RedisBloomFilter; a family joins with one DumpFuzzTraits specialization
// and one line in kFamilies' switch). Built with ASan + UBSan by the CMake
// preset "fuzz", which scripts/fuzz.sh runs:
//
//   bash scripts/fuzz.sh --target redis 20000
//   build/fuzz/redis_fuzz FILE...        # replay inputs
//
// Input layout: byte 0 = mode (bits 0-2) and family (bits 3-7, modulo the
// number of families); then chunks, each as
//   u32 len (little-endian, cut to what remains), [u64 iterator unless mode
//   bit 0], len bytes.
// The first chunk is the header chunk, the rest are table chunks.
//   mode bit 0  iterators computed as SCANDUMP gives them (1 for the header,
//               1 + table bytes so far for the rest), so mutants get past the
//               iterator checks to the tables;
//   mode bit 1  the header's item count set from the table chunks (the
//               family's FixCounts), so they get past FinishDump's count check.
// Every input must end in kOk or a refusal (kFormat*, kOutOfMemory), and a
// loaded filter must dump chunks that load back to the same dump, serialize
// in this library's format to bytes that load back to the same bytes, and
// keep its contract under Add / Contain (and the family's own operations): no
// false negative after Add, a refused Add changes nothing.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "format/format.h"
#include "fuzz_check.h"
#include "redis/redis_bloom.h"
#include "redis/redis_cuckoo.h"
#include "redis/redis_dump.h"
#include "status.h"

namespace {

using cuckoo::RedisChunk;
using cuckoo::Status;
using Bytes = std::vector<uint8_t>;

// Filters whose tables pass this many bytes are loaded and dumped but not
// given keys (growth could allocate more, legally, and slowly).
constexpr uint64_t kMaxExerciseBytes = 1 << 20;
// A valid header may name up to 1 GiB of tables, which loads correctly but
// takes seconds under ASan: inputs whose header names more than this are
// skipped (headers the loader refuses are always tried).
constexpr uint64_t kMaxLoadBytes = 4 << 20;
constexpr int kKeys = 24;

bool IsRefusal(Status s) {
  switch (s) {
    case Status::kOutOfMemory:
    case Status::kFormatTruncated:
    case Status::kFormatBadParameter:
    case Status::kFormatTrailingBytes:
    case Status::kFormatCountMismatch:
    case Status::kFormatBadChunk:
      return true;
    default:
      return false;
  }
}

template <class Filter>
struct DumpFuzzTraits;

// The Redis cuckoo filter: numItems is the header's u64 at 0 and counts the
// non-zero table bytes; its own operations are Delete, Count and AddUnique.
template <>
struct DumpFuzzTraits<cuckoo::RedisCuckooFilter> {
  using Filter = cuckoo::RedisCuckooFilter;
  static void FixCounts(Bytes* header, const std::vector<Bytes>& tables) {
    if (header->size() < 8) return;
    uint64_t n = 0;
    for (const Bytes& t : tables) {
      for (uint8_t b : t) n += b != 0;
    }
    cuckoo::format::PutU64(header->data(), n);
  }
  // The table bytes a header chunk names if it is one the loader could
  // accept, else 0.
  static uint64_t HeaderTableBytes(const Bytes& h) {
    namespace field = cuckoo::format::redis_cuckoo_dump_field;
    if (h.size() != cuckoo::format::kRedisCuckooHeaderBytes) return 0;
    const uint64_t n0 = cuckoo::format::GetU64(h.data() + field::kNumBuckets);
    const uint64_t count = cuckoo::format::GetU64(h.data() + field::kNumFilters);
    const uint32_t b = cuckoo::format::GetU16(h.data() + field::kBucketSize);
    const uint32_t e = cuckoo::format::GetU16(h.data() + field::kExpansion);
    if (n0 == 0 || b == 0 || count == 0 || count > cuckoo::format::kMaxSubFilters) return 0;
    const uint64_t bytes = cuckoo::RedisCuckooFamily::TableBytes(
        n0, b, cuckoo::RedisCuckooFamily::GrowthShift(e), static_cast<uint32_t>(count));
    return bytes == UINT64_MAX ? 0 : bytes;
  }
  static uint64_t TableBytes(const Filter& f) {
    uint64_t n = 0;
    for (uint32_t j = 0; j < f.sub_filter_count(); ++j) n += f.sub_filter(j).table().byte_length();
    return n;
  }
  static uint64_t NextSubFilterBytes(const Filter& f) {
    const uint32_t shift = cuckoo::RedisCuckooFamily::GrowthShift(f.expansion());
    const uint64_t shifted = uint64_t{shift} * f.sub_filter_count();
    if (shifted >= 40) return UINT64_MAX;
    return (f.bucket_count() << shifted) * f.bucket_size();
  }
  static void Invariants(const Filter& f) {
    uint64_t occupied = 0;
    for (uint32_t j = 0; j < f.sub_filter_count(); ++j) {
      const auto& s = f.sub_filter(j);
      FUZZ_CHECK(s.table().CountOccupied() == s.size());
      FUZZ_CHECK(s.bucket_count() != 0 && (s.bucket_count() & (s.bucket_count() - 1)) == 0);
      occupied += s.size();
    }
    FUZZ_CHECK(f.size() == occupied);
    FUZZ_CHECK(f.sub_filter_count() >= 1 && f.sub_filter_count() <= cuckoo::format::kMaxSubFilters);
    FUZZ_CHECK(TableBytes(f) <= cuckoo::kMaxFilterBytes);
    FUZZ_CHECK(f.redis_size() == TableBytes(f) + 40 + 16 * f.sub_filter_count());
  }
  // Count goes down by one on Delete, or by two where the slot freed was in
  // a bucket that is both of the key's (CF.COUNT counts it twice), but for a
  // compacting one, below; AddUnique adds only what Contain does not find,
  // and nothing with 32 sub-filters or more (the limit each command checks).
  static void Exercise(Filter& f, const uint8_t* key, size_t len) {
    const uint32_t before = f.Count(key, len);
    FUZZ_CHECK(f.Contain(key, len) == (before > 0));
    if (before > 0) {
      bool added = true;
      const Status unique = f.AddUnique(key, len, &added);
      FUZZ_CHECK(!added && (unique == Status::kOk ||
                            (unique == Status::kGrowthLimit &&
                             f.sub_filter_count() >= Filter::kCommandSubFilters)));
      FUZZ_CHECK(f.Count(key, len) == before);
      const uint64_t deleted = f.deleted();
      const uint32_t sub_filters = f.sub_filter_count();
      FUZZ_CHECK(f.Delete(key, len) == Status::kOk);
      if (f.deleted() == deleted + 1) {
        const uint32_t after = f.Count(key, len);
        FUZZ_CHECK(after == before - 1 || after + 2 == before);
      } else {
        // A delete that takes the deletions past a tenth of the items, in a
        // filter of more than one sub-filter, runs a compact pass (as the
        // server's CF.DEL): the count of deletions goes back to 0, and moved
        // fingerprints may now match the key where they did not (a folded
        // bucket holds those of several), so Count is not checked then.
        FUZZ_CHECK(sub_filters > 1 && f.deleted() == 0 && (deleted + 1) * 10 > f.size());
      }
    } else {
      FUZZ_CHECK(f.Delete(key, len) == Status::kNotFound);
    }
  }
};

template <class Filter>
Bytes Serialized(const Filter& f) {
  Bytes out(f.SerializedSize());
  f.Serialize(out.data());
  return out;
}

template <class Filter>
std::vector<std::pair<uint64_t, Bytes>> Dumped(const Filter& f) {
  std::vector<std::pair<uint64_t, Bytes>> out;
  Bytes header(f.DumpHeaderBytes());
  for (uint32_t j = 0; j < f.DumpChunkCount(); ++j) {
    const RedisChunk c = f.DumpChunk(j, header.data());
    FUZZ_CHECK(c.data != nullptr && c.len > 0);
    FUZZ_CHECK(j > 0 || (c.iterator == 1 && c.len == f.DumpHeaderBytes()));
    FUZZ_CHECK(j == 0 || c.len <= cuckoo::kRedisMaxChunkBytes);
    out.emplace_back(c.iterator, Bytes(c.data, c.data + c.len));
  }
  return out;
}

// Loads `chunks` (the first one the header) into *out; each chunk from an
// exact-size heap copy, so ASan sees any read past it.
template <class Filter>
Status Load(const std::vector<std::pair<uint64_t, Bytes>>& chunks, std::unique_ptr<Filter>* out) {
  auto copy = [](const Bytes& b) {
    std::unique_ptr<uint8_t[]> p(new uint8_t[b.empty() ? 1 : b.size()]);
    if (!b.empty()) std::memcpy(p.get(), b.data(), b.size());
    return p;
  };
  if (chunks.empty()) return Status::kFormatBadChunk;
  auto h = copy(chunks[0].second);
  Status s = Filter::LoadDumpHeader(chunks[0].first, h.get(), chunks[0].second.size(), out);
  if (s != Status::kOk) {
    FUZZ_CHECK(*out == nullptr);
    return s;
  }
  for (size_t j = 1; j < chunks.size(); ++j) {
    auto c = copy(chunks[j].second);
    s = (*out)->LoadDumpChunk(chunks[j].first, c.get(), chunks[j].second.size());
    if (s != Status::kOk) return s;
  }
  return (*out)->FinishDump();
}

template <class Filter>
int FuzzDump(uint8_t mode, const uint8_t* data, size_t size) {
  using Traits = DumpFuzzTraits<Filter>;
  // Cut the input into chunks.
  std::vector<std::pair<uint64_t, Bytes>> chunks;
  size_t at = 0;
  uint64_t table_bytes = 0;
  while (at + 4 <= size && chunks.size() < 64) {
    uint64_t len = cuckoo::format::GetU32(data + at);
    at += 4;
    uint64_t iterator = 0;
    if (!(mode & 1)) {
      if (at + 8 > size) break;
      iterator = cuckoo::format::GetU64(data + at);
      at += 8;
    }
    if (len > size - at) len = size - at;
    Bytes bytes(data + at, data + at + len);
    at += len;
    if (mode & 1) iterator = chunks.empty() ? 1 : 1 + table_bytes + len;
    if (!chunks.empty()) table_bytes += len;
    chunks.emplace_back(iterator, std::move(bytes));
  }
  if (chunks.empty()) return 0;
  if (mode & 2) {
    std::vector<Bytes> tables;
    for (size_t j = 1; j < chunks.size(); ++j) tables.push_back(chunks[j].second);
    Traits::FixCounts(&chunks[0].second, tables);
  }

  if (Traits::HeaderTableBytes(chunks[0].second) > kMaxLoadBytes) return 0;
  std::unique_ptr<Filter> filter;
  const Status s = Load(chunks, &filter);
  if (s != Status::kOk) {
    FUZZ_CHECK(IsRefusal(s));
    return 0;
  }
  Traits::Invariants(*filter);
  // Dump, load, dump: the same chunks; our format: the same bytes.
  const auto dump = Dumped(*filter);
  FUZZ_CHECK(dump.size() == filter->DumpChunkCount());
  if (!dump.empty()) {
    std::unique_ptr<Filter> again;
    FUZZ_CHECK(Load(dump, &again) == Status::kOk);
    FUZZ_CHECK(Dumped(*again) == dump);
  }
  const Bytes own = Serialized(*filter);
  std::unique_ptr<Filter> reread;
  FUZZ_CHECK(Filter::Deserialize(own.data(), own.size(), &reread) == Status::kOk);
  FUZZ_CHECK(Serialized(*reread) == own);

  // Keys cut from the input.
  if (Traits::TableBytes(*filter) > kMaxExerciseBytes) return 0;
  for (int k = 0; k < kKeys; ++k) {
    const size_t len = size == 0 ? 0 : (static_cast<size_t>(k) * 7) % (size < 12 ? size : 12);
    const uint8_t* key = data + (size == 0 ? 0 : (static_cast<size_t>(k) * 13) % size);
    const size_t usable = static_cast<size_t>(data + size - key) < len ? 0 : len;
    if (Traits::NextSubFilterBytes(*filter) > kMaxExerciseBytes) break;
    const Bytes before = Serialized(*filter);
    const Status a = filter->Add(key, usable);
    if (a == Status::kOk) {
      FUZZ_CHECK(filter->Contain(key, usable));
    } else {
      FUZZ_CHECK(a == Status::kNotEnoughSpace || a == Status::kGrowthLimit ||
                 a == Status::kOutOfMemory);
      FUZZ_CHECK(Serialized(*filter) == before);
    }
    if (k % 3 == 2) Traits::Exercise(*filter, key, usable);
  }
  Traits::Invariants(*filter);
  const auto last = Dumped(*filter);
  if (!last.empty()) {
    std::unique_ptr<Filter> again;
    FUZZ_CHECK(Load(last, &again) == Status::kOk);
  }
  return 0;
}

// The Redis Bloom filter: the header's u64 at 0 is the sum of the links'
// sizes (u64 at 16 of each 53-byte link header); its own operation is AddUnique.
template <>
struct DumpFuzzTraits<cuckoo::RedisBloomFilter> {
  using Filter = cuckoo::RedisBloomFilter;
  static void FixCounts(Bytes* header, const std::vector<Bytes>&) {
    if (header->size() < 20) return;
    const uint64_t n = cuckoo::format::GetU32(header->data() + 8);
    uint64_t sum = 0;
    for (uint64_t j = 0; j < n && 20 + 53 * (j + 1) <= header->size(); ++j) {
      sum += cuckoo::format::GetU64(header->data() + 20 + 53 * j + 16);
    }
    cuckoo::format::PutU64(header->data(), sum);
  }
  // The link arrays a header chunk names if its length is one the loader
  // could accept, else 0 (saturating).
  static uint64_t HeaderTableBytes(const Bytes& h) {
    if (h.size() < 20) return 0;
    const uint64_t n = cuckoo::format::GetU32(h.data() + 8);
    if (n == 0 || n > cuckoo::format::kMaxSubFilters || h.size() != 20 + 53 * n) return 0;
    uint64_t bytes = 0;
    for (uint64_t j = 0; j < n; ++j) {
      const uint64_t b = cuckoo::format::GetU64(h.data() + 20 + 53 * j);
      bytes = b > UINT64_MAX - bytes ? UINT64_MAX : bytes + b;
    }
    return bytes;
  }
  static uint64_t TableBytes(const Filter& f) {
    uint64_t n = 0;
    for (uint32_t j = 0; j < f.sub_filter_count(); ++j) n += f.link(j).bytes();
    return n;
  }
  static uint64_t NextSubFilterBytes(const Filter& f) {
    if (f.non_scaling()) return 0;
    const uint64_t last = f.link(f.sub_filter_count() - 1).bytes();
    return last > UINT64_MAX / (2 * uint64_t{f.growth()}) ? UINT64_MAX : last * 2 * f.growth();
  }
  static void Invariants(const Filter& f) {
    uint64_t sizes = 0;
    for (uint32_t j = 0; j < f.sub_filter_count(); ++j) {
      const auto& l = f.link(j);
      FUZZ_CHECK(l.shape().Consistent());
      FUZZ_CHECK(l.size() <= l.entries());
      sizes += l.size();
    }
    FUZZ_CHECK(f.size() == sizes);
    FUZZ_CHECK(f.sub_filter_count() >= 1 && f.sub_filter_count() <= cuckoo::format::kMaxSubFilters);
    FUZZ_CHECK(TableBytes(f) <= cuckoo::kMaxFilterBytes);
    FUZZ_CHECK(f.redis_size() == TableBytes(f) + 32 + 64 * f.sub_filter_count());
  }
  // BF.ADD: an item held changes nothing; a new one is counted once.
  static void Exercise(Filter& f, const uint8_t* key, size_t len) {
    const bool had = f.Contain(key, len);
    const uint64_t before = f.size();
    bool added = true;
    const Status s = f.AddUnique(key, len, &added);
    if (had) {
      FUZZ_CHECK(s == Status::kOk && !added && f.size() == before);
    } else if (s == Status::kOk) {
      FUZZ_CHECK(added && f.size() == before + 1 && f.Contain(key, len));
    } else {
      FUZZ_CHECK(!added && f.size() == before);
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  constexpr uint8_t kFamilies = 2;
  const uint8_t mode = data[0] & 7;
  switch ((data[0] >> 3) % kFamilies) {
    case 0:
      return FuzzDump<cuckoo::RedisCuckooFilter>(mode, data + 1, size - 1);
    case 1:
      return FuzzDump<cuckoo::RedisBloomFilter>(mode, data + 1, size - 1);
  }
  return 0;
}
