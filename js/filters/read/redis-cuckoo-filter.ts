/**
 * The Redis cuckoo filter as the reader (`cuckoo-wasm/reader`) has it: loaded from bytes, looked up, patched,
 * serialized and described. The full entry's RedisCuckooFilter (js/filters/redis-cuckoo-filter.ts) extends it with
 * creation, SCANDUMP / LOADCHUNK and the writers.
 */
import { named } from '../../common/named.js';
import { Key } from '../../common/checks.js';
import { REDIS_CUCKOO, keyOpOf } from '../../registry.js';
import { FamilyFilter, madeInfo } from '../family-filter.js';
import type { ReadCore } from '../../boundary/read-core.js';
import type { FilterObject } from '../../boundary/core-types.js';

const COUNT = keyOpOf(REDIS_CUCKOO, 'count');

/** `CF.INFO` of a {@link RedisCuckooFilter}: the server's labels camelCased, with its values. */
export interface RedisCuckooFilterInfo {
  /** The server's memory figure, bytes: the tables' bytes + 40 + 16 per sub-filter. */
  size: number;
  /** Buckets of the first sub-filter. */
  numberOfBuckets: number;
  /** Sub-filters: 1 at `CF.RESERVE`, one more each time the filter grows, fewer after a compaction frees some. */
  numberOfFilters: number;
  /** Fingerprints stored (adds minus deletes). */
  numberOfItemsInserted: number;
  /** Deletes since the last compaction (a delete past a tenth of the items compacts and starts it again at 0). */
  numberOfItemsDeleted: number;
  /** Slots per bucket b, 1–255 (`CF.RESERVE`'s BUCKETSIZE). */
  bucketSize: number;
  /** The growth factor: `CF.RESERVE`'s EXPANSION rounded up to a power of two, as the server stores it (3 → 4; 0: never grows). */
  expansionRate: number;
  /** Most swaps an add's kick chain may make (`CF.RESERVE`'s MAXITERATIONS). */
  maxIterations: number;
}

/** What the core's info() record gives: the CF.INFO fields and the serialized size. @internal */
export interface CoreInfo extends RedisCuckooFilterInfo {
  serializedSize: number;
}

/**
 * RedisBloom's cuckoo filter (`CF.*`: 8-bit fingerprints, buckets of b slots, sub-filters that grow), loaded
 * read-only from the bytes `toBytes()` wrote (docs/FORMAT.md, docs/redis.md). It is `cuckoo-wasm`'s
 * `RedisCuckooFilter` without creation, the writers and SCANDUMP / LOADCHUNK: every member here answers as that
 * class's does (and as the server does), for the same bytes.
 */
export class RedisCuckooFilter extends FamilyFilter {
  static {
    named(this, REDIS_CUCKOO.className);
  }

  /** Slots per bucket b. */
  readonly bucketSize: number;
  /** Kicks an add may make. */
  readonly maxIterations: number;
  /** @internal */
  protected constructor(core: ReadCore, object: FilterObject, info = madeInfo<CoreInfo>(core, object, new.target)) {
    const capacity = info.numberOfBuckets * info.bucketSize;
    super(core, object, REDIS_CUCKOO, { capacity, seedLow: 0, seedHigh: 0, expansion: info.expansionRate });
    this.bucketSize = info.bucketSize;
    this.maxIterations = info.maxIterations;
  }

  /**
   * Loads a filter from {@link toBytes} (this library's own format, docs/FORMAT.md version 4).
   * @throws FilterFormatError, ArgumentTypeError, ArgumentRangeError, OutOfMemoryError as CuckooFilter.fromBytes.
   */
  static async fromBytes(bytes: Uint8Array | ArrayBuffer): Promise<RedisCuckooFilter> {
    const { core, object } = await FamilyFilter.load(REDIS_CUCKOO, bytes);
    return new RedisCuckooFilter(core, object);
  }

  /**
   * `CF.COUNT`, as the server counts: the key's fingerprint's matches in its first bucket plus those in its alternate
   * bucket, in every sub-filter. Where the two are the same bucket (common in small tables), its matches count twice:
   * one add of such a key counts 2. (`CuckooFilter.count` counts such a bucket once.) Source:
   * ../shared/redis/README.md's "Limits", fixture `cf-count-twin`.
   * @returns an integer >= the key's adds not deleted (higher when other keys share its fingerprint and bucket, or
   *   its two buckets are one).
   * @throws ArgumentTypeError if key is neither a string nor a Uint8Array; FilterDisposedError after dispose().
   */
  count(key: Key): number {
    return this.core.keyOp(COUNT, this.liveAs(REDIS_CUCKOO), key);
  }

  /** Fingerprints stored (CF.INFO "Number of items inserted"). */
  get size(): number {
    return this.core.size(this.fx, this.live());
  }

  /** The upper bound of a non-member's false-positive rate: 1 − (1 − 2b/255)^sub-filters. */
  get falsePositiveRate(): number {
    return 1 - (1 - (2 * this.bucketSize) / 255) ** this.subFilterCount;
  }

  /** `CF.INFO`, with the server's values. @throws FilterDisposedError after dispose(). */
  info(): RedisCuckooFilterInfo {
    // The core's fields (src/redis/redis_cuckoo_info.h), CF.INFO's all but the serialized size.
    const { serializedSize: _, ...info } = this.infoAs<CoreInfo>(REDIS_CUCKOO);
    return info;
  }
}
