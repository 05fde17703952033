/**
 * The boundary's reading core: the one object that holds a WebAssembly module,
 * touches its memory and calls its functions for everything that does not
 * change a filter's keys (house style: every raw wasm access in one place;
 * js/boundary/ is that place, and tests/js/boundary.test.ts checks on the
 * import graph that nothing else imports the module or its types). It serves
 * both modules: the reader (cuckoo-reader.wasm, js/boundary/reader-instance.ts)
 * and the full module (cuckoo-core.wasm), whose {@link Core} (js/boundary/wasm-core.ts)
 * extends it with the writers. Both call the same embind classes and functions (bindings/embind.cc: loading,
 * serializing, describing and freeing a filter; statuses, patches) and plain exports (bindings/c_exports.cc: the
 * per-key and per-batch calls) here, so both answer alike.
 *
 * Results follow the bindings' one convention: >= 0 is the answer, < 0 is
 * -status. Keys cross as bytes written into memory the boundary owns (a scratch
 * region for one key, a batch region for a chunk of keys; see writeKey).
 * Nothing returned from here aliases wasm memory, and no user code runs between
 * writing into wasm memory and the call that reads it (a batch's keys are first
 * read into a {@link Chunk}).
 */
import { Key, byteLengthOf, isKey, keyTypeError } from '../common/checks.js';
import { BATCH_KEY_BYTES, BATCH_MAX_KEYS, Chunk } from '../common/chunk.js';
import { Answers, writeAnswers } from '../common/answers.js';
import { Status, checkStatuses, statusError } from '../common/status.js';
import { checkRegistry, familyOf } from '../registry.js';
import type { AsciiHost, CoreConstants, EmbindClass, EmbindFilter, ExportRow, FamilyExports, FilterObject, Handle, KeyOp, PatchInfo, PatchMismatch, PatchRefusal, ReadExports, ReadModule, UrlCall } from './core-types.js';
import { CONSTANT_NAMES, FAMILY_EXPORTS, PREFIXES } from './core-types.js';

const SCRATCH_INITIAL = 4096; // >= 3 * ASCII_LOOP_MAX: writeKey's fast path needs no size check
/** Longest string writeKey copies code unit by code unit before using TextEncoder. */
const ASCII_LOOP_MAX = 32;

const encoder = new TextEncoder();
/** Made on first use: only a non-ASCII host needs it. */
let decoder: TextDecoder | undefined;

/** One instantiated module with its scratch, batch and URL regions, and the raw reading calls on its filters. */
export class ReadCore {
  protected readonly m: ReadModule;
  /** The module's plain exports, the instance's own functions: a call is one direct wasm call. */
  protected readonly x: ReadExports;
  /** Each family's row of exports, by prefix. */
  protected readonly rows: Record<string, FamilyExports>;
  /** What both sides agree on, as the core reports it. */
  readonly constants: CoreConstants;
  protected scratchPtr: number;
  protected scratchCap: number;
  private scratchView: Uint8Array = new Uint8Array(0);
  protected batchPtr = 0;
  protected batchCap = 0;
  protected urlPtr = 0;
  protected urlCap = 0;
  /** An int32 the embind factories write a status to. */
  private readonly statusPtr: number;

  /**
   * @param module - the memory views, malloc and free.
   * @param exports - the instance's exports (js/boundary/instance.ts).
   * @internal
   */
  constructor(module: ReadModule, exports: Record<string, unknown>) {
    this.m = module;
    const x = exports;
    this.x = x as unknown as ReadExports;
    this.rows = Object.fromEntries(
      PREFIXES.map((p) => [p, Object.fromEntries(FAMILY_EXPORTS.map((op) => [op, x[`${p}_${op}`]]))]),
    ) as unknown as Record<string, FamilyExports>;
    const constants: Partial<Record<keyof CoreConstants, number>> = {};
    for (const name of CONSTANT_NAMES) {
      const value = module[name];
      if (typeof value !== 'number') throw new Error(`the module has no constant ${name}: rebuild the package`);
      constants[name] = value;
    }
    this.constants = constants as CoreConstants;
    checkRegistry(this.constants);
    checkStatuses(module);
    this.scratchCap = SCRATCH_INITIAL;
    this.scratchPtr = this.alloc(SCRATCH_INITIAL);
    this.statusPtr = this.alloc(4);
    this.scratchView = this.refreshScratch();
  }

