// The filter families (families.def, the one list of them) as an enum, and
// what is derived from that list alone.
#ifndef CUCKOO_WASM_SRC_COMMON_FAMILY_H_
#define CUCKOO_WASM_SRC_COMMON_FAMILY_H_

#include <cstdint>

namespace cuckoo {

// The filter families. Values are part of the JS/WASM boundary and of the
// format (families.def: never renumber, only append).
enum class Family : uint8_t {
#define CUCKOO_FAMILY(Name, id, ...) k##Name = id,
#include "common/families.def"
};

// True if `id` names a family.
constexpr bool KnownFamily(unsigned id) {
#define CUCKOO_FAMILY(Name, ...) if (id == static_cast<unsigned>(Family::k##Name)) return true;
#include "common/families.def"
  return false;
}

// How many families there are.
constexpr unsigned kFamilyCount = 0
#define CUCKOO_FAMILY(...) + 1
#include "common/families.def"
    ;

// The ids are 1, 2, ... in the list's order, so that a table of the families
// can be indexed by id.
constexpr bool IdsInOrder() {
  unsigned next = 1;
#define CUCKOO_FAMILY(Name, id, ...) if (id != next++) return false;
#include "common/families.def"
  return true;
}
static_assert(IdsInOrder(), "common/families.def: ids are 1, 2, ... in order");

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_COMMON_FAMILY_H_
