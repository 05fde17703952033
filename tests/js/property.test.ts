// Model-based properties (fast-check) of every family in families.ts
// (KEY_FAMILIES: the registry's four, cuckoo in both encodings), through the one
// harness in harness.ts (what each sequence checks is listed there): random
// sequences of add, addAll, addUnique, addNew, has, hasAll, delete, count, union
// and toBytes → fromBytes (and, for the Redis families, SCANDUMP → LOADCHUNK)
// round trips, checked after every command against a multiset model. Each
// family runs the properties of its profile: a cuckoo table that does not grow
// is driven into FilterFullError and past 95% load; a growing filter (tiny
// capacities, 4- to 6-bit fingerprints or ε = 1e-18, expansion 2..4) through
// many sub-filters and into its growth limit; a Bloom filter through unions and
// round trips; a Redis filter (tiny capacities, expansion 0..4) into "Filter is
// full" and its 32-sub-filter limit, through compaction (RedisCuckoo's deletes)
// and BF.ADD of keys it has (RedisBloom). Each property also checks that its
// generators reached what it is meant to exercise (floors about a third of the
// least each reached in 20 runs; the Redis profiles' in 8), counted over its
// own sequences only.
//
// CUCKOO_SOAK=1 (npm run test:soak) runs 100 times more sequences and logs the totals.
import fc from 'fast-check';
import type { BloomFilterOptions, CuckooFilterOptions, RedisBloomFilterOptions, RedisCuckooFilterOptions } from 'cuckoo-wasm';
import { CuckooFilter, FilterFullError, wasmMemoryUsage } from 'cuckoo-wasm';
import { FAMILIES, Family, KEY_FAMILIES, KeyFilter } from './families';
import {
  CommandMix,
  Real,
  Stats,
  TIMEOUT,
  check,
  commands,
  otherForm,
  report,
  resetStats,
  runSequence,
  runs,
  sameBytes,
  stats,
  warmUp,
} from './harness';
import { Key } from './model';

const enc = new TextEncoder();

// ---------------------------------------------------------------------------
// Keys.

/** One "character" of a string key: mostly ASCII, some graphemes and astral code points, some lone surrogates. */
const unit = fc.oneof(
  { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }), weight: 6 },
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 1 },
  { arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), weight: 1 },
);
const stringKey = fc.string({ unit, maxLength: 12 });
/** Uint8Array keys, including empty ones, sometimes as a view at an offset into a larger buffer. */
const bytesKey = fc.tuple(fc.uint8Array({ maxLength: 16 }), fc.nat({ max: 3 })).map(([b, offset]) => {
  if (offset === 0) return b;
  const backing = new Uint8Array(b.length + offset + 2).fill(0xa5);
  backing.set(b, offset);
  return backing.subarray(offset, offset + b.length);
});
/** Keys longer than the scratch and batch regions (4 KiB, 256 KiB), which then grow. */
const longKey = fc
  .tuple(fc.integer({ min: 1500, max: 100_000 }), fc.constantFrom('k', 'é', '😀'))
  .map(([n, c]) => `long:${c.repeat(n)}`);
const anyKey: fc.Arbitrary<Key> = fc.oneof(
  { arbitrary: stringKey, weight: 12 },
  { arbitrary: bytesKey, weight: 6 },
  { arbitrary: stringKey.map((s) => enc.encode(s)), weight: 4 },
  { arbitrary: longKey, weight: 1 },
);
/** Shorter keys for growing filters (many commands of thousands of keys). */
const shortKey: fc.Arbitrary<Key> = fc.oneof(
  { arbitrary: fc.string({ unit, maxLength: 10 }), weight: 6 },
  { arbitrary: fc.uint8Array({ maxLength: 12 }), weight: 3 },
  { arbitrary: fc.string({ unit, maxLength: 10 }).map((s) => enc.encode(s)), weight: 2 },
);

/** A tiny alphabet for heavy duplicates; rows are the same key in different forms. */
const TINY: Key[] = [
  '',
  new Uint8Array(0),
  'a',
  enc.encode('a'),
  'a\ud800', // lone surrogate: encoded as U+FFFD, the same key as the next
  'a\ufffd',
  'é',
  enc.encode('é'),
  'e\u0301', // a different key from 'é' (NFD): no normalisation
  '😀',
  '\ud83d', // lone high surrogate: U+FFFD
  '\ufffd',
  '\0',
  new Uint8Array([0]),
  new Uint8Array([0xff]), // not UTF-8: has no string form
];
const tinyKey = fc.constantFrom(...TINY);
/** Fewer still for growing filters: keys that collide in every sub-filter. */
const tinierKey = fc.constantFrom<Key>('', 'a', enc.encode('a'), 'b', 'é', enc.encode('é'), 'a\ud800', 'a\ufffd', new Uint8Array([0xff]), 'zz');

