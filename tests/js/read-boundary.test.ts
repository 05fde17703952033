// The boundary of both modules since they became standalone .wasm with plain C exports, checked from outside:
// - the answers that cross as records and mismatch areas (info(), patchInfo's 64-bit checksums, a diff's refusal
//   naming a field with u64 or f64 values, a patch refused for another base) are those of the build before that
//   change: tests/golden/read-answers-eb16060.json holds the answers recorded from an earlier build of the full
//   entry (its module still bound with embind) to the scenario below, and both entries of this build must answer
//   the same, JSON for JSON (key order included);
// - a method of one family's class called on a filter of another family (`.call`, or a method taken off a
//   prototype) is refused with an ArgumentTypeError before the core reads the filter as one of its own family, which
//   trapped (RuntimeError: memory access out of bounds) or wrote into the other filter;
// - the reader keeps answering as the full entry after wasm memory grew (its key scratch view then detached).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as full from 'cuckoo-wasm';
import * as reader from 'cuckoo-wasm/reader';

type AnyFilter = {
  toBytes(): Uint8Array;
  info(): object;
  applyPatch(p: Uint8Array): void;
  dispose(): void;
};
type Entry = {
  patchInfo(p: Uint8Array): Promise<object>;
  [name: string]: unknown;
};
type ReadClass = { fromBytes(b: Uint8Array): Promise<AnyFilter> };
type FullClass = { create(o: object): Promise<AnyFilter & { add(k: string): unknown; diff(o: Uint8Array): Uint8Array }> };

