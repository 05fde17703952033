// Filters that grow (the `expansion` option), both families. Model-based
// property tests (fast-check) in the manner of property.test.ts: random
// sequences of add, addAll, addUnique, has, hasAll, delete, count, union and
// toBytes → fromBytes round trips on tiny filters (capacities 1..40, 4- to
// 6-bit fingerprints, expansion 2..4), so that each sequence grows through
// many sub-filters, checked after every command against a multiset model
// (tests/js/model.ts):
//   - every key the model holds is found (as bytes and as its string), also
//     after deletes: no false negative, ever;
//   - size is the model's total; a cuckoo filter's count(k) >= its multiplicity;
//   - the sub-filters are what the docs promise: sub-filter j has capacity
//     n·e^j and, for cuckoo, e^j times the buckets and j more fingerprint bits,
//     for Bloom m and k from the formula at ε/2^(j+1); sizes add up; byteLength
//     is the layout's; the count of sub-filters never goes down;
//   - new keys go to the newest sub-filter only (an older one never gains);
//   - at the growth limit (32-bit fingerprints; Bloom's 64 hash functions),
//     FilterFullError, the key is not added and toBytes() is unchanged;
//   - a round trip gives byte-identical bytes (and the sequence goes on with
//     the loaded filter);
// and at the end, the mutations replayed on a new filter give the same
// outcomes and bytes, and the WebAssembly memory is back where it was.
// Then deterministic tests of what the properties cannot see: the byte
// versions, the sub-filter geometry, addUnique, the growth limit, and deletes
// of every key in every sub-filter.
import fc from 'fast-check';
import { BloomFilter, CuckooFilter, FilterDisposedError, FilterFullError, ArgumentTypeError, ArgumentRangeError, wasmMemoryUsage } from 'cuckoo-wasm';
import type { BloomFilterOptions, CuckooFilterOptions } from 'cuckoo-wasm';
import { Key, MultisetModel, showKey } from './model';

const SOAK = process.env.CUCKOO_SOAK === '1';
const MULTIPLIER = SOAK ? 100 : 1;
const TIMEOUT = SOAK ? 48 * 3600 * 1000 : 120_000;
const runs = (n: number) => n * MULTIPLIER;
const enc = new TextEncoder();
const LN2 = Math.LN2;

class PropertyError extends Error {}

function check(condition: boolean, message: () => string): asserts condition {
  if (!condition) throw new PropertyError(message());
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** A FilterFullError of a filter that may not grow further; anything else is rethrown as the failure it is. */
function checkGrowthLimit(e: unknown, what: string): asserts e is FilterFullError {
  if (!(e instanceof FilterFullError)) throw e;
  check(e.code === 'ERR_FILTER_FULL', () => `${what}: code ${e.code}`);
  check(/cannot grow further/.test(e.message), () => `${what}: a growing filter full for another reason: ${e.message}`);
}

/**
 * True for the other refusal of a growing cuckoo filter: the key's copies (or keys sharing its
 * fingerprint) fill every slot of its buckets in the newest sub-filter (2b, or b when its two
 * buckets are one), so it refuses the key instead of growing (src/scalable_filter.h). Checks
 * that count(key) says so.
 */
function isFilledBuckets(e: unknown, f: CuckooFilter, key: Key, what: string): boolean {
  if (!(e instanceof FilterFullError) || !/copies of its fingerprint/.test(e.message)) return false;
  // Every slot of its buckets: 2b, or b when its two buckets are one.
  const c = f.count(key);
  check(c >= f.bucketSize, () => `${what}: refused for filled buckets, but count(${showKey(key)}) = ${c} < b`);
  return true;
}

function show(options: object): string {
  return JSON.stringify(options, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** m and k of a Bloom (sub-)filter for n keys at rate ε (src/bloom_filter.h). */
function bloomSizing(n: number, eps: number): { m: number; k: number } {
  const m = Math.max(1, Math.ceil((-n * Math.log(eps)) / (LN2 * LN2)));
  return { m, k: Math.max(1, Math.round((m / n) * LN2)) };
}

// ---------------------------------------------------------------------------
// What the sequences reached (reset before each property).

function newStats() {
  return {
    sequences: 0,
    commands: 0,
    maxSubs: 0,
    reached3: 0,
    reached6: 0,
    growthLimit: 0,
    deletesGrown: 0,
    roundTripsGrown: 0,
    addUniqueFalse: 0,
    unions: 0,
    filledBuckets: 0,
  };
}
let stats = newStats();

function report(name: string): typeof stats {
  const s = stats;
  console.log(
    `${name}: ${s.sequences} sequences, ${s.commands} commands; up to ${s.maxSubs} sub-filters, ` +
      `${s.reached3} sequences reached 3, ${s.reached6} reached 6; ${s.growthLimit} reached the growth limit; ` +
      `${s.deletesGrown} deletes and ${s.roundTripsGrown} round trips with 2+ sub-filters; ` +
      `${s.addUniqueFalse} addUnique that found the key; ${s.unions} unions; ` +
      `${s.filledBuckets} adds refused for filled buckets`,
  );
  return s;
}

// ---------------------------------------------------------------------------
// Keys.

const stringKey = fc.string({
  unit: fc.oneof(
    { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }), weight: 8 },
    { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }), weight: 2 },
    { arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), weight: 1 },
  ),
  maxLength: 10,
});
const bytesKey = fc.uint8Array({ maxLength: 12 });
const anyKey: fc.Arbitrary<Key> = fc.oneof(
  { arbitrary: stringKey, weight: 6 },
  { arbitrary: bytesKey, weight: 3 },
  { arbitrary: stringKey.map((s) => enc.encode(s)), weight: 2 },
);
/** A tiny alphabet: the same keys again and again, in both forms. */
const TINY: Key[] = ['', 'a', enc.encode('a'), 'b', 'é', enc.encode('é'), 'a\ud800', 'a\ufffd', new Uint8Array([0xff]), 'zz'];
const tinyKey = fc.constantFrom(...TINY);

function otherForm(key: Key): Key {
  if (typeof key === 'string') return enc.encode(key);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(key);
  } catch {
    return key;
  }
}

/** `n` keys no other command makes (a counter in the model, so that shrinking replays the same keys). */
function freshKeys(m: MultisetModel, n: number): Key[] {
  const keys: Key[] = [];
  for (let i = 0; i < n; ++i) {
    const id = m.fresh++;
    keys.push(id % 3 === 0 ? enc.encode(`fresh·${id}`) : `fresh·${id}`);
  }
  return keys;
}

/** Every key of the model is found, as bytes (hasAll, has) and as its string. */
function checkAllFound(m: MultisetModel, f: { has(k: Key): boolean; hasAll(k: Key[]): boolean[] }, after: string): void {
  const entries = [...m.keys()];
  const found = f.hasAll(entries.map((e) => e.bytes));
  entries.forEach((e, i) => {
    check(found[i], () => `after ${after}: hasAll says ${showKey(e.bytes)} is absent; the model holds it ${e.count} times`);
  });
  const texts = entries.filter((e) => e.text !== undefined).map((e) => e.text!);
  const foundText = f.hasAll(texts);
  texts.forEach((t, i) => check(foundText[i], () => `after ${after}: hasAll(${showKey(t)}) is false but its bytes are held`));
  // has() as well, on a few keys (the batch and the single call take different paths).
  for (let i = 0; i < Math.min(entries.length, 8); ++i) {
    const e = entries[(i * 7919) % entries.length];
    check(f.has(e.bytes), () => `after ${after}: has(${showKey(e.bytes)}) is false; the model holds it ${e.count} times`);
  }
}