// ---------------------------------------------------------------------------
// Options.

const seedArb = fc.oneof(
  fc.constant(undefined),
  fc.nat(),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
);
const maxKicksArb = fc.oneof(
  { arbitrary: fc.constantFrom(0, 1, 10, 500), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 100 }), weight: 1 },
);
const smallCapacity = fc.integer({ min: 1, max: 300 });
const largeCapacity = fc.integer({ min: 1000, max: 4000 });
/** Growing filters start tiny, so that a sequence grows through many sub-filters. */
const tinyCapacity = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 12 }), weight: 3 }, { arbitrary: fc.integer({ min: 13, max: 40 }), weight: 1 });

function cuckooOptions(
  capacity: fc.Arbitrary<number>,
  bits: fc.Arbitrary<number> = fc.integer({ min: 4, max: 32 }),
  bucketSize: fc.Arbitrary<2 | 4 | 8> = fc.constantFrom<2 | 4 | 8>(2, 4, 8),
  maxKicks: fc.Arbitrary<number> = maxKicksArb,
): fc.Arbitrary<CuckooFilterOptions> {
  return fc.record({ capacity, fingerprintBits: bits, bucketSize, maxKicks, seed: seedArb });
}
/** Mostly 4 to 6 bits (many collisions, many levels); some 29 to 32, which reach the 32-bit growth limit in a few levels. */
const growingBits = fc.oneof({ arbitrary: fc.integer({ min: 4, max: 6 }), weight: 6 }, { arbitrary: fc.integer({ min: 29, max: 32 }), weight: 2 });
const expansionArb = fc.integer({ min: 2, max: 4 });

/**
 * ε: ordinary rates, and 1e-18, whose sub-filter 4 would need 65 hash functions (the growth
 * limit after 4 sub-filters: at most 40·(1 + 4 + 16 + 64) keys).
 */
function bloomOptions(expansion: fc.Arbitrary<number | undefined>): fc.Arbitrary<BloomFilterOptions> {
  return fc.record({
    capacity: tinyCapacity,
    falsePositiveRate: fc.constantFrom(0.5, 0.2, 0.05, 0.01, 0.001, 1e-18, 1e-18),
    seed: seedArb,
    expansion,
  });
}

/**
 * Expansion of a Redis Bloom filter: mostly 1 (links of one size: past 32 of them within a sequence) and
 * 2..4; some 0 (no growth: "Filter is full", a full non-scaling link).
 */
const redisExpansion = fc.oneof(
  { arbitrary: fc.constant(0), weight: 1 },
  { arbitrary: fc.constant(1), weight: 4 },
  { arbitrary: fc.integer({ min: 2, max: 4 }), weight: 3 },
);
/**
 * CF.RESERVE's options: capacity >= 2b, tiny (2 to 32 buckets), b 1, 2 or 4; expansion 0..2. Each
 * copy of one key past 2b per sub-filter adds a sub-filter E times larger, so one batch of copies
 * can multiply the tables by E^copies: with E = 4 a soak run reached 700 MB (OutOfMemoryError), so
 * the expansions of 3 and 4 are left to redis.test.ts and redis-differential.test.ts.
 */
const redisCuckooOptions: fc.Arbitrary<RedisCuckooFilterOptions> = fc.constantFrom(1, 2, 2, 4).chain((bucketSize) =>
  fc.record({
    capacity: fc.integer({ min: 2 * bucketSize, max: 64 }),
    bucketSize: fc.constant(bucketSize),
    maxIterations: fc.constantFrom(1, 20, 500),
    expansion: fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, { arbitrary: fc.constant(1), weight: 4 }, { arbitrary: fc.constant(2), weight: 3 }),
  }),
);
/** RedisCuckoo: at most 8 copies of one key at once (E^8 = 256 times the tables, at most). */
const redisCuckooMix: CommandMix = { maxCommands: 30, batch: 24, fresh: [[100, 1500], [1000, 4000], [4000, 16000]], copies: [2, 8], extras: true };
/** BF.RESERVE's options: tiny capacities; a non-scaling filter as EXPANSION 0 or NONSCALING. */
const redisBloomOptions: fc.Arbitrary<RedisBloomFilterOptions> = fc.oneof(
  { arbitrary: fc.record({ errorRate: fc.constantFrom(0.5, 0.2, 0.01, 0.001), capacity: tinyCapacity, expansion: redisExpansion }), weight: 8 },
  { arbitrary: fc.record({ errorRate: fc.constantFrom(0.2, 0.01), capacity: tinyCapacity, nonScaling: fc.constant(true) }), weight: 1 },
);

