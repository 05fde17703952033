// The Redis families against every RedisBloom fixture (tests/fixtures/redis/README.md),
// five checks each:
//   1. every recorded member and non-member answer (false positives included), by has and hasAll,
//      and every recorded CF.COUNT (the limits fixtures);
//   2. every INFO field, by its camelCased label;
//   3. toScanDump() of the filter loaded from the chunks === the chunks, iterators and bytes;
//   4. toScanDump() and info() of a filter built by replaying the fixture's commands === the
//      chunks and INFO, each step applying the same count as the server and failing with its error
//      (one key at a time, and again with addAll where the step is an add; a `batch` step, one
//      CF.INSERT, is one addAll both times);
//   5. toBytes / fromBytes: same bytes again, same chunks, same answers.
// Hostile dumps and loaders: tests/js/redis-dump.test.ts.
import { FilterDisposedError, FilterFormatError, FilterFullError, RedisBloomFilter, RedisCuckooFilter } from 'cuckoo-wasm';
import type { RedisBloomFilterOptions, RedisCuckooFilterOptions, ScanDumpChunk } from 'cuckoo-wasm';
import {
  COPIES,
  Fixture,
  appliedOf,
  countsOf,
  HAVE_SHARED,
  SHARED_REDIS,
  chunksOf,
  fixtureNames,
  infoOf,
  loadFixture,
  loadItems,
  reserveOptions,
  stepsOf,
} from './redis-fixtures';

type RedisFilter = RedisCuckooFilter | RedisBloomFilter;

const items = loadItems();
const names = fixtureNames();

function answers(f: RedisFilter, keys: string[]): string {
  return keys.map((k) => (f.has(k) ? '1' : '0')).join('');
}

function batchAnswers(f: RedisFilter, keys: string[]): string {
  return f
    .hasAll(keys)
    .map((b) => (b ? '1' : '0'))
    .join('');
}

/** Chunks as comparable values (iterator, hex). */
function shown(chunks: ScanDumpChunk[]): [number, string][] {
  return chunks.map(([it, b]) => [it, Buffer.from(b).toString('hex')]);
}

function create(fx: Fixture): Promise<RedisFilter> {
  const o = reserveOptions(fx);
  return fx.type === 'CF'
    ? RedisCuckooFilter.create(o as unknown as RedisCuckooFilterOptions)
    : RedisBloomFilter.create(o as unknown as RedisBloomFilterOptions);
}

function fromScanDump(fx: Fixture, chunks: Iterable<ScanDumpChunk> | AsyncIterable<ScanDumpChunk>): Promise<RedisFilter> {
  return fx.type === 'CF' ? RedisCuckooFilter.fromScanDump(chunks) : RedisBloomFilter.fromScanDump(chunks);
}

/** One command of a build step on one key (none for CF.COMPACT); the error message if it threw. */
function apply(f: RedisFilter, command: string, key: string | undefined): void {
  if (command === 'CF.COMPACT' && key === undefined) (f as RedisCuckooFilter).compact();
  else if (key === undefined) throw new Error(`${command} needs a key`);
  else if (command === 'CF.ADD' || command === 'BF.ADD') f.add(key);
  else if (command === 'CF.ADDNX') (f as RedisCuckooFilter).addUnique(key);
  else if (command === 'CF.DEL') expect((f as RedisCuckooFilter).delete(key)).toBe(true);
  else throw new Error(`unknown command ${command}`);
}

/**
 * Replays the fixture's build on `f`; `batch`: an add step goes through addAll, but for a CF.ADD step that the
 * server stopped at its sub-filter limit (each CF.ADD checks it; one addAll, a CF.INSERT, checks it once and grows
 * on). A `batch` step (one CF.INSERT) is one addAll. Returns each step's [applied, error].
 */
