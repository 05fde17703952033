// RedisCuckooFilter against a second implementation of the server's CF.* semantics
// (tests/js/redis-cf-model.ts, written from ../shared/redis/README.md and docs/FORMAT.md §15):
//   1. the model reproduces every CF fixture recorded from a real server: each step's outcome,
//      CF.INFO, the SCANDUMP chunks byte for byte, and the member and non-member answers;
//   2. random sequences of add / addUnique / addAll (CF.INSERT) / delete / compact / count over
//      random CF.RESERVE parameters give, after every operation, the same answer (FilterFullError
//      with the server's text where the model is full), the same info() and the same toScanDump()
//      chunks as the model.
// Sequences are long enough to grow many sub-filters, cross the 10%-deletes threshold of CF.DEL's
// compaction many times, fill filters that may not grow, reach the 32 sub-filters' limit and pass
// it by CF.INSERTs that start below it, grow by expansions that are not powers of two, and count
// keys whose two buckets are one; floors on those counts keep the generator from drifting into
// sequences that test little.
import fc from 'fast-check';
import { FilterFullError, RedisCuckooFilter } from 'cuckoo-wasm';
import type { RedisCuckooFilterInfo, ScanDumpChunk } from 'cuckoo-wasm';
import { AddResult, CfInfo, InsertResult, KeyHash, MAX_SUB_FILTERS, RedisCfModel, ReserveOptions, alternate, keyHash } from './redis-cf-model';
import { appliedOf, chunksOf, countsOf, fixtureNames, infoOf, loadFixture, loadItems, reserveOptions, stepsOf } from './redis-fixtures';

type OpKind = 'add' | 'addUnique' | 'insert' | 'delete' | 'compact' | 'count';

/** One operation: its kind and a key index, taken modulo the scenario's pool of keys; an insert takes `size` keys from there. */
interface Op {
  kind: OpKind;
  key: number;
  size: number;
}

interface Scenario {
  options: Required<ReserveOptions>;
  /** Distinct keys the operations draw from: few enough that deletes hit and fingerprints collide. */
  pool: number;
  ops: Op[];
}

/** Table bytes past which a run stops: a filter of expansion 2 or 4 that keeps growing gets slow to dump after every step. */
const TABLE_BUDGET = 64 * 1024;

/** Sequences per run of the property (about 3 s on two cores); CUCKOO_SOAK=1 (npm run test:soak) runs 100 times more. */
const RUNS = process.env.CUCKOO_SOAK === '1' ? 30000 : 300;

/**
 * fast-check's seed: fixed for the 300 runs, so that the coverage floors below check these 300 sequences (with a
 * random seed each run, "Filter is full" was reached by 24 to 40 of 300 over sixteen seeds, and its floor of 20 failed
 * about one seed in a few hundred); a fresh one for the soak run, whose counts are far above every floor.
 */
const SEED = process.env.CUCKOO_SOAK === '1' ? undefined : 20261207;

const SERVER_ERRORS = ['Filter is full', 'Maximum expansions reached'] as const;

/** Key i of a pool: ASCII, or with a two-byte UTF-8 letter (the filter hashes a string's UTF-8 bytes). */
function keyName(i: number): string {
  return i % 3 === 0 ? `clé-${i}` : `key-${i}`;
}

const hashes = new Map<string, KeyHash>();
function hashOf(key: string): KeyHash {
  let kh = hashes.get(key);
  if (kh === undefined) hashes.set(key, (kh = keyHash(key)));
  return kh;
}

/**
 * One operation. `hot`: the weight, against 4 for the whole pool, of one hot key, whose duplicates
 * fill its two buckets in every sub-filter and so force kicks, growth and the limit of 32
 * sub-filters. `deletes`: the weight of delete against 10 for add and 3 for addUnique (1: the
 * filter keeps growing, 7: deletes often pass 10% of the items). `compacts`: whether CF.COMPACT is
 * among the operations (weight 1).
 */
