// Sizing of new filters from their options, in one place: the fingerprint
// size for a false-positive rate, the rate a growing filter's first
// sub-filter is sized for, and the bytes toBytes() gives for a new filter
// (which lets a caller refuse a filter too large for its memory before
// anything is allocated). The bindings and the TS side ask these; neither
// redoes the arithmetic.
#ifndef CUCKOO_WASM_SRC_GROWTH_SIZING_H_
#define CUCKOO_WASM_SRC_GROWTH_SIZING_H_

#include <cstdint>

#include "cuckoo/cuckoo_params.h"

namespace cuckoo {

// The false-positive rate a cuckoo filter of buckets of b slots and f-bit
// fingerprints is sized for: the bound 2b / 2^f of a lookup at full load
// (Fan et al. 2014 §5.1: it compares 2b fingerprints), twice that for a
// filter that grows (expansion not 0), whose sub-filters of f, f + 1, ...
// bits add up to at most twice the first's.
double CuckooSizedRate(uint32_t bucket_size, uint32_t fingerprint_bits, uint32_t expansion);

// Smallest f in [4, 32] with 2b / 2^f <= rate (Fan et al. 2014 §5.1: a lookup
// compares 2b fingerprints of f bits); 0 if there is none (rate below
// 2b / 2^32) or rate is not in (0, 1).
uint32_t FingerprintBitsFor(double false_positive_rate, uint32_t bucket_size);

// The rate sub-filter 0 of a filter is sized for: `false_positive_rate` if it
// does not grow (expansion 0), else half of it, so that the rates of
// sub-filters sized for ε/2, ε/4, ... sum to at most ε however far it grows
// (Almeida et al., "Scalable Bloom Filters", 2007, with ratio r = 1/2).
double FirstSubFilterRate(double false_positive_rate, uint32_t expansion);

// Bytes toBytes() gives for a new cuckoo filter of these options (a format
// version 4 stack of one sub-filter, with or without growth), or 0 for
// options Create refuses (among them an encoding that does not store b, ValidEncoding).
uint64_t CuckooSerializedSizeFor(uint64_t capacity, uint32_t fingerprint_bits,
                                 uint32_t bucket_size, uint32_t expansion,
                                 TableEncoding encoding = TableEncoding{});

// A new cuckoo filter's shape as create() needs it, in one call (SizeCuckoo).
struct CuckooSizing {
  // The fingerprint bits: as given, or FingerprintBitsFor(first_rate, b); 0
  // when no f in 4..32 reaches the rate.
  uint32_t fingerprint_bits = 0;
  // The rate sub-filter 0 is sized for (FirstSubFilterRate); 0 when the
  // fingerprint bits were given.
  double first_rate = 0;
  // The lowest rate a filter of this bucket size and growth can be sized
  // for: CuckooSizedRate at f = 32.
  double lowest_rate = 0;
  // CuckooSerializedSizeFor the capacity: 0 for options Create refuses (more
  // than 2^32 buckets among them).
  uint64_t bytes = 0;
  // Only when bytes is 0 or above max_bytes: the most keys (below the
  // capacity, 1 at least) whose filter of this shape takes 1..max_bytes bytes,
  // and those bytes.
  uint64_t max_capacity = 0;
  uint64_t bytes_at_max = 0;
};

// Sizes a new cuckoo filter of `capacity` keys: by `false_positive_rate` when
// `fingerprint_bits` is 0, else with those bits; `max_bytes` is the most a
// filter may take (the caller's memory bound).
CuckooSizing SizeCuckoo(uint64_t capacity, double false_positive_rate, uint32_t fingerprint_bits,
                        uint32_t bucket_size, uint32_t expansion, TableEncoding encoding,
                        uint64_t max_bytes);

// Bytes toBytes() gives for a new Bloom filter of these options (a stack
// header, one section, the checksum), or 0 for options Create refuses (m or k
// out of range).
uint64_t BloomSerializedSizeFor(uint64_t capacity, double false_positive_rate,
                                uint32_t expansion);

}  // namespace cuckoo

#endif  // CUCKOO_WASM_SRC_GROWTH_SIZING_H_
