// The read-only entry (cuckoo-wasm/reader) answers exactly as the
// full entry: the same bytes in give the same answers, the same bytes out and
// the same typed errors. Filters of every family are built with the full entry
// (dist/node.cjs), then the same bytes are loaded in both entries and every
// read is done in both and compared: has / hasAll (with and without `out`) /
// count, the URL methods, toBytes byte for byte, info(), every getter, a real
// patch (applyPatch, applyPatchBytes, patchInfo), canonicalizeUrl /
// urlExpressions, dispose; then hostile bytes and hostile patches, where both
// must throw the same error class name, message, code and typed fields. The
// reader is a separate bundle, so its error classes are other class objects:
// errors are compared by constructor name and fields, and each is checked to
// be an instance of its own entry's exported class of that name.
//
// The reader is dist/reader-node.cjs (the "node" condition's CommonJS file),
// required by path so that this test needs no Jest mapping of its own.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as fc from 'fast-check';
import * as full from 'cuckoo-wasm';
import type { Key } from 'cuckoo-wasm';
import { loadLists } from './data';
import { chunksOf, fixtureNames, loadFixture, loadItems } from './redis-fixtures';
import { canonVectors, expressionVectors, type UrlInput } from './vectors';
import { seal, sealed } from './xxh3';

const root = join(__dirname, '..', '..');
const READER = join(root, 'dist', 'reader-node.cjs');
const FULL = join(root, 'dist', 'node.cjs');

/** What this test calls on a filter of either entry (the reader's API, which the full entry's includes). */
interface ReadFilter {
  has(key: Key): boolean;
  hasAll(keys: Iterable<Key> | ArrayLike<Key>): boolean[];
  hasAll(keys: Iterable<Key> | ArrayLike<Key>, out: Uint8Array): Uint8Array;
  count?(key: Key): number;
  hasUrl(url: Key): boolean;
  matchUrl(url: Key): string | null;
  hasAllUrls(urls: Iterable<Key> | ArrayLike<Key>): boolean[];
  hasAllUrls(urls: Iterable<Key> | ArrayLike<Key>, out: Uint8Array): Uint8Array;
  applyPatch(patch: Uint8Array | ArrayBuffer): void;
  toBytes(): Uint8Array;
  info(): object;
  dispose(): void;
  readonly disposed: boolean;
}
interface ReadClass {
  fromBytes(bytes: unknown): Promise<ReadFilter>;
  prototype: object;
}
/** Either entry as this test uses it. */
interface Entry {
  canonicalizeUrl(url: unknown): Promise<string>;
  urlExpressions(url: unknown): Promise<string[]>;
  applyPatchBytes(base: unknown, patch: unknown): Promise<Uint8Array>;
  patchInfo(patch: unknown): Promise<object>;
  initWasm(source: unknown): Promise<void>;
  [name: string]: unknown;
}

const CLASSES = ['CuckooFilter', 'BloomFilter', 'RedisCuckooFilter', 'RedisBloomFilter'] as const;
type ClassName = (typeof CLASSES)[number];
/** What the reader exports besides the error classes. */
const READER_EXPORTS = [...CLASSES, 'canonicalizeUrl', 'urlExpressions', 'applyPatchBytes', 'patchInfo', 'initWasm', 'FilterFeed', 'MemoryFeedStore', 'FileFeedStore', 'IndexedDbFeedStore'];
/** The methods a reader's filter has (count on the cuckoo families only). */
const READ_METHODS = ['has', 'hasAll', 'hasUrl', 'matchUrl', 'hasAllUrls', 'applyPatch', 'toBytes', 'info', 'dispose'];
/** What creates or changes keys, or a filter, in the full entry: none of it is in the reader. */
const WRITERS = ['add', 'addAll', 'addUrl', 'addUrls', 'delete', 'addUnique', 'addNew', 'union', 'compact', 'diff', 'toScanDump'];
const STATIC_WRITERS = ['create', 'fromScanDump', 'scanDumpLoader'];

const haveReader = existsSync(READER);
if (!haveReader) console.log(`reader.test: ${READER} is not built; the comparison is skipped (scripts/build.sh builds it)`);
const maybe = haveReader ? describe : describe.skip;

const F = full as unknown as Entry;
const R: Entry = haveReader ? (require(READER) as Entry) : F;
const cls = (entry: Entry, name: ClassName) => entry[name] as ReadClass;

// ---------------------------------------------------------------------------------------------------------------
// Outcomes: what a call gave, in a form that compares across the two bundles.

interface ErrorShape {
  class: string;
  name: string;
  message: string;
  code: unknown;
  reason: unknown;
  index: unknown;
  requestedBytes: unknown;
  added: unknown;
  /** The built-in class it extends (shared by both bundles: the same realm). */
  builtin: string;
  /** True if it is an instance of its own entry's exported class of its name (or a built-in error). */
  ownClass: boolean;
}
type Outcome = { value: unknown } | { error: ErrorShape };

function shapeOf(entry: Entry, e: unknown): ErrorShape {
  if (typeof e !== 'object' || e === null || !('message' in e)) {
    return { class: typeof e, name: String(e), message: '', code: undefined, reason: undefined, index: undefined, requestedBytes: undefined, added: undefined, builtin: 'none', ownClass: true };
  }
  const x = e as Error & Record<string, unknown>;
  const name = x.constructor.name;
  const exported = entry[name];
  return {
    class: name,
    name: x.name,
    message: x.message,
    code: x.code,
    reason: x.reason,
    index: x.index,
    requestedBytes: x.requestedBytes,
    added: x.added,
    builtin: builtinOf(x),
    // By name along the chain: errors thrown by Node.js itself come from another realm than Jest's globals.
    ownClass: typeof exported === 'function' ? x instanceof (exported as new () => Error) : true,
  };
}

/** The built-in error class `e` extends, by name along its prototype chain (realm-independent). */
function builtinOf(e: object): string {
  for (let p = Object.getPrototypeOf(e); p; p = Object.getPrototypeOf(p)) {
    const n = p.constructor?.name;
    if (n === 'TypeError' || n === 'RangeError' || n === 'Error') return n;
  }
  return 'none';
}

