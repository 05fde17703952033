#include "status.h"

namespace cuckoo {

const char* StatusMessage(Status status) {
  switch (status) {
    case Status::kOk: return "ok";
    case Status::kNotFound: return "no matching fingerprint is stored for this key";
    case Status::kNotEnoughSpace:
      return "the filter is full: no free slot was found after the maximum number of kicks; "
             "create a filter with a larger capacity or, if it filled below its capacity because "
             "max_kicks is low (0 allows no evictions), with a larger max_kicks";
    case Status::kInvalidArgument: return "a filter parameter is out of range";
    case Status::kOutOfMemory: return "not enough memory for the filter's table";
    case Status::kFormatTruncated:
      return "the bytes are truncated: fewer than the header and table length require";
    case Status::kFormatBadMagic: return "the bytes do not start with the cuckoo filter magic \"CKOO\"";
    case Status::kFormatUnsupportedVersion:
      return "unsupported format version: this build reads versions 1 to 4 only";
    case Status::kFormatBadParameter:
      return "a header parameter (hash id, encoding, fingerprint bits, bucket size, bucket count, "
             "max kicks, capacity, table length, filter type, sub-filter count, expansion, "
             "hash count, bit count, false-positive rate or a reserved field) is out of range, "
             "or a sub-filter does not follow from the first";
    case Status::kFormatTrailingBytes:
      return "there are bytes after the checksum: the input is longer than the filter it holds";
    case Status::kFormatChecksumMismatch:
      return "checksum mismatch: the bytes were changed or corrupted after they were written";
    case Status::kFormatCountMismatch:
      return "the header's item count disagrees with the occupied slots in the table";
    case Status::kFormatBadVictim: return "the victim fingerprint or its bucket index is out of range";
    case Status::kFormatBadPadding:
      return "non-zero padding bits after the last slot of the table or the last bit of the bit array";
    case Status::kFormatWrongFamily:
      return "the bytes hold a filter of another family: load them with that family's fromBytes";
    case Status::kFormatBadChunk:
      return "the SCANDUMP chunks do not make a filter: one is missing, extra or out of order, or "
             "its iterator does not match the bytes before it; pass every [iterator, chunk] pair "
             "SCANDUMP returned, in order";
    case Status::kGrowthLimit:
      return "the filter is full and cannot grow further (32 sub-filters, 32-bit fingerprints, "
             "2^32 buckets or bits, or 1 GiB in all); the key was not added: create a filter "
             "with a larger capacity or a larger expansion";
    case Status::kUrlEmpty:
      return "the URL is empty: it holds nothing but spaces or control characters";
    case Status::kUrlNoHost:
      return "the URL has no host: give a host name or IP address, as in \"http://example.com/\" "
             "or \"example.com/path\" (a bare path, a fragment, \"http://\" or a scheme without "
             "\"//\" has none)";
    case Status::kUrlBadHost:
      return "the URL's host cannot be used: it is only dots, keeps a ':' or a bracket after the "
             "port is removed, is a malformed bracketed IPv6 address, or mixes valid and invalid "
             "UTF-8; fix the host";
    case Status::kUrlTooLong:
      return "the URL, or its canonical form, is longer than 2 MiB (2097152 bytes), the longest "
             "accepted; shorten it";
    case Status::kUrlNonAsciiHost:
      return "the URL's host has non-ASCII characters and must be converted to Punycode "
             "(e.g. with url.domainToASCII) before it is canonicalized again";
    case Status::kPatchNotAPatch:
      return "the bytes are not a patch: they do not start with the patch magic \"CKPT\"";
    case Status::kPatchVersion:
      return "unsupported patch version: this build reads patch version 1 only";
    case Status::kPatchTruncated:
      return "the patch is truncated: it is shorter than a patch header and checksum";
    case Status::kPatchCorrupt:
      return "the patch is corrupted or truncated: its checksum, a reserved field or its body "
             "is wrong; fetch it again (nothing was changed)";
    case Status::kPatchWrongBase:
      return "this patch is for another version of the filter: the filter's length or checksum "
             "is not the patch's base (nothing was changed); apply the patches in order, or "
             "fetch the whole filter";
    case Status::kPatchFamily:
      return "the patch and the filter differ in family, format version or parameters (family, "
             "table encoding, fingerprint bits, bucket size, bucket count, bit count, hash "
             "count, expansion or seed): a patch joins two versions of one filter only";
    case Status::kPatchResultMismatch:
      return "the patched filter's checksum is not the one the patch names, or it does not "
             "load: nothing was changed; fetch the whole filter";
  }
  return "unknown status";
}

}  // namespace cuckoo
