// The binary fuse filter (js/filters/binary-fuse-filter.ts, src/fuse/): a static set built once from all its keys.
// Properties over random sets of string and Uint8Array keys (fast-check): no false negative, `size` the number of
// distinct keys, the same bytes whatever the order, the duplicates and the form of each key (a string or its UTF-8
// bytes), and the reader entry (`cuckoo-wasm/reader`, its own module) answering as the full entry for the same bytes.
// Then the options and the types that say it is static; user code inside `build` (iterators that throw, getters
// that build again, grow wasm memory or change a key after it was read; revoked Proxies, detached buffers, other
// realms) with wasm memory checked for leaks; bytes from other families and hostile bytes (every bit of the headers
// flipped and the checksum sealed again with ./xxh3.ts, since the golden hostile fixtures are made by the native
// tests); patches between two versions of a list; dispose. The 1,000,000-key run is binary-fuse-large.test.ts
// (project `long`).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vm from 'node:vm';
import * as fc from 'fast-check';
import * as full from 'cuckoo-wasm';
import * as reader from 'cuckoo-wasm/reader';
import {
  ArgumentRangeError,
  ArgumentTypeError,
  BinaryFuseFilter,
  BloomFilter,
  CuckooFilter,
  FilterDisposedError,
  FilterFormatError,
  InvalidUrlError,
  RedisBloomFilter,
  RedisCuckooFilter,
  applyPatchBytes,
  wasmMemoryUsage,
} from 'cuckoo-wasm';
import type { BinaryFuseFilterOptions, Key } from 'cuckoo-wasm';
import { REGISTRY } from '../../js/registry';
import { seal, sealed } from './xxh3';

const enc = new TextEncoder();
const root = join(__dirname, '..', '..');
const golden = (name: string) => new Uint8Array(readFileSync(join(root, 'tests', 'golden', name)));
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
const keysOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}.example`);

/** A key's identity: its bytes (a string's UTF-8, lone surrogates as U+FFFD, as the filter reads it). */
const idOf = (k: Key) => Buffer.from(typeof k === 'string' ? enc.encode(k) : k).toString('latin1');
const distinctCount = (keys: Key[]) => new Set(keys.map(idOf)).size;
/** The other form of a key: a string's UTF-8 bytes, and bytes as they are (not every byte string is UTF-8). */
const otherForm = (k: Key): Key => (typeof k === 'string' ? enc.encode(k) : k.slice());

/** Allocated wasm bytes of the full entry's module. */
const allocated = async () => (await wasmMemoryUsage()).allocatedBytes;

beforeAll(async () => {
  // The first filter of a family registers its class (a few hundred bytes kept): before any leak check.
  // The batch regions grow once to a whole chunk of keys and of URLs (kept for every later batch).
  const warm = await BinaryFuseFilter.build(keysOf('warm-up', 10_000));
  warm.hasAll(keysOf('warm-up', 10_000));
  warm.hasAllUrls(keysOf('http://warm-up', 10_000));
  warm.diff(warm).length;
  warm.dispose();
  (await BinaryFuseFilter.build(keysOf('warm-up', 10_000), { urls: true })).dispose();
  await BinaryFuseFilter.build(['ok.example', ''], { urls: true }).then((f) => f.dispose(), () => undefined);
});

// ---------------------------------------------------------------------------
// Keys.

/** One character of a string key: mostly ASCII, some graphemes, some lone surrogates (read as U+FFFD). */
const unit = fc.oneof(
  { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }), weight: 6 },
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }), weight: 2 },
  { arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), weight: 1 },
);
const stringKey = fc.string({ unit, maxLength: 14 });
/** Uint8Array keys, empty ones too, sometimes a view at an offset into a larger buffer. */
const bytesKey = fc.tuple(fc.uint8Array({ maxLength: 16 }), fc.nat({ max: 3 })).map(([b, offset]) => {
  if (offset === 0) return b;
  const backing = new Uint8Array(b.length + offset + 2).fill(0xa5);
  backing.set(b, offset);
  return backing.subarray(offset, offset + b.length);
});
const anyKey: fc.Arbitrary<Key> = fc.oneof({ arbitrary: stringKey, weight: 3 }, { arbitrary: bytesKey, weight: 2 });

/**
 * A list of keys with duplicates: `size` keys drawn (with repeats) from a pool of distinct-or-not keys, some given
 * in their other form, in a random order.
 */
const keyList = (maxPool: number): fc.Arbitrary<Key[]> =>
  fc
    .tuple(fc.array(anyKey, { maxLength: maxPool, size: 'max' }), fc.infiniteStream(fc.tuple(fc.nat(), fc.boolean())), fc.nat({ max: 3 }))
    .map(([pool, picks, extra]) => {
      if (pool.length === 0) return [];
      const n = pool.length + Math.floor((pool.length * extra) / 4); // up to 75% more draws than the pool
      const it = picks[Symbol.iterator]();
      const out: Key[] = [...pool];
      for (let i = pool.length; i < n; i++) {
        const [at, other] = it.next().value as [number, boolean];
        const k = pool[at % pool.length];
        out.push(other ? otherForm(k) : k);
      }
      return out;
    });

const optionsArb: fc.Arbitrary<BinaryFuseFilterOptions> = fc.record(
  {
    fingerprintBits: fc.integer({ min: 8, max: 16 }),
    arity: fc.constantFrom(3 as const, 4 as const),
    seed: fc.oneof(fc.nat(), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n })),
  },
  { requiredKeys: [] },
);

/** A deterministic shuffle (xorshift32 from `seed`). */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = items.slice();
  let s = seed | 1;
  for (let i = out.length - 1; i > 0; i--) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const j = (s >>> 0) % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Keys that are in no list of the tests above: a prefix no generated key has (a byte 0xfe is not UTF-8). */
const absentKeys = (n: number): Key[] => Array.from({ length: n }, (_, i) => Uint8Array.from([0xfe, 0xfd, ...enc.encode(`absent-${i}`)]));

/** What `fn` returns, or the class, reason and message of what it throws (the two entries' classes are distinct objects). */
function result<T>(fn: () => T): T | { threw: string; reason?: string; message: string } {
  try {
    return fn();
  } catch (e) {
    const err = e as { name: string; reason?: string; message: string };
    return { threw: err.name, reason: err.reason, message: err.message };
  }
}

/** What a filter of either entry answers, for comparison: every read of the reader's API. */
function answersOf(f: full.BinaryFuseFilter | reader.BinaryFuseFilter, keys: Key[], urls: Key[]) {
  const into = new Uint8Array(keys.length + 3).fill(7);
  return {
    has: keys.map((k) => f.has(k)),
    hasAll: f.hasAll(keys),
    into: Array.from(f.hasAll(keys, into)),
    // A key given as a URL may be none (an empty string): the same InvalidUrlError from both.
    hasUrl: urls.map((u) => result(() => f.hasUrl(u))),
    matchUrl: urls.map((u) => result(() => f.matchUrl(u))),
    hasAllUrls: result(() => f.hasAllUrls(urls)),
    hasAllUrlsInto: result(() => Array.from(f.hasAllUrls(urls, new Uint8Array(urls.length)))),
    info: f.info(),
    json: JSON.stringify(f),
    getters: [f.size, f.byteLength, f.bitsPerItem, f.fingerprintBits, f.arity, f.falsePositiveRate, f.seed, f.capacity, f.expansion, f.subFilterCount],
    bytes: Buffer.from(f.toBytes()).toString('base64'),
  };
}

// ---------------------------------------------------------------------------

describe('properties over random sets of keys (fast-check)', () => {
  test('no false negative; size is the number of distinct keys; every order, duplicate and form gives the same bytes; both entries answer alike', async () => {
    let largest = 0;
    let withDuplicates = 0;
    await fc.assert(
      fc.asyncProperty(keyList(3000), optionsArb, fc.integer(), async (keys, options, order) => {
        const distinct = distinctCount(keys);
        largest = Math.max(largest, keys.length);
        if (distinct < keys.length) withDuplicates++;
        const f = await BinaryFuseFilter.build(keys, options);
        try {
          expect(f.size).toBe(distinct);
          expect(f.hasAll(keys).every(Boolean)).toBe(true);
          expect(f.hasAll(keys.map(otherForm)).every(Boolean)).toBe(true);
          const bytes = f.toBytes();
          expect(bytes.length).toBe(f.byteLength);
          // The distinct keys once each, in another order, each in its other form half of the time.
          const seen = new Set<string>();
          const once = keys.filter((k) => !seen.has(idOf(k)) && seen.add(idOf(k)) !== undefined);
          const again = await BinaryFuseFilter.build(
            shuffled(once, order).map((k, i) => (i % 2 ? otherForm(k) : k)),
            options,
          );
          expect(same(again.toBytes(), bytes)).toBe(true);
          again.dispose();
          // Every key twice (a Set of strings and arrays is iterated, not indexed).
          const twice = await BinaryFuseFilter.build(new Set([...shuffled(keys, order ^ 0x5a5a), ...keys.map(otherForm)]), options);
          expect(same(twice.toBytes(), bytes)).toBe(true);
          twice.dispose();
          // The same bytes in both entries: the same answers, for members and non-members, keys and URLs.
          const probes = [...keys.slice(0, 300), ...absentKeys(200), ...keys.slice(0, 50).map(otherForm)];
          const urls: Key[] = ['http://absent.example/', 'https://a.example/b?c', ...keys.slice(0, 20)];
          const loaded = await BinaryFuseFilter.fromBytes(bytes);
          const read = await reader.BinaryFuseFilter.fromBytes(bytes);
          const expected = answersOf(f, probes, urls);
          expect(expected.has.slice(0, Math.min(300, keys.length)).every(Boolean)).toBe(true);
          expect(expected.into.slice(probes.length)).toEqual([7, 7, 7]);
          expect(answersOf(loaded, probes, urls)).toEqual(expected);
          expect(answersOf(read, probes, urls)).toEqual(expected);
          loaded.dispose();
          read.dispose();
        } finally {
          f.dispose();
        }
      }),
      { numRuns: 40, seed: 20260511 },
    );
    // What the generators reached: sets of thousands of keys, with duplicates.
    expect(largest).toBeGreaterThan(2000);
    expect(withDuplicates).toBeGreaterThan(10);
  });

  test('tiny sets (0 to 3 keys, every form of the same key) in every arity and width: no false negative, size, the same bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom<Key>('', new Uint8Array(0), 'a', enc.encode('a'), 'a\ud800', 'a\ufffd', 'é', 'e\u0301', new Uint8Array([0xff])), { maxLength: 6 }), optionsArb, async (keys, options) => {
        const f = await BinaryFuseFilter.build(keys, options);
        expect(f.size).toBe(distinctCount(keys));
        expect(keys.every((k) => f.has(k))).toBe(true);
        const g = await BinaryFuseFilter.build([...keys].reverse().map(otherForm), options);
        expect(same(f.toBytes(), g.toBytes())).toBe(true);
        const r = await reader.BinaryFuseFilter.fromBytes(f.toBytes());
        expect(answersOf(r, [...keys, ...absentKeys(20)], [])).toEqual(answersOf(f, [...keys, ...absentKeys(20)], []));
        for (const x of [f, g, r]) x.dispose();
      }),
      { numRuns: 150, seed: 7 },
    );
  });

  test('an empty set: size 0, every answer false, bitsPerItem Infinity, in both entries', async () => {
    const f = await BinaryFuseFilter.build([]);
    const r = await reader.BinaryFuseFilter.fromBytes(f.toBytes());
    for (const x of [f, r]) {
      expect([x.size, x.has(''), x.has('a'), x.hasUrl('http://a.example/'), x.matchUrl('a.example'), x.bitsPerItem]).toEqual([0, false, false, false, null, Infinity]);
      expect(x.info()).toMatchObject({ type: 'binary-fuse', size: 0, bitsPerItem: Infinity });
    }
    f.dispose();
    r.dispose();
  });

  test('URL entries (urls: true): every entry matches as a URL, as its canonical expression; both entries answer alike', async () => {
    const entry = fc.tuple(fc.domain(), fc.array(fc.stringMatching(/^[a-z0-9_~-]{1,8}$/), { maxLength: 3 }), fc.boolean()).map(([host, path, slash]) => `${host}/${path.join('/')}${path.length > 0 && slash ? '/' : ''}`);
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 300 }), fc.array(fc.webUrl(), { maxLength: 30 }), async (entries, others) => {
        const f = await BinaryFuseFilter.build(entries, { urls: true, fingerprintBits: 16 });
        const expressions = await Promise.all(entries.map((e) => full.canonicalizeUrl(`http://${e}`)));
        const urls = entries.map((e) => `https://${e}`);
        expect(f.hasAllUrls(urls).every(Boolean)).toBe(true);
        for (const u of urls) expect(f.matchUrl(u)).not.toBeNull();
        // Stored as expressions, not as the entries' bytes: each entry's canonical expression is a key of the set.
        expect(f.size).toBe(new Set(expressions.map((u) => u.replace(/^http:\/\//, ''))).size);
        const r = await reader.BinaryFuseFilter.fromBytes(f.toBytes());
        expect(answersOf(r, entries, [...urls, ...others])).toEqual(answersOf(f, entries, [...urls, ...others]));
        f.dispose();
        r.dispose();
      }),
      { numRuns: 40, seed: 99 },
    );
  });
});

