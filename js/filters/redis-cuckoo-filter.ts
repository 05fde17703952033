import { Key } from '../common/checks.js';
import { ArgumentRangeError } from '../common/errors.js';
import { REDIS_CUCKOO, keyOpOf } from '../registry.js';
import { FamilyFilter } from './family-filter.js';
import { loadCore } from '../boundary/load.js';
import { checkInteger, checkOptions } from '../common/options.js';
import { RedisFilter, ScanDumpChunk, ScanDumpLoader } from './redis-filter.js';
import { Core, Handle } from '../boundary/wasm-core.js';

const ADD_UNIQUE = keyOpOf(REDIS_CUCKOO, 'add_unique');
const COUNT = keyOpOf(REDIS_CUCKOO, 'count');
const DELETE = keyOpOf(REDIS_CUCKOO, 'delete');

/** Options of {@link RedisCuckooFilter.create}: `CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS n] [EXPANSION e]`. */
export interface RedisCuckooFilterOptions {
  /**
   * Items the first sub-filter is sized for, an integer >= 2·bucketSize (the server's
   * "Capacity must be at least (BucketSize * 2)"): it has the power of two of buckets at or
   * above ⌊capacity / bucketSize⌋.
   */
  capacity: number;
  /** Slots per bucket b, 1–255. Default 2. */
  bucketSize?: number | undefined;
  /** Kicks (swaps) an add may make before the filter grows or is full, 1–65535. Default 20. */
  maxIterations?: number | undefined;
  /**
   * Growth factor e, 0–32768 (rounded up to a power of two for the new sub-filters' size):
   * when an add finds no room, a sub-filter of n·e^i buckets is added, at most 32 in all. 0: the
   * filter never grows and add throws FilterFullError ("Filter is full"). Default 1.
   */
  expansion?: number | undefined;
}

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
  /** The growth factor as `CF.RESERVE` was given it (EXPANSION; 0: never grows). */
  expansionRate: number;
  /** Most swaps an add's kick chain may make (`CF.RESERVE`'s MAXITERATIONS). */
  maxIterations: number;
}

interface CoreInfo extends RedisCuckooFilterInfo {
  serializedSize: number;
}

/**
 * RedisBloom's cuckoo filter (Redis 8's `CF.*`), byte for byte: the same answers as the
 * server's `CF.EXISTS` (false positives included) and the same SCANDUMP chunks, so a filter
 * pulled from Redis answers in a browser, and one built here loads into Redis with
 * `CF.LOADCHUNK`. Fingerprints are 8 bits (MurmurHash64A of the key, seed 0): about 2b/255
 * false positives per sub-filter (1.6% at b = 2); for a filter of this library's own, prefer
 * {@link CuckooFilter}, smaller and more accurate. Keys as the server sees them: a string is
 * its UTF-8 bytes, a Uint8Array its bytes. Format: docs/FORMAT.md, "Redis cuckoo filter".
 *
 * @example
 * ```ts
 * const f = await RedisCuckooFilter.fromScanDump(chunksFromRedis);
 * f.has('phish.example'); // as CF.EXISTS answers
 * ```
 */
export class RedisCuckooFilter extends RedisFilter {
  /** Slots per bucket b. */
  readonly bucketSize: number;
  /** Kicks an add may make. */
  readonly maxIterations: number;
  /** @internal */
  protected readonly fullText = 'Filter is full';

  private constructor(core: Core, handle: Handle, info = core.info<CoreInfo>(REDIS_CUCKOO.id, handle)) {
    const capacity = info.numberOfBuckets * info.bucketSize;
    super(core, handle, REDIS_CUCKOO, { capacity, seedLow: 0, seedHigh: 0, expansion: info.expansionRate });
    this.bucketSize = info.bucketSize;
    this.maxIterations = info.maxIterations;
  }

  /**
   * An empty filter, as `CF.RESERVE` makes it.
   * @throws ArgumentTypeError for options that are not an object, unknown, or of the wrong type.
   * @throws ArgumentRangeError for values outside CF.RESERVE's ranges, or a filter past 1 GiB.
   * @throws OutOfMemoryError, WasmLoadError.
   * @example
   * ```ts
   * const f = await RedisCuckooFilter.create({ capacity: 1000, bucketSize: 2, expansion: 1 });
   * ```
   */
  static async create(options: RedisCuckooFilterOptions): Promise<RedisCuckooFilter> {
    checkOptions(options, 'RedisCuckooFilter.create', REDIS_CUCKOO.options);
    const bucketSize = checkInteger('bucketSize', options.bucketSize ?? 2, 1, 255);
    const maxIterations = checkInteger('maxIterations', options.maxIterations ?? 20, 1, 65535);
    const expansion = checkInteger('expansion', options.expansion ?? 1, 0, 32768);
    const capacity = checkInteger('capacity', options.capacity, 1, Number.MAX_SAFE_INTEGER);
    if (capacity < 2 * bucketSize) {
      throw new ArgumentRangeError(`capacity must be at least bucketSize * 2 (${2 * bucketSize}), got ${capacity}`);
    }
    const core = await loadCore();
    const r = core.cold.redisCuckooCreate(capacity, bucketSize, maxIterations, expansion);
    return new RedisCuckooFilter(core, FamilyFilter.opened(core, r, capacity));
  }

