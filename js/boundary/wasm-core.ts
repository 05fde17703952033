/**
 * The boundary's full core: {@link ReadCore} (js/boundary/read-core.ts) over the full module (cuckoo-core.wasm),
 * with the calls only it has: adding keys and URLs one at a time and by the chunk (the plain exports CUCKOO_WRITER
 * marks in bindings/c_exports.cc), and the embind factories, methods and functions only its module has
 * (bindings/embind.cc: create, Bloom union, CF.COMPACT, the Redis families' SCANDUMP / LOADCHUNK, patch diffs,
 * sizing).
 * Results follow the bindings' one convention: >= 0 is the answer, < 0 is -status.
 */
import { Key } from '../common/checks.js';
import { Chunk } from '../common/chunk.js';
import { Status, statusError } from '../common/status.js';
import { ReadCore, refusalOf } from './read-core.js';
import type { AsciiHost, ExportRow, FamilyExports, FamilyWriteExports, FilterObject, Handle, PatchMismatch, PatchRefusal, RawBoundary, ReadModule, WriteExports } from './core-types.js';
import { FAMILY_WRITE_EXPORTS, PREFIXES, WRITE_EXPORTS } from './core-types.js';

export { ReadCore } from './read-core.js';
export type { AsciiHost, CoreConstants, ExportPrefix, ExportRow, Handle, KeyOp, KeyOpName, PatchInfo, PatchMismatch, PatchRefusal, RawBoundary, ReadModule } from './core-types.js';

/** A new cuckoo filter's shape ({@link Core.sizeCuckoo}). */
export interface CuckooSizing {
  fingerprintBits: number;
  firstRate: number;
  lowestRate: number;
  bytes: number;
  maxCapacity: number;
  bytesAtMax: number;
}

/**
 * The module-level embind functions of the full module only (bindings/embind.cc): a patch between two filters' bytes
 * (or the refusal), a new filter's size, and the bytes allocated in wasm memory.
 */
interface WriteFunctions {
  patchDiff(older: number, olderLength: number, newer: number, newerLength: number): Uint8Array | { status: number; mismatch: PatchMismatch | null };
  sizeCuckoo(capacity: number, fpr: number, fingerprintBits: number, b: number, expansion: number, encoding: number, maxBytes: number): CuckooSizing;
  sizeBloom(capacity: number, fpr: number, expansion: number): number;
  allocatedBytes(): number;
}

/** The full module's core: every call of {@link ReadCore}, and the writers. */
export class Core extends ReadCore {
  /** The full module's exports beyond the reader's. */
  private readonly w: WriteExports;

  /** @internal */
  constructor(module: ReadModule, exports: Record<string, unknown>) {
    super(module, exports);
    const x = exports;
    this.w = x as unknown as WriteExports;
    for (const name of [...PREFIXES.flatMap((p) => FAMILY_WRITE_EXPORTS.map((op) => `${p}_${op}`)), ...WRITE_EXPORTS]) {
      if (typeof x[name] !== 'function') throw new Error(`the full module has no export ${name}`);
    }
    // Each family's row gains its writers.
    for (const p of PREFIXES) for (const op of FAMILY_WRITE_EXPORTS) (this.rows[p] as unknown as Record<string, unknown>)[op] = x[`${p}_${op}`];
  }

  /** The raw module, for tests and benchmarks only (js/testing.ts). */
  testing(): RawBoundary {
    const exports = Object.fromEntries(Object.entries(this.x).filter(([, f]) => typeof f === 'function')) as Record<string, (...args: number[]) => number>;
    const m = this.m;
    const scratch = () => ({ ptr: this.scratchPtr, bytes: this.scratchCap });
    return { heapU8: () => m.HEAPU8, heapU32: () => m.HEAPU32, malloc: (n) => m._malloc(n), free: (p) => m._free(p), exports, scratch, constants: this.constants };
  }

  /** Size of wasm memory, and the bytes allocated in it (filters, tables, this object's regions). */
  memoryUsage(): { heapBytes: number; allocatedBytes: number } {
    return { heapBytes: this.m.HEAPU8.length, allocatedBytes: this.g.allocatedBytes() };
  }

  /**
   * A new cuckoo filter's shape, in one call (embind's sizeCuckoo, src/growth/sizing.h SizeCuckoo): its fingerprint
   * bits (`fingerprintBits` 0: sized by `fpr`; 0 back: no f reaches the rate), the rate its first sub-filter is sized
   * for, its bytes (0: refused), and past `maxBytes` the most keys that fit with their bytes.
   */
  sizeCuckoo(capacity: number, fpr: number, fingerprintBits: number, b: number, expansion: number, encoding: number, maxBytes: number): CuckooSizing {
    return this.g.sizeCuckoo(capacity, fpr, fingerprintBits, b, expansion, encoding, maxBytes);
  }

  /** Bytes toBytes() gives for a new Bloom filter (src/growth/sizing.h), or -InvalidArgument for options the core refuses. */
  sizeBloom(capacity: number, fpr: number, expansion: number): number {
    return this.g.sizeBloom(capacity, fpr, expansion);
  }

  /**
   * A new filter of `family` (its embind class's create), from its parameters by the names the family's Params
   * declares (src/: a u64 as a number or [low, high] words): the filter, or the status that refused them
   * (InvalidArgument, OutOfMemory).
   */
  create(family: number, options: Record<string, number | boolean | readonly [number, number]>): FilterObject | number {
    return this.made(this.classOf(family).create!(options, this.status));
  }