function replay(fx: Fixture, f: RedisFilter, batch: boolean): [number, string | null][] {
  return stepsOf(fx, items).map((step) => {
    const adds = step.command === 'CF.ADD' || step.command === 'BF.ADD';
    const limited = step.command === 'CF.ADD' && step.outcome.error === 'Maximum expansions reached';
    if (step.batch === true || (batch && adds && !limited)) {
      if (step.batch === true) expect(step.command).toBe('CF.INSERT');
      try {
        return [f.addAll(step.keys), null];
      } catch (e) {
        if (!(e instanceof FilterFullError)) throw e;
        return [e.added, serverText(e)];
      }
    }
    let applied = 0;
    const keys = step.items === 'none' ? new Array<undefined>(step.count).fill(undefined) : step.keys;
    for (const key of keys) {
      try {
        apply(f, step.command, key);
      } catch (e) {
        if (!(e instanceof FilterFullError)) throw e;
        return [applied, serverText(e)];
      }
      ++applied;
    }
    return [applied, null];
  });
}

/** The server's error text a FilterFullError's message starts with. */
function serverText(e: FilterFullError): string {
  return /^(Filter is full|Maximum expansions reached|non scaling filter is full)/.exec(e.message)?.[1] ?? e.message;
}

test('every fixture is here: eighteen, fourteen CF and four BF', () => {
  expect(names).toHaveLength(18);
  expect(names.filter((n) => n.startsWith('cf-'))).toHaveLength(14);
});

(HAVE_SHARED ? test : test.skip)('the copies in tests/fixtures/redis are the ../shared fixtures and item prefixes', () => {
  expect(fixtureNames(COPIES)).toEqual(fixtureNames(SHARED_REDIS));
  for (const n of fixtureNames(SHARED_REDIS)) expect(loadFixture(n, COPIES)).toEqual(loadFixture(n, SHARED_REDIS));
  const copies = loadItems(false);
  expect(copies.members).toEqual(items.members.slice(0, copies.members.length));
  expect(copies.nonMembers).toEqual(items.nonMembers.slice(0, copies.nonMembers.length));
  expect([copies.members.length, copies.nonMembers.length]).toEqual([20000, 10000]);
});

