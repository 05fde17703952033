/**
 * The client of a feed (docs/FEED.md §4): {@link FeedBase} holds one filter, follows the feed's manifest, patches
 * or downloads the filter and stores it. It is written once for both entries: each entry's `FilterFeed` extends it
 * with the entry's own classes (js/index.ts the full entry's, js/reader.ts the reader's), given as a
 * {@link FeedClasses} table keyed by the registry's class names, so a feed makes its entry's filters.
 */
import { FeedError, ArgumentRangeError, ArgumentTypeError, FilterFormatError } from '../common/errors.js';
import { isUint8Array, type Key } from '../common/checks.js';
import type { FamilyDescriptor } from '../registry.js';
import { applyPatchBytes } from '../patch/patch.js';
import { disposeKey } from '../filters/wasm-filter.js';
import { MAX_MANIFEST_BYTES, parseEnvelope, parseManifest, publicKeyBytes, sha256Hex, toBase64, verifyEnvelope, type FeedFile } from './manifest.js';
import { MemoryFeedStore, type FeedStore, type StoredFeed } from './stores.js';

/** What a feed uses of a filter of any family. */
export interface FeedFilter {
  has(key: Key): boolean;
  hasUrl(url: Key): boolean;
  matchUrl(url: Key): string | null;
  toBytes(): Uint8Array;
  dispose(): void;
}

/**
 * An entry's class of each family, keyed by the registry's class names (js/registry.ts), so that an entry's table
 * names every family the registry has and no other: what a feed loads a manifest's `family` with.
 */
export type FeedClasses<F extends FeedFilter> = { readonly [N in FamilyDescriptor['className']]: { fromBytes(bytes: Uint8Array): Promise<F> } };

/** How an update ended (docs/FEED.md §4). */
export interface FeedUpdate {
  /** The version held before (0 when the feed held none: its first update). */
  readonly from: number;
  /** The version held after (`from` when `via` is 'none'). */
  readonly to: number;
  /** 'patch': a patch from `from` was applied; 'full': the full filter was downloaded; 'none': `from` is current. */
  readonly via: 'patch' | 'full' | 'none';
  /** Bytes of the responses' bodies this update read: the manifest's, the patch's if one was tried, the full file's. */
  readonly bytes: number;
  /** Why the patch offered from `from` was not used, when `via` is 'full' though one was (the download or the check that failed). */
  readonly patchError?: Error;
}

/**
 * The timers a feed polls with: the realm's `setTimeout`, `clearTimeout` and `Math.random` unless given (tests give
 * their own to see each delay; a host may schedule polls its own way). Requests' timeouts always use the realm's.
 */
export interface FeedTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** A number uniform in [0, 1): the delays' jitter. */
  random(): number;
}

/**
 * The `AbortSignal` the feed's `fetch` is given: the realm's class where the project's types declare it (the DOM
 * library, @types/node), else what a fetch uses of one, so that the types need neither.
 */
export type FeedAbortSignal = typeof globalThis extends { AbortSignal: { prototype: infer S } } ? S : { readonly aborted: boolean };

