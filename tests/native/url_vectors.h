// The Safe Browsing vectors of tests/vectors/safe-browsing.json, which the JS
// tests (tests/js/vectors.ts) read too: one list, typed once.
//
// The file is JSON; this reads the part of JSON it uses (objects, arrays,
// strings with every escape, no numbers) and fails the test on anything else.
// An input is a string (its UTF-8 bytes) or {"latin1": s}, one byte per code
// unit of s (for inputs that are not UTF-8). A wanted canonical URL is a
// string, or {"refused": reason}, given here as "<kStatus>" as Canonical()
// gives a refusal (url_test_util.h).
//
// The file is found from CUCKOO_GOLDEN_DIR (CMakeLists.txt: the source tree's
// tests/golden), as ../vectors.
#ifndef CUCKOO_WASM_TESTS_NATIVE_URL_VECTORS_H_
#define CUCKOO_WASM_TESTS_NATIVE_URL_VECTORS_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#ifndef CUCKOO_GOLDEN_DIR
#error "CUCKOO_GOLDEN_DIR must be defined (CMakeLists.txt sets it to tests/golden)"
#endif

namespace cuckoo_test {

// A JSON value of the kinds the vector file uses.
struct Json {
  enum class Kind { kString, kArray, kObject } kind = Kind::kString;
  std::string text;                            // kString: UTF-8
  std::vector<Json> items;                     // kArray
  std::vector<std::pair<std::string, Json>> members;  // kObject, in file order

  const Json& operator[](const std::string& key) const {
    for (const auto& [k, v] : members) {
      if (k == key) return v;
    }
    ADD_FAILURE() << "no member \"" << key << "\" in the vector file";
    static const Json kEmpty;
    return kEmpty;
  }
};

class JsonReader {
 public:
  explicit JsonReader(std::string s) : s_(std::move(s)) {}

  // The whole document; `ok()` is false (and the test failed) if it is not one value.
  Json Document() {
    Json v = Value();
    Space();
    if (i_ != s_.size()) Fail("text after the value");
    return v;
  }
  bool ok() const { return ok_; }

 private:
  void Fail(const std::string& what) {
    if (ok_) ADD_FAILURE() << "vector file: " << what << " at byte " << i_;
    ok_ = false;
    i_ = s_.size();
  }
  void Space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool Eat(char c) {
    Space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  Json Value() {
    Json v;
    if (Eat('"')) {
      v.text = StringBody();
    } else if (Eat('[')) {
      v.kind = Json::Kind::kArray;
      if (!Eat(']')) {
        do v.items.push_back(Value());
        while (ok_ && Eat(','));
        if (!Eat(']')) Fail("expected ']'");
      }
    } else if (Eat('{')) {
      v.kind = Json::Kind::kObject;
      if (!Eat('}')) {
        do {
          if (!Eat('"')) return Fail("expected a member name"), v;
          std::string key = StringBody();
          if (!Eat(':')) return Fail("expected ':'"), v;
          v.members.emplace_back(std::move(key), Value());
        } while (ok_ && Eat(','));
        if (!Eat('}')) Fail("expected '}'");
      }
    } else {
      Fail("expected a string, array or object");
    }
    return v;
  }
  unsigned Hex4() {
    if (i_ + 4 > s_.size()) return Fail("short \\u escape"), 0;
    unsigned u = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_++];
      u = u * 16 + (c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : (Fail("bad \\u escape"), 0));
    }
    return u;
  }
  static void Utf8(unsigned cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xc0 | cp >> 6));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xe0 | cp >> 12));
      out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
      out->push_back(static_cast<char>(0xf0 | cp >> 18));
      out->push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
  }
  // After the opening quote: the string's UTF-8, through the closing quote.
  std::string StringBody() {
    std::string out;
    while (ok_) {
      if (i_ >= s_.size()) return Fail("unterminated string"), out;
      const char c = s_[i_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (i_ >= s_.size()) return Fail("unterminated escape"), out;
      const char e = s_[i_++];
      switch (e) {
        case '"': case '\\': case '/': out.push_back(e); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          unsigned cp = Hex4();
          if (cp >= 0xd800 && cp < 0xdc00 && s_.compare(i_, 2, "\\u") == 0) {
            i_ += 2;
            const unsigned lo = Hex4();
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          }
          Utf8(cp, &out);
          break;
        }
        default: Fail(std::string("bad escape \\") + e);
      }
    }
    return out;
  }

  std::string s_;
  size_t i_ = 0;
  bool ok_ = true;
};