function opArb(hot: number, deletes: number, compacts: boolean, inserts: number): fc.Arbitrary<Op> {
  const keys = [{ arbitrary: fc.nat(9999), weight: 4 }];
  if (hot > 0) keys.push({ arbitrary: fc.constant(0), weight: hot });
  const kinds: { arbitrary: fc.Arbitrary<OpKind>; weight: number }[] = [
    { arbitrary: fc.constant('add'), weight: 10 },
    { arbitrary: fc.constant('addUnique'), weight: 3 },
    { arbitrary: fc.constant('delete'), weight: deletes },
    { arbitrary: fc.constant('count'), weight: 2 },
  ];
  if (compacts) kinds.push({ arbitrary: fc.constant('compact'), weight: 1 });
  if (inserts > 0) kinds.push({ arbitrary: fc.constant('insert'), weight: inserts });
  return fc.record({ kind: fc.oneof(...kinds), key: fc.oneof(...keys), size: fc.integer({ min: 1, max: 48 }) });
}

/**
 * CF.RESERVE parameters small enough to grow often (capacity at least 2·bucketSize, as the server asks), expansions
 * that are not powers of two among them; tiny tables (one or two buckets), where a key's two buckets are often one.
 * `inserts`: the weight of CF.INSERT (addAll) against 10 for add; at 6, with expansion 1, sequences pass 32
 * sub-filters.
 */
const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    bucketSize: fc.constantFrom(1, 2, 4),
    expansion: fc.constantFrom(0, 1, 1, 1, 2, 3, 4, 5, 6),
    maxIterations: fc.integer({ min: 1, max: 30 }),
    capacity: fc.oneof(fc.integer({ min: 2, max: 64 }), fc.integer({ min: 2, max: 8 })),
    pool: fc.integer({ min: 4, max: 160 }),
    hot: fc.constantFrom(0, 1, 8),
    deletes: fc.constantFrom(1, 7),
    compacts: fc.boolean(),
    inserts: fc.constantFrom(0, 1, 6),
  })
  .chain(({ pool, hot, deletes, compacts, inserts, ...o }) =>
    fc.array(opArb(hot, deletes, compacts, inserts), { minLength: 1, maxLength: 500, size: 'max' }).map((ops) => ({
      options: { ...o, capacity: Math.max(o.capacity, 2 * o.bucketSize) },
      pool,
      ops,
    })),
  );

/** What the runs covered, for the floors: runs that saw each event, and a few operation counts. */
interface Coverage {
  runs: number;
  operations: number;
  reached4: number;
  reached8: number;
  reached32: number;
  past32: number;
  insertCrossed32: number;
  refusedAt32WithFreeSlot: number;
  notPowerOfTwo: number;
  twinCounts: number;
  filterFull: number;
  growthLimit: number;
  deleteCompactionFreed: number;
  compactFreed: number;
  deleteCompactions: number;
  deleteMisses: number;
  addUniqueFalse: number;
}

function emptyCoverage(): Coverage {
  return {
    runs: 0,
    operations: 0,
    reached4: 0,
    reached8: 0,
    reached32: 0,
    past32: 0,
    insertCrossed32: 0,
    refusedAt32WithFreeSlot: 0,
    notPowerOfTwo: 0,
    twinCounts: 0,
    filterFull: 0,
    growthLimit: 0,
    deleteCompactionFreed: 0,
    compactFreed: 0,
    deleteCompactions: 0,
    deleteMisses: 0,
    addUniqueFalse: 0,
  };
}

