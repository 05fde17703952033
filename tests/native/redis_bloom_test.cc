// RedisBloomFilter (src/redis/redis_bloom.h): the server's sizing against the
// numbers the fixtures' SCANDUMP headers hold, positions against values worked
// out apart from the core (a Python MurmurHash64A model), BF.ADD's answers,
// NONSCALING and growth, SCANDUMP / LOADCHUNK round trips and every refusal of
// a hostile dump, the version-4 own format with its golden file, and the three
// BF fixtures rebuilt from their items byte for byte.
//
// The fixtures (../shared/redis/bf-*.json) and their items
// (../shared/data/blocklist_domains.txt) are read from CUCKOO_SHARED_DIR when
// the environment sets it, else from beside the repository; the tests that
// need them skip with a message when they are not there.
#include "redis/redis_bloom.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "alloc_probe.h"
#include "test_util.h"

namespace {

using cuckoo::RedisBloomFilter;
using cuckoo::RedisBloomLinkShape;
using cuckoo::RedisBloomParams;
using cuckoo::RedisChunk;
using cuckoo::Status;
using Bytes = std::vector<uint8_t>;
using BloomPtr = std::unique_ptr<RedisBloomFilter>;

const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

BloomPtr Make(double error, uint64_t capacity, uint32_t expansion = 2, bool non_scaling = false) {
  RedisBloomParams p;
  p.error_rate = error;
  p.capacity = capacity;
  p.expansion = expansion;
  p.non_scaling = non_scaling;
  BloomPtr f;
  EXPECT_EQ(RedisBloomFilter::Create(p, &f), Status::kOk);
  return f;
}

bool AddUnique(RedisBloomFilter& f, const std::string& k, Status* s = nullptr) {
  bool added = false;
  const Status st = f.AddUnique(U8(k), k.size(), &added);
  if (s != nullptr)
    *s = st;
  else
    EXPECT_EQ(st, Status::kOk) << k;
  return added;
}
bool Has(const RedisBloomFilter& f, const std::string& k) { return f.Contain(U8(k), k.size()); }

struct Chunk {
  uint64_t iterator;
  Bytes data;
};

std::vector<Chunk> Dump(const RedisBloomFilter& f) {
  std::vector<Chunk> out;
  Bytes header(f.DumpHeaderBytes());
  for (uint32_t j = 0; j < f.DumpChunkCount(); ++j) {
    const RedisChunk c = f.DumpChunk(j, header.data());
    out.push_back({c.iterator, Bytes(c.data, c.data + c.len)});
  }
  return out;
}

// Loads chunks in order: the first status that is not kOk, or FinishDump's.
Status Load(const std::vector<Chunk>& chunks, BloomPtr* out) {
  if (chunks.empty()) return Status::kFormatBadChunk;
  // Exactly-sized heap copies, so AddressSanitizer flags a read past a chunk.
  Bytes h = chunks[0].data;
  std::unique_ptr<uint8_t[]> copy(new uint8_t[h.size() + 1]);
  if (!h.empty()) std::memcpy(copy.get(), h.data(), h.size());
  BloomPtr f;
  Status s = RedisBloomFilter::LoadDumpHeader(chunks[0].iterator, copy.get(), h.size(), &f);
  if (s != Status::kOk) return s;
  for (size_t j = 1; j < chunks.size(); ++j) {
    std::unique_ptr<uint8_t[]> c(new uint8_t[chunks[j].data.size() + 1]);
    if (!chunks[j].data.empty()) std::memcpy(c.get(), chunks[j].data.data(), chunks[j].data.size());
    s = f->LoadDumpChunk(chunks[j].iterator, c.get(), chunks[j].data.size());
    if (s != Status::kOk) return s;
  }
  s = f->FinishDump();
  if (s == Status::kOk) *out = std::move(f);
  return s;
}

Bytes Serialize(const RedisBloomFilter& f) {
  Bytes out(f.SerializedSize());
  f.Serialize(out.data());
  return out;
}

bool SameDump(const std::vector<Chunk>& a, const std::vector<Chunk>& b) {
  if (a.size() != b.size()) return false;
  for (size_t j = 0; j < a.size(); ++j) {
    if (a[j].iterator != b[j].iterator || a[j].data != b[j].data) return false;
  }
  return true;
}

void PutU64(Bytes* b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) (*b)[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void PutU32(Bytes* b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) (*b)[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void PutF64(Bytes* b, size_t at, double d) {
  uint64_t v;
  std::memcpy(&v, &d, 8);
  PutU64(b, at, v);
}
uint64_t GetU64(const Bytes& b, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[at + i];
  return v;
}
double GetF64(const Bytes& b, size_t at) {
  const uint64_t v = GetU64(b, at);
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}

// ---------------------------------------------------------------------------
// Fixtures: a small reader of the JSON the fixtures are (only the fields used).

std::string SharedDir() {
  const char* env = std::getenv("CUCKOO_SHARED_DIR");
  if (env != nullptr) return env;
  return std::string(CUCKOO_SHARED_DATA_DIR) + "/..";
}

bool ReadText(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

Bytes Base64(const std::string& s) {
  Bytes out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    else
      continue;  // '=' and whitespace
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>(acc >> bits));
    }
  }
  return out;
}

// The "chunks" array: [[iterator, "base64"], ...].
std::vector<Chunk> FixtureChunks(const std::string& json) {
  std::vector<Chunk> out;
  size_t at = json.find("\"chunks\"");
  if (at == std::string::npos) return out;
  at = json.find('[', at) + 1;
  for (;;) {
    const size_t open = json.find('[', at);
    const size_t close_all = json.find(']', at);
    if (open == std::string::npos || close_all < open) break;
    const size_t comma = json.find(',', open);
    const uint64_t iterator = std::stoull(json.substr(open + 1, comma - open - 1));
    const size_t q1 = json.find('"', comma);
    const size_t q2 = json.find('"', q1 + 1);
    out.push_back({iterator, Base64(json.substr(q1 + 1, q2 - q1 - 1))});
    at = json.find(']', q2) + 1;
  }
  return out;
}

// A string field ("memberAnswers": "1101...") or a number field after `from`.
std::string StringField(const std::string& json, const std::string& name) {
  size_t at = json.find("\"" + name + "\"");
  at = json.find('"', json.find(':', at)) + 1;
  return json.substr(at, json.find('"', at) - at);
}
uint64_t NumberField(const std::string& json, const std::string& name, size_t from = 0) {
  const size_t at = json.find(':', json.find("\"" + name + "\"", from)) + 1;
  return std::stoull(json.substr(at));
}

// Lines trimmed of ASCII whitespace, empty ones dropped, duplicates dropped
// (first kept), in file order.
std::vector<std::string> Lines(const std::string& path) {
  std::string text;
  std::vector<std::string> out;
  if (!ReadText(path, &text)) return out;
  std::set<std::string> seen;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t b = line.find_first_not_of(" \t\r\n\v\f");
    if (b == std::string::npos) continue;
    const size_t e = line.find_last_not_of(" \t\r\n\v\f");
    std::string t = line.substr(b, e - b + 1);
    if (seen.insert(t).second) out.push_back(t);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Sizing: the links of the three BF fixtures' SCANDUMP headers.

struct LinkNumbers {
  uint64_t bytes, bits;
  double error, bpe;
  uint32_t hashes;
  uint64_t entries;
};

void ExpectShape(const RedisBloomLinkShape& s, const LinkNumbers& want) {
  EXPECT_EQ(s.bytes, want.bytes);
  EXPECT_EQ(s.bits, want.bits);
  // Bit for bit: the SCANDUMP header carries these doubles.
  EXPECT_EQ(std::memcmp(&s.error, &want.error, 8), 0) << s.error;
  EXPECT_EQ(std::memcmp(&s.bpe, &want.bpe, 8), 0) << std::hexfloat << s.bpe << " vs " << want.bpe;
  EXPECT_EQ(s.hashes, want.hashes);
  EXPECT_EQ(s.entries, want.entries);
  EXPECT_TRUE(s.Consistent());
}

// bf-basic (BF.RESERVE 0.01 10000), bf-nonscaling (0.01 1000 NONSCALING),
// bf-grow (0.001 1000 EXPANSION 2, five links).
const LinkNumbers kBasic = {13792, 110336, 0.005, 11.027753418256411, 8, 10000};
const LinkNumbers kNonScaling = {1200, 9600, 0.01, 9.585058377367446, 7, 1000};
const LinkNumbers kGrow[] = {
    {1984, 15872, 0.0005, 15.820282606940136, 11, 1000},
    {4320, 34560, 0.00025, 17.2629776478291, 12, 2000},
    {9360, 74880, 0.000125, 18.705672688718064, 13, 4000},
    {20152, 161216, 6.25e-05, 20.14836772960703, 14, 8000},
    {43184, 345472, 3.125e-05, 21.591062770495995, 15, 16000},
};

TEST(RedisBloomSizing, LinksAreTheServersBitForBit) {
  RedisBloomLinkShape s;
  ASSERT_TRUE(RedisBloomLinkShape::For(10000, 0.005, &s));
  ExpectShape(s, kBasic);
  ASSERT_TRUE(RedisBloomLinkShape::For(1000, 0.01, &s));
  ExpectShape(s, kNonScaling);
  for (const LinkNumbers& l : kGrow) {
    ASSERT_TRUE(RedisBloomLinkShape::For(l.entries, l.error, &s));
    ExpectShape(s, l);
  }
}

TEST(RedisBloomSizing, ReserveTightensLinkZeroUnlessNonScaling) {
  BloomPtr f = Make(0.01, 10000);
  ExpectShape(f->link(0).shape(), kBasic);
  EXPECT_EQ(f->error_rate(), 0.01);
  EXPECT_FALSE(f->non_scaling());
  EXPECT_EQ(f->growth(), 2u);

  BloomPtr n = Make(0.01, 1000, 2, true);
  ExpectShape(n->link(0).shape(), kNonScaling);
  EXPECT_EQ(n->error_rate(), 0.01);
  EXPECT_TRUE(n->non_scaling());
  EXPECT_EQ(n->growth(), 2u);  // stored as the server stores it for NONSCALING

  BloomPtr g = Make(0.001, 1000);
  ExpectShape(g->link(0).shape(), kGrow[0]);
}

TEST(RedisBloomSizing, InfoCapacityAndSize) {
  BloomPtr f = Make(0.01, 10000);
  EXPECT_EQ(f->capacity(), 10000u);
  EXPECT_EQ(f->redis_size(), 13888u);  // bf-basic's BF.INFO Size
  BloomPtr n = Make(0.01, 1000, 2, true);
  EXPECT_EQ(n->redis_size(), 1296u);  // bf-nonscaling's
}

TEST(RedisBloomCreate, RefusesWhatBfReserveRefuses) {
  BloomPtr f;
  auto create = [&](double e, uint64_t c, uint32_t x, bool ns) {
    RedisBloomParams p;
    p.error_rate = e;
    p.capacity = c;
    p.expansion = x;
    p.non_scaling = ns;
    return RedisBloomFilter::Create(p, &f);
  };
  EXPECT_EQ(create(0, 100, 2, false), Status::kInvalidArgument);
  EXPECT_EQ(create(-0.1, 100, 2, false), Status::kInvalidArgument);
  EXPECT_EQ(create(1, 100, 2, false), Status::kInvalidArgument);
  EXPECT_EQ(create(NAN, 100, 2, false), Status::kInvalidArgument);
  EXPECT_EQ(create(INFINITY, 100, 2, false), Status::kInvalidArgument);
  EXPECT_EQ(create(0.01, 0, 2, false), Status::kInvalidArgument);
  EXPECT_EQ(create(0.01, (uint64_t{1} << 30) + 1, 2, false), Status::kInvalidArgument);
  EXPECT_EQ(create(0.01, 100, 32769, false), Status::kInvalidArgument);
  EXPECT_EQ(create(0.01, 100, 4, true), Status::kInvalidArgument);  // NONSCALING cannot expand
  // Past 1 GiB in all (2^30 entries at 1e-10: about 6 GiB of bits).
  EXPECT_EQ(create(1e-10, uint64_t{1} << 30, 2, false), Status::kInvalidArgument);
  EXPECT_EQ(f, nullptr);

  EXPECT_EQ(create(0.9, 1, 1, false), Status::kOk);  // expansion 1 is Redis's
  EXPECT_EQ(create(0.01, 1, 32768, false), Status::kOk);
  EXPECT_EQ(create(0.9, uint64_t{1} << 30, 0, false), Status::kOk);  // 29 MB of bits
  // 2^30 entries at 0.005: 1.4 GB of bits, past this library's 1 GiB.
  EXPECT_EQ(create(0.01, uint64_t{1} << 30, 2, false), Status::kInvalidArgument);
  EXPECT_EQ(create(0.01, 100, 0, false), Status::kOk);  // EXPANSION 0: non-scaling
  EXPECT_TRUE(f->non_scaling());
  EXPECT_EQ(f->growth(), 0u);
  EXPECT_EQ(f->link(0).error(), 0.01);
}

// ---------------------------------------------------------------------------
// Positions: (a + i*b) mod bits over MurmurHash64A, LSB first in each byte.
// Expected values from a Python model of MurmurHash64A, not from the core.

TEST(RedisBloomPositions, HandCheckedItems) {
  struct Case {
    std::string key;
    uint64_t a, b;
    uint64_t pos[7];  // mod 9600 (bf-nonscaling's bits), 7 hashes
  };
  const Case cases[] = {
      {"hello",
       0x5ba5b8a59803e699ULL,
       0xa7d451d588a0c2a4ULL,
       {5913, 5949, 2401, 2437, 8489, 8525, 8561}},
      {"example.com",
       0x8ae2e3e517978488ULL,
       0xcd01f3baf490b555ULL,
       {392, 1245, 2098, 8967, 220, 1073, 1926}},
      {"", 0x1ab11ea5a7b2c56eULL, 0xbbddcb5ab56dd547ULL, {4590, 5685, 764, 5443, 522, 1617, 6296}},
  };
  for (const Case& c : cases) {
    const cuckoo::RedisBloomHash h = cuckoo::RedisBloomHashKey(U8(c.key), c.key.size());
    EXPECT_EQ(h.a, c.a) << c.key;
    EXPECT_EQ(h.b, c.b) << c.key;
    BloomPtr f = Make(0.01, 1000, 2, true);
    ASSERT_TRUE(AddUnique(*f, c.key));
    std::set<uint64_t> want(std::begin(c.pos), std::end(c.pos));
    const uint8_t* data = f->link(0).data();
    for (uint64_t x = 0; x < 9600; ++x) {
      const bool set = (data[x >> 3] >> (x & 7)) & 1;
      EXPECT_EQ(set, want.count(x) == 1) << c.key << " bit " << x;
    }
    EXPECT_TRUE(Has(*f, c.key));
  }
}

// ---------------------------------------------------------------------------
// BF.ADD

TEST(RedisBloomAdd, AnItemAlreadyHeldChangesNothing) {
  BloomPtr f = Make(0.01, 100);
  EXPECT_TRUE(AddUnique(*f, "a"));
  const Bytes before = Serialize(*f);
  EXPECT_FALSE(AddUnique(*f, "a"));
  EXPECT_EQ(Serialize(*f), before);
  EXPECT_EQ(f->size(), 1u);
  EXPECT_EQ(f->Add(U8(std::string("a")), 1), Status::kOk);  // Add: BF.ADD without the answer
  EXPECT_EQ(f->size(), 1u);
  const std::string keys = "abc";
  const uint32_t offsets[] = {0, 1, 2, 3};
  Status s;
  EXPECT_EQ(f->AddBatch(U8(keys), offsets, 3, &s), 3u);
  EXPECT_EQ(s, Status::kOk);
  EXPECT_EQ(f->size(), 3u);  // "a" not counted again
}

TEST(RedisBloomAdd, NonScalingFillsToCapacityThenRefuses) {
  BloomPtr f = Make(0.01, 50, 2, true);
  uint64_t added = 0;
  Status s = Status::kOk;
  std::string refused;
  for (int i = 0; i < 200 && s == Status::kOk; ++i) {
    const std::string k = "k" + std::to_string(i);
    if (AddUnique(*f, k, &s)) ++added;
    if (s != Status::kOk) refused = k;
  }
  EXPECT_EQ(s, Status::kNotEnoughSpace);
  EXPECT_EQ(added, 50u);
  EXPECT_EQ(f->size(), 50u);
  EXPECT_EQ(f->sub_filter_count(), 1u);
  EXPECT_FALSE(Has(*f, refused));
  // An item already held is still answered 0, with no error.
  EXPECT_FALSE(AddUnique(*f, "k0", &s));
  EXPECT_EQ(s, Status::kOk);
}

TEST(RedisBloomAdd, GrowsByExpansionAtHalfTheError) {
  BloomPtr f = Make(0.01, 100, 3);
  std::vector<std::string> keys;
  for (int i = 0; i < 2000; ++i) {
    keys.push_back("key" + std::to_string(i));
    AddUnique(*f, keys.back());
  }
  ASSERT_EQ(f->sub_filter_count(), 4u);  // 100 + 300 + 900 < 2000 <= + 2700
  uint64_t entries = 100, sum = 0;
  double error = 0.005;
  for (uint32_t j = 0; j < f->sub_filter_count(); ++j) {
    EXPECT_EQ(f->link(j).entries(), entries);
    EXPECT_EQ(f->link(j).error(), error);
    if (j + 1 < f->sub_filter_count()) EXPECT_EQ(f->link(j).size(), entries);
    sum += f->link(j).size();
    entries *= 3;
    error /= 2;
  }
  EXPECT_EQ(sum, f->size());
  EXPECT_EQ(f->capacity(), 100u + 300 + 900 + 2700);
  EXPECT_EQ(f->redis_size(), 32 + 4 * 64 + f->link(0).bytes() + f->link(1).bytes() +
                                 f->link(2).bytes() + f->link(3).bytes());
  for (const auto& k : keys) EXPECT_TRUE(Has(*f, k)) << k;
}

TEST(RedisBloomAdd, StopsAtTheLinkLimit) {
  BloomPtr f = Make(0.5, 1, 1);  // one entry a link
  Status s = Status::kOk;
  int i = 0;
  while (s == Status::kOk && i < 10000) AddUnique(*f, "x" + std::to_string(i++), &s);
  EXPECT_EQ(s, Status::kGrowthLimit);
  EXPECT_EQ(f->sub_filter_count(), cuckoo::format::kMaxSubFilters);
}

// ---------------------------------------------------------------------------
// SCANDUMP / LOADCHUNK round trips

BloomPtr Grown() {
  BloomPtr f = Make(0.01, 100);
  for (int i = 0; i < 500; ++i) AddUnique(*f, "item" + std::to_string(i));
  return f;
}

TEST(RedisBloomDump, ChunksAndIterators) {
  BloomPtr f = Grown();
  ASSERT_EQ(f->sub_filter_count(), 3u);
  const std::vector<Chunk> d = Dump(*f);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].iterator, 1u);
  EXPECT_EQ(d[0].data.size(), 20u + 53 * 3);
  EXPECT_EQ(GetU64(d[0].data, 0), f->size());
  uint64_t so_far = 0;
  for (uint32_t j = 0; j < 3; ++j) {
    so_far += f->link(j).bytes();
    EXPECT_EQ(d[j + 1].iterator, 1 + so_far);
    EXPECT_EQ(d[j + 1].data, Bytes(f->link(j).data(), f->link(j).data() + f->link(j).bytes()));
  }
}

