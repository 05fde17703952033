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
export { diffBytes } from './patch/patch.js';
export * from './entry-exports.js';
export { PublishError } from './common/errors.js';
export type { PublishErrorReason } from './common/errors.js';
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
