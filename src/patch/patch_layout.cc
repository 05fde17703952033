#include "patch/patch_layout.h"

#include "cuckoo/cuckoo_tables.h"
#include "common/family.h"
#include "format/format.h"
#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace patch {

namespace {

// Appends a region; false if the layout is full (it never is for a file
// ReadStackLayout accepted: at most kMaxSubFilters sections of 3 regions).
bool Add(Layout* l, const Region& r) {
  if (l->count >= kMaxRegions) return false;
  l->regions[l->count++] = r;
  return true;
}

Region Plain(RegionKind kind, uint64_t offset, uint64_t length, uint8_t section, Role role) {
  Region r;
  r.kind = kind;
  r.offset = offset;
  r.length = length;
  r.section = section;
  r.role = role;
  return r;
}

// A cuckoo section (a whole version-1 file, FORMAT.md §2) of `n` bytes at
// d + o, sub-filter j of a stack of growth `expansion` whose sub-filter 0 has
// `m0` buckets (j = 0: m0 is this section's own).
Status CuckooSection(const uint8_t* d, uint64_t o, uint64_t n, uint32_t j, uint32_t expansion,
                     uint64_t* m0, Layout* l) {
  namespace field = format::cuckoo_field;
  if (n < format::kCuckooHeaderBytes + format::kChecksumBytes) return Status::kFormatTruncated;
  const uint8_t* s = d + o;
  const uint32_t f = s[field::kFingerprintBits];
  const uint32_t b = s[field::kBucketSize];
  const auto encoding = static_cast<TableEncoding>(s[field::kEncoding]);
  const uint64_t m = format::GetU32(s + field::kBucketCount);
  const uint64_t t = format::GetU64(s + field::kTableBytes);
  if (j == 0) *m0 = m;
  uint64_t level_m = *m0;
  for (uint32_t i = 0; i < j && level_m <= kMaxBucketCount; ++i) level_m *= expansion;
  // f > j: level j's fingerprints have f0 = f - j >= 1 bits of level 0.
  if (!ValidFingerprintBits(f) || !ValidBucketSize(b) || !ValidEncoding(encoding, b) || m == 0 ||
      f <= j || m != level_m || t != TableByteLength(encoding, m, b, f) ||
      n != format::CuckooFileBytes(t)) {
    return Status::kFormatBadParameter;
  }
  Region table = Plain(RegionKind::kSlots, o + format::kCuckooHeaderBytes, t, static_cast<uint8_t>(j),
                       Role::kBody);
  table.table = static_cast<SlotTable>(encoding);  // ValidEncoding: one of table_encodings.def
  table.bucket_size = b;
  table.fingerprint_bits = f;
  table.bucket_count = m;
  if (j == 0) {
    table.level_keys.InitBase(static_cast<uint32_t>(m), f);
  } else {
    table.level_keys.InitLevel(j, expansion, static_cast<uint32_t>(*m0), f);
  }
  Region sum = Plain(RegionKind::kChecksum, o + n - format::kChecksumBytes, format::kChecksumBytes,
                     static_cast<uint8_t>(j), Role::kChecksum);
  sum.cover_from = o;
  const bool ok = Add(l, Plain(RegionKind::kBytes, o, format::kCuckooHeaderBytes, static_cast<uint8_t>(j),
                               Role::kHeader)) &&
                  Add(l, table) && Add(l, sum);
  return ok ? Status::kOk : Status::kFormatBadParameter;
}

// A Redis cuckoo section (FORMAT.md §15.5): its header, then its byte table.
Status RedisCuckooSection(const uint8_t* d, uint64_t o, uint64_t n, uint32_t j, uint32_t, uint64_t*,
                          Layout* l) {
  namespace field = format::redis_cuckoo_field;
  const uint8_t* s = d + o;
  const uint64_t buckets = format::GetU64(s + field::kBucketCount);
  const uint32_t b = format::GetU16(s + field::kBucketSize);
  const bool power_of_two = buckets != 0 && (buckets & (buckets - 1)) == 0;
  if (!power_of_two || buckets > (uint64_t{1} << 32) || b == 0 || b > format::kMaxRedisBucketSize ||
      n != format::RedisCuckooSectionBytes(buckets * b)) {
    return Status::kFormatBadParameter;
  }
  Region table = Plain(RegionKind::kSlots, o + format::kRedisCuckooSectionHeaderBytes,
                       buckets * b, static_cast<uint8_t>(j), Role::kBody);
  table.table = SlotTable::kBytes;
  table.bucket_size = b;
  table.fingerprint_bits = 8;
  table.bucket_count = buckets;
  table.redis_alt = true;
  table.redis_keys = RedisKeys(buckets);
  const bool ok = Add(l, Plain(RegionKind::kBytes, o, format::kRedisCuckooSectionHeaderBytes,
                               static_cast<uint8_t>(j), Role::kHeader)) &&
                  Add(l, table);
  return ok ? Status::kOk : Status::kFormatBadParameter;
}

// A section of either Bloom family: a header of `header` bytes, then the bit array.
Status BitsSection(uint64_t o, uint64_t n, uint64_t header, uint32_t j, Layout* l) {
  if (n < header) return Status::kFormatTruncated;
  const bool ok =
      Add(l, Plain(RegionKind::kBytes, o, header, static_cast<uint8_t>(j), Role::kHeader)) &&
      Add(l, Plain(RegionKind::kBits, o + header, n - header, static_cast<uint8_t>(j), Role::kBody));
  return ok ? Status::kOk : Status::kFormatBadParameter;
}

// A Bloom section (FORMAT.md §11.5) and a Redis Bloom section: a header, then the bit array.
Status BloomSection(const uint8_t*, uint64_t o, uint64_t n, uint32_t j, uint32_t, uint64_t*, Layout* l) {
  return BitsSection(o, n, format::kBloomSectionHeaderBytes, j, l);
}
Status RedisBloomSection(const uint8_t*, uint64_t o, uint64_t n, uint32_t j, uint32_t, uint64_t*,
                         Layout* l) {
  return BitsSection(o, n, format::kRedisBloomSectionHeaderBytes, j, l);
}

// Each family's <Name>Section, indexed by family id.
using SectionFn = Status (*)(const uint8_t*, uint64_t, uint64_t, uint32_t, uint32_t, uint64_t*, Layout*);
constexpr SectionFn kFamilySection[kFamilyCount + 1] = {
    nullptr,
#define CUCKOO_FAMILY(Name, ...) Name##Section,
#include "common/families.def"
};

}  // namespace