describe.each(names.map((n) => [n.replace(/\.json$/, ''), n]))('%s', (_name, file) => {
  const fx = loadFixture(file);
  const chunks = chunksOf(fx);
  const members = items.members.slice(0, fx.probes.members);
  const nonMembers = items.nonMembers.slice(0, fx.probes.nonMembers);
  let loaded: RedisFilter;

  beforeAll(async () => {
    loaded = await fromScanDump(fx, chunks);
  });
  afterAll(() => loaded.dispose());

  test('1. every member and non-member answer is the server\'s, false positives included', () => {
    expect(fx.probes.memberAnswers).toHaveLength(members.length);
    expect(fx.probes.nonMemberAnswers).toHaveLength(nonMembers.length);
    expect(answers(loaded, members)).toBe(fx.probes.memberAnswers);
    expect(answers(loaded, nonMembers)).toBe(fx.probes.nonMemberAnswers);
    expect(batchAnswers(loaded, members)).toBe(fx.probes.memberAnswers);
    expect(batchAnswers(loaded, nonMembers)).toBe(fx.probes.nonMemberAnswers);
    // The keys as bytes: the same answers.
    const enc = new TextEncoder();
    expect(nonMembers.map((k) => (loaded.has(enc.encode(k)) ? '1' : '0')).join('')).toBe(fx.probes.nonMemberAnswers);
  });

  const counted = fx.probes.memberCounts !== undefined;
  if (counted) test('1b. every CF.COUNT is the server\'s (a key whose two buckets are one counts there twice)', () => {
    const f = loaded as RedisCuckooFilter;
    const memberCounts = countsOf(fx.probes.memberCounts);
    const nonMemberCounts = countsOf(fx.probes.nonMemberCounts);
    expect(memberCounts.length).toBeGreaterThan(0);
    expect(nonMemberCounts.length).toBeGreaterThan(0);
    expect(items.members.slice(0, memberCounts.length).map((k) => f.count(k))).toEqual(memberCounts);
    expect(items.nonMembers.slice(0, nonMemberCounts.length).map((k) => f.count(k))).toEqual(nonMemberCounts);
  });

  test('2. every INFO field is the server\'s', () => {
    expect(loaded.info()).toEqual(infoOf(fx));
  });

  test('3. toScanDump() of the imported filter is the chunks, byte for byte', () => {
    expect(shown(loaded.toScanDump())).toEqual(shown(chunks));
    expect(shown([...loaded.scanDumpChunks()])).toEqual(shown(chunks));
  });

  test('4. replaying the build commands gives the chunks and INFO, refusals included', async () => {
    const expected = stepsOf(fx, items).map((s) => appliedOf(s.outcome));
    for (const batch of [false, true]) {
      const f = await create(fx);
      try {
        expect(replay(fx, f, batch)).toEqual(expected);
        expect(shown(f.toScanDump())).toEqual(shown(chunks));
        expect(f.info()).toEqual(infoOf(fx));
        expect(answers(f, nonMembers)).toBe(fx.probes.nonMemberAnswers);
        if (counted) {
          const c = f as RedisCuckooFilter;
          const memberCounts = countsOf(fx.probes.memberCounts);
          expect(items.members.slice(0, memberCounts.length).map((k) => c.count(k))).toEqual(memberCounts);
        }
      } finally {
        f.dispose();
      }
    }
  });

  test('5. toBytes / fromBytes round trip: same bytes, chunks and answers', async () => {
    const bytes = loaded.toBytes();
    expect(bytes.length).toBe(loaded.byteLength);
    const g = fx.type === 'CF' ? await RedisCuckooFilter.fromBytes(bytes) : await RedisBloomFilter.fromBytes(bytes);
    try {
      expect(Buffer.from(g.toBytes()).equals(Buffer.from(bytes))).toBe(true);
      expect(shown(g.toScanDump())).toEqual(shown(chunks));
      expect(g.info()).toEqual(infoOf(fx));
      expect(batchAnswers(g, nonMembers)).toBe(fx.probes.nonMemberAnswers);
      expect(batchAnswers(g, members)).toBe(fx.probes.memberAnswers);
    } finally {
      g.dispose();
    }
  });

  test('6. hostile variants of its chunks are refused with FilterFormatError and the reason of the check they fail', async () => {
    const header = chunks[0][1];
    const withHeader = (edit: (v: DataView) => void): [number, Uint8Array][] => {
      const h = header.slice();
      edit(new DataView(h.buffer));
      return [[1, h], ...chunks.slice(1)];
    };
    const variants: [string, [number, Uint8Array][], string][] = [
      ['header iterator 2', [[2, header], ...chunks.slice(1)], 'bad-chunk'],
      ['header one byte short', [[1, header.slice(0, -1)], ...chunks.slice(1)], 'truncated'],
      ['the last chunk missing', chunks.slice(0, -1), 'bad-chunk'],
      ['the last chunk one byte short', [...chunks.slice(0, -1), [chunks.at(-1)![0] - 1, chunks.at(-1)![1].slice(0, -1)]], 'bad-chunk'],
    ];
    if (fx.type === 'CF') {
      variants.push(
        ['256 sub-filters', withHeader((v) => v.setBigUint64(24, 256n, true)), 'bad-parameter'],
        ['EXPANSION 3 (the server stores 4)', withHeader((v) => v.setUint16(36, 3, true)), 'bad-parameter'],
        ['one more item than the tables hold', withHeader((v) => v.setBigUint64(0, v.getBigUint64(0, true) + 1n, true)), 'count-mismatch'],
      );
    } else {
      variants.push(['256 links', withHeader((v) => v.setUint32(8, 256, true)), 'bad-parameter'], ['the options word 7', withHeader((v) => v.setUint32(12, 7, true)), 'bad-parameter']);
    }
    for (const [what, variant, want] of variants) {
      let reason: string | undefined;
      try {
        (await fromScanDump(fx, variant)).dispose();
      } catch (e) {
        if (!(e instanceof FilterFormatError)) throw e;
        reason = e.reason;
      }
      expect([what, reason]).toEqual([what, want]);
    }
  });

  test('the chunks load one at a time through scanDumpLoader, and from an async iterable', async () => {
    const loader = fx.type === 'CF' ? await RedisCuckooFilter.scanDumpLoader() : await RedisBloomFilter.scanDumpLoader();
    for (const pair of chunks) loader.push([pair[0], Buffer.from(pair[1])]);
    loader.push([0, new Uint8Array(0)]); // SCANDUMP's terminal reply
    const a = loader.finish();
    async function* slowly() {
      for (const pair of chunks) {
        await new Promise((r) => setImmediate(r));
        yield pair;
      }
    }
    const b = await fromScanDump(fx, slowly());
    try {
      for (const g of [a, b]) expect(shown(g.toScanDump())).toEqual(shown(chunks));
    } finally {
      a.dispose();
      b.dispose();
    }
  });
});

