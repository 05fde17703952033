// The JS/WASM boundary for cuckoo-wasm: the only file that includes Emscripten
// headers. A filter crosses as a handle (its ScalableCuckooFilter* or
// ScalableBloomFilter* as a wasm32 address);
// keys cross as (pointer, length) into memory the JS side owns. On the JS side,
// js/wasm-core.ts is the one file that calls these.
//
// Two kinds of entry point:
//  - embind functions (EMSCRIPTEN_BINDINGS below) for the calls made once per
//    filter or per error: create, deserialize, serialize, destroy, info,
//    statusMessage, allocatedBytes. Some return a structured value (an
//    { status, handle } or info object, a message string), which embind builds
//    on the JS side; their marshalling costs nothing that matters at that rate;
//  - plain exports (cf_* for cuckoo filters, bf_* for Bloom filters, url_* for
//    URLs in either) for the per-key and per-batch calls, which take and
//    return numbers only: JS calls them as the wasm instance's own exports, so
//    a lookup is one direct wasm call, with no embind invoker in between.
// Statuses cross as the integer values of cuckoo::Status; js/status.ts maps each
// to its JS error.
//
// Out of memory is a status here, never an abort. In this Emscripten (3.1.6)
// libc++ is built without exceptions, so operator new, nothrow new included,
// aborts the module when memory runs out; malloc returns 0 instead (memory
// growth is on, so ABORTING_MALLOC is off). So nothing here calls operator new,
// and the linked module contains none (link with --profiling-funcs to see its
// function names):
//  - the core allocates with calloc (src/allocation.h) and reports
//    kOutOfMemory; `delete` of a filter frees with free;
//  - no embind function takes or returns a value_object or std::string, which
//    embind passes through wasm memory it gets with `new T` / malloc (wire.h:
//    GenericBindingType, BindingType<std::string>). create, deserialize and
//    info return an emscripten::val object, and statusMessage a val string:
//    built on the JS side (_emval_new_object, _emval_set_property,
//    _emval_take_value, _emval_new_cstring, which read the values or the static
//    C string from wasm memory), with nothing allocated in wasm;
//  - every other embind function takes and returns numbers only, which embind
//    passes as plain wasm arguments, so they stay embind functions.
// What still allocates in wasm: malloc called by JS (_malloc; js/wasm-core.ts
// checks for 0), and embind's __getTypeName, called only to word a
// BindingError.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <malloc.h>

#include <cstdint>
#include <memory>

#include "batch.h"
#include "scalable_filter.h"
#include "url_filter.h"

