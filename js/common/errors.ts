/**
 * Error classes thrown by cuckoo-wasm. Each has a stable `code` string that is
 * safe to branch on; messages are for people and may change. Which status of
 * the core becomes which of these classes is decided in one table
 * (js/common/status-codes.ts, turned into errors by js/common/status.ts).
 *
 * @packageDocumentation
 */
import { named } from './named.js';
import type { FilterFormatReason } from './status-codes.js';

export type { FilterFormatReason } from './status-codes.js';

/** A constructor of a built-in error class (Error, TypeError, RangeError). */
type ErrorClass = new (message?: string) => Error;

/** What every error class of this package adds to the built-in class it extends. */
export interface CodedError<Code extends string> {
  /** Stable error code, safe to branch on (messages are for people and may change). */
  readonly code: Code;
}

/**
 * Where every error of this package carries its `code` for `instanceof` across copies of the package (its entries,
 * each bundle, another realm, two versions installed side by side): a registered symbol, the same in every copy.
 */
const ERROR_CODE = Symbol.for('cuckoo-wasm.error-code');

/**
 * The one definition every error class of this package is built from: the
 * built-in class it extends (so `instanceof TypeError` holds for a type error),
 * and its stable `code`, set on each instance with the class's `name` (each
 * class says its name with {@link named}). `instanceof` one of the classes
 * holds for an error of that class from any copy of the package (an error the
 * reader entry threw, checked against the full entry's class): it carries the
 * class's code under {@link ERROR_CODE}. A class a user derives keeps the
 * ordinary check.
 */
function codedError<Code extends string, Base extends ErrorClass>(
  code: Code,
  Base: Base,
): new (message: string) => InstanceType<Base> & CodedError<Code> {
  // A mixin's constructor must take `...args: any[]`; each exported class below declares its own.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  class Coded extends (Base as new (...args: any[]) => Error) {
    readonly code: Code = code;

    constructor(message: string) {
      super(message);
      this.name = new.target.name;
    }

    static [Symbol.hasInstance](value: unknown): boolean {
      if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
      if (Object.getPrototypeOf(this) !== Coded || typeof value !== 'object' || value === null) return false;
      try {
        return (value as Record<symbol, unknown>)[ERROR_CODE] === code;
      } catch {
        return false; // a Proxy or a getter that throws: not an error of this package
      }
    }
  }
  Object.defineProperty(Coded.prototype, ERROR_CODE, { value: code });
  named(Coded, Base.name);
  return Coded as unknown as new (message: string) => InstanceType<Base> & CodedError<Code>;
}

/**
 * Thrown by `add` / `addAll` when no slot can be found for a key after the
 * maximum number of evictions ("kicks", Fan et al. 2014 §3.1) and the victim
 * slot is taken. The key was not added and every key stored before is still
 * present. Create a filter with a larger `capacity` and add the keys again.
 */
export class FilterFullError extends codedError('ERR_FILTER_FULL', Error) {
  static {
    named(this, 'FilterFullError');
  }

  /** For `addAll`: how many keys of the batch were added before the filter filled up (0 for `add`). */
  readonly added: number;

  constructor(message: string, added = 0) {
    super(message);
    this.added = added;
  }
}

/**
 * Thrown by `fromBytes` for bytes that `toBytes` did not produce: truncated,
 * corrupted (checksum), from another format version, or with a header that
 * disagrees with its table; and by the Redis families' `fromScanDump` and
 * SCANDUMP loaders for chunks the server would not load (`reason` 'bad-chunk'
 * for chunks missing, extra, out of order or mis-numbered). No filter is created.
 */
export class FilterFormatError extends codedError('ERR_FILTER_FORMAT', Error) {
  static {
    named(this, 'FilterFormatError');
  }

  /** Which check of docs/FORMAT.md §7 failed. */
  readonly reason: FilterFormatReason;

  constructor(message: string, reason: FilterFormatReason) {
    super(message);
    this.reason = reason;
  }
}

/** Thrown by any method of a filter after `dispose()` (a second `dispose()` is a no-op). */
export class FilterDisposedError extends codedError('ERR_FILTER_DISPOSED', Error) {
  static {
    named(this, 'FilterDisposedError');
  }

  constructor(message = 'this filter was disposed: its memory is freed and it can no longer be used') {
    super(message);
  }
}

/**
 * An argument of the wrong type (e.g. a key that is neither a string nor a
 * Uint8Array). A `TypeError`; its code is `'ERR_INVALID_ARG_TYPE'`, as Node.js uses it.
 */
export class ArgumentTypeError extends codedError('ERR_INVALID_ARG_TYPE', TypeError) {
  static {
    named(this, 'ArgumentTypeError');
  }

