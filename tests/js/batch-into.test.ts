// hasAll(keys, out) and hasAllUrls(urls, out): the answers of a lookup batch
// written into a Uint8Array the caller owns (js/common/answers.ts), for every family
// with keys. The bytes are those of a loop of single calls (1 / 0), the bytes
// past the keys are left alone, and the batch returns `out` itself. `out` may
// be of another realm or a view of a SharedArrayBuffer; anything else, or one
// too short, detached, or a view of wasm memory, is a typed error; so is one
// that the caller's code shrinks or transfers mid-batch, and no byte is ever
// written past its end or into a detached buffer.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import * as vm from 'node:vm';
import * as fc from 'fast-check';
import { ArgumentRangeError, ArgumentTypeError, InvalidUrlError } from 'cuckoo-wasm';
import type { Key } from 'cuckoo-wasm';
import { KeyFilter, KEY_FAMILY_ROWS, withGetter } from './families';

const root = join(__dirname, '..', '..');
const keysOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}.example`);
const loop = (f: KeyFilter, keys: Key[]) => Uint8Array.from(keys, (k) => (f.has(k) ? 1 : 0));
const loopUrls = (f: KeyFilter, urls: Key[]) => Uint8Array.from(urls, (u) => (f.hasUrl(u) ? 1 : 0));
const bytes = (a: Uint8Array) => Array.from(a);

type Resizable = ArrayBuffer & { resize(n: number): void };
/** A resizable ArrayBuffer (ES2024; Node.js 20 has it). */
const resizable = (n: number, max: number) =>
  new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => Resizable)(n, { maxByteLength: max });
/** Detaches `buffer`, as a transfer to a worker does. */
const detach = (buffer: ArrayBufferLike) => structuredClone(buffer, { transfer: [buffer as ArrayBuffer] });

describe.each(KEY_FAMILY_ROWS)('%s', (_, family) => {
  let f: KeyFilter;
  const members = keysOf('in', 3000);
  const queries = [...members.slice(0, 1500), ...keysOf('out', 1500), 'ünïcödé.example', new Uint8Array([1, 2, 3])];
  beforeAll(async () => {
    f = await family.create({ capacity: 10_000, ...(family.grows ? { expansion: 2 } : {}) });
    f.addAll(members);
    f.add(new Uint8Array([1, 2, 3]));
    f.addUrls(['evil.example/login/', 'xn--bcher-kva.example', 'phish.example']);
  });
  afterAll(() => f.dispose());

  describe('answers', () => {
    test('hasAll(keys, out) writes the bytes of a loop of has() into out, returns it, and leaves the bytes past the keys alone', () => {
      const out = new Uint8Array(queries.length + 5).fill(7);
      expect(f.hasAll(queries, out)).toBe(out);
      expect(bytes(out.subarray(0, queries.length))).toEqual(bytes(loop(f, queries)));
      expect(bytes(out.subarray(queries.length))).toEqual([7, 7, 7, 7, 7]);
      expect(out.subarray(0, queries.length).every((b) => b === 0 || b === 1)).toBe(true);
      // Without out (or with undefined): a boolean[], as before.
      expect(f.hasAll(queries)).toEqual(Array.from(loop(f, queries), Boolean));
      expect(f.hasAll(queries, undefined)).toEqual(Array.from(loop(f, queries), Boolean));
    });

    test('many chunks (20,000 keys), from an iterator and an array-like, into a subarray at an offset of a larger buffer', () => {
      const keys = [...keysOf('in', 3000), ...keysOf('none', 17_000)];
      const want = loop(f, keys);
      const backing = new Uint8Array(keys.length + 64).fill(9);
      const out = backing.subarray(32, 32 + keys.length);
      expect(f.hasAll(keys.values(), out)).toBe(out);
      expect(bytes(out)).toEqual(bytes(want));
      out.fill(5);
      const arrayLike = { length: keys.length, ...Object.fromEntries(keys.map((k, i) => [i, k])) };
      expect(f.hasAll(arrayLike as ArrayLike<Key>, out)).toBe(out);
      expect(bytes(out)).toEqual(bytes(want));
      expect(backing.subarray(0, 32).every((b) => b === 9) && backing.subarray(32 + keys.length).every((b) => b === 9)).toBe(true);
    });

    test('out of another realm, a view of a SharedArrayBuffer, a Buffer, a length-tracking view of a resizable buffer', () => {
      const want = bytes(loop(f, queries));
      const n = queries.length;
      const outs: Uint8Array[] = [
        vm.runInNewContext(`new Uint8Array(${n})`) as Uint8Array,
        new Uint8Array(new SharedArrayBuffer(n + 8), 8),
        Buffer.alloc(n),
        new Uint8Array(resizable(n, 2 * n)),
      ];
      for (const out of outs) {
        expect(f.hasAll(queries, out)).toBe(out);
        expect(bytes(out.subarray(0, n))).toEqual(want);
      }
    });

    test("a subclass's own set, buffer and length are never consulted", () => {
      let called = 0;
      class Sneaky extends Uint8Array {
        get length() {
          called++;
          return 1;
        }
        get buffer(): ArrayBuffer {
          called++;
          return new ArrayBuffer(1);
        }
        set(): void {
          called++;
        }
      }
      const out = new Sneaky(queries.length);
      expect(f.hasAll(queries, out)).toBe(out);
      expect(called).toBe(0);
      expect(bytes(Uint8Array.from(out))).toEqual(bytes(loop(f, queries)));
    });

    test('keys sliced from one text with a character above U+00FF (two-byte strings, ASCII or not), over many chunks: the answers of a loop', () => {
      const text = [...members, ...keysOf('none', 3000), 'ĀĀ.example', ...members.map((k) => `https://${k}/path`)].join('\n');
      const keys = text.split('\n');
      const out = new Uint8Array(keys.length);
      expect(bytes(f.hasAll(keys, out))).toEqual(bytes(loop(f, keys)));
      expect(f.hasAll(keys)).toEqual(Array.from(loop(f, keys), Boolean));
      expect(out.subarray(0, members.length).every((b) => b === 1)).toBe(true);
    });

    test('property: hasAll(keys, out) is a loop of has() for any keys, any out length >= keys, array or iterator', () => {
      const key = fc.oneof(
        fc.constantFrom(...members.slice(0, 50)),
        fc.string({ maxLength: 40 }),
        fc.string({ unit: 'grapheme', maxLength: 12 }),
        fc.uint8Array({ maxLength: 20 }),
      );
      fc.assert(
        fc.property(fc.array(key, { maxLength: 200 }), fc.nat(10), fc.boolean(), (keys, extra, iterate) => {
          const out = new Uint8Array(keys.length + extra).fill(200);
          expect(f.hasAll(iterate ? keys.values() : keys, out)).toBe(out);
          expect(bytes(out.subarray(0, keys.length))).toEqual(bytes(loop(f, keys)));
          expect(out.subarray(keys.length).every((b) => b === 200)).toBe(true);
        }),
        { numRuns: 100, seed: 20261126 },
      );
    });

    test('hasAllUrls(urls, out): the bytes of a loop of hasUrl(), internationalized hosts included; URL errors keep their index', () => {
      const urls = ['https://evil.example/login/x', 'https://www.phish.example/', 'https://bücher.example/a', 'https://good.example/', 'http://a.evil.example/login/'];
      const all = [...urls, ...keysOf('https://none', 9000)];
      const out = new Uint8Array(all.length + 1).fill(3);
      expect(f.hasAllUrls(all, out)).toBe(out);
      expect([out[0], out[1], out[2], out[4]]).toEqual([1, 1, 1, 1]);
      expect(bytes(out.subarray(0, all.length))).toEqual(bytes(loopUrls(f, all)));
      expect(out[all.length]).toBe(3);
      const bad = (() => {
        try {
          f.hasAllUrls(['https://ok.example/', 'http://[::1', 'https://x.example/'], new Uint8Array(3));
        } catch (e) {
          return e as InvalidUrlError;
        }
      })();
      expect(bad).toBeInstanceOf(InvalidUrlError);
      expect(bad!.index).toBe(1);
    });
  });

  describe('errors', () => {
    test('out that is not a Uint8Array: ArgumentTypeError, no key read', () => {
      let read = 0;
      const counted = withGetter(['a'], 0, () => read++);
      for (const out of [null, [0, 0], new Uint16Array(4), new Uint8ClampedArray(4), new DataView(new ArrayBuffer(4)), new ArrayBuffer(4), { length: 4 }]) {
        expect(() => f.hasAll(counted, out as never)).toThrow(ArgumentTypeError);
        expect(() => f.hasAllUrls(counted, out as never)).toThrow(/out must be a Uint8Array, got /);
      }
      expect(read).toBe(0);
    });

    test('out shorter than the keys of an array: ArgumentRangeError with both lengths, nothing written', () => {
      const out = new Uint8Array(3).fill(4);
      expect(() => f.hasAll(['a', 'b', 'c', 'd', 'e'], out)).toThrow(ArgumentRangeError);
      expect(() => f.hasAll(['a', 'b', 'c', 'd', 'e'], out)).toThrow(/out has length 3, needs at least 5/);
      expect(() => f.hasAllUrls(['a.example', 'b.example', 'c.example', 'd.example'], out)).toThrow(/out has length 3, needs at least 4/);
      expect(bytes(out)).toEqual([4, 4, 4]);
    });

    test('an iterator giving more keys than out holds: ArgumentRangeError at the first key past its end, nothing written past it, the iterator closed', () => {
      const backing = new Uint8Array(10_010).fill(6);
      const out = backing.subarray(0, 10_000);
      let closed = false;
      function* gen() {
        try {
          for (let i = 0; i < 10_005; i++) yield `k-${i}`;
        } finally {
          closed = true;
        }
      }
      expect(() => f.hasAll(gen(), out)).toThrow(/out has length 10000, needs at least 10001 \(one byte per key\) for keys\[10000\.\.10000\]/);
      expect(closed).toBe(true);
      expect(backing.subarray(10_000).every((b) => b === 6)).toBe(true);
      expect(() => f.hasAllUrls(keysOf('https://u', 10_001).values(), out)).toThrow(ArgumentRangeError);
      expect(backing.subarray(10_000).every((b) => b === 6)).toBe(true);
    });

    test('a detached out: ArgumentTypeError', () => {
      const out = new Uint8Array(8);
      detach(out.buffer);
      expect(() => f.hasAll(['a'], out)).toThrow(ArgumentTypeError);
      expect(() => f.hasAllUrls(['a.example'], out)).toThrow(/detached/);
    });

    test("out transferred by the caller's code mid-batch: ArgumentTypeError, nothing written, the filter goes on", () => {
      for (const at of [5, 9000]) {
        const keys = Array.from({ length: 10_000 }, (_, i) => members[i % members.length]);
        const out = new Uint8Array(keys.length);
        expect(() => f.hasAll(withGetter(keys, at, () => detach(out.buffer)), out)).toThrow(ArgumentTypeError);
        const urlOut = new Uint8Array(keys.length);
        expect(() => f.hasAllUrls(withGetter(keys, at, () => detach(urlOut.buffer)), urlOut)).toThrow(/detached/);
        expect(f.hasAll(keys, new Uint8Array(keys.length)).every((b) => b === 1)).toBe(true);
      }
    });

    test("out shrunk by the caller's code mid-batch (a resizable buffer): ArgumentRangeError, nothing written past its new end", () => {
      const keys = keysOf('in', 10_000);
      for (const tracking of [true, false]) {
        const buffer = resizable(keys.length, keys.length);
        const out = tracking ? new Uint8Array(buffer) : new Uint8Array(buffer, 0, keys.length);
        const shrink = withGetter(keys, 9000, () => buffer.resize(100));
        expect(() => f.hasAll(shrink, out)).toThrow(ArgumentRangeError);
        buffer.resize(keys.length);
        // The chunks before key 9000 were answered before the shrink; nothing was written after it.
        expect(new Uint8Array(buffer).subarray(100).every((b) => b === 0)).toBe(true);
      }
    });

    test("out grown by the caller's code mid-batch (a length-tracking view): the keys past its first length are answered", () => {
      const keys = keysOf('in', 2000);
      const buffer = resizable(1000, 4000);
      const out = new Uint8Array(buffer);
      function* gen() {
        for (let i = 0; i < keys.length; i++) {
          if (i === 1000) buffer.resize(2000); // key 1000 would not fit before
          yield keys[i];
        }
      }
      expect(f.hasAll(gen(), out)).toBe(out);
      expect(out.length).toBe(2000);
      expect(out.every((b) => b === 1)).toBe(true);
    });
  });
});

