/**
 * What every filter of this package does the same way, whatever its family:
 * owning one core filter through its handle (dispose, `[Symbol.dispose]`, the
 * FinalizationRegistry safety net, FilterDisposedError afterwards), and
 * reading the keys of `addAll` / `hasAll` from the caller a chunk at a time
 * while user code may run at every read. A family supplies how one chunk
 * crosses ({@link WasmFilter.addChunk}, {@link WasmFilter.containChunk}),
 * how its handle is freed, and the error of a full filter.
 */
import { ArgumentRangeError, ArgumentTypeError, FilterDisposedError } from './errors.js';
import { MAX_WASM_MEMORY, Status, quoted } from './status.js';
import { MAX_URL_EXPRESSIONS, urlError, withAsciiHost } from './url.js';
import {
  BATCH_MAX_KEYS,
  Chunk,
  Core,
  Family,
  Key,
  byteLengthOf,
  describe,
  isArrayBuffer,
  isDetached,
  isKey,
  isUint8Array,
  keyTypeError,
  loadCore,
  urlTooLong,
} from './wasm-core.js';

/**
 * What every `fromBytes` does before its family's core reads the bytes: checks
 * that they are a Uint8Array or ArrayBuffer (of any realm), loads the module,
 * then checks that the buffer is not detached (the caller's code runs during
 * the await and may transfer it) and not longer than any filter can be.
 * @throws ArgumentTypeError, ArgumentRangeError, WasmLoadError
 * @internal
 */
export async function checkedBytes(
  bytes: unknown,
): Promise<{ core: Core; view: Uint8Array; length: number }> {
  // Brand checks, not instanceof: bytes from another realm (a vm context, an iframe) are welcome.
  if (!isArrayBuffer(bytes) && !isUint8Array(bytes)) {
    throw new ArgumentTypeError(`fromBytes needs a Uint8Array or ArrayBuffer, got ${describe(bytes)}`);
  }
  const core = await loadCore();
  if (isDetached(bytes)) {
    throw new ArgumentTypeError(
      'fromBytes got a detached buffer (transferred to a worker, or resized away): it has no bytes to read; pass the bytes before transferring them',
    );
  }
  const view = isArrayBuffer(bytes) ? new Uint8Array(bytes) : bytes;
  const length = byteLengthOf(view);
  if (length > MAX_WASM_MEMORY / 2) {
    throw new ArgumentRangeError(
      `${length} bytes is larger than any filter this build can hold (at most ${MAX_WASM_MEMORY / 2} bytes)`,
    );
  }
  return { core, view, length };
}

/**
 * Serialized bits per item of a filter as the core reports it: its bytes · 8
 * over the capacity of all its sub-filters.
 * @internal
 */
export function bitsPerItemOf(info: { serializedSize: number; subFilters: { capacity: number }[] }): number {
  const capacity = info.subFilters.reduce((n, sub) => n + sub.capacity, 0);
  return (info.serializedSize * 8) / capacity;
}

/** Answer codes of a chunk of URLs, reused from chunk to chunk. */
let codeScratch: Uint8Array | undefined;

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

/** Symbol.dispose where the engine has it; else the registry symbol that TypeScript's and esbuild's `using` fall back to. */
const disposeKey: symbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');

/** Handles of filters collected without dispose() are freed here (a safety net, not the contract). */
const registry = new FinalizationRegistry<{ core: Core; handle: number; release: Release<number> }>(
  ({ core, handle, release }) => release(core, handle),
);

/**
 * Frees a core filter of handle type `H`: a function of the family's module,
 * not a closure, so the registry's entry holds nothing of the filter itself.
 */
export type Release<H extends number> = (core: Core, handle: H) => void;

/** An `addAll` / `hasAll` in progress: what it has read and what it has answered. */
interface Batch {
  /** Keys read from the caller and not yet written to wasm memory. */
  readonly chunk: Chunk;
  /** hasAll: the answers, in key order. Undefined for addAll. */
  out: boolean[] | undefined;
  /** hasAll: how many of {@link out} are answered. */
  answered: number;
  /** addAll: keys added so far. */
  added: number;
  /** addAll: a key did not fit; no further key is read. */
  full: boolean;
  /** An error met while a call of user code on this filter made the batch write its chunk early. */
  failure: unknown;
  /** The keys are URLs (addUrls, hasAllUrls). */
  urls: boolean;
}