  /** A family's hot exports, by their prefix, for the calls below (opaque to their holder). */
  exportsOf(prefix: string): ExportRow {
    return this.rows[prefix] as unknown as ExportRow;
  }

  /** Keys the filter holds (a family's `size` export). */
  size(row: ExportRow, handle: Handle): number {
    return (row as unknown as FamilyExports).size(handle);
  }

  /** Bytes of the filter's {@link serialize}d form. */
  serializedSize(row: ExportRow, handle: Handle): number {
    return (row as unknown as FamilyExports).serialized_size(handle);
  }

  /** Sub-filters of a growing filter (1 when it does not grow). */
  subFilterCount(row: ExportRow, handle: Handle): number {
    return (row as unknown as FamilyExports).sub_filter_count(handle);
  }

  // -------------------------------------------------------------------------
  // Loading, describing, serializing, closing. A filter is its embind object (a FilterObject outside the
  // boundary), which owns the core filter until destroy().

  /**
   * Loads a filter of `family` from its bytes (docs/FORMAT.md), copied into wasm memory for the call:
   * the filter, or the status that refused the bytes and the family they hold (src/common/family.h) if
   * another's, else 0.
   * @throws OutOfMemoryError if wasm memory cannot hold the copy.
   */
  deserialize(family: number, bytes: Uint8Array): FilterObject | { status: number; found: number } {
    return this.withBytes(bytes, (ptr, length) => {
      const made = this.made(this.classOf(family).fromBytes(ptr, length, this.statusPtr));
      if (typeof made !== 'number') return made;
      const found = made === Status.FormatWrongFamily ? Math.max(0, this.f.peekFamily(ptr, length)) : 0;
      return { status: made, found };
    });
  }

  /** What an embind factory gave: the filter, or (null) the status it wrote. */
  protected made(object: EmbindFilter | null): FilterObject | number {
    return object !== null ? (object as unknown as FilterObject) : this.m.HEAP32[this.statusPtr >>> 2];
  }

  /** The status pointer the embind factories write to. */
  protected get status(): number {
    return this.statusPtr;
  }

  /** The embind object behind a filter. */
  protected objectOf(filter: FilterObject): EmbindFilter {
    return filter as unknown as EmbindFilter;
  }

  /** The module's embind functions (bindings/embind.cc). */
  protected get f(): EmbindFunctions {
    return this.m as unknown as EmbindFunctions;
  }

  /**
   * The embind class of a family (bindings/embind.cc: named as families.def names it), registered on its first use.
   * @throws OutOfMemoryError where wasm memory has no room left to register it.
   */
  protected classOf(family: number): EmbindClass {
    const row = familyOf(family);
    const name = row?.constant.slice('family'.length);
    if (name !== undefined && this.m[name] === undefined) {
      if (this.x.register_family(family) === -Status.OutOfMemory) {
        throw statusError(Status.OutOfMemory, { bytes: this.constants.registerRoomBytes });
      }
    }
    const cls = name === undefined ? undefined : (this.m[name] as EmbindClass | undefined);
    if (cls === undefined) throw new Error(`the module has no class of family ${family}: rebuild the package`);
    return cls;
  }

  /** The core filter's address, which the per-key and per-batch exports take. */
  handleOf(filter: FilterObject): Handle {
    return this.objectOf(filter).handle() as Handle;
  }

  /** Parameters and statistics of the filter and of each of its sub-filters (the family's <name>_info.h in src/), as one object. */
  info<T>(filter: FilterObject): T {
    return this.objectOf(filter).info() as T;
  }

