// The public API on valid input: options, membership, batches, a full filter,
// toBytes, statistics. Invalid arguments: arguments.test.ts; dispose and
// `using`: lifecycle.test.ts; the byte format:
// format.test.ts; user code running inside batches: adversarial.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vm from 'node:vm';
import { CuckooFilter, FilterFullError } from 'cuckoo-wasm';

const dist = join(__dirname, '..', '..', 'dist');

const enc = new TextEncoder();

describe('create: options', () => {
  test('falsePositiveRate picks the smallest f with 2b/2^f <= eps', async () => {
    const cases: [number, 2 | 4 | 8, number][] = [
      [0.001, 4, 13], // 8/8192 = 0.00098
      [0.01, 4, 10], // 8/1024 = 0.0078
      [0.001, 2, 12], // 4/4096
      [0.001, 8, 14], // 16/16384
      [0.5, 4, 4], // 8/16 = 0.5 is allowed (<=)
      [0.4, 4, 5], // 8/32 = 0.25
      [0.9, 2, 4], // clamped to the minimum f = 4
    ];
    for (const [eps, b, f] of cases) {
      const filter = await CuckooFilter.create({ capacity: 100, falsePositiveRate: eps, bucketSize: b });
      expect([eps, b, filter.fingerprintBits]).toEqual([eps, b, f]);
      expect(filter.falsePositiveRate).toBeLessThanOrEqual(Math.max(eps, (2 * b) / 16));
      filter.dispose();
    }
  });

  test('defaults: eps 0.001, b = 4 semi-sorted, maxKicks 500, a fixed seed', async () => {
    const f = await CuckooFilter.create({ capacity: 10 });
    expect([f.fingerprintBits, f.bucketSize, f.encoding, f.maxKicks, f.capacity]).toEqual([13, 4, 'semi-sorted', 500, 10]);
    const g = await CuckooFilter.create({ capacity: 10 });
    expect(g.seed).toBe(f.seed);
    f.dispose();
    g.dispose();
  });

  test('fingerprintBits instead of falsePositiveRate, any f in 4..32', async () => {
    for (const bits of [4, 9, 16, 23, 32]) {
      const f = await CuckooFilter.create({ capacity: 50, fingerprintBits: bits });
      expect(f.fingerprintBits).toBe(bits);
      f.add('x');
      expect(f.has('x')).toBe(true);
      f.dispose();
    }
  });

  test('a seed changes the bytes; the same seed gives the same bytes', async () => {
    const make = async (seed: number | bigint) => {
      const f = await CuckooFilter.create({ capacity: 100, seed });
      f.addAll(['a', 'b', 'c']);
      const bytes = f.toBytes();
      f.dispose();
      return Buffer.from(bytes);
    };
    expect((await make(1)).equals(await make(1n))).toBe(true);
    expect((await make(1)).equals(await make(2))).toBe(false);
    expect((await make(2n ** 64n - 1n)).length).toBeGreaterThan(0);
  });
});

