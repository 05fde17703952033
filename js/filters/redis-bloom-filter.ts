import { named } from '../common/named.js';
import { Key, describe } from '../common/checks.js';
import { ArgumentRangeError, ArgumentTypeError } from '../common/errors.js';
import { REDIS_BLOOM, keyOpOf } from '../registry.js';
import { FamilyFilter } from './family-filter.js';
import { RedisBloomFilter as RedisBloomFilterReader, type CoreInfo } from './read/redis-bloom-filter.js';
import { loadFullCore } from '../boundary/load.js';
import { checkOptions, toCapacity, toRedisExpansion } from '../common/options.js';
import { type RedisDump, ScanDumpChunk, ScanDumpLoader, addIfNew, chunkLoader, fromChunks, installRedisMethods } from './redis-filter.js';
import type { Core } from '../boundary/wasm-core.js';
import type { FilterObject } from '../boundary/core-types.js';

const ADD_NEW = keyOpOf(REDIS_BLOOM, 'add_new');


export type { RedisBloomFilterInfo } from './read/redis-bloom-filter.js';

/** Options of {@link RedisBloomFilter.create}: `BF.RESERVE key errorRate capacity [EXPANSION e] [NONSCALING]`. */
export interface RedisBloomFilterOptions {
  /**
   * The false-positive rate the filter is sized for, strictly between 0 and 1 (BF.RESERVE's range: "a decimal
   * strictly between 0 and 1", redis.io's probabilistic data type errors for Redis 8).
   */
  errorRate: number;
  /** Items the first link is sized for, an integer from 1 to 2^30 (Redis 8's range). */
  capacity: number;
  /**
   * Growth factor, an integer 0–32768: when the newest link holds its capacity, a link of
   * capacity · expansion items at half the error rate is added. 0 means nonScaling. Default 2.
   */
  expansion?: number | undefined;
  /**
   * True: the filter never grows, and an add past its capacity throws FilterFullError ("non scaling
   * filter is full"). Its SCANDUMP header stores growth 2 (the default), or 0 when `expansion` is 0.
   */
  nonScaling?: boolean | undefined;
}

/**
 * RedisBloom's scalable Bloom filter (Redis 8's `BF.*`), byte for byte: the same answers as the
 * server's `BF.EXISTS` (false positives included) and the same SCANDUMP chunks, for
 * `BF.LOADCHUNK`. Keys as the server sees them: a string is its UTF-8 bytes, a Uint8Array its
 * bytes. Format: docs/FORMAT.md, "Redis Bloom filter". No delete (as the server).
 *
 * @example
 * ```ts
 * const f = await RedisBloomFilter.create({ errorRate: 0.01, capacity: 10_000 });
 * f.add('phish.example');
 * const chunks = f.toScanDump(); // for BF.LOADCHUNK key it chunk
 * ```
 */
export class RedisBloomFilter extends RedisBloomFilterReader {
  /** @internal */
  protected readonly fullText = 'non scaling filter is full';

  /** @internal */
  protected constructor(core: Core, object: FilterObject, info?: CoreInfo) {
    super(core, object, info);
  }

  static {
    named(this, REDIS_BLOOM.className);
    installRedisMethods(this);
  }

  /**
   * An empty filter, as `BF.RESERVE` makes it.
   * @throws ArgumentTypeError for options that are not an object, unknown, or of the wrong type.
   * @throws ArgumentRangeError for values outside BF.RESERVE's ranges, expansion with nonScaling
   *   (the server's "Nonscaling filters cannot expand"), or a filter past 1 GiB.
   * @throws OutOfMemoryError, WasmLoadError.
   * @example
   * ```ts
   * const f = await RedisBloomFilter.create({ errorRate: 0.001, capacity: 1000, expansion: 2 });
   * ```
   */
  static async create(options: RedisBloomFilterOptions): Promise<RedisBloomFilter> {
    checkOptions(options, REDIS_BLOOM);
    const errorRate = options.errorRate;
    if (typeof errorRate !== 'number') throw new ArgumentTypeError(`errorRate must be a number, got ${describe(errorRate)}`);
    if (!(errorRate > 0 && errorRate < 1)) throw new ArgumentRangeError(`errorRate must be strictly between 0 and 1, got ${errorRate}`);
    const capacity = toCapacity(options.capacity, 2 ** 30);
    const expansion = toRedisExpansion(options.expansion, 2);
    const nonScaling = options.nonScaling ?? false;
    if (typeof nonScaling !== 'boolean') throw new ArgumentTypeError(`nonScaling must be a boolean, got ${describe(nonScaling)}`);
    if (nonScaling && options.expansion !== undefined && expansion !== 0) {
      throw new ArgumentRangeError('a nonScaling filter cannot expand: give expansion or nonScaling, not both');
    }
    const core = await loadFullCore();
    const made = core.create(REDIS_BLOOM.id, { errorRate, capacity, expansion, nonScaling });
    return new RedisBloomFilter(core, FamilyFilter.opened(core, made, capacity));
  }

  /**
   * The filter whose `BF.SCANDUMP` chunks these are, in order (what `BF.LOADCHUNK` takes).
   * @param chunks - an iterable or async iterable of `[iterator, Uint8Array]` pairs.
   * @throws FilterFormatError with a reason for a chunk or header the server would not load
   *   ({@link ScanDumpLoader}); ArgumentTypeError for a pair that is not `[number, Uint8Array]`.
   */
  static async fromScanDump(chunks: Iterable<ScanDumpChunk> | AsyncIterable<ScanDumpChunk>): Promise<RedisBloomFilter> {
    return fromChunks(REDIS_BLOOM, chunks, (core, object) => new RedisBloomFilter(core, object));
  }

  /** A {@link ScanDumpLoader}: the chunks of {@link fromScanDump}, pushed one at a time. */
  static async scanDumpLoader(): Promise<ScanDumpLoader<RedisBloomFilter>> {
    return chunkLoader(REDIS_BLOOM, (core, object) => new RedisBloomFilter(core, object));
  }

  /**
   * Loads a filter from {@link toBytes} (this library's own format, docs/FORMAT.md version 4).
   * @throws FilterFormatError, ArgumentTypeError, ArgumentRangeError, OutOfMemoryError as BloomFilter.fromBytes.
   */
  static async fromBytes(bytes: Uint8Array | ArrayBuffer): Promise<RedisBloomFilter> {
    const { core, object } = await FamilyFilter.load(REDIS_BLOOM, bytes);
    return new RedisBloomFilter(core as Core, object);
  }

  /**
   * `BF.ADD` with its answer: adds the key unless {@link has} is already true for it.
   * @returns true if added, false if the filter already had it (nothing changed).
   * @throws FilterFullError for a full nonScaling filter, or one at 32 links; ArgumentTypeError, FilterDisposedError.
   */
  addNew(key: Key): boolean {
    return addIfNew(this, REDIS_BLOOM, ADD_NEW, key);
  }
}

/** The writers and SCANDUMP of the full entry's Redis classes (js/filters/writers.ts, js/filters/redis-filter.ts). */
export interface RedisBloomFilter extends RedisDump {}