/** Counts one operation's events; `seen` collects the events of the run. */
function note(coverage: Coverage, seen: Set<keyof Coverage>, kind: OpKind, answer: unknown, before: CfInfo, after: CfInfo) {
  ++coverage.operations;
  if (after.numberOfFilters >= 4) seen.add('reached4');
  if (after.numberOfFilters >= 8) seen.add('reached8');
  if (after.numberOfFilters >= MAX_SUB_FILTERS) seen.add('reached32');
  if (after.numberOfFilters > MAX_SUB_FILTERS) seen.add('past32');
  if (kind === 'insert' && before.numberOfFilters < MAX_SUB_FILTERS && after.numberOfFilters > MAX_SUB_FILTERS) {
    seen.add('insertCrossed32');
  }
  if (answer === 'Filter is full') seen.add('filterFull');
  if (answer === 'Maximum expansions reached' || (answer as InsertResult)?.error === 'Maximum expansions reached') {
    seen.add('growthLimit');
  }
  if (answer === false && kind === 'delete') ++coverage.deleteMisses;
  if (answer === false && kind === 'addUnique') ++coverage.addUniqueFalse;
  // A delete leaves numberOfItemsDeleted at 0 only when its compaction ran.
  if (kind === 'delete' && answer === true && after.numberOfItemsDeleted === 0) {
    ++coverage.deleteCompactions;
    if (after.numberOfFilters < before.numberOfFilters) seen.add('deleteCompactionFreed');
  }
  if (kind === 'compact' && after.numberOfFilters < before.numberOfFilters) seen.add('compactFreed');
}

/** A disagreement between the library and the model; `check` names what differed first. */
class Mismatch extends Error {
  constructor(
    readonly check: 'answer' | 'info' | 'scandump',
    message: string,
  ) {
    super(message);
    this.name = 'Mismatch';
  }
}

const INFO_FIELDS: (keyof RedisCuckooFilterInfo)[] = [
  'size',
  'numberOfBuckets',
  'numberOfFilters',
  'numberOfItemsInserted',
  'numberOfItemsDeleted',
  'bucketSize',
  'expansionRate',
  'maxIterations',
];

/** The library's answer to an add: 'ok', or the server's error text that starts its FilterFullError's message. */
function libraryAdd(add: () => unknown): unknown {
  try {
    return add();
  } catch (e) {
    if (!(e instanceof FilterFullError)) throw e;
    const text = SERVER_ERRORS.find((t) => e.message.startsWith(`${t} `));
    if (e.code !== 'ERR_FILTER_FULL' || e.added !== 0 || text === undefined) {
      throw new Mismatch('answer', `a FilterFullError unlike the server's error: ${e.code}, added ${e.added}, "${e.message}"`);
    }
    return text;
  }
}

/** The library's answer to addAll (one CF.INSERT): how many went in, and the server's error text that stopped it. */
function libraryInsert(f: RedisCuckooFilter, keys: string[]): InsertResult {
  try {
    return { added: f.addAll(keys), error: null };
  } catch (e) {
    if (!(e instanceof FilterFullError)) throw e;
    const error = SERVER_ERRORS.find((t) => e.message.startsWith(`${t} `));
    if (e.code !== 'ERR_FILTER_FULL' || error === undefined) {
      throw new Mismatch('answer', `a FilterFullError unlike the server's error: ${e.code}, "${e.message}"`);
    }
    return { added: e.added, error };
  }
}

/** Whether the key's two buckets are one bucket in some sub-filter of the model. */
function twinBuckets(model: RedisCfModel, kh: KeyHash): boolean {
  return model.subFilters.some((f) => {
    const i1 = f.firstBucket(kh.hash);
    return alternate(i1, kh.fingerprint, f.numBuckets) === i1;
  });
}

function sameChunks(lib: ScanDumpChunk[], model: [number, Uint8Array][]): string | undefined {
  if (lib.length !== model.length) return `${lib.length} chunks, the model ${model.length}`;
  for (let c = 0; c < lib.length; ++c) {
    const [it, bytes] = lib[c];
    if (it !== model[c][0]) return `chunk ${c} has iterator ${it}, the model ${model[c][0]}`;
    if (bytes.length !== model[c][1].length) return `chunk ${c} has ${bytes.length} bytes, the model ${model[c][1].length}`;
    if (Buffer.compare(bytes, model[c][1]) === 0) continue;
    const at = bytes.findIndex((x, i) => x !== model[c][1][i]);
    return `chunk ${c} differs at byte ${at}: ${bytes[at]}, the model ${model[c][1][at]}`;
  }
  return undefined;
}

