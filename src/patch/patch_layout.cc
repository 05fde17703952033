#include "patch/patch_layout.h"

#include "common/section_format.h"
#include "format/format.h"
#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace patch {

namespace {

// Appends a region of `kind` at `offset`, `length` bytes long, and returns it
// to be filled in further; null if the layout is full (it never is for a file
// ReadStackLayout accepted: at most kMaxSubFilters sections of 3 regions).
Region* Add(Layout* l, RegionKind kind, uint64_t offset, uint64_t length, uint8_t section,
            Role role) {
  if (l->count >= kMaxRegions) return nullptr;
  Region* r = &l->regions[l->count++];
  *r = Region();
  r->kind = kind;
  r->offset = offset;
  r->length = length;
  r->section = section;
  r->role = role;
  return r;
}

// The regions of section j, `n` bytes of `file` at o, from its family's shape.
Status AddSection(const format::SectionFormat& family, format::FileView& file, uint64_t o, uint64_t n,
                  uint32_t j, uint32_t expansion, uint64_t* base, Layout* l) {
  format::SectionShape shape;
  shape.bytes = n;
  shape.level = j;
  shape.expansion = expansion;
  shape.base_bucket_count = *base;
  const uint64_t header = family.header->bytes;
  const Status s = family.Shape(file.At(o, n < header ? n : header), &shape);
  if (s != Status::kOk) return s;
  *base = shape.base_bucket_count;
  const auto section = static_cast<uint8_t>(j);
  const uint64_t body_at = o + shape.header_bytes;
  const bool slots = shape.body == format::SectionShape::Body::kSlots;
  Region* body = nullptr;
  if (Add(l, RegionKind::kBytes, o, shape.header_bytes, section, Role::kHeader) != nullptr) {
    body = Add(l, slots ? RegionKind::kSlots : RegionKind::kBits, body_at, shape.body_bytes,
               section, Role::kBody);
  }
  if (body == nullptr) return Status::kFormatBadParameter;
  if (slots) {
    body->table = static_cast<SlotTable>(shape.table);
    body->bucket_size = shape.bucket_size;
    body->fingerprint_bits = shape.fingerprint_bits;
    body->bucket_count = shape.bucket_count;
    body->redis_alt = shape.alt == format::SectionShape::Alt::kRedis;
    if (body->redis_alt) {
      body->redis_keys = RedisKeys(shape.bucket_count);
    } else if (j == 0) {
      body->level_keys.InitBase(static_cast<uint32_t>(shape.bucket_count), shape.fingerprint_bits);
    } else {
      body->level_keys.InitLevel(j, expansion, static_cast<uint32_t>(shape.base_bucket_count),
                                 shape.fingerprint_bits);
    }
  }
  if (shape.checksum) {
    Region* sum = Add(l, RegionKind::kChecksum, body_at + shape.body_bytes, format::kChecksumBytes,
                      section, Role::kChecksum);
    if (sum == nullptr) return Status::kFormatBadParameter;
    sum->cover_from = o;
  }
  return Status::kOk;
}

}  // namespace

Status ReadLayout(format::FileView& file, Layout* out) {
  const size_t len = file.size();
  uint16_t version = 0;
  Status s = format::ReadPrefix(file.At(0, len < format::kPrefixBytes ? len : format::kPrefixBytes),
                                len, &version);
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
    const uint64_t t = format::GetU64(file.At(format::cuckoo_field::kTableBytes, 8));
    if (t > len) return Status::kFormatTruncated;
    return AddSection(*format::SectionFormatOf(format::kTypeCuckoo), file, 0, len, 0, 0, &m0, out);
  }
  uint64_t offsets[format::kMaxSubFilters + 1];
  s = format::ReadStackLayout(file, version, &out->stack, offsets);
  if (s != Status::kOk) return s;
  const format::StackHeader& h = out->stack;
  out->family = h.type;
  out->sub_filters = h.sub_filter_count;
  Add(out, RegionKind::kBytes, 0, format::StackHeaderBytes(version), kFileLevel, Role::kHeader);
  for (uint32_t j = 0; j < h.sub_filter_count && s == Status::kOk; ++j) {
    const uint64_t o = offsets[j];
    const uint64_t n = offsets[j + 1] - o;
    // h.type is a family (ReadStackLayout checked it; checked again, cheaply).
    const format::SectionFormat* family = format::SectionFormatOf(h.type);
    s = family != nullptr ? AddSection(*family, file, o, n, j, h.expansion, &m0, out)
                          : Status::kFormatBadParameter;
  }
  if (s != Status::kOk) return s;
  Region* sum = Add(out, RegionKind::kChecksum, len - format::kChecksumBytes,
                    format::kChecksumBytes, kFileLevel, Role::kChecksum);
  if (sum == nullptr) return Status::kFormatBadParameter;
  sum->cover_from = 0;
  return Status::kOk;
}

namespace {

// ---------------------------------------------------------------------------
// What must be equal for two filters to be joined by a patch: the stack
// header's fields, and sub-filter 0's parameters (later sub-filters follow
// from them; their lengths are compared as well).

// The first field of `layout` a patch compares whose value differs between
// the headers at a and b.
bool Differs(const format::HeaderLayout& layout, const uint8_t* a, const uint8_t* b,
             PatchMismatch* m) {
  const char* name = layout.names;
  for (const format::HeaderField* f = layout.fields; f != layout.fields + layout.count; ++f) {
    const uint64_t older = format::FieldValue(a, *f);
    const uint64_t newer = format::FieldValue(b, *f);
    if (f->compared && older != newer) {
      m->field = name;
      m->older = older;
      m->newer = newer;
      m->real = f->real;
      return true;
    }
    while (*name != '\0') ++name;
    ++name;
  }
  return false;
}

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
  if (lo.version == format::kFormatVersionExplicit && Differs(format::kStackV4Layout, older, newer, m)) {
    return true;
  }
  if (lo.version != format::kFormatVersionExplicit && lo.version != format::kFormatVersion &&
      Differs(format::kStackLayout, older, newer, m)) {
    return true;
  }
  const uint8_t* a = older + lo.Find(0, Role::kHeader)->offset;
  const uint8_t* b = newer + ln.Find(0, Role::kHeader)->offset;
  // lo.family is a family: ReadLayout accepted the file.
  const format::SectionFormat* family = format::SectionFormatOf(lo.family);
  if (family != nullptr && Differs(*family->header, a, b, m)) return true;
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
