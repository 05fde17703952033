/**
 * cuckoo-wasm: a cuckoo filter (Fan et al., CoNEXT 2014) and a Bloom filter,
 * both able to grow with a bounded false-positive rate, compiled from C++ to
 * WebAssembly, with a typed API. Entry point for ESM (`import`) and CommonJS
 * (`require`).
 *
 * @packageDocumentation
 */
export { CuckooFilter, wasmMemoryUsage } from './cuckoo-filter.js';
export type { CuckooFilterInfo, CuckooFilterOptions, CuckooSubFilterInfo, WasmMemoryUsage } from './cuckoo-filter.js';
export { BloomFilter } from './bloom-filter.js';
export type { BloomFilterInfo, BloomFilterOptions, BloomSubFilterInfo } from './bloom-filter.js';
export { RedisCuckooFilter } from './redis-cuckoo-filter.js';
export type { RedisCuckooFilterInfo, RedisCuckooFilterOptions } from './redis-cuckoo-filter.js';
export { RedisBloomFilter } from './redis-bloom-filter.js';
export type { RedisBloomFilterInfo, RedisBloomFilterOptions } from './redis-bloom-filter.js';
export type { ScanDumpChunk, ScanDumpLoader } from './redis-filter.js';
export type { Key } from './checks.js';
export type { TableEncoding } from './table-encoding.js';
export { canonicalizeUrl, urlExpressions } from './url.js';
export { applyPatchBytes, diffBytes, patchInfo } from './patch.js';
export type { PatchInfo } from './patch.js';
export {
  ArgumentRangeError,
  ArgumentTypeError,
  FilterDisposedError,
  FilterFormatError,
  FilterFullError,
  InvalidUrlError,
  OutOfMemoryError,
  WasmInitError,
  WasmLoadError,
} from './errors.js';
export type { FilterFormatReason, InvalidUrlReason, WasmInitReason, WasmLoadReason } from './errors.js';
export { initWasm } from './load.js';
export type { WasmSource } from './load.js';
