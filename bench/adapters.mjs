// The implementations the harness knows, by the name used with --impl: one
// adapter each, a common interface like FastFilter's FilterAPI, so one harness
// (worker.mjs) times and checks every filter. An adapter has name, kind,
// version (set by init()), init(), create(n, ε[, sizing]) → filter and
// deserialize(bytes) → filter (either may return a promise; sizing { bits,
// hashes } is the m and k a Bloom filter adapter may be given instead of n and
// ε). A filter has add(key) → boolean (false: the implementation refused the
// key), has(key) → boolean, serialize() → Uint8Array, memory() → { bytes, how }
// | null (null: the harness measures the heap; may return a promise),
// params() → string, dispose(); and where the implementation has them:
// addAll(keys), hasAll(keys) → boolean[], delete(key) → boolean, rawBits();
// this package's filters also give `filter` (the object itself, for callers
// that time its own methods, bench/batch.mjs) and hasUrl / hasAllUrls / addUrls.
//
// The module also loads in a browser page (bench/browser.mjs serves bench/ at
// /bench/ and dist/ at /dist/): Node's built-ins are imported only in Node, and
// files are found relative to this module's URL. bloomfilter, this package and
// the JS Set run there; the CommonJS peers need Node.
import { bloomSizing } from './stats.mjs';

const inNode = typeof process !== 'undefined' && !!process.versions?.node;
const requireIn = async (id) => (await import('node:module')).createRequire(import.meta.url)(id);
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const json = (value) => encoder.encode(JSON.stringify(value));
const unjson = (bytes) => JSON.parse(decoder.decode(bytes));
/** A file of the bench package's node_modules, by URL (the same file Node's resolution finds). */
const moduleFile = (path) => new URL(`./node_modules/${path}`, import.meta.url);
/** Installed version of a peer, read from the bench package's node_modules (some exports maps hide package.json). */
async function pkgVersion(name) {
  const file = moduleFile(`${name}/package.json`);
  const text = inNode ? (await import('node:fs')).readFileSync(file, 'utf8') : await (await fetch(file)).text();
  return `${name}@${JSON.parse(text).version}`;
}
/** dist/index.mjs beside bench/, or the build named by CUCKOO_BENCH_DIST (a file URL; bench/batch.mjs's A/B runs). */
const dist = () => import((inNode && process.env.CUCKOO_BENCH_DIST) || new URL('../dist/index.mjs', import.meta.url).href);

// ---------------------------------------------------------------------------
// This package (dist/index.mjs, built by `bash scripts/build.sh`): add/has (and
// delete for CuckooFilter) one key per call; addAll/hasAll cross into wasm once
// per batch; toBytes/fromBytes are docs/FORMAT.md. CuckooFilter: b = 4 (f = 10
// for 1%, 13 for 0.1%). BloomFilter: m = ⌈−N ln ε / (ln 2)²⌉, k = round(m/N ·
// ln 2), k positions from one XXH3-64 hash (format version 3), no delete.
// `past` > 1 with `expansion`: created for capacity ⌈N / past⌉ and given all N
// keys (grown 8×: sub-filters for C, 2C, 4C, 8C keys at rates ε/2 … ε/16),
// compared with the same filter sized for N from the start.