// ---------------------------------------------------------------------------

describe('options', () => {
  test.each([
    [0.5, 8],
    [0.01, 8],
    [2 ** -8, 8],
    [0.0039, 9],
    [0.001, 10],
    [2 ** -10, 10],
    [1e-4, 14],
    [2 ** -16, 16],
    [undefined, 8],
  ])('falsePositiveRate %p gives %p fingerprint bits (a rate of 2^-f, at most the rate asked)', async (falsePositiveRate, bits) => {
    const f = await BinaryFuseFilter.build(keysOf('fpr', 100), { falsePositiveRate });
    expect([f.fingerprintBits, f.info().fingerprintBits, f.falsePositiveRate]).toEqual([bits, bits, 2 ** -bits]);
    if (falsePositiveRate !== undefined) expect(f.falsePositiveRate).toBeLessThanOrEqual(falsePositiveRate);
    f.dispose();
  });

  test('fingerprintBits 8..16 and arity 3, 4 (default 4) are what info() reports; the same keys and options give the same bytes', async () => {
    for (let bits = 8; bits <= 16; bits++) {
      for (const arity of [3, 4] as const) {
        const f = await BinaryFuseFilter.build(keysOf('w', 500), { fingerprintBits: bits, arity });
        const info = f.info();
        expect([info.fingerprintBits, info.arity, info.falsePositiveRate]).toEqual([bits, arity, 2 ** -bits]);
        expect(info.arrayLength).toBe((info.segmentCount + arity - 1) * info.segmentLength);
        expect(Math.log2(info.segmentLength) % 1).toBe(0);
        expect(info.byteLength).toBe(f.toBytes().length);
        // 32-byte header, 48-byte section header, the table, the checksum.
        expect(info.byteLength).toBe(32 + 48 + Math.ceil((info.arrayLength * bits) / 8) + 8);
        f.dispose();
      }
    }
    const d = await BinaryFuseFilter.build(['x']);
    expect([d.arity, d.fingerprintBits]).toEqual([4, 8]);
    d.dispose();
  });

  test('info() is one plain object of exactly its documented fields (BinaryFuseFilterInfo), JSON-able with the seed as a string', async () => {
    const f = await BinaryFuseFilter.build(keysOf('info', 1000), { seed: 99 });
    const info = f.info();
    expect(Object.keys(info).sort()).toEqual(['arity', 'arrayLength', 'bitsPerItem', 'byteLength', 'falsePositiveRate', 'fingerprintBits', 'seed', 'segmentCount', 'segmentLength', 'size', 'type'].sort());
    expect(info).toMatchObject({ type: 'binary-fuse', size: 1000, seed: 99n, byteLength: f.byteLength, bitsPerItem: f.bitsPerItem });
    expect(JSON.parse(JSON.stringify(f))).toEqual({ ...info, seed: '99' });
    expect([f.capacity, f.expansion, f.subFilterCount]).toEqual([1000, 0, 1]);
    f.dispose();
  });

  test('the seed: the default fixed, a number and the same bigint give the same bytes, another seed other bytes with the same members', async () => {
    const keys = keysOf('seed', 1000);
    const a = await BinaryFuseFilter.build(keys, { seed: 12345 });
    const b = await BinaryFuseFilter.build(keys, { seed: 12345n });
    const c = await BinaryFuseFilter.build(keys, { seed: (1n << 64n) - 1n });
    const d = await BinaryFuseFilter.build(keys);
    const e = await BinaryFuseFilter.build(keys, { seed: undefined });
    expect(same(a.toBytes(), b.toBytes())).toBe(true);
    expect(same(a.toBytes(), c.toBytes())).toBe(false);
    expect(same(d.toBytes(), e.toBytes())).toBe(true);
    expect([a.seed, c.seed, c.info().seed, d.seed]).toEqual([12345n, (1n << 64n) - 1n, (1n << 64n) - 1n, 0x63756b6f6f2d7761n]);
    for (const f of [a, c, d]) expect(f.hasAll(keys).every(Boolean)).toBe(true);
    for (const f of [a, b, c, d, e]) f.dispose();
  });

  test.each<[string, unknown, typeof ArgumentTypeError | typeof ArgumentRangeError, RegExp]>([
    ['falsePositiveRate below 2^-16', { falsePositiveRate: 2 ** -16 * 0.999 }, ArgumentRangeError, /below 2\^-16/],
    ['falsePositiveRate 1e-9', { falsePositiveRate: 1e-9 }, ArgumentRangeError, /below 2\^-16/],
    ['falsePositiveRate 0', { falsePositiveRate: 0 }, ArgumentRangeError, /falsePositiveRate/],
    ['falsePositiveRate 1', { falsePositiveRate: 1 }, ArgumentRangeError, /falsePositiveRate/],
    ['falsePositiveRate NaN', { falsePositiveRate: NaN }, ArgumentRangeError, /falsePositiveRate/],
    ['falsePositiveRate a string', { falsePositiveRate: '0.01' }, ArgumentTypeError, /falsePositiveRate must be a number/],
    ['both falsePositiveRate and fingerprintBits', { falsePositiveRate: 0.01, fingerprintBits: 8 }, ArgumentTypeError, /not both/],
    ['fingerprintBits 7', { fingerprintBits: 7 }, ArgumentRangeError, /fingerprintBits must be an integer from 8 to 16/],
    ['fingerprintBits 17', { fingerprintBits: 17 }, ArgumentRangeError, /fingerprintBits/],
    ['fingerprintBits 8.5', { fingerprintBits: 8.5 }, ArgumentRangeError, /fingerprintBits/],
    ['fingerprintBits a string', { fingerprintBits: '8' }, ArgumentTypeError, /fingerprintBits must be a number/],
    ['fingerprintBits a bigint', { fingerprintBits: 8n }, ArgumentTypeError, /fingerprintBits/],
    ['arity 2', { arity: 2 }, ArgumentRangeError, /arity must be an integer from 3 to 4, got 2/],
    ['arity 5', { arity: 5 }, ArgumentRangeError, /arity must be an integer from 3 to 4, got 5/],
    ['arity 3.5', { arity: 3.5 }, ArgumentRangeError, /arity/],
    ['arity a string', { arity: '4' }, ArgumentTypeError, /arity must be a number/],
    ['arity null', { arity: null }, ArgumentTypeError, /arity/],
    ['seed -1', { seed: -1 }, ArgumentRangeError, /seed/],
    ['seed 1.5', { seed: 1.5 }, ArgumentRangeError, /seed/],
    ['seed 2^64', { seed: 1n << 64n }, ArgumentRangeError, /seed must be from 0 to 2\^64-1/],
    ['seed a string', { seed: '1' }, ArgumentTypeError, /seed must be a number/],
    ['urls a string', { urls: 'true' }, ArgumentTypeError, /urls must be a boolean/],
    ['urls 1', { urls: 1 }, ArgumentTypeError, /urls must be a boolean/],
    ['urls null', { urls: null }, ArgumentTypeError, /urls must be a boolean/],
    ['an unknown option', { capacity: 100 }, ArgumentTypeError, /unknown option "capacity".*falsePositiveRate, fingerprintBits, arity, seed, urls/],
    ['a misspelt option', { fingerprintbits: 8 }, ArgumentTypeError, /unknown option "fingerprintbits"/],
    ['options null', null, ArgumentTypeError, /options must be an object, got null/],
    ['options a number', 8, ArgumentTypeError, /options must be an object/],
    ['options a string', 'fast', ArgumentTypeError, /options must be an object/],
  ])('%s: refused before any key is read, nothing allocated', async (_, options, cls, message) => {
    let reads = 0;
    function* keys() {
      reads++;
      yield 'a';
    }
    const before = await allocated();
    const p = BinaryFuseFilter.build(keys(), options as BinaryFuseFilterOptions);
    await expect(p).rejects.toBeInstanceOf(cls);
    await expect(p).rejects.toThrow(message);
    expect(reads).toBe(0);
    expect(await allocated()).toBe(before);
  });

  test('the registry lists the options build takes, and the error message names them', () => {
    expect(REGISTRY.binaryFuse.options).toEqual(['falsePositiveRate', 'fingerprintBits', 'arity', 'seed', 'urls']);
  });

  test('undefined options are defaults; an options object with only undefined values too', async () => {
    const a = await BinaryFuseFilter.build(['x']);
    const b = await BinaryFuseFilter.build(['x'], { falsePositiveRate: undefined, fingerprintBits: undefined, arity: undefined, seed: undefined, urls: undefined });
    const c = await BinaryFuseFilter.build(['x'], undefined);
    expect(same(a.toBytes(), b.toBytes()) && same(a.toBytes(), c.toBytes())).toBe(true);
    for (const f of [a, b, c]) f.dispose();
  });

  test('keys that are not keys: ArgumentTypeError, nothing leaked, the iterator closed', async () => {
    const before = await allocated();
    let closed = 0;
    function* withBadKey() {
      try {
        yield 'a';
        yield 42;
        yield 'never read';
      } finally {
        closed++;
      }
    }
    for (const [make, message] of [
      ['abc', /got a string "abc"/],
      [42, /keys must be an iterable or array-like/],
      [null, /keys must be an iterable or array-like/],
      [undefined, /keys must be an iterable or array-like/],
      [{ length: -1 }, /keys must be an iterable or array-like/],
      [['a', 1], /keys\[1\] must be a string or a Uint8Array, got number 1/],
      [['a', null], /keys\[1\]/],
      [[new Uint16Array(2)], /keys\[0\]/],
      [[new ArrayBuffer(2)], /keys\[0\]/],
      [withBadKey, /keys\[1\]/],
    ] as const) {
      const keys = () => (typeof make === 'function' ? make() : make);
      await expect(BinaryFuseFilter.build(keys() as never)).rejects.toThrow(ArgumentTypeError);
      await expect(BinaryFuseFilter.build(keys() as never)).rejects.toThrow(message);
    }
    expect(closed).toBe(2);
    expect(await allocated()).toBe(before);
  });

  test('array-likes and iterables of any kind: the same filter', async () => {
    const keys = keysOf('kind', 50);
    const arrayLike: ArrayLike<string> = { ...keys, length: keys.length };
    const made = await Promise.all([
      BinaryFuseFilter.build(keys),
      BinaryFuseFilter.build(arrayLike),
      BinaryFuseFilter.build(new Set(keys)),
      BinaryFuseFilter.build(new Map(keys.map((k) => [k, 1])).keys()),
      BinaryFuseFilter.build((function* () {
        yield* keys;
      })()),
    ]);
    for (const f of made) expect(same(f.toBytes(), made[0].toBytes())).toBe(true);
    for (const f of made) f.dispose();
  });
});