// ---------------------------------------------------------------------------
// The profiles: the properties each kind of family runs.

interface PropertyRun {
  name: string;
  options: fc.Arbitrary<object>;
  key: fc.Arbitrary<Key>;
  mix: CommandMix;
  numRuns: number;
  floors: Partial<Stats>;
}

const growingMix: CommandMix = { maxCommands: 30, batch: 24, fresh: [[100, 1500], [1000, 4000]], copies: [2, 12], extras: true };

/** A Redis filter: fresh batches of up to 16 times the newest capacity, so that e = 1 reaches 32 sub-filters. */
const redisMix: CommandMix = { ...growingMix, fresh: [[100, 1500], [1000, 4000], [4000, 16000]] };

function profile(family: Family<KeyFilter>): PropertyRun[] {
  if (family.redis && family.kind === 'cuckoo') {
    return [
      {
        // The limit of 32 sub-filters, which an addAll (one CF.INSERT) passes, is met here a few times a run; the
        // differential test against the server's model (redis-differential.test.ts) holds its floors.
        name: 'random sequences through sub-filters, compaction and the 32-sub-filter limit agree with a multiset model',
        options: redisCuckooOptions,
        key: shortKey,
        mix: redisCuckooMix,
        numRuns: 120,
        floors: { reached6: 13, sequencesFull: 3, deletesGrown: 10_000, compactions: 40, scanDumpsGrown: 20 },
      },
      {
        name: 'a tiny alphabet: 8-bit fingerprints shared, copies added and deleted across sub-filters',
        options: redisCuckooOptions,
        key: tinierKey,
        mix: { ...redisCuckooMix, maxCommands: 40 },
        numRuns: 40,
        // Deletes in a grown filter come mostly from a few long sequences: 5,131 to 75,093 per 40 runs seen.
        floors: { reached6: 7, deletesGrown: 1000, compactions: 25, scanDumpsGrown: 12, addUniqueFalse: 9 },
      },
    ];
  }
  if (family.redis) {
    const mix: CommandMix = { ...redisMix, copies: [2, 40] };
    return [
      {
        name: 'random sequences through links, past 32 of them, agree with BF.ADD over a model',
        options: redisBloomOptions,
        key: shortKey,
        mix,
        numRuns: 80,
        floors: { reached6: 12, sequencesFull: 6, dedupedAdds: 180, addUniqueFalse: 2, scanDumpsGrown: 19 },
      },
      {
        // EXPANSION 1: links of one size, so a sequence's fresh batches pass 32 of them (the server has no limit).
        name: 'a chain past 32 links (EXPANSION 1) agrees with BF.ADD over a model',
        options: fc.record({ errorRate: fc.constantFrom(0.5, 0.2, 0.01), capacity: fc.integer({ min: 1, max: 8 }), expansion: fc.constant(1) }),
        key: shortKey,
        mix: { ...mix, fresh: [[16000, 64000]] },
        numRuns: 20,
        floors: { past32: 6, scanDumpsGrown: 10 },
      },
      { name: 'a tiny alphabet: BF.ADD of keys it has changes nothing', options: redisBloomOptions, key: tinierKey, mix, numRuns: 40, floors: { reached6: 4, dedupedAdds: 50, scanDumpsGrown: 6 } },
    ];
  }
  if (family.kind === 'cuckoo' && !family.grows) {
    return [
      {
        name: 'random operation sequences agree with a multiset model',
        options: cuckooOptions(fc.oneof({ arbitrary: smallCapacity, weight: 9 }, { arbitrary: largeCapacity, weight: 1 })),
        key: anyKey,
        mix: { maxCommands: 40, batch: 24, fresh: [[50, 600]], copies: [2, 20], extras: false },
        numRuns: 1000,
        floors: { sequencesFull: 200, sequencesOver95: 40 },
      },
      {
        name: 'filling past 95% load and into FilterFullError',
        // Mostly b = 4 and 8 with many kicks, which reach more than 95% load; b = 2 and few kicks fill up earlier.
        options: cuckooOptions(
          fc.oneof({ arbitrary: smallCapacity, weight: 3 }, { arbitrary: largeCapacity, weight: 1 }),
          undefined,
          fc.constantFrom<2 | 4 | 8>(2, 4, 8, 4, 8, 8),
          fc.oneof({ arbitrary: fc.constant(500), weight: 3 }, { arbitrary: maxKicksArb, weight: 1 }),
        ),
        key: anyKey,
        mix: { maxCommands: 16, batch: 0, fresh: [[200, 1600], [200, 1600], [1, 100]], copies: [2, 4], extras: false, fillOnly: true },
        numRuns: 300,
        floors: { sequencesFull: 50, sequencesOver95: 40 },
      },
      {
        name: 'heavy duplicates from a tiny alphabet (same key as string and bytes, lone surrogates)',
        options: cuckooOptions(fc.oneof({ arbitrary: fc.integer({ min: 1, max: 64 }), weight: 4 }, { arbitrary: smallCapacity, weight: 1 })),
        key: tinyKey,
        mix: { maxCommands: 40, batch: 30, fresh: [], copies: [1, 20], extras: false },
        numRuns: 1000,
        floors: { sequencesFull: 200, sequencesOver95: 40 },
      },
    ];
  }
  if (family.kind === 'cuckoo') {
    const options = (bits: fc.Arbitrary<number>) =>
      cuckooOptions(tinyCapacity, bits, undefined, fc.constantFrom(0, 1, 10, 500, 500)).chain((o) =>
        expansionArb.map((expansion) => ({ ...o, expansion })),
      );
    return [
      {
        name: 'random sequences through many sub-filters agree with a multiset model',
        options: options(growingBits),
        key: shortKey,
        mix: growingMix,
        numRuns: 100,
        // No floor on six sub-filters here: these sequences reach them 0 to 11 times in 100 (a CI run saw 0);
        // the tiny alphabet's profile below, 4 to 19 times in 60, holds that floor.
        floors: { reached3: 13, growthLimit: 2, deletesGrown: 1000, roundTripsGrown: 20 },
      },
      {
        name: 'a tiny alphabet, 4-bit fingerprints: keys that collide in every sub-filter, added and deleted',
        options: options(fc.constantFrom(4, 4, 5)),
        key: tinierKey,
        mix: { ...growingMix, maxCommands: 40 },
        numRuns: 60,
        floors: { reached3: 12, reached6: 3, deletesGrown: 1000, addUniqueFalse: 15 },
      },
    ];
  }
  if (family.grows) {
    // One in nine without growth, as a growing filter's options may say.
    const options = bloomOptions(fc.oneof({ arbitrary: expansionArb, weight: 8 }, { arbitrary: fc.constant(undefined), weight: 1 }));
    const mix: CommandMix = { ...growingMix, copies: [2, 40] };
    return [
      {
        name: 'random sequences through many sub-filters agree with a multiset model',
        options,
        key: shortKey,
        mix,
        numRuns: 100,
        floors: { reached3: 21, reached6: 7, growthLimit: 3, roundTripsGrown: 36, unions: 40 },
      },
      // 120 runs: the growth limit is met in 0 to 9 of 40 (seen across Node.js 20-26), so 40 left the floor flaky.
      { name: 'a tiny alphabet, heavy duplicates', options, key: tinierKey, mix, numRuns: 120, floors: { reached3: 24, growthLimit: 3 } },
    ];
  }
  const options = bloomOptions(fc.constant(undefined)).map(({ expansion: _, ...o }) => o);
  const mix: CommandMix = { maxCommands: 30, batch: 24, fresh: [[100, 1500], [1000, 4000]], copies: [1, 40], extras: true };
  return [
    { name: 'random sequences agree with a multiset model, past capacity', options, key: anyKey, mix, numRuns: 150, floors: { roundTrips: 60, unions: 60 } },
    { name: 'a tiny alphabet, heavy duplicates', options, key: tinyKey, mix, numRuns: 100, floors: { roundTrips: 40, unions: 40 } },
  ];
}