  /** Frees the filter (its embind object's delete()); it must not be used again. */
  destroy(filter: FilterObject): void {
    this.objectOf(filter).delete();
  }

  /** The core's description of a status (what was wrong and what to do), for an error message. */
  statusMessage(status: number): string {
    return this.f.statusMessage(status);
  }

  /** `call(ptr, length)` on a copy of `bytes` in wasm memory, freed after it. @throws OutOfMemoryError */
  protected withBytes<T>(bytes: Uint8Array, call: (ptr: number, length: number) => T): T {
    const length = byteLengthOf(bytes);
    const ptr = this.alloc(length);
    try {
      this.m.HEAPU8.set(bytes, ptr);
      return call(ptr, length);
    } finally {
      this.m._free(ptr);
    }
  }

  /** The filter's serialized bytes (docs/FORMAT.md), in a new array the caller owns. @throws OutOfMemoryError */
  serialize(row: ExportRow, filter: FilterObject): Uint8Array {
    const view = this.objectOf(filter).toBytes();
    if (typeof view === 'number') throw statusError(-view, { bytes: this.serializedSize(row, this.handleOf(filter)) });
    // A view of the block the module malloc'd for the bytes: copied out, then the block is freed.
    try {
      return view.slice();
    } finally {
      this.m._free(view.byteOffset);
    }
  }

  // -------------------------------------------------------------------------
  // Patches (src/patch/patch.h, docs/FORMAT.md §17) of serialized filters, copied into wasm memory for the call.

  /** The filter bytes `patch` makes of `base` (the core checks they have its parameters), or why not. @throws OutOfMemoryError */
  patchApply(base: Uint8Array, patch: Uint8Array): Uint8Array | PatchRefusal {
    return this.withBytes(base, (b, bn) => this.withBytes(patch, (p, pn) => refusalOf(this.f.patchApply(b, bn, p, pn))));
  }

  /** What the header of `patch` says, or -status. @throws OutOfMemoryError */
  patchInfo(patch: Uint8Array): PatchInfo | number {
    return this.withBytes(patch, (p, n) => this.f.patchInfo(p, n));
  }

  // -------------------------------------------------------------------------
  // One key, one call: each writes the key into the scratch region and crosses once.
  // @throws ArgumentTypeError if `key` is neither a string nor a live Uint8Array.

  /** True if the filter may hold the key. */
  contain(row: ExportRow, handle: Handle, key: Key): boolean {
    const len = this.writeKey(key);
    return (row as unknown as FamilyExports).contain(handle, this.scratchPtr, len) !== 0;
  }

  /**
   * A one-key call only some families have (js/registry.ts KeyOp): cf_delete /
   * rc_delete (1 removed, 0 none matched), cf_count / rc_count (fingerprints
   * matching), rc_add_unique / rb_add_new (1 added, 0 already there, or -status).
   */
  keyOp(op: KeyOp, handle: Handle, key: Key): number {
    const len = this.writeKey(key);
    return this.x[op](handle, this.scratchPtr, len);
  }

  /** Cuckoo: fraction of the table's slots in use, victim excluded. */
  loadFactor(handle: Handle): number {
    return this.x.cf_load_factor(handle);
  }

  // -------------------------------------------------------------------------
  // One chunk of a batch, one call: each writes the chunk's keys into the
  // batch region and crosses once; runs no user code.

  /** Looks up the chunk's keys: their answers go to `out[at ..]` (js/common/answers.ts); returns the index after the last. */
  containBatch(row: ExportRow, handle: Handle, chunk: Chunk, out: Answers, at: number): number {
    const n = this.writeChunk(chunk);
    (row as unknown as FamilyExports).contain_batch(handle, this.batchPtr, this.batchOffsets, n, this.batchResults);
    return writeAnswers(this.m.HEAPU8, this.batchResults, n, out, at);
  }

  /** True if `buffer` is wasm memory's (answers written into it would overwrite the module's data). */
  isMemory(buffer: ArrayBufferLike): boolean {
    return buffer === this.m.HEAPU8.buffer;
  }