TEST(RedisBloomDump, RoundTripDumpLoadDump) {
  BloomPtr f = Grown();
  const std::vector<Chunk> d = Dump(*f);
  BloomPtr g;
  ASSERT_EQ(Load(d, &g), Status::kOk);
  EXPECT_TRUE(SameDump(Dump(*g), d));
  EXPECT_EQ(g->size(), f->size());
  EXPECT_EQ(g->growth(), 2u);
  for (int i = 0; i < 500; ++i) EXPECT_TRUE(Has(*g, "item" + std::to_string(i)));
  // The loaded filter goes on growing as the original does.
  for (int i = 500; i < 1000; ++i) {
    AddUnique(*f, "item" + std::to_string(i));
    AddUnique(*g, "item" + std::to_string(i));
  }
  EXPECT_TRUE(SameDump(Dump(*g), Dump(*f)));

  BloomPtr n = Make(0.01, 10, 0);  // EXPANSION 0
  AddUnique(*n, "x");
  ASSERT_EQ(Load(Dump(*n), &g), Status::kOk);
  EXPECT_TRUE(g->non_scaling());
  EXPECT_EQ(g->growth(), 0u);
  EXPECT_TRUE(SameDump(Dump(*g), Dump(*n)));
}

TEST(RedisBloomDump, EmptyFilterDumpsHeaderAndZeroedArray) {
  BloomPtr f = Make(0.01, 100);
  const std::vector<Chunk> d = Dump(*f);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(GetU64(d[0].data, 0), 0u);
  EXPECT_EQ(d[1].data, Bytes(f->link(0).bytes(), 0));
  BloomPtr g;
  ASSERT_EQ(Load(d, &g), Status::kOk);
  EXPECT_EQ(g->size(), 0u);
}