// ---------------------------------------------------------------------------
// Cuckoo filters that grow.

type CuckooLog =
  | { op: 'add'; key: Key; ok: boolean }
  | { op: 'addAll'; keys: Key[]; added: number; full: boolean }
  | { op: 'addUnique'; key: Key; result: boolean | 'full' }
  | { op: 'delete'; key: Key };

interface CuckooReal {
  f: CuckooFilter;
  readonly options: CuckooFilterOptions;
  readonly log: CuckooLog[];
  /** Sizes of the sub-filters after the last command. */
  subSizes: number[];
  /** Geometry of sub-filter 0, which every later one follows. */
  readonly base: { capacity: number; buckets: number; bits: number; b: number; e: number };
  sawLimit: boolean;
}

function cuckooBytes(subs: { bucketCount: number; fingerprintBits: number }[], b: number): number {
  return 24 + subs.reduce((t, s) => t + 72 + Math.ceil((s.bucketCount * b * s.fingerprintBits) / 8) + 8, 0) + 8;
}

function verifyCuckoo(m: MultisetModel, r: CuckooReal, after: string): void {
  const f = r.f;
  const size = f.size;
  check(size === m.total, () => `after ${after}: size ${size} but the model holds ${m.total} keys`);
  const info = f.info();
  const subs = info.subFilters;
  const { capacity, buckets, bits, b, e } = r.base;
  check(f.subFilterCount === subs.length, () => `after ${after}: subFilterCount ${f.subFilterCount}, info has ${subs.length}`);
  check(subs.length >= r.subSizes.length, () => `after ${after}: ${subs.length} sub-filters, there were ${r.subSizes.length}`);
  let total = 0;
  subs.forEach((s, j) => {
    check(
      s.capacity === capacity * e ** j && s.bucketCount === buckets * e ** j && s.fingerprintBits === bits + j,
      () => `after ${after}: sub-filter ${j} is ${show(s)}; expected capacity ${capacity * e ** j}, ${buckets * e ** j} buckets, f = ${bits + j}`,
    );
    const occupied = Math.round(s.loadFactor * s.bucketCount * b);
    check(
      occupied === s.size - (s.victim ? 1 : 0),
      () => `after ${after}: sub-filter ${j}: loadFactor·slots = ${occupied}, size ${s.size}, victim ${s.victim}`,
    );
    // Keys go to the newest sub-filter: one that was older before this command never gains.
    if (j < r.subSizes.length - 1) {
      check(s.size <= r.subSizes[j], () => `after ${after}: sub-filter ${j} (not the newest) grew from ${r.subSizes[j]} to ${s.size}`);
    }
    total += s.size;
  });
  check(total === size, () => `after ${after}: the sub-filters hold ${total}, size is ${size}`);
  const bytes = cuckooBytes(subs, b);
  check(f.byteLength === bytes, () => `after ${after}: byteLength ${f.byteLength}, the layout gives ${bytes}`);
  checkAllFound(m, f, after);
  // count() of up to 256 keys per command, a different slice each time (all of them in small models).
  const entries = [...m.keys()];
  const step = Math.max(1, Math.floor(entries.length / 256));
  for (let i = stats.commands % step; i < entries.length; i += step) {
    const entry = entries[i];
    const c = f.count(entry.bytes);
    check(c >= entry.count, () => `after ${after}: count(${showKey(entry.bytes)}) = ${c} < ${entry.count} in the model`);
  }
  r.subSizes = subs.map((s) => s.size);
  stats.maxSubs = Math.max(stats.maxSubs, subs.length);
}

/**
 * A cuckoo filter can still grow fast: keys that share a few buckets at every level make it
 * add sub-filters each e times larger (one key repeated is refused after 2b + 1 copies, see
 * isFilledBuckets): past this many bytes, the sequence adds nothing more (the model is left
 * as it is).
 */
const MAX_BYTES = 1 << 18;

/**
 * The bytes of a cuckoo filter whose newest sub-filter has 32-bit fingerprints (it cannot
 * grow further, so an add may be refused), to compare after a refusal; else undefined: an
 * add can only be refused there.
 */
function cuckooAtLimit(r: CuckooReal): Uint8Array | undefined {
  return r.base.bits + r.f.subFilterCount - 1 === 32 ? r.f.toBytes() : undefined;
}

/** add: true if it went in; at the growth limit nothing changes. */
function cuckooAdd(m: MultisetModel, r: CuckooReal, key: Key): boolean {
  if (r.f.byteLength > MAX_BYTES) return false;
  const before = cuckooAtLimit(r);
  const size = r.f.size;
  try {
    const ret = r.f.add(key);
    check(ret === r.f, () => `add(${showKey(key)}) did not return the filter`);
  } catch (e) {
    if (isFilledBuckets(e, r.f, key, `add(${showKey(key)})`)) {
      check(r.f.size === size, () => `add(${showKey(key)}) refused, but size went from ${size} to ${r.f.size}`);
      r.log.push({ op: 'add', key, ok: false });
      stats.filledBuckets++;
      return false;
    }
    checkGrowthLimit(e, `add(${showKey(key)})`);
    check(e.added === 0, () => `add: FilterFullError.added = ${e.added}`);
    check(before !== undefined, () => `add(${showKey(key)}) refused before the growth limit (f < 32): ${e.message}`);
    check(sameBytes(before, r.f.toBytes()), () => `add(${showKey(key)}) threw FilterFullError but toBytes() changed`);
    r.log.push({ op: 'add', key, ok: false });
    r.sawLimit = true;
    return false;
  }
  m.add(key);
  r.log.push({ op: 'add', key, ok: true });
  return true;
}

async function cuckooAddAll(m: MultisetModel, r: CuckooReal, keys: Key[], what: string): Promise<void> {
  if (r.f.byteLength > MAX_BYTES) return;
  // The growth limit (f = 32) is reachable within a sequence only from f >= 26: keep the bytes to replay on.
  const before = r.base.bits >= 26 ? r.f.toBytes() : undefined;
  try {
    const n = r.f.addAll(keys);
    check(n === keys.length, () => `${what} returned ${n} for ${keys.length} keys`);
    for (const k of keys) m.add(k);
    r.log.push({ op: 'addAll', keys, added: n, full: false });
  } catch (e) {
    if (e instanceof FilterFullError && isFilledBuckets(e, r.f, keys[e.added], what)) {
      for (let i = 0; i < e.added; ++i) m.add(keys[i]);
      r.log.push({ op: 'addAll', keys, added: e.added, full: true });
      stats.filledBuckets++;
      return;
    }
    checkGrowthLimit(e, what);
    const added = e.added;
    check(added >= 0 && added < keys.length, () => `${what}: FilterFullError.added = ${added} of ${keys.length}`);
    check(
      before !== undefined && cuckooAtLimit(r) !== undefined,
      () => `${what}: refused before the growth limit (f < 32): ${e.message}`,
    );
    for (let i = 0; i < added; ++i) m.add(keys[i]);
    r.log.push({ op: 'addAll', keys, added, full: true });
    r.sawLimit = true;
    // Exactly the prefix went in: the same prefix on a copy of the filter as it was gives the same bytes.
    const copy = await CuckooFilter.fromBytes(before);
    try {
      copy.addAll(keys.slice(0, added));
      check(sameBytes(copy.toBytes(), r.f.toBytes()), () => `${what}: the filter differs from one with the ${added}-key prefix added`);
    } finally {
      copy.dispose();
    }
  }
}

type CuckooCmd = fc.AsyncCommand<MultisetModel, CuckooReal>;

