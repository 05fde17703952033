// Bad arguments: every public function gets a typed error or a correct answer,
// and the filter still works afterwards.
import { ArgumentRangeError, ArgumentTypeError, CuckooFilter, FilterFormatError } from 'cuckoo-wasm';

const enc = new TextEncoder();
const junk: unknown[] = [
  undefined, null, NaN, Infinity, -Infinity, -1, 0.5, 0, 42, 2n, true, {}, [], ['a'], () => 1, Symbol('s'),
  new ArrayBuffer(4), new Uint16Array(4), new Int8Array(4), new DataView(new ArrayBuffer(4)), new Date(0), /re/,
];

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

test('add / has / delete / count with keys of every wrong type: ArgumentTypeError, nothing changes', () => {
  for (const key of junk) {
    for (const op of ['add', 'has', 'delete', 'count'] as const) {
      let error: unknown;
      try {
        (f[op] as (k: unknown) => unknown)(key);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ArgumentTypeError);
      expect((error as Error).message).toMatch(/key must be a string or a Uint8Array, got /);
    }
  }
  expect(f.size).toBe(2);
  stillWorks();
});

test('addAll / hasAll with wrong containers or wrong keys', () => {
  for (const keys of [undefined, null, 5, NaN, {}, true, Symbol('s'), { length: -1 }, { length: NaN }, { length: 2.5 }]) {
    expect(() => f.addAll(keys as never)).toThrow(ArgumentTypeError);
    expect(() => f.hasAll(keys as never)).toThrow(ArgumentTypeError);
  }
  for (const [i, key] of junk.entries()) {
    // A distinct first key each time: it is added before the bad key is refused, as by a loop of add().
    expect(() => f.addAll([`fine-${i}`, key] as never)).toThrow(ArgumentTypeError);
    expect(() => f.hasAll([`fine-${i}`, key] as never)).toThrow(ArgumentTypeError);
  }
  stillWorks();
  // A string is iterable: addAll('abc') adds its characters, as a Set would.
  expect(f.addAll('xy' as never)).toBe(2);
  expect(f.hasAll(['x', 'y'])).toEqual([true, true]);
});

test('empty string and empty Uint8Array are one valid key', () => {
  f.add('');
  expect(f.has(new Uint8Array(0))).toBe(true);
  expect(f.count('')).toBe(1);
  expect(f.hasAll(['', new Uint8Array(0)])).toEqual([true, true]);
  expect(f.delete(new Uint8Array(0))).toBe(true);
  expect(f.has('')).toBe(false);
  stillWorks();
});

test('a lone UTF-16 surrogate hashes as U+FFFD (as TextEncoder encodes it)', () => {
  for (const lone of ['\uD800', 'a\uDFFF', '\uDBFFb']) {
    f.add(lone);
    expect(f.has(lone.replace(/[\uD800-\uDFFF]/g, '\uFFFD'))).toBe(true);
    expect(f.has(enc.encode(lone))).toBe(true);
    expect(f.hasAll([lone])).toEqual([true]);
  }
  f.add('x\uD83D\uDE00'); // a proper pair is one code point, not two U+FFFD
  expect(f.has('x\uFFFD\uFFFD')).toBe(false);
  stillWorks();
});

test('SharedArrayBuffer-backed and offset Uint8Array views hash their visible bytes', () => {
  const shared = new Uint8Array(new SharedArrayBuffer(16));
  shared.set(enc.encode('shared-key'), 3);
  const view = shared.subarray(3, 13);
  f.add(view);
  expect(f.has('shared-key')).toBe(true);
  expect(f.hasAll([view, 'shared-key'])).toEqual([true, true]);
  expect(f.count(view)).toBe(1);
  expect(f.addAll([shared.subarray(0, 3)])).toBe(1);
  stillWorks();
});

test('create with NaN, Infinity, negative, fractional, huge, wrong-typed options', async () => {
  const bad: [object, new (...a: never[]) => Error][] = [];
  for (const v of [NaN, Infinity, -Infinity, -1, 0.5, 2 ** 53, 1e300]) bad.push([{ capacity: v }, ArgumentRangeError]);
  for (const v of [null, '10', 10n, {}, true]) bad.push([{ capacity: v }, ArgumentTypeError]);
  for (const v of [NaN, Infinity, -Infinity, 0, 1, 2, -0.5]) bad.push([{ capacity: 10, falsePositiveRate: v }, ArgumentRangeError]);
  for (const v of [NaN, Infinity, 3.5, 0, 64]) bad.push([{ capacity: 10, fingerprintBits: v }, ArgumentRangeError]);
  for (const v of [NaN, Infinity, 0, 1, 4.5]) bad.push([{ capacity: 10, bucketSize: v }, ArgumentRangeError]);
  for (const v of ['4', null]) bad.push([{ capacity: 10, bucketSize: v }, ArgumentTypeError]);
  for (const v of [NaN, Infinity, -1, 0.5, 1_000_001]) bad.push([{ capacity: 10, maxKicks: v }, ArgumentRangeError]);
  for (const v of [NaN, -1, 0.5, 2 ** 53, -1n, 2n ** 64n]) bad.push([{ capacity: 10, seed: v }, ArgumentRangeError]);
  for (const v of ['1', null]) bad.push([{ capacity: 10, seed: v }, ArgumentTypeError]);
  for (const [options, type] of bad) {
    await expect(CuckooFilter.create(options as never)).rejects.toBeInstanceOf(type);
  }
  for (const options of [null, undefined, 5, 'capacity']) {
    await expect(CuckooFilter.create(options as never)).rejects.toBeInstanceOf(ArgumentTypeError);
  }
  // Valid edge values work.
  for (const options of [{ capacity: 1 }, { capacity: 10, maxKicks: 0 }, { capacity: 10, seed: 0 }, { capacity: 10, seed: 2n ** 64n - 1n }]) {
    const g = await CuckooFilter.create(options);
    g.add('x');
    expect(g.has('x')).toBe(true);
    g.dispose();
  }
  stillWorks();
});

test('fromBytes with non-bytes: FilterFormatError (not-bytes)', async () => {
  for (const v of [undefined, null, 5, 'CKOO', {}, [1, 2], new Uint16Array(40), new DataView(new ArrayBuffer(80))]) {
    const p = CuckooFilter.fromBytes(v as never);
    await expect(p).rejects.toBeInstanceOf(FilterFormatError);
    await expect(p).rejects.toHaveProperty('reason', 'not-bytes');
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

test('a key array whose getter answers differently each read cannot write past the batch region', async () => {
  // Each key is read once per chunk: what is sized is what is written. (Reading a key twice let a
  // getter return a 3M-unit string after a 1-unit one was sized, overrunning wasm memory.)
  const g = await CuckooFilter.create({ capacity: 100_000 });
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
  expect((await CuckooFilter.fromBytes(g.toBytes())).size).toBe(50_000);
  g.dispose();
  stillWorks();
});