TEST(RedisBloomDump, LoadAcceptsOtherChunkCutsWithinALink) {
  BloomPtr f = Grown();
  std::vector<Chunk> d = Dump(*f);
  // Cut link 1's array in two: iterators 1 + bytes so far, each.
  std::vector<Chunk> cut = {d[0], d[1]};
  const Bytes& a = d[2].data;
  const uint64_t base = d[1].iterator - 1;
  cut.push_back({1 + base + 100, Bytes(a.begin(), a.begin() + 100)});
  cut.push_back({1 + base + a.size(), Bytes(a.begin() + 100, a.end())});
  cut.push_back(d[3]);
  BloomPtr g;
  ASSERT_EQ(Load(cut, &g), Status::kOk);
  EXPECT_TRUE(SameDump(Dump(*g), d));
}

// ---------------------------------------------------------------------------
// Hostile dumps

class RedisBloomHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    f_ = Grown();
    d_ = Dump(*f_);
  }
  // Loads d_ with the header edited by `edit`.
  template <class Edit>
  Status WithHeader(Edit edit) {
    std::vector<Chunk> d = d_;
    edit(&d[0].data);
    BloomPtr g;
    return Load(d, &g);
  }
  BloomPtr f_;
  std::vector<Chunk> d_;
};

constexpr size_t kLink0 = 20;  // link 0's 53 bytes start here
constexpr size_t kLink1 = 20 + 53;