  constructor(message: string) {
    super(message);
  }
}

/**
 * A numeric argument outside its allowed range, or a filter larger than wasm
 * memory allows. A `RangeError`; its code is `'ERR_OUT_OF_RANGE'`, as Node.js uses it.
 */
export class ArgumentRangeError extends codedError('ERR_OUT_OF_RANGE', RangeError) {
  static {
    named(this, 'ArgumentRangeError');
  }

  constructor(message: string) {
    super(message);
  }
}

/** Why {@link WasmLoadError} was thrown. */
export type WasmLoadReason =
  /** The page's or extension's Content-Security-Policy forbids compiling WebAssembly. */
  | 'csp-blocked'
  /**
   * The platform compiles no WebAssembly from bytes (Cloudflare Workers, Vercel Edge: "Wasm code generation
   * disallowed by embedder"): import the package's .wasm as a module and hand it to `initWasm` first.
   */
  | 'compile-disallowed'
  /** This JavaScript engine has no WebAssembly (e.g. Node.js with `--jitless`, or it is switched off). */
  | 'no-webassembly'
  /** Compiling, instantiating or initialising the module failed for another reason (see `cause`). */
  | 'instantiate-failed';

/**
 * Thrown (as a rejection of `create` / `fromBytes`) when the WebAssembly module
 * cannot be loaded. Nothing is cached on failure: a later call tries again, so
 * a page whose policy is fixed need not reload the library. The engine's own
 * error is kept as `cause`.
 */
export class WasmLoadError extends codedError('ERR_WASM_LOAD', Error) {
  static {
    named(this, 'WasmLoadError');
  }

  /** What stopped the module from loading. */
  readonly reason: WasmLoadReason;
  /** The engine's error (e.g. a `WebAssembly.CompileError`), if there was one. */
  readonly cause: unknown;

  constructor(message: string, reason: WasmLoadReason, cause?: unknown) {
    super(message);
    this.reason = reason;
    this.cause = cause;
  }
}

/** Why {@link WasmInitError} was thrown. */
export type WasmInitReason =
  /** `initWasm` was called before (and did not fail): it takes a module once per realm. */
  | 'called-twice'
  /** The module is already loaded or loading (by a `create` / `fromBytes` before `initWasm`). */
  | 'already-loaded'
  /** What was handed in is not this version of cuckoo-wasm's module (another module, or another release's). */
  | 'not-this-module';

/**
 * Thrown (as a rejection of `initWasm`) when the WebAssembly module handed in cannot be used: `initWasm` was
 * already called, the module is already loaded, or it is not the module of this version of cuckoo-wasm (its
 * `dist/cuckoo-core.wasm`). Nothing is changed: filters keep using the module they have.
 *
 * @example
 * ```ts
 * try {
 *   await initWasm(wasm);
 * } catch (e) {
 *   if (!(e instanceof WasmInitError && e.reason === 'called-twice')) throw e; // another module of the app set it
 * }
 * ```
 */
export class WasmInitError extends codedError('ERR_WASM_INIT', Error) {
  static {
    named(this, 'WasmInitError');
  }

  /** What was wrong. */
  readonly reason: WasmInitReason;

  constructor(message: string, reason: WasmInitReason) {
    super(message);
    this.reason = reason;
  }
}

/**
 * Thrown when WebAssembly memory cannot hold what was asked for: a filter's
 * table (`create`, `fromBytes`) or a buffer the library needs for a call. The
 * module keeps working: filters made before still answer, and smaller ones can
 * be made. Dispose filters you no longer need, or make a smaller one; all
 * filters of a realm share one memory of at most 2 GiB (browsers may allow less).
 */
export class OutOfMemoryError extends codedError('ERR_OUT_OF_MEMORY', Error) {
  static {
    named(this, 'OutOfMemoryError');
  }

  /** Bytes that could not be allocated. */
  readonly requestedBytes: number;

  constructor(message: string, requestedBytes: number) {
    super(message);
    this.requestedBytes = requestedBytes;
  }
}

/** Why {@link InvalidUrlError} was thrown. */
export type InvalidUrlReason =
  /** Nothing but spaces and control characters. */
  | 'empty'
  /** No host: a bare path (`/a`), a fragment (`#ref`), `http://`, or a scheme without `//` (`mailto:x`). */
  | 'no-host'
  /** A host that cannot be canonicalized: only dots, a stray `:`, `[` or `]`, an IPv6 address that does not parse, or an internationalized name the platform cannot convert to Punycode. */
  | 'bad-host'
  /** Longer than 2 MiB of UTF-8 (Chrome's URL length limit). */
  | 'too-long';

