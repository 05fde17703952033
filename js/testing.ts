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
import { CuckooFilter } from './index.js';
import type { CoreConstants } from './boundary/wasm-core.js';
import type { AnyFilter } from './filters/classes.js';
import { Chunk } from './common/chunk.js';

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
}

/** The raw boundary of the module the package's filters live in. */
export function rawBoundary(): Promise<RawBoundaryEntry> {
  const hook = (CuckooFilter as unknown as Record<symbol, () => Promise<RawBoundaryEntry>>)[
    Symbol.for('cuckoo-wasm.rawBoundary')
  ];
  return hook();
}

/**
 * Where `hasAll(keys)` cuts its keys into crossings of the boundary: for each chunk in order, the index after its
 * last key (the last entry is keys.length; [] for no keys). The cut is js/common/chunk.ts's Chunk, as
 * js/filters/wasm-filter.ts fills it: at most 8192 keys and 32K UTF-16 code units a chunk, a longer key alone.
 */
export function batchChunkEnds(keys: readonly string[]): number[] {
  const chunk = new Chunk();
  const ends: number[] = [];
  for (let i = 0; i < keys.length; ++i) {
    let state = chunk.push(keys[i]);
    if (state === 2) {
      ends.push(i);
      chunk.clear();
      state = chunk.push(keys[i]);
    }
    if (state === 1) {
      ends.push(i + 1);
      chunk.clear();
    }
  }
  if (chunk.count > 0) ends.push(keys.length);
  chunk.release();
  return ends;
}
