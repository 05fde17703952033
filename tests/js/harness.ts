// The model-based harness (fast-check) for every family of families.ts:
// random sequences of add, addAll, addUnique, has, hasAll, delete, count,
// union and toBytes → fromBytes round trips, each command run on the filter
// and on a multiset model (model.ts), the filter checked after every command.
// property.test.ts runs it over KEY_FAMILIES, the Redis families included; a
// command a family lacks (its registry row's `can`: delete, count and addUnique
// are the cuckoo families', addNew RedisBloom's, union this library's Bloom's)
// is not generated for it. What only one family's filters have (sub-filter
// layouts, the victim slot, refusal rules, BF.ADD's answer) is checked through
// the filter's class (instanceof), never a cast.
//
// After every command:
//   - every key the model holds is found, by has() and hasAll(), as bytes and as its string
//     (no false negative, ever, also after deletes and growth);
//   - size is the model's total (RedisBloom, whose add of a key it has changes nothing: the adds
//     that answered 'new', at most the distinct keys); count(k) >= the model's multiplicity;
//     has(k) === (count(k) > 0); has / count of a string === of its UTF-8 bytes;
//   - the sub-filters are what the docs promise: sub-filter j of a growing cuckoo filter has
//     e^j times the capacity and buckets and j more fingerprint bits, its loadFactor·slots is
//     its size (less the victim); a Bloom sub-filter has m and k from the formula at ε/2^(j+1)
//     (ε without growth); sizes add up; only the newest gains keys; byteLength is the layout's;
//   - a cuckoo filter that does not grow: loadFactor·slots is size or size − 1 (the victim);
//   - a Redis filter: INFO's counts are size and subFilterCount, at most 255 sub-filters (1 without
//     growth), INFO's memory figure and byteLength are the layout's (docs/FORMAT.md §15, §16);
//     RedisCuckoo's sub-filters follow n0·E^j buckets and shrink only by a delete's compaction
//     (which zeroes numberOfItemsDeleted); RedisBloom's older links are full (size between
//     their capacities and all of them) and BF.INFO's capacity is Σ c·e^j;
//   - BF.ADD (RedisBloom's add, addNew): a key has() finds changes nothing (size, bytes); any
//     other is added and counted; addNew answers which; addAll counts as a loop of addNew;
//   - add() returns the filter; addAll() returns the batch length;
//   - a refused add (FilterFullError) changes nothing: not added, toBytes() identical; a refused
//     addAll added exactly its prefix `error.added`, byte for byte (the prefix replayed on a copy
//     loaded from the bytes before gives the same bytes, and the next key is refused there too);
//     a refusal happens only where the family may refuse (a full table with its victim in use;
//     a key whose copies fill its buckets; the growth limit, predicted for Bloom; a Redis filter
//     without growth ("Filter is full", a full non-scaling link); RedisCuckoo, a call that starts
//     with 32 sub-filters or more, or one addAll that grew to 255; RedisBloom, 255 links, the newest
//     full);
//   - addUnique(k) adds exactly when has(k) was false, and changes nothing otherwise;
//   - a round trip gives a filter with the same parameters (info()) and byte-identical bytes;
//     a Redis filter also through its SCANDUMP chunks (iterators 1, then 1 + table bytes so far;
//     none for an empty RedisCuckoo), loaded by fromScanDump to the same bytes;
//   - union with a copy of itself keeps the bits and doubles every count;
// and at the end of each sequence, the logged mutations replayed on a new filter with the same
// options give the same outcomes and bytes, and the WebAssembly memory allocated is back where
// it was (no leak).
import fc from 'fast-check';
import { BloomFilter, CuckooFilter, FilterFullError, RedisBloomFilter, RedisCuckooFilter, wasmMemoryUsage } from 'cuckoo-wasm';
import type { Family, KeyFilter } from './families';
import { Key, MultisetModel, showKey } from './model';

export const SOAK = process.env.CUCKOO_SOAK === '1';
export const MULTIPLIER = SOAK ? 100 : 1;
/** Per-test timeout: the soak run may take hours. */
export const TIMEOUT = SOAK ? 48 * 3600 * 1000 : 120_000;
export const runs = (n: number) => n * MULTIPLIER;

const enc = new TextEncoder();
const LN2 = Math.LN2;

export class PropertyError extends Error {}