  // -------------------------------------------------------------------------
  // URLs (src/url/url_filter.h). Each call writes the URL (and the Punycode host,
  // if any, behind it) into the scratch region and crosses once; what the core
  // found is then read from the URL region (urlHost, urlCanonical, urlSpan,
  // urlSpans). UrlNonAsciiHost asks for a call with the host in Punycode (js/url/url.ts).

  /** True for a URL longer than the core accepts whatever its encoding (refused without allocating room for it). */
  urlTooLong(url: Key): boolean {
    return (typeof url === 'string' ? url.length : isKey(url) ? byteLengthOf(url) : 0) > this.constants.maxUrlBytes;
  }

  /** 1 if an expression of the URL is in the filter ({@link urlSpan} is the first), 0 if none, -status if refused. */
  urlMatch(family: number, handle: Handle, url: Key, host: AsciiHost): number {
    if (this.urlTooLong(url)) return -Status.UrlTooLong;
    if (host === undefined) {
      // The per-URL lookup: no closure, no host.
      const len = this.writeKey(url);
      if (this.urlRegionFor(len) > this.urlCap) this.ensureUrlRegion(len);
      return this.x.url_match(family, handle, this.scratchPtr, len, 0, 0, this.urlPtr, this.urlCap);
    }
    return this.urlCall(url, host, (u, n, h, hn, r, rn) => this.x.url_match(family, handle, u, n, h, hn, r, rn));
  }

  /** Canonicalizes: Ok ({@link urlCanonical} is the result) or a Url* status. */
  urlCanonicalize(url: Key, host: AsciiHost): number {
    if (this.urlTooLong(url)) return Status.UrlTooLong;
    return -this.urlCall(url, host, this.x.url_canonicalize) | 0;
  }

  /** The URL's expressions: their count ({@link urlSpans} reads them), or -status. */
  urlExpressions(url: Key, host: AsciiHost): number {
    if (this.urlTooLong(url)) return -Status.UrlTooLong;
    return this.urlCall(url, host, this.x.url_expressions);
  }

  /** After UrlNonAsciiHost: the host as the core found it (decoded, dots and ASCII case canonical). */
  urlHost(): string {
    const at = (this.urlPtr + this.constants.urlCanonicalAt) >>> 2;
    const u32 = this.m.HEAPU32;
    return this.urlText(u32[at + 2], u32[at + 3], true);
  }

  /** After a canonicalization that returned Ok: the canonical URL. */
  urlCanonical(): string {
    return this.urlText(0, this.m.HEAPU32[(this.urlPtr + this.constants.urlCanonicalAt) >>> 2], false);
  }

  /** After a match or an entry: the expression in the span slot. */
  urlSpan(): string {
    const at = (this.urlPtr + this.constants.urlSpanAt) >>> 2;
    return this.urlText(this.m.HEAPU32[at], this.m.HEAPU32[at + 1], false);
  }

  /** After urlExpressions returned n: the n expressions. */
  urlSpans(n: number): string[] {
    const at = (this.urlPtr + this.constants.urlSpansAt) >>> 2;
    const out: string[] = [];
    for (let i = 0; i < n; ++i) out.push(this.urlText(this.m.HEAPU32[at + 2 * i], this.m.HEAPU32[at + 2 * i + 1], false));
    return out;
  }

  /**
   * Looks up a chunk of URLs; each result goes to `codes[i]`: 1 found, 0 not
   * found, else -status, the status that refused URL i (UrlNonAsciiHost included).
   */
  urlMatchBatch(family: number, handle: Handle, chunk: Chunk, codes: Int8Array): void {
    const n = this.writeChunkForUrls(chunk);
    this.x.url_match_batch(family, handle, this.batchPtr, this.batchOffsets, n, this.batchResults, this.urlPtr, this.urlCap);
    codes.set(this.m.HEAP8.subarray(this.batchResults, this.batchResults + n));
  }

