#include "format/peek_family.h"

#include "format/format.h"
#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {

Status PeekFamily(const uint8_t* data, size_t len, Family* out) {
  uint16_t version = 0;
  const Status s = format::ReadPrefix(data, len, &version);
  if (s != Status::kOk) return s;
  if (!format::KnownVersion(version)) return Status::kFormatUnsupportedVersion;
  const uint8_t type = format::FileType(data, len, version);
  if (KnownFamily(type)) {
    *out = static_cast<Family>(type);
    return Status::kOk;
  }
  return len <= format::stack_field::kType ? Status::kFormatTruncated
                                           : Status::kFormatBadParameter;
}

}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
