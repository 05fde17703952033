// Hostile SCANDUMP input for the Redis families: truncated, extra, out-of-order and
// mis-numbered chunks, headers whose numbers disagree, detached buffers, pairs that
// are not pairs, and caller code (an iterable's next(), a Proxy's getters) that throws,
// aborts the loader, pushes into it, or grows wasm memory in the middle of a push.
// Each ends in the right filter or a typed error, never a trap, and nothing loaded
// is left allocated. The fixtures' own checks: tests/js/redis.test.ts.
import * as vm from 'node:vm';
import {
  ArgumentRangeError,
  ArgumentTypeError,
  CuckooFilter,
  FilterDisposedError,
  FilterFormatError,
  FilterFullError,
  RedisBloomFilter,
  RedisCuckooFilter,
  wasmMemoryUsage,
} from 'cuckoo-wasm';
import type { ScanDumpChunk } from 'cuckoo-wasm';
import { chunksOf, loadFixture } from './redis-fixtures';

const cfGrow = chunksOf(loadFixture('cf-grow.json')); // header + 5 tables: iterators 1, 1025, 3073, 7169, 15361, 31745
const bfGrow = chunksOf(loadFixture('bf-grow.json'));
const cfDefault = chunksOf(loadFixture('cf-default.json'));

const copy = (chunks: ScanDumpChunk[]): ScanDumpChunk[] => chunks.map(([it, b]) => [it, b.slice()]);
const hex = (chunks: ScanDumpChunk[]) => chunks.map(([it, b]) => [it, Buffer.from(b).toString('hex')]);

/** The header chunk with `edit` applied to a copy of its bytes. */
function withHeader(chunks: ScanDumpChunk[], edit: (v: DataView, b: Uint8Array) => Uint8Array | void): ScanDumpChunk[] {
  const out = copy(chunks);
  const b = out[0][1];
  out[0] = [1, edit(new DataView(b.buffer, b.byteOffset, b.byteLength), b) ?? b];
  return out;
}

/** The FilterFormatError reason `load` rejects with. */
async function reason(load: Promise<unknown>): Promise<string> {
  try {
    const f = await load;
    (f as { dispose(): void }).dispose();
    return 'loaded';
  } catch (e) {
    if (!(e instanceof FilterFormatError)) throw e;
    return e.reason;
  }
}

const allocated = async () => (await wasmMemoryUsage()).allocatedBytes;

