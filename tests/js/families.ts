// The filter families and table encodings under test, one descriptor each,
// each taking its row, class and capabilities from the registry
// (js/registry.ts). The suites that hold for every filter (the arguments
// table in arguments.test.ts, the adversarial suite in adversarial.test.ts,
// batch-into, patch, and the model-based harness in property.test.ts over
// harness.ts) run once per entry of KEY_FAMILIES, the Redis families included.
// What only one family does (Bloom
// union, cuckoo delete/count semantics, growth's sub-filter accounting, format
// details) stays in that family's own small tests. A new family or encoding is
// one entry here.
import * as lib from 'cuckoo-wasm';
import { BloomFilter, CuckooFilter, RedisBloomFilter, RedisCuckooFilter } from 'cuckoo-wasm';
import type { BloomFilterOptions, CuckooFilterOptions } from 'cuckoo-wasm';
import { REGISTRY, type FamilyDescriptor, type FamilyName } from '../../js/registry';

/** A filter of this library's own families (cuckoo, Bloom): what the suites over {@link FAMILIES} hold. */
export type AnyFilter = CuckooFilter | BloomFilter;
/** A filter of any family, the Redis ones included. */
export type KeyFilter = AnyFilter | RedisCuckooFilter | RedisBloomFilter;

/** A family's class as the suites use it. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export type FilterClass<F> = Function & { create(options: never): Promise<F>; fromBytes(bytes: Uint8Array | ArrayBuffer): Promise<F> };

/** Options any family takes (each family maps them onto its own). */
export interface CommonOptions {
  capacity: number;
  falsePositiveRate?: number;
  seed?: number | bigint;
  /** Growth factor, for the families that grow; ignored by the others. */
  expansion?: number;
}

export interface Family<F extends KeyFilter = AnyFilter> {
  /** Test titles say this. */
  readonly name: string;
  /** The family's row in the registry. */
  readonly row: FamilyDescriptor;
  readonly kind: 'cuckoo' | 'bloom';
  /** True for the growing variant (the `expansion` option). */
  readonly grows: boolean;
  /** The class: create, fromBytes, instanceof. */
  readonly cls: FilterClass<F>;
  /** Options of this family's own kind that every filter of it gets (e.g. the table encoding). */
  readonly fixed: Partial<CuckooFilterOptions> & Record<string, unknown>;
  /** Which operations it has beyond add/has/addAll/hasAll/toBytes/fromBytes/info (the registry's). */
  readonly supports: {
    readonly delete: boolean;
    readonly count: boolean;
    readonly addUnique: boolean;
    readonly union: boolean;
    /** BF.ADD's answer (`addNew`): the row's one-key export `add_new`. */
    readonly addNew: boolean;
  };
  /** The fingerprint sizes the encoding takes (cuckoo), for the generators. */
  readonly fingerprintBits?: { readonly min: number; readonly max: number };
  /** True for the Redis families (Redis's options, 8-bit fingerprints, SCANDUMP). */
  readonly redis?: boolean;
  /** True if add() of a key the filter already has (false positives included) changes nothing (RedisBloom's BF.ADD). */
  readonly dedups?: boolean;
  /** Bytes 4 (format version) and 6 (family) of its toBytes(), docs/FORMAT.md. */
  readonly format: { readonly version: number; readonly type: number };
  /** A filter for `o` (with `o.expansion` only when the family grows; a default growth factor otherwise). */
  create(o: CommonOptions): Promise<F>;
  /** The family's own options from a generator's: `fixed` merged in, sizes the encoding refuses adjusted. */
  adjust<O extends object>(o: O): O;
  fromBytes(bytes: Uint8Array | ArrayBuffer): Promise<F>;
}

/** What a test family takes from its registry row. */
function fromRegistry(name: FamilyName): Pick<Family, 'row' | 'supports' | 'format'> {
  const row = REGISTRY[name];
  const { delete: del, count, addUnique, union } = row.can;
  const keyOps: readonly string[] = row.keyOps;
  return { row, supports: { delete: del, count, addUnique, union, addNew: keyOps.includes('add_new') }, format: { version: 4, type: row.id } };
}

function cuckooFamily(name: string, grows: boolean, fixed: Family['fixed'], bits: { min: number; max: number }): Family<CuckooFilter> {
  return {
    ...fromRegistry('cuckoo'),
    cls: lib[REGISTRY.cuckoo.className], // the package's class of the registry's name
    name,
    kind: 'cuckoo',
    grows,
    fixed,
    fingerprintBits: bits,
    create: (o) =>
      CuckooFilter.create({
        capacity: o.capacity,
        falsePositiveRate: o.falsePositiveRate,
        seed: o.seed,
        ...(grows ? { expansion: o.expansion ?? 2 } : {}),
        ...fixed,
      } as CuckooFilterOptions),
    adjust<O extends object>(o: O): O {
      const r = { ...o, ...fixed } as O & { fingerprintBits?: number };
      if (r.fingerprintBits !== undefined) r.fingerprintBits = Math.min(bits.max, Math.max(bits.min, r.fingerprintBits));
      return r;
    },
    fromBytes: (bytes) => CuckooFilter.fromBytes(bytes),
  };
}

