// The one table of every family's section format (common/section_format.h),
// indexed by family id and made from common/families.def: a family's
// format header is <folder>/<name>_format.h and declares
// format::k<Name>SectionFormat. The one file of the core that includes every
// family's format, above them all, so that format/ dispatches to a family it
// sits below.
#include "bloom/bloom_format.h"
#include "common/family.h"
#include "common/section_format.h"
#include "cuckoo/cuckoo_format.h"
#include "redis/redis_bloom_format.h"
#include "redis/redis_cuckoo_format.h"

namespace cuckoo {
namespace format {

const SectionFormat* const kSectionFormats[kFamilyCount + 1] = {
    nullptr,
#define CUCKOO_FAMILY(Name, ...) &k##Name##SectionFormat,
#include "common/families.def"
};

}  // namespace format
}  // namespace cuckoo
