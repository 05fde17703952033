/**
 * The shapes of the WebAssembly module as js/boundary/wasm-core.ts sees it: its embind classes and constants
 * (bindings/embind.cc), the exports of a family's row and the others (bindings/c_exports.cc,
 * bindings/filter_exports.cc, bindings/build_exports.cc). Types and export names only; no code touches the module
 * here. The families' prefixes and one-key exports come from the registry (js/registry.ts).
 */
import { ENCODINGS, FAMILIES, KEY_OPS, type ExportPrefix, type KeyOp, type KeyOpName, type RegistryConstant } from '../registry.js';

export { KEY_OPS, PREFIXES } from '../registry.js';
export type { ExportPrefix, KeyOp, KeyOpName };

/** A filter of the core: its address in wasm memory (never 0), branded so that a plain number is not taken for one. */
export type Handle = number & { readonly filterHandle: true };

/** The hot exports every family has in both modules (bindings/c_exports.cc HOT_EXPORTS), without the family's prefix. */
export interface FamilyExports {
  contain(handle: number, key: number, len: number): number;
  contain_batch(handle: number, keys: number, offsets: number, n: number, results: number): void;
  size(handle: number): number;
  serialized_size(handle: number): number;
  sub_filter_count(handle: number): number;
}
/** The hot exports every family has in the full module only (CUCKOO_WRITER in bindings/c_exports.cc). */
export interface FamilyWriteExports {
  add(handle: number, key: number, len: number): number;
  add_batch(handle: number, keys: number, offsets: number, n: number, status: number, continues: number): number;
}
/**
 * A family's {@link FamilyExports} as Core hands them to the filter classes: the row itself at run time (a call costs
 * no lookup), opaque to the type checker outside the boundary, so that only Core's methods call them.
 */
export interface ExportRow {
  readonly callableByCoreOnly: never;
}
export const FAMILY_EXPORTS: readonly (keyof FamilyExports)[] = ['contain', 'contain_batch', 'size', 'serialized_size', 'sub_filter_count'];
export const FAMILY_WRITE_EXPORTS: readonly (keyof FamilyWriteExports)[] = ['add', 'add_batch'];

export type UrlCall = (url: number, len: number, host: number, hostLen: number, region: number, regionLen: number) => number;
type UrlFilterCall = (family: number, handle: number, ...rest: Parameters<UrlCall>) => number;


/**
 * The plain exports both modules have besides the families' rows (bindings/c_exports.cc, bindings/filter_exports.cc):
 * what only some families do, the URL functions, and the whole-filter calls. Records (info, constants, patch info)
 * write doubles to `out` (at most `cap`) and return how many there are; their names are static strings.
 */
export interface ReadExports extends Record<KeyOp, (handle: number, key: number, len: number) => number> {
  cf_load_factor(handle: number): number;
  url_match: UrlFilterCall;
  url_match_batch(family: number, handle: number, keys: number, offsets: number, n: number, results: number, region: number, regionLen: number): number;
  url_canonicalize: UrlCall;
  url_expressions: UrlCall;
  filter_peek_family(data: number, length: number): number;
  status_message(status: number): number;
  patch_apply(base: number, baseLength: number, patch: number, patchLength: number, why: number): number;
  patch_info(patch: number, patchLength: number, out: number, cap: number): number;
  patch_info_names(): number;
}
/** The plain exports of the full module only (CUCKOO_WRITER). */
export interface WriteExports {
  url_add: UrlFilterCall;
  url_add_batch(family: number, handle: number, keys: number, offsets: number, n: number, status: number, region: number, regionLen: number): number;
  url_entry: UrlCall;
  patch_diff(older: number, olderLength: number, newer: number, newerLength: number, why: number): number;
  allocated_bytes(): number;
}
export const WRITE_EXPORTS: readonly (keyof WriteExports)[] = ['url_add', 'url_add_batch', 'url_entry', 'patch_diff', 'allocated_bytes'];

/**
 * What both sides must agree on, as the core reports it at load (bindings/embind.cc, its constants): the families'
 * and table encodings' numbers the registry names (familyCuckoo, ..., encodingPacked, ...; checked against it at
 * load), and these.
 */
export interface CoreConstants extends Record<RegistryConstant, number> {
  urlCanonicalAt: number;
  urlSpanAt: number;
  urlSpansAt: number;
  urlBufferAt: number;
  urlWorkspaceFixed: number;
  urlWorkspacePerByte: number;
  maxUrlBytes: number;
  maxUrlExpressions: number;
  /** Most bytes of one SCANDUMP table chunk (src/redis/redis_dump.h). */
  redisMaxChunkBytes: number;
  maxMaxKicks: number;
  maxExpansion: number;
  maxSubFilters: number;
  defaultSeedLow: number;
  defaultSeedHigh: number;
}