describe('membership', () => {
  let f: CuckooFilter;
  beforeEach(async () => {
    f = await CuckooFilter.create({ capacity: 1000 });
  });
  afterEach(() => f.dispose());

  test('add returns the filter; has finds added keys; absent keys are (mostly) absent', () => {
    expect(f.add('alpha')).toBe(f);
    f.add('beta').add('gamma');
    expect(['alpha', 'beta', 'gamma'].map((k) => f.has(k))).toEqual([true, true, true]);
    let fp = 0;
    for (let i = 0; i < 10000; i++) if (f.has(`absent-${i}`)) fp++;
    expect(fp).toBeLessThan(10);
    expect(f.size).toBe(3);
  });

  test('a string is hashed as its UTF-8 bytes', () => {
    for (const s of ['é', 'naïve.example', '日本語.jp', '😀', '']) {
      f.add(s);
      expect(f.has(enc.encode(s))).toBe(true);
      expect(f.count(enc.encode(s))).toBe(f.count(s));
    }
    f.add(enc.encode('bytes-first'));
    expect(f.has('bytes-first')).toBe(true);
  });

  test('Uint8Array keys: offset views, Buffers and long keys hash by their visible bytes', () => {
    const backing = new Uint8Array([9, 9, 1, 2, 3, 9]);
    f.add(backing.subarray(2, 5));
    expect(f.has(new Uint8Array([1, 2, 3]))).toBe(true);
    expect(f.has(Buffer.from([1, 2, 3]))).toBe(true);
    const long = 'x'.repeat(100_000) + 'é';
    f.add(long);
    expect(f.has(enc.encode(long))).toBe(true);
    expect(f.has(long.slice(1))).toBe(false);
  });

  test('delete removes one copy; count counts copies', () => {
    f.add('dup').add('dup').add('dup');
    expect(f.count('dup')).toBe(3);
    expect(f.delete('dup')).toBe(true);
    expect(f.count('dup')).toBe(2);
    expect(f.delete('dup')).toBe(true);
    expect(f.delete('dup')).toBe(true);
    expect(f.delete('dup')).toBe(false);
    expect(f.has('dup')).toBe(false);
    expect(f.size).toBe(0);
  });

  test('addAll / hasAll agree with add / has, over several batches and mixed key types', async () => {
    const keys: (string | Uint8Array)[] = [];
    for (let i = 0; i < 20000; i++) keys.push(i % 3 === 0 ? enc.encode(`k${i}`) : `k${i}`);
    const g = await CuckooFilter.create({ capacity: 20000 });
    expect(g.addAll(keys)).toBe(20000);
    expect(g.size).toBe(20000);
    const probes = keys.concat(Array.from({ length: 20000 }, (_, i) => `other${i}`));
    const batch = g.hasAll(probes);
    expect(batch).toEqual(probes.map((k) => g.has(k)));
    expect(batch.slice(0, 20000).every(Boolean)).toBe(true);
    // addAll from a generator (not an array) and a Set.
    function* gen() {
      for (let i = 0; i < 5; i++) yield `gen${i}`;
    }
    expect(f.addAll(gen())).toBe(5);
    expect(f.addAll(new Set(['s1', 's2']))).toBe(2);
    expect(f.hasAll(['gen4', 's2', 'nope'])).toEqual([true, true, false]);
    expect(f.hasAll([])).toEqual([]);
    expect(f.addAll([])).toBe(0);
    g.dispose();
  });

  test('batches of ASCII strings, with a non-ASCII string or a Uint8Array anywhere in a chunk, agree with has', async () => {
    // The batch path packs a chunk of ASCII strings in one pass and rewrites it
    // key by key when a chunk holds anything else; chunks end at 8192 keys or
    // when the region (256 KiB) is full, which 100-unit keys reach first.
    const keys: (string | Uint8Array)[] = [];
    for (let i = 0; i < 30000; i++) keys.push(`${i % 7 === 0 ? 'x'.repeat(90) : ''}key-${i}.example`);
    keys[100] = 'caf\u00e9-100'; // chunk 1: non-ASCII near the start
    keys[8191] = new Uint8Array([1, 2, 3, 8, 1, 9, 1]); // chunk 1: bytes as its last key
    keys[12000] = 'ключ-12000'; // a later chunk
    keys[29999] = '\u{1F600}-29999'; // the last key of the last chunk
    const g = await CuckooFilter.create({ capacity: 30000 });
    expect(g.addAll(keys)).toBe(30000);
    expect(keys.every((k) => g.has(k))).toBe(true);
    const probes = keys.concat(keys.map((k) => (typeof k === 'string' ? `${k}-not` : 'bytes-not')));
    expect(g.hasAll(probes)).toEqual(probes.map((k) => g.has(k)));
    // The same keys one at a time give the same bytes.
    const h = await CuckooFilter.create({ capacity: 30000 });
    for (const k of keys) h.add(k);
    expect(Buffer.from(h.toBytes()).equals(Buffer.from(g.toBytes()))).toBe(true);
    g.dispose();
    h.dispose();
  });

  test('addAll from an iterable reads it a chunk at a time: errors name the right index; a full filter stops reading and closes it', async () => {
    const g = await CuckooFilter.create({ capacity: 20000 });
    function* withBadKey() {
      for (let i = 0; i < 20000; i++) yield i === 9000 ? (5 as never) : `it-${i}`;
    }
    expect(() => g.addAll(withBadKey())).toThrow(/keys\[9000\] must be a string or a Uint8Array/);
    // Every key before the bad one went in, as with a loop of add(): keys 0..8999.
    expect(g.size).toBe(9000);
    expect(g.has('it-8191')).toBe(true);
    expect(g.has('it-8999')).toBe(true);
    g.dispose();

    const small = await CuckooFilter.create({ capacity: 100, fingerprintBits: 16 });
    let read = 0;
    let closed = false;
    function* many() {
      try {
        for (let i = 0; i < 100000; i++) {
          read++;
          yield `many-${i}`;
        }
      } finally {
        closed = true; // runs when addAll closes the iterator, as for...of does on break
      }
    }
    let error: FilterFullError | undefined;
    try {
      small.addAll(many());
    } catch (e) {
      error = e as FilterFullError;
    }
    expect(error).toBeInstanceOf(FilterFullError);
    expect(small.size).toBe(error!.added);
    // One chunk read (at most 8192 keys), not the whole iterable.
    expect(read).toBeGreaterThanOrEqual(error!.added);
    expect(read).toBeLessThanOrEqual(8192);
    expect(closed).toBe(true);
    small.dispose();
  });

  test('addAll with keys longer than a batch region', () => {
    const big = ['a'.repeat(300_000), 'b'.repeat(500_000), 'c'];
    expect(f.addAll(big)).toBe(3);
    expect(f.hasAll(big)).toEqual([true, true, true]);
  });
});

