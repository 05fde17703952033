/**
 * Takes the functions js/boundary/wasm-core.ts calls out of the instantiated module:
 * each family's hot row and the other plain exports, as the wasm instance's
 * own exports where it has them, and the embind functions that take and give
 * numbers only. Touches no wasm memory.
 */
import { CoreModule, ExportPrefix, FAMILY_EXPORTS, FamilyExports, Handle, OTHER_EXPORTS, OtherExports, PREFIXES } from './core-types.js';
import { seedWords } from '../common/options.js';

/**
 * The embind functions called as they are (no memory involved): sizing (src/growth/sizing.h; -InvalidArgument when
 * refused), the Bloom filters' compatibility and union, the Redis families' creation (a handle or -status),
 * CF.COMPACT, chunk count and the end of a load (0 or -status).
 */
export type ColdCalls = Pick<
  CoreModule,
  | 'fingerprintBitsFor' | 'firstSubFilterRate' | 'cuckooSerializedSizeFor' | 'bloomSerializedSizeFor'
  | 'bloomCompatible' | 'bloomUnion' | 'redisCuckooCreate' | 'redisCuckooCompact' | 'redisBloomCreate' | 'dumpChunkCount'
  | 'finishDump'
>;
const COLD: readonly (keyof ColdCalls)[] = [
  'fingerprintBitsFor', 'firstSubFilterRate', 'cuckooSerializedSizeFor', 'bloomSerializedSizeFor',
  'bloomCompatible', 'bloomUnion', 'redisCuckooCreate', 'redisCuckooCompact', 'redisBloomCreate', 'dumpChunkCount',
  'finishDump',
];

/**
 * The embind functions that open, describe and close filters, and describe a
 * status: Core holds them as its own members. They take and give numbers and
 * objects only, no memory; a seed crosses as its two 32-bit words.
 */
export interface OpenCalls {
  /** A new cuckoo filter's handle, or -status (InvalidArgument, OutOfMemory); `encoding` is a cuckoo::TableEncoding. */
  cuckooCreate(capacity: number, f: number, b: number, maxKicks: number, seed: bigint, expansion: number, encoding: number): number;
  /** A new Bloom filter's handle, or -status. */
  bloomCreate(capacity: number, fpr: number, seed: bigint, expansion: number): number;
  /** Parameters and statistics of the filter and of each of its sub-filters. */
  info<T>(family: number, handle: Handle): T;
  /** Frees the filter; its handle must not be used again. */
  destroy(family: number, handle: Handle): void;
  /** The core's description of a status (what was wrong and what to do), for an error message. */
  statusMessage(status: number): string;
}

/** {@link OpenCalls} over the module's embind functions. */
export function openCalls(module: CoreModule): OpenCalls {
  return {
    cuckooCreate: (capacity, f, b, maxKicks, seed, expansion, encoding) =>
      module.cuckooCreate(capacity, f, b, maxKicks, ...seedWords(seed), expansion, encoding),
    bloomCreate: (capacity, fpr, seed, expansion) => module.bloomCreate(capacity, fpr, ...seedWords(seed), expansion),
    info: <T>(family: number, handle: Handle) => module.info(family, handle) as T,
    destroy: (family, handle) => void module.destroy(family, handle),
    statusMessage: (status) => module.statusMessage(status),
  };
}

/**
 * The module's functions. The wasm export names are kept (CMakeLists.txt links
 * -lexports.js, which turns off their minification); if a toolchain minifies
 * them anyway, the module's wrappers still work, only slower (`direct` is then
 * false). The module object is a dictionary-mode object whose property loads
 * are slow, so the functions are taken out of it once.
 */
export function takeExports(module: CoreModule, exports: Readonly<Record<string, unknown>> | undefined): {
  rows: Record<ExportPrefix, FamilyExports>;
  hot: OtherExports;
  cold: ColdCalls;
  direct: boolean;
} {
  let direct = true;
  const take = (name: string) => {
    const raw = exports?.[name];
    if (typeof raw === 'function') return raw;
    direct = false;
    return (...args: number[]) => module[`_${name}`](...args);
  };
  const row = (prefix: ExportPrefix) =>
    Object.fromEntries(FAMILY_EXPORTS.map((op) => [op, take(`${prefix}_${op}`)])) as unknown as FamilyExports;
  const rows = Object.fromEntries(PREFIXES.map((p) => [p, row(p)])) as Record<ExportPrefix, FamilyExports>;
  const hot = Object.fromEntries(OTHER_EXPORTS.map((name) => [name, take(name)])) as unknown as OtherExports;
  const cold = Object.fromEntries(COLD.map((name) => [name, module[name]])) as unknown as ColdCalls;
  return { rows, hot, cold, direct };
}