/** What {@link FeedBase} and `FilterFeed.open` take. */
export interface FilterFeedOptions {
  /** The feed's manifest.json (absolute, or relative to the page), as a string or a URL. Its files are fetched beside it. */
  readonly manifestUrl: string | { readonly href: string };
  /**
   * The publisher's Ed25519 public key: base64 of its 32 bytes (as `cuckoo-wasm keygen` prints it) or the bytes.
   * Given it, the feed refuses manifests not signed with it ('unsigned', 'bad-signature'); without it, it trusts
   * the server and the connection (docs/FEED.md §2).
   */
  readonly publicKey?: string | Uint8Array;
  /** Where the filter is kept between runs; a {@link MemoryFeedStore} (kept for no later run) by default. */
  readonly store?: FeedStore;
  /** The fetch to use (the realm's `fetch` by default): called as `fetch(url, { signal })`, its result used as a Response. */
  readonly fetch?: (url: string, init: { signal: FeedAbortSignal }) => Promise<unknown>;
  /** Milliseconds a request may take, from sending it to its body's last byte: 30 000 by default. */
  readonly timeoutMs?: number;
  /** The least seconds between two polls (`start()`); the manifest's `pollSeconds` when that is greater. 0 by default. */
  readonly pollSeconds?: number;
  /** Called after each update that changed the filter (any: open's, a poll's, `update()`'s), once `filter` is the new one. */
  readonly onUpdate?: (update: FeedUpdate) => void;
  /** Called with the error of each update the feed ran itself that failed (open's first update when a filter was stored, polls), and of a store that loaded something unusable. */
  readonly onError?: (error: Error) => void;
  /** Timers of polls: see {@link FeedTimers}. */
  readonly timers?: FeedTimers;
  /**
   * Whether `open` updates once after loading a stored filter (true by default). False suits a host that starts
   * often and schedules its own updates, as an extension's service worker does (`chrome.alarms`): `open` then makes
   * no request when the store has a usable filter. With nothing stored, `open` updates either way.
   */
  readonly updateOnOpen?: boolean;
}

/** Seconds between polls before any manifest gave `pollSeconds`. */
const DEFAULT_POLL_SECONDS = 300;
const DAY_MS = 86_400_000;
/** The longest delay setTimeout takes (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;
const SHA256 = /^[0-9a-f]{64}$/;

/**
 * A filter that follows a feed (docs/FEED.md): it holds one version of the list's filter, and `update()` (or polls,
 * after `start()`) fetch the manifest and move to its version by a patch, or by the full file when no patch applies.
 * An update that fails changes nothing: the filter held keeps answering, the store keeps what it had. Made by each
 * entry's `FilterFeed.open`.
 *
 * `filter` is replaced by each update and the one it replaced is disposed: read `feed.filter` at each use rather
 * than keeping it, or ask the feed ({@link has}, {@link hasUrl}, {@link matchUrl}), which always asks the current one.
 */
export class FeedBase<F extends FeedFilter> {
  private current: F | undefined;
  /** The bytes `current` was loaded from (the stored or downloaded filter's): a patch's base, with no copy out of wasm memory. */
  private currentBytes: Uint8Array | undefined;
  private held = 0;
  private listName = '';
  /** The manifest's pollSeconds, once one was read. */
  private pollBase = 0;
  private failures = 0;
  private inFlight: Promise<FeedUpdate> | undefined;
  private timer: unknown;
  private polling = false;
  private disposed = false;
  /** Aborts the request under way, as 'disposed'. */
  private abortRequest: (() => void) | undefined;
  private readonly url: URL;
  private readonly key: Uint8Array | undefined;
  private readonly store: FeedStore;
  private readonly timers: FeedTimers;
  private readonly timeoutMs: number;

  /** The error of the last update that failed, undefined after one succeeds. */
  lastError: Error | undefined;

  /** Checks the options; `FilterFeed.open` then loads the store and updates. */
  protected constructor(
    private readonly classes: FeedClasses<F>,
    private readonly options: FilterFeedOptions,
  ) {
    try {
      const given = options.manifestUrl;
      this.url = new URL(typeof given === 'string' ? given : String(given?.href), (globalThis as { location?: { href: string } }).location?.href);
    } catch {
      throw new ArgumentTypeError(`manifestUrl is not a URL: ${String(options.manifestUrl)}`);
    }
    const key = options.publicKey;
    this.key = key === undefined ? undefined : publicKeyBytes(key);
    if (key !== undefined && this.key === undefined) throw new ArgumentTypeError('publicKey is not an Ed25519 public key: 32 bytes, or base64 of them');
    this.store = options.store ?? new MemoryFeedStore();
    this.timers = options.timers ?? { setTimeout: (run, ms) => setTimeout(run, ms), clearTimeout: (h) => clearTimeout(h as number), random: Math.random };
    this.timeoutMs = options.timeoutMs ?? 30_000;
    if (!Number.isInteger(this.timeoutMs) || this.timeoutMs < 1 || this.timeoutMs > MAX_TIMER_MS) {
      throw new ArgumentRangeError(`timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${String(options.timeoutMs)}`);
    }
    const poll = options.pollSeconds;
    if (poll !== undefined && !(typeof poll === 'number' && Number.isFinite(poll) && poll >= 0 && poll * 1000 <= MAX_TIMER_MS)) {
      throw new ArgumentRangeError(`pollSeconds must be a number of seconds from 0 to ${Math.floor(MAX_TIMER_MS / 1000)}, got ${String(poll)}`);
    }
  }