TEST_F(RedisBloomHostile, HeaderChunk) {
  BloomPtr g;
  std::vector<Chunk> d = d_;
  d[0].iterator = 2;
  EXPECT_EQ(Load(d, &g), Status::kFormatBadChunk);
  EXPECT_EQ(WithHeader([](Bytes* h) { h->resize(19); }), Status::kFormatTruncated);
  EXPECT_EQ(WithHeader([](Bytes* h) { h->pop_back(); }), Status::kFormatTruncated);
  EXPECT_EQ(WithHeader([](Bytes* h) { h->push_back(0); }), Status::kFormatTrailingBytes);
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU32(h, 8, 0); }), Status::kFormatBadParameter);
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU32(h, 8, 256); }), Status::kFormatBadParameter);
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU32(h, 8, 33); }), Status::kFormatTruncated);  // 33 links: 33 headers
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU32(h, 8, 4); }), Status::kFormatTruncated);
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU32(h, 8, 2); }), Status::kFormatTrailingBytes);
}

TEST_F(RedisBloomHostile, FilterFields) {
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU32(h, 12, 4); }), Status::kFormatBadParameter);
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU32(h, 12, 7); }), Status::kFormatBadParameter);
  // NONSCALING with three links.
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU32(h, 12, 13); }), Status::kFormatBadParameter);
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU32(h, 16, 0); }), Status::kFormatBadParameter);
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU32(h, 16, 32769); }), Status::kFormatBadParameter);
  // Growth 3 with links of 100, 200, 400 entries.
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU32(h, 16, 3); }), Status::kFormatBadParameter);
  // Total vs the sum of link sizes.
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU64(h, 0, GetU64(*h, 0) + 1); }),
            Status::kFormatCountMismatch);
}