Status ReadLayout(const uint8_t* data, size_t len, Layout* out) {
  uint16_t version = 0;
  Status s = format::ReadPrefix(data, len, &version);
  if (s != Status::kOk) return s;
  if (!format::KnownVersion(version)) return Status::kFormatUnsupportedVersion;
  out->count = 0;
  out->version = version;
  uint64_t m0 = 0;
  if (version == format::kFormatVersion) {
    // One cuckoo filter: its own checksum is the file's.
    out->family = format::kTypeCuckoo;
    out->sub_filters = 1;
    out->stack = format::StackHeader();
    if (len < format::kCuckooHeaderBytes + format::kChecksumBytes) return Status::kFormatTruncated;
    const uint64_t t = format::GetU64(data + format::cuckoo_field::kTableBytes);
    if (t > len) return Status::kFormatTruncated;
    return CuckooSection(data, 0, len, 0, 0, &m0, out);
  }
  uint64_t offsets[format::kMaxSubFilters + 1];
  s = format::ReadStackLayout(data, len, version, &out->stack, offsets);
  if (s != Status::kOk) return s;
  const format::StackHeader& h = out->stack;
  out->family = h.type;
  out->sub_filters = h.sub_filter_count;
  Add(out, Plain(RegionKind::kBytes, 0, format::StackHeaderBytes(version), kFileLevel, Role::kHeader));
  for (uint32_t j = 0; j < h.sub_filter_count && s == Status::kOk; ++j) {
    const uint64_t o = offsets[j];
    const uint64_t n = offsets[j + 1] - o;
    // h.type is a family (ReadStackLayout checked it; checked again, cheaply).
    s = KnownFamily(h.type) ? kFamilySection[h.type](data, o, n, j, h.expansion, &m0, out)
                            : Status::kFormatBadParameter;
  }
  if (s != Status::kOk) return s;
  Region sum = Plain(RegionKind::kChecksum, len - format::kChecksumBytes, format::kChecksumBytes,
                     kFileLevel, Role::kChecksum);
  sum.cover_from = 0;
  return Add(out, sum) ? Status::kOk : Status::kFormatBadParameter;
}