  /** writeChunk, with the URL region sized for the chunk's longest possible key. */
  protected writeChunkForUrls(chunk: Chunk): number {
    this.ensureUrlRegion(chunk.maxBytes);
    return this.writeChunk(chunk);
  }

  protected urlCall(url: Key, host: AsciiHost, call: UrlCall): number {
    const len = this.writeKey(url);
    let hostPtr = 0;
    let hostLen = 0;
    if (host !== undefined) {
      // The host goes behind the URL in the scratch region (ASCII: one byte per unit).
      hostLen = host.length;
      if (len + hostLen > this.scratchCap) {
        const copy = this.m.HEAPU8.slice(this.scratchPtr, this.scratchPtr + len);
        this.growScratch(len + hostLen);
        this.m.HEAPU8.set(copy, this.scratchPtr);
      }
      hostPtr = this.scratchPtr + len;
      const heap = this.m.HEAPU8;
      for (let i = 0; i < hostLen; ++i) heap[hostPtr + i] = host.charCodeAt(i) & 0x7f;
    }
    this.ensureUrlRegion(len + hostLen);
    return call(this.scratchPtr, len, hostPtr, hostLen, this.urlPtr, this.urlCap);
  }

  /** Bytes of URL region a URL (plus host) of `bytes` bytes needs (src/url/url_canon.h CanonicalBufferSize). */
  private urlRegionFor(bytes: number, c = this.constants): number {
    return c.urlBufferAt + c.urlWorkspaceFixed + c.urlWorkspacePerByte * bytes;
  }

  /** Makes the URL region large enough for a URL (plus host) of `bytes` bytes. */
  private ensureUrlRegion(bytes: number): void {
    const need = this.urlRegionFor(bytes);
    if (need <= this.urlCap) return;
    const cap = Math.max(need, 4096);
    const ptr = this.alloc(cap);
    if (this.urlPtr) this.m._free(this.urlPtr);
    this.urlPtr = ptr;
    this.urlCap = cap;
  }

  /** `length` bytes of the URL workspace from `offset`, as a string (UTF-8 when `utf8`, else ASCII). */
  private urlText(offset: number, length: number, utf8: boolean): string {
    const at = this.urlPtr + this.constants.urlBufferAt + offset;
    const bytes = this.m.HEAPU8.subarray(at, at + length);
    if (utf8) return (decoder ??= new TextDecoder()).decode(bytes);
    let s = '';
    for (let i = 0; i < length; i += 4096) s += String.fromCharCode(...bytes.subarray(i, Math.min(length, i + 4096)));
    return s;
  }

  // -------------------------------------------------------------------------
  // Memory, and writing keys into it.

  /** malloc that throws OutOfMemoryError instead of returning 0. */
  protected alloc(bytes: number): number {
    const ptr = this.m._malloc(Math.max(1, bytes));
    if (ptr === 0) throw statusError(Status.OutOfMemory, { bytes });
    return ptr;
  }

  /**
   * Writes `key` into the scratch region (a string as UTF-8, a lone surrogate as U+FFFD) and returns its length in bytes.
   * Allocates nothing unless the key is longer than any seen before.
   * @throws ArgumentTypeError if `key` is neither a string nor a Uint8Array.
   */
  protected writeKey(key: unknown): number {
    // Kept small so the JIT inlines it into contain() / add(): short ASCII
    // strings (domain names) are copied here, everything else in writeOtherKey.
    const view = this.scratchView; // >= 3 * ASCII_LOOP_MAX bytes
    // If wasm memory grew since the view was made, the view is detached and
    // reads give undefined: then writeOtherKey makes it again. This read is
    // cheaper than view.byteLength, and it keeps the loop below from ever
    // storing into a detached view, which would turn its element stores
    // generic (and slow) for the rest of the process.
    if (typeof key === 'string' && key.length <= ASCII_LOOP_MAX && view[0] !== undefined) {
      const n = key.length;
      // Copy the code units, which are the key's UTF-8 bytes if it is ASCII:
      // faster than encodeInto for short keys, and allocates nothing. The
      // units are OR-ed together and checked once at the end rather than each
      // tested in the loop, which is faster.
      let units = 0;
      for (let i = 0; i < n; ++i) {
        const c = key.charCodeAt(i);
        units |= c;
        view[i] = c;
      }
      if (units < 0x80) return n;
    }
    return this.writeOtherKey(key);
  }

