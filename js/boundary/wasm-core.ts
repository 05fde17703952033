/**
 * The boundary's core: the one object that holds the WebAssembly module, touches
 * its memory and calls its functions (house style: every raw wasm access in one
 * place; js/boundary/ is that place, and tests/js/boundary.test.ts checks on the
 * import graph that nothing else imports the module or its types): the
 * instance (js/boundary/load.ts makes it, js/boundary/core-exports.ts takes its
 * functions out), the regions keys are written into, and the raw calls on
 * filter handles. Every other file checks arguments, calls these, and turns
 * the statuses they return into errors (js/common/status.ts).
 *
 * Embind functions serve everything off the hot path; the per-key and
 * per-batch calls are plain exports (a family's `cf_*` / `bf_*` row, and
 * `url_*`), called as the wasm instance's own exports. Results follow the
 * bindings' one convention: >= 0 is the answer, < 0 is -status.
 *
 * Keys cross as bytes written into memory the boundary owns (a scratch region
 * for one key, a batch region for a chunk of keys; see writeKey). Nothing
 * returned from here aliases wasm memory, and no user code runs between writing
 * into wasm memory and the call that reads it (a batch's keys are first read
 * into a {@link Chunk}).
 */
import { Key, byteLengthOf, isKey, keyTypeError } from '../common/checks.js';
import { BATCH_KEY_BYTES, BATCH_MAX_KEYS, Chunk } from '../common/chunk.js';
import { Answers, writeAnswers } from '../common/answers.js';
import { Status, statusError } from '../common/status.js';
import { AsciiHost, CoreConstants, CoreModule, ExportPrefix, ExportRow, FAMILY_EXPORTS, FamilyExports, Handle, KeyOp, OtherExports, PREFIXES, PatchInfo, PatchRefusal, RawBoundary, UrlCall } from './core-types.js';
import { ColdCalls, OpenCalls, openCalls, takeExports } from './core-exports.js';
import { checkRegistry } from '../registry.js';

export type { AsciiHost, CoreConstants, CoreModule, ExportPrefix, ExportRow, Handle, KeyOp, KeyOpName, PatchInfo, PatchMismatch, PatchRefusal, RawBoundary } from './core-types.js';

const SCRATCH_INITIAL = 4096; // >= 3 * ASCII_LOOP_MAX: writeKey's fast path needs no size check
/** Longest string writeKey copies code unit by code unit before using TextEncoder. */
const ASCII_LOOP_MAX = 32;

const encoder = new TextEncoder();
/** Made on first use: only a non-ASCII host needs it. */
let decoder: TextDecoder | undefined;

/** One instantiated module with its scratch, batch and URL regions, and the raw calls on its filters. */
export class Core {
  private readonly m: CoreModule;
  /** Each family's hot exports, and the others, taken from the wasm instance's exports. */
  private readonly rows: Record<ExportPrefix, FamilyExports>;
  private readonly hot: OtherExports;
  /** True when every hot function is the instance's own export (no wrapper). */
  readonly direct: boolean;
  /** What both sides agree on, as the core reports it. */
  readonly constants: CoreConstants;
  private scratchPtr: number;
  private scratchCap: number;
  private scratchView: Uint8Array = new Uint8Array(0);
  private batchPtr = 0;
  private batchCap = 0;
  private urlPtr = 0;
  private urlCap = 0;
  /** Embind functions called as they are, no memory involved (js/boundary/core-exports.ts ColdCalls: sizing, Bloom union, Redis creation, dumps). */
  readonly cold: ColdCalls;
  // Opening, reading out, closing (js/boundary/core-exports.ts OpenCalls): handles or -status, no memory involved.
  readonly cuckooCreate: OpenCalls['cuckooCreate'];
  readonly bloomCreate: OpenCalls['bloomCreate'];
  readonly info: OpenCalls['info'];
  readonly destroy: OpenCalls['destroy'];
  readonly statusMessage: OpenCalls['statusMessage'];

  /** @internal */
  constructor(module: CoreModule, exports: WebAssembly.Exports | undefined) {
    this.m = module;
    ({ rows: this.rows, hot: this.hot, cold: this.cold, direct: this.direct } = takeExports(module, exports));
    ({ cuckooCreate: this.cuckooCreate, bloomCreate: this.bloomCreate, info: this.info, destroy: this.destroy, statusMessage: this.statusMessage } = openCalls(module));
    this.constants = module.constants();
    checkRegistry(this.constants);
    this.scratchCap = SCRATCH_INITIAL;
    this.scratchPtr = this.alloc(SCRATCH_INITIAL);
    this.scratchView = this.refreshScratch();
  }

