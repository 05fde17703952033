/**
 * The filter families, each described once: its number in the core
 * (src/family.h), the prefix of its hot exports (bindings/cuckoo_bindings.cc
 * HOT_EXPORTS), the options its `create` takes, and how an error names it. A
 * new family is one more descriptor here, a row in the bindings' family
 * table, and a small class over js/family-filter.ts.
 */
import type { ExportPrefix, KeyOp, KeyOpName } from './wasm-core.js';

export interface FamilyDescriptor {
  /** cuckoo::Family (src/family.h); tests/js/boundary-constants.test.ts checks it against the core. */
  readonly id: number;
  /** Its hot exports are `${prefix}_add`, `${prefix}_contain`, ... */
  readonly prefix: ExportPrefix;
  /** The class whose `fromBytes` loads its bytes. */
  readonly className: string;
  /** How a message names a filter of it. */
  readonly what: string;
  /** FilterFormatError's reason when its bytes are given to another family's `fromBytes`. */
  readonly foreignReason: 'is-cuckoo-filter' | 'is-bloom-filter' | 'is-redis-cuckoo-filter' | 'is-redis-bloom-filter';
  /** The options of its `create`. */
  readonly options: readonly string[];
}

export const CUCKOO: FamilyDescriptor = {
  id: 1,
  prefix: 'cf',
  className: 'CuckooFilter',
  what: 'a cuckoo filter',
  foreignReason: 'is-cuckoo-filter',
  options: ['capacity', 'falsePositiveRate', 'fingerprintBits', 'bucketSize', 'maxKicks', 'seed', 'expansion', 'semiSort'],
};

export const BLOOM: FamilyDescriptor = {
  id: 2,
  prefix: 'bf',
  className: 'BloomFilter',
  what: 'a Bloom filter',
  foreignReason: 'is-bloom-filter',
  options: ['capacity', 'falsePositiveRate', 'seed', 'expansion'],
};

/** RedisBloom's cuckoo filter (CF.*): answers and SCANDUMP bytes as the server's (js/redis-cuckoo-filter.ts). */
export const REDIS_CUCKOO: FamilyDescriptor = {
  id: 3,
  prefix: 'rc',
  className: 'RedisCuckooFilter',
  what: 'a Redis cuckoo filter (CF.*)',
  foreignReason: 'is-redis-cuckoo-filter',
  options: ['capacity', 'bucketSize', 'maxIterations', 'expansion'],
};

/** RedisBloom's scalable Bloom filter (BF.*): answers and SCANDUMP bytes as the server's (js/redis-bloom-filter.ts). */
export const REDIS_BLOOM: FamilyDescriptor = {
  id: 4,
  prefix: 'rb',
  className: 'RedisBloomFilter',
  what: 'a Redis Bloom filter (BF.*)',
  foreignReason: 'is-redis-bloom-filter',
  options: ['errorRate', 'capacity', 'expansion', 'nonScaling'],
};

export const FAMILIES: readonly FamilyDescriptor[] = [CUCKOO, BLOOM, REDIS_CUCKOO, REDIS_BLOOM];

/** The family the core numbers `id`, if any. */
export function familyOf(id: number): FamilyDescriptor | undefined {
  return FAMILIES.find((f) => f.id === id);
}

/**
 * The export of a one-key operation only some families have (Core.keyOp):
 * `${prefix}_${op}`, made once per class so that no call builds a name.
 */
export function keyOpOf(family: FamilyDescriptor, op: KeyOpName): KeyOp {
  return `${family.prefix}_${op}` as KeyOp;
}
