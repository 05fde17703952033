/**
 * The test- and benchmark-only entry of the package, built to
 * dist/testing.mjs and left out of package.json's "exports": raw access to
 * the boundary (wasm memory, the allocator, the hot exports by their wasm
 * names, a filter's handle), for tests that check what the core agrees on
 * and benchmarks that time the wasm side alone. It imports ./index.mjs, so
 * it shares that bundle's module instance and filters.
 *
 * @example
 * ```ts
 * import { CuckooFilter } from '../dist/index.mjs';
 * import { rawBoundary } from '../dist/testing.mjs';
 * const raw = await rawBoundary();
 * const f = await CuckooFilter.create({ capacity: 100 });
 * raw.exports.cf_contain(raw.handleOf(f), raw.scratch().ptr, 0);
 * ```
 */
import { BinaryFuseFilter, BloomFilter, CuckooFilter, RedisBloomFilter, RedisCuckooFilter } from './index.js';
import type { CoreConstants } from './boundary/wasm-core.js';

/** A filter of the package. */
type AnyFilter = CuckooFilter | BloomFilter | RedisCuckooFilter | RedisBloomFilter | BinaryFuseFilter;

/** What {@link rawBoundary} gives. */
export interface RawBoundaryEntry {
  /** A fresh view over wasm memory (call again after anything that may grow memory). */
  heapU8(): Uint8Array;
  heapU32(): Uint32Array;
  /** The module's malloc: an address, 0 on failure. */
  malloc(bytes: number): number;
  free(ptr: number): void;
  /** The hot exports by their wasm names (cf_contain, bf_contain_batch, url_match, ...). */
  exports: Record<string, (...args: number[]) => number>;
  /** The live core handle of a filter. @throws FilterDisposedError after dispose(). */
  handleOf(filter: AnyFilter): number;
  /** The prefix of the filter's family's hot exports (`cf`: cf_contain_batch, ...; js/registry.ts). */
  prefixOf(filter: AnyFilter): string;
  /** The key scratch region has() writes a key into. */
  scratch(): { ptr: number; bytes: number };
  /** What both sides agree on, as the core reports it at load (bindings/embind.cc, its constants). */
  constants: CoreConstants;
  /** The most keys, and UTF-16 code units, of one batch crossing as hasAll cuts its keys (a longer key crosses alone). */
  batchLimits: { keys: number; units: number };
}

/** The raw boundary of the module the package's filters live in. */
export function rawBoundary(): Promise<RawBoundaryEntry> {
  const hook = (CuckooFilter as unknown as Record<symbol, () => Promise<RawBoundaryEntry>>)[
    Symbol.for('cuckoo-wasm.rawBoundary')
  ];
  return hook();
}