  /**
   * The filter whose `CF.SCANDUMP` chunks these are, in order (what `CF.LOADCHUNK` takes).
   * @param chunks - an iterable or async iterable of `[iterator, Uint8Array]` pairs.
   * @throws FilterFormatError with a reason for a chunk or header the server would not load
   *   ({@link ScanDumpLoader}); ArgumentTypeError for a pair that is not `[number, Uint8Array]`.
   */
  static async fromScanDump(chunks: Iterable<ScanDumpChunk> | AsyncIterable<ScanDumpChunk>): Promise<RedisCuckooFilter> {
    return RedisFilter.fromChunks(REDIS_CUCKOO, chunks, (core, handle) => new RedisCuckooFilter(core, handle));
  }

  /** A {@link ScanDumpLoader}: the chunks of {@link fromScanDump}, pushed one at a time. */
  static async scanDumpLoader(): Promise<ScanDumpLoader<RedisCuckooFilter>> {
    return RedisFilter.loader(REDIS_CUCKOO, (core, handle) => new RedisCuckooFilter(core, handle));
  }

  /**
   * Loads a filter from {@link toBytes} (this library's own format, docs/FORMAT.md version 4).
   * @throws FilterFormatError, ArgumentTypeError, ArgumentRangeError, OutOfMemoryError as CuckooFilter.fromBytes.
   */
  static async fromBytes(bytes: Uint8Array | ArrayBuffer): Promise<RedisCuckooFilter> {
    const { core, handle } = await FamilyFilter.load(REDIS_CUCKOO, bytes);
    return new RedisCuckooFilter(core, handle);
  }

  /**
   * `CF.ADDNX`: adds the key unless {@link has} is already true for it.
   * @returns true if added, false if it was there (nothing changed).
   * @throws FilterFullError as {@link add}; ArgumentTypeError, FilterDisposedError.
   */
  addUnique(key: Key): boolean {
    return this.addIfNew(ADD_UNIQUE, key);
  }

  /**
   * `CF.DEL`: removes one stored copy of the key's fingerprint (sub-filters newest first,
   * then the key's first bucket, then its alternate). Delete only keys that were added:
   * deleting another key that shares a fingerprint removes that one's. As on the server, a
   * delete that leaves more than one sub-filter and more deletes than a tenth of the items
   * compacts the filter ({@link compact}, stopping at the first sub-filter it cannot empty);
   * `info().numberOfItemsDeleted` then starts again from 0, and {@link subFilterCount},
   * {@link byteLength} and the SCANDUMP chunks may shrink. Format: docs/FORMAT.md §15.3.
   * @returns true if a copy was removed, false if none matched (nothing changed).
   * @throws ArgumentTypeError if key is neither a string nor a Uint8Array; FilterDisposedError after dispose().
   */
  delete(key: Key): boolean {
    return this.core.keyOp(DELETE, this.live(), key) === 1;
  }

  /**
   * `CF.COMPACT`: moves fingerprints from newer sub-filters into older ones where the key's
   * buckets there have an empty slot, from the newest sub-filter down to the second, and
   * frees the newest sub-filters it empties; `info().numberOfItemsDeleted` becomes 0. Every
   * stored key is still found (no false negatives), and the bytes are the server's after
   * the same command. Allocates nothing. Format: docs/FORMAT.md §15.3.
   * @throws FilterDisposedError after dispose().
   * @example
   * ```ts
   * for (const gone of removed) f.delete(gone);
   * f.compact(); // as CF.COMPACT: fewer sub-filters where the rest fit in the older ones
   * ```
   */
  compact(): void {
    this.core.cold.redisCuckooCompact(this.live());
  }

  /**
   * `CF.COUNT`: stored copies of the key's fingerprint in its buckets, in every sub-filter.
   * @returns an integer >= the key's adds not deleted (higher when other keys share its fingerprint and bucket).
   * @throws ArgumentTypeError if key is neither a string nor a Uint8Array; FilterDisposedError after dispose().
   */
  count(key: Key): number {
    return this.core.keyOp(COUNT, this.live(), key);
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
    const i = this.core.info<CoreInfo>(REDIS_CUCKOO.id, this.live());
    return {
      size: i.size,
      numberOfBuckets: i.numberOfBuckets,
      numberOfFilters: i.numberOfFilters,
      numberOfItemsInserted: i.numberOfItemsInserted,
      numberOfItemsDeleted: i.numberOfItemsDeleted,
      bucketSize: i.bucketSize,
      expansionRate: i.expansionRate,
      maxIterations: i.maxIterations,
    };
  }
}