describe('a static set', () => {
  test('no add, delete or other writer, at run time and in the types (checked by `tsc -p tests/tsconfig.json`)', async () => {
    const f = await BinaryFuseFilter.build(['a', 'b']);
    for (const writer of ['add', 'addAll', 'addUrl', 'addUrls', 'delete', 'count', 'addUnique', 'union', 'isCompatible', 'compact']) {
      expect([writer, writer in f]).toEqual([writer, false]);
    }
    expect('create' in BinaryFuseFilter).toBe(false);
    expect('build' in reader.BinaryFuseFilter).toBe(false);
    expect('diff' in (await reader.BinaryFuseFilter.fromBytes(f.toBytes()))).toBe(false);
    // @ts-expect-error a binary fuse filter is built once from all its keys: it has no add
    expect(() => f.add('c')).toThrow(TypeError);
    // @ts-expect-error nor delete
    expect(() => f.delete('a')).toThrow(TypeError);
    // @ts-expect-error nor addAll
    expect(() => f.addAll(['c'])).toThrow(TypeError);
    // @ts-expect-error nor create
    expect(() => BinaryFuseFilter.create({ capacity: 1 })).toThrow(TypeError);
    // @ts-expect-error the arity is 3 or 4
    await expect(BinaryFuseFilter.build(['a'], { arity: 5 })).rejects.toThrow(ArgumentRangeError);
    // @ts-expect-error urls is a boolean
    await expect(BinaryFuseFilter.build(['a'], { urls: 'yes' })).rejects.toThrow(ArgumentTypeError);
    // The declarations have no constructor (stripped as @internal), so `new` type-checks: it is refused at run time.
    expect(() => new (BinaryFuseFilter as unknown as new () => unknown)()).toThrow(
      /has no public constructor: make one with BinaryFuseFilter\.build\(keys, options\) or await BinaryFuseFilter\.fromBytes/,
    );
    expect(f.hasAll(['a', 'b'])).toEqual([true, true]);
    f.dispose();
  });

  /** Another family's writers called on a binary fuse filter, as `Class.prototype.method.call(f, ...)`. */
  const foreignWriters = (f: BinaryFuseFilter): [string, () => unknown][] => [
      ['add', () => CuckooFilter.prototype.add.call(f as never, 'x')],
      ['addAll', () => CuckooFilter.prototype.addAll.call(f as never, ['x', 'y'])],
      ['addUrl', () => BloomFilter.prototype.addUrl.call(f as never, 'x.example')],
      ['addUrls', () => BloomFilter.prototype.addUrls.call(f as never, ['x.example'])],
      ['delete', () => CuckooFilter.prototype.delete.call(f as never, 'static-1.example')],
      ['union', () => BloomFilter.prototype.union.call(f as never, f as never)],
    ];

  test("another family's writers called on it (CuckooFilter.prototype.add.call) add nothing: they throw, the bytes unchanged", async () => {
    const f = await BinaryFuseFilter.build(keysOf('static', 100));
    const bytes = f.toBytes();
    for (const [name, call] of foreignWriters(f)) expect([name, call]).toEqual([name, expect.any(Function)]);
    for (const [, call] of foreignWriters(f)) expect(call).toThrow(TypeError);
    expect(same(f.toBytes(), bytes)).toBe(true);
    expect(f.size).toBe(100);
    expect(f.hasAll(keysOf('static', 100)).every(Boolean)).toBe(true);
    f.dispose();
  });

  // The writers' add / addAll / addUrl / addUrls reach a binary fuse filter's core, whose adds refuse a built filter:
  // ArgumentTypeError, as delete and union give ("a method of CuckooFilter was called on a BinaryFuseFilter").
  test("another family's writers called on it: ArgumentTypeError, as delete and union give; nothing added", async () => {
    const f = await BinaryFuseFilter.build(keysOf('static', 100));
    const thrown: Record<string, string> = {};
    for (const [name, call] of foreignWriters(f)) {
      try {
        call();
        thrown[name] = 'returned';
      } catch (e) {
        thrown[name] = (e as Error).name;
      }
    }
    expect(thrown).toEqual({ add: 'ArgumentTypeError', addAll: 'ArgumentTypeError', addUrl: 'ArgumentTypeError', addUrls: 'ArgumentTypeError', delete: 'ArgumentTypeError', union: 'ArgumentTypeError' });
    f.dispose();
  });
});