abstract class CuckooBase implements CuckooCmd {
  check(_m: Readonly<MultisetModel>): boolean {
    return true;
  }
  async run(m: MultisetModel, r: CuckooReal): Promise<void> {
    stats.commands++;
    await this.apply(m, r);
    verifyCuckoo(m, r, this.toString());
  }
  abstract apply(m: MultisetModel, r: CuckooReal): Promise<void> | void;
  abstract toString(): string;
}

class CAdd extends CuckooBase {
  constructor(readonly key: Key) {
    super();
  }
  apply(m: MultisetModel, r: CuckooReal): void {
    cuckooAdd(m, r, this.key);
  }
  toString(): string {
    return `add(${showKey(this.key)})`;
  }
}

class CAddAll extends CuckooBase {
  constructor(readonly keys: Key[]) {
    super();
  }
  apply(m: MultisetModel, r: CuckooReal): Promise<void> {
    return cuckooAddAll(m, r, this.keys, this.toString());
  }
  toString(): string {
    return `addAll([${this.keys.map(showKey).join(',')}])`;
  }
}

/** Fresh keys, `permille`/1000 of the newest sub-filter's capacity (at most 4000): the filter grows by steps. */
class CAddFresh extends CuckooBase {
  constructor(readonly permille: number) {
    super();
  }
  apply(m: MultisetModel, r: CuckooReal): Promise<void> {
    const newest = r.f.info().subFilters.at(-1)!.capacity;
    const n = Math.min(4000, Math.max(1, Math.round((newest * this.permille) / 1000)));
    return cuckooAddAll(m, r, freshKeys(m, n), `${this} (${n} keys)`);
  }
  toString(): string {
    return `addFresh(${this.permille / 10}% of the newest capacity)`;
  }
}

/** One key many times (after 2b + 1 copies fill its buckets and the victim, the filter refuses it). */
class CAddCopies extends CuckooBase {
  constructor(
    readonly key: Key,
    readonly copies: number,
    readonly batch: boolean,
  ) {
    super();
  }
  async apply(m: MultisetModel, r: CuckooReal): Promise<void> {
    if (!this.batch) {
      for (let i = 0; i < this.copies; ++i) if (!cuckooAdd(m, r, i % 2 ? otherForm(this.key) : this.key)) break;
      return;
    }
    const keys = Array.from({ length: this.copies }, (_, i) => (i % 2 ? otherForm(this.key) : this.key));
    await cuckooAddAll(m, r, keys, this.toString());
  }
  toString(): string {
    return `addCopies(${showKey(this.key)}, ${this.copies}, ${this.batch ? 'addAll' : 'add'})`;
  }
}

class CAddUnique extends CuckooBase {
  constructor(readonly key: Key) {
    super();
  }
  apply(m: MultisetModel, r: CuckooReal): void {
    const k = this.key;
    if (r.f.byteLength > MAX_BYTES) return;
    const present = r.f.has(k);
    const before = present ? r.f.toBytes() : cuckooAtLimit(r);
    let result: boolean;
    try {
      result = r.f.addUnique(k);
    } catch (e) {
      checkGrowthLimit(e, `addUnique(${showKey(k)})`);
      check(!present, () => `addUnique(${showKey(k)}) threw FilterFullError although has() was true`);
      check(before !== undefined, () => `addUnique(${showKey(k)}) refused before the growth limit: ${e.message}`);
      check(sameBytes(before, r.f.toBytes()), () => `addUnique(${showKey(k)}) threw but toBytes() changed`);
      r.log.push({ op: 'addUnique', key: k, result: 'full' });
      r.sawLimit = true;
      return;
    }
    check(result === !present, () => `addUnique(${showKey(k)}) returned ${result} while has() was ${present}`);
    if (m.multiplicity(k) > 0) check(!result, () => `addUnique(${showKey(k)}) added a key the model holds`);
    if (result) m.add(k);
    else {
      check(sameBytes(before!, r.f.toBytes()), () => `addUnique(${showKey(k)}) returned false but toBytes() changed`);
      stats.addUniqueFalse++;
    }
    r.log.push({ op: 'addUnique', key: k, result });
  }
  toString(): string {
    return `addUnique(${showKey(this.key)})`;
  }
}

class CDelete extends CuckooBase {
  private deleted = '';
  constructor(
    readonly index: number,
    readonly asText: boolean,
  ) {
    super();
  }
  check(m: Readonly<MultisetModel>): boolean {
    return m.distinct > 0;
  }
  apply(m: MultisetModel, r: CuckooReal): void {
    const e = m.pick(this.index)!;
    const key = this.asText && e.text !== undefined ? e.text : e.bytes;
    this.deleted = showKey(key);
    if (r.f.subFilterCount > 1) stats.deletesGrown++;
    check(r.f.delete(key), () => `delete(${showKey(key)}) returned false; the model holds it ${e.count} times`);
    m.remove(key);
    r.log.push({ op: 'delete', key });
  }
  toString(): string {
    return `delete(${this.deleted || `model key #${this.index}`})`;
  }
}

/** Deletes many keys of the model at once (every `stride`-th), checking after each that nothing else went. */
class CDeleteMany extends CuckooBase {
  constructor(readonly stride: number) {
    super();
  }
  check(m: Readonly<MultisetModel>): boolean {
    return m.distinct > 0;
  }
  apply(m: MultisetModel, r: CuckooReal): void {
    const victims = [...m.keys()].filter((_, i) => i % this.stride === 0).map((e) => e.bytes);
    for (const key of victims) {
      if (r.f.subFilterCount > 1) stats.deletesGrown++;
      check(r.f.delete(key), () => `${this}: delete(${showKey(key)}) returned false`);
      m.remove(key);
      r.log.push({ op: 'delete', key });
    }
  }
  toString(): string {
    return `deleteMany(every ${this.stride}th model key)`;
  }
}

class CHas extends CuckooBase {
  constructor(readonly key: Key) {
    super();
  }
  apply(m: MultisetModel, r: CuckooReal): void {
    const k = this.key;
    const h = r.f.has(k);
    if (m.multiplicity(k) > 0) check(h, () => `has(${showKey(k)}) is false; the model holds it`);
    check(r.f.hasAll([k, otherForm(k)]).every((x) => x === h), () => `hasAll / the other form of ${showKey(k)} disagree with has`);
    const c = r.f.count(k);
    check(c >= m.multiplicity(k) && h === c > 0, () => `count(${showKey(k)}) = ${c}, has ${h}, model ${m.multiplicity(k)}`);
  }
  toString(): string {
    return `has/count(${showKey(this.key)})`;
  }
}

class CRoundTrip extends CuckooBase {
  async apply(_m: MultisetModel, r: CuckooReal): Promise<void> {
    const old = r.f;
    const bytes = old.toBytes();
    check(bytes.length === old.byteLength, () => `toBytes() gave ${bytes.length} bytes, byteLength ${old.byteLength}`);
    check(bytes[4] === 2 && bytes[6] === 1, () => `a growing cuckoo filter wrote version ${bytes[4]}, type ${bytes[6]}`);
    const loaded = await CuckooFilter.fromBytes(bytes);
    r.f = loaded;
    const params = (x: CuckooFilter) => show({ ...x.info(), n: x.subFilterCount, f: x.fingerprintBits, m: x.bucketCount, fpr: x.falsePositiveRate });
    const want = params(old);
    if (old.subFilterCount > 1) stats.roundTripsGrown++;
    old.dispose();
    check(params(loaded) === want, () => `fromBytes(toBytes()) has ${params(loaded)}, the original ${want}`);
    check(sameBytes(loaded.toBytes(), bytes), () => 'fromBytes(toBytes()).toBytes() differs');
  }
  toString(): string {
    return 'toBytes→fromBytes';
  }
}