// `sizing(n, ε)` → create options, and `describe(f)` → params, replace those of
// CuckooFilter / BloomFilter for the Redis families (below).
function ours(className, { name, kind, past = 1, expansion = 0, options: extra = {}, sizing, describe }) {
  let lib;
  const cuckoo = className === 'CuckooFilter' || className === 'RedisCuckooFilter';
  const wrap = (f, allocatedBefore) => ({
    add(key) {
      f.add(key); // throws FilterFullError when full: the harness reports it
      return true;
    },
    has: (key) => f.has(key),
    delete: cuckoo ? (key) => f.delete(key) : undefined,
    addAll: (keys) => f.addAll(keys),
    hasAll: (keys) => f.hasAll(keys),
    addUrls: (urls) => f.addUrls(urls),
    hasUrl: (url) => f.hasUrl(url),
    hasAllUrls: (urls) => f.hasAllUrls(urls),
    filter: f,
    serialize: () => f.toBytes(),
    /** Bytes allocated in wasm memory by create + build (the table and the filter object); a loaded filter: its byteLength. */
    async memory() {
      if (allocatedBefore == null) return { bytes: f.byteLength, how: 'toBytes() length' };
      return { bytes: (await lib.wasmMemoryUsage()).allocatedBytes - allocatedBefore, how: 'wasm memory allocated by create + build (wasmMemoryUsage)' };
    },
    params() {
      if (describe) return describe(f);
      const growth = f.expansion ? ` expansion=${f.expansion} sub-filters=${f.subFilterCount}` : '';
      return (cuckoo ? `f=${f.fingerprintBits} b=${f.bucketSize} m=${f.bucketCount} α=${f.loadFactor.toFixed(3)}${f.encoding === 'semi-sorted' ? ' semi-sorted' : ''}` : `m=${f.bitCount} bits k=${f.hashCount}`) + growth;
    },
    dispose: () => f.dispose(),
  });
  return {
    name,
    kind,
    version: 'dist/index.mjs',
    async init() {
      lib = await dist();
    },
    async create(n, eps) {
      const before = (await lib.wasmMemoryUsage()).allocatedBytes;
      const options = sizing ? sizing(n, eps) : { capacity: Math.max(1, Math.ceil(n / past)), falsePositiveRate: eps, ...extra };
      if (expansion) options.expansion = expansion;
      return wrap(await lib[className].create(options), before);
    },
    deserialize: async (bytes) => wrap(await lib[className].fromBytes(bytes)),
  };
}

// ---------------------------------------------------------------------------
// This package's RedisBloom families (answers and SCANDUMP bytes as the
// server's: MurmurHash64A, 8-bit fingerprints / RedisBloom's bit positions),
// sized as a Redis user would for N keys at ε:
// RedisCuckooFilter: CF.RESERVE key N (bucket size 2, the server's default;
// 2^⌈log2(N/2)⌉ buckets, expansion 1). Its ε is not a parameter: one byte per
// fingerprint (h % 255 + 1) gives at most 2b/255 ≈ 1.57% per sub-filter
// whatever ε is asked for; bucket size 1 would halve the bound but fills at
// about half load and grows.
// RedisBloomFilter: BF.RESERVE key ε N NONSCALING, so that its one link is
// sized for ε itself (a scaling filter sizes its first link for ε/2):
// bits per key −ln ε / ln²2 rounded up to a multiple of 64 bits, k = ⌈ln 2 ·
// bits per key⌉.

const redisCuckoo = (n) => ({ capacity: Math.max(1, n), bucketSize: 2 });
const redisBloom = (n, eps) => ({ errorRate: Math.min(eps, 0.25), capacity: Math.max(1, n), nonScaling: true });
const describeRedis = (f) => {
  const i = f.info();
  return 'bucketSize' in i
    ? `CF b=${i.bucketSize} buckets=${i.numberOfBuckets} sub-filters=${i.numberOfFilters} fingerprint=8 bits`
    : `BF capacity=${i.capacity} links=${i.numberOfFilters} size=${i.size} bytes${i.expansionRate === null ? ' nonscaling' : ''}`;
};

/** m and k of this package's BloomFilter for n keys at ε: { bits, hashes }. */
export async function bloomFilterSize(n, eps) {
  const f = await (await dist()).BloomFilter.create({ capacity: n, falsePositiveRate: eps });
  const size = { bits: f.bitCount, hashes: f.hashCount };
  f.dispose();
  return size;
}

// ---------------------------------------------------------------------------
// The peers on npm (bench/package.json), each serialized as its README shows.

/** An adapter over a JS object `c` with methods named by `ops`, whose memory the harness measures as heap growth. */
function peer({ name, kind, pkg, init, create, deserialize, ops, keepsKeys = false }) {
  const wrap = (c, note) => ({
    add: ops.add(c),
    has: ops.has(c),
    delete: ops.delete?.(c),
    serialize: () => ops.serialize(c),
    memory: () => ops.memory?.(c) ?? null,
    rawBits: ops.rawBits && (() => ops.rawBits(c)),
    params: () => note ?? ops.params(c),
    dispose() {},
  });
  let lib;
  return {
    name,
    kind,
    keepsKeys,
    async init() {
      this.version = pkg ? await pkgVersion(pkg) : inNode ? `node ${process.version}` : 'JS in the page';
      lib = await init();
    },
    create: (n, eps, sizing) => wrap(...[].concat(create(lib, n, eps, sizing))),
    deserialize: (bytes) => wrap(...[].concat(deserialize(lib, bytes))),
  };
}