/**
 * Thrown by the URL methods (`addUrl`, `hasUrl`, `matchUrl`, their batch forms,
 * `canonicalizeUrl`, `urlExpressions`) for a string that cannot be a URL or a
 * list entry. A `TypeError`; its code is `'ERR_INVALID_URL'`, as Node.js uses it.
 * Nothing is added for it; in `addUrls`, entries before it stay added.
 */
export class InvalidUrlError extends codedError('ERR_INVALID_URL', TypeError) {
  static {
    named(this, 'InvalidUrlError');
  }

  /** Why the string is not a URL. */
  readonly reason: InvalidUrlReason;
  /** In a batch (`addUrls`, `hasAllUrls`): the index of the refused URL. */
  readonly index: number | undefined;

  constructor(message: string, reason: InvalidUrlReason, index?: number) {
    super(message);
    this.reason = reason;
    this.index = index;
  }
}

/** Why {@link FeedError} was thrown (docs/FEED.md says what each check is). */
export type FeedErrorReason =
  /** The request failed: no connection, or it closed before the body was whole. `cause` holds fetch's error. */
  | 'network'
  /** The server answered with a status other than 200 (`status` holds it). */
  | 'http-status'
  /** No complete answer within the feed's `timeoutMs`. */
  | 'timeout'
  /** A file's length is not the `size` the manifest gives (truncated, or longer), or a manifest is over 1 MiB. */
  | 'size-mismatch'
  /** A file's SHA-256 is not the manifest's, or a patched filter's is not the full filter's. */
  | 'hash-mismatch'
  /** `manifest.json` is not a feed's envelope or manifest (docs/FEED.md §2, §3): the message names the member. */
  | 'manifest-invalid'
  /** The feed was opened with a `publicKey` and the manifest carries no signature. */
  | 'unsigned'
  /** The feed was opened with a `publicKey` and no signature of the manifest verifies with it. */
  | 'bad-signature'
  /** The manifest's version is below the one held: an old manifest served again (a stale cache, or an attacker). */
  | 'replay'
  /** The manifest is another list's (its `name` is not the one held). */
  | 'wrong-feed'
  /** Verified bytes that are not a filter of the manifest's family, or a patch that does not apply. `cause` holds the FilterFormatError. */
  | 'bad-filter'
  /** The store could not load or save the filter (a full disk, a quota). `cause` holds its error. */
  | 'store'
  /** The feed was disposed before the update finished. */
  | 'disposed'
  /** The realm has no WebCrypto (`crypto.subtle`: pages need a secure context) or no Ed25519 in it. */
  | 'no-crypto';

/**
 * Thrown (as a rejection) by `FilterFeed.open` and `update` when an update cannot be made. Whatever failed, the feed
 * keeps the filter and version it held, which keep answering, and its store is unchanged.
 */
export class FeedError extends codedError('ERR_FEED', Error) {
  static {
    named(this, 'FeedError');
  }

  /** What failed. */
  readonly reason: FeedErrorReason;
  /** The URL of the request that failed, if a request did. */
  readonly url: string | undefined;
  /** For 'http-status': the response's status. */
  readonly status: number | undefined;
  /** The error that caused this one, if any (fetch's, the store's, a FilterFormatError). */
  readonly cause: unknown;

  constructor(message: string, reason: FeedErrorReason, details: { url?: string; status?: number; cause?: unknown } = {}) {
    super(message);
    this.reason = reason;
    this.url = details.url;
    this.status = details.status;
    this.cause = details.cause;
  }
}

/** Why {@link PublishError} was thrown. */
export type PublishErrorReason =
  /** `publish` was called in a realm without a file system (a browser, a Worker): it runs in Node.js, Deno or Bun. */
  | 'unsupported-runtime'
  /** An option is missing, of the wrong kind, or out of range: the message names it. */
  | 'options'
  /** The list cannot be read (no such file, not UTF-8, a line that is not a URL with `urls`): the message names the line. */
  | 'list'
  /** The state folder or the served folder is not one this feed's publisher can go on from (another feed's, locked by a running publish). */
  | 'state'
  /** The Ed25519 signing key cannot be read or is not an Ed25519 private key. */
  | 'signing-key';

/**
 * Thrown (as a rejection) by `publish` (docs/FEED.md §5) when it cannot publish. The served folder then still serves
 * the version it served before, and the state folder lets the next run go on from it.
 */
export class PublishError extends codedError('ERR_PUBLISH', Error) {
  static {
    named(this, 'PublishError');
  }

  /** What failed. */
  readonly reason: PublishErrorReason;
  /** The error that caused this one, if any. */
  readonly cause: unknown;

  constructor(message: string, reason: PublishErrorReason, details: { cause?: unknown } = {}) {
    super(message);
    this.reason = reason;
    this.cause = details.cause;
  }
}