/** Runs the scenario on a RedisCuckooFilter and on the model, comparing after every operation; throws a Mismatch at the first difference. */
async function runScenario(s: Scenario, coverage = emptyCoverage()): Promise<void> {
  const model = new RedisCfModel(s.options);
  const f = await RedisCuckooFilter.create(s.options);
  try {
    const seen = new Set<keyof Coverage>();
    for (let n = 0; n < s.ops.length && model.tableBytes <= TABLE_BUDGET; ++n) {
      const { kind } = s.ops[n];
      const key = keyName(s.ops[n].key % s.pool);
      const kh = hashOf(key);
      const before = model.info();
      const free = model.numItems < model.tableBytes;
      let expected: AddResult | InsertResult | boolean | number | undefined;
      let actual: unknown;
      if (kind === 'insert') {
        const keys = Array.from({ length: s.ops[n].size }, (_, i) => keyName((s.ops[n].key + i) % s.pool));
        expected = model.insert(keys, keys.map(hashOf));
        actual = libraryInsert(f, keys);
      } else if (kind === 'count') {
        expected = model.count(key, kh);
        actual = f.count(key);
        if (expected > 0 && twinBuckets(model, kh)) ++coverage.twinCounts;
      } else if (kind === 'add') {
        expected = model.add(key, kh);
        actual = libraryAdd(() => (f.add(key), 'ok'));
      } else if (kind === 'addUnique') {
        const r = model.addUnique(key, kh);
        expected = r === 'exists' ? false : r === 'ok' ? true : r;
        actual = libraryAdd(() => f.addUnique(key));
      } else if (kind === 'delete') {
        expected = model.delete(key, kh);
        actual = f.delete(key);
      } else {
        model.compact();
        f.compact();
      }
      const at = `operation ${n} ${kind}(${JSON.stringify(key)})`;
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        throw new Mismatch('answer', `${at}: the library answered ${JSON.stringify(actual)}, the model ${JSON.stringify(expected)}`);
      }
      if (before.numberOfFilters >= MAX_SUB_FILTERS && free && expected === 'Maximum expansions reached') {
        ++coverage.refusedAt32WithFreeSlot;
      }
      const info = f.info();
      const want = model.info();
      for (const field of INFO_FIELDS) {
        if (info[field] !== want[field]) {
          throw new Mismatch('info', `${at}: info().${field} is ${info[field]}, the model's ${want[field]}`);
        }
      }
      const dump = sameChunks(f.toScanDump(), model.scanDump());
      if (dump !== undefined) throw new Mismatch('scandump', `${at}: toScanDump(): ${dump}`);

      note(coverage, seen, kind, expected, before, want);
    }
    ++coverage.runs;
    if (s.options.expansion !== model.growth && model.subFilters.length > 1) ++coverage.notPowerOfTwo;
    for (const event of seen) ++coverage[event];
  } finally {
    f.dispose();
  }
}

// The tests.