// ---------------------------------------------------------------------------

describe('user code inside build', () => {
  test('an iterable that throws midway: build rejects with its error, no filter, nothing leaked', async () => {
    const before = await allocated();
    for (const at of [0, 1, 5000, 8192, 20_000]) {
      function* gen() {
        for (let i = 0; i < 30_000; i++) {
          if (i === at) throw new Error(`user error at ${at}`);
          yield `thrown-${i}`;
        }
      }
      await expect(BinaryFuseFilter.build(gen())).rejects.toThrow(`user error at ${at}`);
    }
    // A getter that throws, and an iterator whose next() returns a non-object.
    const keys = keysOf('getter', 10_000);
    Object.defineProperty(keys, 9000, {
      get() {
        throw new RangeError('getter error');
      },
    });
    await expect(BinaryFuseFilter.build(keys)).rejects.toThrow(RangeError);
    await expect(BinaryFuseFilter.build({ [Symbol.iterator]: () => ({ next: () => 5 }) } as never)).rejects.toThrow();
    expect(await allocated()).toBe(before);
  });

  test('an array-like that shrinks while it is read: ArgumentTypeError at the first missing key, nothing leaked', async () => {
    const before = await allocated();
    const backing = keysOf('shrink', 20_000);
    const shrinking: { length: number; [i: number]: string } = { length: 20_000 };
    for (let i = 0; i < 20_000; i++) {
      Object.defineProperty(shrinking, i, {
        get() {
          backing.length = Math.min(backing.length, 10_000);
          return backing[i];
        },
      });
    }
    await expect(BinaryFuseFilter.build(shrinking)).rejects.toThrow(/keys\[10000\] must be a string or a Uint8Array, got undefined/);
    expect(await allocated()).toBe(before);
  });

  test('a getter that calls BinaryFuseFilter.build (and reads other filters) while its keys are read: every build as without it', async () => {
    const keys = keysOf('outer', 20_000);
    const inner = keysOf('inner', 3000);
    const other = await BinaryFuseFilter.build(keysOf('other', 500));
    const cuckoo = await CuckooFilter.create({ capacity: 100_000 });
    const nested: Promise<BinaryFuseFilter>[] = [];
    const list = keys.slice();
    let again = 0;
    for (const at of [0, 8191, 8192, 15_000, 19_999]) {
      Object.defineProperty(list, at, {
        get() {
          // A build of its own keys, and once a build of the outer keys themselves (whose getters then run again).
          nested.push(BinaryFuseFilter.build(inner), BinaryFuseFilter.build(at === 15_000 && again++ === 0 ? list : inner.slice(0, at % 1000)));
          expect(other.hasAll(keysOf('other', 500)).every(Boolean)).toBe(true);
          cuckoo.addAll(keysOf(`c${at}`, 100));
          return keys[at];
        },
      });
    }
    const f = await BinaryFuseFilter.build(list);
    const plain = await BinaryFuseFilter.build(keys);
    expect(same(f.toBytes(), plain.toBytes())).toBe(true);
    const built = await Promise.all(nested);
    expect(built.length).toBeGreaterThanOrEqual(10);
    const innerBytes = (await BinaryFuseFilter.build(inner)).toBytes();
    expect(same(built[0].toBytes(), innerBytes)).toBe(true);
    expect(built.some((b) => same(b.toBytes(), plain.toBytes()))).toBe(true);
    for (const b of built) expect(b.size === 20_000 || b.hasAll(inner.slice(0, b.size)).every(Boolean)).toBe(true);
    expect(cuckoo.size).toBeGreaterThanOrEqual(500);
    for (const x of [f, plain, other, cuckoo, ...built]) x.dispose();
  });

  test('a getter that grows wasm memory mid-build (a large key looked up, a large filter loaded): every key found, nothing leaked', async () => {
    const keys = keysOf('grow', 50_000);
    const cuckoo = await CuckooFilter.create({ capacity: 4_000_000 }); // ~16 MB table
    const bigBytes = cuckoo.toBytes();
    cuckoo.dispose();
    const heapBefore = (await wasmMemoryUsage()).heapBytes;
    const pending: Promise<unknown>[] = [];
    let grown = 0;
    const list = keys.slice();
    Object.defineProperty(list, 20_000, {
      get() {
        BloomFilter.prototype.has.call(other, new Uint8Array(48 * 1024 * 1024)); // the scratch region grows to 48 MiB
        pending.push(CuckooFilter.fromBytes(bigBytes)); // a 16 MB filter allocated once the build yields
        grown++;
        return keys[20_000];
      },
    });
    const other = await BloomFilter.create({ capacity: 10 });
    const f = await BinaryFuseFilter.build(list);
    const loaded = (await Promise.all(pending)) as CuckooFilter[];
    expect(grown).toBe(1);
    expect((await wasmMemoryUsage()).heapBytes).toBeGreaterThan(heapBefore);
    expect(f.size).toBe(50_000);
    expect(f.hasAll(keys).every(Boolean)).toBe(true);
    const plain = await BinaryFuseFilter.build(keys);
    expect(same(f.toBytes(), plain.toBytes())).toBe(true);
    // A huge key inside the build itself: the batch region grows for it.
    const huge = new Uint8Array(20 * 1024 * 1024).fill(3);
    const g = await BinaryFuseFilter.build([...keys.slice(0, 100), huge, 'after']);
    expect([g.has(huge), g.has('after'), g.size]).toEqual([true, true, 102]);
    for (const x of [f, plain, g, other, ...loaded]) x.dispose();
  });

  test('a revoked Proxy as the keys, as a key and as the options: ArgumentTypeError, nothing leaked', async () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const before = await allocated();
    await expect(BinaryFuseFilter.build(proxy as never)).rejects.toThrow(/keys is a revoked Proxy/);
    await expect(BinaryFuseFilter.build(['a', proxy] as never)).rejects.toThrow(ArgumentTypeError);
    await expect(BinaryFuseFilter.build(['a'], proxy as never)).rejects.toThrow(/options is a revoked Proxy/);
    await expect(BinaryFuseFilter.build(['a'], proxy as never)).rejects.toBeInstanceOf(ArgumentTypeError);
    await expect(BinaryFuseFilter.fromBytes(proxy as never)).rejects.toThrow(ArgumentTypeError);
    // A live Proxy of options whose traps run user code: read as a plain object is.
    const traced: string[] = [];
    const options = new Proxy({ fingerprintBits: 12 }, {
      get(t, p, r) {
        traced.push(String(p));
        return Reflect.get(t, p, r);
      },
    });
    const f = await BinaryFuseFilter.build(['a'], options);
    expect(f.fingerprintBits).toBe(12);
    expect(traced).toContain('fingerprintBits');
    f.dispose();
    expect(await allocated()).toBe(before);
  });

  test('a detached Uint8Array key: ArgumentTypeError naming it, nothing leaked', async () => {
    const key = new Uint8Array([1, 2, 3]);
    structuredClone(key.buffer, { transfer: [key.buffer] });
    const before = await allocated();
    await expect(BinaryFuseFilter.build([key])).rejects.toThrow(/keys\[0\] is a Uint8Array whose buffer was detached/);
    await expect(BinaryFuseFilter.build(['a', 'b', key])).rejects.toThrow(ArgumentTypeError);
    // Detached by the caller after it was read: used as it was read.
    const late = enc.encode('late');
    const f = await BinaryFuseFilter.build((function* () {
      yield late;
      structuredClone(late.buffer, { transfer: [late.buffer] });
      yield 'next';
    })());
    expect([f.has('late'), f.has('next'), f.size]).toEqual([true, true, 2]);
    f.dispose();
    expect(await allocated()).toBe(before);
  });

  test('keys, iterables and bytes from another realm (node:vm): the same filter as this realm\'s', async () => {
    const context = vm.createContext({});
    const foreign = (code: string) => vm.runInContext(code, context);
    const keys = foreign(`[...Array.from({ length: 2000 }, (_, i) => 'realm-' + i), new Uint8Array([104, 105]), new Uint8Array([104, 105])]`) as Key[];
    expect(keys[2000] instanceof Uint8Array).toBe(false);
    const local = [...keysOf('x', 0), ...Array.from({ length: 2000 }, (_, i) => `realm-${i}`), 'hi'];
    const f = await BinaryFuseFilter.build(keys);
    const g = await BinaryFuseFilter.build(foreign(`new Set(${JSON.stringify(local)})`) as Set<string>);
    const h = await BinaryFuseFilter.build(local);
    expect(f.size).toBe(2001);
    expect(same(f.toBytes(), h.toBytes()) && same(g.toBytes(), h.toBytes())).toBe(true);
    const copy = foreign(`new Uint8Array(${h.byteLength})`) as Uint8Array;
    copy.set(h.toBytes());
    const loaded = await BinaryFuseFilter.fromBytes(copy);
    const read = await reader.BinaryFuseFilter.fromBytes(copy.buffer as ArrayBuffer);
    expect([loaded.has('hi'), read.has(foreign('new Uint8Array([104, 105])'))]).toEqual([true, true]);
    expect(f.diff(copy).length).toBeGreaterThan(0);
    for (const x of [f, g, h, loaded, read]) x.dispose();
  });

  test('a Uint8Array key changed after it was read (one buffer reused for every key): each key as it was read', async () => {
    const names = keysOf('reused', 20_000);
    function* reused(): Generator<Uint8Array> {
      const buffer = new Uint8Array(64);
      for (const t of names) {
        yield buffer.subarray(0, enc.encodeInto(t, buffer).written);
        buffer.fill(0xee); // overwritten before the next key is even written
      }
    }
    const f = await BinaryFuseFilter.build(reused());
    const plain = await BinaryFuseFilter.build(names);
    expect(f.size).toBe(20_000);
    expect(same(f.toBytes(), plain.toBytes())).toBe(true);
    // An array of views over one buffer changed from a getter of a later index.
    const shared = enc.encode('first');
    const list: Key[] = [shared, 'b'];
    Object.defineProperty(list, 1, {
      get() {
        shared.set(enc.encode('FIRST'));
        return 'b';
      },
    });
    const g = await BinaryFuseFilter.build(list);
    expect([g.has('first'), g.has('b'), g.size]).toEqual([true, true, 2]);
    for (const x of [f, plain, g]) x.dispose();
  });

  test('urls: true with an entry that is not a URL: InvalidUrlError with its index, no filter, nothing leaked', async () => {
    const entries = keysOf('ok', 10_000);
    const refuseAll = async () => {
      for (const [bad, reason] of [
        ['', 'empty'],
        ['   ', 'empty'],
        ['http://', 'no-host'],
        ['/just/a/path', 'no-host'],
      ] as const) {
        for (const at of [0, 5000, 9999]) {
          const list = entries.slice();
          list[at] = bad;
          const p = BinaryFuseFilter.build(list, { urls: true });
          await expect(p).rejects.toBeInstanceOf(InvalidUrlError);
          await expect(p).rejects.toMatchObject({ reason, index: at });
          // As an iterator too.
          await expect(BinaryFuseFilter.build(list.values(), { urls: true })).rejects.toMatchObject({ reason, index: at });
        }
      }
      // An entry too long to be a URL.
      await expect(BinaryFuseFilter.build(['a.example', `a.example/${'x'.repeat(9_000_000)}`], { urls: true })).rejects.toMatchObject({ reason: 'too-long', index: 1 });
    };
    // The first pass may grow a scratch region of the URL code by a few bytes, once (84 bytes here); the keys
    // collected before the refused entry (80,000 bytes for 10,000) are freed every time.
    const first = await allocated();
    await refuseAll();
    const before = await allocated();
    expect(before - first).toBeLessThan(1024);
    await refuseAll();
    expect(await allocated()).toBe(before);
    // The same entries as keys (urls false): no check, stored as bytes.
    const f = await BinaryFuseFilter.build(['', 'http://'], { urls: false });
    expect([f.has(''), f.has('http://'), f.size]).toEqual([true, true, 2]);
    f.dispose();
  });

  test('urls: true stores canonical expressions: a URL under an entry matches, the entry text itself as a key does not necessarily', async () => {
    const f = await BinaryFuseFilter.build(['EVIL.example', 'phish.example/login/', 'http://x.example/a/b?c', 'bücher.example'], { urls: true, fingerprintBits: 16 });
    expect(f.matchUrl('https://sub.evil.example/anything?q=1')).toBe('evil.example/');
    expect(f.matchUrl('http://phish.example/login/form')).toBe('phish.example/login/');
    expect(f.hasAllUrls(['http://x.example/a/b?c', 'http://x.example/a/b', 'http://xn--bcher-kva.example/', 'http://good.example/'])).toEqual([true, false, true, false]);
    expect(f.has('evil.example/')).toBe(true);
    expect(f.size).toBe(4);
    f.dispose();
  });
});