describe('CF.DEL compaction and CF.COMPACT (../shared/redis/README.md, "CF delete and compaction")', () => {
  const keys = items.members.slice(0, 400);

  async function grown(): Promise<RedisCuckooFilter> {
    const f = await RedisCuckooFilter.create({ capacity: 32, bucketSize: 2, expansion: 2 });
    f.addAll(keys);
    expect(f.subFilterCount).toBeGreaterThanOrEqual(4);
    return f;
  }

  test('a delete past a tenth of the items compacts: the count starts again, sub-filters are freed, every key stays', async () => {
    const f = await grown();
    try {
      const before = f.subFilterCount;
      let k = 0;
      // Up to a tenth of the items: each delete is counted.
      for (; (k + 1) * 10 <= keys.length - (k + 1); ++k) {
        expect(f.delete(keys[k])).toBe(true);
        expect(f.info().numberOfItemsDeleted).toBe(k + 1);
      }
      expect(f.delete(keys[k])).toBe(true);
      expect(f.info().numberOfItemsDeleted).toBe(0);
      for (const key of keys.slice(0, 360)) f.delete(key);
      expect(f.subFilterCount).toBeLessThan(before);
      expect(f.info().numberOfFilters).toBe(f.subFilterCount);
      expect(f.hasAll(keys.slice(360)).every(Boolean)).toBe(true);
      expect(f.size).toBe(40);
    } finally {
      f.dispose();
    }
  });

  test('compact() is CF.COMPACT: nothing lost, the delete count 0; it throws FilterDisposedError after dispose', async () => {
    const f = await grown();
    for (const key of keys.slice(0, 30)) f.delete(key); // under a tenth: no compaction yet
    expect(f.info().numberOfItemsDeleted).toBe(30);
    f.compact();
    expect(f.info().numberOfItemsDeleted).toBe(0);
    expect(f.size).toBe(370);
    expect(f.hasAll(keys.slice(30)).every(Boolean)).toBe(true);
    f.dispose();
    expect(() => f.compact()).toThrow(FilterDisposedError);
  });

  test('patches cross a compaction that frees sub-filters, both ways', async () => {
    const f = await grown();
    try {
      const older = f.toBytes();
      const grownCount = f.subFilterCount;
      for (const key of keys.slice(0, 390)) f.delete(key);
      expect(f.subFilterCount).toBeLessThan(grownCount);
      const newer = f.toBytes();
      const a = await RedisCuckooFilter.fromBytes(older);
      const b = await RedisCuckooFilter.fromBytes(newer);
      try {
        a.applyPatch(f.diff(older));
        expect(Buffer.from(a.toBytes()).equals(Buffer.from(newer))).toBe(true);
        expect(shown(a.toScanDump())).toEqual(shown(f.toScanDump()));
        const back = await RedisCuckooFilter.fromBytes(older);
        try {
          b.applyPatch(back.diff(newer));
          expect(Buffer.from(b.toBytes()).equals(Buffer.from(older))).toBe(true);
          expect(b.subFilterCount).toBe(grownCount);
        } finally {
          back.dispose();
        }
      } finally {
        a.dispose();
        b.dispose();
      }
    } finally {
      f.dispose();
    }
  });
});

