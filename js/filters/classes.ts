/**
 * The full entry's class of each family, keyed by the registry's class names (js/registry.ts), so that the table
 * names every family the registry has and no other: the CLI, the publisher and the full entry's FilterFeed pick a
 * file's class, a Redis key's class and a filter's family from here.
 */
import { CuckooFilter } from './cuckoo-filter.js';
import { BloomFilter } from './bloom-filter.js';
import { RedisCuckooFilter } from './redis-cuckoo-filter.js';
import { RedisBloomFilter } from './redis-bloom-filter.js';
import { BinaryFuseFilter } from './binary-fuse-filter.js';
import { FAMILIES, FamilyDescriptor } from '../registry.js';

/** Each family's class, by its registry class name. */
export const FULL_CLASSES = { CuckooFilter, BloomFilter, RedisCuckooFilter, RedisBloomFilter, BinaryFuseFilter } satisfies {
  readonly [N in FamilyDescriptor['className']]: unknown;
};

/** The class of `family`'s filters. */
export function classOf<F extends FamilyDescriptor>(family: F): (typeof FULL_CLASSES)[F['className']] {
  return FULL_CLASSES[family.className as F['className']];
}

/** A filter of any family of the full entry (`cuckoo-wasm`). */
export type AnyFilter = Awaited<ReturnType<(typeof FULL_CLASSES)[FamilyDescriptor['className']]['fromBytes']>>;
/** A RedisBloom filter of this library. */
export type RedisFilter = RedisCuckooFilter | RedisBloomFilter;

/** The registry's row of `filter`'s family. */
export function familyOfFilter(filter: AnyFilter): FamilyDescriptor {
  return FAMILIES.find((f) => filter instanceof classOf(f))!;
}

/** The class of a RedisBloom family's filters (SCANDUMP loaders). */
export function redisClassOf(family: FamilyDescriptor): typeof RedisCuckooFilter | typeof RedisBloomFilter {
  const cls = classOf(family);
  if (cls !== RedisCuckooFilter && cls !== RedisBloomFilter) throw new Error(`${family.className} is not a RedisBloom family`);
  return cls;
}