// ---------------------------------------------------------------------------

describe('bytes of other families, hostile bytes', () => {
  /** One filter of every other family, with a few keys, and golden files of earlier versions. */
  async function otherFamilies(): Promise<[string, Uint8Array, string][]> {
    const made: [string, { toBytes(): Uint8Array; dispose(): void }, string][] = [
      ['cuckoo', await CuckooFilter.create({ capacity: 100 }), 'is-cuckoo-filter'],
      ['cuckoo semi-sorted, growing', await CuckooFilter.create({ capacity: 100, semiSort: true, expansion: 2 }), 'is-cuckoo-filter'],
      ['Bloom', await BloomFilter.create({ capacity: 100 }), 'is-bloom-filter'],
      ['Redis cuckoo', await RedisCuckooFilter.create({ capacity: 100 }), 'is-redis-cuckoo-filter'],
      ['Redis Bloom', await RedisBloomFilter.create({ capacity: 100, errorRate: 0.01 }), 'is-redis-bloom-filter'],
    ];
    const out: [string, Uint8Array, string][] = made.map(([name, f, reason]) => {
      (f as unknown as { addAll(k: string[]): number }).addAll(keysOf(name, 50));
      const bytes = f.toBytes();
      f.dispose();
      return [name, bytes, reason];
    });
    for (const [file, reason] of [
      ['cuckoo-v1.bin', 'is-cuckoo-filter'],
      ['cuckoo-v2.bin', 'is-cuckoo-filter'],
      ['cuckoo-v4.bin', 'is-cuckoo-filter'],
      ['cuckoo-semisorted.bin', 'is-cuckoo-filter'],
      ['bloom-v2.bin', 'is-bloom-filter'],
      ['bloom-v3.bin', 'is-bloom-filter'],
      ['bloom-v4.bin', 'is-bloom-filter'],
      ['redis-cuckoo-v4.bin', 'is-redis-cuckoo-filter'],
      ['redis-bloom-v4.bin', 'is-redis-bloom-filter'],
    ]) {
      out.push([file, golden(file), reason]);
    }
    return out;
  }

  test("BinaryFuseFilter.fromBytes of every other family's bytes: FilterFormatError naming that family, in both entries", async () => {
    for (const [name, bytes, reason] of await otherFamilies()) {
      for (const cls of [BinaryFuseFilter, reader.BinaryFuseFilter]) {
        const p = cls.fromBytes(bytes);
        await expect(p).rejects.toMatchObject({ name: 'FilterFormatError', code: 'ERR_FILTER_FORMAT', reason });
        await expect(p).rejects.toThrow(name.startsWith('Redis') || name.startsWith('redis') ? /Redis/ : /./);
      }
    }
  });

  test("every other family's fromBytes of binary fuse bytes: FilterFormatError 'is-binary-fuse-filter' naming BinaryFuseFilter, in both entries", async () => {
    const f = await BinaryFuseFilter.build(keysOf('fuse', 100), { arity: 3 });
    const bytes = f.toBytes();
    f.dispose();
    const classes = [CuckooFilter, BloomFilter, RedisCuckooFilter, RedisBloomFilter, reader.CuckooFilter, reader.BloomFilter, reader.RedisCuckooFilter, reader.RedisBloomFilter];
    for (const cls of classes) {
      const p = cls.fromBytes(bytes);
      await expect(p).rejects.toBeInstanceOf(cls === CuckooFilter || cls === BloomFilter || cls === RedisCuckooFilter || cls === RedisBloomFilter ? FilterFormatError : reader.FilterFormatError);
      await expect(p).rejects.toMatchObject({ reason: 'is-binary-fuse-filter' });
      await expect(p).rejects.toThrow(/binary fuse filter.*BinaryFuseFilter\.fromBytes/);
    }
  });

  // The 80 bytes of headers: the file's (32) and the section's (48), field by field (src/fuse/fuse_format.h).
  const FIELDS: { name: string; start: number; end: number; free?: boolean }[] = [
    { name: 'magic', start: 0, end: 4 },
    { name: 'version', start: 4, end: 6 },
    { name: 'family', start: 6, end: 7 },
    { name: 'encoding', start: 7, end: 8 },
    { name: 'scheme (arity)', start: 8, end: 9 },
    { name: 'growth', start: 9, end: 10 },
    { name: 'hash id', start: 10, end: 11 },
    { name: 'sub-filter count', start: 11, end: 12 },
    { name: 'expansion', start: 12, end: 16 },
    { name: 'seed', start: 16, end: 24, free: true }, // any seed is a valid filter (of other answers)
    { name: 'reserved', start: 24, end: 32 },
    { name: 'key count', start: 32, end: 40, free: true }, // any count up to the array length
    { name: 'construction seed', start: 40, end: 48, free: true }, // any: nothing in the file can check it
    { name: 'fingerprint bits', start: 48, end: 52 },
    { name: 'arity', start: 52, end: 56 },
    { name: 'segment length', start: 56, end: 60 },
    { name: 'segment count', start: 60, end: 64 },
    { name: 'array length', start: 64, end: 72 },
    { name: 'fingerprint bytes', start: 72, end: 80 },
  ];
  const fieldAt = (byte: number) => FIELDS.find((f) => byte >= f.start && byte < f.end)!;

  /** What loading `bytes` gives in an entry: the filter written back, or the error's class, reason and message. */
  async function outcome(cls: { fromBytes(b: Uint8Array): Promise<{ toBytes(): Uint8Array; dispose(): void; has(k: Key): boolean }> }, bytes: Uint8Array) {
    try {
      const f = await cls.fromBytes(bytes);
      const back = f.toBytes();
      f.has('probe');
      f.dispose();
      return { loaded: true, writtenBack: same(back, bytes) };
    } catch (e) {
      const err = e as { name: string; reason?: string; message: string };
      return { loaded: false, name: err.name, reason: err.reason, message: err.message };
    }
  }

  /** A small filter: 20 keys, arity 4, f = 11: 11 segments of 4 slots, 61 table bytes whose last has 4 bits of padding. */
  async function small(): Promise<Uint8Array> {
    const f = await BinaryFuseFilter.build(keysOf('k', 20), { arity: 4, fingerprintBits: 11 });
    const bytes = f.toBytes();
    f.dispose();
    return bytes;
  }

  test('the small filter of these tests: its layout and sealed checksum as docs/FORMAT.md §14 and fuse_format.h say', async () => {
    const bytes = await small();
    const dv = new DataView(bytes.buffer, bytes.byteOffset);
    expect(Buffer.from(bytes.subarray(0, 4)).toString('latin1')).toBe('CKOO');
    expect([dv.getUint16(4, true), bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11], dv.getUint32(12, true)]).toEqual([4, 5, 0, 4, 0, 1, 1, 0]);
    expect([dv.getBigUint64(32, true), dv.getUint32(48, true), dv.getUint32(52, true)]).toEqual([20n, 11, 4]);
    const [segmentLength, segmentCount, arrayLength, fingerprintBytes] = [dv.getUint32(56, true), dv.getUint32(60, true), Number(dv.getBigUint64(64, true)), Number(dv.getBigUint64(72, true))];
    expect([segmentLength, segmentCount]).toEqual([4, 8]);
    expect(arrayLength).toBe((segmentCount + 3) * segmentLength);
    expect(fingerprintBytes).toBe(Math.ceil((arrayLength * 11) / 8));
    expect(bytes.length).toBe(80 + fingerprintBytes + 8);
    expect((arrayLength * 11) % 8).toBe(4); // the last table byte has 4 bits of padding
    expect(sealed(bytes)).toBe(true);
  });

  test('every bit of both headers flipped, the checksum sealed again: refused with FilterFormatError (never a trap), or a valid filter of a field any value is valid for; both entries alike', async () => {
    const bytes = await small();
    const summary: Record<string, Record<string, number>> = {};
    const edits: Uint8Array[] = [];
    for (let byte = 0; byte < 80; byte++) {
      for (let bit = 0; bit < 8; bit++) {
        const copy = bytes.slice();
        copy[byte] ^= 1 << bit;
        edits.push(copy);
      }
      for (const value of [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x7f, 0x80, 0xff]) {
        const copy = bytes.slice();
        if (copy[byte] === value) continue;
        copy[byte] = value;
        edits.push(copy);
      }
    }
    for (const copy of edits) {
      seal(copy);
      const byte = copy.findIndex((b, i) => b !== bytes[i]);
      const field = fieldAt(byte);
      const got = await outcome(BinaryFuseFilter, copy);
      expect(await outcome(reader.BinaryFuseFilter, copy)).toEqual(got);
      if (got.loaded) {
        expect([field.name, byte, copy[byte], field.free === true, got.writtenBack]).toEqual([field.name, byte, copy[byte], true, true]);
      } else {
        expect([field.name, byte, copy[byte], got.name]).toEqual([field.name, byte, copy[byte], 'FilterFormatError']);
      }
      const key = got.loaded ? 'loaded' : got.reason!;
      (summary[field.name] ??= {})[key] = (summary[field.name][key] ?? 0) + 1;
    }
    console.log(`binary fuse, ${bytes.length} bytes, sealed header edits by field: ${JSON.stringify(summary)}`);
    // Each field that is checked was refused for every edit, by the check of its field.
    expect(summary['magic']).toEqual({ 'bad-magic': expect.any(Number) });
    expect(Object.keys(summary['version'])).toEqual(expect.arrayContaining(['unsupported-version']));
    expect(Object.keys(summary['family']).sort()).toEqual(expect.arrayContaining(['is-cuckoo-filter', 'is-bloom-filter', 'is-redis-cuckoo-filter', 'is-redis-bloom-filter', 'bad-parameter']));
    for (const name of ['encoding', 'scheme (arity)', 'growth', 'hash id', 'expansion', 'reserved', 'fingerprint bits', 'arity', 'segment length', 'segment count', 'array length', 'fingerprint bytes']) {
      expect([name, summary[name].loaded ?? 0]).toEqual([name, 0]);
    }
    expect(summary['seed']).toEqual({ loaded: expect.any(Number) });
    expect(summary['construction seed']).toEqual({ loaded: expect.any(Number) });
    expect(summary['key count'].loaded).toBeGreaterThan(0);
    expect(summary['key count']['bad-parameter']).toBeGreaterThan(0); // above the array length
  });

  test('every bit of the table flipped and sealed: a valid filter written back, but the padding bits: bad-padding; unsealed: checksum-mismatch', async () => {
    const bytes = await small();
    const tableEnd = bytes.length - 8;
    const usedBits = 44 * 11; // the small filter's 44 slots
    for (let bit = 80 * 8; bit < tableEnd * 8; bit++) {
      const copy = bytes.slice();
      copy[bit >> 3] ^= 1 << (bit & 7);
      expect(await outcome(BinaryFuseFilter, copy)).toMatchObject({ loaded: false, reason: 'checksum-mismatch' });
      seal(copy);
      const got = await outcome(BinaryFuseFilter, copy);
      expect(await outcome(reader.BinaryFuseFilter, copy)).toEqual(got);
      if (bit - 80 * 8 < usedBits) expect([bit, got]).toEqual([bit, { loaded: true, writtenBack: true }]);
      else expect([bit, got]).toMatchObject([bit, { loaded: false, name: 'FilterFormatError', reason: 'bad-padding' }]);
    }
    // The checksum itself.
    for (let byte = tableEnd; byte < bytes.length; byte++) {
      const copy = bytes.slice();
      copy[byte] ^= 0x10;
      expect(await outcome(BinaryFuseFilter, copy)).toMatchObject({ loaded: false, reason: 'checksum-mismatch' });
    }
  });

  test('every truncation, sealed or not, and bytes appended: FilterFormatError in both entries, nothing leaked', async () => {
    const bytes = await small();
    const before = await allocated();
    const reasons = new Set<string>();
    for (let n = 0; n < bytes.length; n++) {
      const cut = bytes.slice(0, n);
      const variants = [cut];
      if (n >= 40) {
        const resealed = cut.slice();
        seal(resealed);
        variants.push(resealed);
      }
      for (const v of variants) {
        const got = await outcome(BinaryFuseFilter, v);
        expect(await outcome(reader.BinaryFuseFilter, v)).toEqual(got);
        expect([n, got.loaded, got.name]).toEqual([n, false, 'FilterFormatError']);
        reasons.add(got.reason!);
      }
    }
    for (const extra of [1, 7, 8, 100]) {
      const longer = new Uint8Array(bytes.length + extra);
      longer.set(bytes.subarray(0, bytes.length - 8));
      seal(longer);
      const got = await outcome(BinaryFuseFilter, longer);
      expect([extra, got.loaded, got.name]).toEqual([extra, false, 'FilterFormatError']);
      reasons.add(got.reason!);
    }
    expect([...reasons].sort()).toEqual(['trailing-bytes', 'truncated']);
    expect(await allocated()).toBe(before);
  });

  test('sealed headers that break one rule each: refused with the reason of its check, nothing allocated for the table they claim', async () => {
    const bytes = await small();
    const edit = (change: (dv: DataView, b: Uint8Array) => void) => {
      const copy = bytes.slice();
      change(new DataView(copy.buffer), copy);
      seal(copy);
      return copy;
    };
    const before = await allocated();
    const cases: [string, Uint8Array, string][] = [
      ['key count above the array length', edit((dv) => dv.setBigUint64(32, 10_000n, true)), 'bad-parameter'],
      ['scheme 3 with a section of arity 4', edit((_, b) => (b[8] = 3)), 'bad-parameter'],
      ['arity 3 with scheme 4', edit((dv) => dv.setUint32(52, 3, true)), 'bad-parameter'],
      ['arity 5 and scheme 5', edit((dv, b) => ((b[8] = 5), dv.setUint32(52, 5, true))), 'bad-parameter'],
      ['fingerprint bits 17', edit((dv) => dv.setUint32(48, 17, true)), 'bad-parameter'],
      ['fingerprint bits 7', edit((dv) => dv.setUint32(48, 7, true)), 'bad-parameter'],
      ['segment length 6 (not a power of two)', edit((dv) => dv.setUint32(56, 6, true)), 'bad-parameter'],
      ['segment length 2^19', edit((dv) => dv.setUint32(56, 1 << 19, true)), 'bad-parameter'],
      ['segment count 0', edit((dv) => dv.setUint32(60, 0, true)), 'bad-parameter'],
      ['two sub-filters', edit((_, b) => (b[11] = 2)), 'bad-parameter'],
      ['growth 1, expansion 2', edit((dv, b) => ((b[9] = 1), dv.setUint32(12, 2, true))), 'bad-parameter'],
      // A table of 2^30 slots claimed, none there: refused before the module allocates it.
      [
        'segment count 2^28 with the lengths that follow, no table',
        edit((dv) => {
          dv.setUint32(56, 4, true);
          dv.setUint32(60, 2 ** 28, true);
          dv.setBigUint64(64, BigInt((2 ** 28 + 3) * 4), true);
          dv.setBigUint64(72, BigInt(Math.ceil(((2 ** 28 + 3) * 4 * 11) / 8)), true);
        }),
        'truncated',
      ],
      // Lengths that wrap around 2^64 once the 48-byte header is added.
      ['fingerprint bytes 2^64 - 32', edit((dv) => dv.setBigUint64(72, (1n << 64n) - 32n, true)), 'truncated'],
      ['fingerprint bytes 2^64 - 48', edit((dv) => dv.setBigUint64(72, (1n << 64n) - 48n, true)), 'truncated'],
      ['array length 2^64 - 1', edit((dv) => dv.setBigUint64(64, (1n << 64n) - 1n, true)), 'bad-parameter'],
      ['the padding bits set', edit((_, b) => (b[b.length - 9] |= 0xf0)), 'bad-padding'],
    ];
    const got: Record<string, string | undefined> = {};
    for (const [name, copy] of cases) {
      const r = await outcome(BinaryFuseFilter, copy);
      expect(await outcome(reader.BinaryFuseFilter, copy)).toEqual(r);
      expect([name, r.name]).toEqual([name, 'FilterFormatError']);
      got[name] = r.reason;
    }
    console.log(`binary fuse, sealed headers breaking one rule: ${JSON.stringify(got)}`);
    // Lengths that claim more bytes than the file has may be refused as truncated or as bad-parameter: either way,
    // the check of that rule, not the checksum.
    for (const [name, , reason] of cases) {
      if (reason === 'truncated') expect([name, got[name]]).toEqual([name, expect.stringMatching(/^(truncated|bad-parameter)$/)]);
      else expect([name, got[name]]).toEqual([name, reason]);
    }
    expect(await allocated()).toBe(before);
  });
});