  /** What `open` does: the stored filter, if usable, then one update. @internal */
  protected async opened(): Promise<this> {
    let stored: StoredFeed | undefined;
    try {
      stored = await this.store.load();
      if (stored !== undefined) {
        this.current = await this.fromStored(stored);
        this.currentBytes = stored.bytes;
      }
    } catch (e) {
      this.report(e instanceof FeedError ? e : new FeedError(`the store's state cannot be used, so the feed starts from nothing: ${(e as Error)?.message}`, 'store', { cause: e }));
    }
    if (this.current === undefined) {
      await this.update().catch((e) => {
        this.dispose();
        throw e;
      });
    } else {
      this.held = stored!.version;
      this.listName = stored!.name;
      if (this.options.updateOnOpen !== false) await this.update().catch((e) => this.report(e));
    }
    return this;
  }

  private async fromStored(s: StoredFeed): Promise<F> {
    if (
      typeof s !== 'object' || s === null || typeof s.name !== 'string' || !Number.isSafeInteger(s.version) || s.version < 1 ||
      !Object.prototype.hasOwnProperty.call(this.classes, s.family) || typeof s.sha256 !== 'string' || !SHA256.test(s.sha256) || !isUint8Array(s.bytes)
    ) {
      throw new FeedError("the store's state is not { name, version, family, sha256, bytes }: ignored", 'store');
    }
    const whose = s.feed;
    if (whose !== undefined && (whose?.manifestUrl !== this.url.href || whose?.publicKey !== this.keyText())) {
      throw new FeedError(
        `the store holds the state of another feed (${String(whose?.manifestUrl)}${whose?.publicKey ? ', signed' : ''}), not of ${this.url.href}${this.key ? ' with this publicKey' : ''}: ignored`,
        'store',
      );
    }
    if ((await sha256Hex(s.bytes)) !== s.sha256) throw new FeedError("the store's filter bytes are not those it stored (SHA-256 differs): ignored", 'hash-mismatch');
    return this.classes[s.family as keyof FeedClasses<F>].fromBytes(s.bytes);
  }

  /** The feed's public key as a stored state names it: base64 of its 32 bytes, '' without one. */
  private keyText(): string {
    return this.key === undefined ? '' : toBase64(this.key);
  }

  /** The version held: the manifest's `version` of the filter {@link filter} is. */
  get version(): number {
    return this.held;
  }

  /**
   * The least seconds between two polls: the greater of the last manifest's `pollSeconds` (300 before one was
   * read) and the `pollSeconds` option. What a host that schedules its own updates should wait between them.
   */
  get pollSeconds(): number {
    return Math.max(this.pollBase || DEFAULT_POLL_SECONDS, this.options.pollSeconds ?? 0);
  }

  /** The list's name (the manifest's `name`). */
  get name(): string {
    return this.listName;
  }

  /**
   * The filter of the version held, an instance of its family's class from the entry the feed was imported from.
   * Replaced by each update, and the one before disposed then: read it at each use, do not keep it.
   */
  get filter(): F {
    return this.current!;
  }

  /** `filter.has(key)` of the current filter. @throws as the filter's `has`. */
  has(key: Key): boolean {
    return this.current!.has(key);
  }

  /** `filter.hasUrl(url)` of the current filter (docs/URLS.md). @throws as the filter's `hasUrl`. */
  hasUrl(url: Key): boolean {
    return this.current!.hasUrl(url);
  }

