#include "fuse/fuse_layout.h"

#include "common/size_optimized.h"

CUCKOO_SIZE_OPTIMIZED_BEGIN
namespace cuckoo {

double FuseLn(uint64_t x) {
  if (x <= 1) return 0;
  int e = 63;
  while ((x >> e) == 0) --e;
  // m = x / 2^e in [1, 2): exact for x below 2^53, which every n here is.
  double m = static_cast<double>(x);
  for (int i = 0; i < e; ++i) m /= 2;
  const double z = (m - 1) / (m + 1);  // in [0, 1/3)
  const double z2 = z * z;
  double term = z;
  double sum = 0;
  for (int k = 1; k < 60; k += 2) {  // z^59 / 59 < 2^-99
    sum += term / k;
    term *= z2;
  }
  constexpr double kLn2 = 0.6931471805599453;
  return e * kLn2 + 2 * sum;
}

FuseLayout FuseLayoutFor(uint64_t n, uint32_t arity) {
  FuseLayout l;
  const bool three = arity == 3;
  const double ln_n = FuseLn(n == 0 ? 1 : n);
  // ln 3.33 and ln 2.91 as differences of integers' logarithms.
  const double e = three ? ln_n / (FuseLn(333) - FuseLn(100)) + 2.25
                         : ln_n / (FuseLn(291) - FuseLn(100)) - 0.5;
  int exponent = e < 2 ? 2 : static_cast<int>(e);  // floor: e > 0 here
  if (exponent > 18) exponent = 18;
  l.segment_length = uint32_t{1} << exponent;
  uint64_t capacity = 0;
  if (n > 1) {
    double factor = three ? 0.875 + 0.25 * FuseLn(1000000) / ln_n : 0.77 + 0.305 * FuseLn(600000) / ln_n;
    const double least = three ? 1.125 : 1.075;
    if (factor < least) factor = least;
    capacity = static_cast<uint64_t>(static_cast<double>(n) * factor + 0.5);
  }
  const uint64_t segments = (capacity + l.segment_length - 1) / l.segment_length;
  l.segment_count = segments > arity - 1 ? static_cast<uint32_t>(segments - (arity - 1)) : 1;
  l.array_length = (uint64_t{l.segment_count} + arity - 1) * l.segment_length;
  return l;
}

}  // namespace cuckoo
CUCKOO_SIZE_OPTIMIZED_END
