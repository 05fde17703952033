// Writes the seed corpus for deserialize_fuzz.cc: a few small, valid serialized
// filters, each under three mode bytes (see deserialize_fuzz.cc). Version 1:
// plain cuckoo filters of different f and b (empty, loaded, after deletes, full
// with the victim in use, non-zero padding bits). Version 2: growing cuckoo
// filters (1 to 3 sub-filters, expansions 2, 3 and 1024, a victim in an older
// sub-filter, one at the 32-bit fingerprint limit) and Bloom filters (without
// growth, 2 and 3 sub-filters, k up to 64; version 3, or version 2's
// positions). Version 4: each of those (<name>-v4), and cuckoo filters without
// growth, packed and semi-sorted, Redis cuckoo filters (family 3,
// redis-cf-*-v4: bucket sizes 1, 2, 4, 8, growing or not) and Redis Bloom
// filters (family 4, redis-bf-*-v4: scaling, non-scaling), binary fuse
// filters (family 5, fuse-<keys>-a<arity>-f<f>-v4: no keys, 1 key, 100 keys;
// arities 3 and 4; f = 8, 13, 16). Every seed is
// under 4096 bytes (scripts/fuzz.sh's -max_len). The modes:
//   raw-<name>     0x00 + filter bytes   (passed to Deserialize as is)
//   cksum-<name>   0x01 + filter bytes   (checksum recomputed by the target)
//   fixup-<name>   0x03 + filter bytes   (table length and checksum recomputed)
// Deterministic: the same build writes the same bytes. Run by
// `bash scripts/fuzz.sh --corpus`, which regenerates tests/fuzz/corpus/.
//
//   make_corpus <output-dir>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cuckoo/cuckoo_filter.h"
#include "fuse/binary_fuse_filter.h"
#include "redis/redis_bloom.h"
#include "redis/redis_cuckoo.h"
#include "growth/scalable_filter.h"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::CuckooParams;
using cuckoo::ScalableBloomFilter;
using cuckoo::ScalableBloomParams;
using cuckoo::ScalableCuckooFilter;
using cuckoo::Status;

std::string Key(const char* prefix, int i) { return std::string(prefix) + std::to_string(i); }

bool AddKey(CuckooFilter* f, const std::string& key) {
  return f->Add(reinterpret_cast<const uint8_t*>(key.data()), key.size()) == Status::kOk;
}

bool WriteFile(const std::string& path, uint8_t mode, const std::vector<uint8_t>& bytes) {
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (!out) return false;
  bool ok = std::fputc(mode, out) != EOF &&
            std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
  ok = std::fclose(out) == 0 && ok;
  return ok;
}

const uint8_t* Bytes(const std::string& key) { return reinterpret_cast<const uint8_t*>(key.data()); }

struct Seed {
  const char* name;
  CuckooParams params;
  // Keys "k0".."k{adds-1}" are added, then "k0".."k{deletes-1}" deleted. With
  // until_victim, keys are added until the victim slot is in use instead.
  int adds;
  int deletes;
  bool until_victim;
};

const struct {
  const char* prefix;
  uint8_t mode;
} kModes[] = {{"raw-", 0x00}, {"cksum-", 0x01}, {"fixup-", 0x03}};

bool WriteSeed(const std::string& dir, const char* name, const std::vector<uint8_t>& bytes) {
  for (const auto& m : kModes) {
    const std::string path = dir + "/" + m.prefix + name;
    if (!WriteFile(path, m.mode, bytes)) {
      std::fprintf(stderr, "make_corpus: cannot write %s\n", path.c_str());
      return false;
    }
  }
  return true;
}

// A growing cuckoo filter: `params` for sub-filter 0, keys "g0", "g1", ... added
// until it has `subs` sub-filters and then `extra` more, then every third of
// them deleted. Written as format version 4 (<name>-v4) and, if `legacy` is
// not 0, as that version (<name>).
struct GrowingSeed {
  const char* name;
  CuckooParams params;
  uint32_t expansion;
  uint32_t subs;
  int extra;
  uint16_t legacy;
};

// A Bloom filter: keys "b0", "b1", ... until `subs` sub-filters, then `extra`
// more; written as version 4 and as `legacy` likewise.
struct BloomSeed {
  const char* name;
  ScalableBloomParams params;
  uint32_t subs;
  int extra;
  uint16_t legacy;
};

