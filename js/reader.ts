/**
 * cuckoo-wasm/reader: the package's read-only entry, for pages, extensions and workers that load a filter's bytes,
 * look keys and URLs up, apply patches and store the result, and never build a filter. Every family is here
 * (CuckooFilter, both table encodings; BloomFilter; RedisCuckooFilter; RedisBloomFilter; BinaryFuseFilter) with `fromBytes`, the
 * lookups, `applyPatch`, `toBytes`, `info()`, the read-only properties and `dispose`; and `canonicalizeUrl`,
 * `urlExpressions`, `applyPatchBytes`, `patchInfo`, `initWasm`, the error classes, and `FilterFeed` (docs/FEED.md),
 * which follows a feed with these classes, and its stores. Its WebAssembly module
 * (cuckoo-reader.wasm) is built from the same C++ as the full entry's, without the writers (CMakeLists.txt), so
 * the same bytes give the same answers, the same bytes out and the same errors. Code written against it compiles
 * unchanged against the full entry (`cuckoo-wasm`), whose classes extend these.
 *
 * @packageDocumentation
 */
export { CuckooFilter } from './filters/read/cuckoo-filter.js';
export type { CuckooFilterInfo, CuckooSubFilterInfo } from './filters/read/cuckoo-filter.js';
export { BloomFilter } from './filters/read/bloom-filter.js';
export type { BloomFilterInfo, BloomSubFilterInfo } from './filters/read/bloom-filter.js';
export { RedisCuckooFilter } from './filters/read/redis-cuckoo-filter.js';
export type { RedisCuckooFilterInfo } from './filters/read/redis-cuckoo-filter.js';
export { RedisBloomFilter } from './filters/read/redis-bloom-filter.js';
export type { RedisBloomFilterInfo } from './filters/read/redis-bloom-filter.js';
export { BinaryFuseFilter } from './filters/read/binary-fuse-filter.js';
export type { BinaryFuseFilterInfo } from './filters/read/binary-fuse-filter.js';
export * from './entry-exports.js';

import { CuckooFilter as CuckooFilterClass } from './filters/read/cuckoo-filter.js';
import { BloomFilter as BloomFilterClass } from './filters/read/bloom-filter.js';
import { RedisCuckooFilter as RedisCuckooFilterClass } from './filters/read/redis-cuckoo-filter.js';
import { RedisBloomFilter as RedisBloomFilterClass } from './filters/read/redis-bloom-filter.js';
import { BinaryFuseFilter as BinaryFuseFilterClass } from './filters/read/binary-fuse-filter.js';
import { FeedBase, type FeedClasses, type FilterFeedOptions } from './feed/filter-feed.js';
import { named } from './common/named.js';

/** A filter of any family of the reader (`cuckoo-wasm/reader`). */
export type AnyFilter = CuckooFilterClass | BloomFilterClass | RedisCuckooFilterClass | RedisBloomFilterClass | BinaryFuseFilterClass;

/** This entry's class of each family, for its {@link FilterFeed}. */
const CLASSES: FeedClasses<AnyFilter> = {
  CuckooFilter: CuckooFilterClass,
  BloomFilter: BloomFilterClass,
  RedisCuckooFilter: RedisCuckooFilterClass,
  RedisBloomFilter: RedisBloomFilterClass,
  BinaryFuseFilter: BinaryFuseFilterClass,
};

/**
 * A filter that follows a feed (docs/FEED.md §4): {@link FeedBase}, whose filters are the reader (`cuckoo-wasm/reader`)'s classes.
 */
export class FilterFeed extends FeedBase<AnyFilter> {
  static {
    named(this, 'FilterFeed');
  }

  /**
   * Opens a feed: loads the store's filter when it holds a usable one (checking its SHA-256), then updates once
   * (unless `updateOnOpen` is false and a filter was stored: then it makes no request).
   * With a stored filter, that update's failure does not reject: it goes to `onError` and `lastError`, and the feed
   * holds the stored version. With none (or one unusable, reported to `onError`), the update must succeed.
   *
   * @param options - {@link FilterFeedOptions}: `manifestUrl`, and optionally `publicKey`, `store`, `fetch`,
   *   `timeoutMs` (ms), `pollSeconds` (s), `onUpdate`, `onError`, `timers`, `updateOnOpen`.
   * @returns the feed, holding a filter.
   * @throws ArgumentTypeError for a `manifestUrl` that is not a URL or a `publicKey` that is not 32 bytes (or their base64).
   * @throws FeedError (as a rejection) when nothing was stored and the first update failed: see `update()`.
   * @example
   * ```ts
   * const feed = await FilterFeed.open({ manifestUrl: 'https://lists.example/blocklist/manifest.json', publicKey, store: new IndexedDbFeedStore() });
   * feed.start();
   * if (feed.matchUrl(location.href) !== null) { /* blocked *\/ }
   * ```
   */
  static async open(options: FilterFeedOptions): Promise<FilterFeed> {
    return new FilterFeed(CLASSES, options).opened();
  }
}
