/**
 * The registry: every filter family and table encoding, each declared once. A
 * family's row gives its number in the core (src/common/family.h) and the core
 * constant that reports it, the prefix of its hot exports
 * (bindings/c_exports.cc HOT_EXPORTS), the one-key exports only it has,
 * its class's name, the options its `create` takes, how an error names it,
 * and what it can do. Everything in js/ and tests/js that depends on the
 * families (the export prefixes and key operations of js/boundary/core-types.ts, the
 * export rows and embind classes js/boundary/read-core.ts takes, the CLI's Redis types,
 * the tests' family list) derives from these rows, and {@link checkRegistry} checks
 * them against the core's constants when the module loads. A new family is one row
 * here, its line in src/common/families.def, and its classes over
 * js/filters/family-filter.ts (docs/ARCHITECTURE.md, "Adding a family"). The
 * registry imports nothing: every other layer of js/ builds on it.
 */

/** What a family's row holds (the rows below keep their literal types). */
interface FamilyRow {
  /** cuckoo::Family (src/common/family.h), as the core reports it in `constants()[constant]`. */
  readonly id: number;
  /** The core constant (bindings/embind.cc, its constants) that reports `id`. */
  readonly constant: `family${string}`;
  /** Its hot exports are `${prefix}_add`, `${prefix}_contain`, ... */
  readonly prefix: string;
  /** The one-key exports only it has (`${prefix}_${op}`: `(handle, key, len) => answer or -status`). */
  readonly keyOps: readonly string[];
  /** The class whose `fromBytes` loads its bytes. */
  readonly className: string;
  /** How a message names a filter of it. */
  readonly what: string;
  /** FilterFormatError's reason when its bytes are given to another family's `fromBytes`. */
  readonly foreignReason: string;
  /** The options of its `create` (of `build`, for a family built once from all its keys). */
  readonly options: readonly string[];
  /** What its filters do besides has / hasAll / toBytes / fromBytes / info. */
  readonly can: {
    /** `add` / `addAll` / `addUrl(s)` after creation; false for a static set, built once from all its keys (`build`). */
    readonly add: boolean;
    readonly delete: boolean;
    readonly count: boolean;
    readonly addUnique: boolean;
    /** `union` / `isCompatible` of two filters. */
    readonly union: boolean;
    /** Grows by sub-filters (the `expansion` option). */
    readonly growth: boolean;
    readonly patches: boolean;
    /** RedisBloom's SCANDUMP / LOADCHUNK: the server's key TYPE, its command prefix, and how the CLI names it. */
    readonly redisDump: false | { readonly type: string; readonly command: string; readonly name: string };
  };
}

const ROWS = {
  cuckoo: {
    id: 1,
    constant: 'familyCuckoo',
    prefix: 'cf',
    keyOps: ['delete', 'count'],
    className: 'CuckooFilter',
    what: 'a cuckoo filter',
    foreignReason: 'is-cuckoo-filter',
    options: ['capacity', 'falsePositiveRate', 'fingerprintBits', 'bucketSize', 'maxKicks', 'seed', 'expansion', 'semiSort'],
    can: { add: true, delete: true, count: true, addUnique: true, union: false, growth: true, patches: true, redisDump: false },
  },
  bloom: {
    id: 2,
    constant: 'familyBloom',
    prefix: 'bf',
    keyOps: [],
    className: 'BloomFilter',
    what: 'a Bloom filter',
    foreignReason: 'is-bloom-filter',
    options: ['capacity', 'falsePositiveRate', 'seed', 'expansion'],
    can: { add: true, delete: false, count: false, addUnique: false, union: true, growth: true, patches: true, redisDump: false },
  },
  /** RedisBloom's cuckoo filter (CF.*): answers and SCANDUMP bytes as the server's (js/filters/redis-cuckoo-filter.ts). */
  redisCuckoo: {
    id: 3,
    constant: 'familyRedisCuckoo',
    prefix: 'rc',
    keyOps: ['delete', 'count', 'add_unique'],
    className: 'RedisCuckooFilter',
    what: 'a Redis cuckoo filter (CF.*)',
    foreignReason: 'is-redis-cuckoo-filter',
    options: ['capacity', 'bucketSize', 'maxIterations', 'expansion'],
    can: { add: true, delete: true, count: true, addUnique: true, union: false, growth: true, patches: true, redisDump: { type: 'MBbloomCF', command: 'CF', name: 'cuckoo filter (CF)' } },
  },
  /** RedisBloom's scalable Bloom filter (BF.*): answers and SCANDUMP bytes as the server's (js/filters/redis-bloom-filter.ts). */
  redisBloom: {
    id: 4,
    constant: 'familyRedisBloom',
    prefix: 'rb',
    keyOps: ['add_new'],
    className: 'RedisBloomFilter',
    what: 'a Redis Bloom filter (BF.*)',
    foreignReason: 'is-redis-bloom-filter',
    options: ['errorRate', 'capacity', 'expansion', 'nonScaling'],
    can: { add: true, delete: false, count: false, addUnique: false, union: false, growth: true, patches: true, redisDump: { type: 'MBbloom--', command: 'BF', name: 'Bloom filter (BF)' } },
  },
  /**
   * A binary fuse filter (Graf and Lemire 2022): a static set, built once from all its keys (`build`), never added
   * to (js/filters/binary-fuse-filter.ts); its adds only collect the keys of a build.
   */
  binaryFuse: {
    id: 5,
    constant: 'familyBinaryFuse',
    prefix: 'bz',
    keyOps: [],
    className: 'BinaryFuseFilter',
    what: 'a binary fuse filter',
    foreignReason: 'is-binary-fuse-filter',
    options: ['falsePositiveRate', 'fingerprintBits', 'arity', 'seed', 'urls'],
    can: { add: false, delete: false, count: false, addUnique: false, union: false, growth: false, patches: true, redisDump: false },
  },
} as const satisfies Record<string, FamilyRow>;