async function replayCuckoo(r: CuckooReal): Promise<void> {
  const g = await CuckooFilter.create(r.options);
  try {
    r.log.forEach((e, i) => {
      const where = () => `replay of mutation #${i} (${e.op}) on a new filter with ${show(r.options)}`;
      if (e.op === 'add') {
        let ok = true;
        try {
          g.add(e.key);
        } catch (err) {
          if (!isFilledBuckets(err, g, e.key, where())) checkGrowthLimit(err, where());
          ok = false;
        }
        check(ok === e.ok, () => `${where()}: ${ok}, originally ${e.ok}`);
      } else if (e.op === 'addAll') {
        let added: number;
        try {
          added = g.addAll(e.keys);
        } catch (err) {
          if (!(err instanceof FilterFullError && isFilledBuckets(err, g, e.keys[err.added], where()))) {
            checkGrowthLimit(err, where());
          }
          added = err.added;
        }
        check(added === e.added, () => `${where()}: added ${added}, originally ${e.added}`);
      } else if (e.op === 'addUnique') {
        let result: boolean | 'full';
        try {
          result = g.addUnique(e.key);
        } catch (err) {
          checkGrowthLimit(err, where());
          result = 'full';
        }
        check(result === e.result, () => `${where()}: ${result}, originally ${e.result}`);
      } else {
        check(g.delete(e.key), () => `${where()}: delete returned false`);
      }
    });
    check(sameBytes(g.toBytes(), r.f.toBytes()), () => `replay on a new filter with ${show(r.options)}: toBytes() differs`);
  } finally {
    g.dispose();
  }
}

async function allocated(): Promise<number> {
  return (await wasmMemoryUsage()).allocatedBytes;
}

async function runCuckoo(options: CuckooFilterOptions, cmds: Iterable<CuckooCmd>): Promise<void> {
  stats.sequences++;
  const allocatedBefore = await allocated();
  const f = await CuckooFilter.create(options);
  const first = f.info().subFilters[0];
  const real: CuckooReal = {
    f,
    options,
    log: [],
    subSizes: [0],
    base: { capacity: first.capacity, buckets: first.bucketCount, bits: first.fingerprintBits, b: f.bucketSize, e: options.expansion! },
    sawLimit: false,
  };
  try {
    await fc.asyncModelRun(() => ({ model: new MultisetModel(), real }), cmds);
    await replayCuckoo(real);
  } finally {
    real.f.dispose();
  }
  const leaked = (await allocated()) - allocatedBefore;
  check(leaked === 0, () => `${leaked} bytes of WebAssembly memory still allocated after the sequence`);
  if (real.subSizes.length >= 3) stats.reached3++;
  if (real.subSizes.length >= 6) stats.reached6++;
  if (real.sawLimit) stats.growthLimit++;
}

const seedArb = fc.oneof(fc.constant(undefined), fc.nat(), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }));

function cuckooOptions(bits: fc.Arbitrary<number>): fc.Arbitrary<CuckooFilterOptions> {
  return fc.record({
    capacity: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 12 }), weight: 3 }, { arbitrary: fc.integer({ min: 13, max: 40 }), weight: 1 }),
    fingerprintBits: bits,
    bucketSize: fc.constantFrom<2 | 4 | 8>(2, 4, 8),
    maxKicks: fc.constantFrom(0, 1, 10, 500, 500),
    seed: seedArb,
    expansion: fc.integer({ min: 2, max: 4 }),
  });
}
/** Mostly 4 to 6 bits (many collisions, many levels); some 29 to 32, which reach the 32-bit growth limit in a few levels. */
const cuckooBits = fc.oneof({ arbitrary: fc.integer({ min: 4, max: 6 }), weight: 6 }, { arbitrary: fc.integer({ min: 29, max: 32 }), weight: 2 });

function cuckooCommands(key: fc.Arbitrary<Key>, maxCommands: number): fc.Arbitrary<Iterable<CuckooCmd>> {
  return fc.commands<MultisetModel, CuckooReal, false>(
    [
      key.map((k) => new CAdd(k)),
      fc.array(key, { maxLength: 24 }).map((ks) => new CAddAll(ks)),
      fc.integer({ min: 100, max: 1500 }).map((p) => new CAddFresh(p)),
      fc.integer({ min: 1000, max: 4000 }).map((p) => new CAddFresh(p)),
      fc.tuple(key, fc.integer({ min: 2, max: 12 }), fc.boolean()).map(([k, n, b]) => new CAddCopies(k, n, b)),
      key.map((k) => new CAddUnique(k)),
      fc.tuple(fc.nat(), fc.boolean()).map(([i, t]) => new CDelete(i, t)),
      fc.tuple(fc.nat(), fc.boolean()).map(([i, t]) => new CDelete(i, t)),
      fc.integer({ min: 1, max: 4 }).map((s) => new CDeleteMany(s)),
      key.map((k) => new CHas(k)),
      fc.constant(new CRoundTrip()),
    ],
    { maxCommands, size: 'max' },
  );
}

// ---------------------------------------------------------------------------
// Bloom filters that grow.

type BloomLog = { op: 'add'; key: Key; ok: boolean } | { op: 'addAll'; keys: Key[]; added: number } | { op: 'unionSelf' };

interface BloomReal {
  f: BloomFilter;
  readonly options: BloomFilterOptions;
  readonly log: BloomLog[];
  subCount: number;
  /** A union happened: sub-filters may hold more than their capacity. */
  united: boolean;
  sawLimit: boolean;
}

function verifyBloom(m: MultisetModel, r: BloomReal, after: string): void {
  const f = r.f;
  const { capacity, expansion } = r.options;
  const eps = r.options.falsePositiveRate!;
  const e = expansion ?? 0;
  check(f.size === m.total, () => `after ${after}: size ${f.size} but the model holds ${m.total} keys`);
  const info = f.info();
  const subs = info.subFilters;
  check(subs.length === f.subFilterCount && subs.length >= r.subCount, () => `after ${after}: ${subs.length} sub-filters, ${r.subCount} before`);
  check(e !== 0 || subs.length === 1, () => `after ${after}: a filter without growth has ${subs.length} sub-filters`);
  let total = 0;
  subs.forEach((s, j) => {
    const rate = e === 0 ? eps : eps / 2 ** (j + 1);
    const { m: bits, k } = bloomSizing(s.capacity, rate);
    check(
      s.capacity === capacity * Math.max(e, 1) ** j && s.falsePositiveRate === rate && s.bitCount === bits && s.hashCount === k,
      () => `after ${after}: sub-filter ${j} is ${show(s)}; expected capacity ${capacity * e ** j}, ε ${rate}, m ${bits}, k ${k}`,
    );
    if (e !== 0 && !r.united) {
      // A new sub-filter when the newest holds its capacity: older ones are exactly full.
      const last = j === subs.length - 1;
      check(
        last ? s.size <= s.capacity && (j === 0 || s.size >= 1) : s.size === s.capacity,
        () => `after ${after}: sub-filter ${j} of ${subs.length} holds ${s.size} of its capacity ${s.capacity}`,
      );
    }
    total += s.size;
  });
  check(total === f.size, () => `after ${after}: the sub-filters hold ${total}, size is ${f.size}`);
  const bytes = 24 + subs.reduce((t, s) => t + 48 + Math.ceil(s.bitCount / 64) * 8, 0) + 8;
  check(f.byteLength === bytes, () => `after ${after}: byteLength ${f.byteLength}, the layout gives ${bytes}`);
  if (e !== 0 && !r.united) {
    // Rounding k to an integer may put a sub-filter a little over its share ε/2^(j+1) at capacity (by
    // at most 0.2% of ε over all sub-filters, for the options tried): the promise holds to 1%.
    check(info.expectedFalsePositiveRate <= eps * 1.01, () => `after ${after}: expected rate ${info.expectedFalsePositiveRate} > ε ${eps}`);
  }
  checkAllFound(m, f, after);
  r.subCount = subs.length;
  stats.maxSubs = Math.max(stats.maxSubs, subs.length);
}

