// FUZZ_CHECK(cond): the fuzz targets' assertion. A failed check prints the
// condition and where it is, then traps, which libFuzzer reports as a crash
// and saves the input (scripts/fuzz.sh keeps it in build/fuzz/artifacts/).
#ifndef CUCKOO_WASM_TESTS_FUZZ_FUZZ_CHECK_H_
#define CUCKOO_WASM_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>

#define FUZZ_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s:%d)\n", #cond, __FILE__, \
                   __LINE__);                                                  \
      __builtin_trap();                                                        \
    }                                                                          \
  } while (0)

#endif // CUCKOO_WASM_TESTS_FUZZ_FUZZ_CHECK_H_
