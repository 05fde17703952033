/**
 * What both entries export the same way, written once: the `cuckoo-wasm` entry (js/index.ts) and the read-only
 * `cuckoo-wasm/reader` (js/reader.ts) each re-export all of it beside their own filter classes (the full entry's
 * extend the reader's), their own `FilterFeed` (over those classes) and, for the full entry, `diffBytes` and
 * `wasmMemoryUsage`.
 */
export type { Key } from './common/checks.js';
export type { TableEncoding } from './registry.js';
export { canonicalizeUrl, urlExpressions } from './url/url.js';
export { applyPatchBytes, patchInfo } from './patch/patch.js';
export type { PatchInfo } from './patch/patch.js';
export {
  ArgumentRangeError,
  ArgumentTypeError,
  FeedError,
  FilterDisposedError,
  FilterFormatError,
  FilterFullError,
  InvalidUrlError,
  PublishError,
  OutOfMemoryError,
  WasmInitError,
  WasmLoadError,
} from './common/errors.js';
export type { FeedErrorReason, FilterFormatReason, InvalidUrlReason, PublishErrorReason, WasmInitReason, WasmLoadReason } from './common/errors.js';
export { initWasm } from './boundary/load.js';
export type { WasmSource } from './boundary/load.js';
export { MemoryFeedStore, FileFeedStore, IndexedDbFeedStore } from './feed/stores.js';
export type { FeedStore, StoredFeed } from './feed/stores.js';
export type { FeedBase, FeedClasses, FeedFilter, FeedTimers, FeedUpdate, FilterFeedOptions } from './feed/filter-feed.js';