describe('refused chunk sequences (FilterFormatError with a reason)', () => {
  let before: number;
  beforeAll(async () => {
    // Warms the scratch regions and registers both classes (each a few bytes, kept).
    (await RedisCuckooFilter.fromScanDump(cfGrow)).dispose();
    (await RedisBloomFilter.fromScanDump(bfGrow)).dispose();
    before = await allocated();
  });
  afterAll(async () => expect(await allocated()).toBe(before)); // nothing half-loaded was left

  const cases: [string, () => ScanDumpChunk[], string][] = [
    ['no chunks at all', () => [], 'truncated'],
    ['the header alone', () => copy(cfGrow.slice(0, 1)), 'bad-chunk'],
    ['the last table chunk missing', () => copy(cfGrow.slice(0, -1)), 'bad-chunk'],
    ['a chunk after the last', () => [...copy(cfGrow), [31745 + 1024, new Uint8Array(1024)]], 'bad-chunk'],
    ['the last chunk twice', () => [...copy(cfGrow), copy(cfGrow.slice(-1))[0]], 'bad-chunk'],
    ['two table chunks swapped', () => { const c = copy(cfGrow); [c[1], c[2]] = [c[2], c[1]]; return c; }, 'bad-chunk'],
    ['a table chunk before the header', () => { const c = copy(cfGrow); [c[0], c[1]] = [c[1], c[0]]; return c; }, 'bad-chunk'],
    ['the header with iterator 2', () => { const c = copy(cfGrow); c[0] = [2, c[0][1]]; return c; }, 'bad-chunk'],
    ['a table chunk with its iterator off by one', () => { const c = copy(cfGrow); c[2] = [c[2][0] + 1, c[2][1]]; return c; }, 'bad-chunk'],
    ['two sub-filters in one chunk', () => { const c = copy(cfGrow); return [c[0], [c[2][0], Buffer.concat([c[1][1], c[2][1]])], ...c.slice(3)]; }, 'bad-chunk'],
    ['a table chunk one byte short', () => { const c = copy(cfGrow); c[1] = [c[1][0] - 1, c[1][1].subarray(0, -1)]; return c; }, 'bad-chunk'],
    ['the header one byte short', () => withHeader(cfGrow, (_v, b) => b.subarray(0, 37)), 'truncated'],
    ['the header one byte long', () => withHeader(cfGrow, (_v, b) => Buffer.concat([b, Buffer.from([0])])), 'trailing-bytes'],
    ['513 buckets (not a power of two)', () => withHeader(cfGrow, (v) => v.setBigUint64(8, 513n, true)), 'bad-parameter'],
    ['bucket size 0', () => withHeader(cfGrow, (v) => v.setUint16(32, 0, true)), 'bad-parameter'],
    ['0 sub-filters', () => withHeader(cfGrow, (v) => v.setBigUint64(24, 0n, true)), 'bad-parameter'],
    ['33 sub-filters', () => withHeader(cfGrow, (v) => v.setBigUint64(24, 33n, true)), 'bad-parameter'],
    ['2^40 buckets (past the memory limit)', () => withHeader(cfGrow, (v) => v.setBigUint64(8, 1n << 40n, true)), 'bad-parameter'],
    ['expansion 0 with five sub-filters', () => withHeader(cfGrow, (v) => v.setUint16(36, 0, true)), 'bad-parameter'],
    ['an item count the tables disagree with', () => withHeader(cfGrow, (v) => v.setBigUint64(0, 19999n, true)), 'count-mismatch'],
  ];
  test.each(cases.map(([w, c, e]) => [w, e, c] as const))('CF: %s -> %s', async (_what, expected, chunks) => {
    expect(await reason(RedisCuckooFilter.fromScanDump(chunks()))).toBe(expected);
  });

  const bfCases: [string, () => ScanDumpChunk[], string][] = [
    ['the last link missing', () => copy(bfGrow.slice(0, -1)), 'bad-chunk'],
    ['a link whose bits disagree with its bytes', () => withHeader(bfGrow, (v) => v.setBigUint64(28, v.getBigUint64(28, true) + 64n, true)), 'bad-parameter'],
    ['a link whose hash count disagrees with its bits per entry', () => withHeader(bfGrow, (v) => v.setUint32(60, v.getUint32(60, true) + 1, true)), 'bad-parameter'],
    ['0 links', () => withHeader(bfGrow, (v) => v.setUint32(8, 0, true)), 'bad-parameter'],
    ['a total the links disagree with', () => withHeader(bfGrow, (v) => v.setBigUint64(0, v.getBigUint64(0, true) + 1n, true)), 'count-mismatch'],
    ['a CF dump', () => copy(cfGrow), 'any'],
  ];
  test.each(bfCases.map(([w, c, e]) => [w, e, c] as const))('BF: %s -> %s', async (_what, expected, chunks) => {
    const r = await reason(RedisBloomFilter.fromScanDump(chunks()));
    if (expected === 'any') expect(r).not.toBe('loaded');
    else expect(r).toBe(expected);
  });
});