  /** A family's hot exports, by their prefix, for the calls below (opaque to their holder). */
  exportsOf(prefix: ExportPrefix): ExportRow {
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

  /** The raw module, for tests and benchmarks only (js/testing.ts). */
  testing(): RawBoundary {
    const exports: Record<string, (...args: number[]) => number> = { ...this.hot } as never;
    for (const p of PREFIXES) for (const op of FAMILY_EXPORTS) exports[`${p}_${op}`] = this.rows[p][op] as never;
    const m = this.m;
    const scratch = () => ({ ptr: this.scratchPtr, bytes: this.scratchCap });
    return { heapU8: () => m.HEAPU8, heapU32: () => m.HEAPU32, malloc: (n) => m._malloc(n), free: (p) => m._free(p), exports, scratch, constants: this.constants };
  }

  // -------------------------------------------------------------------------
  // Loading and serializing. Results are a handle or -status.

  /**
   * Loads a filter of `family` from its bytes (docs/FORMAT.md), copied into wasm memory for the call:
   * its handle or -status, and the family they hold (src/common/family.h) if another's, else 0.
   * @throws OutOfMemoryError if wasm memory cannot hold the copy.
   */
  deserialize(family: number, bytes: Uint8Array): { result: number; found: number } {
    let found = 0;
    const result = this.withBytes(bytes, (ptr, length) => {
      const r = this.m.deserialize(family, ptr, length);
      const status = -r;
      const wrong = status === Status.FormatWrongFamily || status === Status.FormatIsBloomFilter || status === Status.FormatIsCuckooFilter;
      if (wrong) found = Math.max(0, this.m.peekFamily(ptr, length));
      return r;
    });
    return { result, found };
  }

  /** `call(ptr, length)` on a copy of `bytes` in wasm memory, freed after it. @throws OutOfMemoryError */
  private withBytes<T>(bytes: Uint8Array, call: (ptr: number, length: number) => T): T {
    const length = byteLengthOf(bytes);
    const ptr = this.alloc(length);
    try {
      this.m.HEAPU8.set(bytes, ptr);
      return call(ptr, length);
    } finally {
      this.m._free(ptr);
    }
  }

  // -------------------------------------------------------------------------
  // The Redis families' SCANDUMP / LOADCHUNK (bindings/embind.cc DumpChunk, LoadDump*).

  /** Chunk j of the filter's SCANDUMP (0 the header) as [iterator, a copy of its bytes]. @throws OutOfMemoryError */
  dumpChunk(family: number, handle: Handle, j: number): [number, Uint8Array] {
    const header = j === 0 ? this.alloc(this.m.dumpHeaderBytes(family, handle)) : 0;
    try {
      const [iterator, ptr, len] = this.m.dumpChunk(family, handle, j, header);
      return [iterator, this.m.HEAPU8.slice(ptr, ptr + len)];
    } finally {
      if (header !== 0) this.m._free(header);
    }
  }

  /** LOADCHUNK of the header chunk: a new filter's handle (usable once finishDump gave 0; destroy it on any error), or -status. */
  loadDumpHeader(family: number, iterator: number, chunk: Uint8Array): number {
    return this.withBytes(chunk, (ptr, len) => this.m.loadDumpHeader(family, iterator, ptr, len));
  }

  /** LOADCHUNK of a table chunk into a filter loadDumpHeader made: 0, or -status. */
  loadDumpChunk(family: number, handle: Handle, iterator: number, chunk: Uint8Array): number {
    return this.withBytes(chunk, (ptr, len) => this.m.loadDumpChunk(family, handle, iterator, ptr, len));
  }

  /** The filter's serialized bytes (docs/FORMAT.md), in a new array the caller owns. @throws OutOfMemoryError */
  serialize(row: ExportRow, family: number, handle: Handle): Uint8Array {
    const byteLength = this.serializedSize(row, handle);
    const ptr = this.alloc(byteLength);
    try {
      this.m.serialize(family, handle, ptr);
      return this.m.HEAPU8.slice(ptr, ptr + byteLength);
    } finally {
      this.m._free(ptr);
    }
  }

  // -------------------------------------------------------------------------
  // Patches (src/patch/patch.h, docs/FORMAT.md §17) of serialized filters, copied into wasm memory for the call.

  /** The patch that turns filter bytes `older` into `newer`, or why not. @throws OutOfMemoryError */
  patchDiff(older: Uint8Array, newer: Uint8Array): Uint8Array | PatchRefusal {
    return this.withBytes(older, (o, on) => this.withBytes(newer, (n, nn) => this.patchResult(this.m.patchDiff(o, on, n, nn))));
  }

  /** The filter bytes `patch` makes of `base` (the core checks they have its parameters), or why not. @throws OutOfMemoryError */
  patchApply(base: Uint8Array, patch: Uint8Array): Uint8Array | PatchRefusal {
    return this.withBytes(base, (b, bn) => this.withBytes(patch, (p, pn) => this.patchResult(this.m.patchApply(b, bn, p, pn))));
  }

  /** What the header of `patch` says, or -status. @throws OutOfMemoryError */
  patchInfo(patch: Uint8Array): PatchInfo | number {
    return this.withBytes(patch, (p, n) => this.m.patchInfo(p, n));
  }

  /** What a patch call returned: a copy of the bytes of the block at `r` (a u64 LE byte count, then the bytes; the block is freed), or the core's refusal. */
  private patchResult(r: number | PatchRefusal): Uint8Array | PatchRefusal {
    if (typeof r !== 'number') return r;
    try {
      const length = this.m.HEAPU32[r >>> 2] + this.m.HEAPU32[(r >>> 2) + 1] * 2 ** 32;
      return this.m.HEAPU8.slice(r + 8, r + 8 + length);
    } finally {
      this.m._free(r);
    }
  }

  /** Size of wasm memory, and the bytes allocated in it (filters, tables, this object's regions). */
  memoryUsage(): { heapBytes: number; allocatedBytes: number } {
    return { heapBytes: this.m.HEAPU8.length, allocatedBytes: this.m.allocatedBytes() };
  }

  // -------------------------------------------------------------------------
  // One key, one call: each writes the key into the scratch region and crosses once.
  // @throws ArgumentTypeError if `key` is neither a string nor a live Uint8Array.

  /** Adds a key: 0, or -status (NotEnoughSpace, GrowthLimit, OutOfMemory; nothing changed). */
  add(row: ExportRow, handle: Handle, key: Key): number {
    const len = this.writeKey(key);
    return (row as unknown as FamilyExports).add(handle, this.scratchPtr, len);
  }

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
    return this.hot[op](handle, this.scratchPtr, len);
  }