  /** `filter.matchUrl(url)` of the current filter: the list entry that matches `url`, or null. @throws as the filter's `matchUrl`. */
  matchUrl(url: Key): string | null {
    return this.current!.matchUrl(url);
  }

  /**
   * Updates the filter once, as docs/FEED.md §4 says. While one update runs, another call returns the same promise.
   * The filter held answers throughout; it is replaced, with `version` and `name`, only when the new one is loaded
   * and stored.
   *
   * @returns how the update went: {@link FeedUpdate}.
   * @throws FeedError (as a rejection), its `reason` saying what failed ('network', 'http-status', 'timeout',
   *   'size-mismatch', 'hash-mismatch', 'manifest-invalid', 'unsigned', 'bad-signature', 'replay', 'wrong-feed',
   *   'bad-filter', 'store', 'disposed', 'no-crypto'); the feed and its store are then as they were.
   * @throws OutOfMemoryError, WasmLoadError when the new filter cannot be made.
   * @example
   * ```ts
   * const { from, to, via } = await feed.update();
   * ```
   */
  update(): Promise<FeedUpdate> {
    if (this.disposed) return Promise.reject(disposedError());
    if (this.inFlight === undefined) {
      this.inFlight = this.run().then(
        (result) => {
          this.inFlight = undefined;
          this.failures = 0;
          this.lastError = undefined;
          if (result.via !== 'none') this.call(this.options.onUpdate, result);
          return result;
        },
        (e) => {
          this.inFlight = undefined;
          this.failures++;
          this.lastError = e;
          throw e;
        },
      );
    }
    return this.inFlight;
  }

  private async run(): Promise<FeedUpdate> {
    const from = this.held;
    const count = { bytes: 0 };
    const envelope = parseEnvelope(new TextDecoder().decode(await this.get(this.url.href, MAX_MANIFEST_BYTES, false, count)));
    if (this.key !== undefined) await verifyEnvelope(envelope, this.key);
    const m = parseManifest(envelope.payload);
    this.alive();
    if (this.current !== undefined && m.name !== this.listName) {
      throw new FeedError(`the manifest is of the list "${m.name}", and this feed holds "${this.listName}"`, 'wrong-feed', { url: this.url.href });
    }
    if (m.version < from) {
      throw new FeedError(`the manifest's version ${m.version} is below the version held, ${from}: an old manifest served again, refused`, 'replay', { url: this.url.href });
    }
    this.pollBase = m.pollSeconds;
    if (m.version === from) return { from, to: from, via: 'none', bytes: count.bytes };

    let bytes: Uint8Array | undefined;
    let patchError: Error | undefined;
    const patch = this.current !== undefined && !m.fullOnly ? m.patches.find((p) => p.from === from) : undefined;
    if (patch !== undefined) {
      try {
        // The result is pinned by the patch's own checksum of it (docs/FORMAT.md §17), which applyPatchBytes checks,
        // the patch by its SHA-256 and the base by the patch's checksum of it; its length must be the full file's.
        const patched = await applyPatchBytes(this.currentBytes!, await this.file(patch, count));
        if (patched.length !== m.full.size) {
          throw new FeedError(`the patched filter is ${patched.length} bytes, and the manifest's full filter ${m.full.size}`, 'size-mismatch', { url: this.resolve(patch) });
        }
        this.alive();
        bytes = patched;
      } catch (e) {
        this.alive();
        patchError = e as Error;
      }
    }
    const load = async (b: Uint8Array): Promise<F> => {
      try {
        return await this.classes[m.family as keyof FeedClasses<F>].fromBytes(b);
      } catch (e) {
        if (!(e instanceof FilterFormatError)) throw e;
        throw new FeedError(`${m.full.path} is not a filter of ${m.family}: ${e.message}`, 'bad-filter', { url: this.resolve(m.full), cause: e });
      }
    };
    let via: 'patch' | 'full' = 'patch';
    let made: F | undefined;
    if (bytes !== undefined) {
      try {
        made = await load(bytes);
      } catch (e) {
        this.alive();
        patchError = e as Error;
      }
    }
    if (made === undefined) {
      via = 'full';
      bytes = await this.file(m.full, count);
      made = await load(bytes);
    }
    try {
      this.alive();
      try {
        await this.store.save({ name: m.name, version: m.version, family: m.family, sha256: m.full.sha256, bytes: bytes!, feed: { manifestUrl: this.url.href, publicKey: this.keyText() } });
      } catch (e) {
        throw new FeedError(`the store could not save version ${m.version} (${(e as Error)?.message}): the feed keeps version ${from}`, 'store', { cause: e });
      }
      this.alive();
    } catch (e) {
      made.dispose();
      throw e;
    }
    const old = this.current;
    this.current = made;
    this.currentBytes = bytes!;
    this.held = m.version;
    this.listName = m.name;
    old?.dispose();
    return { from, to: m.version, via, bytes: count.bytes, ...(patchError && via === 'full' ? { patchError } : {}) };
  }

