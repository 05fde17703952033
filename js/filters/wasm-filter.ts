/**
 * What every filter of this package does the same way, whatever its family:
 * owning one core filter through its embind object (dispose, `[Symbol.dispose]`,
 * the FinalizationRegistry safety net, FilterDisposedError afterwards), and
 * reading the keys of a batch from the caller a chunk at a time while user
 * code may run at every read. How a chunk crosses is a {@link BatchOps}: the
 * family's keys ({@link WasmFilter.containChunk}), URLs (js/filters/url-filter.ts),
 * or in the full entry the keys and URLs it adds (js/filters/writers.ts).
 */
import { ArgumentRangeError, ArgumentTypeError, FilterDisposedError } from '../common/errors.js';
import { patchError, patchInput } from '../patch/patch.js';
import { Key, byteLengthOf, isKey, keyTypeError } from '../common/checks.js';
import { Chunk } from '../common/chunk.js';
import { Answers, checkAnswerBytes, checkRoom } from '../common/answers.js';
import { MAX_ARRAY_LENGTH, closeIterator, keySource } from '../common/key-source.js';
import { Status } from '../common/status.js';
import { ReadCore } from '../boundary/read-core.js';
import type { FilterObject, Handle } from '../boundary/core-types.js';

declare global {
  interface SymbolConstructor {
    /**
     * The symbol of `using` (explicit resource management), declared here as
     * lib.esnext.disposable and @types/node declare it, so that the package's
     * types need neither.
     */
    readonly dispose: unique symbol;
  }
}

/** Symbol.dispose where the engine has it; else the registry symbol that TypeScript's and esbuild's `using` fall back to. @internal */
export const disposeKey: symbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');

/**
 * The check of every filter constructor, before it reads anything: `core` is one this library made, so the filter
 * comes from a factory (`create`, `fromBytes`), not from `new` in user code.
 * @throws ArgumentTypeError naming the factories of `target` (the class `new` was called on) otherwise.
 * @internal
 */
export function checkMade(core: unknown, target: { readonly name: string; readonly create?: unknown; readonly build?: unknown }): void {
  if (core instanceof ReadCore) return;
  const factories =
    typeof target.create === 'function'
      ? `${target.name}.create(options) or `
      : typeof target.build === 'function'
        ? `${target.name}.build(keys, options) or `
        : '';
  throw new ArgumentTypeError(
    `${target.name} has no public constructor: make one with ${factories}await ${target.name}.fromBytes(bytes)`,
  );
}

/**
 * Where every filter of this package says its family, for the calls that take a filter (diff, union) to accept one of
 * another copy of the package (the reader entry's, another bundle's) by its bytes: a registered symbol, the same in
 * every copy.
 */
const FAMILY = Symbol.for('cuckoo-wasm.filter-family');

/**
 * The family id of `value` if it is a filter of another copy of this package (its `toBytes()` gives its bytes), else
 * undefined (a filter of this copy, or not a filter at all; a revoked Proxy too).
 * @internal
 */