// tests/vectors/<name>, parsed (read once per test binary).
inline const Json& VectorFile(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Json>> cache;
  auto& slot = cache[name];
  if (!slot) {
    const std::string path = std::string(CUCKOO_GOLDEN_DIR) + "/../vectors/" + name;
    std::ifstream f(path, std::ios::binary);
    EXPECT_TRUE(f.good()) << "cannot read " << path;
    std::stringstream text;
    text << f.rdbuf();
    JsonReader reader(text.str());
    slot = std::make_unique<Json>(reader.Document());
  }
  return *slot;
}

// An input of the vector file: a string's UTF-8, or the bytes of {"latin1": s}.
inline std::string VectorInput(const Json& v) {
  if (v.kind == Json::Kind::kString) return v.text;
  // {"latin1": s}: s was decoded to UTF-8; take each code point (all < 256) as one byte.
  const std::string& u = v["latin1"].text;
  std::string bytes;
  for (size_t i = 0; i < u.size(); ++i) {
    const auto c = static_cast<unsigned char>(u[i]);
    if (c < 0x80) {
      bytes.push_back(static_cast<char>(c));
    } else {
      EXPECT_TRUE((c == 0xc2 || c == 0xc3) && i + 1 < u.size()) << "latin1 input past U+00FF";
      bytes.push_back(static_cast<char>(((c & 0x1f) << 6) | (static_cast<unsigned char>(u[++i]) & 0x3f)));
    }
  }
  return bytes;
}

// A wanted canonical URL: the string, or "<kStatus>" for {"refused": reason}.
inline std::string VectorCanonical(const Json& v) {
  if (v.kind == Json::Kind::kString) return v.text;
  static const std::map<std::string, std::string> kStatus = {
      {"empty", "<kUrlEmpty>"}, {"no-host", "<kUrlNoHost>"}, {"bad-host", "<kUrlBadHost>"},
      {"too-long", "<kUrlTooLong>"}};
  const std::string& reason = v["refused"].text;
  const auto it = kStatus.find(reason);
  EXPECT_NE(it, kStatus.end()) << "unknown refusal " << reason;
  return it == kStatus.end() ? "<" + reason + ">" : it->second;
}

struct CanonVector {
  std::string in;
  std::string want;  // canonical URL, or "<kStatus>"
};

// canonicalization.<list>.vectors of safe-browsing.json.
inline std::vector<CanonVector> CanonVectors(const std::string& list) {
  std::vector<CanonVector> out;
  for (const Json& v : VectorFile("safe-browsing.json")["canonicalization"][list]["vectors"].items) {
    if (v.items.size() != 2) {
      ADD_FAILURE() << list << ": a vector is not [input, wanted]";
      continue;
    }
    out.push_back({VectorInput(v.items[0]), VectorCanonical(v.items[1])});
  }
  return out;
}

struct ExpressionVector {
  std::string url;
  std::vector<std::string> want;  // the expressions, in order
};

// expressions.<list>.vectors of safe-browsing.json.
inline std::vector<ExpressionVector> ExpressionVectors(const std::string& list) {
  std::vector<ExpressionVector> out;
  for (const Json& v : VectorFile("safe-browsing.json")["expressions"][list]["vectors"].items) {
    if (v.items.size() != 2) {
      ADD_FAILURE() << list << ": a vector is not [url, expressions]";
      continue;
    }
    ExpressionVector e{VectorInput(v.items[0]), {}};
    for (const Json& x : v.items[1].items) e.want.push_back(x.text);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace cuckoo_test

#endif  // CUCKOO_WASM_TESTS_NATIVE_URL_VECTORS_H_