describe.each(KEY_FAMILIES.map((f) => [f.name, f] as const))('model-based properties: %s', (_, family) => {
  beforeAll(warmUp);
  beforeEach(resetStats);

  test.each(profile(family).map((p) => [p.name, p] as const))(
    '%s',
    async (name, p) => {
      const options = p.options.map((o) => family.adjust(o) as Real['options']);
      const property = fc.asyncProperty(options, commands(family, p.key, p.mix), (o, cmds) => runSequence(family, o, cmds));
      await fc.assert(property, { numRuns: runs(p.numRuns) });
      report(`${family.name}: ${name}`, runs(p.numRuns), p.floors);
    },
    TIMEOUT,
  );
});

// ---------------------------------------------------------------------------
// Cuckoo tables that do not grow: one key alone.

async function allocated(): Promise<number> {
  return (await wasmMemoryUsage()).allocatedBytes;
}

// One key alone in a filter fills its two buckets (2b copies) and the victim slot (one more),
// or b + 1 copies when its two buckets coincide; then add throws and changes nothing.
// Deleting the copies one by one empties the filter again.
describe.each(FAMILIES.filter((f) => f.kind === 'cuckoo' && !f.grows).map((f) => [f.name, f] as const))('%s', (_, family) => {
  beforeAll(warmUp);
  beforeEach(resetStats);

  test(
    'one key added until FilterFullError: 2b + 1 copies (b + 1 if its buckets coincide), then deleted to empty',
    async () => {
      const capacity = fc.oneof({ arbitrary: smallCapacity, weight: 3 }, { arbitrary: largeCapacity, weight: 1 });
      let lone = 0;
      let loneInOneBucket = 0;
      const property = fc.asyncProperty(cuckooOptions(capacity), anyKey, async (o, key) => {
        stats.sequences++;
        const allocatedBefore = await allocated();
        const f = await CuckooFilter.create(family.adjust(o));
        try {
          const b = f.bucketSize;
          let copies = 0;
          let before = f.toBytes();
          for (;;) {
            before = f.toBytes();
            try {
              f.add(key);
            } catch (e) {
              if (!(e instanceof FilterFullError)) throw e;
              break;
            }
            ++copies;
            check(copies <= 2 * b + 1, () => `${copies} copies of one key fit with b = ${b}`);
          }
          check(copies === 2 * b + 1 || copies === b + 1, () => `${copies} copies of one key fit with b = ${b}`);
          check(sameBytes(before, f.toBytes()), () => 'the failed add changed toBytes()');
          check(f.size === copies && f.count(key) === copies, () => `size ${f.size}, count ${f.count(key)}, ${copies} added`);
          check(f.count(otherForm(key)) === copies, () => 'count of the other form of the key differs');
          const slots = f.bucketCount * f.bucketSize;
          check(Math.round(f.loadFactor * slots) === copies - 1, () => 'the victim slot is not in use after FilterFullError');
          if (f.bucketCount >= 50) {
            lone++;
            if (copies === b + 1) loneInOneBucket++;
          }
          for (let left = copies - 1; left >= 0; --left) {
            check(f.delete(left % 2 ? key : otherForm(key)), () => `delete returned false with ${left + 1} copies stored`);
            check(
              f.size === left && f.count(key) === left,
              () => `after a delete: size ${f.size}, count ${f.count(key)}, expected ${left}`,
            );
            check(f.has(key) === left > 0, () => `has is ${f.has(key)} with ${left} copies stored and nothing else`);
            // The victim moves back into the table as soon as a slot is free.
            check(Math.round(f.loadFactor * slots) === left, () => `loadFactor·slots ${f.loadFactor * slots} with ${left} copies after a delete`);
          }
          check(!f.delete(key), () => 'delete returned true on an empty filter');
          f.add(key);
          check(f.count(key) === 1, () => 'after emptying, one add does not count 1');
        } finally {
          f.dispose();
        }
        const leaked = (await allocated()) - allocatedBefore;
        check(leaked === 0, () => `${leaked} bytes of WebAssembly memory still allocated after dispose()`);
      });
      await fc.assert(property, { numRuns: runs(500) });
      // P(i1 = i2) is about 1/m: with m >= 50 buckets, b + 1 copies must be rare (a broken
      // alternate-bucket function would make it the rule).
      expect(loneInOneBucket).toBeLessThanOrEqual(Math.max(2, lone * 0.1));
      console.log(`one key: ${stats.sequences} sequences; ${lone} filters of >= 50 buckets, ${loneInOneBucket} with the key's buckets equal`);
      expect(stats.sequences).toBe(runs(500));
    },
    TIMEOUT,
  );
});