function bloomFamily(name: string, grows: boolean): Family<BloomFilter> {
  return {
    ...fromRegistry('bloom'),
    cls: lib[REGISTRY.bloom.className], // the package's class of the registry's name
    name,
    kind: 'bloom',
    grows,
    fixed: {},
    create: (o) =>
      BloomFilter.create({
        capacity: o.capacity,
        falsePositiveRate: o.falsePositiveRate,
        seed: o.seed,
        ...(grows ? { expansion: o.expansion ?? 2 } : {}),
      } as BloomFilterOptions),
    adjust: (o) => o,
    fromBytes: (bytes) => BloomFilter.fromBytes(bytes),
  };
}

const PACKED_BITS = { min: 4, max: 32 };

/** Every family and encoding of this library's own under test. */
export const FAMILIES: readonly Family[] = [
  cuckooFamily('cuckoo (bit-packed)', false, { semiSort: false }, PACKED_BITS),
  cuckooFamily('growing cuckoo (bit-packed)', true, { semiSort: false }, PACKED_BITS),
  bloomFamily('Bloom', false),
  bloomFamily('growing Bloom', true),
  // The semi-sorted bucket table (Fan et al. §5.2): bucket size 4 only, f from 4 to 32.
  cuckooFamily('cuckoo (semi-sorted)', false, { semiSort: true, bucketSize: 4 }, PACKED_BITS),
  cuckooFamily('growing cuckoo (semi-sorted)', true, { semiSort: true, bucketSize: 4 }, PACKED_BITS),
];

/** `FAMILIES` as `[name, family]` rows for test.each / describe.each. */
export const FAMILY_ROWS: [string, Family][] = FAMILIES.map((f) => [f.name, f]);

/**
 * The Redis families (RedisCuckooFilter, RedisBloomFilter), typed as what they are. They take
 * Redis's options (capacity; a Bloom filter's error rate from falsePositiveRate) and have no seed.
 *
 * Not in FAMILIES: the suites over FAMILIES alone (lifecycle, url, the one-key cuckoo test of
 * property.test.ts) use what only this library's own filters have (seeds, the victim slot,
 * info().subFilters). The model-based harness runs them with checks of their own (INFO, the
 * layouts of docs/FORMAT.md §15/§16, BF.ADD's answer, compaction, SCANDUMP); their bytes are
 * checked against the server's own dumps in redis.test.ts and a model of the server in
 * redis-differential.test.ts.
 */
export const REDIS_FAMILIES: readonly Family<RedisCuckooFilter | RedisBloomFilter>[] = [
  {
    ...fromRegistry('redisCuckoo'),
    cls: lib[REGISTRY.redisCuckoo.className], // the package's class of the registry's name
    name: 'Redis cuckoo (CF.*)',
    kind: 'cuckoo',
    grows: true,
    redis: true,
    fixed: {},
    create: (o) => RedisCuckooFilter.create({ capacity: Math.max(4, o.capacity), expansion: o.expansion ?? 1 }),
    adjust: (o) => o,
    fromBytes: (bytes) => RedisCuckooFilter.fromBytes(bytes),
  },
  {
    ...fromRegistry('redisBloom'),
    cls: lib[REGISTRY.redisBloom.className], // the package's class of the registry's name
    name: 'Redis Bloom (BF.*)',
    kind: 'bloom',
    grows: true,
    redis: true,
    dedups: true,
    fixed: {},
    create: (o) =>
      RedisBloomFilter.create({
        errorRate: Math.min(0.25, o.falsePositiveRate ?? 0.01),
        capacity: o.capacity,
        ...(o.expansion === undefined ? {} : { expansion: o.expansion }),
      }),
    adjust: (o) => o,
    fromBytes: (bytes) => RedisBloomFilter.fromBytes(bytes),
  },
];

/** FAMILIES and REDIS_FAMILIES: every family of the registry. */
export const KEY_FAMILIES: readonly Family<KeyFilter>[] = [...FAMILIES, ...REDIS_FAMILIES];
/** KEY_FAMILIES as rows: for the suites that hold for every filter with keys. */
export const KEY_FAMILY_ROWS: [string, Family<KeyFilter>][] = KEY_FAMILIES.map((f) => [f.name, f]);

/** An array whose element `at` runs `effect` when read (a getter), as user code in a batch would. */
export function withGetter<T>(keys: T[], at: number, effect: () => void): T[] {
  const copy = keys.slice();
  Object.defineProperty(copy, at, {
    get() {
      effect();
      return keys[at];
    },
  });
  return copy;
}
