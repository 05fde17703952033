/**
 * What the two Redis families (js/filters/redis-cuckoo-filter.ts, js/filters/redis-bloom-filter.ts)
 * share over js/filters/family-filter.ts: SCANDUMP chunks out (toScanDump,
 * scanDumpChunks) and in (fromScanDump, scanDumpLoader), as RedisBloom's
 * `CF.SCANDUMP` / `BF.SCANDUMP` return them and `CF.LOADCHUNK` /
 * `BF.LOADCHUNK` take them (docs/FORMAT.md, the Redis sections; src/redis/redis_dump.h),
 * and the errors of a full Redis filter, worded as the server's.
 */
import { byteLengthOf, describe, isDetached, isUint8Array } from '../common/checks.js';
import { ArgumentRangeError, ArgumentTypeError, FilterDisposedError, FilterFormatError, FilterFullError } from '../common/errors.js';
import { FamilyDescriptor, KeyOp } from '../registry.js';
import type { Key } from '../common/checks.js';
import { FamilyFilter } from './family-filter.js';
import { loadFullCore } from '../boundary/load.js';
import { Status, statusError } from '../common/status.js';
import type { Core } from '../boundary/wasm-core.js';
import type { FilterObject } from '../boundary/core-types.js';
import { copyMethods, installWriters, type Writers } from './writers.js';

/**
 * One SCANDUMP chunk: `[iterator, bytes]`, as `CF.SCANDUMP key it` / `BF.SCANDUMP key it` reply
 * (a Node.js Buffer is a Uint8Array, and one from another realm is accepted too). The header
 * chunk has iterator 1; each table chunk 1 + the table bytes dumped so far, itself included.
 */
export type ScanDumpChunk = [iterator: number, chunk: Uint8Array];

/**
 * Loads a Redis filter one SCANDUMP chunk at a time (LOADCHUNK's order), for streaming a large
 * filter from a server: `push` each `[iterator, chunk]` as it arrives, then `finish()`.
 * Each chunk is checked as it is pushed, and copied: the caller may reuse its buffer.
 * A refused chunk frees what was loaded; so does `abort()`. After `finish`, `abort`, or a
 * refused chunk, `push` and `finish` throw FilterDisposedError.
 */
export interface ScanDumpLoader<F> {
  /**
   * Loads the next chunk. The terminal `[0, <empty>]` reply of SCANDUMP's last call may be pushed
   * too: it is ignored.
   * @throws FilterFormatError (reason 'bad-chunk' for an iterator out of order, a chunk past the
   *   end or spanning two sub-filters; 'truncated' / 'trailing-bytes' / 'bad-parameter' for a
   *   header of the wrong length or with numbers that disagree): the loader is then closed.
   * @throws ArgumentTypeError if the pair is not `[number, Uint8Array]` or its buffer is detached
   *   (the loader stays open). OutOfMemoryError if wasm memory cannot hold it (the loader is closed).
   */
  push(pair: ScanDumpChunk): void;
  /**
   * The filter, once every chunk was pushed.
   * @throws FilterFormatError 'truncated' (no header), 'bad-chunk' (tables incomplete) or
   *   'count-mismatch' (the header's item count disagrees with the tables); the loader is closed.
   */
  finish(): F;
  /** Frees what was loaded; a no-op once finished or aborted. */
  abort(): void;
}

/** How a Redis family's class makes an instance over a loaded filter. */
type Make<F> = (core: Core, object: FilterObject) => F;

/** Frees the half-loaded filter of a loader that was dropped without finish() or abort(). */
const loaders = new FinalizationRegistry<{ core: Core; object: FilterObject }>(({ core, object }) => core.destroy(object));

/** The one implementation of {@link ScanDumpLoader}. */
class Loader<F> implements ScanDumpLoader<F> {
  /** The filter being loaded, once the header chunk made it. */
  private object: FilterObject | null = null;
  private closed: string | undefined;
  private pushed = 0;

  constructor(
    private readonly core: Core,
    private readonly family: FamilyDescriptor,
    private readonly make: Make<F>,
  ) {}