TEST_F(RedisBloomHostile, LinkFields) {
  // bytes, bits, size, error, bpe, hashes, entries, n2 at +0, 8, 16, 24, 32, 40, 44, 52.
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU64(h, kLink0, GetU64(*h, kLink0) + 8); }),
            Status::kFormatBadParameter);  // bytes != bits / 8
  EXPECT_EQ(WithHeader([](Bytes* h) {
              PutU64(h, kLink0, GetU64(*h, kLink0) + 8);
              PutU64(h, kLink0 + 8, GetU64(*h, kLink0 + 8) + 64);
            }),
            Status::kFormatBadParameter);  // bits not floor(entries * bpe) rounded up
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU64(h, kLink0 + 8, GetU64(*h, kLink0 + 8) + 1); }),
            Status::kFormatBadParameter);  // bits not a multiple of 64
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU64(h, kLink0 + 16, 101); }),
            Status::kFormatBadParameter);  // size past entries
  EXPECT_EQ(WithHeader([](Bytes* h) { PutF64(h, kLink0 + 24, 0.006); }),
            Status::kFormatBadParameter);  // bpe not the error's
  EXPECT_EQ(WithHeader([](Bytes* h) { PutF64(h, kLink0 + 24, 0); }), Status::kFormatBadParameter);
  EXPECT_EQ(WithHeader([](Bytes* h) { PutF64(h, kLink0 + 24, NAN); }), Status::kFormatBadParameter);
  EXPECT_EQ(WithHeader([](Bytes* h) { PutF64(h, kLink0 + 32, GetF64(*h, kLink0 + 32) * 1.001); }),
            Status::kFormatBadParameter);
  EXPECT_EQ(WithHeader([](Bytes* h) { PutF64(h, kLink0 + 32, INFINITY); }),
            Status::kFormatBadParameter);
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU32(h, kLink0 + 40, 9); }), Status::kFormatBadParameter);
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU32(h, kLink0 + 40, 0); }), Status::kFormatBadParameter);
  EXPECT_EQ(WithHeader([](Bytes* h) { PutU64(h, kLink0 + 44, 99); }), Status::kFormatBadParameter);
  EXPECT_EQ(WithHeader([](Bytes* h) { (*h)[kLink0 + 52] = 1; }), Status::kFormatBadParameter);
  // Link 1 not entries * growth / error / 2 of link 0, though consistent in itself.
  EXPECT_EQ(WithHeader([](Bytes* h) {
              RedisBloomLinkShape s;
              ASSERT_TRUE(RedisBloomLinkShape::For(200, 0.0025 * 1.5, &s));
              PutU64(h, kLink1, s.bytes);
              PutU64(h, kLink1 + 8, s.bits);
              PutF64(h, kLink1 + 24, s.error);
              PutF64(h, kLink1 + 32, s.bpe);
              PutU32(h, kLink1 + 40, s.hashes);
            }),
            Status::kFormatBadParameter);
}

