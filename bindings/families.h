// The family table of the JS/WASM boundary, made from src/common/families.def:
// for each family its core class and capabilities (Registered<F>), the one
// dispatch from a family number to its row (OnFamily), and the boundary's
// convention for answers, and the build's policy (CUCKOO_WRITER). Included by
// the embind layer (embind.cc) and the plain C exports (c_exports.cc);
// Emscripten only.
//
// ONE CONVENTION for every result that may be a failure: a number that is the
// answer when >= 0 (a handle, a count, 1 / 0 for yes / no, 0 for "done") and
// -status when < 0 (cuckoo::Status, src/status.h; js/common/status.ts maps
// each to its JS error). Batches follow it per key: a lookup batch writes one
// int8 per key (1, 0 or -status); an add batch returns how many keys went in
// and writes the answer of the key it stopped at (0 if none stopped it, else
// -status) as an int32 to *status. Functions that cannot fail (contain, count,
// size, info, statusMessage) return their answer alone.
//
// A filter crosses as a handle, its core object (Registered<F>::Filter) as a
// wasm32 address (below 2^31: memory is at most 2 GiB, so a handle is a
// positive int).
#ifndef CUCKOO_WASM_BINDINGS_FAMILIES_H_
#define CUCKOO_WASM_BINDINGS_FAMILIES_H_

#include <cstdint>

#include "common/family.h"
#include "registry/families.h"
#include "status.h"

namespace cuckoo_wasm {

using cuckoo::Family;
using cuckoo::Status;

// The convention: `answer` when s is kOk, else -s.
inline int Answer(Status s, int answer = 0) {
  return s == Status::kOk ? answer : -static_cast<int>(s);
}

// The answer for a family number that names no family (or a family without
// the operation asked for).
constexpr int kNoFamily = -static_cast<int>(Status::kInvalidArgument);

// Registered<F>: family F's row of families.def, as types and constants.
template <Family F>
struct Registered;
#define CUCKOO_FAMILY(Name, id, prefix, Class, hash, del, count, unique, unique_export, \
                      load_factor, join, dump)                                          \
  template <>                                                                           \
  struct Registered<Family::k##Name> {                                                  \
    static constexpr Family kFamily = Family::k##Name;                                  \
    static constexpr const char* kName = #Name;                                         \
    using Filter = cuckoo::Class;                                                       \
    static constexpr bool kScanDump = dump;                                             \
    static constexpr bool kJoin = join;                                                 \
  };
#include "common/families.def"

template <typename RowT>
using FilterOf = typename RowT::Filter;

// fn(Registered<F>{}) for the family numbered `family`; `refused` for a
// number that names no family (switching on the int, so no value is taken
// for another). Not size-optimized: the URL exports use it.
template <typename R, typename Fn>
R OnFamily(int family, R refused, Fn&& fn) {
  switch (family) {
#define CUCKOO_FAMILY(Name, id, ...) \
    case id: return fn(Registered<Family::k##Name>{});
#include "common/families.def"
    default: return refused;
  }
}

// CUCKOO_WHEN(flag, text): text if flag (a families.def capability) is 1,
// nothing if it is 0.
#define CUCKOO_WHEN_0(...)
#define CUCKOO_WHEN_1(...) __VA_ARGS__
#define CUCKOO_WHEN_(flag, ...) CUCKOO_WHEN_##flag(__VA_ARGS__)
#define CUCKOO_WHEN(flag, ...) CUCKOO_WHEN_(flag, __VA_ARGS__)

// THE BUILD'S ONE POLICY: CUCKOO_WITH_WRITERS is 1 for the full module
// (cuckoo-core.wasm) and 0 for the reader (cuckoo-reader.wasm), set by
// CMakeLists.txt per target. CUCKOO_WRITER(text) is text in the full module
// and nothing in the reader: it marks the exports that create or change a
// filter or write a patch (add, delete, url_add, patch_diff, ...), so the
// reader's link keeps none of the insertion, kick, growth or diff code. Only
// export definitions are marked; the core (src/) is the same for both.
#if !defined(CUCKOO_WITH_WRITERS) || (CUCKOO_WITH_WRITERS != 0 && CUCKOO_WITH_WRITERS != 1)
#error "CUCKOO_WITH_WRITERS must be defined as 0 (the reader) or 1 (the full module): see CMakeLists.txt"
#endif
#define CUCKOO_WRITER(...) CUCKOO_WHEN(CUCKOO_WITH_WRITERS, __VA_ARGS__)

}  // namespace cuckoo_wasm

#endif  // CUCKOO_WASM_BINDINGS_FAMILIES_H_