test('a view of wasm memory as out: ArgumentTypeError, memory unchanged', () => {
  const script = `
const { CuckooFilter, BloomFilter } = await import(process.env.LIB);
const { rawBoundary } = await import(process.env.TESTING);
const raw = await rawBoundary();
const out = {};
for (const cls of [CuckooFilter, BloomFilter]) {
  const f = await cls.create({ capacity: 100 });
  f.add('a');
  const view = raw.heapU8().subarray(raw.scratch().ptr, raw.scratch().ptr + 16);
  const before = Array.from(view);
  for (const m of ['hasAll', 'hasAllUrls']) {
    try { f[m](['a', 'b.example'], view); out[cls.name + m] = 'returned'; } catch (e) { out[cls.name + m] = e.name + ': ' + e.message; }
  }
  out[cls.name + 'same'] = JSON.stringify(before) === JSON.stringify(Array.from(raw.heapU8().subarray(raw.scratch().ptr, raw.scratch().ptr + 16)));
  f.dispose();
}
console.log(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, LIB: join(root, 'dist', 'index.mjs'), TESTING: join(root, 'dist', 'testing.mjs') },
  });
  expect(r.stderr).toBe('');
  const out = JSON.parse(r.stdout);
  for (const cls of ['CuckooFilter', 'BloomFilter']) {
    expect(out[cls + 'hasAll']).toMatch(/^ArgumentTypeError: out is a view of wasm memory/);
    expect(out[cls + 'hasAllUrls']).toMatch(/^ArgumentTypeError: out is a view of wasm memory/);
    expect(out[cls + 'same']).toBe(true);
  }
});