/** The most elements a JS array holds: hasAll answers at most this many keys of an array-like. */
const MAX_ARRAY_LENGTH = 2 ** 32 - 1;

/** How a batch reads the caller's keys: by index (arrays, array-likes) or through an iterator. */
type KeySource = { list: ArrayLike<unknown>; length: number; iterator?: undefined } | { iterator: Iterator<unknown> };

/**
 * Checks that `keys` is an array, an iterable or an array-like (a non-negative
 * integer `length`), and how to read it. An array-like's length is read once, so
 * one that shrinks while it is read yields `undefined` keys, which are refused.
 */
function keySource(keys: unknown): KeySource {
  if (typeof keys === 'string') {
    // Iterable (by character), but a string given as the keys is a mistake for one key.
    throw new ArgumentTypeError(
      `keys must be an iterable or array-like of keys, got a string ${quoted(keys, 40)}: pass [key], or call the one-key method`,
    );
  }
  if (typeof keys === 'object' && keys !== null) {
    let array: boolean;
    try {
      array = Array.isArray(keys);
    } catch {
      throw new ArgumentTypeError('keys is a revoked Proxy: it has no keys to read');
    }
    if (array) return { list: keys as unknown[], length: (keys as unknown[]).length };
    const iterate = (keys as Partial<Iterable<unknown>>)[Symbol.iterator];
    if (typeof iterate === 'function') {
      const iterator = iterate.call(keys) as Iterator<unknown>;
      if (typeof iterator === 'object' && iterator !== null && typeof iterator.next === 'function') return { iterator };
    } else {
      const length = (keys as ArrayLike<unknown>).length;
      if (Number.isSafeInteger(length) && length >= 0) return { list: keys as ArrayLike<unknown>, length };
    }
  }
  throw new ArgumentTypeError(
    `keys must be an iterable or array-like of strings and Uint8Arrays, got ${describe(keys)}`,
  );
}

/** Closes an iterator a batch stops reading early (as `for...of` does on `break`); its errors are not ours to report. */
function closeIterator(iterator: Iterator<unknown>): void {
  try {
    iterator.return?.();
  } catch {
    // The batch's own outcome (its error or result) is what the caller gets.
  }
}

/**
 * The base of every filter class: one core filter of family handle type `H`,
 * its lifetime, and the batch machinery. Not exported from the package.
 */
export abstract class WasmFilter<H extends number> {
  /** @internal */
  protected readonly core: Core;
  /**
   * The core filter's handle; 0 once disposed. Negative while an addAll or
   * hasAll of this filter reads the caller's keys: any call that user code
   * makes on this filter meanwhile then goes through {@link settle} first.
   */
  private handle: number;
  /** The batch reading keys while {@link handle} is negative. */
  private pending: Batch | null = null;
  private readonly release: Release<H>;
  /**
   * Why the last add that went wrong failed: NotEnoughSpace, GrowthLimit or
   * OutOfMemory (the family's {@link fullError} reads it), or a Url* status.
   * @internal
   */
  protected lastFailure: number = Status.NotEnoughSpace;
  /** The URL the last refused addUrl / addUrls entry was. */
  private refusedUrl: Key | undefined;

  /** @internal */
  protected constructor(core: Core, handle: H, release: Release<H>) {
    this.core = core;
    this.handle = handle;
    this.release = release;
    registry.register(this, { core, handle, release: release as Release<number> }, this);
  }

  /**
   * Crosses once with a chunk of keys to add, in order, stopping at the first
   * that does not fit: returns how many went in.
   * @internal
   */
  protected abstract addChunk(handle: H, chunk: Chunk): number;

  /**
   * Crosses once with a chunk of keys to look up: their answers go to
   * `out[at ..]`; returns the index after the last.
   * @internal
   */
  protected abstract containChunk(handle: H, chunk: Chunk, out: boolean[], at: number): number;

  /**
   * The error of an add that found no room, after `added` keys of its batch went in.
   * @internal
   */
  protected abstract fullError(added: number): Error;

  /** The family, as the core's URL functions take it. @internal */
  protected abstract readonly family: Family;

  /** The per-key false-positive rate the filter was sized for. */
  abstract readonly falsePositiveRate: number;

