// Patches (docs/FORMAT.md §17; js/patch/patch.ts, WasmFilter.diff / applyPatch), for every family of
// families.ts, the Redis families included: a patch turns a filter into its newer version byte for
// byte, patches chain and span versions, and a patch that does not fit (another version, another
// family, truncated, corrupted, not bytes at all) throws a typed error and leaves the filter
// exactly as it was, whatever the caller's code does meanwhile.
import * as vm from 'node:vm';
import fc from 'fast-check';
import {
  ArgumentRangeError,
  ArgumentTypeError,
  BloomFilter,
  CuckooFilter,
  FilterDisposedError,
  FilterFormatError,
  RedisBloomFilter,
  RedisCuckooFilter,
  applyPatchBytes,
  diffBytes,
  patchInfo,
  wasmMemoryUsage,
} from 'cuckoo-wasm';
import { KeyFilter, Family, KEY_FAMILY_ROWS } from './families';
import { seal } from './xxh3';

const keysOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}.example`);
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
const PATCH_REASONS = ['patch-not-a-patch', 'patch-version', 'patch-truncated', 'patch-corrupt', 'patch-wrong-base', 'patch-family', 'patch-result-mismatch'];

/** `newer.diff(older)` for filters typed as KeyFilter (diff takes a filter of the receiver's own class). */
const diff = (newer: KeyFilter, older: unknown): Uint8Array => newer.diff(older as never);

/** The getters a family's class may have, each compared after a patch with a filter loaded from the newer bytes. */
const GETTERS = [
  'size', 'byteLength', 'subFilterCount', 'bitsPerItem', 'capacity', 'seed', 'expansion', 'falsePositiveRate',
  'fingerprintBits', 'bucketSize', 'bucketCount', 'maxKicks', 'encoding', 'loadFactor', 'hashCount', 'bitCount',
  'expectedFalsePositiveRate', 'maxIterations', 'errorRate', 'nonScaling',
];

/** Checks that `f` is, in bytes, getters, info() and answers, the filter `bytes` load as. */
async function expectFilterOf(family: Family<KeyFilter>, f: KeyFilter, bytes: Uint8Array, keys: string[]): Promise<void> {
  expect(same(f.toBytes(), bytes)).toBe(true);
  const loaded = await family.fromBytes(bytes);
  const record = (x: KeyFilter) => Object.fromEntries(GETTERS.filter((g) => g in x).map((g) => [g, (x as unknown as Record<string, unknown>)[g]]));
  expect(record(f)).toEqual(record(loaded));
  expect(f.info()).toEqual(loaded.info());
  expect(f.hasAll(keys)).toEqual(loaded.hasAll(keys));
  loaded.dispose();
}

/** The error `call` throws (it must throw). */
function thrown(call: () => unknown): Error & { reason?: string } {
  try {
    call();
  } catch (e) {
    return e as Error & { reason?: string };
  }
  throw new Error('expected a throw');
}

/** Each of `call`'s throws must leave `f` byte for byte as it was. */
function expectUnchanged(f: KeyFilter, call: () => void): Error & { reason?: string } {
  const before = f.toBytes();
  const size = f.size;
  const e = thrown(call);
  expect(same(f.toBytes(), before)).toBe(true);
  expect(f.size).toBe(size);
  return e;
}

describe.each(KEY_FAMILY_ROWS)('%s', (_, family) => {
  /** Day 0 of a list, in a filter that (for the growing families) has already grown once. */
  const day0 = async (): Promise<KeyFilter> => {
    const f = await family.create({ capacity: family.grows ? 300 : 2000, expansion: 2 });
    f.addAll(keysOf('day0', 500));
    return f;
  };
  /** The next version of a filter: some keys of the day before deleted (families that delete), `added` new ones. */
  const next = async (older: KeyFilter, day: number, added = 10): Promise<KeyFilter> => {
    const g = await family.fromBytes(older.toBytes());
    if (family.supports.delete) for (const k of keysOf(`day${day - 1}`, 5)) (g as CuckooFilter).delete(k);
    g.addAll(keysOf(`day${day}`, added));
    return g;
  };
  const allKeys = [...keysOf('day0', 500), ...keysOf('day1', 400), ...keysOf('day2', 400), ...keysOf('never', 200)];

  test('newer.diff(older) applied to older gives newer byte for byte, its getters and answers; the patch is small', async () => {
    const older = await day0();
    const olderBytes = older.toBytes();
    const newer = await next(older, 1);
    const patch = diff(newer, older);
    expect(same(diff(newer, older.toBytes()), patch)).toBe(true); // the filter or its bytes
    expect(same(await diffBytes(older.toBytes(), newer.toBytes()), patch)).toBe(true);
    expect(patch.length).toBeLessThan(newer.byteLength / 4);
    const info = await patchInfo(patch);
    const className = ['CuckooFilter', 'BloomFilter', 'RedisCuckooFilter', 'RedisBloomFilter'][family.format.type - 1];
    expect(info).toMatchObject({ version: 1, family: className, baseLength: older.byteLength, resultLength: newer.byteLength });
    expect(info.changes).toBeGreaterThan(0);
    expect(info.baseChecksum).not.toBe(info.resultChecksum);
    older.applyPatch(patch);
    await expectFilterOf(family, older, newer.toBytes(), allKeys);
    expect(older.hasAll(keysOf('day1', 10)).every(Boolean)).toBe(true);
    // The bytes-only form gives the same bytes; a diff of a filter with itself changes nothing.
    expect(same(await applyPatchBytes(olderBytes, patch), newer.toBytes())).toBe(true);
    const unchanged = newer.toBytes();
    newer.applyPatch(diff(newer, newer));
    expect(same(newer.toBytes(), unchanged)).toBe(true);
    older.dispose();
    newer.dispose();
  });

  test('patches chain (day 0 → 1 → 2) and a diff spans versions (0 → 2), across growth into more sub-filters', async () => {
    const v0 = await day0();
    const v1 = await next(v0, 1, family.grows ? 400 : 10);
    const v2 = await next(v1, 2, family.grows ? 400 : 10);
    if (family.grows) expect(v2.subFilterCount).toBeGreaterThan(v0.subFilterCount);
    const p01 = diff(v1, v0);
    const p12 = diff(v2, v1);
    const p02 = diff(v2, v0);
    const chained = await family.fromBytes(v0.toBytes());
    chained.applyPatch(p01);
    await expectFilterOf(family, chained, v1.toBytes(), allKeys);
    chained.applyPatch(p12);
    await expectFilterOf(family, chained, v2.toBytes(), allKeys);
    const spanned = await family.fromBytes(v0.toBytes());
    spanned.applyPatch(p02);
    await expectFilterOf(family, spanned, v2.toBytes(), allKeys);
    expect(same(await applyPatchBytes(await applyPatchBytes(v0.toBytes(), p01), p12), v2.toBytes())).toBe(true);
    // Backwards too: a diff from newer to older undoes (deletes are a Bloom filter's too, in bytes).
    spanned.applyPatch(diff(v0, v2));
    expect(same(spanned.toBytes(), v0.toBytes())).toBe(true);
    for (const f of [v0, v1, v2, chained, spanned]) f.dispose();
  });

  test('a patch for another version (or applied twice) is refused with patch-wrong-base; the filter is unchanged and keeps working', async () => {
    const v0 = await day0();
    const v1 = await next(v0, 1);
    const v2 = await next(v1, 2);
    const p12 = diff(v2, v1);
    const target = await family.fromBytes(v0.toBytes());
    const e = expectUnchanged(target, () => target.applyPatch(p12));
    expect(e).toBeInstanceOf(FilterFormatError);
    expect(e.reason).toBe('patch-wrong-base');
    expect(e.message).toMatch(/another version/);
    const p01 = diff(v1, v0);
    target.applyPatch(p01);
    expect(expectUnchanged(target, () => target.applyPatch(p01)).reason).toBe('patch-wrong-base');
    await expect(applyPatchBytes(v0.toBytes(), p12)).rejects.toMatchObject({ reason: 'patch-wrong-base' });
    expect(target.add('after.example').has('after.example')).toBe(true);
    for (const f of [v0, v1, v2, target]) f.dispose();
  });

  test('truncated, corrupted, empty and foreign patches: FilterFormatError with a patch reason, the filter unchanged, nothing leaked', async () => {
    const v0 = await day0();
    const v1 = await next(v0, 1);
    const patch = diff(v1, v0);
    const target = await family.fromBytes(v0.toBytes());
    const allocated = (await wasmMemoryUsage()).allocatedBytes;
    const bad: Uint8Array[] = [new Uint8Array(0), v0.toBytes(), new Uint8Array(1000)];
    for (let n = 0; n < patch.length; n += Math.max(1, patch.length >> 5)) bad.push(patch.slice(0, n)); // truncated
    bad.push(patch.slice(0, patch.length - 1), Buffer.concat([patch, new Uint8Array([0])]));
    for (let i = 0; i < patch.length; i += Math.max(1, patch.length >> 6)) {
      for (const bit of [0x01, 0x80]) {
        const flipped = patch.slice();
        flipped[i] ^= bit;
        bad.push(flipped);
      }
    }
    for (const p of bad) {
      const e = expectUnchanged(target, () => target.applyPatch(p));
      expect([e.name, PATCH_REASONS.includes(e.reason!)]).toEqual(['FilterFormatError', true]);
      await expect(applyPatchBytes(v0.toBytes(), p)).rejects.toThrow(FilterFormatError);
    }
    expect((await wasmMemoryUsage()).allocatedBytes).toBe(allocated);
    target.applyPatch(patch); // the real one still applies
    expect(same(target.toBytes(), v1.toBytes())).toBe(true);
    for (const f of [v0, v1, target]) f.dispose();
  });

  test('another family: its patch is refused with patch-family, diff against its filter or bytes too', async () => {
    const others = KEY_FAMILY_ROWS.map(([, f]) => f).filter((f) => f !== family);
    const mine = await day0();
    for (const other of others) {
      const o0 = await other.create({ capacity: 2000, expansion: 2 });
      o0.addAll(keysOf('day0', 500));
      const o1 = await other.fromBytes(o0.toBytes());
      o1.add('other.example');
      const foreign = diff(o1, o0);
      const e = expectUnchanged(mine, () => mine.applyPatch(foreign));
      expect([other.name, e.name, e.reason]).toEqual([other.name, 'FilterFormatError', expect.stringMatching(/^patch-(family|wrong-base)$/)]);
      if (other.cls !== family.cls) {
        expect(thrown(() => diff(mine, o0))).toMatchObject({ name: 'FilterFormatError', reason: 'patch-family' });
      }
      expect([other.name, thrown(() => diff(mine, o0.toBytes()))]).toEqual([other.name, expect.objectContaining({ reason: 'patch-family' })]);
      await expect(diffBytes(o0.toBytes(), mine.toBytes())).rejects.toMatchObject({ reason: 'patch-family' });
      o0.dispose();
      o1.dispose();
    }
    mine.dispose();
  });

  test('different parameters: diff refuses with patch-family, naming what differs', async () => {
    const a = await family.create({ capacity: 1000, expansion: 2 });
    const b = await family.create({ capacity: 5000, expansion: 2 });
    const e = thrown(() => diff(a, b));
    expect(e).toMatchObject({ name: 'FilterFormatError', reason: 'patch-family' });
    expect(e.message).toMatch(/differ/);
    a.dispose();
    b.dispose();
  });

  test('inputs: ArrayBuffer, a view at an offset, another realm; detached, non-bytes and oversized inputs are type or range errors', async () => {
    const v0 = await day0();
    const v1 = await next(v0, 1);
    const patch = diff(v1, v0);
    const context = vm.createContext({});
    const foreignBytes = vm.runInContext(`new Uint8Array(${patch.length})`, context) as Uint8Array;
    foreignBytes.set(patch);
    const inside = new Uint8Array(patch.length + 7);
    inside.set(patch, 3);
    const detached = patch.slice();
    structuredClone(detached.buffer, { transfer: [detached.buffer as ArrayBuffer] });
    for (const input of [patch.slice().buffer, inside.subarray(3, 3 + patch.length), foreignBytes]) {
      const f = await family.fromBytes(v0.toBytes());
      f.applyPatch(input);
      expect(same(f.toBytes(), v1.toBytes())).toBe(true);
      f.dispose();
    }
    // diff's older as bytes of every kind: the same patch.
    const base = v0.toBytes();
    const baseInside = new Uint8Array(base.length + 5);
    baseInside.set(base, 5);
    const foreignBase = vm.runInContext(`new Uint8Array(${base.length})`, context) as Uint8Array;
    foreignBase.set(base);
    for (const older of [base.slice().buffer, baseInside.subarray(5), foreignBase]) expect(same(diff(v1, older), patch)).toBe(true);
    const target = await family.fromBytes(v0.toBytes());
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    for (const input of [detached, detached.buffer, 'patch', 42, null, undefined, Array.from(patch), new Uint16Array(4), revoked.proxy]) {
      expect(expectUnchanged(target, () => target.applyPatch(input as never))).toBeInstanceOf(ArgumentTypeError);
      expect(thrown(() => diff(target, input))).toBeInstanceOf(ArgumentTypeError);
      await expect(applyPatchBytes(v0.toBytes(), input as never)).rejects.toThrow(ArgumentTypeError);
      await expect(diffBytes(input as never, v0.toBytes())).rejects.toThrow(ArgumentTypeError);
    }
    // A large patch that is not one, and one whose header is right but whose body is garbage.
    const large = new Uint8Array(16 << 20);
    large.set(patch.subarray(0, 48));
    expect(expectUnchanged(target, () => target.applyPatch(large))).toBeInstanceOf(FilterFormatError);
    for (const f of [v0, v1, target]) f.dispose();
  });

  test('dispose: a disposed filter cannot diff, be diffed against, or be patched (FilterDisposedError); after applyPatch only the new table is held', async () => {
    const v0 = await day0();
    const v1 = await next(v0, 1);
    const patch = diff(v1, v0);
    const before = (await wasmMemoryUsage()).allocatedBytes;
    const target = await family.fromBytes(v0.toBytes());
    const one = (await wasmMemoryUsage()).allocatedBytes - before;
    target.applyPatch(patch);
    target.applyPatch(diff(v0, v1)); // and back: the same size again
    expect((await wasmMemoryUsage()).allocatedBytes - before).toBe(one);
    target.dispose();
    expect((await wasmMemoryUsage()).allocatedBytes).toBe(before);
    expect(() => target.applyPatch(patch)).toThrow(FilterDisposedError);
    expect(() => diff(target, v0)).toThrow(FilterDisposedError);
    expect(() => diff(v1, target)).toThrow(FilterDisposedError);
    v0.dispose();
    v1.dispose();
  });

  test('applyPatch from the caller\'s code during addAll of the same filter: it sees the keys read before, as a loop would; a stale patch is refused', async () => {
    const start = await day0();
    const keys = keysOf('batch', 100);
    const mid = await family.fromBytes(start.toBytes());
    mid.addAll(keys.slice(0, 50));
    const target = await family.fromBytes(mid.toBytes());
    target.addAll(keysOf('patched', 30));
    const patch = diff(target, mid); // for the state once keys[0..49] are in
    const stale = diff(target, start); // for the state before the batch
    const f = await family.fromBytes(start.toBytes());
    const errors: unknown[] = [];
    const list = keys.slice();
    Object.defineProperty(list, 50, {
      get() {
        try {
          f.applyPatch(stale);
        } catch (e) {
          errors.push(e);
        }
        f.applyPatch(patch);
        return keys[50];
      },
    });
    expect(f.addAll(list)).toBe(100);
    expect(errors).toEqual([expect.objectContaining({ reason: 'patch-wrong-base' })]);
    const loop = await family.fromBytes(start.toBytes());
    loop.addAll(keys.slice(0, 50));
    loop.applyPatch(patch);
    loop.addAll(keys.slice(50));
    expect(same(f.toBytes(), loop.toBytes())).toBe(true);
    expect(f.hasAll([...keys, ...keysOf('patched', 30)]).every(Boolean)).toBe(true);
    // A getter that disposes the filter then patches it: FilterDisposedError, as any call after dispose.
    const g = await family.fromBytes(start.toBytes());
    const disposing = keys.slice();
    Object.defineProperty(disposing, 10, {
      get() {
        g.dispose();
        g.applyPatch(patch);
        return keys[10];
      },
    });
    expect(() => g.addAll(disposing)).toThrow(FilterDisposedError);
    for (const x of [start, mid, target, f, loop]) x.dispose();
  });

  if (family.redis) {
    test('applyPatch between two SCANDUMP chunks: the dump stops with FilterFormatError bad-chunk', async () => {
      const v0 = await day0();
      const v1 = await next(v0, 1);
      const f = v0 as unknown as RedisCuckooFilter | RedisBloomFilter;
      const chunks = f.scanDumpChunks();
      chunks.next();
      f.applyPatch(diff(v1, v0));
      expect(() => chunks.next()).toThrow(expect.objectContaining({ reason: 'bad-chunk' }));
      v0.dispose();
      v1.dispose();
    });
  }

  test('property: random adds and deletes on a base and a newer version (or an unrelated filter of the same parameters): the patch gives the newer bytes', async () => {
    const op = fc.record({ del: family.supports.delete ? fc.boolean() : fc.constant(false), key: fc.integer({ min: 0, max: 300 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 250 }), fc.array(op, { maxLength: 60 }), fc.boolean(), async (base, changes, related) => {
        const run = (f: KeyFilter, ops: { del: boolean; key: number }[]) => {
          for (const { del, key } of ops) {
            try {
              if (del) (f as CuckooFilter).delete(`k${key}`);
              else f.add(`k${key}`);
            } catch (e) {
              if (!(e instanceof Error && e.name === 'FilterFullError')) throw e;
            }
          }
        };
        const older = await family.create({ capacity: 100, expansion: 2 });
        run(older, base);
        const newer = related ? await family.fromBytes(older.toBytes()) : await family.create({ capacity: 100, expansion: 2 });
        run(newer, changes);
        const patch = diff(newer, older);
        older.applyPatch(patch);
        const ok = same(older.toBytes(), newer.toBytes()) && older.size === newer.size && older.subFilterCount === newer.subFilterCount;
        older.dispose();
        newer.dispose();
        return ok;
      }),
      { numRuns: 40 },
    );
  });
});

test('cuckoo: diff of the two table encodings (same class, other parameters) is refused with patch-family naming the encoding', async () => {
  const packed = await CuckooFilter.create({ capacity: 1000, semiSort: false });
  const semi = await CuckooFilter.create({ capacity: 1000, semiSort: true });
  const e = thrown(() => semi.diff(packed));
  expect(e).toMatchObject({ name: 'FilterFormatError', reason: 'patch-family' });
  expect(e.message).toMatch(/encoding/);
  packed.dispose();
  semi.dispose();
});

test('patch-family names the field and both values as the filters hold them: an id as its class, a rate as a number, a 64-bit seed whole', async () => {
  const message = async (older: Uint8Array, newer: Uint8Array) => {
    const e = await diffBytes(older, newer).then(() => undefined, (x: Error) => x);
    expect(e).toMatchObject({ name: 'FilterFormatError', reason: 'patch-family' });
    return (e as Error).message;
  };
  const cuckoo = await CuckooFilter.create({ capacity: 1000, semiSort: false });
  const semi = await CuckooFilter.create({ capacity: 1000, semiSort: true });
  const bloom = await BloomFilter.create({ capacity: 1000, falsePositiveRate: 0.01 });
  // A rate so close that the bit and hash counts are the same: the rate itself is the first field that differs.
  const bloomNear = await BloomFilter.create({ capacity: 1000, falsePositiveRate: 0.010000001 });
  const seeded = await CuckooFilter.create({ capacity: 1000, semiSort: false, seed: 2n ** 64n - 1n });
  const seededNext = await CuckooFilter.create({ capacity: 1000, semiSort: false, seed: 2n ** 64n - 2n });
  expect(await message(cuckoo.toBytes(), bloom.toBytes())).toBe(
    'cannot diff these filters: the filters differ in family: CuckooFilter in the older filter, BloomFilter in the newer',
  );
  expect(await message(cuckoo.toBytes(), semi.toBytes())).toBe(
    'cannot diff these filters: the filters differ in table encoding: 0 in the older filter, 1 in the newer',
  );
  expect(await message(bloom.toBytes(), bloomNear.toBytes())).toBe(
    'cannot diff these filters: the filters differ in false-positive rate: 0.01 in the older filter, 0.010000001 in the newer',
  );
  expect(await message(seeded.toBytes(), seededNext.toBytes())).toBe(
    'cannot diff these filters: the filters differ in seed: 18446744073709551615 in the older filter, 18446744073709551614 in the newer',
  );
  for (const f of [cuckoo, semi, bloom, bloomNear, seeded, seededNext]) f.dispose();
});

test('a patch larger than any filter is refused before anything is copied: ArgumentRangeError', async () => {
  const f = await CuckooFilter.create({ capacity: 100 });
  const before = f.toBytes();
  const huge = new Uint8Array(2 ** 30 + 1); // its pages are never touched
  expect(() => f.applyPatch(huge)).toThrow(ArgumentRangeError);
  await expect(applyPatchBytes(before, huge)).rejects.toThrow(ArgumentRangeError);
  await expect(diffBytes(huge, before)).rejects.toThrow(ArgumentRangeError);
  expect(same(f.toBytes(), before)).toBe(true);
  f.dispose();
});

test('a patch whose result differs from its base in a parameter (crafted: the core makes none) is refused with patch-family, so no cached getter goes stale', async () => {
  const a = await CuckooFilter.create({ capacity: 200, maxKicks: 500, semiSort: false });
  const b = await CuckooFilter.create({ capacity: 200, maxKicks: 10, semiSort: false });
  a.addAll(keysOf('k', 50));
  b.addAll(keysOf('k', 50));
  const base = a.toBytes();
  const result = b.toBytes();
  expect(result.length).toBe(base.length);
  // The bytes that differ outside the two checksums (the section's, then the file's: the last 16 bytes): max kicks.
  const edits: number[] = [];
  for (let p = 0; p < base.length - 16; ++p) if (base[p] !== result[p]) edits.push(p);
  expect(edits.length).toBeGreaterThan(0);
  // The body (docs/FORMAT.md §17.3): gamma(C + 1); the byte edits as a position list with k = 0; the table's empty list.
  const bits: number[] = [];
  const put = (v: number, w: number) => { for (let i = 0; i < w; ++i) bits.push((v >> i) & 1); };
  const gamma = (n: number) => {
    const l = Math.floor(Math.log2(n));
    for (let i = 0; i < l; ++i) bits.push(0);
    for (let i = l; i >= 0; --i) bits.push((n >> i) & 1);
  };
  gamma(edits.length + 1);
  gamma(edits.length + 1);
  put(0, 6);
  let previous = -1;
  for (const p of edits) {
    for (let i = 0; i < p - (previous + 1); ++i) bits.push(1); // rice(gap, 0): the gap in unary
    bits.push(0);
    put(base[p] ^ result[p], 8);
    previous = p;
  }
  gamma(1);
  const body = new Uint8Array(Math.ceil(bits.length / 8));
  bits.forEach((bit, i) => (body[i >> 3] |= bit << (i & 7)));
  const patch = new Uint8Array(40 + body.length + 8);
  const view = new DataView(patch.buffer);
  patch.set([0x43, 0x4b, 0x50, 0x54]);
  view.setUint16(4, 1, true);
  patch[6] = 1;
  view.setBigUint64(8, BigInt(base.length), true);
  patch.set(base.subarray(-8), 16);
  view.setBigUint64(24, BigInt(result.length), true);
  patch.set(result.subarray(-8), 32);
  patch.set(body, 40);
  seal(patch);
  expect(await patchInfo(patch)).toMatchObject({ changes: edits.length, baseLength: base.length });
  const e = expectUnchanged(a, () => a.applyPatch(patch));
  expect(e).toMatchObject({ name: 'FilterFormatError', reason: 'patch-family' });
  expect(e.message).toMatch(/max kicks: 500 .* 10/);
  expect(a.maxKicks).toBe(500);
  await expect(applyPatchBytes(base, patch)).rejects.toMatchObject({ reason: 'patch-family' });
  a.dispose();
  b.dispose();
});