// ---------------------------------------------------------------------------

describe('patches between versions of a list (diff, applyPatch, applyPatchBytes)', () => {
  const older = keysOf('list', 10_000);
  // 1% replaced: 100 keys out, 100 keys in, so the count and the table's shape stay.
  const newer = older.map((k, i) => (i % 100 === 37 ? `new-${i}.example` : k));

  test('a 1% change: newer.diff(older), then older.applyPatch(patch) and applyPatchBytes give the newer bytes exactly, in both entries', async () => {
    for (const options of [{}, { arity: 3 as const, fingerprintBits: 13 }]) {
      const a = await BinaryFuseFilter.build(older, options);
      const b = await BinaryFuseFilter.build(newer, options);
      const newerBytes = b.toBytes();
      const olderBytes = a.toBytes();
      const patch = b.diff(a);
      expect(same(b.diff(olderBytes), patch)).toBe(true);
      expect(same(b.diff(olderBytes.buffer as ArrayBuffer), patch)).toBe(true);
      const info = await full.patchInfo(patch);
      console.log(`binary fuse ${JSON.stringify(options)}: 10,000 keys, 1% replaced: patch ${patch.length} bytes (${info.changes} changes), filter ${newerBytes.length} bytes (${((100 * patch.length) / newerBytes.length).toFixed(1)}%)`);
      expect(same(await applyPatchBytes(olderBytes, patch), newerBytes)).toBe(true);
      expect(same(await reader.applyPatchBytes(olderBytes, patch), newerBytes)).toBe(true);
      expect(info).toMatchObject({ family: 'BinaryFuseFilter', baseLength: olderBytes.length, resultLength: newerBytes.length });
      expect(await reader.patchInfo(patch)).toEqual(info);
      const r = await reader.BinaryFuseFilter.fromBytes(olderBytes);
      a.applyPatch(patch);
      r.applyPatch(patch);
      for (const x of [a, r]) {
        expect(same(x.toBytes(), newerBytes)).toBe(true);
        expect(x.hasAll(newer).every(Boolean)).toBe(true);
        expect(x.info()).toEqual(b.info());
      }
      // A patch of another base: refused, the filter unchanged.
      expect(() => a.applyPatch(patch)).toThrow(expect.objectContaining({ reason: 'patch-wrong-base' }));
      expect(same(a.toBytes(), newerBytes)).toBe(true);
      // Patches chain, and run backwards.
      const back = (await BinaryFuseFilter.build(older, options)).diff(b);
      a.applyPatch(back);
      expect(same(a.toBytes(), olderBytes)).toBe(true);
      for (const x of [a, b, r]) x.dispose();
    }
  });

  test.each<[string, string[], BinaryFuseFilterOptions, BinaryFuseFilterOptions, RegExp]>([
    ['key counts far apart (100 and 10,000)', keysOf('list', 100), {}, {}, /differ in segment (length|count): \d+ in the older filter, \d+ in the newer/],
    ['key counts a little apart (10,000 and 10,500)', keysOf('list', 10_500), {}, {}, /differ in segment (length|count): \d+ in the older filter, \d+ in the newer/],
    ['fingerprint bits', keysOf('list', 10_000), { fingerprintBits: 9 }, {}, /differ in fingerprint bits: 9 in the older filter, 8 in the newer/],
    ['arity', keysOf('list', 10_000), { arity: 3 }, {}, /differ in (position scheme|arity): 3 in the older filter, 4 in the newer/],
    ['seed', keysOf('list', 10_000), { seed: 5 }, {}, /differ in seed: 5 in the older filter/],
  ])('%s: FilterFormatError patch-family naming the field and both values', async (_, olderKeys, olderOptions, newerOptions, message) => {
    const a = await BinaryFuseFilter.build(olderKeys, olderOptions);
    const b = await BinaryFuseFilter.build(older, newerOptions);
    const before = await allocated();
    expect(() => b.diff(a)).toThrow(FilterFormatError);
    expect(() => b.diff(a)).toThrow(expect.objectContaining({ reason: 'patch-family' }));
    expect(() => b.diff(a)).toThrow(message);
    expect(await allocated()).toBe(before);
    a.dispose();
    b.dispose();
  });

  test("diff against another family's filter or bytes: patch-family; against what is no filter: ArgumentTypeError", async () => {
    const b = await BinaryFuseFilter.build(older);
    const cuckoo = await CuckooFilter.create({ capacity: 100 });
    expect(() => b.diff(cuckoo as never)).toThrow(expect.objectContaining({ reason: 'patch-family' }));
    expect(() => b.diff(cuckoo.toBytes())).toThrow(expect.objectContaining({ reason: 'patch-family' }));
    expect(() => b.diff('bytes' as never)).toThrow(ArgumentTypeError);
    expect(() => b.diff(new Uint8Array(10))).toThrow(FilterFormatError);
    // A filter of the reader entry (another copy of the package): read by its bytes.
    const r = await reader.BinaryFuseFilter.fromBytes((await BinaryFuseFilter.build(older)).toBytes());
    expect(b.diff(r as never).length).toBeGreaterThan(0);
    for (const x of [b, cuckoo, r]) x.dispose();
  });
});

