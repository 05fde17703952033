import { named } from '../common/named.js';
import { Key } from '../common/checks.js';
import { ArgumentRangeError } from '../common/errors.js';
import { REDIS_CUCKOO, keyOpOf } from '../registry.js';
import { FamilyFilter } from './family-filter.js';
import { RedisCuckooFilter as RedisCuckooFilterReader, type CoreInfo } from './read/redis-cuckoo-filter.js';
import { loadFullCore } from '../boundary/load.js';
import { checkInteger, checkOptions, toCapacity, toRedisExpansion } from '../common/options.js';
import { type RedisDump, ScanDumpChunk, ScanDumpLoader, addIfNew, chunkLoader, fromChunks, installRedisMethods } from './redis-filter.js';
import type { Core } from '../boundary/wasm-core.js';
import type { FilterObject } from '../boundary/core-types.js';

const ADD_UNIQUE = keyOpOf(REDIS_CUCKOO, 'add_unique');
const DELETE = keyOpOf(REDIS_CUCKOO, 'delete');


export type { RedisCuckooFilterInfo } from './read/redis-cuckoo-filter.js';

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
   * Growth factor e, 0–32768, stored rounded up to a power of two as the server stores it (3
   * becomes 4 in `info().expansionRate` and the dump): when an add finds no room, a sub-filter of
   * n·e^i buckets is added. As on the server, an `add`, `addUnique` or `addAll` (one `CF.INSERT`)
   * that starts with 32 sub-filters or more throws FilterFullError ("Maximum expansions
   * reached") and adds nothing, even where a slot is free; one `addAll` that starts below 32
   * grows on past it (up to 255 sub-filters and 1 GiB). 0: the filter never grows and add throws
   * FilterFullError ("Filter is full"). Default 1.
   */
  expansion?: number | undefined;
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
export class RedisCuckooFilter extends RedisCuckooFilterReader {
  /** @internal */
  protected readonly fullText = 'Filter is full';

  /** @internal */
  protected constructor(core: Core, object: FilterObject, info?: CoreInfo) {
    super(core, object, info);
  }

  static {
    named(this, REDIS_CUCKOO.className);
    installRedisMethods(this);
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
    checkOptions(options, REDIS_CUCKOO);
    const bucketSize = checkInteger('bucketSize', options.bucketSize ?? 2, 1, 255);
    const maxIterations = checkInteger('maxIterations', options.maxIterations ?? 20, 1, 65535);
    const expansion = toRedisExpansion(options.expansion, 1);
    const capacity = toCapacity(options.capacity);
    if (capacity < 2 * bucketSize) {
      throw new ArgumentRangeError(`capacity must be at least bucketSize * 2 (${2 * bucketSize}), got ${capacity}`);
    }
    const core = await loadFullCore();
    const made = core.create(REDIS_CUCKOO.id, { capacity, bucketSize, maxIterations, expansion });
    return new RedisCuckooFilter(core, FamilyFilter.opened(core, made, capacity));
  }

  /**
   * The filter whose `CF.SCANDUMP` chunks these are, in order (what `CF.LOADCHUNK` takes).
   * @param chunks - an iterable or async iterable of `[iterator, Uint8Array]` pairs.
   * @throws FilterFormatError with a reason for a chunk or header the server would not load
   *   ({@link ScanDumpLoader}); ArgumentTypeError for a pair that is not `[number, Uint8Array]`.
   */
  static async fromScanDump(chunks: Iterable<ScanDumpChunk> | AsyncIterable<ScanDumpChunk>): Promise<RedisCuckooFilter> {
    return fromChunks(REDIS_CUCKOO, chunks, (core, object) => new RedisCuckooFilter(core, object));
  }

  /** A {@link ScanDumpLoader}: the chunks of {@link fromScanDump}, pushed one at a time. */
  static async scanDumpLoader(): Promise<ScanDumpLoader<RedisCuckooFilter>> {
    return chunkLoader(REDIS_CUCKOO, (core, object) => new RedisCuckooFilter(core, object));
  }

  /**
   * Loads a filter from {@link toBytes} (this library's own format, docs/FORMAT.md version 4).
   * @throws FilterFormatError, ArgumentTypeError, ArgumentRangeError, OutOfMemoryError as CuckooFilter.fromBytes.
   */
  static async fromBytes(bytes: Uint8Array | ArrayBuffer): Promise<RedisCuckooFilter> {
    const { core, object } = await FamilyFilter.load(REDIS_CUCKOO, bytes);
    return new RedisCuckooFilter(core as Core, object);
  }

  /**
   * `CF.ADDNX`: adds the key unless {@link has} is already true for it.
   * @returns true if added, false if it was there (nothing changed).
   * @throws FilterFullError as {@link add}; ArgumentTypeError, FilterDisposedError.
   */
  addUnique(key: Key): boolean {
    return addIfNew(this, REDIS_CUCKOO, ADD_UNIQUE, key);
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
    return this.core.keyOp(DELETE, this.liveAs(REDIS_CUCKOO), key) === 1;
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
    this.liveAs(REDIS_CUCKOO);
    (this.core as Core).redisCuckooCompact(this.liveObject());
  }
}

/** The writers and SCANDUMP of the full entry's Redis classes (js/filters/writers.ts, js/filters/redis-filter.ts). */
export interface RedisCuckooFilter extends RedisDump {}
