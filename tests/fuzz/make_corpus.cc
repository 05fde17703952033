// Writes the seed corpus for deserialize_fuzz.cc: a few small, valid serialized
// filters (different f and b; empty, loaded, after deletes, full with the victim
// in use, non-zero padding bits), each under three mode bytes (see
// deserialize_fuzz.cc):
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

#include "cuckoo_filter.h"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::CuckooParams;
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

struct Seed {
  const char* name;
  CuckooParams params;
  // Keys "k0".."k{adds-1}" are added, then "k0".."k{deletes-1}" deleted. With
  // until_victim, keys are added until the victim slot is in use instead.
  int adds;
  int deletes;
  bool until_victim;
};

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
  const Seed seeds[] = {
      {"empty-f13-b4", params(100, 13, 4, 500), 0, 0, false},
      {"half-f8-b2", params(50, 8, 2, 500), 25, 0, false},
      {"loaded-f16-b8", params(100, 16, 8, 500), 100, 0, false},  // 100 of 128 slots
      {"deleted-f32-b4", params(20, 32, 4, 500), 12, 4, false},
      {"padding-f5-b2", params(30, 5, 2, 500), 20, 0, false},  // 58 slots * 5 bits: 6 padding bits
      {"victim-f12-b2", params(8, 12, 2, 10), 0, 0, true},
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
    const struct {
      const char* prefix;
      uint8_t mode;
    } modes[] = {{"raw-", 0x00}, {"cksum-", 0x01}, {"fixup-", 0x03}};
    for (const auto& m : modes) {
      const std::string path = dir + "/" + m.prefix + seed.name;
      if (!WriteFile(path, m.mode, bytes)) {
        std::fprintf(stderr, "make_corpus: cannot write %s\n", path.c_str());
        return 1;
      }
    }
    std::printf("%-16s f=%-2u b=%u m=%-3llu items=%-3llu victim=%d  %zu bytes\n", seed.name,
                filter->fingerprint_bits(), filter->bucket_size(),
                static_cast<unsigned long long>(filter->bucket_count()),
                static_cast<unsigned long long>(filter->size()), filter->victim_used() ? 1 : 0,
                bytes.size() + 1);
  }
  return 0;
}