namespace {

// ---------------------------------------------------------------------------
// What must be equal for two filters to be joined by a patch: the stack
// header's fields, and sub-filter 0's parameters (later sub-filters follow
// from them; their lengths are compared as well).

struct Field {
  const char* name;
  uint16_t offset;
  uint8_t size;
  bool real;  // an f64
};
namespace v4 = format::v4_field;
namespace legacy = format::stack_field;
namespace cf = format::cuckoo_field;
namespace bf = format::bloom_field;
namespace rcf = format::redis_cuckoo_field;
namespace rbf = format::redis_bloom_field;
constexpr Field kStackV4Fields[] = {
    {"family", v4::kFamily, 1, false},   {"table encoding", v4::kEncoding, 1, false},
    {"position scheme", v4::kScheme, 1, false}, {"growth", v4::kGrowth, 1, false},
    {"hash id", v4::kHashId, 1, false},  {"expansion", v4::kExpansion, 4, false},
    {"seed", v4::kSeed, 8, false}};
constexpr Field kStackLegacyFields[] = {
    {"family", legacy::kType, 1, false}, {"expansion", legacy::kExpansion, 4, false}, {"seed", legacy::kSeed, 8, false}};
constexpr Field kCuckooFields[] = {
    {"table encoding", cf::kEncoding, 1, false}, {"fingerprint bits", cf::kFingerprintBits, 1, false},
    {"bucket size", cf::kBucketSize, 1, false},  {"bucket count", cf::kBucketCount, 4, false},
    {"max kicks", cf::kMaxKicks, 4, false},      {"seed", cf::kSeed, 8, false},
    {"capacity", cf::kCapacity, 8, false}};
constexpr Field kBloomFields[] = {
    {"hash count", bf::kHashCount, 4, false}, {"bit count", bf::kBitCount, 8, false},
    {"capacity", bf::kCapacity, 8, false},    {"false-positive rate", bf::kFalsePositiveRate, 8, true}};
constexpr Field kRedisCuckooFields[] = {{"bucket count", rcf::kBucketCount, 8, false},
                                        {"bucket size", rcf::kBucketSize, 2, false},
                                        {"max iterations", rcf::kMaxIterations, 2, false}};
constexpr Field kRedisBloomFields[] = {
    {"capacity", rbf::kEntries, 8, false}, {"error rate", rbf::kError, 8, true},
    {"hash count", rbf::kHashes, 4, false}, {"growth", rbf::kGrowth, 4, false},
    {"bit count", rbf::kBits, 8, false}};

uint64_t FieldValue(const uint8_t* p, const Field& f) {
  uint64_t v = 0;
  for (int i = f.size - 1; i >= 0; --i) v = (v << 8) | p[f.offset + i];
  return v;
}

// A list of fields: one Differs for every list.
struct Fields {
  const Field* begin;
  size_t count;
};
template <size_t N>
constexpr Fields Of(const Field (&fields)[N]) {
  return Fields{fields, N};
}

bool Differs(Fields fields, const uint8_t* a, const uint8_t* b, PatchMismatch* m) {
  for (const Field* f = fields.begin; f != fields.begin + fields.count; ++f) {
    if (FieldValue(a, *f) != FieldValue(b, *f)) {
      m->field = f->name;
      m->older = FieldValue(a, *f);
      m->newer = FieldValue(b, *f);
      m->real = f->real;
      return true;
    }
  }
  return false;
}

// Each family's section header fields, k<Name>Fields, indexed by family id.
constexpr Fields kFamilyFields[kFamilyCount + 1] = {
    Fields{nullptr, 0},
#define CUCKOO_FAMILY(Name, ...) Of(k##Name##Fields),
#include "common/families.def"
};

}  // namespace

bool FindMismatch(const Layout& lo, const uint8_t* older, const Layout& ln, const uint8_t* newer,
                  PatchMismatch* m) {
  if (lo.family != ln.family) {
    *m = PatchMismatch{"family", lo.family, ln.family, false, -1};
    return true;
  }
  if (lo.version != ln.version) {
    *m = PatchMismatch{"format version", lo.version, ln.version, false, -1};
    return true;
  }
  if (lo.version == format::kFormatVersionExplicit && Differs(Of(kStackV4Fields), older, newer, m)) return true;
  if (lo.version != format::kFormatVersionExplicit && lo.version != format::kFormatVersion &&
      Differs(Of(kStackLegacyFields), older, newer, m)) {
    return true;
  }
  const uint8_t* a = older + lo.Find(0, Role::kHeader)->offset;
  const uint8_t* b = newer + ln.Find(0, Role::kHeader)->offset;
  // lo.family is a family: ReadLayout accepted the file.
  if (KnownFamily(lo.family) && Differs(kFamilyFields[lo.family], a, b, m)) return true;
  for (uint32_t i = 0; i < ln.count; ++i) {
    const Region& r = ln.regions[i];
    if (r.section == kFileLevel) continue;
    const Region* o = lo.Find(r.section, r.role);
    if (o != nullptr && o->length != r.length) {
      *m = PatchMismatch{"size in bytes", o->length, r.length, false, r.section};
      return true;
    }
  }
  return false;
}

}  // namespace patch
}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