export function foreignFamily(value: unknown): number | undefined {
  try {
    if (typeof value !== 'object' || value === null || value instanceof WasmFilter) return undefined;
    const family = (value as Record<symbol, unknown>)[FAMILY];
    return typeof family === 'number' ? family : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The bytes of `filter`, a filter of another copy of this package ({@link foreignFamily}), as its own toBytes()
 * gives them, checked as any bytes given for a filter are.
 * @throws ArgumentTypeError if they are not a Uint8Array or ArrayBuffer, or detached; ArgumentRangeError if too
 *   large; the other copy's own error (FilterDisposedError, ...) as its toBytes() throws it.
 * @internal
 */
export function foreignBytes(filter: unknown): Uint8Array {
  return patchInput((filter as WasmFilter).toBytes(), "the other copy's filter's toBytes()");
}

/** Core filters whose class was collected without dispose() are freed here (a safety net, not the contract). */
const registry = new FinalizationRegistry<{ core: ReadCore; object: FilterObject }>(({ core, object }) => core.destroy(object));

/**
 * How a batch crosses with its chunks, as functions of the filter (not
 * closures: one object per kind of batch, made once).
 * @internal
 */
export interface BatchOps {
  /** Looks up the chunk's keys: their answers go to `out[at ..]` (checked long enough); returns the index after the last. */
  contain(filter: WasmFilter, handle: Handle, chunk: Chunk, out: Answers, at: number): number;
  /** True for a key refused before it is read into a chunk (a URL longer than the core takes). */
  refuses?(filter: WasmFilter, key: Key): boolean;
  /**
   * The error of refused key `index`: a lookup batch throws it at once; an add batch first adds the keys before it,
   * then stops with it.
   */
  refusal?(filter: WasmFilter, key: Key, index: number): Error;
  /**
   * The full entry's add batches (js/filters/writers.ts): adds the chunk's keys in order, stopping at the first that
   * does not fit: how many went in, with why it stopped in `batch.status` (or a refused key's error in
   * `batch.refused`). `continues`: an earlier chunk of the same batch crossed before (the batch is one command: a
   * Redis cuckoo filter checks its limit once).
   */
  add?(filter: WasmFilter, handle: Handle, chunk: Chunk, continues: boolean, batch: AddBatch): number;
  /** The error of an add batch that stopped after `batch.added` keys. */
  stopped?(filter: WasmFilter, batch: AddBatch): Error;
}

/** What an add batch reports when it stops. @internal */
export interface AddBatch {
  /** Keys added so far. */
  added: number;
  /** A key did not fit, or was refused; no further key is read. */
  full: boolean;
  /** Why the last key was not added: NotEnoughSpace, GrowthLimit, OutOfMemory or a Url* status. */
  status: number;
  /** The error of a key refused before or while it was added (a URL that is none). */
  refused: Error | undefined;
}

/** An `addAll` / `hasAll` in progress: what it has read and what it has answered. @internal */
export interface Batch extends AddBatch {
  /** Keys read from the caller and not yet written to wasm memory. */
  readonly chunk: Chunk;
  /** hasAll: the answers, in key order. Undefined for addAll. */
  out: Answers | undefined;
  /** hasAll into the caller's Uint8Array: `out`, its room checked before each write. */
  readonly into: Uint8Array | undefined;
  /** hasAll: how many of {@link out} are answered. */
  answered: number;
  /** An error met while a call of user code on this filter made the batch write its chunk early. */
  failure: unknown;
  /** How its chunks cross. */
  readonly ops: BatchOps;
}

/**
 * The base of every filter class: one core filter, its lifetime, and the
 * batch machinery. Not exported from the package.
 */
export abstract class WasmFilter {
  /** @internal */
  protected readonly core: ReadCore;
  /** The core filter's embind object, which owns it; null once disposed. */
  private object: FilterObject | null;
  /** The core filter's address, which the per-key and per-batch exports take; 0 once disposed. */
  private handle: Handle;
  /**
   * The batch reading the caller's keys, if one is: any call that user code
   * makes on this filter meanwhile goes through {@link settle} first.
   */
  private pending: Batch | null = null;
  /** The family, as the core numbers it (src/common/family.h). @internal */
  protected readonly familyId: number;

  /** @internal */
  protected constructor(core: ReadCore, object: FilterObject, familyId: number) {
    checkMade(core, new.target);
    this.core = core;
    this.object = object;
    this.handle = core.handleOf(object);
    this.familyId = familyId;
    registry.register(this, { core, object }, this);
  }

  /**
   * Crosses once with a chunk of keys to look up: their answers go to
   * `out[at ..]`; returns the index after the last.
   * @internal
   */
  protected abstract containChunk(handle: Handle, chunk: Chunk, out: Answers, at: number): number;

  /** The per-key false-positive rate the filter was sized for. */
  abstract readonly falsePositiveRate: number;

  /** The filter's serialized bytes (docs/FORMAT.md), in a new array. */
  abstract toBytes(): Uint8Array;

  /** How the family's own keys are looked up (the full entry's writers add them: js/filters/writers.ts). @internal */
  protected static readonly keyOps: BatchOps = {
    contain: (f, h, chunk, out, at) => f.containChunk(h, chunk, out, at),
  };

  /**
   * The handle, for a call that crosses into wasm.
   * @throws FilterDisposedError after dispose().
   * @internal
   */
  protected live(): Handle {
    const h = this.handle;
    return this.pending === null && h !== 0 ? h : this.settle();
  }

  /**
   * The embind object, for a call on the whole filter.
   * @throws FilterDisposedError after dispose().
   * @internal
   */
  protected liveObject(): FilterObject {
    this.live();
    return this.object!;
  }

  /**
   * For {@link live}: throws after dispose. While a batch of this filter reads
   * keys and user code calls this filter, first writes the keys the batch has
   * read, so this call sees them, exactly as after a loop of single calls; the
   * batch takes up reading again when the user code returns ({@link resume}).
   */
  private settle(): Handle {
    if (this.handle === 0) throw new FilterDisposedError();
    const batch = this.pending!;
    this.pending = null;
    try {
      this.flush(batch);
    } catch (e) {
      batch.failure ??= e; // the batch reports it when it resumes; this call goes on
      batch.chunk.clear();
    }
    return this.handle;
  }

  /** After user code called this filter during a batch's read ({@link settle} ran): carry on, or stop. */
  private resume(batch: Batch): void {
    if (this.handle === 0) throw new FilterDisposedError();
    if (batch.failure !== undefined) throw batch.failure;
    this.pending = batch;
  }

  /**
   * A new batch over `ops`: a lookup batch when `out` is given (its answers go there), else an add batch (the full
   * entry's, whose ops add: js/filters/writers.ts), which {@link runBatch} then runs.
   * @internal
   */
  protected static batch(ops: BatchOps, out?: Answers, into?: Uint8Array): Batch {
    return { chunk: new Chunk(), out, into, answered: 0, added: 0, full: false, status: Status.Ok, refused: undefined, failure: undefined, ops };
  }

  /**
   * hasAll: one answer per key, as a loop of single lookups would give, a
   * chunk per crossing: a new boolean[], or into `into` (js/common/answers.ts), which
   * is returned.
   * @internal
   */
  protected containKeys(keys: unknown, ops: BatchOps = WasmFilter.keyOps, into?: unknown): Answers {
    const bytes = into === undefined ? undefined : checkAnswerBytes(into, (b) => this.core.isMemory(b));
    const batch = WasmFilter.batch(ops, bytes ?? [], bytes);
    this.runBatch(keys, batch);
    const out = batch.out!;
    if (bytes === undefined) (out as boolean[]).length = batch.answered; // an array-like's answers were allocated up front
    return out;
  }

  /**
   * Reads the caller's keys into `batch`, writing each full chunk into wasm
   * memory and crossing once per chunk. User code may run at every read
   * (getters, Proxy traps, a generator): nothing of the batch is in wasm memory
   * then, calls it makes on this filter settle the batch first, and the handle
   * is checked again before each crossing. Stops early once a key did not fit.
   * @internal
   */
  protected runBatch(keys: unknown, batch: Batch): void {
    const source = keySource(keys);
    if (batch.into !== undefined && source.iterator === undefined) checkRoom(batch.into, source.length, 0);
    else if (batch.out !== undefined && source.iterator === undefined && source.length > MAX_ARRAY_LENGTH) {
      throw new ArgumentRangeError(
        `keys has length ${source.length}: the answers are an array, which holds at most 4,294,967,295; look the keys up in parts`,
      );
    }
    this.live();
    this.pending = batch;
    let iterator = source.iterator;
    try {
      if (source.iterator === undefined) {
        const { list, length } = source;
        if (batch.out !== undefined && batch.into === undefined) batch.out = new Array<boolean>(length);
        const chunk = batch.chunk;
        for (let i = 0; i < length; ++i) {
          const key = list[i];
          if (this.pending !== batch) {
            this.resume(batch);
            if (batch.full) return; // a call of the user's wrote the chunk, and a key did not fit
          }
          if (typeof key === 'string' && chunk.pushString(key)) continue;
          if (this.take(batch, key, i)) return;
        }
      } else {
        for (let i = 0; ; ++i) {
          let key: unknown;
          try {
            const r = source.iterator.next();
            if (r.done) {
              iterator = undefined; // exhausted: nothing to close
              if (this.pending !== batch) this.resume(batch);
              break;
            }
            key = r.value;
          } catch (e) {
            iterator = undefined; // an iterator that threw is not closed (as in for...of)
            throw e;
          }
          if (this.pending !== batch) this.resume(batch);
          if (batch.into !== undefined) checkRoom(batch.into, i + 1, i); // a key past its end is refused
          if (this.take(batch, key, i)) return;
        }
      }
      this.flush(batch);
    } catch (e) {
      throw this.batchError(batch, e);
    } finally {
      this.pending = null;
      batch.chunk.release();
      if (iterator !== undefined) closeIterator(iterator);
    }
  }

  /** Adds a checked key to the batch's chunk, writing the chunk when full; true once the filter is full. */
  private take(batch: Batch, key: unknown, index: number): boolean {
    if (!isKey(key)) throw keyTypeError(key, `keys[${index}]`);
    if (batch.ops.refuses?.(this, key)) return this.refuse(batch, key, index);
    const chunk = batch.chunk;
    let state = chunk.push(key);
    if (state === 2) {
      this.flush(batch);
      if (batch.full) return true;
      state = chunk.push(key);
    }
    if (state === 1) this.flush(batch);
    return batch.full;
  }

  /**
   * A key refused before it is written to wasm memory: a lookup batch throws
   * at once; an add batch first adds the keys read before it, then stops with
   * the refusal at its index.
   */
  private refuse(batch: Batch, key: Key, index: number): boolean {
    if (batch.out !== undefined) throw batch.ops.refusal!(this, key, index);
    this.flush(batch);
    if (batch.full) return true;
    batch.full = true;
    batch.refused = batch.ops.refusal!(this, key, index);
    return true;
  }

  /** Crosses once with the batch's chunk (its ops' add or contain), leaving it empty. Runs no user code. */
  private flush(batch: Batch): void {
    const chunk = batch.chunk;
    const n = chunk.count;
    if (n === 0 || batch.full) {
      chunk.clear();
      return;
    }
    const h = this.handle;
    if (batch.out === undefined) {
      const done = batch.ops.add!(this, h, chunk, batch.added > 0, batch);
      batch.added += done;
      if (done < n) batch.full = true;
    } else {
      if (batch.into !== undefined) checkRoom(batch.into, batch.answered + n, batch.answered);
      batch.answered = batch.ops.contain(this, h, chunk, batch.out, batch.answered);
    }
  }

  /**
   * The error an interrupted batch throws. For addAll, the keys read before the
   * error are added first, as a loop of add() calls would have added them; if
   * one of them does not fit, that full error comes first, as in the loop.
   */
  private batchError(batch: Batch, error: unknown): unknown {
    if (batch.out !== undefined || this.handle === 0 || batch.failure !== undefined) return error;
    try {
      this.flush(batch);
    } catch (e) {
      return e;
    }
    return batch.full ? batch.ops.stopped!(this, batch) : error;
  }

  /**
   * Turns this filter, in place, into the version a patch of `diff` (the full entry's) leads to: afterwards
   * `toBytes()` is byte for byte the newer filter's, and every getter and lookup answers as it
   * does. Atomic: the patch is checked against this filter's bytes (its base's length and
   * checksum), the new bytes are made and checked (their checksum, a full load) into a new core
   * filter, and only then does that replace this one; on any error the filter is exactly as it was.
   * Called from the caller's code during a batch of this filter, it sees the keys the batch read
   * before (as every call does), so the patch must be for that state; the batch then goes on
   * with the patched filter.
   *
   * @param patch - a patch (a Uint8Array of any realm, at any offset, or an ArrayBuffer).
   * @throws FilterFormatError, the filter unchanged, with reason 'patch-wrong-base' (the patch is
   *   for another version of the filter), 'patch-family' (for another family or parameters),
   *   'patch-not-a-patch', 'patch-version', 'patch-truncated', 'patch-corrupt' or 'patch-result-mismatch'.
   * @throws ArgumentTypeError if `patch` is neither a Uint8Array nor an ArrayBuffer, or is detached.
   * @throws FilterDisposedError after dispose(). OutOfMemoryError (the filter unchanged).
   * @example
   * ```ts
   * filter.applyPatch(new Uint8Array(await (await fetch(patchUrl)).arrayBuffer()));
   * ```
   */
  applyPatch(patch: Uint8Array | ArrayBuffer): void {
    const bytes = patchInput(patch, 'applyPatch: patch');
    const base = this.toBytes();
    const result = this.core.patchApply(base, bytes);
    if (!(result instanceof Uint8Array)) {
      throw patchError(this.core, result, 'cannot apply the patch (the filter is unchanged)', base.length + byteLengthOf(bytes));
    }
    const loaded = this.core.deserialize(this.familyId, result);
    if ('status' in loaded) throw patchError(this.core, -loaded.status, 'cannot load the patched filter (the filter is unchanged)', result.length);
    // Nothing below can fail: the new filter replaces the old one, which is then freed.
    const old = this.object!;
    registry.unregister(this);
    registry.register(this, { core: this.core, object: loaded }, this);
    this.object = loaded;
    this.handle = this.core.handleOf(loaded);
    this.core.destroy(old);
  }

  /** The family, for another copy of the package ({@link foreignFamily}). @internal */
  get [FAMILY](): number {
    return this.familyId;
  }

  /** True once {@link dispose} has been called. */
  get disposed(): boolean {
    return this.handle === 0;
  }

  /**
   * Frees the filter's WebAssembly memory. A second call does nothing; any other
   * method or getter afterwards throws {@link FilterDisposedError}.
   *
   * @example
   * ```ts
   * const f = await CuckooFilter.create({ capacity: 1000 });
   * try { f.add('x'); } finally { f.dispose(); }
   * ```
   */
  dispose(): void {
    if (this.handle === 0) return;
    if (this.pending !== null) this.settle(); // called from user code during a batch of this filter
    registry.unregister(this);
    this.core.destroy(this.object!);
    this.object = null;
    this.handle = 0 as Handle;
  }

  /**
   * Same as {@link dispose}, for `using f = await CuckooFilter.create(...)`.
   * Defined under `Symbol.dispose` where the engine has it, else under
   * `Symbol.for('Symbol.dispose')`; the global `Symbol` is left as it is.
   */
  declare [Symbol.dispose]: () => void;

  static {
    Object.defineProperty(this.prototype, disposeKey, {
      value: function dispose(this: WasmFilter): void {
        this.dispose();
      },
      writable: true,
      configurable: true,
    });
  }
}
