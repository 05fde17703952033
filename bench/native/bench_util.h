// What the native benchmarks (core_bench.cc, fuse_bench.cc, scale_bench.cc,
// url_bench.cc) share: reading the data lists, the labels of keys derived
// past a list's end, and their own flags.
#ifndef CUCKOO_WASM_BENCH_NATIVE_BENCH_UTIL_H_
#define CUCKOO_WASM_BENCH_NATIVE_BENCH_UTIL_H_

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace bench {

// The lines of a list, trimmed, without empty lines and '#' comments (as
// bench/data.mjs readLines); exits with a message naming `program` if the file
// cannot be read.
inline std::vector<std::string> ReadLines(const std::string& path, const char* program) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read %s\n", program, path.c_str());
    std::exit(1);
  }
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    const size_t a = line.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) continue;
    const size_t z = line.find_last_not_of(" \t\r\n");
    line = line.substr(a, z - a + 1);
    if (line[0] == '#') continue;
    out.push_back(line);
  }
  return out;
}

// The label of round `round` (1, 2, ...) of keys derived from a list past its
// end: cdn, api, ..., auth, then cdn2, api2, ... (bench/data.mjs deriveLabel).
inline std::string DeriveLabel(size_t round) {
  static const char* const kLabels[] = {"cdn", "api",  "m",   "static", "img",
                                        "login", "mail", "app", "secure", "auth"};
  constexpr size_t kLabelCount = sizeof kLabels / sizeof kLabels[0];
  std::string base = kLabels[(round - 1) % kLabelCount];
  const size_t cycle = (round - 1) / kLabelCount;
  return cycle == 0 ? base : base + std::to_string(cycle + 1);
}

// True if `arg` is "name=value"; the value goes to *value.
inline bool TakeFlag(const char* arg, const char* name, std::string* value) {
  const size_t len = std::strlen(name);
  if (std::strncmp(arg, name, len) != 0 || arg[len] != '=') return false;
  *value = arg + len + 1;
  return true;
}

}  // namespace bench

#endif  // CUCKOO_WASM_BENCH_NATIVE_BENCH_UTIL_H_
