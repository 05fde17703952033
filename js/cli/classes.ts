/**
 * Each family's class, found by the registry's class name among the package's exports (js/registry.ts): the CLI
 * picks a file's class, a Redis key's class and a filter's family from here.
 */
import * as lib from '../index.js';
import { FAMILIES, FamilyDescriptor } from '../registry.js';

/** The class of `family`'s filters. */
export function classOf<F extends FamilyDescriptor>(family: F): (typeof lib)[F['className']] {
  return lib[family.className as F['className']];
}

/** A filter of any family. */
export type AnyFilter = Awaited<ReturnType<(typeof lib)[FamilyDescriptor['className']]['fromBytes']>>;
/** A RedisBloom filter of this library. */
export type RedisFilter = lib.RedisCuckooFilter | lib.RedisBloomFilter;

/** The registry's row of `filter`'s family. */
export function familyOfFilter(filter: AnyFilter): FamilyDescriptor {
  return FAMILIES.find((f) => filter instanceof classOf(f))!;
}

/** The class of a RedisBloom family's filters (SCANDUMP loaders). */
export function redisClassOf(family: FamilyDescriptor): typeof lib.RedisCuckooFilter | typeof lib.RedisBloomFilter {
  const cls = classOf(family);
  if (cls !== lib.RedisCuckooFilter && cls !== lib.RedisBloomFilter) throw new Error(`${family.className} is not a RedisBloom family`);
  return cls;
}