  private resolve(file: FeedFile): string {
    return new URL(file.path, this.url).href;
  }

  /** A file of the manifest: exactly its size, its SHA-256 checked. */
  private async file(file: FeedFile, count: { bytes: number }): Promise<Uint8Array> {
    return this.checked(await this.get(this.resolve(file), file.size, true, count), file, this.resolve(file));
  }

  private async checked(bytes: Uint8Array, file: FeedFile, what: string): Promise<Uint8Array> {
    if ((await sha256Hex(bytes)) !== file.sha256) {
      throw new FeedError(`${what}'s SHA-256 is not the manifest's ${file.sha256}: damaged or replaced, refused`, 'hash-mismatch', { url: this.resolve(file) });
    }
    this.alive();
    return bytes;
  }

  /**
   * The body of `url`: at most `size` bytes, exactly `size` when `exact`, read as a stream (a longer body is cut off
   * when it passes `size`), within the feed's timeout.
   */
  private async get(url: string, size: number, exact: boolean, count: { bytes: number }): Promise<Uint8Array> {
    this.alive();
    const controller = new AbortController();
    let why: 'timeout' | 'disposed' | undefined;
    let stop!: (e: unknown) => void;
    const stopped = new Promise<never>((_, reject) => (stop = reject));
    stopped.catch(() => undefined);
    const abort = (reason: 'timeout' | 'disposed') => {
      why = reason;
      controller.abort();
      stop(undefined);
    };
    const timer = setTimeout(() => abort('timeout'), this.timeoutMs);
    this.abortRequest = () => abort('disposed');
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    const fail = (message: string, reason: 'network' | 'size-mismatch' | 'http-status', details: { status?: number; cause?: unknown } = {}) =>
      new FeedError(message, reason, { url, ...details });
    try {
      const fetcher = this.options.fetch ?? ((u: string, init: { signal: FeedAbortSignal }) => fetch(u, init as RequestInit));
      const res = (await Promise.race([fetcher(url, { signal: controller.signal }), stopped])) as { status?: unknown; body?: { getReader?(): typeof reader } | null } | null;
      if (typeof res !== 'object' || res === null || typeof res.status !== 'number') throw fail('fetch gave something that is not a Response', 'network');
      if (res.status !== 200) throw fail(`the server answered ${res.status}, not 200`, 'http-status', { status: res.status });
      const chunks: Uint8Array[] = [];
      let length = 0;
      if (res.body != null) {
        if (typeof res.body.getReader !== 'function') throw fail("the Response's body is not a ReadableStream", 'network');
        reader = res.body.getReader();
        for (;;) {
          const { done, value } = await Promise.race([reader!.read(), stopped]);
          if (done) break;
          if (!isUint8Array(value)) throw fail("the Response's body gave something that is not a Uint8Array", 'network');
          length += value.length;
          count.bytes += value.length;
          if (length > size) throw fail(`the body is longer than ${exact ? 'the manifest says' : 'a manifest may be'}, ${size} bytes: refused`, 'size-mismatch');
          chunks.push(value);
        }
        reader = undefined;
      }
      if (exact && length !== size) throw fail(`the body is ${length} bytes, and the manifest says ${size}: truncated, refused`, 'size-mismatch');
      const out = new Uint8Array(length);
      let at = 0;
      for (const c of chunks) {
        out.set(c, at);
        at += c.length;
      }
      return out;
    } catch (e) {
      if (why === 'disposed') throw disposedError();
      if (why === 'timeout') throw new FeedError(`no whole answer within ${this.timeoutMs} ms`, 'timeout', { url });
      if (e instanceof FeedError) throw e;
      throw fail(`the request failed: ${(e as Error)?.message}`, 'network', { cause: e });
    } finally {
      clearTimeout(timer);
      this.abortRequest = undefined;
      if (reader !== undefined) reader.cancel().catch(() => undefined);
      else if (why === undefined) controller.abort(); // nothing more to read: let the connection go
    }
  }

