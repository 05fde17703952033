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