const J = (o: unknown) => JSON.stringify(o, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`);

/** The answers recorded from an earlier build of the full entry (embind, before the standalone modules) to {@link scenario}. */
const GOLDEN = JSON.parse(readFileSync(join(__dirname, '..', 'golden', 'read-answers-eb16060.json'), 'utf8')) as Record<string, string>;

/**
 * Filters of every family built by the full entry: their info() (in the reader too, from the same bytes), a diff
 * refused for each kind of mismatch, patchInfo of a real patch (in the reader too), and that patch applied to a
 * filter of other parameters. The labels are the golden file's keys.
 */
async function scenario(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const F = full as unknown as Entry;
  const R = reader as unknown as Entry;
  const build = async (kind: string, opts: object, n: number) => {
    const f = await (F[kind] as FullClass).create(opts);
    for (const k of keys(n)) {
      try {
        f.add(k);
      } catch {
        break;
      }
    }
    return f;
  };
  const infos: [string, object, number][] = [
    ['CuckooFilter', { capacity: 100 }, 1000], // full: the victim in use
    ['CuckooFilter', { capacity: 10, expansion: 3, semiSort: true, seed: 2n ** 64n - 1n }, 400],
    ['CuckooFilter', { capacity: 50, bucketSize: 8, fingerprintBits: 7, maxKicks: 3 }, 100],
    ['BloomFilter', { capacity: 100, seed: 2n ** 63n + 5n }, 150],
    ['BloomFilter', { capacity: 10, expansion: 2, falsePositiveRate: 0.001 }, 300],
    ['RedisCuckooFilter', { capacity: 100, bucketSize: 3, expansion: 0 }, 1000],
    ['RedisCuckooFilter', { capacity: 10, expansion: 2, maxIterations: 7 }, 300],
    ['RedisBloomFilter', { capacity: 100, errorRate: 0.01, nonScaling: true }, 1000], // expansionRate null
    ['RedisBloomFilter', { capacity: 10, errorRate: 0.001, expansion: 0 }, 10],
    ['RedisBloomFilter', { capacity: 10, errorRate: 0.001, expansion: 3 }, 300],
  ];
  for (const [kind, opts, n] of infos) {
    const f = await build(kind, opts, n);
    const label = `info ${kind} ${J(opts)}`;
    out[label] = J(f.info());
    const r = await (R[kind] as ReadClass).fromBytes(f.toBytes());
    out[`reader ${label}`] = J(r.info());
    r.dispose();
    f.dispose();
  }
  const refusal = (call: () => ArrayLike<number>) => {
    try {
      return J({ ok: Array.from(call()).length });
    } catch (e) {
      const { name, code, reason, message } = e as Error & { code?: string; reason?: string };
      return J({ name, code, reason, message });
    }
  };
  const pairs: [string, object, object][] = [
    ['CuckooFilter', { capacity: 100, seed: 2n ** 64n - 1n }, { capacity: 100, seed: 2n ** 63n + 1n }], // u64, high bits set
    ['CuckooFilter', { capacity: 100 }, { capacity: 200 }],
    ['CuckooFilter', { capacity: 100, expansion: 2 }, { capacity: 100, expansion: 4 }],
    ['CuckooFilter', { capacity: 100 }, { capacity: 100, maxKicks: 7 }],
    ['BloomFilter', { capacity: 100, falsePositiveRate: 0.1 }, { capacity: 100, falsePositiveRate: 0.10000000000000002 }], // f64 bits
    ['BloomFilter', { capacity: 100, seed: 2n ** 63n }, { capacity: 100, seed: 1 }],
    ['RedisCuckooFilter', { capacity: 100 }, { capacity: 100, maxIterations: 5 }],
    ['RedisBloomFilter', { capacity: 100, errorRate: 0.01 }, { capacity: 100, errorRate: 0.001 }],
    ['RedisBloomFilter', { capacity: 100, errorRate: 0.01 }, { capacity: 100, errorRate: 0.01, nonScaling: true }],
  ];
  for (const [kind, a, b] of pairs) {
    const fa = await build(kind, a, 30);
    const fb = await build(kind, b, 30);
    out[`diff ${kind} ${J(a)} ${J(b)}`] = refusal(() => fb.diff(fa.toBytes()));
    const fa2 = await build(kind, a, 32);
    const patch = fa2.diff(fa.toBytes());
    out[`patchInfo ${kind} ${J(a)}`] = J(await F.patchInfo(patch));
    out[`reader patchInfo ${kind} ${J(a)}`] = J(await R.patchInfo(patch));
    out[`applyPatch ${kind} ${J(a)} to ${J(b)}`] = refusal(() => {
      fb.applyPatch(patch);
      return [];
    });
    for (const f of [fa, fb, fa2]) f.dispose();
  }
  return out;
}

describe('the answers recorded from an earlier build of the full entry (before the standalone modules), from both entries', () => {
  test('info() of every family, diff refusals (u64 and f64 fields), patchInfo checksums, a wrong-base refusal', async () => {
    const now = await scenario();
    const labels = Object.keys(GOLDEN);
    expect(labels.length).toBe(35);
    // The golden file covers what this test is about.
    expect(labels.filter((l) => GOLDEN[l].includes('"victim":true')).length).toBeGreaterThan(0);
    expect(labels.filter((l) => GOLDEN[l].includes('"expansionRate":null')).length).toBeGreaterThan(0);
    expect(labels.filter((l) => /Checksum":"[89a-f]/.test(GOLDEN[l])).length).toBeGreaterThan(0);
    expect(labels.filter((l) => /differ in seed: 1844674407370955161\d/.test(GOLDEN[l])).length).toBe(1);
    for (const label of labels) {
      expect([label, now[label]]).toEqual([label, GOLDEN[label]]);
      const own = `reader ${label}`;
      if (own in now) expect([own, now[own]]).toEqual([own, GOLDEN[label]]);
    }
  });
});

describe("a method of one family's class on another family's filter", () => {
  type Call = [string, (f: unknown) => unknown];
  const proto = (cls: unknown) => (cls as { prototype: Record<string, (...a: unknown[]) => unknown> }).prototype;
  const getter = (cls: unknown, name: string) => {
    for (let p = proto(cls); p !== null; p = Object.getPrototypeOf(p)) {
      const d = Object.getOwnPropertyDescriptor(p, name);
      if (d?.get) return d.get;
    }
    throw new Error(`no getter ${name}`);
  };
  const method = (cls: unknown, name: string): ((f: unknown, ...a: unknown[]) => unknown) => (f, ...a) => proto(cls)[name].call(f, ...a);

  test('is refused with an ArgumentTypeError, the filter unchanged (no trap, nothing written into it)', async () => {
    const cuckoo = await full.CuckooFilter.create({ capacity: 100 });
    const bloom = await full.BloomFilter.create({ capacity: 100 });
    const rc = await full.RedisCuckooFilter.create({ capacity: 100 });
    const rb = await full.RedisBloomFilter.create({ capacity: 100, errorRate: 0.01 });
    for (const f of [cuckoo, bloom, rc, rb]) f.addAll(keys(20));
    const { CuckooFilter: C, BloomFilter: B, RedisCuckooFilter: RC, RedisBloomFilter: RB } = full;
    const calls: [unknown, Call[]][] = [
      [bloom, [
        ['CuckooFilter count', (f) => method(C, 'count')(f, 'k1')],
        ['CuckooFilter delete', (f) => method(C, 'delete')(f, 'k1')],
        ['CuckooFilter loadFactor', (f) => getter(C, 'loadFactor').call(f)],
        ['CuckooFilter bitsPerItem', (f) => getter(C, 'bitsPerItem').call(f)],
        ['CuckooFilter info', (f) => method(C, 'info')(f)],
        ['RedisCuckooFilter addUnique', (f) => method(RC, 'addUnique')(f, 'new')],
        ['RedisCuckooFilter delete', (f) => method(RC, 'delete')(f, 'k1')],
        ['RedisCuckooFilter compact', (f) => method(RC, 'compact')(f)],
        ['RedisCuckooFilter info', (f) => method(RC, 'info')(f)],
      ]],
      [cuckoo, [
        ['RedisBloomFilter addNew', (f) => method(RB, 'addNew')(f, 'new')],
        ['RedisBloomFilter info', (f) => method(RB, 'info')(f)],
        ['BloomFilter bitCount', (f) => getter(B, 'bitCount').call(f)],
        ['BloomFilter estimatedCount', (f) => method(B, 'estimatedCount')(f)],
        ['BloomFilter isCompatible', (f) => method(B, 'isCompatible')(f, bloom)],
        ['RedisCuckooFilter count', (f) => method(RC, 'count')(f, 'k1')],
        ['RedisCuckooFilter compact', (f) => method(RC, 'compact')(f)],
      ]],
      [rb, [
        ['CuckooFilter delete', (f) => method(C, 'delete')(f, 'k1')],
        ['RedisCuckooFilter addUnique', (f) => method(RC, 'addUnique')(f, 'new')],
        ['BloomFilter info', (f) => method(B, 'info')(f)],
      ]],
      [rc, [
        ['RedisBloomFilter addNew', (f) => method(RB, 'addNew')(f, 'new')],
        ['CuckooFilter loadFactor', (f) => getter(C, 'loadFactor').call(f)],
        ['BloomFilter expectedFalsePositiveRate', (f) => getter(B, 'expectedFalsePositiveRate').call(f)],
      ]],
    ];
    for (const [filter, list] of calls) {
      const before = (filter as AnyFilter).toBytes();
      for (const [name, call] of list) {
        let thrown: unknown;
        try {
          call(filter);
        } catch (e) {
          thrown = e;
        }
        expect([name, thrown instanceof full.ArgumentTypeError]).toEqual([name, true]);
        expect((thrown as Error).message).toMatch(/^a method of \w+ was called on a \w+: call each class's methods on filters of that class$/);
      }
      expect((filter as AnyFilter).toBytes()).toEqual(before);
    }
    // The reader's classes too.
    const rbloom = await reader.BloomFilter.fromBytes(bloom.toBytes());
    expect(() => reader.CuckooFilter.prototype.count.call(rbloom, 'k1')).toThrow(reader.ArgumentTypeError);
    expect(() => getter(reader.CuckooFilter, 'loadFactor').call(rbloom)).toThrow(reader.ArgumentTypeError);
    // A method on a filter of its own class still answers.
    expect(method(C, 'count')(cuckoo, 'k1')).toBe(1);
    expect(method(RB, 'addNew')(rb, 'k1')).toBe(false);
    for (const f of [cuckoo, bloom, rc, rb, rbloom]) f.dispose();
  });
});

describe('the reader after wasm memory grew', () => {
  test('a filter loaded before answers as the full entry: keys, batches, URLs (an IDN host), info, a patch', async () => {
    const f = await full.CuckooFilter.create({ capacity: 5000 });
    f.addAll(keys(1000));
    f.addUrls(['evil.example/a/', 'bücher.example']);
    const older = f.toBytes();
    f.addAll(['late-1', 'late-2']);
    const patch = f.diff(older);
    const r = await reader.CuckooFilter.fromBytes(older);
    const g = await full.CuckooFilter.fromBytes(older);
    const probe = (x: typeof r | typeof g) => [
      x.has('k1'), // a short key: the scratch view taken before the growth is detached
      x.has('k-none'),
      x.has('a-key-longer-than-the-short-path-copies-by-itself-0123456789'),
      Array.from(x.hasAll([...keys(50), 'nope'], new Uint8Array(51))),
      x.matchUrl('http://evil.example/a/b/c?q=1'),
      x.matchUrl('https://www.BÜCHER.example/x'),
      x.hasAllUrls(['http://evil.example/a/', 'http://good.example/']),
      J(x.info()),
    ];
    const before = J(probe(r));
    expect(before).toBe(J(probe(g)));
    // Load a large filter into the reader: its module's memory grows from 1 MiB by tens of MiB.
    const big = await full.CuckooFilter.create({ capacity: 8_000_000 });
    const bigBytes = big.toBytes();
    big.dispose();
    expect(bigBytes.length).toBeGreaterThan(8_000_000);
    const rBig = await reader.CuckooFilter.fromBytes(bigBytes);
    expect(rBig.has('k1')).toBe(false);
    expect(J(probe(r))).toBe(before);
    expect(J(await reader.patchInfo(patch))).toBe(J(await full.patchInfo(patch)));
    r.applyPatch(patch);
    g.applyPatch(patch);
    expect(r.toBytes()).toEqual(f.toBytes());
    expect(J(probe(r))).toBe(J(probe(g)));
    expect(r.has('late-2')).toBe(true);
    expect(await reader.canonicalizeUrl('HTTP://Bücher.Example/%7Ea')).toBe(await full.canonicalizeUrl('HTTP://Bücher.Example/%7Ea'));
    for (const x of [f, r, g, rBig]) x.dispose();
  });
});