describe('a full filter', () => {
  test('add throws FilterFullError; every key added before is still found; nothing changes', async () => {
    const f = await CuckooFilter.create({ capacity: 64, fingerprintBits: 16 });
    const added: string[] = [];
    let error: unknown;
    for (let i = 0; i < 10000; i++) {
      try {
        f.add(`key-${i}`);
        added.push(`key-${i}`);
      } catch (e) {
        error = e;
        break;
      }
    }
    expect(error).toBeInstanceOf(FilterFullError);
    expect((error as FilterFullError).code).toBe('ERR_FILTER_FULL');
    expect((error as FilterFullError).message).toMatch(/larger capacity/);
    expect(added.length).toBeGreaterThanOrEqual(64);
    expect(f.size).toBe(added.length);
    const before = Buffer.from(f.toBytes());
    expect(() => f.add('one-more-key')).toThrow(FilterFullError);
    expect(Buffer.from(f.toBytes()).equals(before)).toBe(true);
    for (const k of added) expect(f.has(k)).toBe(true);
    // Deleting makes room again.
    expect(f.delete(added[0])).toBe(true);
    expect(added.slice(1).every((k) => f.has(k))).toBe(true);
    f.dispose();
  });

  test('addAll on a full filter: FilterFullError.added counts the keys that went in, and they stay', async () => {
    const f = await CuckooFilter.create({ capacity: 100, fingerprintBits: 16 });
    const keys = Array.from({ length: 1000 }, (_, i) => `k${i}`);
    let error: FilterFullError | undefined;
    try {
      f.addAll(keys);
    } catch (e) {
      error = e as FilterFullError;
    }
    expect(error).toBeInstanceOf(FilterFullError);
    expect(error!.added).toBeGreaterThanOrEqual(100);
    expect(error!.added).toBeLessThan(1000);
    expect(f.size).toBe(error!.added);
    expect(f.hasAll(keys.slice(0, error!.added)).every(Boolean)).toBe(true);
    f.dispose();
  });

  test('the same key added 2b+1 times fits (two buckets + victim), the next does not', async () => {
    for (const b of [2, 4, 8] as const) {
      const f = await CuckooFilter.create({ capacity: 1000, bucketSize: b });
      // A key whose two buckets differ holds 2b copies in the table plus one in the victim.
      let copies = 0;
      try {
        for (;;) {
          f.add('same');
          copies++;
        }
      } catch (e) {
        expect(e).toBeInstanceOf(FilterFullError);
      }
      expect([b, copies]).toEqual([b, 2 * b + 1]);
      expect(f.count('same')).toBe(2 * b + 1);
      f.add('another-key');
      expect(f.has('another-key')).toBe(true);
      f.dispose();
    }
  });
});