// Writes `filter` as version 4 and as `legacy` (if not 0), each loaded back
// first: a seed that does not load teaches the fuzzer nothing past the header.
template <class Filter>
bool WriteVersions(const std::string& dir, const char* name, Filter* filter, uint16_t legacy) {
  for (uint16_t version : {legacy, cuckoo::format::kFormatVersionExplicit}) {
    if (version == 0) continue;
    if (filter->SetFormatVersion(version) != Status::kOk) {
      std::fprintf(stderr, "make_corpus: %s cannot be written as version %u\n", name, version);
      return false;
    }
    std::vector<uint8_t> bytes(filter->SerializedSize());
    filter->Serialize(bytes.data());
    std::unique_ptr<Filter> check;
    if (Filter::Deserialize(bytes.data(), bytes.size(), &check) != Status::kOk ||
        bytes.size() + 1 > 4096) {
      std::fprintf(stderr, "make_corpus: %s does not load back or is too long\n", name);
      return false;
    }
    const std::string file =
        version == legacy ? std::string(name) : std::string(name) + "-v4";
    if (!WriteSeed(dir, file.c_str(), bytes)) return false;
    std::printf("%-30s version %u  %zu bytes\n", file.c_str(), version, bytes.size() + 1);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output-dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];

  auto params = [](uint64_t capacity, uint32_t f, uint32_t b, uint32_t max_kicks) {
    CuckooParams p;
    p.capacity = capacity;
    p.fingerprint_bits = f;
    p.bucket_size = b;
    p.max_kicks = max_kicks;
    return p;
  };
  auto semi_sorted = [](CuckooParams p) {
    p.encoding = cuckoo::TableEncoding::kSemiSorted;
    return p;
  };
  const Seed seeds[] = {
      {"empty-f13-b4", params(100, 13, 4, 500), 0, 0, false},
      {"half-f8-b2", params(50, 8, 2, 500), 25, 0, false},
      {"loaded-f16-b8", params(100, 16, 8, 500), 100, 0, false},  // 100 of 128 slots
      {"deleted-f32-b4", params(20, 32, 4, 500), 12, 4, false},
      {"padding-f5-b2", params(30, 5, 2, 500), 20, 0, false},  // 58 slots * 5 bits: 6 padding bits
      {"victim-f12-b2", params(8, 12, 2, 10), 0, 0, true},
      {"semisorted-f9-b4", semi_sorted(params(60, 9, 4, 500)), 50, 10, false},
      {"semisorted-victim-f4-b4", semi_sorted(params(8, 4, 4, 5)), 0, 0, true},
  };

  for (const Seed& seed : seeds) {
    std::unique_ptr<CuckooFilter> filter;
    if (CuckooFilter::Create(seed.params, &filter) != Status::kOk) {
      std::fprintf(stderr, "make_corpus: Create failed for %s\n", seed.name);
      return 1;
    }
    if (seed.until_victim) {
      for (int i = 0; !filter->victim_used(); ++i) {
        if (!AddKey(filter.get(), Key("k", i))) {
          std::fprintf(stderr, "make_corpus: %s filled up before the victim was used\n", seed.name);
          return 1;
        }
      }
    } else {
      for (int i = 0; i < seed.adds; ++i) {
        if (!AddKey(filter.get(), Key("k", i))) {
          std::fprintf(stderr, "make_corpus: Add failed for %s at key %d\n", seed.name, i);
          return 1;
        }
      }
      for (int i = 0; i < seed.deletes; ++i) {
        const std::string key = Key("k", i);
        if (filter->Delete(reinterpret_cast<const uint8_t*>(key.data()), key.size()) !=
            Status::kOk) {
          std::fprintf(stderr, "make_corpus: Delete failed for %s at key %d\n", seed.name, i);
          return 1;
        }
      }
    }

    std::vector<uint8_t> bytes(filter->SerializedSize());
    filter->Serialize(bytes.data());
    // Every seed must load back, or it teaches the fuzzer nothing past the header.
    std::unique_ptr<CuckooFilter> check;
    if (CuckooFilter::Deserialize(bytes.data(), bytes.size(), &check) != Status::kOk) {
      std::fprintf(stderr, "make_corpus: %s does not load back\n", seed.name);
      return 1;
    }
    if (!WriteSeed(dir, seed.name, bytes)) return 1;
    std::printf("%-16s f=%-2u b=%u m=%-3llu items=%-3llu victim=%d  %zu bytes\n", seed.name,
                filter->fingerprint_bits(), filter->bucket_size(),
                static_cast<unsigned long long>(filter->bucket_count()),
                static_cast<unsigned long long>(filter->size()), filter->victim_used() ? 1 : 0,
                bytes.size() + 1);
  }

  auto growing_params = [](uint64_t capacity, uint32_t f, uint32_t b, uint32_t max_kicks) {
    CuckooParams p;
    p.capacity = capacity;
    p.fingerprint_bits = f;
    p.bucket_size = b;
    p.max_kicks = max_kicks;
    p.seed = 5;
    return p;
  };
  const GrowingSeed growing[] = {
      {"grown1-f12-b8-e1024", growing_params(30, 12, 8, 500), 1024, 1, 20, 2},
      {"grown2-f8-b4-e2", growing_params(20, 8, 4, 500), 2, 2, 10, 2},
      {"grown3-f5-b2-e3", growing_params(2, 5, 2, 10), 3, 3, 4, 2},
      {"grown3-f6-b4-e2", growing_params(4, 6, 4, 20), 2, 3, 0, 2},
      {"grown3-f30-b2-e2-limit", growing_params(1, 30, 2, 50), 2, 3, 8, 2},
      {"grown3-semisorted-f7-b4-e2", semi_sorted(growing_params(6, 7, 4, 30)), 2, 3, 5, 2},
      // Version 4 only: cuckoo filters without growth (version 1's are the seeds above).
      {"fixed-f10-b4", growing_params(40, 10, 4, 500), 0, 1, 20, 0},
      {"fixed-semisorted-f9-b4", semi_sorted(growing_params(40, 9, 4, 500)), 0, 1, 20, 0},
  };
  for (const GrowingSeed& seed : growing) {
    std::unique_ptr<ScalableCuckooFilter> filter;
    if (ScalableCuckooFilter::Create(seed.params, seed.expansion, &filter) != Status::kOk) {
      std::fprintf(stderr, "make_corpus: Create failed for %s\n", seed.name);
      return 1;
    }
    std::vector<std::string> keys;
    for (int i = 0; filter->sub_filter_count() < seed.subs; ++i) {
      keys.push_back(Key("g", i));
      if (filter->Add(Bytes(keys.back()), keys.back().size()) != Status::kOk) {
        std::fprintf(stderr, "make_corpus: Add failed for %s at key %d\n", seed.name, i);
        return 1;
      }
    }
    for (int i = 0; i < seed.extra; ++i) {
      keys.push_back(Key("x", i));
      const Status s = filter->Add(Bytes(keys.back()), keys.back().size());
      if (s != Status::kOk && s != Status::kGrowthLimit) {
        std::fprintf(stderr, "make_corpus: Add failed for %s at extra key %d\n", seed.name, i);
        return 1;
      }
      if (s != Status::kOk) keys.pop_back();
    }
    for (size_t i = 0; i < keys.size(); i += 3) {
      if (filter->Delete(Bytes(keys[i]), keys[i].size()) != Status::kOk) {
        std::fprintf(stderr, "make_corpus: Delete failed for %s at %s\n", seed.name, keys[i].c_str());
        return 1;
      }
    }
    if (!WriteVersions(dir, seed.name, filter.get(), seed.legacy)) return 1;
  }

  // Legacy version 3 unless the positions are version 2's.
  auto bloom_params = [](uint64_t capacity, double rate, uint32_t expansion,
                         cuckoo::BloomPositions positions = cuckoo::BloomPositions::kIndependent) {
    ScalableBloomParams p;
    p.capacity = capacity;
    p.false_positive_rate = rate;
    p.expansion = expansion;
    p.seed = 6;
    p.positions = positions;
    return p;
  };
  const BloomSeed blooms[] = {
      {"bloom1-e0", bloom_params(50, 0.01, 0), 1, 30, 3},
      {"bloom2-e1024", bloom_params(2, 0.05, 1024), 2, 5, 3},
      {"bloom3-e2", bloom_params(4, 0.1, 2), 3, 2, 3},
      {"bloom3-e3-k63", bloom_params(1, 1e-18, 3), 3, 1, 3},
      {"bloom3-e2-v2", bloom_params(4, 0.1, 2, cuckoo::BloomPositions::kDoubleHashing), 3, 2, 2},
  };
  for (const BloomSeed& seed : blooms) {
    std::unique_ptr<ScalableBloomFilter> filter;
    if (ScalableBloomFilter::Create(seed.params, &filter) != Status::kOk) {
      std::fprintf(stderr, "make_corpus: Create failed for %s\n", seed.name);
      return 1;
    }
    int i = 0;
    for (; filter->sub_filter_count() < seed.subs && i < 100000; ++i) {
      const std::string key = Key("b", i);
      if (filter->Add(Bytes(key), key.size()) != Status::kOk) break;
    }
    for (int n = 0; n < seed.extra; ++n, ++i) {
      const std::string key = Key("b", i);
      filter->Add(Bytes(key), key.size());
    }
    if (filter->sub_filter_count() != seed.subs) {
      std::fprintf(stderr, "make_corpus: %s did not grow\n", seed.name);
      return 1;
    }
    if (!WriteVersions(dir, seed.name, filter.get(), seed.legacy)) return 1;
  }

  // Redis cuckoo filters (version 4, family 3): {capacity, b, max iterations,
  // expansion, adds, deletes}.
  struct RedisSeed {
    const char* name;
    cuckoo::RedisCuckooParams params;
    int adds;
    int deletes;
  };
  const RedisSeed redis[] = {
      {"redis-cf-b2-e1", {64, 2, 20, 1}, 100, 10},
      {"redis-cf-b4-e2", {64, 4, 20, 2}, 300, 40},
      {"redis-cf-b1-e0", {32, 1, 5, 0}, 40, 0},
      {"redis-cf-b8-e3", {16, 8, 50, 3}, 200, 20},
  };
  for (const RedisSeed& seed : redis) {
    std::unique_ptr<cuckoo::RedisCuckooFilter> filter;
    if (cuckoo::RedisCuckooFilter::Create(seed.params, &filter) != Status::kOk) {
      std::fprintf(stderr, "make_corpus: Create failed for %s\n", seed.name);
      return 1;
    }
    for (int i = 0; i < seed.adds; ++i) {
      const std::string key = Key("r", i);
      filter->Add(Bytes(key), key.size());
    }
    for (int i = 0; i < seed.deletes; ++i) {
      const std::string key = Key("r", i);
      filter->Delete(Bytes(key), key.size());
    }
    if (!WriteVersions(dir, seed.name, filter.get(), 0)) return 1;
  }

  // Redis Bloom filters (version 4, family 4): {error rate, capacity,
  // expansion, non-scaling}, then adds (the scaling ones grow).
  struct RedisBloomSeed {
    const char* name;
    cuckoo::RedisBloomParams params;
    int adds;
  };
  const RedisBloomSeed redis_bloom[] = {
      {"redis-bf-e2", {0.01, 50, 2, false}, 120},
      {"redis-bf-nonscaling", {0.05, 40, 2, true}, 40},
  };
  for (const RedisBloomSeed& seed : redis_bloom) {
    std::unique_ptr<cuckoo::RedisBloomFilter> filter;
    if (cuckoo::RedisBloomFilter::Create(seed.params, &filter) != Status::kOk) {
      std::fprintf(stderr, "make_corpus: Create failed for %s\n", seed.name);
      return 1;
    }
    for (int i = 0; i < seed.adds; ++i) {
      const std::string key = Key("s", i);
      bool added = false;
      filter->AddUnique(Bytes(key), key.size(), &added);
    }
    if (!WriteVersions(dir, seed.name, filter.get(), 0)) return 1;
  }

  // Binary fuse filters (version 4, family 5): {keys, arity, f}; keys
  // "z0", "z1", ... collected, then built. The three-wise ones of odd f have
  // padding bits after the table.
  struct FuseSeed {
    const char* name;
    int keys;
    uint32_t arity;
    uint32_t fingerprint_bits;
  };
  const FuseSeed fuse[] = {
      {"fuse-0-a3-f13-v4", 0, 3, 13},  {"fuse-0-a4-f8-v4", 0, 4, 8},
      {"fuse-1-a3-f16-v4", 1, 3, 16},  {"fuse-1-a4-f13-v4", 1, 4, 13},
      {"fuse-100-a3-f8-v4", 100, 3, 8}, {"fuse-100-a4-f13-v4", 100, 4, 13},
      {"fuse-100-a4-f16-v4", 100, 4, 16},
  };
  for (const FuseSeed& seed : fuse) {
    cuckoo::BinaryFuseParams p;
    p.fingerprint_bits = seed.fingerprint_bits;
    p.arity = seed.arity;
    p.seed = 8;
    std::unique_ptr<cuckoo::BinaryFuseFilter> collecting;
    std::unique_ptr<cuckoo::BinaryFuseFilter> filter;
    bool ok = cuckoo::BinaryFuseFilter::Create(p, &collecting) == Status::kOk;
    for (int i = 0; ok && i < seed.keys; ++i) {
      const std::string key = Key("z", i);
      ok = collecting->Add(Bytes(key), key.size()) == Status::kOk;
    }
    p.from = reinterpret_cast<uintptr_t>(collecting.get());
    ok = ok && cuckoo::BinaryFuseFilter::Create(p, &filter) == Status::kOk;
    std::vector<uint8_t> bytes;
    if (ok) {
      bytes.resize(filter->SerializedSize());
      filter->Serialize(bytes.data());
    }
    std::unique_ptr<cuckoo::BinaryFuseFilter> check;
    if (!ok || cuckoo::BinaryFuseFilter::Deserialize(bytes.data(), bytes.size(), &check) != Status::kOk ||
        bytes.size() + 1 > 4096) {
      std::fprintf(stderr, "make_corpus: %s cannot be made, does not load back or is too long\n", seed.name);
      return 1;
    }
    if (!WriteSeed(dir, seed.name, bytes)) return 1;
    std::printf("%-30s version 4  %zu bytes\n", seed.name, bytes.size() + 1);
  }
  return 0;
}