/** A short, printable name of any argument (String() of a detached view throws). */
function shown(x: unknown): string {
  if (x instanceof Uint8Array) {
    const n = x.byteLength;
    return n === 0 && x.buffer.byteLength === 0 ? 'Uint8Array (empty or detached)' : `bytes ${Buffer.from(x.buffer, x.byteOffset, Math.min(n, 24)).toString('hex')}`;
  }
  if (typeof x === 'symbol') return x.toString();
  try {
    return String(x).slice(0, 80);
  } catch {
    return Object.prototype.toString.call(x);
  }
}

const digest = (b: Uint8Array) => `${b.length} bytes, sha256 ${createHash('sha256').update(b).digest('hex')}`;

/** A value as compared: bytes by length and digest, a filter by class, bytes and info (then disposed). */
function normal(value: unknown): unknown {
  if (value instanceof Uint8Array) return { bytes: digest(value) };
  if (value !== null && typeof value === 'object' && typeof (value as ReadFilter).toBytes === 'function') {
    const f = value as ReadFilter;
    const r = { filter: f.constructor.name, bytes: digest(f.toBytes()), info: f.info() };
    f.dispose();
    return r;
  }
  return value;
}

function run(entry: Entry, call: () => unknown): Outcome {
  try {
    return { value: normal(call()) };
  } catch (e) {
    return { error: shapeOf(entry, e) };
  }
}

async function runAsync(entry: Entry, call: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { value: normal(await call()) };
  } catch (e) {
    return { error: shapeOf(entry, e) };
  }
}

/** Both outcomes equal, labelled so a failure says what was compared; the reader's errors of its own classes. */
function same(label: string, fullOutcome: Outcome, readerOutcome: Outcome): void {
  expect({ label, reader: readerOutcome }).toEqual({ label, reader: fullOutcome });
  if ('error' in readerOutcome) expect({ label, ownClass: readerOutcome.error.ownClass }).toEqual({ label, ownClass: true });
}

/** `call` on both entries' filters, compared. */
function both<T>(label: string, pair: Pair, call: (f: ReadFilter) => T): void {
  same(label, run(F, () => call(pair.full)), run(R, () => call(pair.reader)));
}

async function bothAsync(label: string, call: (entry: Entry) => Promise<unknown>): Promise<void> {
  same(label, await runAsync(F, () => call(F)), await runAsync(R, () => call(R)));
}

/** fromBytes of `bytes` in both entries' class `name`: both outcomes compared (and any filter disposed). */
async function loadBoth(label: string, name: ClassName, bytes: () => unknown): Promise<void> {
  await bothAsync(`${label}: ${name}.fromBytes`, (entry) => cls(entry, name).fromBytes(bytes()));
}

interface Pair {
  full: ReadFilter;
  reader: ReadFilter;
}

async function open(name: ClassName, bytes: Uint8Array): Promise<Pair> {
  return { full: await cls(F, name).fromBytes(bytes.slice()), reader: await cls(R, name).fromBytes(bytes.slice()) };
}

/** Names of the getters along `proto`'s chain. */
function getterNames(proto: object | null): string[] {
  const names = new Set<string>();
  for (let p = proto; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const [k, d] of Object.entries(Object.getOwnPropertyDescriptors(p))) if (d.get && !INTERNAL.includes(k)) names.add(k);
  }
  return [...names].sort();
}

/** What only the full entry's writers use to add keys: none of it is on a reader's filter. */
const WRITER_MACHINERY = ['addKeys', 'addChunk', 'addUrlChunk', 'fullError', 'addError', 'addIfNew', 'lastFailure', 'refusedUrl'];

/** The members no user reads (the boundary's state, the full entry's writer core and messages): not compared. */
const INTERNAL = ['pending', 'core', 'object', 'handle', 'familyId', 'fx', 'fullText', 'writer'];
/** Where the library puts dispose: Symbol.dispose, or (Node.js 20 in Jest's realm) the symbol `using` falls back to. */
const disposeKey: symbol = (Symbol as { dispose?: symbol }).dispose ?? Symbol.for('Symbol.dispose');

/** Names of the public read-only fields a filter holds itself (fingerprintBits, seed, errorRate, ...). */
function fieldNames(f: object): string[] {
  return Object.getOwnPropertyNames(f)
    .filter((k) => !INTERNAL.includes(k))
    .sort();
}

/** The read-only properties of a filter: its public fields and every getter of its class. */
function propertyNames(f: object): string[] {
  return [...fieldNames(f), ...getterNames(Object.getPrototypeOf(f))];
}

/** Names of the methods along `proto`'s chain. */
function methodNames(proto: object | null): string[] {
  const names = new Set<string>();
  for (let p = proto; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const [k, d] of Object.entries(Object.getOwnPropertyDescriptors(p))) if (typeof d.value === 'function' && k !== 'constructor') names.add(k);
  }
  return [...names].sort();
}

// ---------------------------------------------------------------------------------------------------------------
// The data: real domains, real phishing URLs (../shared/data, else the in-repo samples), tricky keys and URLs.

const lists = loadLists();
const memberSet = new Set(lists.blocklist);
const MEMBERS = lists.blocklist.slice(0, 2500);
const NON_MEMBERS = lists.benign.filter((d) => !memberSet.has(d)).slice(0, 2500);

function phishingUrls(): { source: string; urls: string[] } | undefined {
  const lines = (p: string) => readFileSync(p, 'utf8').split('\n').filter((s) => s.length > 0);
  const shared = join(root, '..', 'shared', 'data', 'phishing_urls.txt');
  if (existsSync(shared)) return { source: '../shared/data', urls: lines(shared) };
  const sample = join(root, 'examples', 'data', 'phishing-urls-sample.txt');
  if (existsSync(sample)) return { source: 'in-repo sample', urls: lines(sample) };
  return undefined;
}
const phishing = phishingUrls();
if (!phishing) console.log('reader.test: no phishing URLs (../shared/data or examples/data); the URL filters hold domains only');
const URLS = (phishing?.urls ?? []).slice(0, 800);