describe('pairs that are not [iterator, Uint8Array]', () => {
  test.each([
    ['null', null, ArgumentTypeError],
    ['a string', 'abc', ArgumentTypeError],
    ['a string chunk (a client decoding replies as text)', [1, 'abc'], ArgumentTypeError],
    ['a string iterator', ['1', new Uint8Array(38)], ArgumentTypeError],
    ['a negative iterator', [-1, new Uint8Array(38)], ArgumentRangeError],
    ['a fractional iterator', [1.5, new Uint8Array(38)], ArgumentRangeError],
  ] as [string, unknown, new (...a: never[]) => Error][])('%s: a typed error, and the loader stays usable', async (_what, pair, cls) => {
    const loader = await RedisCuckooFilter.scanDumpLoader();
    expect(() => loader.push(pair as ScanDumpChunk)).toThrow(cls);
    for (const c of cfDefault) loader.push(c);
    const f = loader.finish();
    expect(hex(f.toScanDump())).toEqual(hex(cfDefault));
    f.dispose();
  });

  test('chunks that are not iterable: ArgumentTypeError', async () => {
    await expect(RedisCuckooFilter.fromScanDump(42 as never)).rejects.toThrow(ArgumentTypeError);
    await expect(RedisCuckooFilter.fromScanDump('chunks' as never)).rejects.toThrow(ArgumentTypeError);
  });

  test('a detached chunk: ArgumentTypeError; a copy made before the transfer loads', async () => {
    const loader = await RedisCuckooFilter.scanDumpLoader();
    loader.push(copy(cfDefault)[0]);
    const chunk = cfDefault[1][1].slice();
    structuredClone(chunk.buffer, { transfer: [chunk.buffer] });
    expect(() => loader.push([cfDefault[1][0], chunk])).toThrow(ArgumentTypeError);
    for (const c of cfDefault.slice(1)) loader.push(c);
    const f = loader.finish();
    expect(hex(f.toScanDump())).toEqual(hex(cfDefault));
    f.dispose();
  });

  test('Buffers, views at an offset, and another realm\'s Uint8Arrays load', async () => {
    const realm = vm.runInNewContext('(b) => new Uint8Array(b)') as (b: number[]) => Uint8Array;
    const pool = Buffer.alloc(8192 + 7);
    const variants: ScanDumpChunk[][] = [
      cfDefault.map(([it, b]) => [it, Buffer.from(b)]),
      cfDefault.map(([it, b]) => { const v = pool.subarray(7, 7 + b.length); v.set(b); return [it, new Uint8Array(v)]; }),
      cfDefault.map(([it, b]) => [it, realm([...b])]),
      cfDefault.map(([it, b]) => [BigInt(it) as unknown as number, b]),
    ];
    for (const chunks of variants) {
      const f = await RedisCuckooFilter.fromScanDump(chunks);
      expect(hex(f.toScanDump())).toEqual(hex(cfDefault));
      f.dispose();
    }
  });
});