namespace {

using cuckoo::BloomFilter;
using cuckoo::CuckooFilter;
using cuckoo::CuckooParams;
using cuckoo::ScalableBloomFilter;
using cuckoo::ScalableBloomParams;
using cuckoo::ScalableCuckooFilter;
using cuckoo::Status;

using emscripten::val;

// A cuckoo filter crosses as its ScalableCuckooFilter* (one sub-filter when it
// does not grow), a Bloom filter as its ScalableBloomFilter*.
ScalableCuckooFilter* FromHandle(uintptr_t handle) {
  return reinterpret_cast<ScalableCuckooFilter*>(handle);
}
ScalableBloomFilter* BloomFromHandle(uintptr_t handle) {
  return reinterpret_cast<ScalableBloomFilter*>(handle);
}

// Result of create / deserialize, as a JS object { status, handle }: the
// cuckoo::Status, and the filter's handle when status is kOk (0), else 0.
template <typename Filter>
val OpenResult(Status s, std::unique_ptr<Filter> filter) {
  const uintptr_t handle = s == Status::kOk ? reinterpret_cast<uintptr_t>(filter.release()) : 0;
  val r = val::object();
  r.set("status", static_cast<int>(s));
  r.set("handle", handle);
  return r;
}

uint64_t Seed(uint32_t low, uint32_t high) { return (static_cast<uint64_t>(high) << 32) | low; }

CuckooParams MakeParams(double capacity, int fingerprint_bits, int bucket_size, int max_kicks,
                        uint32_t seed_low, uint32_t seed_high) {
  CuckooParams p;
  p.capacity = capacity >= 1 ? static_cast<uint64_t>(capacity) : 0;
  p.fingerprint_bits = static_cast<uint32_t>(fingerprint_bits);
  p.bucket_size = static_cast<uint32_t>(bucket_size);
  p.max_kicks = static_cast<uint32_t>(max_kicks);
  p.seed = Seed(seed_low, seed_high);
  return p;
}

// ---------------------------------------------------------------------------
// Cuckoo filters

val Create(double capacity, int fingerprint_bits, int bucket_size, int max_kicks,
           uint32_t seed_low, uint32_t seed_high, int expansion) {
  std::unique_ptr<ScalableCuckooFilter> filter;
  const Status s = ScalableCuckooFilter::Create(
      MakeParams(capacity, fingerprint_bits, bucket_size, max_kicks, seed_low, seed_high),
      static_cast<uint32_t>(expansion), &filter);
  return OpenResult(s, std::move(filter));
}

// Bytes toBytes() would produce for a new filter of these parameters (0 if
// Create would refuse them), so the JS side can refuse a filter too large for
// memory before allocating.
double SerializedSizeFor(double capacity, int fingerprint_bits, int bucket_size, int expansion) {
  const uint64_t first = CuckooFilter::SerializedSizeFor(
      MakeParams(capacity, fingerprint_bits, bucket_size, 0, 0, 0));
  if (first == 0 || expansion == 0) return static_cast<double>(first);
  return static_cast<double>(first + cuckoo::format::kStackHeaderBytes +
                             cuckoo::format::kChecksumBytes);
}

val Deserialize(uintptr_t data, double length) {
  std::unique_ptr<ScalableCuckooFilter> filter;
  const Status s = ScalableCuckooFilter::Deserialize(reinterpret_cast<const uint8_t*>(data),
                                                     static_cast<size_t>(length), &filter);
  return OpenResult(s, std::move(filter));
}

void Destroy(uintptr_t handle) { delete FromHandle(handle); }

// Parameters and statistics of one filter and of each of its sub-filters, as
// a JS object, for the JS getters and info().
val Info(uintptr_t handle) {
  const ScalableCuckooFilter& f = *FromHandle(handle);
  const CuckooFilter& first = f.sub_filter(0);
  val info = val::object();
  info.set("capacity", static_cast<double>(first.capacity()));
  info.set("bucketCount", static_cast<double>(first.bucket_count()));
  info.set("fingerprintBits", static_cast<int>(first.fingerprint_bits()));
  info.set("bucketSize", static_cast<int>(first.bucket_size()));
  info.set("maxKicks", static_cast<int>(first.max_kicks()));
  info.set("seedLow", static_cast<uint32_t>(first.seed()));
  info.set("seedHigh", static_cast<uint32_t>(first.seed() >> 32));
  info.set("expansion", static_cast<int>(f.expansion()));
  info.set("serializedSize", static_cast<double>(f.SerializedSize()));
  val subs = val::array();
  for (uint32_t j = 0; j < f.sub_filter_count(); ++j) {
    const CuckooFilter& s = f.sub_filter(j);
    val sub = val::object();
    sub.set("capacity", static_cast<double>(s.capacity()));
    sub.set("bucketCount", static_cast<double>(s.bucket_count()));
    sub.set("fingerprintBits", static_cast<int>(s.fingerprint_bits()));
    sub.set("size", static_cast<double>(s.size()));
    sub.set("loadFactor", s.load_factor());
    sub.set("victim", s.victim_used());
    sub.set("serializedSize", static_cast<double>(s.SerializedSize()));
    subs.set(j, sub);
  }
  info.set("subFilters", subs);
  return info;
}

void Serialize(uintptr_t handle, uintptr_t out) {
  FromHandle(handle)->Serialize(reinterpret_cast<uint8_t*>(out));
}

// ---------------------------------------------------------------------------
// Bloom filters

ScalableBloomParams MakeBloomParams(double capacity, double false_positive_rate,
                                    uint32_t seed_low, uint32_t seed_high, int expansion) {
  ScalableBloomParams p;
  p.capacity = capacity >= 1 ? static_cast<uint64_t>(capacity) : 0;
  p.false_positive_rate = false_positive_rate;
  p.seed = Seed(seed_low, seed_high);
  p.expansion = static_cast<uint32_t>(expansion);
  return p;
}

val BloomCreate(double capacity, double false_positive_rate, uint32_t seed_low,
                uint32_t seed_high, int expansion) {
  std::unique_ptr<ScalableBloomFilter> filter;
  const Status s = ScalableBloomFilter::Create(
      MakeBloomParams(capacity, false_positive_rate, seed_low, seed_high, expansion), &filter);
  return OpenResult(s, std::move(filter));
}

// Bytes toBytes() would produce for a new Bloom filter (0 if Create would refuse it).
double BloomSerializedSizeFor(double capacity, double false_positive_rate, int expansion) {
  cuckoo::BloomParams p;
  p.capacity = capacity >= 1 ? static_cast<uint64_t>(capacity) : 0;
  p.false_positive_rate = expansion == 0 ? false_positive_rate : false_positive_rate / 2;
  const uint64_t bits = BloomFilter::BitCountFor(p);
  if (bits == 0 || BloomFilter::HashCountFor(p.capacity, bits) > cuckoo::kMaxBloomHashes) return 0;
  return static_cast<double>(cuckoo::format::kStackHeaderBytes + cuckoo::format::kChecksumBytes +
                             cuckoo::format::BloomSectionBytes(BloomFilter::WordBytesFor(bits)));
}

val BloomDeserialize(uintptr_t data, double length) {
  std::unique_ptr<ScalableBloomFilter> filter;
  const Status s = ScalableBloomFilter::Deserialize(reinterpret_cast<const uint8_t*>(data),
                                                    static_cast<size_t>(length), &filter);
  return OpenResult(s, std::move(filter));
}

void BloomDestroy(uintptr_t handle) { delete BloomFromHandle(handle); }

val BloomInfo(uintptr_t handle) {
  const ScalableBloomFilter& f = *BloomFromHandle(handle);
  const BloomFilter& first = f.sub_filter(0);
  val info = val::object();
  info.set("capacity", static_cast<double>(first.capacity()));
  info.set("falsePositiveRate", f.false_positive_rate());
  info.set("seedLow", static_cast<uint32_t>(first.seed()));
  info.set("seedHigh", static_cast<uint32_t>(first.seed() >> 32));
  info.set("expansion", static_cast<int>(f.expansion()));
  info.set("serializedSize", static_cast<double>(f.SerializedSize()));
  info.set("bitCount", static_cast<double>(f.bit_count()));
  info.set("hashCount", static_cast<int>(first.hash_count()));
  info.set("expectedFalsePositiveRate", f.ExpectedFalsePositiveRate());
  info.set("estimatedCount", f.EstimatedCount());
  val subs = val::array();
  for (uint32_t j = 0; j < f.sub_filter_count(); ++j) {
    const BloomFilter& s = f.sub_filter(j);
    val sub = val::object();
    sub.set("capacity", static_cast<double>(s.capacity()));
    sub.set("falsePositiveRate", s.false_positive_rate());
    sub.set("bitCount", static_cast<double>(s.bit_count()));
    sub.set("hashCount", static_cast<int>(s.hash_count()));
    sub.set("size", static_cast<double>(s.size()));
    sub.set("setBitCount", static_cast<double>(s.SetBitCount()));
    sub.set("expectedFalsePositiveRate", s.ExpectedFalsePositiveRate());
    sub.set("serializedSize",
            static_cast<double>(cuckoo::format::BloomSectionBytes(s.word_bytes())));
    subs.set(j, sub);
  }
  info.set("subFilters", subs);
  return info;
}

void BloomSerialize(uintptr_t handle, uintptr_t out) {
  BloomFromHandle(handle)->Serialize(reinterpret_cast<uint8_t*>(out));
}

bool BloomCompatible(uintptr_t a, uintptr_t b) {
  return BloomFromHandle(a)->IsCompatible(*BloomFromHandle(b));
}

int BloomUnion(uintptr_t into, uintptr_t other) {
  return static_cast<int>(BloomFromHandle(into)->Union(*BloomFromHandle(other)));
}

// ---------------------------------------------------------------------------

// Bytes the allocator has handed out and not had back (dlmalloc's mallinfo).
double AllocatedBytes() { return static_cast<double>(mallinfo().uordblks); }

// The JS string is read from StatusMessage's static ASCII text.
val Message(int status) { return val(cuckoo::StatusMessage(static_cast<Status>(status))); }

// ---------------------------------------------------------------------------
// URLs. A call takes the URL (or list entry) as bytes, the Punycode host JS
// found for it after a kUrlNonAsciiHost (host_len 0: none), and a region of
// wasm memory JS owns, laid out as
//   region + kCanonicalAt   CanonicalUrl (40 bytes): where the parts are
//   region + kSpanAt        UrlSpan: the matched expression, or the entry's
//   region + kSpansAt       UrlSpan[30]: url_expressions' expressions
//   region + kBufferAt      the workspace the spans point into, to region_len
// JS sizes it with url::WorkspaceSize (CanonicalBufferSize of the lengths).

constexpr size_t kCanonicalAt = 0;
constexpr size_t kSpanAt = 40;
constexpr size_t kSpansAt = 48;
constexpr size_t kBufferAt = kSpansAt + 8 * cuckoo::url::kMaxExpressions;
static_assert(sizeof(cuckoo::url::CanonicalUrl) == kSpanAt - kCanonicalAt, "region layout");

struct Region {
  cuckoo::url::CanonicalUrl* canon;
  cuckoo::url::UrlSpan* span;
  cuckoo::url::UrlSpan* spans;
  uint8_t* buf;
  size_t buf_len;
};

Region RegionAt(uint8_t* region, size_t region_len) {
  Region r;
  r.canon = reinterpret_cast<cuckoo::url::CanonicalUrl*>(region + kCanonicalAt);
  r.span = reinterpret_cast<cuckoo::url::UrlSpan*>(region + kSpanAt);
  r.spans = reinterpret_cast<cuckoo::url::UrlSpan*>(region + kSpansAt);
  r.buf = region + kBufferAt;
  r.buf_len = region_len > kBufferAt ? region_len - kBufferAt : 0;
  return r;
}

cuckoo::url::UrlInput Input(const uint8_t* url, size_t len, const uint8_t* host, size_t host_len) {
  cuckoo::url::UrlInput in;
  in.url = url;
  in.len = len;
  in.ascii_host = host;
  in.ascii_host_len = host_len;
  return in;
}

// Filter families as JS numbers them (js/wasm-core.ts Family).
constexpr int kFamilyCuckoo = 0;

template <typename Filter>
size_t AddUrlBatch(Filter* f, const uint8_t* keys, const uint32_t* offsets, size_t n,
                   Region r, Status* status) {
  return cuckoo::AddEach(keys, offsets, n, status, [f, r](const uint8_t* url, size_t len) {
    return cuckoo::url::AddEntry(*f, Input(url, len, nullptr, 0), r.buf, r.buf_len, r.canon, r.span);
  });
}

// results[k]: 1 found, 0 not found, else the status that refused URL k.
template <typename Filter>
void MatchUrlBatch(const Filter* f, const uint8_t* keys, const uint32_t* offsets, size_t n,
                   Region r, uint8_t* results) {
  for (size_t k = 0; k < n; ++k) {
    const auto in = Input(keys + offsets[k], offsets[k + 1] - offsets[k], nullptr, 0);
    Status s;
    const bool hit = cuckoo::url::Match(*f, in, r.buf, r.buf_len, r.canon, r.span, &s);
    results[k] = s != Status::kOk ? static_cast<uint8_t>(s) : hit ? 1 : 0;
  }
}

// The add-batch exports: n keys packed as keys[offsets[k] .. offsets[k+1]);
// writes the status of the first failure (or 0) to *status and returns how
// many were added.
template <typename Filter>
uint32_t AddBatchExport(Filter* f, const uint8_t* keys, const uint32_t* offsets, uint32_t n,
                        int32_t* status) {
  Status s;
  const size_t added = f->AddBatch(keys, offsets, n, &s);
  *status = static_cast<int32_t>(s);
  return static_cast<uint32_t>(added);
}

}  // namespace