  /** writeKey for non-ASCII or long strings and Uint8Arrays, and after memory grew. */
  private writeOtherKey(key: unknown): number {
    if (typeof key === 'string') {
      // UTF-8 needs at most 3 bytes per UTF-16 code unit.
      if (key.length * 3 > this.scratchCap) this.growScratch(key.length * 3);
      let view = this.scratchView;
      if (view.byteLength === 0) view = this.refreshScratch(); // memory grew: old view detached
      return encoder.encodeInto(key, view).written;
    }
    if (isKey(key)) {
      const bytes = key as Uint8Array;
      const n = byteLengthOf(bytes);
      if (n > this.scratchCap) this.growScratch(n);
      this.m.HEAPU8.set(bytes, this.scratchPtr);
      return n;
    }
    throw keyTypeError(key, 'key');
  }

  protected growScratch(bytes: number): void {
    const cap = Math.max(bytes, this.scratchCap * 2);
    const ptr = this.alloc(cap);
    this.m._free(this.scratchPtr);
    this.scratchPtr = ptr;
    this.scratchCap = cap;
    this.refreshScratch();
  }

  private refreshScratch(): Uint8Array {
    this.scratchView = new Uint8Array(this.m.HEAPU8.buffer, this.scratchPtr, this.scratchCap);
    return this.scratchView;
  }

  private ensureBatch(keyBytes: number): void {
    if (keyBytes <= this.batchCap) return;
    // Rounded to 8 so the u32 offsets and i32 status after the keys stay aligned.
    const cap = Math.ceil(Math.max(keyBytes, BATCH_KEY_BYTES) / 8) * 8;
    const ptr = this.alloc(cap + (BATCH_MAX_KEYS + 1) * 4 + BATCH_MAX_KEYS + 8);
    if (this.batchPtr) this.m._free(this.batchPtr);
    this.batchPtr = ptr;
    this.batchCap = cap;
  }

  /** Address of the n + 1 u32 offsets of the chunk written last: key i is at batchPtr + [offsets[i], offsets[i + 1]). */
  protected get batchOffsets(): number {
    return this.batchPtr + this.batchCap;
  }

  /** Address of n bytes (or one i32 status) for the results of the call on that chunk. */
  protected get batchResults(): number {
    return this.batchPtr + this.batchCap + (BATCH_MAX_KEYS + 1) * 4;
  }

  /** Writes a chunk's keys and offsets into the batch region (see {@link batchOffsets}), empties the chunk, and returns how many keys it held. */
  protected writeChunk(chunk: Chunk): number {
    this.ensureBatch(chunk.maxBytes);
    // Views taken now: memory may have grown while keys were read.
    return chunk.packInto(this.m.HEAPU8, this.batchPtr, this.batchCap, this.m.HEAPU32, this.batchOffsets >>> 2);
  }
}

/** A patch call's answer as the boundary gives it: the bytes, or the refusal (its mismatch undefined when none). */
export function refusalOf(r: Uint8Array | { status: number; mismatch: PatchMismatch | null }): Uint8Array | PatchRefusal {
  return r instanceof Uint8Array ? r : { status: r.status, mismatch: r.mismatch ?? undefined };
}

/**
 * The module-level embind functions of both modules (bindings/embind.cc): a status's description, the family bytes
 * hold (or -status), a patch applied to filter bytes (the result, or the refusal), a patch's header (or -status).
 */
interface EmbindFunctions {
  statusMessage(status: number): string;
  peekFamily(ptr: number, length: number): number;
  patchApply(base: number, baseLength: number, patch: number, patchLength: number): Uint8Array | { status: number; mismatch: PatchMismatch | null };
  patchInfo(patch: number, patchLength: number): PatchInfo | number;
}