describe('caller code inside the load', () => {
  let before: number;
  beforeAll(async () => {
    (await RedisCuckooFilter.fromScanDump(cfGrow)).dispose();
    before = await allocated();
  });
  afterAll(async () => expect(await allocated()).toBe(before));

  test('an iterable that throws half-way: its error, and nothing left loaded', async () => {
    function* throwing() {
      yield* copy(cfGrow.slice(0, 3));
      throw new Error('network gone');
    }
    await expect(RedisCuckooFilter.fromScanDump(throwing())).rejects.toThrow('network gone');
    async function* rejecting() {
      yield* copy(cfGrow.slice(0, 3));
      throw new Error('async gone');
    }
    await expect(RedisCuckooFilter.fromScanDump(rejecting())).rejects.toThrow('async gone');
  });

  test('an iterator that stops early: truncated (bad-chunk), and closed', async () => {
    let returned = false;
    const it = {
      i: 0,
      [Symbol.iterator]() { return this; },
      next() { return this.i < 3 ? { value: cfGrow[this.i++], done: false } : { value: undefined, done: true }; },
      return() { returned = true; return { value: undefined, done: true }; },
    };
    expect(await reason(RedisCuckooFilter.fromScanDump(it as Iterable<ScanDumpChunk>))).toBe('bad-chunk');
    expect(returned).toBe(false); // ran to its end: nothing to close
  });

  test('a refused chunk closes the iterator the load reads', async () => {
    let returned = false;
    function* bad() {
      try {
        yield cfGrow[0];
        yield cfGrow[2];
        yield cfGrow[1];
      } finally {
        returned = true;
      }
    }
    expect(await reason(RedisCuckooFilter.fromScanDump(bad()))).toBe('bad-chunk');
    expect(returned).toBe(true);
  });

  test('a getter that aborts the loader: FilterDisposedError, and the loader stays closed', async () => {
    const loader = await RedisCuckooFilter.scanDumpLoader();
    loader.push(cfGrow[0]);
    const pair = new Proxy(cfGrow[1], {
      get(t, k) {
        if (k === '1') loader.abort();
        return Reflect.get(t, k);
      },
    });
    expect(() => loader.push(pair)).toThrow(FilterDisposedError);
    expect(() => loader.push(cfGrow[2])).toThrow(FilterDisposedError);
    expect(() => loader.finish()).toThrow(FilterDisposedError);
    loader.abort(); // a no-op
  });

  test('a getter that pushes the same chunk first: the outer push is a duplicate (bad-chunk), the loader closes', async () => {
    const loader = await RedisCuckooFilter.scanDumpLoader();
    loader.push(cfGrow[0]);
    const pair = new Proxy(cfGrow[1], {
      get(t, k) {
        if (k === '0') loader.push(cfGrow[1]);
        return Reflect.get(t, k);
      },
    });
    let e: unknown;
    try {
      loader.push(pair);
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(FilterFormatError);
    expect((e as FilterFormatError).reason).toBe('bad-chunk');
    expect(() => loader.finish()).toThrow(FilterDisposedError);
  });

  test('a getter that pushes the previous chunk in order: both land, the load completes', async () => {
    const loader = await RedisCuckooFilter.scanDumpLoader();
    loader.push(cfGrow[0]);
    const pair = new Proxy(cfGrow[2], {
      get(t, k) {
        if (k === '0') loader.push(cfGrow[1]);
        return Reflect.get(t, k);
      },
    });
    loader.push(pair);
    for (const c of cfGrow.slice(3)) loader.push(c);
    const f = loader.finish();
    expect(hex(f.toScanDump())).toEqual(hex(cfGrow));
    f.dispose();
  });

  test('a getter that grows wasm memory in the middle of a push: the load is right', async () => {
    // Memory grows synchronously inside the getter: a nested loader copies a chunk larger than
    // the whole heap into wasm memory (and refuses it as a header).
    const nested = await RedisBloomFilter.scanDumpLoader();
    const loader = await RedisCuckooFilter.scanDumpLoader();
    const heap = (await wasmMemoryUsage()).heapBytes;
    const pair = new Proxy(cfGrow[0], {
      get(t, k) {
        if (k === '1') expect(() => nested.push([1, new Uint8Array(heap + (16 << 20))])).toThrow(FilterFormatError);
        return Reflect.get(t, k);
      },
    });
    loader.push(pair);
    expect((await wasmMemoryUsage()).heapBytes).toBeGreaterThan(heap);
    for (const c of cfGrow.slice(1)) loader.push(c);
    const f = loader.finish();
    expect(hex(f.toScanDump())).toEqual(hex(cfGrow));
    f.dispose();
  });
});

describe('scanDumpChunks while the filter changes', () => {
  test('disposed between chunks: FilterDisposedError', async () => {
    const f = await RedisCuckooFilter.fromScanDump(cfGrow);
    const it = f.scanDumpChunks();
    expect(it.next().value[0]).toBe(1);
    f.dispose();
    expect(() => it.next()).toThrow(FilterDisposedError);
  });

  test('a key added between chunks: FilterFormatError bad-chunk; a new dump is right', async () => {
    const f = await RedisCuckooFilter.fromScanDump(cfGrow);
    const it = f.scanDumpChunks();
    it.next();
    f.add('added-between-chunks.example');
    expect(() => it.next()).toThrow(FilterFormatError);
    const g = await RedisCuckooFilter.fromScanDump(f.toScanDump());
    expect(g.has('added-between-chunks.example')).toBe(true);
    for (const x of [f, g]) x.dispose();
  });

  test('chunks are copies: changing one does not change the filter', async () => {
    const f = await RedisCuckooFilter.fromScanDump(cfDefault);
    const chunks = f.toScanDump();
    chunks[1][1].fill(0);
    expect(hex(f.toScanDump())).toEqual(hex(cfDefault));
    f.dispose();
  });

  test('an empty cuckoo filter dumps nothing, as the server', async () => {
    const f = await RedisCuckooFilter.create({ capacity: 1000 });
    expect(f.toScanDump()).toEqual([]);
    f.add('x');
    expect(f.toScanDump().map(([it, b]) => [it, b.length])).toEqual([[1, 38], [1025, 1024]]); // 512 buckets of 2, as cf-default's first
    expect((f as RedisCuckooFilter).delete('x')).toBe(true);
    expect(f.toScanDump()).toEqual([]);
    f.dispose();
  });
});

describe('own-format bytes across families', () => {
  test('a Redis CF\'s toBytes in CuckooFilter.fromBytes: is-redis-cuckoo-filter, and the other way is-cuckoo-filter', async () => {
    const r = await RedisCuckooFilter.fromScanDump(cfDefault);
    const c = await CuckooFilter.create({ capacity: 100 });
    expect(await reason(CuckooFilter.fromBytes(r.toBytes()))).toBe('is-redis-cuckoo-filter');
    expect(await reason(RedisCuckooFilter.fromBytes(c.toBytes()))).toBe('is-cuckoo-filter');
    expect(await reason(RedisBloomFilter.fromBytes(r.toBytes()))).toBe('is-redis-cuckoo-filter');
    for (const x of [r, c]) x.dispose();
  });
});

describe('URLs and batches on the Redis families', () => {
  test('addUrl / hasUrl / matchUrl work on both (the core\'s URL layer calls any family\'s Add / Contain)', async () => {
    for (const f of [await RedisCuckooFilter.create({ capacity: 1000 }), await RedisBloomFilter.create({ errorRate: 0.01, capacity: 1000 })]) {
      f.addUrl('evil.example/login/');
      expect(f.hasUrl('https://www.evil.example/login/x?y=1')).toBe(true);
      expect(f.matchUrl('https://evil.example/login/a')).toBe('evil.example/login/');
      expect(f.hasUrl('https://good.example/')).toBe(false);
      f.dispose();
    }
  });

  test('a full CF: add throws FilterFullError saying "Filter is full", addAll tells how many went in, nothing stored is lost', async () => {
    const f = await RedisCuckooFilter.create({ capacity: 4, bucketSize: 1, expansion: 0 });
    const keys = Array.from({ length: 100 }, (_, i) => `k${i}`);
    let e: unknown;
    try {
      f.addAll(keys);
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(FilterFullError);
    expect((e as Error).message).toMatch(/^Filter is full/);
    const added = (e as FilterFullError).added;
    expect(f.hasAll(keys.slice(0, added)).every(Boolean)).toBe(true);
    const before = f.toBytes();
    expect(() => f.addUnique(keys[added])).toThrow(/^Filter is full/);
    expect(Buffer.from(f.toBytes()).equals(Buffer.from(before))).toBe(true);
    f.dispose();
  });

  test('a full nonScaling BF: FilterFullError saying "non scaling filter is full"; addNew answers BF.ADD\'s 1 / 0', async () => {
    const f = await RedisBloomFilter.create({ errorRate: 0.01, capacity: 10, nonScaling: true });
    expect(f.addNew('a')).toBe(true);
    expect(f.addNew('a')).toBe(false);
    expect(f.info().expansionRate).toBeNull();
    let i = 0;
    expect(() => {
      for (; i < 100; ++i) f.add(`k${i}`);
    }).toThrow(/^non scaling filter is full/);
    expect(f.info().numberOfItemsInserted).toBe(10);
    f.dispose();
  });

  test('create refuses what CF.RESERVE / BF.RESERVE refuse, with typed errors', async () => {
    await expect(RedisCuckooFilter.create({ capacity: 3 })).rejects.toThrow(ArgumentRangeError); // < 2 * bucketSize
    await expect(RedisCuckooFilter.create({ capacity: 100, bucketSize: 256 })).rejects.toThrow(ArgumentRangeError);
    await expect(RedisCuckooFilter.create({ capacity: 100, maxIterations: 0 })).rejects.toThrow(ArgumentRangeError);
    await expect(RedisCuckooFilter.create({ capacity: 100, expansion: 32769 })).rejects.toThrow(ArgumentRangeError);
    await expect(RedisCuckooFilter.create({ capacity: '100' } as never)).rejects.toThrow(ArgumentTypeError);
    await expect(RedisCuckooFilter.create({ capacity: 100, seed: 1 } as never)).rejects.toThrow(ArgumentTypeError);
    await expect(RedisBloomFilter.create({ errorRate: 0, capacity: 100 })).rejects.toThrow(ArgumentRangeError);
    await expect(RedisBloomFilter.create({ errorRate: 1, capacity: 100 })).rejects.toThrow(ArgumentRangeError);
    await expect(RedisBloomFilter.create({ errorRate: 0.01, capacity: 2 ** 30 + 1 })).rejects.toThrow(ArgumentRangeError);
    await expect(RedisBloomFilter.create({ errorRate: 0.01, capacity: 100, expansion: 4, nonScaling: true })).rejects.toThrow(/cannot expand/);
    await expect(RedisBloomFilter.create({ errorRate: 0.01, capacity: 100, nonScaling: 1 } as never)).rejects.toThrow(ArgumentTypeError);
  });
});