  push(pair: ScanDumpChunk): void {
    // The pair's getters (a Proxy, an accessor) are caller code: read it whole before anything
    // is checked or loaded, so whatever that code does (push, abort, grow memory) is seen.
    const [iterator, chunk] = readPair(pair, this.pushed);
    this.open();
    if (iterator === 0 && byteLengthOf(chunk) === 0) return; // SCANDUMP's terminal reply
    const id = this.family.id;
    const index = this.pushed++;
    try {
      if (this.object === null) {
        const made = this.core.loadDumpHeader(id, iterator, chunk);
        if (typeof made === 'number') throw this.refused(made, index);
        this.object = made;
        loaders.register(this, { core: this.core, object: made }, this);
      } else {
        const r = this.core.loadDumpChunk(this.object, iterator, chunk);
        if (r < 0) throw this.refused(-r, index);
      }
    } catch (e) {
      this.close('refused a chunk');
      throw e;
    }
  }

  finish(): F {
    this.open();
    if (this.object === null) {
      this.close('was finished');
      throw new FilterFormatError(`no SCANDUMP header chunk (iterator 1) was given: not ${this.family.what}`, 'truncated');
    }
    const r = this.core.finishDump(this.object);
    if (r < 0) {
      const e = this.refused(-r, this.pushed);
      this.close('refused its chunks');
      throw e;
    }
    const object = this.object;
    loaders.unregister(this);
    this.object = null;
    this.closed = 'was finished';
    return this.make(this.core, object);
  }

  abort(): void {
    if (this.closed === undefined) this.close('was aborted');
  }

  private open(): void {
    if (this.closed !== undefined) {
      throw new FilterDisposedError(`this SCANDUMP loader ${this.closed}: start a new one with ${this.family.className}.scanDumpLoader()`);
    }
  }

  private close(why: string): void {
    this.closed = why;
    if (this.object !== null) {
      loaders.unregister(this);
      this.core.destroy(this.object);
      this.object = null;
    }
  }

  /** The error of a chunk (at `index`; the count of chunks for finish) the core refused. */
  private refused(status: number, index: number): Error {
    const detail = this.core.statusMessage(status);
    const e = statusError(status, { detail, bytes: 0 });
    if (!(e instanceof FilterFormatError)) return e;
    return new FilterFormatError(`SCANDUMP chunk ${index} is not part of ${this.family.what}: ${detail}`, e.reason);
  }
}

/** `[iterator, chunk]` of a pushed pair, each read once. @throws ArgumentTypeError, ArgumentRangeError */
function readPair(pair: unknown, index: number): [number, Uint8Array] {
  if (typeof pair !== 'object' || pair === null) {
    throw new ArgumentTypeError(`SCANDUMP chunk ${index} must be an [iterator, Uint8Array] pair, got ${describe(pair)}`);
  }
  const p = pair as Record<number, unknown>;
  const it = p[0];
  const chunk = p[1];
  const iterator = typeof it === 'bigint' && it <= BigInt(Number.MAX_SAFE_INTEGER) && it >= 0n ? Number(it) : it;
  if (typeof iterator !== 'number') {
    throw new ArgumentTypeError(`the iterator of SCANDUMP chunk ${index} must be a number, got ${describe(it)}`);
  }
  if (!Number.isSafeInteger(iterator) || iterator < 0) {
    throw new ArgumentRangeError(`the iterator of SCANDUMP chunk ${index} must be an integer >= 0, got ${iterator}`);
  }
  if (!isUint8Array(chunk)) {
    const hint = typeof chunk === 'string' ? ' (a client that decodes replies as strings corrupts them: ask it for Buffers)' : '';
    throw new ArgumentTypeError(`SCANDUMP chunk ${index} must be a Uint8Array or Buffer, got ${describe(chunk)}${hint}`);
  }
  if (byteLengthOf(chunk) === 0 && isDetached(chunk)) {
    throw new ArgumentTypeError(`SCANDUMP chunk ${index} is a Uint8Array whose buffer was detached: it has no bytes to read`);
  }
  return [iterator, chunk];
}

/**
 * The filter from `chunks` (see {@link ScanDumpLoader} for what each may throw). The iterable's
 * code runs between chunks; whatever it does, the result is the filter or a typed error, and
 * nothing half-loaded is left behind.
 * @throws ArgumentTypeError if `chunks` is neither iterable nor async iterable.
 * @internal
 */
export async function fromChunks<F>(family: FamilyDescriptor, chunks: unknown, make: Make<F>): Promise<F> {
  const loader = await chunkLoader(family, make);
  try {
    const source = chunks as Partial<AsyncIterable<ScanDumpChunk> & Iterable<ScanDumpChunk>> | null | undefined;
    if (typeof source?.[Symbol.asyncIterator] === 'function') {
      for await (const pair of source as AsyncIterable<ScanDumpChunk>) loader.push(pair);
    } else if (typeof source?.[Symbol.iterator] === 'function' && typeof source !== 'string') {
      for (const pair of source as Iterable<ScanDumpChunk>) loader.push(pair);
    } else {
      throw new ArgumentTypeError(`chunks must be an iterable or async iterable of [iterator, Uint8Array] pairs, got ${describe(chunks)}`);
    }
    return loader.finish();
  } finally {
    loader.abort();
  }
}

