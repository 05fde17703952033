// The BloomFilter API where it is its own: options and their errors, m and k
// against the sizing formula, the false-positive rate, statistics, union and
// isCompatible, growth, dispose. What every family does is tested over the
// list of families.ts: key forms and wrong arguments (arguments.test.ts), user
// code inside batches (adversarial.test.ts), model-based sequences
// (property.test.ts). The byte format of growing filters: growth-format.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vm from 'node:vm';
import {
  ArgumentRangeError,
  ArgumentTypeError,
  BloomFilter,
  CuckooFilter,
  FilterDisposedError,
  FilterFullError,
} from 'cuckoo-wasm';

const dist = join(__dirname, '..', '..', 'dist');
const LN2 = Math.LN2;
const keysOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}.example`);
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** m = ⌈−n·ln ε / (ln 2)²⌉ and k = max(1, round((m/n)·ln 2)): the sizing the docs promise (src/bloom/bloom_filter.h). */
function sizing(n: number, eps: number): { m: number; k: number } {
  const m = Math.max(1, Math.ceil((-n * Math.log(eps)) / (LN2 * LN2)));
  return { m, k: Math.max(1, Math.round((m / n) * LN2)) };
}

/** Bytes of toBytes(): 24-byte stack header, per sub-filter a 48-byte section header and ⌈m/64⌉ words, 8-byte checksum. */
// Format version 4 (docs/FORMAT.md §14): a 32-byte header, the sections, the checksum.
const bytesFor = (bits: number[]) => 32 + bits.reduce((s, m) => s + 48 + Math.ceil(m / 64) * 8, 0) + 8;

/** Runs `fn` and returns what it threw (undefined if nothing). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

/** Checks the module still works for everyone: a new filter, an add, a lookup. */
async function moduleStillWorks(): Promise<void> {
  const f = await BloomFilter.create({ capacity: 100 });
  f.addAll(keysOf('alive', 50));
  expect(f.hasAll(keysOf('alive', 50)).every(Boolean)).toBe(true);
  f.dispose();
}

describe('create: options and sizing', () => {
  test.each([
    [1, 0.5],
    [1, 0.01],
    [7, 0.3],
    [100, 0.9], // k rounds to 0: clamped to 1
    [100, 0.01],
    [1000, 0.001],
    [12345, 0.0001],
    [50_000, 1e-6],
    [1_000_000, 0.02],
    [10, 1e-19], // k = 63
  ])('capacity %p at ε = %p: m and k are the formula; byteLength, bitsPerItem follow from them', async (n, eps) => {
    const f = await BloomFilter.create({ capacity: n, falsePositiveRate: eps });
    const { m, k } = sizing(n, eps);
    expect([f.bitCount, f.hashCount]).toEqual([m, k]);
    expect(f.capacity).toBe(n);
    expect(f.falsePositiveRate).toBe(eps);
    expect(f.byteLength).toBe(bytesFor([m]));
    expect(f.toBytes().length).toBe(f.byteLength);
    expect(f.bitsPerItem).toBeCloseTo((f.byteLength * 8) / n, 10);
    expect(f.subFilterCount).toBe(1);
    expect(f.expansion).toBe(0);
    expect(f.size).toBe(0);
    expect(f.estimatedCount()).toBe(0);
    expect(f.expectedFalsePositiveRate).toBe(0);
    f.dispose();
  });

  test('defaults: ε = 0.01, the fixed seed, no growth; the same options give the same bytes', async () => {
    const f = await BloomFilter.create({ capacity: 1000 });
    const { m, k } = sizing(1000, 0.01);
    expect([f.bitCount, f.hashCount, f.falsePositiveRate, f.expansion]).toEqual([m, k, 0.01, 0]);
    expect(f.seed).toBe(0x63756b6f6f2d7761n);
    const g = await BloomFilter.create({ capacity: 1000, falsePositiveRate: 0.01, seed: 0x63756b6f6f2d7761n });
    f.addAll(['a', 'b']);
    g.addAll(['a', 'b']);
    expect(same(f.toBytes(), g.toBytes())).toBe(true);
    f.dispose();
    g.dispose();
  });

  test('a seed changes the bytes; a number and a bigint seed are the same seed; 0 and 2^64-1 work', async () => {
    const make = async (seed: number | bigint) => {
      const f = await BloomFilter.create({ capacity: 100, seed });
      f.addAll(['a', 'b', 'c']);
      expect(f.seed).toBe(BigInt(seed));
      expect(f.hasAll(['a', 'b', 'c'])).toEqual([true, true, true]);
      const bytes = Buffer.from(f.toBytes());
      f.dispose();
      return bytes;
    };
    expect((await make(1)).equals(await make(1n))).toBe(true);
    expect((await make(1)).equals(await make(2))).toBe(false);
    expect((await make(0)).equals(await make(2n ** 64n - 1n))).toBe(false);
    expect((await make(Number.MAX_SAFE_INTEGER)).equals(await make(BigInt(Number.MAX_SAFE_INTEGER)))).toBe(true);
  });

  test('k up to 64 is accepted; more hash functions, or more than 2^32 - 1 bits, are refused before allocating', async () => {
    const k64 = await BloomFilter.create({ capacity: 10, falsePositiveRate: 2 ** -64.4 });
    expect(k64.hashCount).toBe(64);
    k64.dispose();
    for (const options of [
      { capacity: 10, falsePositiveRate: 1e-20 }, // k = 66
      { capacity: 5e8, falsePositiveRate: 0.01 }, // m = 4.8e9 bits
      { capacity: 1e12 },
    ]) {
      const p = BloomFilter.create(options);
      await expect(p).rejects.toBeInstanceOf(ArgumentRangeError);
      await expect(p).rejects.toThrow(/needs more than 2\^32 - 1 bits or more than 64 hash functions/);
    }
    // With growth, sub-filter 0 is sized for ε/2: one more hash function than without.
    await expect(BloomFilter.create({ capacity: 10, falsePositiveRate: 2 ** -64.4, expansion: 2 })).rejects.toThrow(
      ArgumentRangeError,
    );
  });

  /** Each bad option value, the error class it gets, and what its message says. */
  type BadOption = readonly [object, typeof ArgumentTypeError | typeof ArgumentRangeError, RegExp];
  const badOptions: BadOption[] = [
    [{}, ArgumentTypeError, /^capacity must be a number, got undefined/],
    ...[null, '10', 10n, {}, true].map((v) => [{ capacity: v }, ArgumentTypeError, /^capacity must be a number, got /] as const),
    ...[0, NaN, Infinity, -Infinity, -1, 0.5, 1.5, 2 ** 53].map(
      (v) => [{ capacity: v }, ArgumentRangeError, /^capacity must be an integer from 1 to 9007199254740991, got /] as const,
    ),
    ...[NaN, Infinity, -Infinity, 0, 1, 2, -0.1].map(
      (v) => [{ capacity: 10, falsePositiveRate: v }, ArgumentRangeError, /^falsePositiveRate must be a probability in \(0, 1\), got /] as const,
    ),
    ...['0.01', null, 1n].map(
      (v) => [{ capacity: 10, falsePositiveRate: v }, ArgumentTypeError, /^falsePositiveRate must be a number in \(0, 1\), got /] as const,
    ),
    ...[NaN, -1, 0.5, 2 ** 53].map((v) => [{ capacity: 10, seed: v }, ArgumentRangeError, /^seed must be an integer from 0/] as const),
    ...[-1n, 2n ** 64n].map((v) => [{ capacity: 10, seed: v }, ArgumentRangeError, /^seed must be from 0 to 2\^64-1/] as const),
    ...['1', null, {}].map((v) => [{ capacity: 10, seed: v }, ArgumentTypeError, /^seed must be a number/] as const),
    ...[0, 1, -2, 2.5, 1025, 4096, NaN, Infinity].map(
      (v) => [{ capacity: 10, expansion: v }, ArgumentRangeError, /^expansion must be an integer from 2 to 1024, got /] as const,
    ),
    ...['2', null, 2n, true].map((v) => [{ capacity: 10, expansion: v }, ArgumentTypeError, /^expansion must be a number, got /] as const),
    // Cuckoo-only options and misspellings are refused rather than ignored.
    [{ capacity: 10, bucketSize: 4 }, ArgumentTypeError, /^unknown option "bucketSize": the options of BloomFilter\.create are capacity, falsePositiveRate, seed, expansion$/],
    [{ capacity: 10, errorRate: 0.01 }, ArgumentTypeError, /^unknown option "errorRate"/],
  ];

  test.each(badOptions)('create(%p): %p, with a message naming the option', async (options, type, message) => {
    const p = BloomFilter.create(options as never);
    await expect(p).rejects.toBeInstanceOf(type);
    await expect(p).rejects.toBeInstanceOf(type === ArgumentTypeError ? TypeError : RangeError);
    await expect(p).rejects.toThrow(message);
    await expect(p).rejects.toHaveProperty('code', type === ArgumentTypeError ? 'ERR_INVALID_ARG_TYPE' : 'ERR_OUT_OF_RANGE');
  });

  test('options that are not an object: ArgumentTypeError; edge values that are valid work', async () => {
    for (const options of [null, undefined, 5, 'capacity', true]) {
      const p = BloomFilter.create(options as never);
      await expect(p).rejects.toBeInstanceOf(ArgumentTypeError);
      await expect(p).rejects.toThrow(/^options must be an object with at least \{ capacity \}/);
    }
    for (const options of [
      { capacity: 1 },
      { capacity: 10, falsePositiveRate: 1 - 2 ** -53 },
      { capacity: 10, falsePositiveRate: 1e-19 },
      { capacity: 10, expansion: 2 },
      { capacity: 10, expansion: 1024 },
      { capacity: 10, seed: 0 },
      { capacity: 10, falsePositiveRate: undefined, seed: undefined, expansion: undefined },
    ]) {
      const g = await BloomFilter.create(options);
      g.add('x');
      expect(g.has('x')).toBe(true);
      g.dispose();
    }
    await moduleStillWorks();
  });
});

describe('membership', () => {
  let f: BloomFilter;
  beforeEach(async () => {
    f = await BloomFilter.create({ capacity: 1000, falsePositiveRate: 0.01 });
  });
  afterEach(() => f.dispose());

  test('add returns the filter; has finds every added key; absent keys are absent at about ε', () => {
    expect(f.add('alpha')).toBe(f);
    f.add('beta').add('gamma');
    expect(['alpha', 'beta', 'gamma'].map((k) => f.has(k))).toEqual([true, true, true]);
    const keys = keysOf('member', 997);
    for (const k of keys) f.add(k);
    expect(keys.every((k) => f.has(k))).toBe(true);
    expect(f.size).toBe(1000);
    let fp = 0;
    for (let i = 0; i < 100_000; i++) if (f.has(`absent-${i}`)) fp++;
    // ε = 1% at capacity: 1000 expected, σ ≈ 31.
    expect(fp).toBeGreaterThan(800);
    expect(fp).toBeLessThan(1200);
  });

  test('there is no delete (and no count): clearing bits would lose other keys', () => {
    expect((f as unknown as Record<string, unknown>).delete).toBeUndefined();
    expect((f as unknown as Record<string, unknown>).count).toBeUndefined();
    expect('delete' in f).toBe(false);
  });
  // Key forms, wrong keys and batches against loops: arguments.test.ts, run over every family.
});

describe('statistics', () => {
  test('size counts duplicates; estimatedCount counts distinct keys, within 2% at capacity', async () => {
    const f = await BloomFilter.create({ capacity: 20_000, falsePositiveRate: 0.01 });
    const keys = keysOf('est', 20_000);
    f.addAll(keys);
    expect(f.size).toBe(20_000);
    const est = f.estimatedCount();
    expect(Math.abs(est - 20_000) / 20_000).toBeLessThan(0.02);
    f.addAll(keys); // again: size doubles, the bits and the estimate do not change
    expect(f.size).toBe(40_000);
    expect(f.estimatedCount()).toBe(est);
    // The estimate from the set bits X: −(m/k)·ln(1 − X/m).
    const info = f.info();
    const { bitCount: m, hashCount: k, setBitCount: x } = info.subFilters[0];
    expect(est).toBeCloseTo((-m / k) * Math.log(1 - x / m), 6);
    f.dispose();
  });

  test('expectedFalsePositiveRate is (1 − e^(−kn/m))^k: about ε at capacity, climbing past it without growth; measured rates follow', async () => {
    const n = 5000;
    const f = await BloomFilter.create({ capacity: n, falsePositiveRate: 0.01 });
    const { m, k } = sizing(n, 0.01);
    const probes = keysOf('probe', 40_000);
    let last = 0;
    for (const fill of [1, 2, 4, 8]) {
      f.addAll(keysOf(`fill${fill}`, fill * n - f.size));
      expect(f.size).toBe(fill * n);
      const expected = f.expectedFalsePositiveRate;
      expect(expected).toBeCloseTo((1 - Math.exp((-k * fill * n) / m)) ** k, 12);
      expect(expected).toBeGreaterThan(last);
      last = expected;
      if (fill === 1) expect(Math.abs(expected - 0.01) / 0.01).toBeLessThan(0.05);
      else expect(expected).toBeGreaterThan(0.01 * fill);
      // Measured on 40,000 non-members: within 5σ of the rate of the bits actually set, (X/m)^k.
      const x = f.info().subFilters[0].setBitCount;
      const p = (x / m) ** k;
      const measured = f.hasAll(probes).filter(Boolean).length / probes.length;
      expect(Math.abs(measured - p)).toBeLessThan(5 * Math.sqrt((p * (1 - p)) / probes.length) + 1e-4);
    }
    // Never refused, however far past capacity: no growth means no FilterFullError.
    expect(f.subFilterCount).toBe(1);
    f.dispose();
  });

  test('every bit set: estimatedCount is Infinity, the expected and measured rates are 1', async () => {
    const f = await BloomFilter.create({ capacity: 1, falsePositiveRate: 0.5 });
    expect([f.bitCount, f.hashCount]).toEqual([2, 1]);
    f.addAll(keysOf('fill', 200));
    expect(f.info().subFilters[0].setBitCount).toBe(2);
    expect(f.estimatedCount()).toBe(Infinity);
    expect(f.hasAll(keysOf('never-added', 100)).every(Boolean)).toBe(true);
    expect(f.expectedFalsePositiveRate).toBeGreaterThan(0.99);
    f.dispose();
  });

  test('info() is one plain object consistent with the getters, sub-filter by sub-filter', async () => {
    const f = await BloomFilter.create({ capacity: 50, falsePositiveRate: 0.02, expansion: 3, seed: 7 });
    f.addAll(keysOf('info', 500)); // 50 + 150 + 450: three sub-filters
    const info = f.info();
    expect(info).toMatchObject({
      type: 'bloom',
      capacity: 50,
      size: 500,
      seed: 7n,
      expansion: 3,
      falsePositiveRate: 0.02,
      bitCount: f.bitCount,
      hashCount: f.hashCount,
      byteLength: f.byteLength,
      bitsPerItem: f.bitsPerItem,
      expectedFalsePositiveRate: f.expectedFalsePositiveRate,
      estimatedCount: f.estimatedCount(),
    });
    expect(info.subFilters).toHaveLength(3);
    expect(f.subFilterCount).toBe(3);
    const subs = info.subFilters;
    expect(subs.map((s) => s.capacity)).toEqual([50, 150, 450]);
    expect(subs.map((s) => s.size)).toEqual([50, 150, 300]);
    expect(subs.map((s) => s.falsePositiveRate)).toEqual([0.01, 0.005, 0.0025]);
    subs.forEach((s, j) => {
      const { m, k } = sizing(s.capacity, s.falsePositiveRate);
      expect([j, s.bitCount, s.hashCount]).toEqual([j, m, k]);
      expect(s.byteLength).toBe(48 + Math.ceil(m / 64) * 8);
      expect(s.expectedFalsePositiveRate).toBeCloseTo((1 - Math.exp((-k * s.size) / m)) ** k, 12);
      expect(s.setBitCount).toBeGreaterThan(0);
      expect(s.setBitCount).toBeLessThanOrEqual(m);
    });
    expect(info.bitCount).toBe(subs.reduce((t, s) => t + s.bitCount, 0));
    expect(info.hashCount).toBe(subs[0].hashCount);
    expect(info.byteLength).toBe(bytesFor(subs.map((s) => s.bitCount)));
    expect(info.bitsPerItem).toBeCloseTo((info.byteLength * 8) / (50 + 150 + 450), 10);
    expect(info.expectedFalsePositiveRate).toBeCloseTo(1 - subs.reduce((p, s) => p * (1 - s.expectedFalsePositiveRate), 1), 12);
    expect(info.estimatedCount).toBeCloseTo(
      subs.reduce((t, s) => t + (-s.bitCount / s.hashCount) * Math.log(1 - s.setBitCount / s.bitCount), 0),
      6,
    );
    // A plain object: a snapshot, not a live view.
    expect(JSON.stringify(info, (_k, v) => (typeof v === 'bigint' ? `${v}` : v))).toContain('"type":"bloom"');
    f.add('one more');
    expect(info.size).toBe(500);
    f.dispose();
  });
});

describe('growth', () => {
  test('a new sub-filter when the newest holds its capacity: capacity n·e^j, ε/2^(j+1), and the total stays under ε', async () => {
    const n = 100;
    const eps = 0.01;
    const f = await BloomFilter.create({ capacity: n, falsePositiveRate: eps, expansion: 2 });
    // Sub-filter 0 of a growing filter is sized for ε/2.
    expect([f.bitCount, f.hashCount]).toEqual([sizing(n, eps / 2).m, sizing(n, eps / 2).k]);
    expect(f.falsePositiveRate).toBe(eps);
    expect(f.expansion).toBe(2);
    let added = 0;
    for (const [total, subs] of [[100, 1], [101, 2], [300, 2], [301, 3], [700, 3], [701, 4], [1500, 4]] as const) {
      f.addAll(keysOf('grow', total).slice(added));
      added = total;
      expect([total, f.subFilterCount]).toEqual([total, subs]);
      expect(f.expectedFalsePositiveRate).toBeLessThan(eps);
    }
    const info = f.info();
    info.subFilters.forEach((s, j) => {
      expect(s.capacity).toBe(n * 2 ** j);
      expect(s.falsePositiveRate).toBe(eps / 2 ** (j + 1));
      expect([s.bitCount, s.hashCount]).toEqual([sizing(s.capacity, s.falsePositiveRate).m, sizing(s.capacity, s.falsePositiveRate).k]);
      expect(s.size).toBe(s.capacity); // 100 + 200 + 400 + 800 = 1500: all full
    });
    expect(f.hasAll(keysOf('grow', 1500)).every(Boolean)).toBe(true);
    const measured = f.hasAll(keysOf('absent', 50_000)).filter(Boolean).length / 50_000;
    // ≤ ε with a 4σ margin (σ ≈ 0.00045 at ε = 1%): the sub-filters' rates sum to under ε.
    expect(measured).toBeLessThan(eps + 4 * Math.sqrt((eps * (1 - eps)) / 50_000));
    expect(f.byteLength).toBe(bytesFor(info.subFilters.map((s) => s.bitCount)));
    f.dispose();
  });

  test('a filter that does not grow never refuses a key', async () => {
    const f = await BloomFilter.create({ capacity: 10 });
    expect(f.addAll(keysOf('over', 10_000))).toBe(10_000);
    f.add('one more');
    expect(f.size).toBe(10_001);
    expect(f.subFilterCount).toBe(1);
    f.dispose();
  });

  test('the growth limit (k would pass 64): FilterFullError, the key is not added, nothing is lost; addAll reports added and closes its iterator', async () => {
    // ε = 1e-17: sub-filter j has k ≈ 56.5 + j + 1, so sub-filter 8 would need 65 hash functions.
    const f = await BloomFilter.create({ capacity: 1, falsePositiveRate: 1e-17, expansion: 2 });
    const keys = keysOf('limit', 255);
    expect(f.addAll(keys)).toBe(255); // 1 + 2 + ... + 128
    expect(f.subFilterCount).toBe(8);
    expect(f.info().subFilters.map((s) => s.hashCount)).toEqual([58, 59, 60, 60, 61, 62, 63, 64]);
    const before = f.toBytes();
    const e = thrown(() => f.add('one too many')) as FilterFullError;
    expect(e).toBeInstanceOf(FilterFullError);
    expect(e.code).toBe('ERR_FILTER_FULL');
    expect(e.added).toBe(0);
    expect(e.message).toMatch(/cannot grow further \(8 sub-filters, \d+ bytes;.*the key was not added and nothing stored was lost/);
    expect(same(f.toBytes(), before)).toBe(true);
    expect(f.size).toBe(255);
    expect(f.hasAll(keys).every(Boolean)).toBe(true);

    let read = 0;
    let closed = false;
    function* more() {
      try {
        for (let i = 0; i < 50_000; i++) {
          read++;
          yield `more-${i}`;
        }
      } finally {
        closed = true;
      }
    }
    const g = await BloomFilter.create({ capacity: 1, falsePositiveRate: 1e-17, expansion: 2 });
    g.addAll(keys.slice(0, 200));
    const batch = thrown(() => g.addAll(more())) as FilterFullError;
    expect(batch).toBeInstanceOf(FilterFullError);
    expect(batch.added).toBe(55);
    expect(g.size).toBe(255);
    expect(read).toBeLessThanOrEqual(8192); // one chunk read, not the whole iterable
    expect(closed).toBe(true);
    expect(same(g.toBytes(), before)).toBe(false); // other keys
    expect(g.hasAll([...keys.slice(0, 200), 'more-0', 'more-54']).every(Boolean)).toBe(true);
    f.dispose();
    g.dispose();
  });

  test('the growth limit of 2^32 - 1 bits: expansion 1024 from 1000 keys refuses the third sub-filter', async () => {
    const f = await BloomFilter.create({ capacity: 1000, falsePositiveRate: 0.01, expansion: 1024 });
    const n = 1000 + 1000 * 1024;
    let at = 0;
    const keys = function* () {
      for (; at < n + 10; at++) yield `big-${at}`;
    };
    const e = thrown(() => f.addAll(keys())) as FilterFullError;
    expect(e).toBeInstanceOf(FilterFullError);
    expect(e.added).toBe(n);
    expect(f.subFilterCount).toBe(2);
    expect(f.size).toBe(n);
    expect(f.has('big-0') && f.has(`big-${n - 1}`)).toBe(true);
    f.dispose();
  });
});

describe('union and isCompatible', () => {
  test('union ORs the bits: the result is byte for byte the filter of both key sets; size is the sum; it returns this', async () => {
    const options = { capacity: 2000, falsePositiveRate: 0.01, seed: 99 };
    const a = await BloomFilter.create(options);
    const b = await BloomFilter.create(options);
    const both = await BloomFilter.create(options);
    a.addAll(keysOf('a', 700));
    b.addAll(keysOf('b', 900));
    both.addAll([...keysOf('a', 700), ...keysOf('b', 900)]);
    expect(a.isCompatible(b) && b.isCompatible(a) && a.isCompatible(a)).toBe(true);
    const bBytes = b.toBytes();
    expect(a.union(b)).toBe(a);
    expect(same(a.toBytes(), both.toBytes())).toBe(true);
    expect(a.size).toBe(1600);
    expect(a.hasAll([...keysOf('a', 700), ...keysOf('b', 900)]).every(Boolean)).toBe(true);
    expect(same(b.toBytes(), bBytes)).toBe(true); // the other filter is not changed
    for (const x of [a, b, both]) x.dispose();
  });

  test('union with itself: the same bits and answers; size doubles (keys in both are counted twice)', async () => {
    const a = await BloomFilter.create({ capacity: 100, expansion: 2 });
    a.addAll(keysOf('self', 250));
    const before = a.info();
    const probes = [...keysOf('self', 250), ...keysOf('other', 2000)];
    const answers = a.hasAll(probes);
    a.union(a);
    expect(a.hasAll(probes)).toEqual(answers);
    expect(a.size).toBe(500);
    expect(a.estimatedCount()).toBe(before.estimatedCount);
    expect(a.info().subFilters.map((s) => s.setBitCount)).toEqual(before.subFilters.map((s) => s.setBitCount));
    a.dispose();
  });

  test('union of grown filters: sub-filter by sub-filter; with a different number of sub-filters they are incompatible', async () => {
    const options = { capacity: 10, falsePositiveRate: 0.01, expansion: 2 };
    const a = await BloomFilter.create(options);
    const b = await BloomFilter.create(options);
    a.addAll(keysOf('ga', 100)); // 10 + 20 + 40 + 30 of 80: four sub-filters
    b.addAll(keysOf('gb', 80)); // 10 + 20 + 40 + 10
    expect([a.subFilterCount, b.subFilterCount]).toEqual([4, 4]);
    expect(a.isCompatible(b)).toBe(true);
    a.union(b);
    expect(a.size).toBe(180);
    expect(a.info().subFilters.map((s) => s.size)).toEqual([20, 40, 80, 40]);
    expect(a.hasAll([...keysOf('ga', 100), ...keysOf('gb', 80)]).every(Boolean)).toBe(true);
    // Growth goes on from the union's fill: sub-filter 3 holds 40 of 80.
    a.addAll(keysOf('after', 40));
    expect(a.subFilterCount).toBe(4);
    a.add('one more');
    expect(a.subFilterCount).toBe(5);

    const c = await BloomFilter.create(options);
    c.addAll(keysOf('gc', 30)); // two sub-filters
    const before = a.toBytes();
    expect(a.isCompatible(c) || c.isCompatible(a)).toBe(false);
    expect(() => a.union(c)).toThrow(ArgumentRangeError);
    expect(() => c.union(a)).toThrow(/^union needs a compatible Bloom filter \(same seed, expansion and sub-filters/);
    expect(same(a.toBytes(), before)).toBe(true);
    for (const x of [a, b, c]) x.dispose();
  });

  test('incompatible: another seed, capacity, ε or expansion, grown or not: isCompatible false, union refused, nothing changed', async () => {
    const base = { capacity: 100, falsePositiveRate: 0.01 };
    const a = await BloomFilter.create(base);
    a.addAll(keysOf('keep', 50));
    const before = a.toBytes();
    for (const other of [
      { ...base, seed: 1 },
      { ...base, capacity: 101 },
      { ...base, falsePositiveRate: 0.001 },
      { ...base, expansion: 2 },
    ]) {
      const b = await BloomFilter.create(other);
      b.add('x');
      expect(a.isCompatible(b)).toBe(false);
      expect(b.isCompatible(a)).toBe(false);
      const e = thrown(() => a.union(b));
      expect(e).toBeInstanceOf(ArgumentRangeError);
      expect(e).toHaveProperty('code', 'ERR_OUT_OF_RANGE');
      expect(same(a.toBytes(), before)).toBe(true);
      b.dispose();
    }
    // The same m and k from different options are compatible: the bits mean the same.
    const twin = await BloomFilter.create({ capacity: 100, falsePositiveRate: 0.0100001 });
    expect([twin.bitCount, twin.hashCount]).toEqual([a.bitCount, a.hashCount]);
    expect(a.isCompatible(twin)).toBe(true);
    twin.dispose();
    a.dispose();
  });

  test('not a BloomFilter: ArgumentTypeError; a disposed one: FilterDisposedError', async () => {
    const a = await BloomFilter.create({ capacity: 100 });
    const cuckoo = await CuckooFilter.create({ capacity: 100 });
    for (const other of [undefined, null, 5, {}, cuckoo, a.toBytes()]) {
      for (const op of ['union', 'isCompatible'] as const) {
        const e = thrown(() => a[op](other as never));
        expect(e).toBeInstanceOf(ArgumentTypeError);
        expect((e as Error).message).toMatch(/^expected a BloomFilter, got /);
      }
    }
    // An object with BloomFilter's prototype but no filter behind it.
    const lookAlike = Object.create(BloomFilter.prototype);
    expect(() => a.union(lookAlike)).toThrow(ArgumentTypeError);
    expect(() => a.isCompatible(lookAlike)).toThrow(ArgumentTypeError);
    const gone = await BloomFilter.create({ capacity: 100 });
    gone.dispose();
    expect(() => a.union(gone)).toThrow(FilterDisposedError);
    expect(() => a.isCompatible(gone)).toThrow(FilterDisposedError);
    expect(() => gone.union(a)).toThrow(FilterDisposedError);
    cuckoo.dispose();
    a.dispose();
  });

  test('a BloomFilter of another realm (the bundle loaded in a vm context) is taken by its bytes; a cuckoo filter there is refused', async () => {
    // DecompressionStream, which every supported realm has (vm contexts get only what they are given), inflates the .wasm.
    const context = vm.createContext({ TextEncoder, TextDecoder, DecompressionStream });
    const mod = { exports: {} as { BloomFilter: typeof BloomFilter } };
    vm.runInContext(`(function (module, exports) {${readFileSync(join(dist, 'index.cjs'), 'utf8')}\n})`, context)(mod, mod.exports);
    const foreign = await mod.exports.BloomFilter.create({ capacity: 100 });
    foreign.add('x');
    const local = await BloomFilter.create({ capacity: 100 });
    const before = foreign.toBytes();
    expect(local.isCompatible(foreign as never)).toBe(true);
    expect(local.has('x')).toBe(false);
    expect(local.union(foreign as never)).toBe(local);
    expect(local.has('x')).toBe(true);
    expect(foreign.toBytes()).toEqual(before);
    const other = await (mod.exports as unknown as { CuckooFilter: { create(o: object): Promise<{ dispose(): void }> } }).CuckooFilter.create({ capacity: 100 });
    expect(() => local.union(other as never)).toThrow(ArgumentTypeError);
    expect(() => local.union(other as never)).toThrow(/expected a BloomFilter, got an object \(CuckooFilter\)/);
    foreign.dispose();
    // A disposed one's toBytes throws its own FilterDisposedError, which is this copy's class too.
    expect(() => local.union(foreign as never)).toThrow(FilterDisposedError);
    for (const x of [other, local]) x.dispose();
  });
});

describe('toBytes / fromBytes', () => {
  test('a round trip keeps every parameter, answer and byte; toBytes returns a copy', async () => {
    const f = await BloomFilter.create({ capacity: 40, falsePositiveRate: 0.03, seed: 12345n, expansion: 3 });
    f.addAll(keysOf('rt', 300));
    const bytes = f.toBytes();
    expect(bytes.length).toBe(f.byteLength);
    const g = await BloomFilter.fromBytes(bytes);
    const params = (x: BloomFilter) => ({ ...x.info(), subFilterCount: x.subFilterCount });
    expect(params(g)).toEqual(params(f));
    expect(same(g.toBytes(), bytes)).toBe(true);
    const probes = [...keysOf('rt', 300), ...keysOf('not', 3000)];
    expect(g.hasAll(probes)).toEqual(f.hasAll(probes));
    // Growth goes on the same way in both.
    f.addAll(keysOf('more', 1000));
    g.addAll(keysOf('more', 1000));
    expect(same(g.toBytes(), f.toBytes())).toBe(true);
    bytes.fill(0);
    expect(f.has('rt-0.example')).toBe(true);
    expect(f.toBytes().buffer).not.toBe(f.toBytes().buffer);
    f.dispose();
    g.dispose();
  });
});