  private alive(): void {
    if (this.disposed) throw disposedError();
  }

  /**
   * Polls: updates after each delay, until `stop()` or `dispose()`. The delay after a success (and before the first
   * poll when the last update succeeded) is `p · (1 + r/10)`; after the n-th failure in a row it is
   * `max(p, min(24 h, p · 2^(n−1))) · (1 + r)` (docs/FEED.md §4), `p` being the greater of the manifest's
   * `pollSeconds` (300 s before a manifest was read) and the option's, `r` uniform in [0, 1). Each poll's error goes
   * to `onError` and `lastError`. A second call does nothing.
   * @example
   * ```ts
   * const feed = await FilterFeed.open({ manifestUrl, onError: console.warn });
   * feed.start();
   * ```
   */
  start(): void {
    if (this.disposed || this.polling) return;
    this.polling = true;
    this.schedule();
  }

  /** Stops polling (an update under way goes on). */
  stop(): void {
    this.polling = false;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    const p = this.pollSeconds * 1000;
    const r = this.timers.random();
    const n = this.failures;
    const ms = n === 0 ? p * (1 + r / 10) : Math.max(p, Math.min(DAY_MS, p * 2 ** (n - 1))) * (1 + r);
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      // A host's timers may give no handle to clear: a poll after stop() or dispose() does nothing.
      if (!this.polling || this.disposed) return;
      this.update()
        .catch((e) => this.report(e))
        .then(() => {
          if (this.polling && !this.disposed && this.timer === undefined) this.schedule();
        });
    }, Math.min(ms, MAX_TIMER_MS));
  }

  private report(e: Error): void {
    this.lastError = e;
    if (!this.disposed) this.call(this.options.onError, e);
  }

  /** Calls a user's callback: what it throws (or its promise rejects with) is dropped. */
  private call<T>(callback: ((value: T) => unknown) | undefined, value: T): void {
    try {
      const r = callback?.(value) as { then?: unknown } | undefined;
      if (r != null && typeof r.then === 'function') (r as Promise<unknown>).then(undefined, () => undefined);
    } catch {
      // the user's code: it must not break the feed
    }
  }

  /**
   * Stops polling, aborts the update under way (it rejects with FeedError 'disposed' and stores nothing) and
   * disposes the filter. A second call does nothing; `update()` after it rejects with FeedError 'disposed'.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stop();
    this.abortRequest?.();
    this.current?.dispose();
  }

  /** Same as {@link dispose}, for `using feed = await FilterFeed.open(...)`; under `Symbol.dispose` as the filters' is. */
  declare [Symbol.dispose]: () => void;

  static {
    Object.defineProperty(this.prototype, disposeKey, {
      value: function dispose(this: FeedBase<FeedFilter>): void {
        this.dispose();
      },
      writable: true,
      configurable: true,
    });
  }
}

function disposedError(): FeedError {
  return new FeedError('the feed was disposed', 'disposed');
}