/** Keys of every kind: strings (empty, unicode, long, lone surrogate) and bytes (empty, zero, not UTF-8). */
const ODD_KEYS: Key[] = [
  '',
  'a',
  'bücher.example',
  '日本語.example',
  '\u{1F600}.example',
  '\ud800',
  'x'.repeat(5000),
  new Uint8Array(0),
  new Uint8Array([0]),
  new Uint8Array([0xff, 0xfe, 0x80]),
  new Uint8Array(Buffer.from('example.com')),
  new Uint8Array(Buffer.from('  padded.example ')).subarray(2, 16),
];
/** Not keys: each must be refused with the same ArgumentTypeError. */
const NOT_KEYS: unknown[] = [undefined, null, 42, 1n, {}, [], new Uint16Array(2), new DataView(new ArrayBuffer(2)), Symbol('k')];

function detachedBytes(): Uint8Array {
  const b = new Uint8Array(Buffer.from('detached.example'));
  structuredClone(b.buffer, { transfer: [b.buffer] });
  return b;
}

/** URLs to check: the listed ones and forms of them that must still match, benign ones, odd and invalid ones. */
function urlQueries(): Key[] {
  const listed = URLS.slice(0, 400);
  const variants = listed.slice(0, 200).flatMap((u) => [
    `${u}#fragment`,
    u.replace(/^(https?:\/\/)([^/]+)/, (_, s: string, h: string) => `${s}${h.toUpperCase()}`),
    u.replace(/^(https?:\/\/[^/?#]+)\/?/, '$1/deeper/path/page.html?x=1&'),
    u.replace(/^(https?:\/\/)/, '$1www.'),
  ]);
  const benign = NON_MEMBERS.slice(0, 400).map((d) => `https://${d}/`);
  const domains = MEMBERS.slice(0, 200).map((d) => `http://${d}/some/page?q=1`);
  return [...listed, ...variants, ...benign, ...domains, ...TRICKY_URLS.filter((u) => typeof u === 'string' || u instanceof Uint8Array)];
}

/** URLs at the edges of the rules, valid and not. */
const TRICKY_URLS: UrlInput[] = [
  'http://www.google.com/',
  'HTTP://www.GOOGLE.com:80/a/../b/./c?q=1#frag',
  'http://0x7f.1/',
  'http://3279880203/blah',
  'http://[::1]/path',
  'http://[2001:db8::1]:8080/',
  'http://user:pass@host.example/x',
  'http://a..b..example/',
  'http://host.example/%25%32%35',
  'http://host.example/%zz',
  'http://bücher.example/ä?ö=ü',
  'http://xn--bcher-kva.example/',
  'https://evil.example\\login',
  '  http://spaces.example/  ',
  'http://\t\ntabs.example/',
  'ftp://files.example/pub/',
  'javascript:alert(1)',
  'data:text/html,hi',
  'mailto:someone@example.com',
  'http://',
  'http:///path',
  'http://./',
  'http://host.example:99999/',
  'http://[::1/',
  'http://exa mple.com/',
  '//no-scheme.example/',
  'no-scheme.example/path',
  '',
  ' ',
  '#',
  `http://long.example/${'a'.repeat(9000)}`,
  `http://${'l'.repeat(300)}.example/`,
  `http://${Array.from({ length: 40 }, (_, i) => `s${i}`).join('.')}.example/${Array.from({ length: 40 }, (_, i) => `d${i}`).join('/')}/`,
  new Uint8Array(Buffer.from('http://bytes.example/path')),
  new Uint8Array([0x68, 0x74, 0x74, 0x70, 0x3a, 0x2f, 0x2f, 0xff, 0x2f]), // "http://\xff/": not UTF-8
  new Uint8Array(0),
];

// ---------------------------------------------------------------------------------------------------------------
// The filters, built with the full entry: the bytes under test, a patch to a newer version, what to ask.

interface Scenario {
  name: string;
  cls: ClassName;
  bytes: Uint8Array;
  /** The bytes of a newer version and the patch from `bytes` to it (the full entry's diff). */
  newer: Uint8Array;
  patch: Uint8Array;
  /** Keys to ask: members and not. */
  keys: Key[];
  urls: Key[];
  /** At least this many sub-filters (a grown filter). */
  minSubFilters?: number;
  /** True if it holds URL entries (the filters built here, when there are phishing URLs). */
  holdsUrls?: boolean;
}

type FullFilter = full.CuckooFilter | full.BloomFilter | full.RedisCuckooFilter | full.RedisBloomFilter;

/** Adds keys with the full entry, ignoring FilterFullError (a filter that does not grow keeps what fitted). */
function fill(f: FullFilter, keys: Key[], urls: string[]): void {
  for (const k of keys) {
    try {
      f.add(k);
    } catch (e) {
      if (!(e instanceof full.FilterFullError)) throw e;
    }
  }
  for (const u of urls) {
    try {
      f.addUrl(u);
    } catch (e) {
      if (!(e instanceof full.FilterFullError || e instanceof full.InvalidUrlError)) throw e;
    }
  }
}

/** A newer version of `bytes` (more keys and URLs; some deleted where the family deletes) and the patch to it. */
async function newerOf(name: ClassName, bytes: Uint8Array): Promise<{ newer: Uint8Array; patch: Uint8Array }> {
  const f = (await (full[name] as unknown as ReadClass).fromBytes(bytes)) as unknown as FullFilter;
  fill(f, Array.from({ length: 300 }, (_, i) => `newer-${i}.example`), URLS.slice(800, 900));
  if ('delete' in f) for (const k of MEMBERS.slice(0, 100)) f.delete(k);
  const newer = f.toBytes();
  const patch = f.diff(bytes);
  f.dispose();
  return { newer, patch };
}

async function built(name: string, className: ClassName, make: () => Promise<FullFilter>, minSubFilters?: number): Promise<Scenario> {
  const f = await make();
  fill(f, [...MEMBERS, ...ODD_KEYS], URLS);
  if ('delete' in f) for (const k of MEMBERS.slice(2000, 2100)) f.delete(k);
  const bytes = f.toBytes();
  f.dispose();
  return { name, cls: className, bytes, ...(await newerOf(className, bytes)), keys: queryKeys(), urls: urlQueries(), minSubFilters, holdsUrls: URLS.length > 0 };
}

function queryKeys(): Key[] {
  return [...MEMBERS, ...NON_MEMBERS, ...ODD_KEYS, ...MEMBERS.slice(0, 50).map((d) => d.toUpperCase())];
}

/** Every family and encoding, built here; the golden files; the RedisBloom server's own dumps. */
async function scenarios(): Promise<Scenario[]> {
  const out: Scenario[] = [
    await built('cuckoo (bit-packed)', 'CuckooFilter', () => full.CuckooFilter.create({ capacity: 4000, falsePositiveRate: 0.001, semiSort: false, seed: 7 })),
    await built('cuckoo (semi-sorted)', 'CuckooFilter', () => full.CuckooFilter.create({ capacity: 4000, falsePositiveRate: 0.001, semiSort: true, bucketSize: 4 })),
    await built('growing cuckoo (bit-packed)', 'CuckooFilter', () => full.CuckooFilter.create({ capacity: 300, expansion: 2, semiSort: false, seed: 3n }), 3),
    await built('growing cuckoo (semi-sorted)', 'CuckooFilter', () => full.CuckooFilter.create({ capacity: 300, expansion: 2, semiSort: true, bucketSize: 4 }), 3),
    await built('Bloom', 'BloomFilter', () => full.BloomFilter.create({ capacity: 4000, falsePositiveRate: 0.01, seed: 11 })),
    await built('growing Bloom', 'BloomFilter', () => full.BloomFilter.create({ capacity: 300, falsePositiveRate: 0.01, expansion: 2 }), 3),
    await built('Redis cuckoo', 'RedisCuckooFilter', () => full.RedisCuckooFilter.create({ capacity: 500, expansion: 2 }), 2),
    await built('Redis Bloom', 'RedisBloomFilter', () => full.RedisBloomFilter.create({ errorRate: 0.01, capacity: 500, expansion: 2 }), 2),
  ];
  // The golden files (older format versions included: each is written back in its own version).
  const golden = join(root, 'tests', 'golden');
  const classOf: [RegExp, ClassName][] = [
    [/^redis-cuckoo/, 'RedisCuckooFilter'],
    [/^redis-bloom/, 'RedisBloomFilter'],
    [/^cuckoo/, 'CuckooFilter'],
    [/^bloom/, 'BloomFilter'],
  ];
  for (const file of readdirSync(golden).filter((n) => n.endsWith('.bin') && !n.startsWith('patch-')).sort()) {
    const className = classOf.find(([re]) => re.test(file))?.[1];
    if (!className) continue;
    const bytes = new Uint8Array(readFileSync(join(golden, file)));
    const keys = [...Array.from({ length: 1000 }, (_, i) => `key-${i}`), ...Array.from({ length: 30 }, (_, i) => `k${i}`), ...queryKeys().slice(0, 500)];
    out.push({ name: `golden ${file}`, cls: className, bytes, ...(await newerOf(className, bytes)), keys, urls: urlQueries().slice(0, 200) });
  }
  // The server's dumps (tests/fixtures/redis), read by the full entry's SCANDUMP loader.
  const items = loadItems();
  for (const file of fixtureNames()) {
    const fixture = loadFixture(file);
    const className: ClassName = fixture.type === 'CF' ? 'RedisCuckooFilter' : 'RedisBloomFilter';
    let bytes: Uint8Array;
    try {
      const f = await full[className].fromScanDump(chunksOf(fixture));
      bytes = f.toBytes();
      f.dispose();
    } catch {
      continue; // a dump the server itself would not load again: the SCANDUMP tests' business
    }
    const keys = [...items.members.slice(0, 1500), ...items.nonMembers.slice(0, 1500)];
    out.push({ name: `Redis fixture ${file}`, cls: className, bytes, ...(await newerOf(className, bytes)), keys, urls: urlQueries().slice(0, 100) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

maybe('cuckoo-wasm/reader answers as the full entry', () => {
  let all: Scenario[] = [];

  beforeAll(async () => {
    all = await scenarios();
    console.log(
      `reader.test: ${all.length} filters (${all.map((s) => s.name).join(', ')}); ${MEMBERS.length} members from ${lists.source} lists; ` +
        `${URLS.length} listed URLs from ${phishing?.source ?? 'nowhere (none found)'}`,
    );
  });

  test('the reader is not the full entry (another bundle, another module instance)', () => {
    expect(R).not.toBe(F);
    expect(R.CuckooFilter).not.toBe(F.CuckooFilter);
    expect(require(FULL)).toBe(full);
  });

  describe('exports: the read API and every error class, and no writer', () => {
    test('the reader exports the read API and every error class of the full entry; nothing the full entry does not', () => {
      const errors = Object.keys(F).filter((k) => /Error$/.test(k)).sort();
      expect(errors.length).toBeGreaterThanOrEqual(9);
      for (const name of [...READER_EXPORTS, ...errors]) expect([name, typeof R[name]]).toEqual([name, 'function']);
      for (const name of Object.keys(R)) expect([name, name in F]).toEqual([name, true]);
      expect('diffBytes' in R).toBe(false);
      // Each error class: same name, code and built-in base as the full entry's, yet its own class object.
      for (const name of errors) {
        const [a, b] = [F[name] as { prototype: Error }, R[name] as { prototype: Error }];
        expect(b).not.toBe(a);
        expect([name, Object.getPrototypeOf(b.prototype).constructor.name, (b.prototype as { code?: string }).code]).toEqual([
          name,
          Object.getPrototypeOf(a.prototype).constructor.name,
          (a.prototype as { code?: string }).code,
        ]);
      }
    });

    test.each(CLASSES)('%s: the read methods and every getter of the full entry; no method that creates or changes keys', (name) => {
      const r = cls(R, name);
      const f = cls(F, name);
      expect('add' in r.prototype).toBe(false);
      for (const w of WRITERS) expect([w, w in r.prototype]).toEqual([w, false]);
      for (const s of STATIC_WRITERS) expect([s, s in r]).toEqual([s, false]);
      expect(typeof r.fromBytes).toBe('function');
      const wanted = [...READ_METHODS, ...(name.endsWith('CuckooFilter') ? ['count'] : [])];
      for (const m of wanted) expect([m, typeof (r.prototype as Record<string, unknown>)[m]]).toEqual([m, 'function']);
      expect(typeof (r.prototype as Record<symbol, unknown>)[disposeKey]).toBe('function');
      // Nothing beyond the full entry's, and nothing of the writers'.
      const fullMethods = methodNames(f.prototype);
      for (const m of methodNames(r.prototype)) expect([m, fullMethods.includes(m), WRITERS.includes(m)]).toEqual([m, true, false]);
      expect(getterNames(r.prototype)).toEqual(getterNames(f.prototype));
      // Nor the writers' protected machinery, as stubs or otherwise.
      for (const m of WRITER_MACHINERY) expect([m, m in r.prototype]).toEqual([m, false]);
    });
  });

  describe('every filter: the same answers and bytes', () => {
    test('loaded in both: toBytes is the input byte for byte, info(), every field and getter equal', async () => {
      for (const s of all) {
        const pair = await open(s.cls, s.bytes);
        expect(Buffer.from(pair.reader.toBytes()).equals(Buffer.from(s.bytes))).toBe(true);
        expect(Buffer.from(pair.full.toBytes()).equals(Buffer.from(s.bytes))).toBe(true);
        both(`${s.name}: info()`, pair, (f) => f.info());
        const getters = propertyNames(pair.full);
        expect([s.name, propertyNames(pair.reader)]).toEqual([s.name, getters]);
        expect(getters.length).toBeGreaterThan(8);
        for (const g of getters) both(`${s.name}: .${g}`, pair, (f) => (f as unknown as Record<string, unknown>)[g]);
        if (s.minSubFilters) both(`${s.name}: grown`, pair, (f) => (f as unknown as { subFilterCount: number }).subFilterCount >= s.minSubFilters!);
        expect((pair.full as unknown as { subFilterCount: number }).subFilterCount).toBeGreaterThanOrEqual(s.minSubFilters ?? 1);
        pair.full.dispose();
        pair.reader.dispose();
      }
    });

    test('has, hasAll (a new array, into out, out too short or not bytes), count: the same answers', async () => {
      for (const s of all) {
        const pair = await open(s.cls, s.bytes);
        for (const k of s.keys) both(`${s.name}: has(${shown(k)})`, pair, (f) => f.has(k));
        both(`${s.name}: hasAll`, pair, (f) => f.hasAll(s.keys));
        const found = pair.reader.hasAll(s.keys).filter(Boolean).length;
        expect([s.name, found > 0, found < s.keys.length]).toEqual([s.name, true, true]); // members and non-members asked
        both(`${s.name}: hasAll(iterable)`, pair, (f) => f.hasAll(new Set(s.keys.slice(0, 300))));
        both(`${s.name}: hasAll(keys, out)`, pair, (f) => Array.from(f.hasAll(s.keys, new Uint8Array(s.keys.length + 3).fill(7))));
        both(`${s.name}: hasAll(keys, short out)`, pair, (f) => f.hasAll(s.keys, new Uint8Array(s.keys.length - 1)));
        both(`${s.name}: hasAll(keys, not bytes)`, pair, (f) => f.hasAll(s.keys, [] as unknown as Uint8Array));
        both(`${s.name}: hasAll([])`, pair, (f) => f.hasAll([]));
        for (const bad of [...NOT_KEYS, detachedBytes()]) {
          both(`${s.name}: has(${shown(bad)})`, pair, (f) => f.has(bad as Key));
          both(`${s.name}: hasAll([ok, ${shown(bad)}])`, pair, (f) => f.hasAll(['ok.example', bad as Key]));
        }
        both(`${s.name}: hasAll(not iterable)`, pair, (f) => f.hasAll(42 as unknown as Key[]));
        if (typeof pair.full.count === 'function') {
          for (const k of s.keys.slice(0, 800)) both(`${s.name}: count(${shown(k)})`, pair, (f) => f.count!(k));
          both(`${s.name}: count(null)`, pair, (f) => f.count!(null as unknown as Key));
        }
        pair.full.dispose();
        pair.reader.dispose();
      }
    });

    test('hasUrl, matchUrl, hasAllUrls (with and without out; an invalid URL in a batch): the same answers and errors', async () => {
      for (const s of all) {
        const pair = await open(s.cls, s.bytes);
        for (const u of s.urls) {
          both(`${s.name}: hasUrl(${shown(u)})`, pair, (f) => f.hasUrl(u));
          both(`${s.name}: matchUrl(${shown(u)})`, pair, (f) => f.matchUrl(u));
        }
        const valid = s.urls.filter((u) => 'value' in run(F, () => pair.full.hasUrl(u)));
        both(`${s.name}: hasAllUrls`, pair, (f) => f.hasAllUrls(valid));
        const matched = pair.reader.hasAllUrls(valid).filter(Boolean).length;
        if (s.holdsUrls) expect([s.name, matched > 0, matched < valid.length]).toEqual([s.name, true, true]);
        both(`${s.name}: hasAllUrls(urls, out)`, pair, (f) => Array.from(f.hasAllUrls(valid, new Uint8Array(valid.length))));
        both(`${s.name}: hasAllUrls with an invalid URL`, pair, (f) => f.hasAllUrls([...valid.slice(0, 20), 'http://', ...valid.slice(20, 40)]));
        both(`${s.name}: hasAllUrls(all, incl. invalid)`, pair, (f) => f.hasAllUrls(s.urls));
        for (const bad of NOT_KEYS) {
          both(`${s.name}: hasUrl(${shown(bad)})`, pair, (f) => f.hasUrl(bad as Key));
          both(`${s.name}: matchUrl(${shown(bad)})`, pair, (f) => f.matchUrl(bad as Key));
        }
        pair.full.dispose();
        pair.reader.dispose();
      }
    });

    test("applyPatch of the full entry's diff: both give the newer bytes; then the same answers; applyPatchBytes and patchInfo equal", async () => {
      for (const s of all) {
        const pair = await open(s.cls, s.bytes);
        both(`${s.name}: applyPatch`, pair, (f) => f.applyPatch(s.patch));
        expect([s.name, Buffer.from(pair.reader.toBytes()).equals(Buffer.from(s.newer))]).toEqual([s.name, true]);
        expect([s.name, Buffer.from(pair.full.toBytes()).equals(Buffer.from(s.newer))]).toEqual([s.name, true]);
        both(`${s.name}: info() after the patch`, pair, (f) => f.info());
        for (const g of propertyNames(pair.full)) both(`${s.name}: .${g} after the patch`, pair, (f) => (f as unknown as Record<string, unknown>)[g]);
        const keys = [...s.keys, ...Array.from({ length: 300 }, (_, i) => `newer-${i}.example`)];
        both(`${s.name}: hasAll after the patch`, pair, (f) => f.hasAll(keys));
        both(`${s.name}: hasAllUrls after the patch`, pair, (f) => f.hasAllUrls(URLS.slice(780, 900)));
        if (typeof pair.full.count === 'function') both(`${s.name}: counts after the patch`, pair, (f) => keys.slice(0, 500).map((k) => f.count!(k)));
        // The same patch again: its base is gone (patch-wrong-base), and nothing changes.
        both(`${s.name}: applyPatch twice`, pair, (f) => f.applyPatch(s.patch));
        both(`${s.name}: bytes after the refusal`, pair, (f) => f.toBytes());
        pair.full.dispose();
        pair.reader.dispose();
        await bothAsync(`${s.name}: applyPatchBytes`, (e) => e.applyPatchBytes(s.bytes, s.patch));
        await bothAsync(`${s.name}: applyPatchBytes (ArrayBuffer)`, (e) => e.applyPatchBytes(s.bytes.slice().buffer, s.patch.slice().buffer));
        await bothAsync(`${s.name}: applyPatchBytes onto the newer bytes`, (e) => e.applyPatchBytes(s.newer, s.patch));
        await bothAsync(`${s.name}: patchInfo`, (e) => e.patchInfo(s.patch));
        expect(Buffer.from(await R.applyPatchBytes(s.bytes, s.patch)).equals(Buffer.from(s.newer))).toBe(true);
      }
    });

    test('dispose: disposed, a second dispose does nothing, every call after it throws the same FilterDisposedError', async () => {
      for (const s of all.slice(0, 8)) {
        const pair = await open(s.cls, s.bytes);
        both(`${s.name}: disposed before`, pair, (f) => f.disposed);
        both(`${s.name}: dispose`, pair, (f) => f.dispose());
        both(`${s.name}: disposed after`, pair, (f) => f.disposed);
        both(`${s.name}: dispose again`, pair, (f) => f.dispose());
        both(`${s.name}: [Symbol.dispose] again`, pair, (f) => (f as unknown as Record<symbol, () => void>)[disposeKey]());
        const calls: [string, (f: ReadFilter) => unknown][] = [
          ['has', (f) => f.has('a')],
          ['hasAll', (f) => f.hasAll(['a'])],
          ['hasAll(out)', (f) => f.hasAll(['a'], new Uint8Array(1))],
          ['hasUrl', (f) => f.hasUrl('http://a.example/')],
          ['matchUrl', (f) => f.matchUrl('http://a.example/')],
          ['hasAllUrls', (f) => f.hasAllUrls(['http://a.example/'])],
          ['applyPatch', (f) => f.applyPatch(s.patch)],
          ['toBytes', (f) => f.toBytes()],
          ['info', (f) => f.info()],
          ...(typeof pair.full.count === 'function' ? [['count', (f: ReadFilter) => f.count!('a')] as [string, (f: ReadFilter) => unknown]] : []),
          ...propertyNames(pair.full).map((g): [string, (f: ReadFilter) => unknown] => [`.${g}`, (f) => (f as unknown as Record<string, unknown>)[g]]),
        ];
        for (const [what, call] of calls) both(`${s.name}: ${what} after dispose`, pair, call);
        const r = run(R, () => pair.reader.has('a'));
        expect('error' in r && r.error.class).toBe('FilterDisposedError');
      }
    });
  });

  describe('URLs without a filter: canonicalizeUrl and urlExpressions', () => {
    const inputs = (): UrlInput[] => [
      ...canonVectors('docs-v4').map(([i]) => i),
      ...canonVectors('docs-prose').map(([i]) => i),
      ...canonVectors('chromium').map(([i]) => i),
      ...expressionVectors('docs-v4').map(([i]) => i),
      ...expressionVectors('chromium').map(([i]) => i),
      ...TRICKY_URLS,
      ...URLS.slice(0, 300),
    ];

    test('the same canonical form, expressions, or InvalidUrlError (reason, message) for every vector and tricky URL', async () => {
      let refused = 0;
      for (const url of inputs()) {
        await bothAsync(`canonicalizeUrl(${shown(url)})`, (e) => e.canonicalizeUrl(url));
        await bothAsync(`urlExpressions(${shown(url)})`, (e) => e.urlExpressions(url));
        if ('error' in (await runAsync(F, () => full.canonicalizeUrl(url)))) refused++;
      }
      expect(refused).toBeGreaterThan(5); // the comparison saw refusals, not only answers
    });

    test('not a URL argument, a detached one: the same ArgumentTypeError', async () => {
      for (const bad of [...NOT_KEYS, detachedBytes()]) {
        await bothAsync(`canonicalizeUrl(${shown(bad)})`, (e) => e.canonicalizeUrl(bad));
        await bothAsync(`urlExpressions(${shown(bad)})`, (e) => e.urlExpressions(bad));
      }
    });
  });

  describe('hostile bytes: the same error class, message and reason from both', () => {
    /** Small filters of each class to cut up (a few hundred bytes, so that every byte can be tried). */
    let small: [ClassName, Uint8Array][] = [];
    beforeAll(async () => {
      const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
      const make: [ClassName, () => Promise<FullFilter>][] = [
        ['CuckooFilter', () => full.CuckooFilter.create({ capacity: 50, fingerprintBits: 12, semiSort: false })],
        ['CuckooFilter', () => full.CuckooFilter.create({ capacity: 8, expansion: 2, semiSort: true, bucketSize: 4 })],
        ['BloomFilter', () => full.BloomFilter.create({ capacity: 10, expansion: 2 })],
        ['RedisCuckooFilter', () => full.RedisCuckooFilter.create({ capacity: 8, expansion: 2 })],
        ['RedisBloomFilter', () => full.RedisBloomFilter.create({ errorRate: 0.1, capacity: 8, expansion: 2 })],
      ];
      small = [];
      for (const [name, m] of make) {
        const f = await m();
        fill(f, keys, []);
        small.push([name, f.toBytes()]);
        f.dispose();
      }
      const golden = join(root, 'tests', 'golden');
      small.push(['CuckooFilter', new Uint8Array(readFileSync(join(golden, 'cuckoo-v2.bin')))]);
      small.push(['BloomFilter', new Uint8Array(readFileSync(join(golden, 'bloom-v2.bin')))]);
    });

    test('empty, not bytes, detached (ArrayBuffer and view): every class', async () => {
      const detachedBuffer = () => {
        const b = new ArrayBuffer(64);
        structuredClone(b, { transfer: [b] });
        return b;
      };
      const inputs: [string, () => unknown][] = [
        ['empty Uint8Array', () => new Uint8Array(0)],
        ['empty ArrayBuffer', () => new ArrayBuffer(0)],
        ['detached ArrayBuffer', detachedBuffer],
        ['view of a detached buffer', () => {
          const b = new ArrayBuffer(64);
          const view = new Uint8Array(b, 8);
          structuredClone(b, { transfer: [b] });
          return view;
        }],
        ['a detached filter', () => detachedBytes()],
        ['a string', () => 'CKOO'],
        ['null', () => null],
        ['undefined', () => undefined],
        ['a number array', () => [0x43, 0x4b, 0x4f, 0x4f]],
        ['a DataView', () => new DataView(new ArrayBuffer(40))],
        ['an Int8Array', () => new Int8Array(40)],
        ['a Blob-like', () => ({ byteLength: 40 })],
      ];
      for (const name of CLASSES) for (const [what, bytes] of inputs) await loadBoth(what, name, bytes);
    });

    test('every truncation and every single-byte flip of a small filter of each kind, into every class', async () => {
      for (const [kind, bytes] of small) {
        for (let len = 0; len < bytes.length; len++) await loadBoth(`${kind} cut to ${len}`, kind, () => bytes.slice(0, len));
        for (let at = 0; at < bytes.length; at++) {
          const copy = bytes.slice();
          copy[at] ^= 0x5a;
          await loadBoth(`${kind} byte ${at} flipped`, kind, () => copy);
        }
        const longer = new Uint8Array(bytes.length + 1);
        longer.set(bytes);
        await loadBoth(`${kind} one byte longer`, kind, () => longer);
      }
    });

    test('header fields changed and the checksum sealed again (so the reader\'s own checks refuse them): huge counts and lengths, zeros, other ids', async () => {
      let tried = 0;
      for (const [kind, bytes] of small) {
        if (!sealed(bytes)) continue;
        for (let at = 0; at + 4 <= Math.min(bytes.length - 8, 96); at++) {
          for (const value of [0xffffffff, 0x7fffffff, 0, 1, 0x10000]) {
            const copy = bytes.slice();
            new DataView(copy.buffer).setUint32(at, value, true);
            seal(copy);
            await loadBoth(`${kind} u32 at ${at} = ${value}, sealed`, kind, () => copy);
            tried++;
          }
        }
      }
      expect(tried).toBeGreaterThan(1000);
    });

    test('each family\'s bytes into every other class: the same wrong-family refusal', async () => {
      for (const [kind, bytes] of small) for (const name of CLASSES) await loadBoth(`${kind} bytes`, name, () => bytes.slice());
      for (const s of all) for (const name of CLASSES) await loadBoth(`${s.name} bytes`, name, () => s.bytes.slice());
    });

    test('the sealed hostile fixtures (tests/golden/hostile), a version-1 file claiming 2^32 − 1 buckets, random bytes with a valid magic', async () => {
      const dir = join(root, 'tests', 'golden', 'hostile');
      for (const file of readdirSync(dir).filter((n) => n.endsWith('.bin'))) {
        const bytes = new Uint8Array(readFileSync(join(dir, file)));
        for (const name of CLASSES) await loadBoth(`hostile ${file}`, name, () => bytes.slice());
      }
      const huge = new Uint8Array(readFileSync(join(root, 'tests', 'golden', 'cuckoo-v1.bin')));
      new DataView(huge.buffer).setUint32(12, 0xffffffff, true);
      await loadBoth('v1, 2^32 − 1 buckets', 'CuckooFilter', () => huge.slice());
      new DataView(huge.buffer).setBigUint64(64, BigInt(Math.ceil((0xffffffff * 4 * 12) / 8)), true);
      await loadBoth('v1, 2^32 − 1 buckets and their table length', 'CuckooFilter', () => huge.slice());
      let seed = 12345;
      const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
      for (let i = 0; i < 100; i++) {
        const junk = Uint8Array.from({ length: 40 + (i % 90) }, rand);
        junk.set([0x43, 0x4b, 0x4f, 0x4f, 1 + (i % 4), 0, 1 + (i % 4), 0], 0);
        await loadBoth(`junk ${i}`, CLASSES[i % 4], () => junk);
      }
    });
  });

  describe('hostile patches: the same refusal from both, and the filter unchanged in both', () => {
    test('truncated, flipped, empty, not a patch, another family\'s, detached, not bytes', async () => {
      const targets = all.filter((s) => !s.name.startsWith('Redis fixture')).slice(0, 8);
      for (const s of targets) {
        const patches: [string, () => unknown][] = [
          ['empty', () => new Uint8Array(0)],
          ['empty ArrayBuffer', () => new ArrayBuffer(0)],
          ['filter bytes as a patch', () => s.bytes.slice()],
          ['detached', () => detachedBytes()],
          ['a string', () => 'patch'],
          ['null', () => null],
          ['a number array', () => Array.from(s.patch.slice(0, 16))],
        ];
        for (const len of [1, 4, 8, 16, 31, 32, 33, 48, 64, s.patch.length >> 1, s.patch.length - 9, s.patch.length - 8, s.patch.length - 1]) {
          if (len > 0 && len < s.patch.length) patches.push([`cut to ${len}`, () => s.patch.slice(0, len)]);
        }
        const step = Math.max(1, Math.floor(s.patch.length / 120));
        for (let at = 0; at < s.patch.length; at += at < 96 ? 1 : step) {
          patches.push([`byte ${at} flipped`, () => {
            const copy = s.patch.slice();
            copy[at] ^= 0xa5;
            return copy;
          }]);
        }
        for (const other of targets) if (other !== s) patches.push([`patch of ${other.name}`, () => other.patch.slice()]);
        const pair = await open(s.cls, s.bytes);
        for (const [what, patch] of patches) {
          both(`${s.name}: applyPatch(${what})`, pair, (f) => f.applyPatch(patch() as Uint8Array));
          await bothAsync(`${s.name}: applyPatchBytes(${what})`, (e) => e.applyPatchBytes(s.bytes, patch()));
          await bothAsync(`${s.name}: patchInfo(${what})`, (e) => e.patchInfo(patch()));
        }
        both(`${s.name}: bytes after every refusal`, pair, (f) => f.toBytes());
        expect(Buffer.from(pair.reader.toBytes()).equals(Buffer.from(s.bytes))).toBe(true);
        await bothAsync(`${s.name}: applyPatchBytes(detached base)`, (e) => e.applyPatchBytes(detachedBytes(), s.patch));
        pair.full.dispose();
        pair.reader.dispose();
      }
    });

    test('the golden patches (tests/golden/patch-*.bin): patchInfo equal', async () => {
      const dir = join(root, 'tests', 'golden');
      for (const file of readdirSync(dir).filter((n) => /^patch-.*\.bin$/.test(n))) {
        const bytes = new Uint8Array(readFileSync(join(dir, file)));
        await bothAsync(`patchInfo(${file})`, (e) => e.patchInfo(bytes));
      }
    });
  });

  describe('initWasm', () => {
    test('after the module loaded: the same WasmInitError reason from both', async () => {
      const a = await runAsync(F, () => F.initWasm(new Uint8Array(8)));
      const b = await runAsync(R, () => R.initWasm(new Uint8Array(8)));
      expect('error' in b && [b.error.class, b.error.reason, b.error.ownClass]).toEqual('error' in a && [a.error.class, a.error.reason, true]);
    });

    test("each entry refuses the other's .wasm ('not-this-module') and takes its own", async () => {
      const readerWasm = join(root, 'dist', 'cuckoo-reader.wasm');
      const fullWasm = join(root, 'dist', 'cuckoo-core.wasm');
      expect(existsSync(readerWasm)).toBe(true);
      const fresh = (path: string): Entry => {
        let m: Entry | undefined;
        jest.isolateModules(() => {
          m = require(path) as Entry;
        });
        return m!;
      };
      const r = fresh(READER);
      const wrong = await runAsync(r, () => r.initWasm(readFileSync(fullWasm)));
      expect('error' in wrong && [wrong.error.class, wrong.error.reason]).toEqual(['WasmInitError', 'not-this-module']);
      await r.initWasm(readFileSync(readerWasm));
      const g = await cls(r, 'CuckooFilter').fromBytes(all[0].bytes);
      expect(Buffer.from(g.toBytes()).equals(Buffer.from(all[0].bytes))).toBe(true);
      g.dispose();
      const f = fresh(FULL);
      const other = await runAsync(f, () => f.initWasm(readFileSync(readerWasm)));
      expect('error' in other && [other.error.class, other.error.reason]).toEqual(['WasmInitError', 'not-this-module']);
    });
  });

  test('property: random adds, deletes and URLs on the full side; both entries load the bytes and agree on everything, a patch included', async () => {
    const key = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom(...MEMBERS.slice(0, 200)),
      fc.uint8Array({ maxLength: 12 }),
    );
    const op = fc.oneof(
      fc.record({ op: fc.constant('add' as const), key }),
      fc.record({ op: fc.constant('delete' as const), key }),
      fc.record({ op: fc.constant('url' as const), url: fc.constantFrom(...(URLS.length ? URLS.slice(0, 300) : ['http://a.example/'])) }),
    );
    const kinds: [ClassName, () => Promise<FullFilter>][] = [
      ['CuckooFilter', () => full.CuckooFilter.create({ capacity: 40, expansion: 2, semiSort: false })],
      ['CuckooFilter', () => full.CuckooFilter.create({ capacity: 40, expansion: 2, semiSort: true, bucketSize: 4 })],
      ['CuckooFilter', () => full.CuckooFilter.create({ capacity: 300, fingerprintBits: 7 })],
      ['BloomFilter', () => full.BloomFilter.create({ capacity: 40, expansion: 2 })],
      ['RedisCuckooFilter', () => full.RedisCuckooFilter.create({ capacity: 40, expansion: 1 })],
      ['RedisBloomFilter', () => full.RedisBloomFilter.create({ errorRate: 0.05, capacity: 40, expansion: 2 })],
    ];
    const apply = (f: FullFilter, ops: { op: string; key?: Key; url?: string }[]) => {
      for (const o of ops) {
        try {
          if (o.op === 'add') f.add(o.key!);
          else if (o.op === 'delete' && 'delete' in f) f.delete(o.key!);
          else if (o.op === 'url') f.addUrl(o.url!);
        } catch (e) {
          if (!(e instanceof full.FilterFullError)) throw e;
        }
      }
    };
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: kinds.length - 1 }),
        fc.array(op, { maxLength: 200 }),
        fc.array(op, { maxLength: 40 }),
        fc.array(key, { maxLength: 40 }),
        async (kind, ops, later, probes) => {
          runs++;
          const [name, make] = kinds[kind];
          const f = await make();
          apply(f, ops);
          const bytes = f.toBytes();
          apply(f, later);
          const newer = f.toBytes();
          const patch = f.diff(bytes);
          f.dispose();
          const keys = [...ops.flatMap((o) => ('key' in o ? [o.key] : [])), ...probes];
          const urls = [...ops.flatMap((o) => ('url' in o ? [o.url] : [])), ...URLS.slice(300, 320)];
          const pair = await open(name, bytes);
          both('toBytes', pair, (g) => g.toBytes());
          both('info', pair, (g) => g.info());
          both('hasAll', pair, (g) => g.hasAll(keys));
          both('has', pair, (g) => keys.map((k) => g.has(k)));
          if (pair.full.count) both('count', pair, (g) => keys.map((k) => g.count!(k)));
          both('hasAllUrls', pair, (g) => g.hasAllUrls(urls));
          both('matchUrl', pair, (g) => urls.map((u) => g.matchUrl(u)));
          both('applyPatch', pair, (g) => g.applyPatch(patch));
          both('toBytes after the patch', pair, (g) => g.toBytes());
          expect(Buffer.from(pair.reader.toBytes()).equals(Buffer.from(newer))).toBe(true);
          both('hasAll after the patch', pair, (g) => g.hasAll(keys));
          pair.full.dispose();
          pair.reader.dispose();
        },
      ),
      { numRuns: 100 },
    );
    expect(runs).toBe(100);
  });
});
