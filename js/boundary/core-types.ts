/**
 * The shapes of the WebAssembly module as js/boundary/wasm-core.ts sees it: its embind classes, functions, enum and
 * constants (bindings/embind.cc), the plain exports of a family's row and the others (bindings/c_exports.cc). Types and export names only; no code touches the module
 * here. The families' prefixes and one-key exports come from the registry (js/registry.ts).
 */
import { ENCODINGS, FAMILIES, KEY_OPS, type ExportPrefix, type KeyOp, type KeyOpName, type RegistryConstant } from '../registry.js';

export { KEY_OPS, PREFIXES } from '../registry.js';
export type { ExportPrefix, KeyOp, KeyOpName };

/** A filter of the core: its address in wasm memory (never 0), branded so that a plain number is not taken for one. */
export type Handle = number & { readonly filterHandle: true };

/**
 * A filter's embind object as the filter classes hold it: opaque outside js/boundary/, whose calls take it. It owns
 * the core filter until {@link ReadCore.destroy} (its delete()).
 */
export interface FilterObject {
  readonly embindObjectOfTheBoundary: never;
}

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


/** The plain exports both modules have besides the families' rows (bindings/c_exports.cc): what only some families do, and the URL functions. */
export interface ReadExports extends Record<KeyOp, (handle: number, key: number, len: number) => number> {
  cf_load_factor(handle: number): number;
  url_match: UrlFilterCall;
  url_match_batch(family: number, handle: number, keys: number, offsets: number, n: number, results: number, region: number, regionLen: number): number;
  url_canonicalize: UrlCall;
  url_expressions: UrlCall;
  /** Registers the embind class of a family on its first use (bindings/embind.cc): 0 when it is there, else -status. */
  register_family(family: number): number;
}
/** The plain exports of the full module only (CUCKOO_WRITER). */
export interface WriteExports {
  url_add: UrlFilterCall;
  url_add_batch(family: number, handle: number, keys: number, offsets: number, n: number, status: number, region: number, regionLen: number): number;
  url_entry: UrlCall;
}
export const WRITE_EXPORTS: readonly (keyof WriteExports)[] = ['url_add', 'url_add_batch', 'url_entry'];

/**
 * What both sides must agree on, as the core reports it at load (bindings/embind.cc, its constants): the families'
 * and table encodings' numbers the registry names (familyCuckoo, ..., encodingPacked, ...; checked against it at
 * load), and these.
 */
export interface CoreConstants extends Record<RegistryConstant, number> {
  /** The room register_family checks for before it registers a family's class, bytes. */
  registerRoomBytes: number;
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
  'registerRoomBytes',
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
 * a block malloc'd for the bytes (copy it, then free the block at its byteOffset) or -status. The optional methods are
 * the full module's, where the family has them.
 */
export interface EmbindFilter {
  handle(): number;
  toBytes(): Uint8Array | number;
  info(): Record<string, unknown>;
  delete(): void;
  /** RedisCuckoo: CF.COMPACT. */
  compact?(): void;
  /** Bloom: 0 or -status. */
  union?(other: EmbindFilter): number;
  isCompatible?(other: EmbindFilter): boolean;
  /** The Redis families: SCANDUMP's chunk count, chunk j as [iterator, bytes] (or -status), LOADCHUNK (0 or -status). */
  dumpChunkCount?(): number;
  dumpChunk?(j: number): [number, Uint8Array] | number;
  loadDumpChunk?(iterator: number, ptr: number, length: number): number;
  finishDump?(): number;
}

/** A family's embind class (bindings/embind.cc): its name is the family's (families.def), e.g. `RedisCuckoo`. */
export interface EmbindClass {
  /** The filter the bytes at `ptr` hold, or null with the status (an int32) at `status`. */
  fromBytes(ptr: number, length: number, status: number): EmbindFilter | null;
  /** Full module: a new filter from the family's parameters, or null with the status at `status`. */
  create?(options: Record<string, unknown>, status: number): EmbindFilter | null;
  /** Full module, the Redis families: LOADCHUNK of the header chunk, or null with the status at `status`. */
  loadDumpHeader?(iterator: number, ptr: number, length: number, status: number): EmbindFilter | null;
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

/**
 * What a patch's header says (docs/FORMAT.md §17; bindings/embind.cc patchInfo): the
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
