// Every family's headers, the one list of them: each family's filter class
// (common/families.def's Class column), its section format
// (<folder>/<name>_format.h, which declares format::k<Name>SectionFormat) and
// its info() fields (<folder>/<name>_info.h, the X-macro lists
// CUCKOO_INFO_<Name> and CUCKOO_SUB_INFO_<Name>).
// What is made from common/families.def and needs the families themselves
// includes this file: the table of section formats (section_formats.cc) and
// the bindings' family table (bindings/families.h). A new family adds its
// headers here.
#ifndef CUCKOO_WASM_SRC_REGISTRY_FAMILIES_H_
#define CUCKOO_WASM_SRC_REGISTRY_FAMILIES_H_

#include "bloom/bloom_format.h"
#include "cuckoo/cuckoo_format.h"
#include "fuse/binary_fuse_filter.h"
#include "fuse/fuse_format.h"
#include "fuse/fuse_info.h"
#include "growth/scalable_filter.h"
#include "growth/scalable_info.h"
#include "redis/redis_bloom.h"
#include "redis/redis_bloom_format.h"
#include "redis/redis_bloom_info.h"
#include "redis/redis_cuckoo.h"
#include "redis/redis_cuckoo_format.h"
#include "redis/redis_cuckoo_info.h"

#endif  // CUCKOO_WASM_SRC_REGISTRY_FAMILIES_H_