describe("the server's limits (../shared/redis/README.md, \"Limits\")", () => {
  const keys = items.members;

  test('addAll is one CF.INSERT across its crossings: checked once at 31 sub-filters, it grows past 32 in any chunk', async () => {
    const f = await RedisCuckooFilter.create({ capacity: 64, bucketSize: 4, expansion: 1 });
    try {
      let k = 0;
      while (f.subFilterCount < 31) f.add(keys[k++]);
      // 9,000 keys cross in two chunks (8,192 keys at most each); the first takes the filter past 32.
      const batch = keys.slice(k, k + 9000);
      expect(f.addAll(batch)).toBe(9000);
      expect(f.subFilterCount).toBeGreaterThan(32);
      expect(f.hasAll(keys.slice(0, k + 9000)).every(Boolean)).toBe(true);
      // Every later command is refused, and changes nothing.
      const before = f.toBytes();
      for (const call of [() => f.add('x'), () => f.addUnique(keys[0]), () => f.addAll(['x', 'y'])]) {
        expect(call).toThrow(FilterFullError);
        expect(call).toThrow(/^Maximum expansions reached/);
      }
      expect(Buffer.from(f.toBytes()).equals(Buffer.from(before))).toBe(true);
      // It saves, loads and dumps like any other.
      const g = await RedisCuckooFilter.fromBytes(before);
      const h = await RedisCuckooFilter.fromScanDump(f.toScanDump());
      try {
        expect(shown(h.toScanDump())).toEqual(shown(f.toScanDump()));
        expect(Buffer.from(g.toBytes()).equals(Buffer.from(before))).toBe(true);
        expect(g.hasAll(batch).every(Boolean)).toBe(true);
      } finally {
        g.dispose();
        h.dispose();
      }
    } finally {
      f.dispose();
    }
  });

  test('patches join two filters past 32 sub-filters, both ways', async () => {
    const f = await RedisCuckooFilter.create({ capacity: 4, bucketSize: 1, maxIterations: 1, expansion: 1 });
    const held: RedisCuckooFilter[] = [f];
    try {
      f.addAll(keys.slice(0, 150));
      const older = f.toBytes();
      const olderCount = f.subFilterCount;
      expect(olderCount).toBeGreaterThan(32);
      // Every add is refused now (32 sub-filters or more); deletes change it, and compact past a tenth.
      for (const key of keys.slice(0, 10)) f.delete(key);
      const newer = f.toBytes();
      const [a, b, back] = await Promise.all([older, newer, older].map((bytes) => RedisCuckooFilter.fromBytes(bytes)));
      held.push(a, b, back);
      a.applyPatch(f.diff(older));
      expect(Buffer.from(a.toBytes()).equals(Buffer.from(newer))).toBe(true);
      b.applyPatch(back.diff(newer));
      expect(Buffer.from(b.toBytes()).equals(Buffer.from(older))).toBe(true);
      expect(b.subFilterCount).toBe(olderCount);
    } finally {
      for (const g of held) g.dispose();
    }
  });

  test('an add that user code makes inside an addAll is its own command, refused at 32 sub-filters', async () => {
    const f = await RedisCuckooFilter.create({ capacity: 4, bucketSize: 1, maxIterations: 1, expansion: 1 });
    try {
      let k = 0;
      while (f.subFilterCount < 31) f.add(keys[k++]);
      const inner: unknown[] = [];
      function* source() {
        for (let i = 0; i < 40; ++i) {
          if (i === 20) {
            try {
              f.add('inner');
              inner.push('added');
            } catch (e) {
              inner.push(e);
            }
          }
          yield keys[k + i];
        }
      }
      expect(f.addAll(source())).toBe(40);
      expect(inner).toHaveLength(1);
      expect(inner[0]).toBeInstanceOf(FilterFullError);
      expect(f.size).toBe(k + 40); // the inner add left nothing
      expect(f.hasAll(keys.slice(0, k + 40)).every(Boolean)).toBe(true);
    } finally {
      f.dispose();
    }
  });

  test('EXPANSION is stored rounded up to a power of two; a Bloom chain grows past 32 links', async () => {
    for (const [e, E] of [[0, 0], [1, 1], [3, 4], [5, 8], [32768, 32768]]) {
      const f = await RedisCuckooFilter.create({ capacity: 8, expansion: e });
      expect(f.info().expansionRate).toBe(E);
      f.dispose();
    }
    const b = await RedisBloomFilter.create({ errorRate: 0.05, capacity: 50, expansion: 1 });
    try {
      expect(b.addAll(keys.slice(0, 2500))).toBe(2500);
      expect(b.subFilterCount).toBeGreaterThan(32);
      const again = await RedisBloomFilter.fromScanDump(b.toScanDump());
      expect(again.info()).toEqual(b.info());
      again.dispose();
    } finally {
      b.dispose();
    }
  });
});