TEST_F(RedisBloomHostile, SizesPastTheLimit) {
  // One link of 2^31 bytes, consistent in itself: refused before allocating.
  Bytes h(20 + 53);
  RedisBloomLinkShape s;
  ASSERT_TRUE(RedisBloomLinkShape::For(uint64_t{1} << 30, 1e-6, &s));
  ASSERT_GT(s.bytes, uint64_t{1} << 30);
  PutU32(&h, 8, 1);
  PutU32(&h, 12, 5);
  PutU32(&h, 16, 2);
  PutU64(&h, kLink0, s.bytes);
  PutU64(&h, kLink0 + 8, s.bits);
  PutF64(&h, kLink0 + 24, s.error);
  PutF64(&h, kLink0 + 32, s.bpe);
  PutU32(&h, kLink0 + 40, s.hashes);
  PutU64(&h, kLink0 + 44, s.entries);
  BloomPtr g;
  Status st = Status::kOk;
  const alloc_probe::Seen seen = alloc_probe::During(
      [&] { st = RedisBloomFilter::LoadDumpHeader(1, h.data(), h.size(), &g); });
  EXPECT_EQ(st, Status::kFormatBadParameter);
  EXPECT_EQ(seen.Total(), 0u);
}

TEST_F(RedisBloomHostile, NothingAllocatedBeforeTheHeaderIsValid) {
  const auto refused = [](Bytes h) {
    BloomPtr g;
    Status st = Status::kOk;
    const alloc_probe::Seen seen = alloc_probe::During(
        [&] { st = RedisBloomFilter::LoadDumpHeader(1, h.data(), h.size(), &g); });
    EXPECT_NE(st, Status::kOk);
    EXPECT_EQ(seen.Total(), 0u);
  };
  Bytes h = d_[0].data;
  PutU64(&h, 0, 1);  // total
  refused(h);
  h = d_[0].data;
  PutU64(&h, kLink1 + 44, 201);  // link 1's entries
  refused(h);
  h = d_[0].data;
  h.pop_back();
  refused(h);
  // A valid header allocates the filter and its zeroed arrays, nothing else.
  const size_t before = cuckoo::internal::LiveAllocationsForTesting();
  {
    BloomPtr g;
    ASSERT_EQ(RedisBloomFilter::LoadDumpHeader(1, d_[0].data.data(), d_[0].data.size(), &g),
              Status::kOk);
    EXPECT_EQ(cuckoo::internal::LiveAllocationsForTesting(), before + 1 + 2 * 3);
  }
  EXPECT_EQ(cuckoo::internal::LiveAllocationsForTesting(), before);
}

