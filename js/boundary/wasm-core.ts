/**
 * The boundary's full core: {@link ReadCore} (js/boundary/read-core.ts) over the full module (cuckoo-core.wasm),
 * with the calls only it has: adding keys and URLs one at a time and by the chunk (the plain exports CUCKOO_WRITER
 * marks in bindings/c_exports.cc), patch diffs (bindings/filter_exports.cc), the build exports of
 * bindings/build_exports.cc (creating filters, sizing, the Redis families' SCANDUMP / LOADCHUNK), and the embind
 * methods only its classes have (bindings/embind.cc: Bloom union, CF.COMPACT).
 * Results follow the bindings' one convention: >= 0 is the answer, < 0 is -status.
 */
import { Key } from '../common/checks.js';
import { Chunk } from '../common/chunk.js';
import { Status } from '../common/status.js';
import { seedWords } from '../common/options.js';
import { ReadCore } from './read-core.js';
import type { AsciiHost, BuildExports, ExportRow, FamilyExports, FamilyWriteExports, Handle, PatchRefusal, RawBoundary, ReadModule, WriteExports } from './core-types.js';
import { FAMILY_WRITE_EXPORTS, PREFIXES, WRITE_EXPORTS } from './core-types.js';

export { ReadCore } from './read-core.js';
export type { AsciiHost, CoreConstants, ExportPrefix, ExportRow, Handle, KeyOp, KeyOpName, PatchInfo, PatchMismatch, PatchRefusal, RawBoundary, ReadModule } from './core-types.js';

/**
 * The build exports called as they are (bindings/build_exports.cc; no memory involved): a Bloom filter's size
 * (src/growth/sizing.h; -InvalidArgument when refused), the Redis families' creation (a handle or -status), chunk
 * count and the end of a load (0 or -status).
 */
export interface ColdCalls {
  bloomSerializedSizeFor(capacity: number, fpr: number, expansion: number): number;
  redisCuckooCreate(capacity: number, bucketSize: number, maxIterations: number, expansion: number): number;
  redisBloomCreate(errorRate: number, capacity: number, expansion: number, nonScaling: boolean): number;
  dumpChunkCount(family: number, handle: number): number;
  finishDump(family: number, handle: number): number;
}
/** Each of {@link ColdCalls} by its export's name. */
const COLD: Record<keyof ColdCalls, keyof BuildExports> = {
  bloomSerializedSizeFor: 'bloom_serialized_size_for',
  redisCuckooCreate: 'redis_cuckoo_create',
  redisBloomCreate: 'redis_bloom_create',
  dumpChunkCount: 'dump_chunk_count',
  finishDump: 'finish_dump',
};

/** A new cuckoo filter's shape ({@link Core.sizeCuckoo}). */
export interface CuckooSizing {
  fingerprintBits: number;
  firstRate: number;
  bytes: number;
  maxCapacity: number;
  bytesAtMax: number;
}

/** The full module's core: every call of {@link ReadCore}, and the writers. */
export class Core extends ReadCore {
  /** The full module's exports beyond the reader's. */
  private readonly w: WriteExports & BuildExports;
  /** Build exports called as they are, no memory involved ({@link ColdCalls}). */
  readonly cold: ColdCalls;

