// The filter families and table encodings under test, one descriptor each.
// The suites that hold for every filter (the model-based harness in
// property.test.ts over harness.ts, the arguments table in arguments.test.ts,
// the adversarial suite in adversarial.test.ts) run once per entry of
// FAMILIES; what only one family does (Bloom union, cuckoo delete/count
// semantics, growth's sub-filter accounting, format details) stays in that
// family's own small tests. A new family or encoding is one entry here.
import { BloomFilter, CuckooFilter, RedisBloomFilter, RedisCuckooFilter } from 'cuckoo-wasm';
import type { BloomFilterOptions, CuckooFilterOptions } from 'cuckoo-wasm';

export type AnyFilter = CuckooFilter | BloomFilter;

/** Options any family takes (each family maps them onto its own). */
export interface CommonOptions {
  capacity: number;
  falsePositiveRate?: number;
  seed?: number | bigint;
  /** Growth factor, for the families that grow; ignored by the others. */
  expansion?: number;
}

export interface Family {
  /** Test titles say this. */
  readonly name: string;
  readonly kind: 'cuckoo' | 'bloom';
  /** True for the growing variant (the `expansion` option). */
  readonly grows: boolean;
  /** The class: create, fromBytes, instanceof. */
  readonly cls: typeof CuckooFilter | typeof BloomFilter;
  /** Options of this family's own kind that every filter of it gets (e.g. the table encoding). */
  readonly fixed: Partial<CuckooFilterOptions> & Record<string, unknown>;
  /** Which operations it has beyond add/has/addAll/hasAll/toBytes/fromBytes/info. */
  readonly supports: { readonly delete: boolean; readonly count: boolean; readonly addUnique: boolean; readonly union: boolean };
  /** The fingerprint sizes the encoding takes (cuckoo), for the generators. */
  readonly fingerprintBits?: { readonly min: number; readonly max: number };
  /** True for the Redis families (Redis's options, 8-bit fingerprints, SCANDUMP; not in FAMILIES). */
  readonly redis?: boolean;
  /** True if add() of a key the filter already has (false positives included) changes nothing (RedisBloom's BF.ADD). */
  readonly dedups?: boolean;
  /** Bytes 4 (format version) and 6 (family) of its toBytes(), docs/FORMAT.md. */
  readonly format: { readonly version: number; readonly type: number };
  /** A filter for `o` (with `o.expansion` only when the family grows; a default growth factor otherwise). */
  create(o: CommonOptions): Promise<AnyFilter>;
  /** The family's own options from a generator's: `fixed` merged in, sizes the encoding refuses adjusted. */
  adjust<O extends object>(o: O): O;
  fromBytes(bytes: Uint8Array | ArrayBuffer): Promise<AnyFilter>;
}

function cuckooFamily(
  name: string,
  grows: boolean,
  fixed: Family['fixed'],
  bits: { min: number; max: number },
  format: Family['format'],
): Family {
  return {
    name,
    kind: 'cuckoo',
    grows,
    cls: CuckooFilter,
    fixed,
    supports: { delete: true, count: true, addUnique: true, union: false },
    fingerprintBits: bits,
    format,
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

function bloomFamily(name: string, grows: boolean): Family {
  return {
    name,
    kind: 'bloom',
    grows,
    cls: BloomFilter,
    fixed: {},
    supports: { delete: false, count: false, addUnique: false, union: true },
    format: { version: 4, type: 2 },
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

/** Every family and encoding under test. */
export const FAMILIES: readonly Family[] = [
  cuckooFamily('cuckoo (bit-packed)', false, { semiSort: false }, PACKED_BITS, { version: 4, type: 1 }),
  cuckooFamily('growing cuckoo (bit-packed)', true, { semiSort: false }, PACKED_BITS, { version: 4, type: 1 }),
  bloomFamily('Bloom', false),
  bloomFamily('growing Bloom', true),
  // The semi-sorted bucket table (Fan et al. §5.2): bucket size 4 only, f from 4 to 32.
  cuckooFamily('cuckoo (semi-sorted)', false, { semiSort: true, bucketSize: 4 }, PACKED_BITS, { version: 4, type: 1 }),
  cuckooFamily('growing cuckoo (semi-sorted)', true, { semiSort: true, bucketSize: 4 }, PACKED_BITS, { version: 4, type: 1 }),
];

/** `FAMILIES` as `[name, family]` rows for test.each / describe.each. */
export const FAMILY_ROWS: [string, Family][] = FAMILIES.map((f) => [f.name, f]);

/**
 * The Redis families (RedisCuckooFilter, RedisBloomFilter), for the suites whose checks hold
 * for them: the key forms and wrong arguments of arguments.test.ts. They take Redis's options
 * (capacity; a Bloom filter's error rate from falsePositiveRate), have no seed, and are typed
 * here as AnyFilter for what those suites call (add, has, addAll, hasAll, delete, count, size,
 * toBytes, dispose), which they share.
 *
 * Not in FAMILIES, whose suites do not fit them: property.test.ts's harness checks the
 * sub-filters of this library's own growth (info().subFilters, capacities e^j, fingerprint bits
 * growing, byteLength's layout, seeds), which a Redis filter has not: its growth, sizes and bytes
 * are the server's and are checked against the server's own dumps (redis.test.ts);
 * adversarial.test.ts's checks of growth (sub-filter counts, FilterFullError's wording, the
 * child-process class by kind) and of fromBytes are per family kind; the Redis loaders' own
 * hostile input is redis-dump.test.ts.
 */
export const REDIS_FAMILIES: readonly Family[] = [
  {
    name: 'Redis cuckoo (CF.*)',
    kind: 'cuckoo',
    grows: true,
    redis: true,
    cls: RedisCuckooFilter as unknown as typeof CuckooFilter,
    fixed: {},
    supports: { delete: true, count: true, addUnique: true, union: false },
    format: { version: 4, type: 3 },
    create: async (o) =>
      (await RedisCuckooFilter.create({ capacity: Math.max(4, o.capacity), expansion: o.expansion ?? 1 })) as unknown as AnyFilter,
    adjust: (o) => o,
    fromBytes: async (bytes) => (await RedisCuckooFilter.fromBytes(bytes)) as unknown as AnyFilter,
  },
  {
    name: 'Redis Bloom (BF.*)',
    kind: 'bloom',
    grows: true,
    redis: true,
    dedups: true,
    cls: RedisBloomFilter as unknown as typeof BloomFilter,
    fixed: {},
    supports: { delete: false, count: false, addUnique: false, union: false },
    format: { version: 4, type: 4 },
    create: async (o) =>
      (await RedisBloomFilter.create({
        errorRate: Math.min(0.25, o.falsePositiveRate ?? 0.01),
        capacity: o.capacity,
        ...(o.expansion === undefined ? {} : { expansion: o.expansion }),
      })) as unknown as AnyFilter,
    adjust: (o) => o,
    fromBytes: async (bytes) => (await RedisBloomFilter.fromBytes(bytes)) as unknown as AnyFilter,
  },
];

/** FAMILIES and REDIS_FAMILIES, as rows: for the suites that hold for every filter with keys. */
export const KEY_FAMILY_ROWS: [string, Family][] = [...FAMILIES, ...REDIS_FAMILIES].map((f) => [f.name, f]);

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