/** One of bloom-filters' classes: Class.create(n, ε), has(key), saveAsJSON() / Class.fromJSON. */
function bloomFilters(className, name, kind, ops) {
  return peer({
    name,
    kind,
    pkg: 'bloom-filters',
    init: async () => (await requireIn('bloom-filters'))[className],
    create: (Class, n, eps) => Class.create(n, eps),
    deserialize: (Class, bytes) => Class.fromJSON(unjson(bytes)),
    ops: { has: (f) => (key) => f.has(key), serialize: (f) => json(f.saveAsJSON()), ...ops },
  });
}

const CF_BUCKET = 4;

export const ADAPTERS = {
  // CuckooFilter with bit-packed buckets (semiSort: false), and with semi-sorted ones (semiSort: true, Fan et
  // al. 2014 §5.2: one bit per item less; the default for b = 4).
  'cuckoo-wasm': ours('CuckooFilter', { name: 'cuckoo-wasm', kind: 'cuckoo filter, bit-packed (this package, C++ → wasm)', options: { semiSort: false } }),
  'cuckoo-wasm-semi': ours('CuckooFilter', { name: 'cuckoo-wasm semi-sorted', kind: 'cuckoo filter, semi-sorted buckets (this package)', options: { semiSort: true } }),
  'cuckoo-wasm-bloom': ours('BloomFilter', { name: 'cuckoo-wasm BloomFilter', kind: 'Bloom filter (this package, C++ → wasm)' }),
  // RedisBloom's CF and BF families of this package (sized as above).
  'cuckoo-wasm-redis-cf': ours('RedisCuckooFilter', { name: 'cuckoo-wasm RedisCuckooFilter', kind: 'RedisBloom cuckoo filter, CF.* (this package)', sizing: redisCuckoo, describe: describeRedis }),
  'cuckoo-wasm-redis-bf': ours('RedisBloomFilter', { name: 'cuckoo-wasm RedisBloomFilter', kind: 'RedisBloom Bloom filter, BF.* (this package)', sizing: redisBloom, describe: describeRedis }),
  // bloomfilter@1.1.0 (Jason Davies): Uint32Array, 64-bit FNV-1a, enhanced double hashing; sized with the
  // standard m and k (it rounds m up to a multiple of 32), or given `sizing` { bits, hashes }: the comparison
  // gives it this package's BloomFilter's m and k. JSON.stringify(bloom) / BloomFilter.fromJSON; its raw bit
  // array is reported too.
  bloomfilter: peer({
    name: 'bloomfilter',
    kind: 'Bloom filter',
    pkg: 'bloomfilter',
    init: async () => (await import(inNode ? 'bloomfilter' : moduleFile('bloomfilter/bloomfilter.js').href)).BloomFilter,
    create: (BloomFilter, n, eps, sizing) => {
      const { bits, hashes } = sizing ?? bloomSizing(n, eps);
      return new BloomFilter(bits, hashes);
    },
    deserialize: (BloomFilter, bytes) => BloomFilter.fromJSON(decoder.decode(bytes)),
    ops: {
      add: (b) => (key) => (b.add(key), true), // every key is accepted
      has: (b) => (key) => b.test(key),
      serialize: (b) => json(b),
      memory: (b) => ({ bytes: b.buckets.byteLength, how: 'bit array (Uint32Array buckets)' }),
      rawBits: (b) => b.buckets.byteLength * 8,
      params: (b) => `m=${b.m} bits k=${b.k}`,
    },
  }),
  // bloom-filters@3.0.4 BloomFilter: a bit set over a Uint8Array, two xxhashjs XXH64 hashes per key, double
  // hashing; BloomFilter.create(n, ε) (m = ⌈−n ln ε / (ln 2)²⌉, k = ⌈m/n ln 2⌉); saveAsJSON (base64) / fromJSON.
  'bloom-filters-bloom': bloomFilters('BloomFilter', 'bloom-filters Bloom', 'Bloom filter', {
    add: (b) => (key) => (b.add(key), true), // every key is accepted
    memory: (b) => ({ bytes: b._filter.array.byteLength, how: 'bit set (Uint8Array)' }),
    params: (b) => `m=${b.size} bits k=${b._nbHashes}`,
  }),
  // bloom-filters@3.0.4 CuckooFilter: bucket objects holding hex-string fingerprints, xxhashjs XXH64;
  // CuckooFilter.create(n, ε) (b = 4, 500 kicks, ⌈n / 4 / 0.955⌉ buckets); add returns false when full.
  // saveAsJSON / fromJSON.
  'bloom-filters-cuckoo': bloomFilters('CuckooFilter', 'bloom-filters Cuckoo', 'cuckoo filter', {
    add: (c) => (key) => c.add(key),
    delete: (c) => (key) => c.remove(key),
    params: (c) => `buckets=${c.size} b=${c.bucketSize} fingerprint=${c.fingerprintLength} hex chars`,
  }),
  // cuckoo-filter@1.1.4 (vijayee): Fingerprint objects holding Buffers. Its index.js also loads
  // ScalableCuckooFilter, which needs 'cbor-js', a module the package does not declare, so the class is
  // loaded from src/cuckoo-filter.js. b = 4, ⌈n / 4 / 0.955⌉ buckets, fingerprint bytes =
  // ⌈⌈log2(2b/ε)⌉ / 8⌉ (2 for 1% and 0.1%); add returns false when it gives up. toJSON / fromJSON.
  'cuckoo-filter': peer({
    name: 'cuckoo-filter',
    kind: 'cuckoo filter',
    pkg: 'cuckoo-filter',
    init: async () => requireIn('cuckoo-filter/src/cuckoo-filter.js'),
    create: (CuckooFilter, n, eps) => {
      const buckets = Math.ceil(n / CF_BUCKET / 0.955);
      const fpBytes = Math.ceil(Math.ceil(Math.log2((2 * CF_BUCKET) / eps)) / 8);
      return [new CuckooFilter(buckets, CF_BUCKET, fpBytes), `buckets=${buckets} b=${CF_BUCKET} fingerprint=${fpBytes} bytes`];
    },
    deserialize: (CuckooFilter, bytes) => {
      const j = unjson(bytes);
      return [CuckooFilter.fromJSON(j), `buckets=${j.cfSize} b=${j.bSize} fingerprint=${j.fpSize} bytes`];
    },
    ops: {
      add: (c) => (key) => c.add(key),
      has: (c) => (key) => c.contains(key),
      delete: (c) => (key) => c.remove(key),
      serialize: (c) => json(c.toJSON()),
    },
  }),
  // A JavaScript Set of the key strings: exact, the baseline. Its memory is the V8 heap growth while it is
  // built plus the heap of the key strings (a Set must keep its keys: keepsKeys). JSON array of the keys.
  set: peer({
    name: 'JS Set',
    kind: 'exact set (baseline)',
    keepsKeys: true,
    init: async () => Set,
    create: () => new Set(),
    deserialize: (_, bytes) => new Set(unjson(bytes)),
    ops: {
      add: (s) => (key) => (s.add(key), true), // every key is accepted
      has: (s) => (key) => s.has(key),
      delete: (s) => (key) => s.delete(key),
      serialize: (s) => json(Array.from(s)),
      params: (s) => `exact, ${s.size} strings`,
    },
  }),
  // Only in the Bloom-or-cuckoo comparison (run.mjs --only compare), not by default:
  'cuckoo-wasm-grown': ours('CuckooFilter', { name: 'cuckoo-wasm, grown 8×', kind: 'cuckoo filter with growth (this package)', past: 8, expansion: 2, options: { semiSort: false } }),
  'cuckoo-wasm-bloom-grown': ours('BloomFilter', { name: 'cuckoo-wasm BloomFilter, grown 8×', kind: 'Bloom filter with growth (this package)', past: 8, expansion: 2 }),
};

/** The implementations a run compares when --impl is not given. */
export const DEFAULT_IMPLS = ['cuckoo-wasm', 'cuckoo-wasm-semi', 'cuckoo-wasm-bloom', 'cuckoo-wasm-redis-cf', 'cuckoo-wasm-redis-bf', 'bloomfilter', 'bloom-filters-bloom', 'bloom-filters-cuckoo', 'cuckoo-filter', 'set'];

export async function loadAdapter(name) {
  const adapter = ADAPTERS[name];
  if (!adapter) throw new Error(`unknown implementation '${name}'; known: ${Object.keys(ADAPTERS).join(', ')}`);
  await adapter.init();
  return adapter;
}