/** The names of {@link CoreConstants}, each an embind constant of the module: these, and the registry's. */
export const CONSTANT_NAMES: readonly (keyof CoreConstants)[] = [
  'urlCanonicalAt',
  'urlSpanAt',
  'urlSpansAt',
  'urlBufferAt',
  'urlWorkspaceFixed',
  'urlWorkspacePerByte',
  'maxUrlBytes',
  'maxUrlExpressions',
  'redisMaxChunkBytes',
  'maxMaxKicks',
  'maxExpansion',
  'maxSubFilters',
  'defaultSeedLow',
  'defaultSeedHigh',
  ...[...FAMILIES, ...Object.values(ENCODINGS)].map((row) => row.constant),
];

/**
 * A filter's embind object (bindings/embind.cc): it owns the core filter, freed by delete(). `toBytes` gives a view of
 * a block malloc'd for the bytes (copy it, then free the block at its byteOffset) or -status.
 */
export interface EmbindFilter {
  handle(): number;
  toBytes(): Uint8Array | number;
  info(): Record<string, unknown>;
  delete(): void;
  /** RedisCuckoo, full module: CF.COMPACT. */
  compact?(): void;
  /** Bloom, full module: 0 or -status. */
  union?(other: EmbindFilter): number;
  isCompatible?(other: EmbindFilter): boolean;
}

/** A family's embind class (bindings/embind.cc): its name is the family's (families.def), e.g. `RedisCuckoo`. */
export interface EmbindClass {
  /** The filter the bytes at `ptr` hold, or null with the status (an int32) at `status`. */
  fromBytes(ptr: number, length: number, status: number): EmbindFilter | null;
  /** Full module: the object of a filter the plain exports made (creation, LOADCHUNK). */
  adopt?(address: number): EmbindFilter;
}

/** What the Punycode host of a URL call is: undefined before a first call reported a non-ASCII host. */
export type AsciiHost = string | undefined;

/**
 * What {@link ReadCore} needs of a module besides its exports: the Emscripten glue's object (js/boundary/instance.ts),
 * with live views of its memory (made again when memory grows), malloc and free, the embind classes by family name and
 * the constants.
 */
export interface ReadModule {
  readonly HEAPU8: Uint8Array;
  readonly HEAP8: Int8Array;
  readonly HEAPU32: Uint32Array;
  readonly HEAP32: Int32Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  readonly [name: string]: unknown;
}

/** The plain exports only the full module has for whole filters (bindings/build_exports.cc). */
export interface BuildExports {
  cuckoo_create(capacity: number, f: number, b: number, maxKicks: number, seedLow: number, seedHigh: number, expansion: number, encoding: number): number;
  bloom_create(capacity: number, fpr: number, seedLow: number, seedHigh: number, expansion: number): number;
  redis_cuckoo_create(capacity: number, bucketSize: number, maxIterations: number, expansion: number): number;
  redis_bloom_create(errorRate: number, capacity: number, expansion: number, nonScaling: boolean): number;
  dump_chunk_count(family: number, handle: number): number;
  dump_header_bytes(family: number, handle: number): number;
  dump_chunk(family: number, handle: number, j: number, headerOut: number, out: number): number;
  load_dump_header(family: number, iterator: number, ptr: number, len: number): number;
  load_dump_chunk(family: number, handle: number, iterator: number, ptr: number, len: number): number;
  finish_dump(family: number, handle: number): number;
  bloom_serialized_size_for(capacity: number, fpr: number, expansion: number): number;
}

/**
 * What a patch's header says (docs/FORMAT.md §17; bindings/filter_exports.cc patch_info): the
 * patch format version, the family (src/common/family.h) it is for, the byte lengths of its base and
 * result filters, their checksums (the XXH3-64 each filter's bytes end with, as 16 hex digits),
 * and how many changes it encodes.
 */
export interface PatchInfo {
  version: number;
  family: number;
  baseLength: number;
  resultLength: number;
  baseChecksum: string;
  resultChecksum: string;
  changes: number;
}

/**
 * Why the core made no patch or result: the status, and for PatchFamily from two filters compared (a diff's two, or an
 * apply's base and result) the field that differs and both values (src/patch/patch.h PatchMismatch).
 */
export interface PatchRefusal {
  status: number;
  mismatch: PatchMismatch | undefined;
}

/**
 * src/patch/patch.h PatchMismatch: the field as docs/FORMAT.md names it ('family', 'fingerprint bits', ..., 'size in bytes'),
 * the sub-filter it is in ('size in bytes'; else -1), and its value in the older filter and the newer: a rate's as a
 * number, any other's as its decimal digits ('family': a family id of src/common/family.h).
 */
export interface PatchMismatch {
  field: string;
  section: number;
  older: number | string;
  newer: number | string;
}

/** What {@link Core.testing} gives tests and benchmarks (js/testing.ts). */
export interface RawBoundary {
  heapU8(): Uint8Array;
  heapU32(): Uint32Array;
  malloc(bytes: number): number;
  free(ptr: number): void;
  exports: Record<string, (...args: number[]) => number>;
  scratch(): { ptr: number; bytes: number };
  constants: CoreConstants;
}