export function check(condition: boolean, message: () => string): asserts condition {
  if (!condition) throw new PropertyError(message());
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

export function show(options: object): string {
  return JSON.stringify(options, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** The other form of a key: a string's UTF-8 bytes, or the string whose UTF-8 is the bytes (else the bytes again). */
export function otherForm(key: Key): Key {
  if (typeof key === 'string') return enc.encode(key);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(key);
  } catch {
    return key;
  }
}

/** m and k of a Bloom (sub-)filter for n keys at rate ε (src/bloom/bloom_filter.h). */
export function bloomSizing(n: number, eps: number): { m: number; k: number } {
  const m = Math.max(1, Math.ceil((-n * Math.log(eps)) / (LN2 * LN2)));
  return { m, k: Math.max(1, Math.round((m / n) * LN2)) };
}

// ---------------------------------------------------------------------------
// What the sequences of the running property reached (reset before each).

export function newStats() {
  return {
    sequences: 0,
    commands: 0,
    /** Refusals of a full table (a filter that does not grow), from add and from addAll. */
    fullAdd: 0,
    fullAddAll: 0,
    /** Sequences with a refusal of any kind; sequences that passed 95% load (cuckoo). */
    sequencesFull: 0,
    sequencesOver95: 0,
    roundTrips: 0,
    roundTripsGrown: 0,
    deletes: 0,
    deletesGrown: 0,
    maxSubs: 0,
    reached3: 0,
    reached6: 0,
    /** Sequences that passed 32 sub-filters (Redis filters: a RedisCuckoo addAll, a RedisBloom chain). */
    past32: 0,
    growthLimit: 0,
    addUniqueFalse: 0,
    unions: 0,
    filledBuckets: 0,
    /** Redis filters: deletes that compacted away sub-filters; SCANDUMP round trips (of a grown filter). */
    compactions: 0,
    scanDumps: 0,
    scanDumpsGrown: 0,
    /** BF.ADD (add, addNew, addAll) of a key the filter had: nothing changed. */
    dedupedAdds: 0,
  };
}
export type Stats = ReturnType<typeof newStats>;
export let stats: Stats = newStats();
export function resetStats(): void {
  stats = newStats();
}

/**
 * Logs what the property's sequences reached, checks it ran `n` of them and that each count in
 * `floors` reached its floor (the generators do what they are meant to; each floor is about a
 * third of the least it reached in 20 runs, times the soak multiplier).
 */
export function report(name: string, n: number, floors: Partial<Stats>): void {
  console.log(`${name}${SOAK ? ' (CUCKOO_SOAK=1)' : ''}: ${show(stats)}`);
  expect(stats.sequences).toBe(n);
  for (const [k, floor] of Object.entries(floors)) {
    const got = stats[k as keyof Stats];
    expect([k, got >= floor * MULTIPLIER ? 'at least the floor' : got]).toEqual([k, 'at least the floor']);
  }
}

// ---------------------------------------------------------------------------
// The system under test.

type LogEntry =
  | { op: 'add'; key: Key; ok: boolean }
  | { op: 'addAll'; keys: Key[]; added: number; full: boolean; newAdds: number }
  | { op: 'addUnique'; key: Key; result: boolean | 'full' }
  | { op: 'addNew'; key: Key; result: boolean | 'full' }
  | { op: 'delete'; key: Key }
  | { op: 'unionSelf' };

export interface Real {
  /** The filter under test; replaced by its reloaded copy on a round trip. */
  f: KeyFilter;
  readonly family: Family<KeyFilter>;
  /** The options it was created with (the family's own). */
  readonly options: Record<string, unknown> & { capacity: number };
  /** Every mutating call and its outcome, for the replay at the end. */
  readonly log: LogEntry[];
  /** Sizes of the sub-filters after the last command (this library's own families). */
  subSizes: number[];
  /** Sub-filters after the last command, and the most the sequence had. */
  subCount: number;
  maxSubs: number;
  /** A delete of this command compacted sub-filters away (RedisCuckoo). */
  compacted: boolean;
  /** Sub-filter 0 as created (cuckoo), which every later one follows. */
  readonly base: { capacity: number; buckets: number; bits: number; b: number };
  /** The growth factor (0: the filter does not grow). */
  readonly e: number;
  /** Bytes 4 and 6 of toBytes(). */
  readonly format: { version: number; type: number };
  /** Adds that answered 'new' (the families that dedup: what size must be). */
  newAdds: number;
  /** A union happened: Bloom sub-filters may hold more than their capacity. */
  united: boolean;
  sawFull: boolean;
  sawLimit: boolean;
  maxLoad: number;
}

/** The filter, for a family that stores copies (delete, count, addUnique: the cuckoo families). */
function copies(f: KeyFilter): CuckooFilter | RedisCuckooFilter {
  if (f instanceof CuckooFilter || f instanceof RedisCuckooFilter) return f;
  throw new PropertyError(`its family declares delete / count / addUnique, but the filter is a ${f.constructor.name}`);
}

/** At most this many sub-filters in a Redis filter (FORMAT.md §15.2, §16.1): past it, "Maximum expansions reached". */
export const REDIS_MAX_SUBS = 32;
/** Most sub-filters of a Redis filter (the format's count byte): one RedisCuckoo addAll, a RedisBloom chain. */
export const REDIS_MAX_FILE_SUBS = 255;

/**
 * A growing filter can still grow fast (keys that share a few buckets at every level add
 * sub-filters each e times larger): past this many bytes a sequence adds nothing more.
 */
const MAX_BYTES = 1 << 18;

/** `e` rounded up to a power of two: RedisCuckoo's growth of the bucket count (FORMAT.md §15.2). */
function pow2AtLeast(e: number): number {
  let p = 1;
  while (p < e) p *= 2;
  return p;
}

/** Capacity of the newest sub-filter. */
function newestCapacity(r: Real): number {
  const f = r.f;
  if (f instanceof CuckooFilter || f instanceof BloomFilter) return f.info().subFilters.at(-1)!.capacity;
  const n = f.subFilterCount;
  if (f instanceof RedisCuckooFilter) return r.base.buckets * pow2AtLeast(r.e) ** (n - 1) * r.base.b;
  return f.capacity * Math.max(1, r.e) ** (n - 1);
}

/**
 * The growth limit is where the next add may be refused for growth: cuckoo at f = 32, Bloom at
 * k > 64 (the newest full), RedisCuckoo at 32 sub-filters (checked at the start of each call, as
 * the server checks each command), RedisBloom at 255 links, the newest full.
 */
function atGrowthLimit(r: Real): boolean {
  if (r.e === 0) return false;
  const f = r.f;
  if (f instanceof CuckooFilter) {
    const subs = f.info().subFilters;
    return subs[subs.length - 1].fingerprintBits >= (r.family.fingerprintBits?.max ?? 32);
  }
  if (f instanceof BloomFilter) {
    const newest = f.info().subFilters.at(-1)!;
    return newest.size >= newest.capacity && bloomSizing(newest.capacity * r.e, newest.falsePositiveRate / 2).k > 64;
  }
  if (f instanceof RedisBloomFilter) {
    // 32 links, the newest full: the next key it does not have is refused.
    const n = f.subFilterCount;
    let all = 0;
    for (let j = 0; j < n; ++j) all += f.capacity * Math.max(1, r.e) ** j;
    return n >= REDIS_MAX_FILE_SUBS && f.size >= all;
  }
  return f.subFilterCount >= REDIS_MAX_SUBS;
}

/**
 * A batch may meet the growth limit within itself (cuckoo from f >= 26; a Redis filter with
 * e = 1, whose 32 sub-filters fit in a few batches), or the table may fill (no growth).
 */
function mayRefuseBatch(r: Real): boolean {
  if (r.family.redis) return r.e <= 1;
  if (r.family.kind === 'bloom') return r.e !== 0 && r.options.falsePositiveRate === 1e-18;
  return r.e === 0 || r.base.bits >= (r.family.fingerprintBits?.max ?? 32) - 6;
}

/**
 * Checks a refusal of `key` is one the family may give, and what it promises; rethrows
 * anything else. `limitBefore`: the growth limit held before the call.
 */
function checkRefusal(e: unknown, r: Real, key: Key, limitBefore: boolean, what: string): asserts e is FilterFullError {
  if (!(e instanceof FilterFullError)) throw e;
  check(e.code === 'ERR_FILTER_FULL', () => `${what}: FilterFullError.code is ${e.code}`);
  const f = r.f;
  if (f instanceof RedisCuckooFilter || f instanceof RedisBloomFilter) {
    if (r.e === 0) {
      // No growth: the server's "Filter is full" (a failed kick chain), or a non-scaling link at its capacity.
      check(/^(Filter is full|non scaling filter is full) \(as the server answers\)/.test(e.message), () => `${what}: ${e.message}`);
      check(f.subFilterCount === 1, () => `${what}: a Redis filter without growth has ${f.subFilterCount} sub-filters`);
      if (f instanceof RedisBloomFilter) check(f.size === f.capacity, () => `${what}: refused with ${f.size} of ${f.capacity} keys in its only link`);
      r.sawFull = true;
      return;
    }
    check(/^Maximum expansions reached/.test(e.message), () => `${what}: refused for another reason: ${e.message}`);
    // At the start of the call (RedisCuckoo at 32 sub-filters or more, RedisBloom's chain full), or
    // a RedisCuckoo addAll (one CF.INSERT) that grew to 255.
    check(
      limitBefore || f.subFilterCount === REDIS_MAX_FILE_SUBS,
      () => `${what}: "Maximum expansions reached" at ${f.subFilterCount} sub-filters`,
    );
    r.sawLimit = true;
    r.sawFull = true;
    return;
  }
  if (f instanceof CuckooFilter) {
    if (r.e === 0) {
      // The table and its victim slot are full.
      check(
        Math.round(f.loadFactor * f.bucketCount * f.bucketSize) === f.size - 1,
        () => `${what} threw FilterFullError while the victim slot is free`,
      );
      r.sawFull = true;
      return;
    }
    if (/copies of its fingerprint/.test(e.message)) {
      // The key's copies (or keys sharing its fingerprint) fill its buckets in the newest sub-filter.
      const c = f.count(key);
      check(c >= f.bucketSize, () => `${what}: refused for filled buckets, but count(${showKey(key)}) = ${c} < b`);
      stats.filledBuckets++;
      r.sawFull = true;
      return;
    }
  }
  check(r.e !== 0, () => `${what}: a Bloom filter that does not grow refused a key: ${e.message}`);
  check(/cannot grow further/.test(e.message), () => `${what}: refused for another reason: ${e.message}`);
  check(limitBefore || atGrowthLimit(r), () => `${what}: refused before the growth limit: ${e.message}`);
  r.sawLimit = true;
  r.sawFull = true;
}

/** The invariants that hold after every command. */
function verify(m: MultisetModel, r: Real, after: string): void {
  const f = r.f;
  const size = f.size;
  if (r.family.dedups) {
    check(size === r.newAdds, () => `after ${after}: size ${size} but ${r.newAdds} adds answered 'new'`);
    check(size <= m.distinct, () => `after ${after}: size ${size}, more than the ${m.distinct} distinct keys added`);
  } else {
    check(size === m.total, () => `after ${after}: size ${size} but the model holds ${m.total} keys`);
  }
  const n = f.subFilterCount;
  check(n >= 1 && (r.e !== 0 || n === 1), () => `after ${after}: ${n} sub-filters (growth factor ${r.e})`);
  check(n >= r.subCount || r.compacted, () => `after ${after}: ${n} sub-filters, there were ${r.subCount}`);
  if (f instanceof CuckooFilter || f instanceof BloomFilter) verifyOwn(r, f, after);
  else verifyRedis(r, f, after);
  checkAllFound(m, r, after);
  r.subCount = n;
  r.compacted = false;
  r.maxSubs = Math.max(r.maxSubs, n);
  stats.maxSubs = Math.max(stats.maxSubs, n);
}

/** This library's own filters: each sub-filter as the docs promise (see the list at the top). */
function verifyOwn(r: Real, f: CuckooFilter | BloomFilter, after: string): void {
  const size = f.size;
  const e = Math.max(r.e, 1);
  const sizes: number[] = [];
  const bytes: number[] = [];
  if (f instanceof CuckooFilter) {
    const { capacity, buckets, bits, b } = r.base;
    f.info().subFilters.forEach((s, j) => {
      check(
        s.capacity === capacity * e ** j && s.bucketCount === buckets * e ** j && s.fingerprintBits === bits + j,
        () => `after ${after}: sub-filter ${j} is ${show(s)}; expected capacity ${capacity * e ** j}, ${buckets * e ** j} buckets, f = ${bits + j}`,
      );
      const occupied = Math.round(s.loadFactor * s.bucketCount * b);
      check(occupied === s.size - (s.victim ? 1 : 0), () => `after ${after}: sub-filter ${j}: loadFactor·slots = ${occupied}, size ${s.size}, victim ${s.victim}`);
      sizes.push(s.size);
      // Bit-packed: a 72-byte section header, the table, 8 bytes (docs/FORMAT.md §14).
      bytes.push(72 + Math.ceil((s.bucketCount * b * s.fingerprintBits) / 8) + 8);
    });
  } else {
    const subs = f.info().subFilters;
    subs.forEach((s, j) => {
      const eps = (r.options.falsePositiveRate as number | undefined) ?? 0.01;
      const rate = r.e === 0 ? eps : eps / 2 ** (j + 1);
      const { m: bits, k } = bloomSizing(s.capacity, rate);
      check(
        s.capacity === r.options.capacity * e ** j && s.falsePositiveRate === rate && s.bitCount === bits && s.hashCount === k,
        () => `after ${after}: sub-filter ${j} is ${show(s)}; expected capacity ${r.options.capacity * e ** j}, ε ${rate}, m ${bits}, k ${k}`,
      );
      if (r.e !== 0 && !r.united) {
        // A new sub-filter when the newest holds its capacity: older ones are exactly full.
        const last = j === subs.length - 1;
        check(
          last ? s.size <= s.capacity && (j === 0 || s.size >= 1) : s.size === s.capacity,
          () => `after ${after}: sub-filter ${j} of ${subs.length} holds ${s.size} of its capacity ${s.capacity}`,
        );
      }
      sizes.push(s.size);
      bytes.push(48 + Math.ceil(s.bitCount / 64) * 8);
    });
  }
  sizes.forEach((s, j) => {
    // Keys go to the newest sub-filter: one that was older before this command never gains.
    if (j < r.subSizes.length - 1) check(s <= r.subSizes[j], () => `after ${after}: sub-filter ${j} (not the newest) grew from ${r.subSizes[j]} to ${s}`);
  });
  check(f.subFilterCount === sizes.length, () => `after ${after}: subFilterCount ${f.subFilterCount}, info has ${sizes.length}`);
  const total = sizes.reduce((t, s) => t + s, 0);
  check(total === size, () => `after ${after}: the sub-filters hold ${total}, size is ${size}`);
  // byteLength from docs/FORMAT.md's layout where the harness knows it (version 4: a 32-byte header, the
  // sections, the checksum; Bloom, and bit-packed cuckoo).
  const knownLayout = r.format.version === 4 && (f instanceof BloomFilter || r.family.fixed.semiSort === false);
  const layout = 32 + bytes.reduce((t, s) => t + s, 0) + 8;
  if (knownLayout) check(f.byteLength === layout, () => `after ${after}: byteLength ${f.byteLength}, the layout gives ${layout}`);
  if (f instanceof CuckooFilter && r.e === 0) {
    const load = f.loadFactor;
    const occupied = Math.round(load * f.bucketCount * f.bucketSize);
    check(
      occupied === size || occupied === size - 1,
      () => `after ${after}: loadFactor·slots = ${occupied} but size = ${size} (only the victim is outside the table)`,
    );
    if (load > r.maxLoad) r.maxLoad = load;
  }
  r.subSizes = sizes;
}

/** A Redis filter: INFO's figures and the layout of its bytes (docs/FORMAT.md §15, §16). */
function verifyRedis(r: Real, f: RedisCuckooFilter | RedisBloomFilter, after: string): void {
  const n = f.subFilterCount;
  const size = f.size;
  check(n <= REDIS_MAX_FILE_SUBS, () => `after ${after}: ${n} sub-filters, more than ${REDIS_MAX_FILE_SUBS}`);
  if (f instanceof RedisCuckooFilter) {
    const i = f.info();
    const { buckets, b } = r.base;
    const E = pow2AtLeast(r.e);
    let tables = 0;
    for (let j = 0; j < n; ++j) tables += buckets * E ** j * b;
    check(
      i.numberOfFilters === n && i.numberOfItemsInserted === size && i.numberOfBuckets === buckets && i.bucketSize === b && i.expansionRate === (r.e === 0 ? 0 : E),
      () => `after ${after}: CF.INFO ${show(i)}; ${n} sub-filters, ${size} items, n0 ${buckets}, b ${b}, e ${r.e}`,
    );
    check(i.size === tables + 40 + 16 * n, () => `after ${after}: CF.INFO size ${i.size}; the tables are ${tables} bytes in ${n} sub-filters`);
    check(f.byteLength === 32 + 32 * n + tables + 8, () => `after ${after}: byteLength ${f.byteLength}; the tables are ${tables} bytes in ${n} sub-filters`);
    check(size <= tables, () => `after ${after}: ${size} items in ${tables} slots`);
    return;
  }
  const i = f.info();
  const e = Math.max(r.e, 1);
  const caps = Array.from({ length: n }, (_, j) => f.capacity * e ** j);
  const all = caps.reduce((t, c) => t + c, 0);
  const older = all - caps[n - 1];
  check(
    i.numberOfFilters === n && i.numberOfItemsInserted === size && i.capacity === all && i.expansionRate === (r.e === 0 ? null : r.e),
    () => `after ${after}: BF.INFO ${show(i)}; ${n} links of ${caps.join(', ')}, ${size} items, e ${r.e}`,
  );
  // A new link only when the newest holds its capacity, for a key it adds: the older links are full.
  check(size <= all && (n === 1 || size > older), () => `after ${after}: ${size} items in ${n} links of ${caps.join(', ')}`);
  // Ours: 32 + Σ (48 + bytes) + 8; the server's: Σ bytes + 32 + 64 per link.
  check(f.byteLength === i.size + 8 - 16 * n, () => `after ${after}: byteLength ${f.byteLength}, BF.INFO size ${i.size}, ${n} links`);
}

/** Every key of the model is found, as bytes and as its string, by hasAll and has; count covers the multiplicity. */
function checkAllFound(m: MultisetModel, r: Real, after: string): void {
  const f = r.f;
  const entries = [...m.keys()];
  const found = f.hasAll(entries.map((e) => e.bytes));
  entries.forEach((e, i) => {
    check(found[i], () => `after ${after}: hasAll says ${showKey(e.bytes)} is absent; the model holds it ${e.count} times`);
  });
  const texts = entries.filter((e) => e.text !== undefined).map((e) => e.text!);
  const foundText = f.hasAll(texts);
  texts.forEach((t, i) => check(foundText[i], () => `after ${after}: hasAll(${showKey(t)}) is false but its bytes are held`));
  // has() and count() one key at a time (the batch and the single call take different paths):
  // every key of a filter that does not grow; for a growing one (models of up to ~50,000 keys),
  // every key of a small model, a different slice of at most 256 each time in a large one.
  const step = r.e === 0 ? 1 : Math.max(1, Math.floor(entries.length / 256));
  for (let i = stats.commands % step; i < entries.length; i += step) {
    const e = entries[i];
    check(f.has(e.bytes), () => `after ${after}: has(${showKey(e.bytes)}) is false; the model holds it ${e.count} times`);
    if (e.text !== undefined) {
      const text = e.text;
      check(f.has(text), () => `after ${after}: has(${showKey(text)}) is false but has of its UTF-8 bytes is true`);
    }
    if (r.family.supports.count) {
      const c = copies(r.f).count(e.bytes);
      check(c >= e.count, () => `after ${after}: count(${showKey(e.bytes)}) = ${c} < ${e.count} in the model`);
    }
  }
}

// ---------------------------------------------------------------------------
// Mutations, shared by the commands.

/**
 * BF.ADD's rule (the families that dedup), after an add of `key` that was accepted: a key has()
 * found before changes nothing, any other is counted once. Returns the keys counted (0 or 1).
 */
function checkDedup(m: MultisetModel, r: Real, key: Key, present: boolean, size: number, before: Uint8Array | undefined, what: string): number {
  if (m.multiplicity(key) > 0) check(present, () => `${what}: has() was false for a key the model holds`);
  const gained = r.f.size - size;
  check(gained === (present ? 0 : 1), () => `${what}: size went from ${size} to ${r.f.size}; has() was ${present} before`);
  if (present) {
    check(before !== undefined && sameBytes(before, r.f.toBytes()), () => `${what}: the filter had the key, but toBytes() changed`);
    stats.dedupedAdds++;
  }
  r.newAdds += gained;
  return gained;
}

/** add: true if it went in; a refusal changes nothing. */
function doAdd(m: MultisetModel, r: Real, key: Key): boolean {
  if (r.e !== 0 && r.f.byteLength > MAX_BYTES) return false;
  const limit = atGrowthLimit(r);
  const present = r.family.dedups === true && r.f.has(key);
  const before = r.e === 0 || limit || present ? r.f.toBytes() : undefined;
  const size = r.f.size;
  try {
    const ret = r.f.add(key);
    check(ret === r.f, () => `add(${showKey(key)}) did not return the filter`);
    check(!(limit && r.family.kind === 'bloom' && !present), () => `add(${showKey(key)}) was accepted at the growth limit`);
    check(
      !(r.family.dedups && r.e === 0 && !present && size === r.f.capacity),
      () => `add(${showKey(key)}) was accepted by a non-scaling filter holding its capacity ${size}`,
    );
    if (r.family.dedups) checkDedup(m, r, key, present, size, before, `add(${showKey(key)})`);
  } catch (e) {
    if (e instanceof PropertyError) throw e;
    check(!present, () => `add(${showKey(key)}) refused a key the filter has: ${String(e)}`);
    checkRefusal(e, r, key, limit, `add(${showKey(key)})`);
    check(e.added === 0, () => `add(${showKey(key)}): FilterFullError.added = ${e.added}, expected 0`);
    check(r.f.size === size, () => `add(${showKey(key)}) refused, but size went from ${size} to ${r.f.size}`);
    if (before) check(sameBytes(before, r.f.toBytes()), () => `add(${showKey(key)}) threw FilterFullError but toBytes() changed`);
    if (r.e === 0) stats.fullAdd++;
    r.log.push({ op: 'add', key, ok: false });
    return false;
  }
  m.add(key);
  r.log.push({ op: 'add', key, ok: true });
  return true;
}

async function doAddAll(m: MultisetModel, r: Real, keys: Key[], what: string): Promise<void> {
  if (r.e !== 0 && r.f.byteLength > MAX_BYTES) return;
  const limit = atGrowthLimit(r);
  const before = mayRefuseBatch(r) ? r.f.toBytes() : undefined;
  const size = r.f.size;
  let n: number;
  try {
    n = r.f.addAll(keys);
  } catch (e) {
    if (!(e instanceof FilterFullError)) throw e;
    const added = e.added;
    check(
      Number.isInteger(added) && added >= 0 && added < keys.length,
      () => `${what}: FilterFullError.added = ${added} for a batch of ${keys.length}`,
    );
    checkRefusal(e, r, keys[added], limit, what);
    for (let i = 0; i < added; ++i) m.add(keys[i]);
    r.log.push({ op: 'addAll', keys, added, full: true, newAdds: addedNew(r, size) });
    if (r.e === 0) stats.fullAddAll++;
    if (before) {
      // Exactly the prefix went in: replaying it, then the key that failed, on a copy of the
      // filter as it was must give the same bytes and the same refusal.
      const copy = await r.family.fromBytes(before);
      try {
        const got = copy.addAll(keys.slice(0, added));
        check(got === added, () => `${what}: replaying the ${added}-key prefix on a copy added ${got}`);
        let threw = false;
        try {
          copy.add(keys[added]);
        } catch (e2) {
          if (!(e2 instanceof FilterFullError)) throw e2;
          threw = true;
        }
        check(threw, () => `${what}: keys[${added}] = ${showKey(keys[added])} failed in the batch but fits after the prefix alone`);
        check(sameBytes(copy.toBytes(), r.f.toBytes()), () => `${what}: the filter differs from one with just the ${added}-key prefix added`);
      } finally {
        copy.dispose();
      }
    }
    return;
  }
  check(n === keys.length, () => `${what} returned ${n} for a batch of ${keys.length}`);
  for (const k of keys) m.add(k);
  r.log.push({ op: 'addAll', keys, added: n, full: false, newAdds: addedNew(r, size) });
}

/**
 * The keys a batch counted (size − `sizeBefore`), added to `newAdds` for the families that
 * dedup (the replay checks the count is a loop of addNew's answers).
 */
function addedNew(r: Real, sizeBefore: number): number {
  const gained = r.f.size - sizeBefore;
  if (r.family.dedups) r.newAdds += gained;
  return gained;
}

/** `n` keys no other command makes (a counter in the model, so that shrinking replays the same keys). */
function freshKeys(m: MultisetModel, n: number): Key[] {
  const keys: Key[] = [];
  for (let i = 0; i < n; ++i) {
    const id = m.fresh++;
    const s = `fresh\u00b7${id}`;
    keys.push(id % 3 === 0 ? enc.encode(s) : s);
  }
  return keys;
}

// ---------------------------------------------------------------------------
// Commands.

export type Cmd = fc.AsyncCommand<MultisetModel, Real>;

abstract class Base implements Cmd {
  check(_m: Readonly<MultisetModel>): boolean {
    return true;
  }
  async run(m: MultisetModel, r: Real): Promise<void> {
    stats.commands++;
    await this.apply(m, r);
    verify(m, r, this.toString());
  }
  abstract apply(m: MultisetModel, r: Real): Promise<void> | void;
  abstract toString(): string;
}

class AddCmd extends Base {
  constructor(readonly key: Key) {
    super();
  }
  apply(m: MultisetModel, r: Real): void {
    doAdd(m, r, this.key);
  }
  toString(): string {
    return `add(${showKey(this.key)})`;
  }
}

class AddAllCmd extends Base {
  constructor(readonly keys: Key[]) {
    super();
  }
  apply(m: MultisetModel, r: Real): Promise<void> {
    return doAddAll(m, r, this.keys, this.toString());
  }
  toString(): string {
    return `addAll([${this.keys.map(showKey).join(',')}])`;
  }
}

/** Fresh keys, `permille`/1000 of the newest sub-filter's capacity (at most 4000): a growing filter grows by steps. */
class AddFreshCmd extends Base {
  constructor(readonly permille: number) {
    super();
  }
  apply(m: MultisetModel, r: Real): Promise<void> {
    const newest = newestCapacity(r);
    const n = Math.min(4000, Math.max(1, Math.round((newest * this.permille) / 1000)));
    return doAddAll(m, r, freshKeys(m, n), `${this} (${n} keys)`);
  }
  toString(): string {
    return `addFresh(${this.permille / 10}% of the newest capacity)`;
  }
}

export type Via = 'add' | 'addAll' | 'addAllMixed';

/** The same key many times: one add at a time (its two forms alternately), or in one addAll (one form, or both alternately). */
class AddCopiesCmd extends Base {
  constructor(
    readonly key: Key,
    readonly copies: number,
    readonly via: Via,
  ) {
    super();
  }
  async apply(m: MultisetModel, r: Real): Promise<void> {
    const other = otherForm(this.key);
    if (this.via === 'add') {
      for (let i = 0; i < this.copies; ++i) if (!doAdd(m, r, i % 2 ? other : this.key)) break;
      return;
    }
    const mixed = this.via === 'addAllMixed';
    const keys = Array.from({ length: this.copies }, (_, i) => (mixed && i % 2 === 1 ? other : this.key));
    await doAddAll(m, r, keys, this.toString());
  }
  toString(): string {
    return `addCopies(${showKey(this.key)}, ${this.copies}, ${this.via})`;
  }
}

/**
 * addUnique (the cuckoo families: CF.ADDNX) or addNew (RedisBloom: BF.ADD's answer): adds exactly
 * when has(k) was false, and changes nothing otherwise.
 */
class AddIfNewCmd extends Base {
  constructor(
    readonly key: Key,
    readonly op: 'addUnique' | 'addNew',
  ) {
    super();
  }
  apply(m: MultisetModel, r: Real): void {
    const k = this.key;
    if (r.e !== 0 && r.f.byteLength > MAX_BYTES) return;
    const f = r.f;
    const what = `${this}`;
    const present = f.has(k);
    const limit = atGrowthLimit(r);
    const size = f.size;
    const before = present || r.e === 0 || limit ? f.toBytes() : undefined;
    let result: boolean;
    try {
      result = this.op === 'addUnique' ? copies(r.f).addUnique(k) : redisBloom(r.f).addNew(k);
    } catch (e) {
      if (e instanceof PropertyError) throw e;
      checkRefusal(e, r, k, limit, what);
      // A RedisCuckoo call that starts at its limit is refused before it looks (CF.ADDNX as the server runs it).
      check(!present || (f instanceof RedisCuckooFilter && limit), () => `${what} threw FilterFullError although has() was true`);
      if (before) check(sameBytes(before, f.toBytes()), () => `${what} threw but toBytes() changed`);
      r.log.push({ op: this.op, key: k, result: 'full' });
      return;
    }
    check(result === !present, () => `${what} returned ${result} while has() was ${present}`);
    if (m.multiplicity(k) > 0) check(!result, () => `${what} added a key the model holds`);
    if (r.family.dedups) checkDedup(m, r, k, present, size, before, what);
    if (result) m.add(k);
    else {
      check(sameBytes(before!, f.toBytes()), () => `${what} returned false but toBytes() changed`);
      stats.addUniqueFalse++;
    }
    r.log.push({ op: this.op, key: k, result });
  }
  toString(): string {
    return `${this.op}(${showKey(this.key)})`;
  }
}

/** The filter, for a family with addNew (RedisBloom). */
function redisBloom(f: KeyFilter): RedisBloomFilter {
  if (f instanceof RedisBloomFilter) return f;
  throw new PropertyError(`its family declares addNew, but the filter is a ${f.constructor.name}`);
}

/** The filter, for a family with union (BloomFilter). */
function bloom(f: KeyFilter): BloomFilter {
  if (f instanceof BloomFilter) return f;
  throw new PropertyError(`its family declares union, but the filter is a ${f.constructor.name}`);
}

function deleteOne(m: MultisetModel, r: Real, key: Key, what: () => string): void {
  stats.deletes++;
  const f = copies(r.f);
  const n = f.subFilterCount;
  if (n > 1) stats.deletesGrown++;
  check(f.delete(key), () => `${what()}: delete(${showKey(key)}) returned false; the model holds it ${m.multiplicity(key)} times`);
  m.remove(key);
  r.log.push({ op: 'delete', key });
  if (f instanceof RedisCuckooFilter && f.subFilterCount < n) {
    // CF.DEL compacted (FORMAT.md §15.3): the pass starts the count of deletes again from 0.
    const deleted = f.info().numberOfItemsDeleted;
    check(deleted === 0, () => `${what()}: the delete compacted ${n} sub-filters to ${f.subFilterCount}, but ${deleted} deletes are counted`);
    stats.compactions++;
    r.compacted = true;
  }
}

class DeleteCmd extends Base {
  /** The key this command deleted when it last ran, for the counterexample. */
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
  apply(m: MultisetModel, r: Real): void {
    const e = m.pick(this.index)!;
    const key = this.asText && e.text !== undefined ? e.text : e.bytes;
    this.deleted = showKey(key);
    deleteOne(m, r, key, () => this.toString());
  }
  toString(): string {
    return `delete(${this.deleted || `model key #${this.index}`})`;
  }
}

/** Deletes many keys of the model at once (every `stride`-th), checking after each that nothing else went. */
class DeleteManyCmd extends Base {
  constructor(readonly stride: number) {
    super();
  }
  check(m: Readonly<MultisetModel>): boolean {
    return m.distinct > 0;
  }
  apply(m: MultisetModel, r: Real): void {
    const victims = [...m.keys()].filter((_, i) => i % this.stride === 0).map((e) => e.bytes);
    for (const key of victims) deleteOne(m, r, key, () => this.toString());
  }
  toString(): string {
    return `deleteMany(every ${this.stride}th model key)`;
  }
}

/** has, hasAll and (cuckoo) count of one key, in both its forms. */
class HasCmd extends Base {
  constructor(readonly key: Key) {
    super();
  }
  apply(m: MultisetModel, r: Real): void {
    const k = this.key;
    const h = r.f.has(k);
    if (m.multiplicity(k) > 0) check(h, () => `has(${showKey(k)}) is false; the model holds it`);
    check(r.f.hasAll([k, otherForm(k), k]).every((x) => x === h), () => `hasAll / the other form of ${showKey(k)} disagree with has`);
    if (typeof k === 'string') check(r.f.has(enc.encode(k)) === h, () => `has(${showKey(k)}) differs from has of its UTF-8 bytes`);
    if (r.family.supports.count) {
      const f = copies(r.f);
      const c = f.count(k);
      const want = m.multiplicity(k);
      check(Number.isInteger(c) && c >= want, () => `count(${showKey(k)}) = ${c} < ${want} in the model`);
      check(h === c > 0, () => `has(${showKey(k)}) disagrees with count = ${c}`);
      if (typeof k === 'string') check(f.count(enc.encode(k)) === c, () => `count(${showKey(k)}) differs from count of its UTF-8 bytes`);
    }
  }
  toString(): string {
    return `has/count(${showKey(this.key)})`;
  }
}

class RoundTripCmd extends Base {
  async apply(_m: MultisetModel, r: Real): Promise<void> {
    const old = r.f;
    const bytes = old.toBytes();
    check(bytes.length === old.byteLength, () => `toBytes() gave ${bytes.length} bytes, byteLength is ${old.byteLength}`);
    check(
      bytes[4] === r.format.version && bytes[6] === r.format.type,
      () => `toBytes(): version ${bytes[4]}, type ${bytes[6]}; ${r.family.name} writes ${show(r.format)}`,
    );
    const loaded = await r.family.fromBytes(bytes);
    r.f = loaded; // owned by the sequence from here on, disposed at its end
    check(loaded instanceof r.family.cls, () => `fromBytes gave a ${loaded.constructor.name}`);
    const params = (x: KeyFilter) => show({ ...x.info(), n: x.subFilterCount, fpr: x.falsePositiveRate });
    const want = params(old);
    stats.roundTrips++;
    if (old.subFilterCount > 1) stats.roundTripsGrown++;
    old.dispose();
    check(params(loaded) === want, () => `fromBytes(toBytes()) has ${params(loaded)}, the original ${want}`);
    check(sameBytes(loaded.toBytes(), bytes), () => 'fromBytes(toBytes()).toBytes() differs from toBytes()');
    if (r.family.row.can.redisDump) await scanDumpRoundTrip(r, params);
  }
  toString(): string {
    return 'toBytes→fromBytes (and SCANDUMP→LOADCHUNK for a Redis filter)';
  }
}

/**
 * A Redis filter's own path: its SCANDUMP chunks (iterator 1 for the header, then 1 + the table
 * bytes dumped so far), loaded by fromScanDump, give the same filter (parameters and bytes); the
 * loaded copy goes on. An empty RedisCuckoo dumps nothing.
 */
async function scanDumpRoundTrip(r: Real, params: (x: KeyFilter) => string): Promise<void> {
  const old = r.f;
  if (!(old instanceof RedisCuckooFilter || old instanceof RedisBloomFilter)) {
    throw new PropertyError(`${r.family.name} declares SCANDUMP, but its filter is a ${old.constructor.name}`);
  }
  const chunks = old.toScanDump();
  if (old instanceof RedisCuckooFilter && old.size === 0) {
    check(chunks.length === 0, () => `an empty RedisCuckooFilter dumped ${chunks.length} chunks`);
    return;
  }
  let dumped = 0;
  chunks.forEach(([it, chunk], i) => {
    check(it === (i === 0 ? 1 : 1 + dumped + chunk.length), () => `SCANDUMP chunk ${i} has iterator ${it} after ${dumped} table bytes`);
    if (i > 0) dumped += chunk.length;
  });
  const loaded = old instanceof RedisCuckooFilter ? await RedisCuckooFilter.fromScanDump(chunks) : await RedisBloomFilter.fromScanDump(chunks);
  const bytes = old.toBytes();
  const want = params(old);
  r.f = loaded;
  stats.scanDumps++;
  if (old.subFilterCount > 1) stats.scanDumpsGrown++;
  old.dispose();
  check(params(loaded) === want, () => `fromScanDump(toScanDump()) has ${params(loaded)}, the original ${want}`);
  check(sameBytes(loaded.toBytes(), bytes), () => 'fromScanDump(toScanDump()).toBytes() differs from toBytes()');
}

/** union with a copy of itself: the same bits, every key counted twice. */
class UnionSelfCmd extends Base {
  async apply(m: MultisetModel, r: Real): Promise<void> {
    const f = bloom(r.f);
    const copy = await BloomFilter.fromBytes(f.toBytes());
    try {
      check(f.isCompatible(copy), () => 'a filter is not compatible with its own copy');
      const sets = f.info().subFilters.map((s) => s.setBitCount);
      check(f.union(copy) === f, () => 'union did not return the filter');
      const after = f.info().subFilters.map((s) => s.setBitCount);
      check(sets.join() === after.join(), () => `union with its copy changed the set bits: ${sets} → ${after}`);
    } finally {
      copy.dispose();
    }
    for (const e of [...m.keys()]) m.add(e.bytes, e.count);
    // Every sub-filter doubles its size: the "only the newest gains" check starts again from here.
    r.subSizes = [];
    r.log.push({ op: 'unionSelf' });
    r.united = true;
    stats.unions++;
  }
  toString(): string {
    return 'union(copy of itself)';
  }
}

// ---------------------------------------------------------------------------
// Running one sequence.

async function allocated(): Promise<number> {
  return (await wasmMemoryUsage()).allocatedBytes;
}

/**
 * Grows the library's scratch and batch regions to the longest key the generators make, so
 * that later sequences allocate nothing that outlives them and a leak shows as a change in
 * allocated bytes.
 */
export async function warmUp(): Promise<void> {
  // Non-ASCII, so that batches size it at the worst case of 3 UTF-8 bytes per unit.
  const longest = '\u4e00'.repeat(210_000);
  const keys = Array.from({ length: 4000 }, (_, i) => `warm·${i}`);
  const filters: KeyFilter[] = [
    await CuckooFilter.create({ capacity: 4000 }),
    await BloomFilter.create({ capacity: 10 }),
    await RedisCuckooFilter.create({ capacity: 4000 }),
    await RedisBloomFilter.create({ errorRate: 0.01, capacity: 10 }),
  ];
  for (const f of filters) {
    f.has(longest);
    f.addAll([longest]);
    f.hasAll([longest]);
    f.addAll(keys);
    f.hasAll(keys);
    if (f instanceof RedisCuckooFilter || f instanceof RedisBloomFilter) f.toScanDump();
    f.dispose();
  }
}

/** One sequence of `cmds` on a new filter of `family` with `options` (the family's own, adjusted). */
export async function runSequence(family: Family<KeyFilter>, options: Real['options'], cmds: Iterable<Cmd>): Promise<void> {
  stats.sequences++;
  const allocatedBefore = await allocated();
  const f = await family.cls.create(options as never);
  const real: Real = {
    f,
    family,
    options,
    log: [],
    subSizes: [0],
    subCount: 1,
    maxSubs: 1,
    compacted: false,
    base: baseOf(f),
    e: family.redis ? f.expansion : ((options.expansion as number | undefined) ?? 0),
    newAdds: 0,
    format: family.format,
    united: false,
    sawFull: false,
    sawLimit: false,
    maxLoad: 0,
  };
  try {
    await fc.asyncModelRun(() => ({ model: new MultisetModel(), real }), cmds);
    await checkReplay(real);
  } finally {
    real.f.dispose();
  }
  const leaked = (await allocated()) - allocatedBefore;
  check(leaked === 0, () => `${leaked} bytes of WebAssembly memory still allocated after the sequence disposed its filters`);
  if (real.sawFull) stats.sequencesFull++;
  if (real.maxLoad > 0.95) stats.sequencesOver95++;
  if (real.maxSubs >= 3) stats.reached3++;
  if (real.maxSubs >= 6) stats.reached6++;
  if (real.maxSubs > REDIS_MAX_SUBS) stats.past32++;
  if (real.sawLimit) stats.growthLimit++;
}

/** Sub-filter 0 of a new filter, which every later one follows. */
function baseOf(f: KeyFilter): Real['base'] {
  if (f instanceof CuckooFilter) {
    const s = f.info().subFilters[0];
    return { capacity: s.capacity, buckets: s.bucketCount, bits: s.fingerprintBits, b: f.bucketSize };
  }
  if (f instanceof RedisCuckooFilter) {
    const i = f.info();
    return { capacity: f.capacity, buckets: i.numberOfBuckets, bits: 8, b: i.bucketSize };
  }
  return { capacity: f instanceof BloomFilter ? f.info().subFilters[0].capacity : f.capacity, buckets: 0, bits: 0, b: 0 };
}

/** The logged mutations on a new filter with the same options, without round trips: same outcomes, same bytes. */
async function checkReplay(r: Real): Promise<void> {
  const g = await r.family.cls.create(r.options as never);
  try {
    for (const [i, e] of r.log.entries()) {
      const where = () => `replay of mutation #${i} (${e.op}) on a new filter with ${show(r.options)}`;
      const refused = (err: unknown): boolean => {
        if (!(err instanceof FilterFullError)) throw err;
        return true;
      };
      if (e.op === 'add') {
        let ok = true;
        try {
          g.add(e.key);
        } catch (err) {
          ok = !refused(err);
        }
        check(ok === e.ok, () => `${where()}: ${ok}, originally ${e.ok}`);
      } else if (e.op === 'addAll' && r.family.dedups) {
        // BF.ADD's count: the batch is a loop of addNew, whose 'new' answers it counted.
        const h = redisBloom(g);
        let added = 0;
        let newAdds = 0;
        let full = false;
        for (const k of e.keys) {
          try {
            if (h.addNew(k)) newAdds++;
          } catch (err) {
            full = refused(err);
            break;
          }
          added++;
        }
        check(
          full === e.full && added === e.added && newAdds === e.newAdds,
          () => `${where()}: a loop of addNew added ${added} (full ${full}), ${newAdds} new; the batch ${e.added} (full ${e.full}), ${e.newAdds} new`,
        );
      } else if (e.op === 'addAll') {
        let added: number;
        let full = false;
        try {
          added = g.addAll(e.keys);
        } catch (err) {
          full = refused(err);
          added = err instanceof FilterFullError ? err.added : -1;
        }
        check(full === e.full && added === e.added, () => `${where()}: added ${added} (full ${full}), originally ${e.added} (full ${e.full})`);
      } else if (e.op === 'addUnique' || e.op === 'addNew') {
        let result: boolean | 'full';
        try {
          result = e.op === 'addUnique' ? copies(g).addUnique(e.key) : redisBloom(g).addNew(e.key);
        } catch (err) {
          refused(err);
          result = 'full';
        }
        check(result === e.result, () => `${where()}: ${result}, originally ${e.result}`);
      } else if (e.op === 'delete') {
        check(copies(g).delete(e.key), () => `${where()}: delete returned false`);
      } else {
        const copy = await BloomFilter.fromBytes(g.toBytes());
        bloom(g).union(copy);
        copy.dispose();
      }
    }
    check(sameBytes(g.toBytes(), r.f.toBytes()), () => `replay on a new filter with ${show(r.options)}: toBytes() differs`);
  } finally {
    g.dispose();
  }
}

// ---------------------------------------------------------------------------
// Command generators for a family: the commands it supports, over keys from `key`.

export interface CommandMix {
  /** The longest sequence. */
  maxCommands: number;
  /** Keys of addAll batches: at most this many. */
  batch: number;
  /** AddFresh sizes in permille of the newest capacity: each range one generator. */
  fresh: [number, number][];
  /** AddCopies: from `copies[0]` to `copies[1]` copies. */
  copies: [number, number];
  /** Also addUnique and deleteMany (where the family has them). */
  extras: boolean;
  /** Leave out the generators for single has / addUnique (the filling properties). */
  fillOnly?: boolean;
}

export function commands(family: Family<KeyFilter>, key: fc.Arbitrary<Key>, mix: CommandMix): fc.Arbitrary<Iterable<Cmd>> {
  const s = family.supports;
  const via = fc.constantFrom<Via>('add', 'addAll', 'addAllMixed');
  const list: fc.Arbitrary<Cmd>[] = [
    key.map((k) => new AddCmd(k)),
    ...mix.fresh.map(([lo, hi]) => fc.integer({ min: lo, max: hi }).map((p) => new AddFreshCmd(p))),
    fc.tuple(key, fc.integer({ min: mix.copies[0], max: mix.copies[1] }), via).map(([k, n, v]) => new AddCopiesCmd(k, n, v)),
    fc.constant(new RoundTripCmd()),
  ];
  if (!mix.fillOnly) {
    list.push(fc.array(key, { maxLength: mix.batch }).map((ks) => new AddAllCmd(ks)));
    list.push(key.map((k) => new HasCmd(k)));
    if (s.addUnique && mix.extras) list.push(key.map((k) => new AddIfNewCmd(k, 'addUnique')));
    if (s.addNew && mix.extras) list.push(key.map((k) => new AddIfNewCmd(k, 'addNew')));
    if (s.union) list.push(fc.constant(new UnionSelfCmd()));
  }
  if (s.delete) {
    const del = fc.tuple(fc.nat(), fc.boolean()).map(([i, t]) => new DeleteCmd(i, t));
    list.push(del, del);
    if (mix.extras) list.push(fc.integer({ min: 1, max: 4 }).map((st) => new DeleteManyCmd(st)));
  }
  if (s.count && mix.fillOnly) list.push(key.map((k) => new HasCmd(k)));
  return fc.commands<MultisetModel, Real, false>(list, { maxCommands: mix.maxCommands, size: 'max' });
}