/**
 * How a cuckoo filter stores its buckets: `'packed'`, b fingerprints of f bits
 * each; `'semi-sorted'` (b = 4 only), the four fingerprints sorted by their
 * 4-bit prefixes and the prefixes stored as one 12-bit index, one bit per item
 * less (Fan et al. 2014 §5.2).
 */
export type TableEncoding = 'packed' | 'semi-sorted';

/**
 * A cuckoo filter's bucket table encodings (cuckoo::TableEncoding, src/cuckoo/cuckoo_params.h; the format header's
 * encoding byte, docs/FORMAT.md §2): the name `info().encoding` gives, its number, and the core constant reporting it.
 */
const ENCODING_ROWS = {
  packed: { id: 0, constant: 'encodingPacked' },
  'semi-sorted': { id: 1, constant: 'encodingSemiSorted' },
} as const satisfies Record<TableEncoding, { readonly id: number; readonly constant: `encoding${string}` }>;

type Rows = typeof ROWS;
/** A family's key in the registry. */
export type FamilyName = keyof Rows;
/** A family's row. */
export type FamilyDescriptor = Rows[FamilyName];
/** The prefixes of the families' hot exports. */
export type ExportPrefix = FamilyDescriptor['prefix'];
/** The one-key operations only some families have, named without the family's prefix. */
export type KeyOpName = FamilyDescriptor['keyOps'][number];
/** The one-key exports that are not in every family's row: `(handle, key, len) => answer or -status`. */
export type KeyOp = { [N in FamilyName]: `${Rows[N]['prefix']}_${Rows[N]['keyOps'][number]}` }[FamilyName];
/**
 * The core constants that report the registry's numbers ('familyCuckoo', ..., 'encodingPacked', ...): part of what the
 * core reports at load (js/boundary/core-types.ts CoreConstants, which takes them from here).
 */
export type RegistryConstant = FamilyDescriptor['constant'] | (typeof ENCODING_ROWS)[TableEncoding]['constant'];

export const CUCKOO = ROWS.cuckoo;
export const BLOOM = ROWS.bloom;
export const REDIS_CUCKOO = ROWS.redisCuckoo;
export const REDIS_BLOOM = ROWS.redisBloom;
export const BINARY_FUSE = ROWS.binaryFuse;
export const ENCODINGS = ENCODING_ROWS;

/** Every family by its name. */
export const REGISTRY: Readonly<Rows> = ROWS;
/** Every family, in the core's order. */
export const FAMILIES: readonly FamilyDescriptor[] = Object.values(ROWS);
/** Every family's export prefix. */
export const PREFIXES: readonly ExportPrefix[] = FAMILIES.map((f) => f.prefix);
/** Every one-key export only some families have. */
export const KEY_OPS: readonly KeyOp[] = FAMILIES.flatMap((f) => f.keyOps.map((op) => `${f.prefix}_${op}` as KeyOp));

/** The family the core numbers `id`, if any. */
export function familyOf(id: number): FamilyDescriptor | undefined {
  return FAMILIES.find((f) => f.id === id);
}

/**
 * The export of a one-key operation only some families have (Core.keyOp):
 * `${prefix}_${op}`, made once per class so that no call builds a name.
 */
export function keyOpOf<F extends FamilyDescriptor>(family: F, op: F['keyOps'][number]): KeyOp {
  return `${family.prefix}_${op}` as KeyOp;
}

/**
 * Checks the registry against the core, when the module loads: each family's and encoding's number must be the one
 * the core reports.
 * @throws Error naming the first that differs (a build whose js/ and core disagree).
 */
export function checkRegistry(constants: Readonly<Record<RegistryConstant, number>>): void {
  for (const row of [...FAMILIES, ...Object.values(ENCODINGS)]) {
    if (constants[row.constant] !== row.id) {
      throw new Error(`the core numbers ${row.constant} ${constants[row.constant]}, this build ${row.id}: rebuild the package`);
    }
  }
}