  /**
   * The handle, for a call that crosses into wasm.
   * @throws FilterDisposedError after dispose().
   * @internal
   */
  protected live(): H {
    const h = this.handle;
    return h > 0 ? (h as H) : this.settle();
  }

  /**
   * For {@link live}: throws after dispose. While a batch of this filter reads
   * keys and user code calls this filter, first writes the keys the batch has
   * read, so this call sees them, exactly as after a loop of single calls; the
   * batch takes up reading again when the user code returns ({@link resume}).
   */
  private settle(): H {
    if (this.handle === 0) throw new FilterDisposedError();
    const batch = this.pending!;
    this.pending = null;
    this.handle = -this.handle;
    try {
      this.flush(batch);
    } catch (e) {
      batch.failure ??= e; // the batch reports it when it resumes; this call goes on
      batch.chunk.clear();
    }
    return this.handle as H;
  }

  /** After user code called this filter during a batch's read ({@link settle} ran): carry on, or stop. */
  private resume(batch: Batch): void {
    if (this.handle === 0) throw new FilterDisposedError();
    if (batch.failure !== undefined) throw batch.failure;
    this.handle = -this.handle;
    this.pending = batch;
  }

  /**
   * addAll: adds the keys in order, as a loop of single adds would, a chunk
   * per crossing. Returns how many went in; `full` is true when a key did not
   * fit (no further key was read).
   * @internal
   */
  protected addKeys(keys: unknown, urls = false): { added: number; full: boolean } {
    const batch: Batch = { chunk: new Chunk(), out: undefined, answered: 0, added: 0, full: false, failure: undefined, urls };
    this.runBatch(keys, batch);
    return batch;
  }

  /**
   * hasAll: one answer per key, as a loop of single lookups would give, a
   * chunk per crossing.
   * @internal
   */
  protected containKeys(keys: unknown, urls = false): boolean[] {
    const batch: Batch = { chunk: new Chunk(), out: [], answered: 0, added: 0, full: false, failure: undefined, urls };
    this.runBatch(keys, batch);
    const out = batch.out!;
    out.length = batch.answered; // an array-like's answers were allocated up front
    return out;
  }