describe('toBytes', () => {
  test('returns a copy the caller owns, byte-identical across runs', async () => {
    const make = async () => {
      const f = await CuckooFilter.create({ capacity: 5000, falsePositiveRate: 0.01 });
      for (let i = 0; i < 5000; i++) f.add(`domain-${i}.example`);
      for (let i = 0; i < 5000; i += 7) f.delete(`domain-${i}.example`);
      return f;
    };
    const f = await make();
    const g = await make();
    const a = f.toBytes();
    expect(a.length).toBe(f.byteLength);
    expect(Buffer.compare(a, g.toBytes())).toBe(0);
    a.fill(0); // a copy: scribbling on it changes nothing
    expect(f.has('domain-1.example')).toBe(true);
    expect(a.buffer).not.toBe(f.toBytes().buffer);
    f.dispose();
    g.dispose();
  });

  test('fromBytes accepts an ArrayBuffer and an offset view', async () => {
    const f = await CuckooFilter.create({ capacity: 100 });
    f.add('x');
    const bytes = f.toBytes();
    const padded = new Uint8Array(bytes.length + 10);
    padded.set(bytes, 5);
    const g = await CuckooFilter.fromBytes(padded.subarray(5, 5 + bytes.length));
    const h = await CuckooFilter.fromBytes(bytes.slice().buffer);
    expect([g.has('x'), h.has('x'), g.size, h.size]).toEqual([true, true, 1, 1]);
    for (const x of [f, g, h]) x.dispose();
  });
});

describe('lifecycle', () => {
  // dispose, [Symbol.dispose] and `using`: lifecycle.test.ts, run over every family.

  test('importing the package changes no global: in a realm without Symbol.dispose it stays undefined', async () => {
    // A realm as in an engine without explicit resource management (Node 20 and 22 add Symbol.dispose to their
    // main realm only; Node 24+ and recent browsers have it everywhere, older browsers nowhere): a vm context whose
    // global Symbol is a copy without dispose and asyncDispose. The bundle runs there as a script, inflates its
    // .wasm with DecompressionStream and codes strings with TextEncoder and TextDecoder, which every supported realm
    // has.
    const context = vm.createContext({ TextEncoder, TextDecoder, DecompressionStream });
    vm.runInContext(
      `{
        const Native = Symbol;
        const Bare = function Symbol(description) { return Native(description); };
        for (const key of Reflect.ownKeys(Native)) {
          if (key !== 'dispose' && key !== 'asyncDispose' && key !== 'prototype' && key !== 'length' && key !== 'name') {
            Object.defineProperty(Bare, key, Object.getOwnPropertyDescriptor(Native, key));
          }
        }
        Object.defineProperty(Bare, 'prototype', { value: Native.prototype });
        globalThis.Symbol = Bare;
      }`,
      context,
    );
    const globals = () =>
      vm.runInContext(
        'JSON.stringify([typeof Symbol.dispose, Object.getOwnPropertyNames(Symbol).sort(), Object.getOwnPropertyNames(globalThis).sort()])',
        context,
      ) as string;
    const before = globals();
    expect(JSON.parse(before)[0]).toBe('undefined');
    // Loaded as Node loads a CommonJS module: its source inside a function of (module, exports).
    const mod = { exports: {} as { CuckooFilter: typeof CuckooFilter } };
    const load = vm.runInContext(`(function (module, exports) {${readFileSync(join(dist, 'index.cjs'), 'utf8')}\n})`, context);
    load(mod, mod.exports);
    expect(globals()).toBe(before);
    // The filter is still disposable there, under the registry symbol.
    const f = await mod.exports.CuckooFilter.create({ capacity: 10 });
    (f as unknown as Record<symbol, () => void>)[Symbol.for('Symbol.dispose')]();
    expect(f.disposed).toBe(true);
    expect(globals()).toBe(before);
  });

  test('statistics: size, loadFactor, byteLength, bitsPerItem, falsePositiveRate', async () => {
    const f = await CuckooFilter.create({ capacity: 1000, falsePositiveRate: 0.01, semiSort: false });
    expect(f.size).toBe(0);
    expect(f.loadFactor).toBe(0);
    f.addAll(Array.from({ length: 500 }, (_, i) => `k${i}`));
    expect(f.size).toBe(500);
    expect(f.loadFactor).toBeCloseTo(500 / (f.bucketCount * f.bucketSize), 10);
    // Format version 4: a 32-byte header, the one sub-filter's version-1 section (72 + table + 8), the checksum.
    expect(f.byteLength).toBe(32 + 72 + Math.ceil((f.bucketCount * f.bucketSize * f.fingerprintBits) / 8) + 8 + 8);
    expect(f.bitsPerItem).toBeCloseTo((f.byteLength * 8) / 1000, 10);
    expect(f.falsePositiveRate).toBe(8 / 1024);
    expect(f.expectedFalsePositiveRate).toBeGreaterThan(0);
    expect(f.expectedFalsePositiveRate).toBeLessThan(f.falsePositiveRate);
    f.dispose();
  });
});
