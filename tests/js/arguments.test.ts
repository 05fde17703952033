// Bad arguments, for every family of families.ts (the Redis families too): keys of every wrong type,
// wrong containers, the key forms that are one key (a string and its UTF-8
// bytes, lone surrogates, empty keys, views, shared buffers), batches across
// chunks against loops of single calls, and fromBytes of what is not bytes:
// a typed error or a correct answer, and the filter still works afterwards.
// Then the options of CuckooFilter.create (BloomFilter's: bloom.test.ts).
import * as vm from 'node:vm';
import { ArgumentRangeError, ArgumentTypeError, CuckooFilter } from 'cuckoo-wasm';
import { KeyFilter, KEY_FAMILY_ROWS } from './families';
import { FAMILIES as REGISTRY_FAMILIES } from '../../js/registry';

const enc = new TextEncoder();
const keysOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}.example`);
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
/** Values that are not keys, Uint8Array look-alikes among them (a key is a string or a Uint8Array of any realm). */
const junk: unknown[] = [
  undefined, null, NaN, Infinity, -Infinity, -1, 0.5, 0, 42, 2n, true, {}, [], ['a'], () => 1, Symbol('s'),
  new ArrayBuffer(4), new Uint16Array(4), new Int8Array(4), new Uint8ClampedArray([104, 105]), new DataView(new ArrayBuffer(4)),
  new Date(0), /re/,
  { length: 2, 0: 104, 1: 105, byteLength: 2, buffer: new ArrayBuffer(2) },
  Object.defineProperty(Object.create(Uint8Array.prototype), Symbol.toStringTag, { value: 'Uint8Array' }),
];

/** Runs `fn` and returns what it threw (undefined if nothing). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

test('the families under test are every family of the registry (js/registry.ts) that takes adds, each with its own class', () => {
  // A static family (can.add false: built once, binary-fuse.test.ts) has none of the adds these suites make.
  const rows = new Set(KEY_FAMILY_ROWS.map(([, f]) => f.row));
  expect([...rows].map((r) => r.className).sort()).toEqual(REGISTRY_FAMILIES.filter((r) => r.can.add).map((r) => r.className).sort());
  for (const [, f] of KEY_FAMILY_ROWS) expect([f.name, f.cls.name]).toEqual([f.name, f.row.className]);
});

describe.each(KEY_FAMILY_ROWS)('%s', (_, family) => {
  let f: KeyFilter;
  beforeEach(async () => {
    f = await family.create({ capacity: 1000, falsePositiveRate: 0.001 });
    f.addAll(['kept.example', 'other.example']);
  });
  afterEach(() => f.dispose());

  /** The single-key operations of the family. */
  const keyOps = ['add', 'has', ...(family.supports.delete ? ['delete'] : []), ...(family.supports.count ? ['count'] : [])];
  const cuckoo = () => f as CuckooFilter;

  function stillWorks(): void {
    expect(f.has('kept.example')).toBe(true);
    const size = f.size;
    f.add('after.example');
    expect(f.has('after.example')).toBe(true);
    expect(f.size).toBe(size + 1);
    if (family.supports.delete) {
      expect(cuckoo().delete('after.example')).toBe(true);
      expect(f.size).toBe(size);
    }
  }

  test(`${keyOps.join(' / ')} / addAll / hasAll with keys of every wrong type: ArgumentTypeError naming the key; nothing changes but the keys before it`, async () => {
    const before = f.toBytes();
    for (const key of junk) {
      for (const op of keyOps) {
        const error = thrown(() => ((f as unknown as Record<string, (k: unknown) => unknown>)[op] as (k: unknown) => unknown).call(f, key));
        expect(error).toBeInstanceOf(ArgumentTypeError);
        expect(error).toBeInstanceOf(TypeError);
        expect(error).toHaveProperty('code', 'ERR_INVALID_ARG_TYPE');
        expect((error as Error).message).toMatch(/^key must be a string or a Uint8Array, got /);
      }
    }
    expect(same(f.toBytes(), before)).toBe(true);
    for (const [i, key] of junk.entries()) {
      // A distinct first key each time: it is added before the bad key is refused, as by a loop of add().
      expect(() => f.addAll([`fine-${i}`, key] as never)).toThrow(/^keys\[1\] must be a string or a Uint8Array, got /);
      expect(() => f.addAll([`fine-${i}`, key] as never)).toThrow(ArgumentTypeError);
      expect(() => f.hasAll([`fine-${i}`, key] as never)).toThrow(ArgumentTypeError);
    }
    const loop = await family.fromBytes(before);
    for (const i of junk.keys()) loop.add(`fine-${i}`).add(`fine-${i}`);
    expect(same(f.toBytes(), loop.toBytes())).toBe(true);
    expect(f.size).toBe(2 + (family.dedups ? 1 : 2) * junk.length); // BF.ADD counts a key it has once
    loop.dispose();
    stillWorks();
  });

  test('addAll / hasAll with wrong containers, or a string given as the keys', () => {
    for (const keys of [undefined, null, 5, NaN, {}, true, Symbol('s'), { length: -1 }, { length: NaN }, { length: 2.5 }]) {
      expect(() => f.addAll(keys as never)).toThrow(ArgumentTypeError);
      expect(() => f.hasAll(keys as never)).toThrow(ArgumentTypeError);
      if (typeof keys !== 'symbol' && !(typeof keys === 'number' && Number.isNaN(keys))) {
        expect(() => f.addAll(keys as never)).toThrow(/^keys must be an iterable or array-like of strings and Uint8Arrays/);
      }
    }
    stillWorks();
    // A string is iterable by character, but given as the keys it is one key passed by mistake:
    // refused, nothing added.
    const size = f.size;
    for (const call of [() => f.addAll('xy' as never), () => f.hasAll('xy' as never), () => f.addUrls('evil.example' as never), () => f.hasAllUrls('evil.example' as never)]) {
      expect(call).toThrow(/^keys must be an iterable or array-like of keys, got a string "(xy|evil\.example)": pass \[key\]/);
      expect(call).toThrow(ArgumentTypeError);
    }
    expect(f.size).toBe(size);
    expect(f.hasAll(['x', 'y'])).toEqual([false, false]);
  });

  test('empty string and empty Uint8Array are one valid key', () => {
    f.add('');
    expect(f.has(new Uint8Array(0))).toBe(true);
    expect(f.hasAll(['', new Uint8Array(0)])).toEqual([true, true]);
    if (family.supports.count) expect(cuckoo().count('')).toBe(1);
    if (family.supports.delete) {
      expect(cuckoo().delete(new Uint8Array(0))).toBe(true);
      expect(f.has('')).toBe(false);
    }
    stillWorks();
  });

  test('a string and its UTF-8 bytes are one key, in add, has, addAll and hasAll, both ways; no normalisation', () => {
    for (const s of ['é', 'naïve.example', '日本語.jp', '😀', '', 'e\u0301']) {
      f.add(s);
      expect(f.has(enc.encode(s))).toBe(true);
      expect(f.hasAll([enc.encode(s), s])).toEqual([true, true]);
    }
    f.add(enc.encode('bytes-first'));
    expect(f.has('bytes-first')).toBe(true);
    f.addAll([enc.encode('batch-bytes'), 'batch-text']);
    expect(f.hasAll(['batch-bytes', enc.encode('batch-text')])).toEqual([true, true]);
    // 'é' (NFC) and 'e' + U+0301 (NFD) are different bytes.
    const nfc = f.toBytes();
    const g = f;
    expect(g.has('e\u0301')).toBe(true);
    expect(same(nfc, f.toBytes())).toBe(true);
    if (family.supports.count) expect(cuckoo().count('\u00e9')).toBe(1);
    stillWorks();
  });

  test('a lone UTF-16 surrogate hashes as U+FFFD (as TextEncoder encodes it); a pair is one code point', () => {
    for (const lone of ['\uD800', 'a\uDFFF', '\uDBFFb']) {
      f.add(lone);
      expect(f.has(lone.replace(/[\uD800-\uDFFF]/g, '\uFFFD'))).toBe(true);
      expect(f.has(enc.encode(lone))).toBe(true);
      expect(f.hasAll([lone])).toEqual([true]);
    }
    f.add('x\uD83D\uDE00'); // a proper pair is one code point, not two U+FFFD
    expect(f.has(enc.encode('x😀'))).toBe(true);
    expect(f.has('x\uFFFD\uFFFD')).toBe(false);
    stillWorks();
  });

  test('Uint8Array keys: offset views, Buffers, SharedArrayBuffer views, empty and long keys hash by their visible bytes', () => {
    const backing = new Uint8Array([9, 9, 1, 2, 3, 9]);
    f.add(backing.subarray(2, 5));
    expect(f.has(new Uint8Array([1, 2, 3]))).toBe(true);
    expect(f.has(Buffer.from([1, 2, 3]))).toBe(true);
    expect(f.has(backing)).toBe(false);
    const shared = new Uint8Array(new SharedArrayBuffer(16));
    shared.set(enc.encode('shared-key'), 3);
    const view = shared.subarray(3, 13);
    f.add(view);
    expect(f.has('shared-key')).toBe(true);
    expect(f.hasAll([view, 'shared-key'])).toEqual([true, true]);
    if (family.supports.count) expect(cuckoo().count(view)).toBe(1);
    expect(f.addAll([shared.subarray(0, 3)])).toBe(1);
    const long = 'x'.repeat(100_000) + 'é';
    f.add(long);
    expect(f.has(enc.encode(long))).toBe(true);
    expect(f.hasAll([long, long.slice(1)])).toEqual([true, f.has(long.slice(1))]);
    stillWorks();
  });

  test('addAll / hasAll agree with loops of add / has across chunks, for arrays, generators, Sets and array-likes', async () => {
    const keys: (string | Uint8Array)[] = [];
    for (let i = 0; i < 30_000; i++) keys.push(i % 3 === 0 ? enc.encode(`k${i}`) : `${i % 7 === 0 ? 'x'.repeat(90) : ''}k${i}`);
    keys[8191] = 'caf\u00e9-8191';
    const g = await family.create({ capacity: 30_000, falsePositiveRate: 0.001 });
    const h = await family.create({ capacity: 30_000, falsePositiveRate: 0.001 });
    expect(g.addAll(keys)).toBe(30_000);
    for (const k of keys) h.add(k);
    expect(same(g.toBytes(), h.toBytes())).toBe(true);
    const probes = keys.concat(keysOf('other', 30_000));
    const batch = g.hasAll(probes);
    expect(batch).toEqual(probes.map((k) => g.has(k)));
    expect(batch.slice(0, 30_000).every(Boolean)).toBe(true);
    function* gen() {
      for (let i = 0; i < 5; i++) yield `gen${i}`;
    }
    const size = f.size;
    expect(f.addAll(gen())).toBe(5);
    expect(f.addAll(new Set(['s1', 's2']))).toBe(2);
    expect(f.addAll({ length: 2, 0: 'al0', 1: enc.encode('al1') })).toBe(2);
    expect(f.hasAll({ length: 3, 0: 'al0', 1: 'al1', 2: 'gen4' })).toEqual([true, true, true]);
    expect(f.hasAll(new Set(['s2', 'gen0']))).toEqual([true, true]);
    expect(f.hasAll([])).toEqual([]);
    expect(f.addAll([])).toBe(0);
    expect(f.size).toBe(size + 9);
    g.dispose();
    h.dispose();
  });

  test('fromBytes with anything but a Uint8Array or ArrayBuffer (look-alikes, other views): ArgumentTypeError', async () => {
    const lookAlike = { length: 4, 0: 67, 1: 75, 2: 79, 3: 79, byteLength: 4, buffer: new ArrayBuffer(4) };
    const tagged = Object.defineProperty(Object.create(Uint8Array.prototype), Symbol.toStringTag, { value: 'Uint8Array' });
    const foreignView = vm.runInNewContext('new Uint16Array(40)');
    const notBytes = [
      undefined, null, 5, 'CKOO', {}, [67, 75, 79, 79], lookAlike, tagged, foreignView,
      new Uint16Array(40), new Uint8ClampedArray(80), new Int8Array(80), new DataView(new ArrayBuffer(80)), new SharedArrayBuffer(80),
    ];
    for (const v of notBytes) {
      const p = family.fromBytes(v as never);
      await expect(p).rejects.toBeInstanceOf(ArgumentTypeError);
      await expect(p).rejects.toHaveProperty('code', 'ERR_INVALID_ARG_TYPE');
      await expect(p).rejects.toThrow(/^fromBytes needs a Uint8Array or ArrayBuffer, got /);
    }
    stillWorks();
  });

  test('a key array whose getter answers differently each read cannot write past the batch region', async () => {
    // Each key is read once per chunk, so what is sized is what is written: a getter that answers a
    // 3M-unit string on a later read cannot make a chunk sized for a 1-unit key overrun its region.
    const g = await family.create({ capacity: 100_000 });
    for (let i = 0; i < 50_000; i++) g.add(`v${i}`);
    for (const first of ['\u00e9', 'a', new Uint8Array([1])]) {
      const keys: unknown[] = [first, 'a'];
      let reads = 0;
      Object.defineProperty(keys, 1, { get: () => (++reads >= 3 ? 'Z'.repeat(3_000_000) : 'a') });
      const result = f.hasAll(keys as never);
      expect(result).toHaveLength(2);
      expect(() => f.addAll(keys as never)).not.toThrow();
    }
    let missing = 0;
    for (let i = 0; i < 50_000; i++) if (!g.has(`v${i}`)) missing++;
    expect(missing).toBe(0);
    const loaded = await family.fromBytes(g.toBytes());
    expect(loaded.size).toBe(family.dedups ? g.size : 50_000); // BF.ADD does not count a key it already has
    if (family.dedups) expect(g.size).toBeGreaterThan(49_900);
    loaded.dispose();
    g.dispose();
    stillWorks();
  });
});

// ---------------------------------------------------------------------------
// CuckooFilter only: its options, and what delete of a key never added does.

describe('CuckooFilter', () => {
  let f: CuckooFilter;
  beforeEach(async () => {
    f = await CuckooFilter.create({ capacity: 1000 });
    f.addAll(['kept.example', 'other.example']);
  });
  afterEach(() => f.dispose());

  function stillWorks(): void {
    expect(f.has('kept.example')).toBe(true);
    const size = f.size;
    f.add('after.example');
    expect(f.has('after.example')).toBe(true);
    expect(f.size).toBe(size + 1);
    expect(f.delete('after.example')).toBe(true);
    expect(f.size).toBe(size);
  }

  /** Each bad option value, the error class it gets, and what its message names. */
  type BadOption = readonly [object, typeof ArgumentTypeError | typeof ArgumentRangeError, RegExp];
  const badOptions: BadOption[] = [
    [{}, ArgumentTypeError, /^capacity must be a number/],
    ...[0, NaN, Infinity, -Infinity, -1, -5, 0.5, 1.5].map(
      (v) => [{ capacity: v }, ArgumentRangeError, /^capacity must be an integer from 1/] as const,
    ),
    ...[2 ** 53, 1e300].map((v) => [{ capacity: v }, ArgumentRangeError, /capacity/] as const),
    ...[null, '10', 10n, {}, true].map((v) => [{ capacity: v }, ArgumentTypeError, /^capacity must be a number/] as const),
    ...[NaN, Infinity, -Infinity, 0, 1, 2, -0.1].map(
      (v) => [{ capacity: 10, falsePositiveRate: v }, ArgumentRangeError, /^falsePositiveRate must be a probability in \(0, 1\)/] as const,
    ),
    [{ capacity: 10, falsePositiveRate: 1e-12 }, ArgumentRangeError, /below what 32-bit fingerprints give/],
    ...[NaN, Infinity, 3, 3.5, 0, 33, 64].map(
      (v) => [{ capacity: 10, fingerprintBits: v }, ArgumentRangeError, /^fingerprintBits must be an integer from 4 to 32/] as const,
    ),
    [{ capacity: 10, fingerprintBits: 8, falsePositiveRate: 0.01 }, ArgumentTypeError, /not both/],
    ...[NaN, Infinity, 0, 1, 3, 4.5, 16].map(
      (v) => [{ capacity: 10, bucketSize: v }, ArgumentRangeError, /^bucketSize must be 2, 4 or 8/] as const,
    ),
    ...['4', null].map((v) => [{ capacity: 10, bucketSize: v }, ArgumentTypeError, /^bucketSize must be 2, 4 or 8/] as const),
    ...[NaN, Infinity, -1, 0.5, 1_000_001].map(
      (v) => [{ capacity: 10, maxKicks: v }, ArgumentRangeError, /^maxKicks must be an integer from 0 to 1000000/] as const,
    ),
    ...[NaN, -1, 0.5, 2 ** 53].map((v) => [{ capacity: 10, seed: v }, ArgumentRangeError, /^seed must be an integer from 0/] as const),
    ...[-1n, 2n ** 64n].map((v) => [{ capacity: 10, seed: v }, ArgumentRangeError, /^seed must be from 0 to 2\^64-1/] as const),
    ...['1', null].map((v) => [{ capacity: 10, seed: v }, ArgumentTypeError, /^seed must be a number/] as const),
    // A misspelt option would otherwise be left at its default without a word.
    [{ capacity: 10, fpr: 0.01 }, ArgumentTypeError, /^unknown option "fpr": the options of CuckooFilter\.create are capacity, falsePositiveRate, /],
    [{ capacity: 10, falsePositveRate: 0.01 }, ArgumentTypeError, /^unknown option "falsePositveRate"/],
  ];

  test.each(badOptions)('create(%p): %p, with a message naming the option', async (options, type, message) => {
    const p = CuckooFilter.create(options as never);
    await expect(p).rejects.toBeInstanceOf(type);
    await expect(p).rejects.toBeInstanceOf(type === ArgumentTypeError ? TypeError : RangeError);
    await expect(p).rejects.toThrow(message);
    await expect(p).rejects.toHaveProperty('code', type === ArgumentTypeError ? 'ERR_INVALID_ARG_TYPE' : 'ERR_OUT_OF_RANGE');
    stillWorks();
  });

  test('create with options that are not an object: ArgumentTypeError; valid edge values work', async () => {
    for (const options of [null, undefined, 5, 'capacity']) {
      const p = CuckooFilter.create(options as never);
      await expect(p).rejects.toBeInstanceOf(ArgumentTypeError);
      await expect(p).rejects.toThrow(/^options must be an object with at least \{ capacity \}/);
    }
    const { proxy, revoke } = Proxy.revocable({ capacity: 10 }, {});
    revoke();
    await expect(CuckooFilter.create(proxy)).rejects.toThrow(/^options is a revoked Proxy/);
    await expect(CuckooFilter.create(proxy)).rejects.toBeInstanceOf(ArgumentTypeError);
    for (const options of [{ capacity: 1 }, { capacity: 10, maxKicks: 0 }, { capacity: 10, seed: 0 }, { capacity: 10, seed: 2n ** 64n - 1n }]) {
      const g = await CuckooFilter.create(options);
      g.add('x');
      expect(g.has('x')).toBe(true);
      g.dispose();
    }
    stillWorks();
  });

  test('deleting a key that was never added can remove another key (documented, paper §3.3)', async () => {
    // With 4-bit fingerprints, collisions are easy to find: look for a key B that was
    // never added but that has() reports present after adding only A. B then shares
    // A's fingerprint and one of its buckets, and deleting B removes A's fingerprint.
    const g = await CuckooFilter.create({ capacity: 4, fingerprintBits: 4 });
    g.add('A');
    let b: string | undefined;
    for (let i = 0; i < 100000 && b === undefined; i++) if (g.has(`B${i}`)) b = `B${i}`;
    expect(b).toBeDefined();
    expect(g.delete(b!)).toBe(true); // "succeeds" although B was never added...
    expect(g.has('A')).toBe(false); // ...and A, which was added, is gone
    expect(g.size).toBe(0);
    g.dispose();
  });
});