TEST_F(RedisBloomHostile, TableChunks) {
  BloomPtr g;
  std::vector<Chunk> d = d_;
  d.pop_back();  // link 2 missing
  EXPECT_EQ(Load(d, &g), Status::kFormatBadChunk);
  d = d_;
  d.push_back(d_.back());  // one after the last
  EXPECT_EQ(Load(d, &g), Status::kFormatBadChunk);
  d = d_;
  std::swap(d[1], d[2]);  // out of order
  EXPECT_EQ(Load(d, &g), Status::kFormatBadChunk);
  d = d_;
  d[2].iterator += 1;
  EXPECT_EQ(Load(d, &g), Status::kFormatBadChunk);
  d = d_;
  d[1].data.pop_back();  // short, and the iterator no longer adds up
  EXPECT_EQ(Load(d, &g), Status::kFormatBadChunk);
  // Link 0 and link 1 in one chunk: spans two links.
  d = {d_[0], {d_[2].iterator, d_[1].data}, d_[3]};
  d[1].data.insert(d[1].data.end(), d_[2].data.begin(), d_[2].data.end());
  EXPECT_EQ(Load(d, &g), Status::kFormatBadChunk);
  // An empty chunk.
  d = d_;
  d.insert(d.begin() + 1, Chunk{1, Bytes()});
  EXPECT_EQ(Load(d, &g), Status::kFormatBadChunk);
  d = d_;
  d[1].data.push_back(0);
  d[1].iterator += 1;
  EXPECT_EQ(Load(d, &g), Status::kFormatBadChunk);  // past link 0's end
  EXPECT_EQ(g, nullptr);
}

// ---------------------------------------------------------------------------
// This library's own format: version 4, family 4.

TEST(RedisBloomFormat, SerializeDeserializeRoundTrip) {
  std::vector<BloomPtr> filters;
  filters.push_back(Grown());
  filters.push_back(Make(0.01, 1000, 2, true));
  filters.push_back(Make(0.02, 50, 0));
  filters.push_back(Make(0.1, 10, 1));
  for (BloomPtr& f : filters) {
    for (int i = 0; i < 40; ++i) AddUnique(*f, "r" + std::to_string(i));
    const Bytes b = Serialize(*f);
    EXPECT_EQ(b[4], 4);   // version 4
    EXPECT_EQ(b[6], 4);   // family byte 4
    EXPECT_EQ(b[10], 2);  // hash id 2: MurmurHash64A
    BloomPtr g;
    ASSERT_EQ(RedisBloomFilter::Deserialize(b.data(), b.size(), &g), Status::kOk);
    EXPECT_EQ(Serialize(*g), b);
    EXPECT_TRUE(SameDump(Dump(*g), Dump(*f)));
    EXPECT_EQ(g->non_scaling(), f->non_scaling());
    EXPECT_EQ(g->growth(), f->growth());
    EXPECT_EQ(g->error_rate(), f->error_rate());
  }
}

TEST(RedisBloomFormat, RefusesEditedSections) {
  BloomPtr f = Grown();
  const Bytes b = Serialize(*f);
  const size_t s0 = cuckoo::format::kHeaderV4Bytes;  // link 0's section
  const auto refused = [&](size_t at, uint64_t v, int n) {
    Bytes e = b;
    for (int i = 0; i < n; ++i) e[at + i] = static_cast<uint8_t>(v >> (8 * i));
    cuckoo_test::Reseal(&e);
    BloomPtr g;
    return RedisBloomFilter::Deserialize(e.data(), e.size(), &g);
  };
  namespace field = cuckoo::format::redis_bloom_field;
  EXPECT_EQ(refused(10, 1, 1), Status::kFormatBadParameter);  // hash id XXH3
  EXPECT_EQ(refused(8, 2, 1), Status::kFormatBadParameter);   // scheme
  EXPECT_EQ(refused(s0 + field::kEntries, 101, 8), Status::kFormatBadParameter);
  EXPECT_EQ(refused(s0 + field::kSize, 101, 8), Status::kFormatBadParameter);
  EXPECT_EQ(refused(s0 + field::kHashes, 9, 4), Status::kFormatBadParameter);
  EXPECT_EQ(refused(s0 + field::kGrowth, 3, 4), Status::kFormatBadParameter);
  EXPECT_EQ(refused(s0 + field::kBits, 64, 8), Status::kFormatTruncated);  // section length
  EXPECT_EQ(refused(24, 1, 8), Status::kFormatBadParameter);               // reserved
  EXPECT_EQ(refused(16, 1, 8), Status::kFormatBadParameter);               // seed
  Bytes e = b;
  e[s0 + 48] ^= 1;  // a bit of the array: the checksum catches it
  BloomPtr g;
  EXPECT_EQ(RedisBloomFilter::Deserialize(e.data(), e.size(), &g), Status::kFormatChecksumMismatch);
}

TEST(RedisBloomFormat, GoldenFile) {
  // Recipe: BF.RESERVE 0.01 100 (expansion 2), BF.ADD "golden0" .. "golden249".
  BloomPtr f = Make(0.01, 100);
  for (int i = 0; i < 250; ++i) AddUnique(*f, "golden" + std::to_string(i));
  const Bytes fresh = Serialize(*f);
  const Bytes golden = cuckoo_test::GoldenFile("redis-bloom-v4.bin", fresh);
  EXPECT_EQ(golden, fresh);
  BloomPtr g;
  ASSERT_EQ(RedisBloomFilter::Deserialize(golden.data(), golden.size(), &g), Status::kOk);
  EXPECT_EQ(Serialize(*g), golden);
  EXPECT_EQ(g->sub_filter_count(), 2u);
}

