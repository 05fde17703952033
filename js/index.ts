/**
 * cuckoo-wasm: a cuckoo filter (Fan et al., CoNEXT 2014) and a Bloom filter,
 * both able to grow with a bounded false-positive rate, compiled from C++ to
 * WebAssembly, with a typed API. Entry point for ESM (`import`) and CommonJS
 * (`require`).
 *
 * @packageDocumentation
 */
export { CuckooFilter, wasmMemoryUsage } from './filters/cuckoo-filter.js';
export type { CuckooFilterInfo, CuckooFilterOptions, CuckooSubFilterInfo, WasmMemoryUsage } from './filters/cuckoo-filter.js';
export { BloomFilter } from './filters/bloom-filter.js';
export type { BloomFilterInfo, BloomFilterOptions, BloomSubFilterInfo } from './filters/bloom-filter.js';
export { RedisCuckooFilter } from './filters/redis-cuckoo-filter.js';
export type { RedisCuckooFilterInfo, RedisCuckooFilterOptions } from './filters/redis-cuckoo-filter.js';
export { RedisBloomFilter } from './filters/redis-bloom-filter.js';
export type { RedisBloomFilterInfo, RedisBloomFilterOptions } from './filters/redis-bloom-filter.js';
export type { ScanDumpChunk, ScanDumpLoader } from './filters/redis-filter.js';
export { BinaryFuseFilter } from './filters/binary-fuse-filter.js';
export type { BinaryFuseFilterInfo, BinaryFuseFilterOptions } from './filters/binary-fuse-filter.js';
export { diffBytes } from './patch/patch.js';
export * from './entry-exports.js';
export type { PublishOptions, PublishResult, PublishRedisSource, SigningKeyObject } from './feed/publish-options.js';
export type { FeedFile, FeedManifest, FeedPatch } from './feed/manifest.js';
import { publish as publishIn } from 'cuckoo-publish';
import type { PublishOptions, PublishResult } from './feed/publish-options.js';

/**
 * Publishes the next version of a feed (docs/FEED.md §5) from a list file or a RedisBloom key: into the served
 * folder `out`, the full filter, patches from the last `keep` versions and the manifest, signed with `signingKey`;
 * nothing when the list is unchanged. Node.js, Deno and Bun only (it writes files): in the browsers' and Workers'
 * builds it rejects with PublishError('unsupported-runtime'). What `cuckoo-wasm publish` runs (docs/cli.md).
 *
 * @param options - the source (`list` or `redis`), `out`, `state` and how to build and sign ({@link PublishOptions}).
 * @returns what was published ({@link PublishResult}).
 * @throws PublishError ('options', 'list', 'state', 'signing-key', 'unsupported-runtime'); ArgumentRangeError,
 *   FilterFullError, file system errors, as js/feed/publish.ts says.
 * @example
 * ```ts
 * const r = await publish({ list: 'blocklist.txt', out: 'public/feed', state: '.feed-state', signingKey: 'feed.key' });
 * console.log(r.published ? `version ${r.version}: +${r.added} -${r.removed}` : 'unchanged');
 * ```
 */
export function publish(options: PublishOptions): Promise<PublishResult> {
  return publishIn(options);
}

import { FULL_CLASSES, type AnyFilter } from './filters/classes.js';
import { FeedBase, type FeedClasses, type FilterFeedOptions } from './feed/filter-feed.js';
import { named } from './common/named.js';

export type { AnyFilter } from './filters/classes.js';

/** This entry's class of each family, for its {@link FilterFeed}. */
const CLASSES: FeedClasses<AnyFilter> = FULL_CLASSES;

/**
 * A filter that follows a feed (docs/FEED.md §4): {@link FeedBase}, whose filters are the full entry (`cuckoo-wasm`)'s classes.
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