/**
 * True if the next add must be refused: the newest sub-filter holds its capacity and the
 * next one would need more than 64 hash functions (no ε in these tests comes near 2^32 bits).
 */
function bloomAtLimit(r: BloomReal): boolean {
  const e = r.options.expansion;
  if (e === undefined) return false;
  const newest = r.f.info().subFilters.at(-1)!;
  return newest.size >= newest.capacity && bloomSizing(newest.capacity * e, newest.falsePositiveRate / 2).k > 64;
}

function bloomAdd(m: MultisetModel, r: BloomReal, key: Key): boolean {
  if (r.f.byteLength > MAX_BYTES) return false;
  const limit = bloomAtLimit(r);
  const before = limit ? r.f.toBytes() : undefined;
  try {
    check(r.f.add(key) === r.f, () => `add(${showKey(key)}) did not return the filter`);
    check(!limit, () => `add(${showKey(key)}) was accepted although the next sub-filter would need k > 64`);
  } catch (e) {
    checkGrowthLimit(e, `add(${showKey(key)})`);
    check(before !== undefined, () => `add(${showKey(key)}) refused before the growth limit: ${e.message}`);
    check(sameBytes(before, r.f.toBytes()), () => `add(${showKey(key)}) threw FilterFullError but toBytes() changed`);
    r.log.push({ op: 'add', key, ok: false });
    r.sawLimit = true;
    return false;
  }
  m.add(key);
  r.log.push({ op: 'add', key, ok: true });
  return true;
}

function bloomAddAll(m: MultisetModel, r: BloomReal, keys: Key[], what: string): void {
  if (r.f.byteLength > MAX_BYTES) return;
  let added: number;
  try {
    added = r.f.addAll(keys);
    check(added === keys.length, () => `${what} returned ${added} for ${keys.length} keys`);
  } catch (e) {
    checkGrowthLimit(e, what);
    added = e.added;
    check(added >= 0 && added < keys.length, () => `${what}: FilterFullError.added = ${added} of ${keys.length}`);
    for (let i = 0; i < added; ++i) m.add(keys[i]);
    check(bloomAtLimit(r), () => `${what}: refused after ${added} keys, before the growth limit: ${e.message}`);
    r.log.push({ op: 'addAll', keys, added });
    r.sawLimit = true;
    return;
  }
  for (let i = 0; i < added; ++i) m.add(keys[i]);
  r.log.push({ op: 'addAll', keys, added });
}

type BloomCmd = fc.AsyncCommand<MultisetModel, BloomReal>;

abstract class BloomBase implements BloomCmd {
  check(_m: Readonly<MultisetModel>): boolean {
    return true;
  }
  async run(m: MultisetModel, r: BloomReal): Promise<void> {
    stats.commands++;
    await this.apply(m, r);
    verifyBloom(m, r, this.toString());
  }
  abstract apply(m: MultisetModel, r: BloomReal): Promise<void> | void;
  abstract toString(): string;
}

class BAdd extends BloomBase {
  constructor(readonly key: Key) {
    super();
  }
  apply(m: MultisetModel, r: BloomReal): void {
    bloomAdd(m, r, this.key);
  }
  toString(): string {
    return `add(${showKey(this.key)})`;
  }
}

class BAddAll extends BloomBase {
  constructor(readonly keys: Key[]) {
    super();
  }
  apply(m: MultisetModel, r: BloomReal): void {
    bloomAddAll(m, r, this.keys, this.toString());
  }
  toString(): string {
    return `addAll([${this.keys.map(showKey).join(',')}])`;
  }
}

class BAddFresh extends BloomBase {
  constructor(readonly permille: number) {
    super();
  }
  apply(m: MultisetModel, r: BloomReal): void {
    const newest = r.f.info().subFilters.at(-1)!.capacity;
    const n = Math.min(4000, Math.max(1, Math.round((newest * this.permille) / 1000)));
    bloomAddAll(m, r, freshKeys(m, n), `${this} (${n} keys)`);
  }
  toString(): string {
    return `addFresh(${this.permille / 10}% of the newest capacity)`;
  }
}

class BAddCopies extends BloomBase {
  constructor(
    readonly key: Key,
    readonly copies: number,
    readonly batch: boolean,
  ) {
    super();
  }
  apply(m: MultisetModel, r: BloomReal): void {
    if (!this.batch) {
      for (let i = 0; i < this.copies; ++i) if (!bloomAdd(m, r, i % 2 ? otherForm(this.key) : this.key)) break;
      return;
    }
    bloomAddAll(m, r, Array.from({ length: this.copies }, (_, i) => (i % 2 ? otherForm(this.key) : this.key)), this.toString());
  }
  toString(): string {
    return `addCopies(${showKey(this.key)}, ${this.copies}, ${this.batch ? 'addAll' : 'add'})`;
  }
}

class BHas extends BloomBase {
  constructor(readonly key: Key) {
    super();
  }
  apply(m: MultisetModel, r: BloomReal): void {
    const k = this.key;
    const h = r.f.has(k);
    if (m.multiplicity(k) > 0) check(h, () => `has(${showKey(k)}) is false; the model holds it`);
    check(r.f.hasAll([k, otherForm(k)]).every((x) => x === h), () => `hasAll / the other form of ${showKey(k)} disagree with has`);
  }
  toString(): string {
    return `has(${showKey(this.key)})`;
  }
}

/** union with a copy of itself: the same bits, every key counted twice. */
class BUnionSelf extends BloomBase {
  async apply(m: MultisetModel, r: BloomReal): Promise<void> {
    const copy = await BloomFilter.fromBytes(r.f.toBytes());
    try {
      check(r.f.isCompatible(copy), () => 'a filter is not compatible with its own copy');
      const sets = r.f.info().subFilters.map((s) => s.setBitCount);
      check(r.f.union(copy) === r.f, () => 'union did not return the filter');
      const after = r.f.info().subFilters.map((s) => s.setBitCount);
      check(sets.join() === after.join(), () => `union with its copy changed the set bits: ${sets} → ${after}`);
    } finally {
      copy.dispose();
    }
    for (const e of [...m.keys()]) m.add(e.bytes, e.count);
    r.log.push({ op: 'unionSelf' });
    r.united = true;
    stats.unions++;
  }
  toString(): string {
    return 'union(copy of itself)';
  }
}

class BRoundTrip extends BloomBase {
  async apply(_m: MultisetModel, r: BloomReal): Promise<void> {
    const old = r.f;
    const bytes = old.toBytes();
    check(bytes.length === old.byteLength && bytes[4] === 3 && bytes[6] === 2, () => `toBytes(): ${bytes.length} bytes, version ${bytes[4]}, type ${bytes[6]}`);
    const loaded = await BloomFilter.fromBytes(bytes);
    r.f = loaded;
    const params = (x: BloomFilter) => show({ ...x.info(), n: x.subFilterCount });
    const want = params(old);
    if (old.subFilterCount > 1) stats.roundTripsGrown++;
    old.dispose();
    check(params(loaded) === want, () => `fromBytes(toBytes()) has ${params(loaded)}, the original ${want}`);
    check(sameBytes(loaded.toBytes(), bytes), () => 'fromBytes(toBytes()).toBytes() differs');
  }
  toString(): string {
    return 'toBytes→fromBytes';
  }
}

