#include "patch/patch.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

#include "common/allocation.h"
#include "common/family.h"
#include "format/peek_family.h"
#include "format/format.h"
#include "common/hash.h"
#include "patch/patch_bits.h"
#include "patch/patch_layout.h"
#include "cuckoo/cuckoo_tables.h"
#include "patch/patch_slots.h"
#include "registry/families.h"
#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {
namespace patch {
namespace {

using format::GetU64;

// Both layouts of a diff or an apply, on the heap (each is about 9 KB).
struct Layouts {
  Layout base;
  Layout result;
};
struct LayoutsDeleter {
  void operator()(Layouts* l) const { internal::Deallocate(l); }
};
using LayoutsPtr = std::unique_ptr<Layouts, LayoutsDeleter>;
LayoutsPtr NewLayouts() {
  void* p = internal::AllocateZeroed(sizeof(Layouts));
  return LayoutsPtr(p == nullptr ? nullptr : new (p) Layouts());
}

// kOk if data[0, len) loads as a filter of `family` (every check of its Deserialize).
Status Loads(uint8_t family, const uint8_t* data, size_t len) {
  switch (family) {
#define CUCKOO_FAMILY(Name, id, prefix, Class, ...) \
    case format::kType##Name: {                      \
      std::unique_ptr<Class> f;                      \
      return Class::Deserialize(data, len, &f);      \
    }
#include "common/families.def"
    default: return Status::kFormatBadParameter;
  }
}

// ---------------------------------------------------------------------------
// The body's codes (FORMAT.md §17.3). A list of positions is its count + 1 in
// gamma, then if not empty the Rice parameter (6 bits) and each position as
// its gap from the previous one + 1 (the first: from 0), with its payload.

// Writes the gaps of `positions` (ascending, distinct) and calls
// payload(k) after the k-th.
template <class Payload>
bool WritePositions(Vec<uint64_t>& positions, BitWriter* w, Payload payload) {
  w->Gamma(positions.size() + 1);
  if (positions.size() == 0) return true;
  Vec<uint64_t> gaps;
  uint64_t next = 0;
  for (size_t k = 0; k < positions.size(); ++k) {
    if (!gaps.Push(positions[k] - next)) return false;
    next = positions[k] + 1;
  }
  const uint32_t rice = BestRice(gaps.data(), gaps.size());
  w->Bits(rice, 6);
  for (size_t k = 0; k < gaps.size(); ++k) {
    w->Rice(gaps[k], rice);
    payload(k);
  }
  return true;
}

// Reads positions below `limit`, calling at(position) for each (false: stop,
// the body is corrupt); *count gets how many.
template <class At>
bool ReadPositions(BitReader* in, uint64_t limit, uint64_t* count, At at) {
  const uint64_t n = in->Gamma() - 1;
  if (!in->ok()) return false;
  *count = n;
  if (n == 0) return true;
  const uint32_t rice = static_cast<uint32_t>(in->Bits(6));
  if (rice > kMaxRice) return false;
  uint64_t next = 0;
  for (uint64_t k = 0; k < n; ++k) {
    const uint64_t gap = in->Rice(rice);
    if (!in->ok() || next >= limit || gap >= limit - next || !at(next + gap)) return false;
    next += gap + 1;
  }
  return true;
}

// Byte edits: in the result's kBytes regions, the positions where the result
// differs from the base (zero past its end), with the XOR of the two bytes.
bool DiffBytes(const Layout& rl, const uint8_t* base, size_t base_len, const uint8_t* res,
               BitWriter* w, uint64_t* changes) {
  Vec<uint64_t> positions;
  Vec<uint8_t> edits;
  for (uint32_t i = 0; i < rl.count; ++i) {
    const Region& r = rl.regions[i];
    if (r.kind != RegionKind::kBytes) continue;
    for (uint64_t p = r.offset; p < r.offset + r.length; ++p) {
      const uint8_t x = res[p] ^ (p < base_len ? base[p] : 0);
      if (x != 0 && !(positions.Push(p) && edits.Push(x))) return false;
    }
  }
  *changes += positions.size();
  return WritePositions(positions, w, [&](size_t k) { w->Bits(edits[k], 8); });
}

// XORs the byte edits into res[0, res_len); with res null, only checks that
// they decode, each within the result and non-zero.
bool ApplyBytes(BitReader* in, uint8_t* res, size_t res_len, uint64_t* changes) {
  return ReadPositions(in, res_len, changes, [&](uint64_t p) {
    const uint8_t x = static_cast<uint8_t>(in->Bits(8));
    if (res != nullptr) res[p] ^= x;
    return in->ok() && x != 0;
  });
}

// The bytes of a patch's result before it is made, as a format::FileView
// fills them: the base's bytes (zeros past its end) with the byte edits
// XORed in. The edits are read from the body as bytes are asked for; asked
// for at ascending offsets (as the layout's walk asks for headers), each edit
// is read once, and an offset below the last edit read reads the list again
// from its start. The edits were checked (ApplyBytes with no result) before.
class ResultBytes {
 public:
  // `edits`: a reader at the byte edits' list (its count).
  ResultBytes(const uint8_t* base, size_t base_len, BitReader edits) : base_(base), base_len_(base_len) {
    count_ = edits.Gamma() - 1;
    if (count_ > 0) rice_ = static_cast<uint32_t>(edits.Bits(6));
    first_ = edits;
    Restart();
  }