  /** True if Bloom filters a and b have the same parameters (union joins them). */
  bloomCompatible(a: FilterObject, b: FilterObject): boolean {
    return this.objectOf(a).isCompatible!(this.objectOf(b));
  }

  /** ORs Bloom filter `other`'s bits into `into` (their embind objects' union): 0, or -status. */
  bloomUnion(into: FilterObject, other: FilterObject): number {
    return this.objectOf(into).union!(this.objectOf(other));
  }

  /** CF.COMPACT on a Redis cuckoo filter (its embind object's compact()); allocates nothing. */
  redisCuckooCompact(filter: FilterObject): void {
    this.objectOf(filter).compact!();
  }

  // -------------------------------------------------------------------------
  // The Redis families' SCANDUMP / LOADCHUNK (bindings/embind.cc: each dump family's methods).

  /** How many chunks SCANDUMP returns (0 for an empty Redis cuckoo filter). */
  dumpChunkCount(filter: FilterObject): number {
    return this.objectOf(filter).dumpChunkCount!();
  }

  /** Chunk j of the filter's SCANDUMP (0 the header) as [iterator, a copy of its bytes]. @throws OutOfMemoryError */
  dumpChunk(filter: FilterObject, j: number): [number, Uint8Array] {
    const chunk = this.objectOf(filter).dumpChunk!(j);
    if (typeof chunk === 'number') throw statusError(-chunk, {});
    return chunk;
  }

  /** LOADCHUNK of the header chunk: a new filter (usable once finishDump gave 0; destroy it on any error), or the status. */
  loadDumpHeader(family: number, iterator: number, chunk: Uint8Array): FilterObject | number {
    return this.withBytes(chunk, (ptr, len) => this.made(this.classOf(family).loadDumpHeader!(iterator, ptr, len, this.status)));
  }

  /** LOADCHUNK of a table chunk into a filter loadDumpHeader made: 0, or -status. */
  loadDumpChunk(filter: FilterObject, iterator: number, chunk: Uint8Array): number {
    return this.withBytes(chunk, (ptr, len) => this.objectOf(filter).loadDumpChunk!(iterator, ptr, len));
  }

  /** After the last chunk: 0 (the filter is complete), or -status. */
  finishDump(filter: FilterObject): number {
    return this.objectOf(filter).finishDump!();
  }

  /** The patch that turns filter bytes `older` into `newer`, or why not. @throws OutOfMemoryError */
  patchDiff(older: Uint8Array, newer: Uint8Array): Uint8Array | PatchRefusal {
    return this.withBytes(older, (o, on) => this.withBytes(newer, (n, nn) => refusalOf(this.g.patchDiff(o, on, n, nn))));
  }

  /** The full module's embind functions. */
  private get g(): WriteFunctions {
    return this.m as unknown as WriteFunctions;
  }

  // -------------------------------------------------------------------------
  // Adding keys. @throws ArgumentTypeError if `key` is neither a string nor a live Uint8Array.

  /** Adds a key: 0, or -status (NotEnoughSpace, GrowthLimit, OutOfMemory; nothing changed). */
  add(row: ExportRow, handle: Handle, key: Key): number {
    const len = this.writeKey(key);
    return (row as unknown as FamilyExports & FamilyWriteExports).add(handle, this.scratchPtr, len);
  }

  /**
   * Adds the chunk's keys in order, stopping at the first that does not fit: how many went in ({@link batchStatus}: why).
   * `continues`: the keys go on a batch whose earlier chunk crossed before (one command, for a limit checked once).
   */
  addBatch(row: ExportRow, handle: Handle, chunk: Chunk, continues = false): number {
    const n = this.writeChunk(chunk);
    return (row as unknown as FamilyWriteExports).add_batch(handle, this.batchPtr, this.batchOffsets, n, this.batchResults, continues ? 1 : 0);
  }

  /** The status of the last add batch: Ok, or why its last key was not added. */
  batchStatus(): number {
    return -this.m.HEAP32[this.batchResults >>> 2] | 0;
  }

  /** Adds a list entry's canonical expression: Ok, a Url* status, or the filter's add status. */
  urlAdd(family: number, handle: Handle, url: Key, host: AsciiHost): number {
    if (this.urlTooLong(url)) return Status.UrlTooLong;
    return -this.urlCall(url, host, (u, n, h, hn, r, rn) => this.w.url_add(family, handle, u, n, h, hn, r, rn)) | 0;
  }

  /** A list entry's canonical expression: Ok ({@link urlSpan} is it) or a Url* status. */
  urlEntry(url: Key, host: AsciiHost): number {
    if (this.urlTooLong(url)) return Status.UrlTooLong;
    return -this.urlCall(url, host, this.w.url_entry) | 0;
  }

  /**
   * Adds a chunk of list entries, stopping at the first refused: how many went
   * in ({@link batchStatus} says why it stopped). `from` resumes a chunk written
   * by an earlier call at that index.
   */
  urlAddBatch(family: number, handle: Handle, chunk: Chunk | undefined, from: number, n: number): number {
    if (chunk !== undefined) this.writeChunkForUrls(chunk);
    const offsets = this.batchOffsets + 4 * from;
    return this.w.url_add_batch(family, handle, this.batchPtr, offsets, n - from, this.batchResults, this.urlPtr, this.urlCap);
  }
}