async function replayBloom(r: BloomReal): Promise<void> {
  const g = await BloomFilter.create(r.options);
  try {
    for (const [i, e] of r.log.entries()) {
      const where = () => `replay of mutation #${i} (${e.op}) on a new filter with ${show(r.options)}`;
      if (e.op === 'add') {
        let ok = true;
        try {
          g.add(e.key);
        } catch (err) {
          checkGrowthLimit(err, where());
          ok = false;
        }
        check(ok === e.ok, () => `${where()}: ${ok}, originally ${e.ok}`);
      } else if (e.op === 'addAll') {
        let added: number;
        try {
          added = g.addAll(e.keys);
        } catch (err) {
          checkGrowthLimit(err, where());
          added = err.added;
        }
        check(added === e.added, () => `${where()}: added ${added}, originally ${e.added}`);
      } else {
        const copy = await BloomFilter.fromBytes(g.toBytes());
        g.union(copy);
        copy.dispose();
      }
    }
    check(sameBytes(g.toBytes(), r.f.toBytes()), () => `replay on a new filter with ${show(r.options)}: toBytes() differs`);
  } finally {
    g.dispose();
  }
}

async function runBloom(options: BloomFilterOptions, cmds: Iterable<BloomCmd>): Promise<void> {
  stats.sequences++;
  const allocatedBefore = await allocated();
  const real: BloomReal = { f: await BloomFilter.create(options), options, log: [], subCount: 1, united: false, sawLimit: false };
  try {
    await fc.asyncModelRun(() => ({ model: new MultisetModel(), real }), cmds);
    await replayBloom(real);
  } finally {
    real.f.dispose();
  }
  const leaked = (await allocated()) - allocatedBefore;
  check(leaked === 0, () => `${leaked} bytes of WebAssembly memory still allocated after the sequence`);
  if (real.subCount >= 3) stats.reached3++;
  if (real.subCount >= 6) stats.reached6++;
  if (real.sawLimit) stats.growthLimit++;
}

/**
 * ε: ordinary rates, and 1e-18, whose sub-filter 4 would need 65 hash functions (the growth
 * limit after 4 sub-filters: at most 40·(1 + 4 + 16 + 64) keys).
 */
const bloomOptions: fc.Arbitrary<BloomFilterOptions> = fc.record({
  capacity: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 12 }), weight: 3 }, { arbitrary: fc.integer({ min: 13, max: 40 }), weight: 1 }),
  falsePositiveRate: fc.constantFrom(0.5, 0.2, 0.05, 0.01, 0.001, 1e-18, 1e-18),
  seed: seedArb,
  expansion: fc.oneof({ arbitrary: fc.integer({ min: 2, max: 4 }), weight: 8 }, { arbitrary: fc.constant(undefined), weight: 1 }),
});

function bloomCommands(key: fc.Arbitrary<Key>, maxCommands: number): fc.Arbitrary<Iterable<BloomCmd>> {
  return fc.commands<MultisetModel, BloomReal, false>(
    [
      key.map((k) => new BAdd(k)),
      fc.array(key, { maxLength: 24 }).map((ks) => new BAddAll(ks)),
      fc.integer({ min: 100, max: 1500 }).map((p) => new BAddFresh(p)),
      fc.integer({ min: 1000, max: 4000 }).map((p) => new BAddFresh(p)),
      fc.tuple(key, fc.integer({ min: 2, max: 40 }), fc.boolean()).map(([k, n, b]) => new BAddCopies(k, n, b)),
      key.map((k) => new BHas(k)),
      fc.constant(new BRoundTrip()),
      fc.constant(new BUnionSelf()),
    ],
    { maxCommands, size: 'max' },
  );
}

// ---------------------------------------------------------------------------
// The properties.

/** Grows the library's scratch regions first, so that a leak shows as a change in allocated bytes. */
async function warmUp(): Promise<void> {
  const keys = Array.from({ length: 3000 }, (_, i) => `warm·${i}`);
  const f = await CuckooFilter.create({ capacity: 4000 });
  f.addAll(keys);
  f.hasAll(keys);
  f.dispose();
  const g = await BloomFilter.create({ capacity: 10 });
  g.addAll(keys);
  g.hasAll(keys);
  g.dispose();
}

describe('model-based properties of growing filters (fast-check)', () => {
  beforeAll(warmUp);
  beforeEach(() => {
    stats = newStats();
  });

  test(
    'cuckoo: random sequences through many sub-filters agree with a multiset model',
    async () => {
      await fc.assert(fc.asyncProperty(cuckooOptions(cuckooBits), cuckooCommands(anyKey, 30), runCuckoo), { numRuns: runs(100) });
      const s = report('cuckoo, random keys');
      expect(s.sequences).toBe(runs(100));
      // Floors about a third of the least each reached in 20 runs (38, 4, 7, 3890, 60), so that they hold.
      expect(s.reached3).toBeGreaterThanOrEqual(runs(13));
      expect(s.reached6).toBeGreaterThanOrEqual(runs(1));
      expect(s.growthLimit).toBeGreaterThanOrEqual(runs(2));
      expect(s.deletesGrown).toBeGreaterThanOrEqual(runs(1000));
      expect(s.roundTripsGrown).toBeGreaterThanOrEqual(runs(20));
    },
    TIMEOUT,
  );

  test(
    'cuckoo: a tiny alphabet, 4-bit fingerprints: keys that collide in every sub-filter, added and deleted',
    async () => {
      const options = cuckooOptions(fc.constantFrom(4, 4, 5));
      await fc.assert(fc.asyncProperty(options, cuckooCommands(tinyKey, 40), runCuckoo), { numRuns: runs(60) });
      const s = report('cuckoo, tiny alphabet');
      expect(s.sequences).toBe(runs(60));
      // Least in 20 runs: 37, 9, 13871, 45.
      expect(s.reached3).toBeGreaterThanOrEqual(runs(12));
      expect(s.reached6).toBeGreaterThanOrEqual(runs(3));
      expect(s.deletesGrown).toBeGreaterThanOrEqual(runs(4000));
      expect(s.addUniqueFalse).toBeGreaterThanOrEqual(runs(15));
    },
    TIMEOUT,
  );

  test(
    'Bloom: random sequences through many sub-filters agree with a multiset model',
    async () => {
      await fc.assert(fc.asyncProperty(bloomOptions, bloomCommands(anyKey, 30), runBloom), { numRuns: runs(100) });
      const s = report('Bloom, random keys');
      expect(s.sequences).toBe(runs(100));
      // Least in 20 runs: 64, 20, 9, 108, 125.
      expect(s.reached3).toBeGreaterThanOrEqual(runs(21));
      expect(s.reached6).toBeGreaterThanOrEqual(runs(7));
      expect(s.growthLimit).toBeGreaterThanOrEqual(runs(3));
      expect(s.roundTripsGrown).toBeGreaterThanOrEqual(runs(36));
      expect(s.unions).toBeGreaterThanOrEqual(runs(40));
    },
    TIMEOUT,
  );

  test(
    'Bloom: a tiny alphabet, heavy duplicates',
    async () => {
      await fc.assert(fc.asyncProperty(bloomOptions, bloomCommands(tinyKey, 30), runBloom), { numRuns: runs(40) });
      const s = report('Bloom, tiny alphabet');
      expect(s.sequences).toBe(runs(40));
      // Least in 20 runs: 25, 2.
      expect(s.reached3).toBeGreaterThanOrEqual(runs(8));
      expect(s.growthLimit).toBeGreaterThanOrEqual(runs(1));
    },
    TIMEOUT,
  );
});