// ---------------------------------------------------------------------------

describe('dispose', () => {
  /** Symbol.dispose, or in a realm without it (Jest's) the registry symbol the package falls back to. */
  const DISPOSE: typeof Symbol.dispose = (Symbol.dispose ?? Symbol.for('Symbol.dispose')) as typeof Symbol.dispose;

  test('every member after dispose() throws FilterDisposedError; dispose twice does nothing; memory back to before', async () => {
    const before = await allocated();
    const f = await BinaryFuseFilter.build(keysOf('d', 1000));
    const other = await BinaryFuseFilter.build(keysOf('d', 1000));
    const patch = f.diff(other);
    expect(await allocated()).toBeGreaterThan(before);
    f.dispose();
    f.dispose();
    expect(f.disposed).toBe(true);
    for (const [name, call] of Object.entries({
      has: () => f.has('d-1.example'),
      hasAll: () => f.hasAll(['x']),
      hasAllInto: () => f.hasAll(['x'], new Uint8Array(1)),
      hasUrl: () => f.hasUrl('http://x.example/'),
      matchUrl: () => f.matchUrl('http://x.example/'),
      hasAllUrls: () => f.hasAllUrls(['http://x.example/']),
      toBytes: () => f.toBytes(),
      info: () => f.info(),
      size: () => f.size,
      byteLength: () => f.byteLength,
      bitsPerItem: () => f.bitsPerItem,
      subFilterCount: () => f.subFilterCount,
      diff: () => f.diff(other),
      diffOfDisposed: () => other.diff(f),
      applyPatch: () => f.applyPatch(patch),
    })) {
      expect([name, () => call()]).toEqual([name, expect.any(Function)]);
      expect(call).toThrow(FilterDisposedError);
    }
    expect(JSON.stringify(f)).toBe('{"disposed":true}');
    other[DISPOSE]();
    expect(other.disposed).toBe(true);
    expect(await allocated()).toBe(before);
  });

  test('the reader entry likewise; [Symbol.dispose]', async () => {
    const r = await reader.BinaryFuseFilter.fromBytes((await BinaryFuseFilter.build(['x'])).toBytes());
    r[DISPOSE]();
    r[DISPOSE]();
    expect(r.disposed).toBe(true);
    expect(() => r.has('x')).toThrow(reader.FilterDisposedError);
    expect(() => r.info()).toThrow(reader.FilterDisposedError);
  });

  test('a getter that disposes the filter during its own hasAll: FilterDisposedError, no answer from freed memory', async () => {
    const keys = keysOf('k', 20_000);
    const f = await BinaryFuseFilter.build(keys);
    const list = keys.slice();
    Object.defineProperty(list, 10_000, {
      get() {
        f.dispose();
        return keys[10_000];
      },
    });
    expect(() => f.hasAll(list)).toThrow(FilterDisposedError);
    expect(() => f.hasAllUrls(list)).toThrow(FilterDisposedError);
  });

  test('[Symbol.dispose] is Symbol.dispose in a realm that has it (a child Node.js process)', () => {
    const script = `
const { BinaryFuseFilter } = require(${JSON.stringify(join(root, 'dist', 'node.cjs'))});
const reader = require(${JSON.stringify(join(root, 'dist', 'reader-node.cjs'))});
(async () => {
  const f = await BinaryFuseFilter.build(['x']);
  const r = await reader.BinaryFuseFilter.fromBytes(f.toBytes());
  f[Symbol.dispose]();
  r[Symbol.dispose]();
  console.log(JSON.stringify([typeof Symbol.dispose, f.disposed, r.disposed]));
})();`;
    const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual(['symbol', true, true]);
  });

  test('filters built from the same keys are independent: disposing one leaves the other answering', async () => {
    const keys = keysOf('twin', 5000);
    const [a, b] = await Promise.all([BinaryFuseFilter.build(keys), BinaryFuseFilter.build(keys)]);
    a.dispose();
    expect(b.hasAll(keys).every(Boolean)).toBe(true);
    b.dispose();
  });
});
