/**
 * The Redis Bloom filter as the reader (`cuckoo-wasm/reader`) has it: loaded from bytes, looked up, patched,
 * serialized and described. The full entry's RedisBloomFilter (js/filters/redis-bloom-filter.ts) extends it with
 * creation, SCANDUMP / LOADCHUNK and the writers.
 */
import { named } from '../../common/named.js';
import { REDIS_BLOOM } from '../../registry.js';
import { FamilyFilter, madeInfo } from '../family-filter.js';
import type { ReadCore } from '../../boundary/read-core.js';
import type { FilterObject } from '../../boundary/core-types.js';


/** `BF.INFO` of a {@link RedisBloomFilter}: the server's labels camelCased, with its values. */
export interface RedisBloomFilterInfo {
  /** Items the links are sized for, summed. */
  capacity: number;
  /** The server's memory figure, bytes: the bit arrays' bytes + 32 + 64 per link. */
  size: number;
  /** Links (sub-filters): 1 at `BF.RESERVE`, one more each time the filter grows. */
  numberOfFilters: number;
  /** Items added (an add of an item the filter already has does not count). */
  numberOfItemsInserted: number;
  /** The growth factor; null for a nonScaling filter. */
  expansionRate: number | null;
}

/**
 * What the core's info() record gives: the BF.INFO fields, the error rate, the first link's capacity and the
 * serialized size. @internal
 */
export interface CoreInfo extends RedisBloomFilterInfo {
  errorRate: number;
  /** Items the first link is sized for. */
  initialCapacity: number;
  serializedSize: number;
}

/**
 * RedisBloom's scalable Bloom filter (`BF.*`), loaded read-only from the bytes `toBytes()` wrote (docs/FORMAT.md,
 * docs/redis.md). It is `cuckoo-wasm`'s `RedisBloomFilter` without creation, the writers and SCANDUMP / LOADCHUNK:
 * every member here answers as that class's does (and as the server does), for the same bytes.
 */
export class RedisBloomFilter extends FamilyFilter {
  static {
    named(this, REDIS_BLOOM.className);
  }

  /** The error rate BF.RESERVE was given (the first link is sized for half of it when the filter scales). */
  readonly errorRate: number;
  /** True if the filter never grows. */
  readonly nonScaling: boolean;
  /** @internal */
  protected constructor(core: ReadCore, object: FilterObject, info = madeInfo<CoreInfo>(core, object, new.target)) {
    super(core, object, REDIS_BLOOM, { capacity: info.initialCapacity, seedLow: 0, seedHigh: 0, expansion: info.expansionRate ?? 0 });
    this.errorRate = info.errorRate;
    this.nonScaling = info.expansionRate === null;
  }

  /**
   * Loads a filter from {@link toBytes} (this library's own format, docs/FORMAT.md version 4).
   * @throws FilterFormatError, ArgumentTypeError, ArgumentRangeError, OutOfMemoryError as BloomFilter.fromBytes.
   */
  static async fromBytes(bytes: Uint8Array | ArrayBuffer): Promise<RedisBloomFilter> {
    const { core, object } = await FamilyFilter.load(REDIS_BLOOM, bytes);
    return new RedisBloomFilter(core, object);
  }

  /** Items added (BF.INFO "Number of items inserted"). */
  get size(): number {
    return this.core.size(this.fx, this.live());
  }

  /** The error rate the filter was created for ({@link errorRate}). */
  get falsePositiveRate(): number {
    return this.errorRate;
  }

  /** `BF.INFO`, with the server's values. @throws FilterDisposedError after dispose(). */
  info(): RedisBloomFilterInfo {
    // The core's fields (src/redis/redis_bloom_info.h) less those BF.INFO does not show.
    const { errorRate: _e, initialCapacity: _c, serializedSize: _s, ...info } = this.infoAs<CoreInfo>(REDIS_BLOOM);
    return info;
  }
}