// ---------------------------------------------------------------------------
// Deterministic tests of growing cuckoo filters.

const keysOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}.example`);

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('growing cuckoo filters', () => {
  test('expansion: an integer 2..1024, checked like every option', async () => {
    for (const v of [0, 1, -2, 2.5, 1025, NaN, Infinity]) {
      const p = CuckooFilter.create({ capacity: 10, expansion: v });
      await expect(p).rejects.toBeInstanceOf(ArgumentRangeError);
      await expect(p).rejects.toThrow(/^expansion must be an integer from 2 to 1024, got /);
    }
    for (const v of ['2', null, 2n]) {
      const p = CuckooFilter.create({ capacity: 10, expansion: v as never });
      await expect(p).rejects.toBeInstanceOf(ArgumentTypeError);
      await expect(p).rejects.toThrow(/^expansion must be a number, got /);
    }
    for (const e of [2, 1024]) {
      const f = await CuckooFilter.create({ capacity: 10, expansion: e });
      expect([f.expansion, f.subFilterCount]).toEqual([e, 1]);
      f.dispose();
    }
  });

  test('bytes: version 1 without growth (as before), version 2 of type cuckoo with it, grown or not', async () => {
    const plain = await CuckooFilter.create({ capacity: 100 });
    const growing = await CuckooFilter.create({ capacity: 100, expansion: 2 });
    for (const f of [plain, growing]) f.addAll(keysOf('v', 50));
    const v1 = plain.toBytes();
    const v2 = growing.toBytes();
    expect([v1[4], v1[5], plain.expansion]).toEqual([1, 0, 0]);
    expect([v2[4], v2[5], v2[6], v2[7]]).toEqual([2, 0, 1, 1]); // version 2, type cuckoo, one sub-filter
    expect(new DataView(v2.buffer).getUint32(8, true)).toBe(2); // expansion
    // A growing filter's sub-filter 0 is a version-1 file inside the stack, 24 bytes in.
    expect(v2.length).toBe(24 + growing.info().subFilters[0].byteLength + 8);
    expect(Buffer.from(v2.subarray(24, 28)).toString('latin1')).toBe('CKOO');
  });

  test('sub-filter j: e^j times the buckets and capacity, f + j bits; f sized for ε/2 and the bound is twice the first', async () => {
    const f = await CuckooFilter.create({ capacity: 200, falsePositiveRate: 0.01, expansion: 3 });
    // Without growth ε = 1% gives f = 10 (8/1024); with growth the first sub-filter gets ε/2: f = 11.
    expect(f.fingerprintBits).toBe(11);
    expect(f.falsePositiveRate).toBe((2 * 8) / 2 ** 11);
    expect(f.falsePositiveRate).toBeLessThanOrEqual(0.01);
    const plain = await CuckooFilter.create({ capacity: 200, falsePositiveRate: 0.01 });
    expect(plain.fingerprintBits).toBe(10);
    plain.dispose();
    const keys = keysOf('geo', 3000);
    expect(f.addAll(keys)).toBe(3000);
    const subs = f.info().subFilters;
    expect(subs.length).toBe(3);
    subs.forEach((s, j) => {
      expect([s.capacity, s.bucketCount, s.fingerprintBits]).toEqual([200 * 3 ** j, f.bucketCount * 3 ** j, 11 + j]);
    });
    // Growth happens only when an insert fails: the older sub-filters are (nearly) full.
    expect(subs[0].loadFactor).toBeGreaterThan(0.9);
    expect(subs[1].loadFactor).toBeGreaterThan(0.9);
    expect(f.hasAll(keys).every(Boolean)).toBe(true);
    // The rate measured over all sub-filters stays under the bound.
    const measured = f.hasAll(keysOf('absent', 100_000)).filter(Boolean).length / 100_000;
    expect(measured).toBeLessThan(f.falsePositiveRate);
    expect(f.expectedFalsePositiveRate).toBeLessThan(f.falsePositiveRate);
    f.dispose();
  });

  test('info(): the statistics add up over the sub-filters', async () => {
    const f = await CuckooFilter.create({ capacity: 30, fingerprintBits: 8, bucketSize: 2, maxKicks: 20, seed: 5, expansion: 2 });
    f.addAll(keysOf('info', 400));
    for (let i = 0; i < 400; i += 5) f.delete(`info-${i}.example`);
    const info = f.info();
    const subs = info.subFilters;
    expect(subs.length).toBeGreaterThanOrEqual(3);
    expect(info).toMatchObject({
      type: 'cuckoo',
      capacity: 30,
      size: 320,
      bucketSize: 2,
      maxKicks: 20,
      seed: 5n,
      expansion: 2,
      byteLength: f.byteLength,
      loadFactor: f.loadFactor,
      falsePositiveRate: (2 * 2) / 2 ** 8 * 2,
    });
    expect(subs.reduce((t, s) => t + s.size, 0)).toBe(320);
    const slots = subs.reduce((t, s) => t + s.bucketCount * 2, 0);
    const stored = subs.reduce((t, s) => t + s.size - (s.victim ? 1 : 0), 0);
    expect(info.loadFactor).toBeCloseTo(stored / slots, 12);
    expect(info.bitsPerItem).toBeCloseTo((info.byteLength * 8) / subs.reduce((t, s) => t + s.capacity, 0), 10);
    expect(info.byteLength).toBe(24 + subs.reduce((t, s) => t + s.byteLength, 0) + 8);
    subs.forEach((s) => expect(s.byteLength).toBe(80 + Math.ceil((s.bucketCount * 2 * s.fingerprintBits) / 8)));
    // The victim is compared only when its bucket is one of the lookup's two (FORMAT.md §5.3).
    const none = subs.reduce(
      (p, s) => p * (1 - 1 / (2 ** s.fingerprintBits - 1)) ** (4 * s.loadFactor + (s.victim ? Math.min(1, 2 / s.bucketCount) : 0)),
      1,
    );
    expect(info.expectedFalsePositiveRate).toBeCloseTo(1 - none, 12);
    f.dispose();
  });

  test('expectedFalsePositiveRate is the measured rate of a full filter (victims in use), with and without growth', async () => {
    // b = 2: a victim in use counted as always compared would overstate the rate by 1/(2bα + 1), ~25%.
    for (const expansion of [undefined, 2]) {
      const f = await CuckooFilter.create({ capacity: 20_000, fingerprintBits: 8, bucketSize: 2, expansion, seed: 1 });
      const keys = keysOf('full', 60_000);
      if (expansion === undefined) {
        expect(() => f.addAll(keys)).toThrow(FilterFullError);
      } else {
        f.addAll(keys);
        expect(f.subFilterCount).toBe(2);
      }
      const subs = f.info().subFilters;
      expect(subs[0].victim).toBe(true);
      const probes = keysOf('probe', 300_000);
      const measured = f.hasAll(probes).filter(Boolean).length / probes.length;
      const expected = f.expectedFalsePositiveRate;
      // 4σ of the binomial, and 2% for the approximations of the formula.
      const sigma = Math.sqrt((expected * (1 - expected)) / probes.length);
      expect([expansion, Math.abs(measured - expected) <= 4 * sigma + 0.02 * expected]).toEqual([expansion, true]);
      f.dispose();
    }
  });

  test('deleting every key, in a random order, from a filter of 4-bit fingerprints and many sub-filters never loses another', async () => {
    // With 4-bit fingerprints in 1-bucket sub-filters, most keys share a fingerprint and a
    // bucket with others at the lower levels: deleting from the wrong sub-filter would take a
    // fingerprint another key needs.
    const f = await CuckooFilter.create({ capacity: 3, fingerprintBits: 4, bucketSize: 4, expansion: 2, seed: 17 });
    const keys = keysOf('del', 1500);
    const copies = new Map<string, number>();
    for (const [i, k] of keys.entries()) {
      const n = i % 10 === 0 ? 3 : 1; // some keys several times
      for (let c = 0; c < n; c++) f.add(k);
      copies.set(k, n);
    }
    expect(f.subFilterCount).toBeGreaterThanOrEqual(8);
    // A fixed shuffle: deletes reach every sub-filter, oldest and newest mixed.
    const order = [...copies.entries()].flatMap(([k, n]) => Array<string>(n).fill(k));
    let seed = 7;
    for (let i = order.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const j = seed % (i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    let lost = 0;
    for (const [i, k] of order.entries()) {
      expect(f.delete(k)).toBe(true);
      copies.set(k, copies.get(k)! - 1);
      if (copies.get(k) === 0) copies.delete(k);
      if (i % 25 === 0 || i > order.length - 50) {
        const held = [...copies.keys()];
        lost += f.hasAll(held).filter((x) => !x).length;
        for (const [key, n] of [...copies.entries()].slice(0, 40)) expect(f.count(key)).toBeGreaterThanOrEqual(n);
      }
    }
    expect(lost).toBe(0);
    // Every delete removed exactly one fingerprint: the filter is empty and finds nothing.
    expect(f.size).toBe(0);
    expect(f.hasAll(keys).some(Boolean)).toBe(false);
    f.dispose();
  });

  test('the growth limit (fingerprints would pass 32 bits): FilterFullError, nothing lost; deleting from the newest makes room', async () => {
    const f = await CuckooFilter.create({ capacity: 4, fingerprintBits: 30, expansion: 2 });
    const added: string[] = [];
    let error: unknown;
    for (let i = 0; i < 10_000 && error === undefined; i++) {
      try {
        f.add(`lim-${i}`);
        added.push(`lim-${i}`);
      } catch (e) {
        error = e;
      }
    }
    expect(error).toBeInstanceOf(FilterFullError);
    const e = error as FilterFullError;
    expect(e.code).toBe('ERR_FILTER_FULL');
    expect(e.message).toMatch(/^the filter is full and cannot grow further \(3 sub-filters, \d+ bytes; at most 32 sub-filters, 32-bit fingerprints/);
    expect(f.info().subFilters.map((s) => s.fingerprintBits)).toEqual([30, 31, 32]);
    expect(f.size).toBe(added.length);
    expect(f.hasAll(added).every(Boolean)).toBe(true);
    const before = f.toBytes();
    expect(() => f.add('still too many')).toThrow(FilterFullError);
    expect(() => f.addUnique('still too many')).toThrow(FilterFullError);
    const batch = thrown(() => f.addAll(['x1', 'x2'])) as FilterFullError;
    expect([batch instanceof FilterFullError, batch.added]).toEqual([true, 0]);
    expect(Buffer.from(f.toBytes()).equals(Buffer.from(before))).toBe(true);
    // The most recent keys went to the newest sub-filter: deleting one frees a slot there.
    const newest = () => f.info().subFilters[2].size;
    const n = newest();
    expect(f.delete(added.at(-1)!)).toBe(true);
    expect(newest()).toBe(n - 1);
    expect(f.add('room again').has('room again')).toBe(true);
    // A filter whose first sub-filter already has 32-bit fingerprints cannot grow at all.
    const g = await CuckooFilter.create({ capacity: 4, fingerprintBits: 32, expansion: 2 });
    expect(() => g.addAll(keysOf('g', 100))).toThrow(/cannot grow further \(1 sub-filters/);
    expect(g.subFilterCount).toBe(1);
    f.dispose();
    g.dispose();
  });

  test('a full filter without growth still says what to do: a larger capacity (not the growth message)', async () => {
    const f = await CuckooFilter.create({ capacity: 10, fingerprintBits: 16 });
    const e = thrown(() => f.addAll(keysOf('full', 1000))) as FilterFullError;
    expect(e).toBeInstanceOf(FilterFullError);
    expect(e.message).toMatch(/^the filter is full \(\d+ fingerprints in \d+ slots, capacity 10\)/);
    expect(e.message).not.toMatch(/grow/);
    f.dispose();
  });
});

describe('addUnique', () => {
  test('adds only when has() is false: true once, then false; count stays 1; with and without growth', async () => {
    for (const expansion of [undefined, 2]) {
      const f = await CuckooFilter.create({ capacity: 1000, expansion });
      expect(f.addUnique('once')).toBe(true);
      expect(f.addUnique('once')).toBe(false);
      expect(f.addUnique(enc.encode('once'))).toBe(false); // the same key as bytes
      expect([f.count('once'), f.size]).toEqual([1, 1]);
      f.add('twice').add('twice');
      expect(f.addUnique('twice')).toBe(false);
      expect(f.count('twice')).toBe(2);
      const keys = keysOf('u', 500);
      expect(keys.map((k) => f.addUnique(k)).filter(Boolean).length).toBeGreaterThan(490); // a few false positives at most
      expect(f.hasAll(keys).every(Boolean)).toBe(true);
      expect(keys.map((k) => f.addUnique(k)).some(Boolean)).toBe(false);
      f.dispose();
    }
  });

  test('a false positive is not added (the documented caveat): addUnique returns false for a key never added', async () => {
    const f = await CuckooFilter.create({ capacity: 4, fingerprintBits: 4 });
    f.add('A');
    let b: string | undefined;
    for (let i = 0; i < 100_000 && b === undefined; i++) if (f.has(`B${i}`)) b = `B${i}`;
    expect(b).toBeDefined();
    const before = f.toBytes();
    expect(f.addUnique(b!)).toBe(false);
    expect(Buffer.from(f.toBytes()).equals(Buffer.from(before))).toBe(true);
    expect(f.size).toBe(1);
    f.dispose();
  });

  test('errors as add: FilterFullError (nothing changes), ArgumentTypeError, FilterDisposedError', async () => {
    const f = await CuckooFilter.create({ capacity: 10, fingerprintBits: 16 });
    let added = 0;
    for (let i = 0; i < 1000; i++) {
      try {
        f.addUnique(`fill-${i}`);
        added++;
      } catch (e) {
        expect(e).toBeInstanceOf(FilterFullError);
        break;
      }
    }
    expect(f.size).toBe(added);
    const before = f.toBytes();
    expect(() => f.addUnique('fill-next')).toThrow(FilterFullError);
    expect(f.addUnique('fill-0')).toBe(false); // present: no insert is tried, so no error
    expect(Buffer.from(f.toBytes()).equals(Buffer.from(before))).toBe(true);
    for (const junk of [undefined, null, 5, {}, new Uint16Array(2)]) {
      expect(() => f.addUnique(junk as never)).toThrow(ArgumentTypeError);
      expect(() => f.addUnique(junk as never)).toThrow(/^key must be a string or a Uint8Array, got /);
    }
    f.dispose();
    expect(() => f.addUnique('x')).toThrow(FilterDisposedError);
    const g = await CuckooFilter.create({ capacity: 10, expansion: 2 });
    g.addAll(keysOf('g', 100));
    g.dispose();
    for (const call of [() => g.addUnique('x'), () => g.info(), () => g.subFilterCount, () => g.expectedFalsePositiveRate, () => g.bitsPerItem, () => g.byteLength]) {
      expect(call).toThrow(FilterDisposedError);
    }
  });
});