/** A loader of a Redis family's SCANDUMP chunks. @internal */
export async function chunkLoader<F>(family: FamilyDescriptor, make: Make<F>): Promise<ScanDumpLoader<F>> {
  return new Loader(await loadFullCore(), family, make);
}

/** What the full entry's Redis classes have besides the reader's: the writers, and SCANDUMP. */
export interface RedisDump extends Writers {
  /**
   * The filter's SCANDUMP chunks, each a copy, in a new array: byte for byte what the server's
   * SCANDUMP returns for the same filter (`[]` for an empty cuckoo filter).
   * @throws FilterDisposedError after dispose(). OutOfMemoryError if wasm memory cannot hold the header.
   */
  toScanDump(): ScanDumpChunk[];
  /**
   * The chunks of {@link toScanDump}, one at a time (each a copy made when it is reached), so a
   * large filter can be streamed to a server with LOADCHUNK.
   * @throws FilterDisposedError if the filter is disposed before a chunk is reached.
   * @throws FilterFormatError ('bad-chunk') if the filter changed between two chunks (the
   *   chunks would then be of no one filter): dump again.
   */
  scanDumpChunks(): IterableIterator<ScanDumpChunk>;
}

/**
 * The code of {@link RedisDump} and the Redis families' full-filter error, on their common base; never
 * instantiated: {@link installRedisMethods} puts it on each Redis class of the full entry.
 */
abstract class RedisMethods extends FamilyFilter {
  toScanDump(): ScanDumpChunk[] {
    return Array.from(this.scanDumpChunks());
  }

  *scanDumpChunks(): IterableIterator<ScanDumpChunk> {
    const core = this.core as Core;
    const n = core.dumpChunkCount(this.liveObject());
    let header: Uint8Array | undefined;
    for (let j = 0; j < n; ++j) {
      const object = this.liveObject();
      if (header !== undefined && !sameBytes(header, core.dumpChunk(object, 0)[1])) {
        throw new FilterFormatError('the filter changed while its SCANDUMP chunks were being read: dump it again', 'bad-chunk');
      }
      const chunk = core.dumpChunk(object, j);
      if (j === 0) header = chunk[1].slice();
      yield chunk;
    }
  }

  /** The code of {@link addIfNew} (this class's, so that it reaches the filter's protected members). @internal */
  static addIfNew(filter: RedisMethods, family: FamilyDescriptor, op: KeyOp, key: Key): boolean {
    const r = filter.core.keyOp(op, filter.liveAs(family), key);
    if (r < 0) throw filter.fullError(-r, 0);
    return r === 1;
  }

  /**
   * The error of an add the core refused with `status` after `added` keys of its batch went in: the server's
   * "Filter is full" / "Maximum expansions reached" as FilterFullError. @internal
   */
  protected fullError(status: number, added: number): Error {
    const server =
      status === Status.GrowthLimit
        ? 'Maximum expansions reached'
        : status === Status.NotEnoughSpace
          ? this.fullText
          : undefined;
    if (server === undefined) return statusError(status, { bytes: this.byteLength, detail: this.core.statusMessage(status) });
    return new FilterFullError(
      `${server} (as the server answers): the key was not added and nothing stored was lost. ` +
        'Create a filter with a larger capacity, or one that may grow.',
      added,
    );
  }

  /** The server's error text of a full filter that may not grow. @internal */
  protected abstract readonly fullText: string;
}

/**
 * A one-key add only the Redis families have (CF.ADDNX's `rc_add_unique`, BF.ADD's `rb_add_new`), on `filter`, which
 * must be of `family` (else ArgumentTypeError): true if added, false if it was there.
 * @throws FilterFullError as `add`.
 * @internal
 */
export function addIfNew(filter: FamilyFilter, family: FamilyDescriptor, op: KeyOp, key: Key): boolean {
  return RedisMethods.addIfNew(filter as RedisMethods, family, op, key);
}

/**
 * Puts the writers and {@link RedisDump} on a Redis class of the full entry.
 * @internal
 */
export function installRedisMethods(target: { prototype: FamilyFilter }): void {
  installWriters(target);
  copyMethods(target, RedisMethods);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