describe('the model reproduces every CF fixture recorded from the server', () => {
  const items = loadItems();
  const files = fixtureNames().filter((n) => n.startsWith('cf-'));

  test.each(files)('%s: outcome, CF.INFO, SCANDUMP chunks and answers', (file) => {
    const fx = loadFixture(file);
    const model = new RedisCfModel(reserveOptions(fx) as unknown as ReserveOptions);
    const outcome: typeof fx.outcome = {};
    for (const step of stepsOf(fx, items)) {
      if (step.batch === true) {
        // One CF.INSERT: the server's answer per item (1 = added).
        expect(step.command).toBe('CF.INSERT');
        const r = model.insert(step.keys);
        expect([r.added, r.error]).toEqual(appliedOf(step.outcome));
        outcome[`${step.command} ${step.items} x${step.count} batch`] = step.outcome;
        continue;
      }
      // A `none` step is a command on the key alone (CF.COMPACT), issued `count` times.
      const times = step.items === 'none' ? step.count : step.keys.length;
      let applied = 0;
      let error: string | null = null;
      for (; applied < times; ++applied) {
        const key = step.keys[applied];
        let r: AddResult | 'exists' = 'ok';
        if (step.command === 'CF.ADD') r = model.add(key);
        else if (step.command === 'CF.ADDNX') r = model.addUnique(key);
        else if (step.command === 'CF.DEL') expect(model.delete(key)).toBe(true);
        else if (step.command === 'CF.COMPACT') model.compact();
        else throw new Error(`${file}: unknown command ${step.command}`);
        if (r !== 'ok' && r !== 'exists') {
          error = r;
          break;
        }
      }
      outcome[`${step.command} ${step.items} x${step.count}`] = { applied, error };
    }
    expect(outcome).toEqual(fx.outcome);
    expect(model.info()).toEqual(infoOf(fx));
    const hex = (chunks: [number, Uint8Array][]) => chunks.map(([it, b]) => [it, Buffer.from(b).toString('hex')]);
    expect(hex(model.scanDump())).toEqual(hex(chunksOf(fx)));
    const answers = (keys: string[]) => keys.map((k) => (model.exists(k) ? '1' : '0')).join('');
    expect(answers(items.members.slice(0, fx.probes.members))).toBe(fx.probes.memberAnswers);
    expect(answers(items.nonMembers.slice(0, fx.probes.nonMembers))).toBe(fx.probes.nonMemberAnswers);
    const memberCounts = countsOf(fx.probes.memberCounts);
    const nonMemberCounts = countsOf(fx.probes.nonMemberCounts);
    expect(items.members.slice(0, memberCounts.length).map((k) => model.count(k))).toEqual(memberCounts);
    expect(items.nonMembers.slice(0, nonMemberCounts.length).map((k) => model.count(k))).toEqual(nonMemberCounts);
  });
});

test('RedisCuckooFilter agrees with the model after every operation of random sequences', async () => {
  const coverage = emptyCoverage();
  await fc.assert(
    fc.asyncProperty(scenarioArb, (s) => runScenario(s, coverage)),
    { numRuns: RUNS, seed: SEED },
  );
  // Floors: about half the least that as many runs covered over eleven seeds. Over sixteen others the least were
  // 24 "Filter is full", 18 past 32 sub-filters, 25 freed by compact(); this seed covers 30, 27 and 24.
  expect(coverage.runs).toBe(RUNS);
  expect(coverage.operations).toBeGreaterThan(25000);
  expect(coverage.reached4).toBeGreaterThan(75);
  expect(coverage.reached8).toBeGreaterThan(36);
  expect(coverage.filterFull).toBeGreaterThan(19);
  expect(coverage.growthLimit).toBeGreaterThan(2);
  // The server's limits (about half the least of three runs: 38, 26, 26, 3977, 96, 1354).
  expect(coverage.reached32).toBeGreaterThan(15);
  expect(coverage.past32).toBeGreaterThan(10);
  expect(coverage.insertCrossed32).toBeGreaterThan(10);
  expect(coverage.refusedAt32WithFreeSlot).toBeGreaterThan(1000);
  expect(coverage.notPowerOfTwo).toBeGreaterThan(40);
  expect(coverage.twinCounts).toBeGreaterThan(500);
  // Deletes are a smaller share of this mix (inserts, counts, expansions up to 6): the floors are about half the least
  // seen over eight runs (398 compactions, 54 freeing, 27 by compact(), 2339 misses, 3888 addUnique
  // false).
  expect(coverage.deleteCompactions).toBeGreaterThan(200);
  expect(coverage.deleteCompactionFreed).toBeGreaterThan(25);
  expect(coverage.compactFreed).toBeGreaterThan(10);
  expect(coverage.deleteMisses).toBeGreaterThan(1200);
  expect(coverage.addUniqueFalse).toBeGreaterThan(2000);
});
