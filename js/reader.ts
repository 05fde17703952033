/**
 * cuckoo-wasm/reader: the package's read-only entry, for pages, extensions and workers that load a filter's bytes,
 * look keys and URLs up, apply patches and store the result, and never build a filter. Every family is here
 * (CuckooFilter, both table encodings; BloomFilter; RedisCuckooFilter; RedisBloomFilter) with `fromBytes`, the
 * lookups, `applyPatch`, `toBytes`, `info()`, the read-only properties and `dispose`; and `canonicalizeUrl`,
 * `urlExpressions`, `applyPatchBytes`, `patchInfo`, `initWasm` and the error classes. Its WebAssembly module
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
export * from './entry-exports.js';
