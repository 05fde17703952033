// The one table of every family's section format (common/section_format.h),
// indexed by family id and made from common/families.def: a family's
// format header (registry/families.h) declares format::k<Name>SectionFormat.
// Defined here, above every family, so that format/ dispatches to the
// families it sits below.
#include "common/family.h"
#include "common/section_format.h"
#include "registry/families.h"

namespace cuckoo {
namespace format {

const SectionFormat* const kSectionFormats[kFamilyCount + 1] = {
    nullptr,
#define CUCKOO_FAMILY(Name, ...) &k##Name##SectionFormat,
#include "common/families.def"
};

}  // namespace format
}  // namespace cuckoo