extern "C" {

// A list entry's canonical expression added to filter `f` of `family`: the
// status (kUrl* from canonicalization, or the filter's Add status).
EMSCRIPTEN_KEEPALIVE int url_add(int family, void* f, const uint8_t* url, size_t len,
                                 const uint8_t* host, size_t host_len, uint8_t* region,
                                 size_t region_len) {
  const Region r = RegionAt(region, region_len);
  const auto in = Input(url, len, host, host_len);
  const Status s =
      family == kFamilyCuckoo
          ? cuckoo::url::AddEntry(*static_cast<ScalableCuckooFilter*>(f), in, r.buf, r.buf_len,
                                  r.canon, r.span)
          : cuckoo::url::AddEntry(*static_cast<ScalableBloomFilter*>(f), in, r.buf, r.buf_len,
                                  r.canon, r.span);
  return static_cast<int>(s);
}

// 1 if an expression of the URL is in `f` (the first at region + kSpanAt), 0
// if none is, -status if the URL was refused.
EMSCRIPTEN_KEEPALIVE int url_match(int family, const void* f, const uint8_t* url, size_t len,
                                   const uint8_t* host, size_t host_len, uint8_t* region,
                                   size_t region_len) {
  const Region r = RegionAt(region, region_len);
  const auto in = Input(url, len, host, host_len);
  Status s;
  const bool hit =
      family == kFamilyCuckoo
          ? cuckoo::url::Match(*static_cast<const ScalableCuckooFilter*>(f), in, r.buf, r.buf_len,
                               r.canon, r.span, &s)
          : cuckoo::url::Match(*static_cast<const ScalableBloomFilter*>(f), in, r.buf, r.buf_len,
                               r.canon, r.span, &s);
  return s != Status::kOk ? -static_cast<int>(s) : hit ? 1 : 0;
}

// url_add for n entries packed as for cf_add_batch, stopping at the first
// refused: how many were added, and the status of the first refusal (or 0)
// in *status. The region must fit the longest entry.
EMSCRIPTEN_KEEPALIVE uint32_t url_add_batch(int family, void* f, const uint8_t* keys,
                                            const uint32_t* offsets, uint32_t n, int32_t* status,
                                            uint8_t* region, size_t region_len) {
  const Region r = RegionAt(region, region_len);
  Status s;
  const size_t added =
      family == kFamilyCuckoo
          ? AddUrlBatch(static_cast<ScalableCuckooFilter*>(f), keys, offsets, n, r, &s)
          : AddUrlBatch(static_cast<ScalableBloomFilter*>(f), keys, offsets, n, r, &s);
  *status = static_cast<int32_t>(s);
  return static_cast<uint32_t>(added);
}

// url_match for n URLs: results[k] is 1 (found), 0 (not found) or the status
// that refused URL k (all >= 2).
EMSCRIPTEN_KEEPALIVE void url_match_batch(int family, const void* f, const uint8_t* keys,
                                          const uint32_t* offsets, uint32_t n, uint8_t* results,
                                          uint8_t* region, size_t region_len) {
  const Region r = RegionAt(region, region_len);
  if (family == kFamilyCuckoo) {
    MatchUrlBatch(static_cast<const ScalableCuckooFilter*>(f), keys, offsets, n, r, results);
  } else {
    MatchUrlBatch(static_cast<const ScalableBloomFilter*>(f), keys, offsets, n, r, results);
  }
}

// The canonical URL (CanonicalUrl at region + kCanonicalAt): its status.
EMSCRIPTEN_KEEPALIVE int url_canonicalize(const uint8_t* url, size_t len, const uint8_t* host,
                                          size_t host_len, uint8_t* region, size_t region_len) {
  const Region r = RegionAt(region, region_len);
  return static_cast<int>(
      cuckoo::url::Canonical(Input(url, len, host, host_len), r.buf, r.buf_len, r.canon));
}

// The URL's expressions (UrlSpan[n] at region + kSpansAt): n, or -status.
EMSCRIPTEN_KEEPALIVE int url_expressions(const uint8_t* url, size_t len, const uint8_t* host,
                                         size_t host_len, uint8_t* region, size_t region_len) {
  const Region r = RegionAt(region, region_len);
  const Status s =
      cuckoo::url::Canonical(Input(url, len, host, host_len), r.buf, r.buf_len, r.canon);
  if (s != Status::kOk) return -static_cast<int>(s);
  return static_cast<int>(cuckoo::url::UrlExpressions(*r.canon, r.buf, r.spans));
}

// A list entry's canonical expression (UrlSpan at region + kSpanAt): its status.
EMSCRIPTEN_KEEPALIVE int url_entry(const uint8_t* url, size_t len, const uint8_t* host,
                                   size_t host_len, uint8_t* region, size_t region_len) {
  const Region r = RegionAt(region, region_len);
  return static_cast<int>(
      cuckoo::url::Entry(Input(url, len, host, host_len), r.buf, r.buf_len, r.canon, r.span));
}

EMSCRIPTEN_KEEPALIVE int cf_add(ScalableCuckooFilter* f, const uint8_t* key, size_t len) {
  return static_cast<int>(f->Add(key, len));
}
EMSCRIPTEN_KEEPALIVE int cf_contain(const ScalableCuckooFilter* f, const uint8_t* key, size_t len) {
  return f->Contain(key, len) ? 1 : 0;
}
EMSCRIPTEN_KEEPALIVE int cf_delete(ScalableCuckooFilter* f, const uint8_t* key, size_t len) {
  return static_cast<int>(f->Delete(key, len));
}
EMSCRIPTEN_KEEPALIVE uint32_t cf_count(const ScalableCuckooFilter* f, const uint8_t* key,
                                       size_t len) {
  return f->Count(key, len);
}
// Adds n packed keys (AddBatchExport).
EMSCRIPTEN_KEEPALIVE uint32_t cf_add_batch(ScalableCuckooFilter* f, const uint8_t* keys,
                                           const uint32_t* offsets, uint32_t n, int32_t* status) {
  return AddBatchExport(f, keys, offsets, n, status);
}
EMSCRIPTEN_KEEPALIVE void cf_contain_batch(const ScalableCuckooFilter* f, const uint8_t* keys,
                                           const uint32_t* offsets, uint32_t n, uint8_t* results) {
  f->ContainBatch(keys, offsets, n, results);
}
// size(), load_factor() and the serialized size as doubles: read by JS getters
// that may be polled often, and that change as the filter grows.
EMSCRIPTEN_KEEPALIVE double cf_size(const ScalableCuckooFilter* f) {
  return static_cast<double>(f->size());
}
EMSCRIPTEN_KEEPALIVE double cf_load_factor(const ScalableCuckooFilter* f) {
  return f->load_factor();
}
EMSCRIPTEN_KEEPALIVE double cf_serialized_size(const ScalableCuckooFilter* f) {
  return static_cast<double>(f->SerializedSize());
}
EMSCRIPTEN_KEEPALIVE uint32_t cf_sub_filter_count(const ScalableCuckooFilter* f) {
  return f->sub_filter_count();
}

EMSCRIPTEN_KEEPALIVE int bf_add(ScalableBloomFilter* f, const uint8_t* key, size_t len) {
  return static_cast<int>(f->Add(key, len));
}
EMSCRIPTEN_KEEPALIVE int bf_contain(const ScalableBloomFilter* f, const uint8_t* key, size_t len) {
  return f->Contain(key, len) ? 1 : 0;
}
EMSCRIPTEN_KEEPALIVE uint32_t bf_add_batch(ScalableBloomFilter* f, const uint8_t* keys,
                                           const uint32_t* offsets, uint32_t n, int32_t* status) {
  return AddBatchExport(f, keys, offsets, n, status);
}
EMSCRIPTEN_KEEPALIVE void bf_contain_batch(const ScalableBloomFilter* f, const uint8_t* keys,
                                           const uint32_t* offsets, uint32_t n, uint8_t* results) {
  f->ContainBatch(keys, offsets, n, results);
}
EMSCRIPTEN_KEEPALIVE double bf_size(const ScalableBloomFilter* f) {
  return static_cast<double>(f->size());
}
EMSCRIPTEN_KEEPALIVE double bf_serialized_size(const ScalableBloomFilter* f) {
  return static_cast<double>(f->SerializedSize());
}

}  // extern "C"

EMSCRIPTEN_BINDINGS(cuckoo_wasm) {
  using emscripten::function;
  function("create", &Create);
  function("serializedSizeFor", &SerializedSizeFor);
  function("deserialize", &Deserialize);
  function("destroy", &Destroy);
  function("info", &Info);
  function("serialize", &Serialize);
  function("bloomCreate", &BloomCreate);
  function("bloomSerializedSizeFor", &BloomSerializedSizeFor);
  function("bloomDeserialize", &BloomDeserialize);
  function("bloomDestroy", &BloomDestroy);
  function("bloomInfo", &BloomInfo);
  function("bloomSerialize", &BloomSerialize);
  function("bloomCompatible", &BloomCompatible);
  function("bloomUnion", &BloomUnion);
  function("statusMessage", &Message);
  function("allocatedBytes", &AllocatedBytes);
}