  /** @internal */
  constructor(module: ReadModule, exports: Record<string, unknown>) {
    super(module, exports);
    const x = exports;
    this.w = x as unknown as WriteExports & BuildExports;
    this.cold = Object.fromEntries(Object.entries(COLD).map(([name, exported]) => [name, x[exported]])) as unknown as ColdCalls;
    for (const name of [...PREFIXES.flatMap((p) => FAMILY_WRITE_EXPORTS.map((op) => `${p}_${op}`)), ...WRITE_EXPORTS, ...Object.values(COLD)]) {
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
    return { heapBytes: this.m.HEAPU8.length, allocatedBytes: this.w.allocated_bytes() };
  }

  /**
   * A new cuckoo filter's shape, in one call (embind's sizeCuckoo, src/growth/sizing.h SizeCuckoo): its fingerprint
   * bits (`fingerprintBits` 0: sized by `fpr`; 0 back: no f reaches the rate), the rate its first sub-filter is sized
   * for, its bytes (0: refused), and past `maxBytes` the most keys that fit with their bytes.
   */
  sizeCuckoo(capacity: number, fpr: number, fingerprintBits: number, b: number, expansion: number, encoding: number, maxBytes: number): CuckooSizing {
    return (this.m.sizeCuckoo as (...args: number[]) => CuckooSizing)(capacity, fpr, fingerprintBits, b, expansion, encoding, maxBytes);
  }

  /** A new cuckoo filter's handle, or -status (InvalidArgument, OutOfMemory); `encoding` is a cuckoo::TableEncoding. */
  cuckooCreate(capacity: number, f: number, b: number, maxKicks: number, seed: bigint, expansion: number, encoding: number): number {
    return this.w.cuckoo_create(capacity, f, b, maxKicks, ...seedWords(seed), expansion, encoding);
  }

  /** A new Bloom filter's handle, or -status. */
  bloomCreate(capacity: number, fpr: number, seed: bigint, expansion: number): number {
    return this.w.bloom_create(capacity, fpr, ...seedWords(seed), expansion);
  }

  /** True if Bloom filters a and b have the same parameters (union joins them). */
  bloomCompatible(a: Handle, b: Handle): boolean {
    const family = this.constants.familyBloom;
    return this.boxOf(family, a).isCompatible!(this.boxOf(family, b));
  }

  /** ORs Bloom filter `other`'s bits into `into` (their embind objects' union): 0, or -status. */
  bloomUnion(into: Handle, other: Handle): number {
    const family = this.constants.familyBloom;
    return this.boxOf(family, into).union!(this.boxOf(family, other));
  }

  /** CF.COMPACT on a Redis cuckoo filter (its embind object's compact()); allocates nothing. */
  redisCuckooCompact(handle: Handle): void {
    this.boxOf(this.constants.familyRedisCuckoo, handle).compact!();
  }

  // -------------------------------------------------------------------------
  // The Redis families' SCANDUMP / LOADCHUNK (bindings/build_exports.cc dump_chunk, load_dump_*).

  /** Chunk j of the filter's SCANDUMP (0 the header) as [iterator, a copy of its bytes]. @throws OutOfMemoryError */
  dumpChunk(family: number, handle: Handle, j: number): [number, Uint8Array] {
    const header = j === 0 ? this.alloc(this.w.dump_header_bytes(family, handle)) : 0;
    const out = this.alloc(24);
    try {
      this.w.dump_chunk(family, handle, j, header, out);
      const [iterator, ptr, len] = new Float64Array(this.m.HEAPU8.buffer, out, 3);
      return [iterator, this.m.HEAPU8.slice(ptr, ptr + len)];
    } finally {
      this.m._free(out);
      if (header !== 0) this.m._free(header);
    }
  }

  /** LOADCHUNK of the header chunk: a new filter's handle (usable once finishDump gave 0; destroy it on any error), or -status. */
  loadDumpHeader(family: number, iterator: number, chunk: Uint8Array): number {
    return this.withBytes(chunk, (ptr, len) => this.w.load_dump_header(family, iterator, ptr, len));
  }

  /** LOADCHUNK of a table chunk into a filter loadDumpHeader made: 0, or -status. */
  loadDumpChunk(family: number, handle: Handle, iterator: number, chunk: Uint8Array): number {
    return this.withBytes(chunk, (ptr, len) => this.w.load_dump_chunk(family, handle, iterator, ptr, len));
  }

  /** The patch that turns filter bytes `older` into `newer`, or why not. @throws OutOfMemoryError */
  patchDiff(older: Uint8Array, newer: Uint8Array): Uint8Array | PatchRefusal {
    return this.withBytes(older, (o, on) => this.withBytes(newer, (n, nn) => this.patchResult((why) => this.w.patch_diff(o, on, n, nn, why))));
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