// ---------------------------------------------------------------------------
// The three BF fixtures, from a real server.

struct Fixture {
  std::string json;
  std::vector<Chunk> chunks;
};

bool ReadFixture(const std::string& name, Fixture* out) {
  if (!ReadText(SharedDir() + "/redis/" + name + ".json", &out->json)) return false;
  out->chunks = FixtureChunks(out->json);
  return !out->chunks.empty();
}

class RedisBloomFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(RedisBloomFixture, RebuiltFromItemsByteForByte) {
  Fixture fx;
  const std::vector<std::string> members = Lines(SharedDir() + "/data/blocklist_domains.txt");
  if (!ReadFixture(GetParam(), &fx) || members.empty()) {
    GTEST_SKIP() << "fixtures not found under " << SharedDir() << " (set CUCKOO_SHARED_DIR)";
  }
  // Its BF.RESERVE, its BF.ADD count, then the same adds.
  const std::string reserve = StringField(fx.json, "reserve");
  std::istringstream in(reserve);
  std::string cmd, key, word;
  RedisBloomParams p;
  in >> cmd >> key >> p.error_rate >> p.capacity;
  while (in >> word) {
    if (word == "EXPANSION") in >> p.expansion;
    if (word == "NONSCALING") p.non_scaling = true;
  }
  BloomPtr f;
  ASSERT_EQ(RedisBloomFilter::Create(p, &f), Status::kOk);
  const uint64_t count = NumberField(fx.json, "count");
  ASSERT_LE(count, members.size());
  for (uint64_t i = 0; i < count; ++i) {
    Status s;
    AddUnique(*f, members[i], &s);
    ASSERT_EQ(s, Status::kOk) << i;
  }
  const std::vector<Chunk> mine = Dump(*f);
  ASSERT_EQ(mine.size(), fx.chunks.size());
  for (size_t j = 0; j < mine.size(); ++j) {
    EXPECT_EQ(mine[j].iterator, fx.chunks[j].iterator) << j;
    EXPECT_TRUE(mine[j].data == fx.chunks[j].data) << "chunk " << j;
  }
  // BF.INFO.
  const size_t info = fx.json.find("\"info\"");
  EXPECT_EQ(f->capacity(), NumberField(fx.json, "Capacity", info));
  EXPECT_EQ(f->redis_size(), NumberField(fx.json, "Size", info));
  EXPECT_EQ(f->sub_filter_count(), NumberField(fx.json, "Number of filters", info));
  EXPECT_EQ(f->size(), NumberField(fx.json, "Number of items inserted", info));
}

TEST_P(RedisBloomFixture, LoadedAnswersAsTheServerDid) {
  Fixture fx;
  const std::vector<std::string> members = Lines(SharedDir() + "/data/blocklist_domains.txt");
  const std::vector<std::string> benign = Lines(SharedDir() + "/data/benign_opendns.txt");
  if (!ReadFixture(GetParam(), &fx) || members.empty() || benign.empty()) {
    GTEST_SKIP() << "fixtures not found under " << SharedDir() << " (set CUCKOO_SHARED_DIR)";
  }
  BloomPtr f;
  ASSERT_EQ(Load(fx.chunks, &f), Status::kOk);
  EXPECT_TRUE(SameDump(Dump(*f), fx.chunks));
  const Bytes own = Serialize(*f);
  BloomPtr g;
  ASSERT_EQ(RedisBloomFilter::Deserialize(own.data(), own.size(), &g), Status::kOk);
  EXPECT_TRUE(SameDump(Dump(*g), fx.chunks));

  const std::set<std::string> member_set(members.begin(), members.end());
  std::vector<std::string> nonmembers;
  for (const auto& b : benign) {
    if (member_set.count(b) == 0) nonmembers.push_back(b);
  }
  const std::string want_m = StringField(fx.json, "memberAnswers");
  const std::string want_n = StringField(fx.json, "nonMemberAnswers");
  ASSERT_LE(want_n.size(), nonmembers.size());
  size_t wrong = 0, positives = 0;
  for (size_t i = 0; i < want_m.size(); ++i)
    wrong += (Has(*f, members[i]) ? '1' : '0') != want_m[i];
  for (size_t i = 0; i < want_n.size(); ++i) {
    const bool has = Has(*f, nonmembers[i]);
    positives += has;
    wrong += (has ? '1' : '0') != want_n[i];
  }
  EXPECT_EQ(wrong, 0u);
  std::printf("%s: %zu member and %zu non-member answers, %zu false positives, all as the server\n",
              GetParam(), want_m.size(), want_n.size(), positives);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RedisBloomFixture,
                         ::testing::Values("bf-basic", "bf-grow", "bf-nonscaling", "bf-past-32"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