  static void Fill(void* self, uint64_t offset, size_t n, uint8_t* out) {
    static_cast<ResultBytes*>(self)->Read(offset, n, out);
  }

 private:
  void Restart() {
    at_ = first_;
    read_ = 0;
    next_ = 0;
  }

  void Read(uint64_t offset, size_t n, uint8_t* out) {
    for (size_t i = 0; i < n; ++i) out[i] = offset + i < base_len_ ? base_[offset + i] : 0;
    if (offset < next_) Restart();
    while (read_ < count_) {
      const BitReader before = at_;
      const uint64_t p = next_ + at_.Rice(rice_);
      if (p >= offset + n) {
        at_ = before;  // read again by the next call
        return;
      }
      const auto x = static_cast<uint8_t>(at_.Bits(8));
      if (p >= offset) out[p - offset] ^= x;
      next_ = p + 1;
      ++read_;
    }
  }

  const uint8_t* base_;
  size_t base_len_;
  uint64_t count_ = 0;
  uint32_t rice_ = 0;
  BitReader first_{nullptr, 0};  // at the first edit's gap
  BitReader at_{nullptr, 0};     // at the next edit's gap
  uint64_t read_ = 0;            // edits read
  uint64_t next_ = 0;            // the least position the next edit may have
};

// A bit array: the positions of the bits that differ.
bool DiffBits(const Region& r, const uint8_t* base, const uint8_t* res, BitWriter* w, uint64_t* changes) {
  Vec<uint64_t> positions;
  for (uint64_t q = 0; q < r.length; ++q) {
    uint32_t x = res[q] ^ (base != nullptr ? base[q] : 0);
    while (x != 0) {
      if (!positions.Push(q * 8 + static_cast<uint32_t>(__builtin_ctz(x)))) return false;
      x &= x - 1;
    }
  }
  *changes += positions.size();
  return WritePositions(positions, w, [](size_t) {});
}

bool ApplyBits(const Region& r, BitReader* in, uint8_t* res, uint64_t* changes) {
  return ReadPositions(in, r.length * 8, changes, [&](uint64_t p) {
    res[p >> 3] ^= static_cast<uint8_t>(1u << (p & 7));
    return true;
  });
}

// fn(static_cast<Table*>(nullptr)) for the region's table class.
template <class Fn>
Status OnTable(const Region& r, Fn fn) {
  switch (r.table) {
#define CUCKOO_TABLE_ENCODING(Name, id, Table, ...) \
    case SlotTable::k##Name: return fn(static_cast<Table*>(nullptr));
#include "cuckoo/table_encodings.def"
    case SlotTable::kBytes: return fn(static_cast<ByteTable*>(nullptr));
  }
  return Status::kFormatBadParameter;
}

Status DiffTable(const Region& r, const uint8_t* base, const uint8_t* res, BitWriter* w,
                 uint64_t* changes) {
  return OnTable(r, [&](auto* tag) {
    using Table = std::remove_pointer_t<decltype(tag)>;
    Table before, after;
    Vec<SlotOp> ops;
    if (!LoadTable(r, base, &before) || !LoadTable(r, res, &after) ||
        !DiffSlots(r, before, after, &ops) || !WriteSlotOps(r, kSorted<Table>, ops, w)) {
      return Status::kOutOfMemory;
    }
    *changes += ops.size();
    return Status::kOk;
  });
}

Status ApplyTable(const Region& r, const uint8_t* base, BitReader* in, uint8_t* res, uint64_t* changes) {
  return OnTable(r, [&](auto* tag) {
    using Table = std::remove_pointer_t<decltype(tag)>;
    Table before, work;
    if (!LoadTable(r, base, &before) || !LoadTable(r, base, &work)) return Status::kOutOfMemory;
    if (!ApplySlots(r, before, &work, in, changes)) return Status::kPatchCorrupt;
    std::memcpy(res, work.data(), static_cast<size_t>(r.length));
    return Status::kOk;
  });
}

// The base's region paired with the result's region r (same sub-filter and
// role), or null if the base has no such sub-filter; *ok false if it has one
// of another shape.
const Region* Paired(const Layout& bl, const Region& r, bool* ok) {
  const Region* b = bl.Find(r.section, r.role);
  *ok = b == nullptr ||
        (b->kind == r.kind && b->length == r.length && b->table == r.table &&
         b->bucket_count == r.bucket_count && b->bucket_size == r.bucket_size &&
         b->fingerprint_bits == r.fingerprint_bits);
  return b;
}

// kOk if a patch may join the filters `older` and `newer`, whose layouts are
// l.base and l.result: the same family, format version and parameters
// (FindMismatch); else kPatchFamily and, if `why` is given, the field and
// both values. Diff checks its two filters with it, ApplyPatch its base and
// result.
Status SameParameters(const Layouts& l, const uint8_t* older, const uint8_t* newer, PatchMismatch* why) {
  PatchMismatch m;
  if (!FindMismatch(l.base, older, l.result, newer, &m)) return Status::kOk;
  if (why != nullptr) *why = m;
  return Status::kPatchFamily;
}

Status ReadHeader(const uint8_t* p, size_t len, PatchInfo* info) {
  if (len < sizeof kPatchMagic) return Status::kPatchTruncated;
  if (std::memcmp(p, kPatchMagic, sizeof kPatchMagic) != 0) return Status::kPatchNotAPatch;
  if (len < kPatchHeaderBytes + kPatchChecksumBytes) return Status::kPatchTruncated;
  info->version = format::GetU16(p + patch_field::kVersion);
  if (info->version != kPatchVersion) return Status::kPatchVersion;
  if (!format::ChecksumMatches(p, len - kPatchChecksumBytes) || p[patch_field::kReserved] != 0) {
    return Status::kPatchCorrupt;
  }
  info->family = p[patch_field::kFamily];
  if (!KnownFamily(info->family)) return Status::kPatchFamily;
  info->base_length = GetU64(p + patch_field::kBaseLength);
  info->base_checksum = GetU64(p + patch_field::kBaseChecksum);
  info->result_length = GetU64(p + patch_field::kResultLength);
  info->result_checksum = GetU64(p + patch_field::kResultChecksum);
  return Status::kOk;
}

// What ApplyPatch checks of a patch whose header `info` was read and whose
// base was checked, before it allocates the result: the base's layout (its
// format status); then that the count of changes and the byte edits decode,
// each edit within the result; that the result's headers, read through the
// base's bytes and the edits without making the result (ResultBytes), give a
// file of the patch's family whose length is exactly the result length the
// patch names (ReadLayout: the stack header, each section's length and
// shape); and that every table and bit array of a sub-filter the base has has
// the base's shape (else kPatchCorrupt). Fills l->base and l->result: the
// result's regions, as Decode makes it.
Status Plan(const uint8_t* base, size_t base_len, const uint8_t* patch, size_t patch_len,
            const PatchInfo& info, Layouts* l) {
  const size_t res_len = static_cast<size_t>(info.result_length);
  const Status s = ReadLayout(base, base_len, &l->base);
  if (s != Status::kOk) return s;
  BitReader in(patch + kPatchHeaderBytes, patch_len - kPatchHeaderBytes - kPatchChecksumBytes);
  in.Gamma();
  const BitReader edits = in;
  uint64_t changes = 0;
  if (!in.ok() || !ApplyBytes(&in, nullptr, res_len, &changes)) return Status::kPatchCorrupt;
  ResultBytes bytes(base, base_len, edits);
  format::FileView result(res_len, &ResultBytes::Fill, &bytes);
  if (ReadLayout(result, &l->result) != Status::kOk || l->result.family != info.family) {
    return Status::kPatchCorrupt;
  }
  for (uint32_t i = 0; i < l->result.count; ++i) {
    const Region& r = l->result.regions[i];
    if (r.kind != RegionKind::kSlots && r.kind != RegionKind::kBits) continue;
    bool ok = true;
    Paired(l->base, r, &ok);
    if (!ok) return Status::kPatchCorrupt;
  }
  return Status::kOk;
}

// The result of a patch that Plan accepted, with the layouts it read, into
// *out (result_length bytes); kOk only if it has the checksum the patch
// names, loads, and has the base's parameters.
Status Decode(const uint8_t* base, size_t base_len, const uint8_t* patch, size_t patch_len,
              const PatchInfo& info, const Layouts& l, uint8_t* out, PatchMismatch* why) {
  const size_t res_len = static_cast<size_t>(info.result_length);
  const size_t common = base_len < res_len ? base_len : res_len;
  std::memcpy(out, base, common);
  std::memset(out + common, 0, res_len - common);
  BitReader in(patch + kPatchHeaderBytes, patch_len - kPatchHeaderBytes - kPatchChecksumBytes);
  const uint64_t declared = in.Gamma() - 1;
  uint64_t changes = 0;
  if (!in.ok() || !ApplyBytes(&in, out, res_len, &changes)) return Status::kPatchCorrupt;
  // The result's headers are now whole, as Plan read them: l.result is its regions.
  for (uint32_t i = 0; i < l.result.count; ++i) {
    const Region& r = l.result.regions[i];
    if (r.kind != RegionKind::kSlots && r.kind != RegionKind::kBits) continue;
    bool ok = true;
    const Region* b = Paired(l.base, r, &ok);
    if (!ok) return Status::kPatchCorrupt;
    const uint8_t* from = b == nullptr ? nullptr : base + b->offset;
    uint64_t n = 0;
    if (r.kind == RegionKind::kSlots) {
      const Status s = ApplyTable(r, from, &in, out + r.offset, &n);
      if (s != Status::kOk) return s;
    } else {
      if (from != nullptr) std::memcpy(out + r.offset, from, static_cast<size_t>(r.length));
      if (from == nullptr) std::memset(out + r.offset, 0, static_cast<size_t>(r.length));
      if (!ApplyBits(r, &in, out + r.offset, &n)) return Status::kPatchCorrupt;
    }
    changes += n;
  }
  if (!in.AtPaddedEnd() || changes != declared) return Status::kPatchCorrupt;
  for (uint32_t i = 0; i < l.result.count; ++i) {
    const Region& r = l.result.regions[i];
    if (r.kind != RegionKind::kChecksum) continue;
    format::PutU64(out + r.offset, Checksum(out + r.cover_from, static_cast<size_t>(r.offset - r.cover_from)));
  }
  if (GetU64(out + res_len - format::kChecksumBytes) != info.result_checksum) {
    return Status::kPatchResultMismatch;
  }
  if (Loads(info.family, out, res_len) != Status::kOk) return Status::kPatchResultMismatch;
  // A valid filter, but is it another version of the base? (A patch can
  // carry byte edits to any header field; Diff never makes such a patch.)
  return SameParameters(l, base, out, why);
}

}  // namespace
}  // namespace patch