  /**
   * Reads the caller's keys into `batch`, writing each full chunk into wasm
   * memory and crossing once per chunk. User code may run at every read
   * (getters, Proxy traps, a generator): nothing of the batch is in wasm memory
   * then, calls it makes on this filter settle the batch first, and the handle
   * is checked again before each crossing. Stops early once a key did not fit.
   */
  private runBatch(keys: unknown, batch: Batch): void {
    const source = keySource(keys);
    if (batch.out !== undefined && source.iterator === undefined && source.length > MAX_ARRAY_LENGTH) {
      throw new ArgumentRangeError(
        `keys has length ${source.length}: the answers are an array, which holds at most 4,294,967,295; look the keys up in parts`,
      );
    }
    this.handle = -this.live();
    this.pending = batch;
    let iterator = source.iterator;
    try {
      if (source.iterator === undefined) {
        const { list, length } = source;
        if (batch.out !== undefined) batch.out = new Array<boolean>(length);
        const chunk = batch.chunk;
        for (let i = 0; i < length; ++i) {
          const key = list[i];
          if (this.handle >= 0) this.resume(batch);
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
              if (this.handle >= 0) this.resume(batch);
              break;
            }
            key = r.value;
          } catch (e) {
            iterator = undefined; // an iterator that threw is not closed (as in for...of)
            throw e;
          }
          if (this.handle >= 0) this.resume(batch);
          if (this.take(batch, key, i)) return;
        }
      }
      this.flush(batch);
    } catch (e) {
      throw this.batchError(batch, e);
    } finally {
      this.pending = null;
      if (this.handle < 0) this.handle = -this.handle;
      batch.chunk.release();
      if (iterator !== undefined) closeIterator(iterator);
    }
  }

  /** Adds a checked key to the batch's chunk, writing the chunk when full; true once the filter is full. */
  private take(batch: Batch, key: unknown, index: number): boolean {
    if (!isKey(key)) throw keyTypeError(key, `keys[${index}]`);
    if (batch.urls && urlTooLong(key)) return this.refuseLongUrl(batch, key, index);
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
   * A URL longer than the core accepts, refused without writing it to wasm
   * memory: hasAllUrls throws at once; addUrls first adds the entries read
   * before it, then stops with the error at its index (see addError).
   */
  private refuseLongUrl(batch: Batch, key: Key, index: number): boolean {
    if (batch.out !== undefined) throw urlError(this.core, Status.UrlTooLong, key, index);
    this.flush(batch);
    if (batch.full) return true;
    batch.full = true;
    this.lastFailure = Status.UrlTooLong;
    this.refusedUrl = key;
    return true;
  }

  /** Crosses once with the batch's chunk (addChunk or containChunk), leaving it empty. Runs no user code. */
  private flush(batch: Batch): void {
    const chunk = batch.chunk;
    const n = chunk.count;
    if (n === 0 || batch.full) {
      chunk.clear();
      return;
    }
    const h = Math.abs(this.handle) as H;
    if (batch.out === undefined) {
      const done = batch.urls ? this.addUrlChunk(h, chunk) : this.addChunk(h, chunk);
      batch.added += done;
      if (done < n) batch.full = true;
    } else {
      batch.answered = batch.urls
        ? this.containUrlChunk(h, chunk, batch.out, batch.answered)
        : this.containChunk(h, chunk, batch.out, batch.answered);
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
    return batch.full ? this.addError(batch.added) : error;
  }

  /**
   * The error of an add (addUrl, addAll, addUrls) that stopped after `added`
   * keys of its batch: the URL's error if an entry was refused, else the
   * family's full error.
   * @internal
   */
  protected addError(added: number): Error {
    const status = this.lastFailure;
    if (this.refusedUrl !== undefined && status >= Status.UrlEmpty) {
      const url = this.refusedUrl;
      this.refusedUrl = undefined;
      return urlError(this.core, status, url, added);
    }
    return this.fullError(added);
  }

  // -------------------------------------------------------------------------
  // URLs (js/url.ts, src/url_filter.h).

  /**
   * Adds a blocklist entry as its one canonical expression (Safe Browsing's
   * "URLs and Hashing"; docs/URLS.md). An entry is a URL (`http://evil.example/a/b`),
   * a host with a path (`evil.example/login/`, which then blocks that folder) or
   * a bare host (`evil.example`, meaning `evil.example/`: the whole site and its
   * subdomains).
   *
   * @returns this filter.
   * @throws InvalidUrlError if the entry cannot be a URL; nothing is added.
   * @throws FilterFullError as {@link add}; ArgumentTypeError if the entry is neither a string
   *   nor a Uint8Array; FilterDisposedError after dispose().
   * @example
   * ```ts
   * f.addUrl('evil.example').addUrl('shared-host.example/~phisher/');
   * ```
   */
  addUrl(entry: Key): this {
    const h = this.live();
    const status = withAsciiHost(this.core, (host) => this.core.urlAdd(this.family, h, entry, host));
    if (status === Status.Ok) return this;
    if (status >= Status.UrlEmpty) throw urlError(this.core, status, entry); // no index: not a batch
    this.lastFailure = status;
    throw this.addError(0);
  }

  /**
   * Adds many entries as {@link addUrl} does, crossing into WebAssembly once per
   * chunk of entries (as {@link addKeys} reads keys: any iterable or array-like).
   * @returns how many entries were added (all of them).
   * @throws InvalidUrlError at the first entry that cannot be a URL: its `index` names it, and
   *   the entries before it stay added. FilterFullError, ArgumentTypeError, FilterDisposedError
   *   as for `addAll`.
   */
  addUrls(entries: Iterable<Key> | ArrayLike<Key>): number {
    const { added, full } = this.addKeys(entries, true);
    if (full) throw this.addError(added);
    return added;
  }

  /**
   * True if any of the URL's expressions (up to 30: host suffixes × path
   * prefixes, see {@link urlExpressions}) is in the filter; one crossing into
   * WebAssembly, which canonicalizes, expands, hashes and probes. Never false
   * for a URL under an entry that was added (and, for a cuckoo filter, not deleted).
   *
   * @throws InvalidUrlError if the string cannot be a URL; ArgumentTypeError, FilterDisposedError.
   * @example
   * ```ts
   * if (f.hasUrl(link.href)) warn(link);
   * ```
   */
  hasUrl(url: Key): boolean {
    return this.matchCode(url) === 1;
  }

  /**
   * The first of the URL's expressions that is in the filter, for "blocked
   * because of …" messages, or null if none is (exact host first, then shorter
   * host suffixes; per host the exact path with query, without, then `/`,
   * `/1/`, ...).
   * @throws InvalidUrlError, ArgumentTypeError, FilterDisposedError as {@link hasUrl}.
   * @example
   * ```ts
   * f.addUrl('evil.example/login/');
   * f.matchUrl('https://www.evil.example/login/form.php?x=1'); // 'evil.example/login/'
   * ```
   */
  matchUrl(url: Key): string | null {
    return this.matchCode(url) === 1 ? this.core.urlSpan() : null;
  }

  /**
   * `hasUrl` for many URLs, crossing into WebAssembly once per chunk.
   * @returns `result[i] === hasUrl(urls[i])`.
   * @throws InvalidUrlError at the first URL that cannot be one (its `index` names it).
   *   ArgumentTypeError, ArgumentRangeError, FilterDisposedError as for `hasAll`.
   */
  hasAllUrls(urls: Iterable<Key> | ArrayLike<Key>): boolean[] {
    return this.containKeys(urls, true);
  }

  /**
   * The false-positive rate of one URL lookup, a probability: a URL is looked
   * up by up to 30 expressions, so its rate is at most 1 − (1 − ε)^30 ≈ 30·ε,
   * ε the per-key {@link falsePositiveRate}. Size a URL filter for ε = URL rate / 30.
   */
  get urlFalsePositiveRate(): number {
    return 1 - (1 - this.falsePositiveRate) ** MAX_URL_EXPRESSIONS;
  }

  /** 1 found, 0 not found; throws for a refused URL. */
  private matchCode(url: Key): number {
    const h = this.live();
    let r = this.core.urlMatch(this.family, h, url, undefined);
    if (r < 0) {
      r = withAsciiHost(this.core, (host) => this.core.urlMatch(this.family, h, url, host), r);
      if (r < 0) throw urlError(this.core, -r, url);
    }
    return r;
  }

  /** addChunk for URL entries: resumes past an internationalized host, stops at the first refused entry. */
  private addUrlChunk(handle: number, chunk: Chunk): number {
    const n = chunk.count;
    let added = this.core.urlAddBatch(this.family, handle, chunk, 0, n);
    while (added < n) {
      let status = this.core.batchStatus();
      if (status === Status.UrlNonAsciiHost) {
        const entry = chunk.key(added);
        status = withAsciiHost(this.core, (host) => this.core.urlAdd(this.family, handle, entry, host));
        if (status === Status.Ok) {
          added += 1;
          if (added < n) added += this.core.urlAddBatch(this.family, handle, undefined, added, n);
          continue;
        }
      }
      this.lastFailure = status;
      if (status >= Status.UrlEmpty) this.refusedUrl = chunk.key(added);
      break;
    }
    return added;
  }

  /** containChunk for URLs: internationalized hosts are looked up again one by one. */
  private containUrlChunk(handle: number, chunk: Chunk, out: boolean[], at: number): number {
    const n = chunk.count;
    const codes = (codeScratch ??= new Uint8Array(BATCH_MAX_KEYS));
    this.core.urlMatchBatch(this.family, handle, chunk, codes);
    for (let i = 0; i < n; ++i) {
      let code = codes[i];
      if (code === Status.UrlNonAsciiHost) {
        const url = chunk.key(i);
        code = withAsciiHost(this.core, (host) => this.core.urlMatch(this.family, handle, url, host));
        code = code < 0 ? -code : code;
      }
      if (code > 1) throw urlError(this.core, code, chunk.key(i), at + i);
      out[at + i] = code === 1;
    }
    return at + n;
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
    if (this.handle < 0) this.settle(); // called from user code during a batch of this filter
    registry.unregister(this);
    this.release(this.core, this.handle as H);
    this.handle = 0;
  }

  /**
   * Same as {@link dispose}, for `using f = await CuckooFilter.create(...)`.
   * Defined under `Symbol.dispose` where the engine has it, else under
   * `Symbol.for('Symbol.dispose')`; the global `Symbol` is left as it is.
   */
  declare [Symbol.dispose]: () => void;

  static {
    Object.defineProperty(this.prototype, disposeKey, {
      value: function dispose(this: WasmFilter<number>): void {
        this.dispose();
      },
      writable: true,
      configurable: true,
    });
  }
}
