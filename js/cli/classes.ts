/**
 * Each family's class, keyed by the registry (js/registry.ts): a family the
 * registry declares and this table lacks does not compile. The CLI picks a
 * file's class, a Redis key's class and a filter's family from here.
 */
import { BloomFilter, CuckooFilter, RedisBloomFilter, RedisCuckooFilter } from '../index.js';
import { FamilyDescriptor, FamilyName, REGISTRY } from '../registry.js';

const CLASSES = {
  cuckoo: CuckooFilter,
  bloom: BloomFilter,
  redisCuckoo: RedisCuckooFilter,
  redisBloom: RedisBloomFilter,
} as const satisfies Record<FamilyName, unknown>;

/** A filter of any family. */
export type AnyFilter = Awaited<ReturnType<(typeof CLASSES)[FamilyName]['fromBytes']>>;
/** A RedisBloom filter of this library. */
export type RedisFilter = RedisCuckooFilter | RedisBloomFilter;

const NAMES = Object.keys(CLASSES) as FamilyName[];

/** The class of `family`'s filters. */
export function classOf(family: FamilyDescriptor): (typeof CLASSES)[FamilyName] {
  return CLASSES[NAMES.find((n) => REGISTRY[n] === family)!];
}

/** The registry's row of `filter`'s family. */
export function familyOfFilter(filter: AnyFilter): FamilyDescriptor {
  return REGISTRY[NAMES.find((n) => filter instanceof CLASSES[n])!];
}

/** The class of a RedisBloom family's filters (SCANDUMP loaders). */
export function redisClassOf(family: FamilyDescriptor): typeof RedisCuckooFilter | typeof RedisBloomFilter {
  const cls = classOf(family);
  if (cls !== RedisCuckooFilter && cls !== RedisBloomFilter) throw new Error(`${family.className} is not a RedisBloom family`);
  return cls;
}