Status Diff(const uint8_t* older, size_t older_len, const uint8_t* newer, size_t newer_len,
            uint8_t** out, size_t* out_len, PatchMismatch* why) {
  if (why != nullptr) *why = PatchMismatch{};
  Family fo = Family::kCuckoo;
  Family fn = Family::kCuckoo;
  Status s = PeekFamily(older, older_len, &fo);
  if (s == Status::kOk) s = PeekFamily(newer, newer_len, &fn);
  if (s == Status::kOk) s = patch::Loads(static_cast<uint8_t>(fo), older, older_len);
  if (s == Status::kOk) s = patch::Loads(static_cast<uint8_t>(fn), newer, newer_len);
  if (s != Status::kOk) return s;
  patch::LayoutsPtr l = patch::NewLayouts();
  if (l == nullptr) return Status::kOutOfMemory;
  if (patch::ReadLayout(older, older_len, &l->base) != Status::kOk ||
      patch::ReadLayout(newer, newer_len, &l->result) != Status::kOk) {
    return Status::kFormatBadParameter;  // not reached: both loaded
  }
  s = patch::SameParameters(*l, older, newer, why);
  if (s != Status::kOk) return s;

  patch::BitWriter body;
  uint64_t changes = 0;
  if (!patch::DiffBytes(l->result, older, older_len, newer, &body, &changes)) return Status::kOutOfMemory;
  for (uint32_t i = 0; i < l->result.count; ++i) {
    const patch::Region& r = l->result.regions[i];
    if (r.kind != patch::RegionKind::kSlots && r.kind != patch::RegionKind::kBits) continue;
    bool ok = true;
    const patch::Region* b = patch::Paired(l->base, r, &ok);
    if (!ok) return Status::kPatchFamily;
    const uint8_t* from = b == nullptr ? nullptr : older + b->offset;
    if (r.kind == patch::RegionKind::kSlots) {
      s = patch::DiffTable(r, from, newer + r.offset, &body, &changes);
    } else {
      s = patch::DiffBits(r, from, newer + r.offset, &body, &changes) ? Status::kOk : Status::kOutOfMemory;
    }
    if (s != Status::kOk) return s;
  }

  uint8_t header[kPatchHeaderBytes] = {};
  std::memcpy(header, kPatchMagic, sizeof kPatchMagic);
  format::PutU16(header + patch_field::kVersion, kPatchVersion);
  header[patch_field::kFamily] = static_cast<uint8_t>(fn);
  format::PutU64(header + patch_field::kBaseLength, older_len);
  format::PutU64(header + patch_field::kBaseChecksum, format::GetU64(older + older_len - format::kChecksumBytes));
  format::PutU64(header + patch_field::kResultLength, newer_len);
  format::PutU64(header + patch_field::kResultChecksum, format::GetU64(newer + newer_len - format::kChecksumBytes));
  patch::BitWriter w;
  w.Bytes(header, sizeof header);
  w.Gamma(changes + 1);
  w.Append(body);
  w.Align();
  w.Bits(0, 8 * kPatchChecksumBytes);
  if (!w.ok() || !body.ok()) return Status::kOutOfMemory;
  size_t len = 0;
  uint8_t* bytes = w.Release(&len);
  format::WriteChecksum(bytes, len - kPatchChecksumBytes);
  *out = bytes;
  *out_len = len;
  return Status::kOk;
}

