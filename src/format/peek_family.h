// Which filter family a serialized filter holds, read from its header alone,
// so that a reader handed the bytes of another family can say which one they
// are and which class loads them (one "wrong family" answer, whatever the two
// families).
#ifndef CUCKOO_WASM_SRC_FORMAT_PEEK_FAMILY_H_
#define CUCKOO_WASM_SRC_FORMAT_PEEK_FAMILY_H_

#include <cstddef>
#include <cstdint>

#include "common/family.h"
#include "status.h"

namespace cuckoo {

// The family of the filter in data[0, len), from its magic, version and type
// byte (docs/FORMAT.md §7 checks 1-4, the type of §12, version 4's family
// byte of §14): kOk and *out, or
// the format status that makes the bytes unreadable (kFormatTruncated,
// kFormatBadMagic, kFormatUnsupportedVersion, kFormatBadParameter for a type
// byte that names no family). Reads nothing past the type byte, so a
// truncated or corrupted filter of a known family still names its family.
Status PeekFamily(const uint8_t* data, size_t len, Family* out);

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_FORMAT_PEEK_FAMILY_H_