  /** Cuckoo: fraction of the table's slots in use, victim excluded. */
  loadFactor(handle: Handle): number {
    return this.hot.cf_load_factor(handle);
  }

  // -------------------------------------------------------------------------
  // One chunk of a batch, one call: each writes the chunk's keys into the
  // batch region and crosses once; runs no user code.

  /** Adds the chunk's keys in order, stopping at the first that does not fit: how many went in ({@link batchStatus}: why). */
  addBatch(row: ExportRow, handle: Handle, chunk: Chunk): number {
    const n = this.writeChunk(chunk);
    return (row as unknown as FamilyExports).add_batch(handle, this.batchPtr, this.batchOffsets, n, this.batchResults);
  }

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

  /** The status of the last add batch: Ok, or why its last key was not added. */
  batchStatus(): number {
    return -this.m.HEAP32[this.batchResults >>> 2] | 0;
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

  /** Adds a list entry's canonical expression: Ok, a Url* status, or the filter's add status. */
  urlAdd(family: number, handle: Handle, url: Key, host: AsciiHost): number {
    if (this.urlTooLong(url)) return Status.UrlTooLong;
    return -this.urlCall(url, host, (u, n, h, hn, r, rn) => this.hot.url_add(family, handle, u, n, h, hn, r, rn)) | 0;
  }

  /** 1 if an expression of the URL is in the filter ({@link urlSpan} is the first), 0 if none, -status if refused. */
  urlMatch(family: number, handle: Handle, url: Key, host: AsciiHost): number {
    if (this.urlTooLong(url)) return -Status.UrlTooLong;
    if (host === undefined) {
      // The per-URL lookup: no closure, no host.
      const len = this.writeKey(url);
      if (this.urlRegionFor(len) > this.urlCap) this.ensureUrlRegion(len);
      return this.hot.url_match(family, handle, this.scratchPtr, len, 0, 0, this.urlPtr, this.urlCap);
    }
    return this.urlCall(url, host, (u, n, h, hn, r, rn) => this.hot.url_match(family, handle, u, n, h, hn, r, rn));
  }

  /** Canonicalizes: Ok ({@link urlCanonical} is the result) or a Url* status. */
  urlCanonicalize(url: Key, host: AsciiHost): number {
    if (this.urlTooLong(url)) return Status.UrlTooLong;
    return -this.urlCall(url, host, this.hot.url_canonicalize) | 0;
  }

  /** The URL's expressions: their count ({@link urlSpans} reads them), or -status. */
  urlExpressions(url: Key, host: AsciiHost): number {
    if (this.urlTooLong(url)) return -Status.UrlTooLong;
    return this.urlCall(url, host, this.hot.url_expressions);
  }

  /** A list entry's canonical expression: Ok ({@link urlSpan} is it) or a Url* status. */
  urlEntry(url: Key, host: AsciiHost): number {
    if (this.urlTooLong(url)) return Status.UrlTooLong;
    return -this.urlCall(url, host, this.hot.url_entry) | 0;
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
   * Adds a chunk of list entries, stopping at the first refused: how many went
   * in ({@link batchStatus} says why it stopped). `from` resumes a chunk written
   * by an earlier call at that index.
   */
  urlAddBatch(family: number, handle: Handle, chunk: Chunk | undefined, from: number, n: number): number {
    if (chunk !== undefined) this.writeChunkForUrls(chunk);
    const offsets = this.batchOffsets + 4 * from;
    return this.hot.url_add_batch(family, handle, this.batchPtr, offsets, n - from, this.batchResults, this.urlPtr, this.urlCap);
  }

  /**
   * Looks up a chunk of URLs; each result goes to `codes[i]`: 1 found, 0 not
   * found, else -status, the status that refused URL i (UrlNonAsciiHost included).
   */
  urlMatchBatch(family: number, handle: Handle, chunk: Chunk, codes: Int8Array): void {
    const n = this.writeChunkForUrls(chunk);
    this.hot.url_match_batch(family, handle, this.batchPtr, this.batchOffsets, n, this.batchResults, this.urlPtr, this.urlCap);
    codes.set(this.m.HEAP8.subarray(this.batchResults, this.batchResults + n));
  }

  /** writeChunk, with the URL region sized for the chunk's longest possible key. */
  private writeChunkForUrls(chunk: Chunk): number {
    this.ensureUrlRegion(chunk.maxBytes);
    return this.writeChunk(chunk);
  }

  private urlCall(url: Key, host: AsciiHost, call: UrlCall): number {
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
  private alloc(bytes: number): number {
    const ptr = this.m._malloc(Math.max(1, bytes));
    if (ptr === 0) throw statusError(Status.OutOfMemory, { bytes });
    return ptr;
  }

  /**
   * Writes `key` into the scratch region (a string as UTF-8, a lone surrogate as U+FFFD) and returns its length in bytes.
   * Allocates nothing unless the key is longer than any seen before.
   * @throws ArgumentTypeError if `key` is neither a string nor a Uint8Array.
   */
  private writeKey(key: unknown): number {
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

  private growScratch(bytes: number): void {
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
  private get batchOffsets(): number {
    return this.batchPtr + this.batchCap;
  }

  /** Address of n bytes (or one i32 status) for the results of the call on that chunk. */
  private get batchResults(): number {
    return this.batchPtr + this.batchCap + (BATCH_MAX_KEYS + 1) * 4;
  }

  /** Writes a chunk's keys and offsets into the batch region (see {@link batchOffsets}), empties the chunk, and returns how many keys it held. */
  private writeChunk(chunk: Chunk): number {
    this.ensureBatch(chunk.maxBytes);
    // Views taken now: memory may have grown while keys were read.
    return chunk.packInto(this.m.HEAPU8, this.batchPtr, this.batchCap, this.m.HEAPU32, this.batchOffsets >>> 2);
  }
}