Status ApplyPatch(const uint8_t* base, size_t base_len, const uint8_t* patch, size_t patch_len,
                  uint8_t** result, size_t* result_len, PatchMismatch* why) {
  if (why != nullptr) *why = PatchMismatch{};
  PatchInfo info;
  Status s = patch::ReadHeader(patch, patch_len, &info);
  if (s != Status::kOk) return s;
  Family family = Family::kCuckoo;
  s = PeekFamily(base, base_len, &family);
  if (s != Status::kOk) return s;
  if (static_cast<uint8_t>(family) != info.family) return Status::kPatchFamily;
  if (base_len != info.base_length || base_len < format::kChecksumBytes ||
      format::GetU64(base + base_len - format::kChecksumBytes) != info.base_checksum) {
    return Status::kPatchWrongBase;
  }
  if (!format::ChecksumMatches(base, base_len - format::kChecksumBytes)) {
    return Status::kFormatChecksumMismatch;
  }
  // Every family's files are at most 1 GiB (kMaxFilterBytes) plus their headers.
  if (info.result_length > kMaxFilterBytes + (uint64_t{1} << 20) ||
      info.result_length < format::kPrefixBytes + format::kChecksumBytes) {
    return Status::kPatchCorrupt;
  }
  // Nothing of the result's length is allocated before its headers give it.
  patch::LayoutsPtr l = patch::NewLayouts();
  if (l == nullptr) return Status::kOutOfMemory;
  s = patch::Plan(base, base_len, patch, patch_len, info, l.get());
  if (s != Status::kOk) return s;
  auto* out = static_cast<uint8_t*>(internal::AllocateForCaller(static_cast<size_t>(info.result_length)));
  if (out == nullptr) return Status::kOutOfMemory;
  s = patch::Decode(base, base_len, patch, patch_len, info, *l, out, why);
  if (s != Status::kOk) {
    std::free(out);
    return s;
  }
  *result = out;
  *result_len = static_cast<size_t>(info.result_length);
  return Status::kOk;
}

Status ReadPatchInfo(const uint8_t* patch, size_t patch_len, PatchInfo* info) {
  PatchInfo i;
  const Status s = patch::ReadHeader(patch, patch_len, &i);
  if (s != Status::kOk) return s;
  patch::BitReader in(patch + kPatchHeaderBytes, patch_len - kPatchHeaderBytes - kPatchChecksumBytes);
  i.changes = in.Gamma() - 1;
  if (!in.ok()) return Status::kPatchCorrupt;
  *info = i;
  return Status::kOk;
}

}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
