/**
 * Error classes thrown by cuckoo-wasm. Each has a stable `code` string that is
 * safe to branch on; messages are for people and may change.
 *
 * @packageDocumentation
 */

/** Why {@link FilterFormatError} refused some bytes (see docs/FORMAT.md). */
export type FilterFormatReason =
  | 'not-bytes'
  | 'truncated'
  | 'bad-magic'
  | 'unsupported-version'
  | 'bad-parameter'
  | 'trailing-bytes'
  | 'checksum-mismatch'
  | 'count-mismatch'
  | 'bad-victim'
  | 'bad-padding';

/**
 * Thrown by `add` / `addAll` when no slot can be found for a key after the
 * maximum number of evictions ("kicks", Fan et al. 2014 §3.1) and the victim
 * slot is taken. The key was not added and every key stored before is still
 * present. Create a filter with a larger `capacity` and add the keys again.
 */
export class FilterFullError extends Error {
  /** Stable error code: `'ERR_FILTER_FULL'`. */
  readonly code = 'ERR_FILTER_FULL' as const;
  /** For `addAll`: how many keys of the batch were added before the filter filled up (0 for `add`). */
  readonly added: number;

  constructor(message: string, added = 0) {
    super(message);
    this.name = 'FilterFullError';
    this.added = added;
  }
}

/**
 * Thrown by `CuckooFilter.fromBytes` for bytes that `toBytes` did not produce:
 * truncated, corrupted (checksum), from another format version, or with a
 * header that disagrees with its table. No filter is created.
 */
export class FilterFormatError extends Error {
  /** Stable error code: `'ERR_FILTER_FORMAT'`. */
  readonly code = 'ERR_FILTER_FORMAT' as const;
  /** Which check failed. */
  readonly reason: FilterFormatReason;

  constructor(message: string, reason: FilterFormatReason) {
    super(message);
    this.name = 'FilterFormatError';
    this.reason = reason;
  }
}

/** Thrown by any method of a filter after `dispose()` (a second `dispose()` is a no-op). */
export class FilterDisposedError extends Error {
  /** Stable error code: `'ERR_FILTER_DISPOSED'`. */
  readonly code = 'ERR_FILTER_DISPOSED' as const;

  constructor(message = 'this filter was disposed: its memory is freed and it can no longer be used') {
    super(message);
    this.name = 'FilterDisposedError';
  }
}

/** An argument of the wrong type (e.g. a key that is neither a string nor a Uint8Array). */
export class ArgumentTypeError extends TypeError {
  /** Stable error code: `'ERR_INVALID_ARG_TYPE'` (as Node.js uses it). */
  readonly code = 'ERR_INVALID_ARG_TYPE' as const;

  constructor(message: string) {
    super(message);
    this.name = 'ArgumentTypeError';
  }
}

/** A numeric argument outside its allowed range, or a filter larger than wasm memory allows. */
export class ArgumentRangeError extends RangeError {
  /** Stable error code: `'ERR_OUT_OF_RANGE'` (as Node.js uses it). */
  readonly code = 'ERR_OUT_OF_RANGE' as const;

  constructor(message: string) {
    super(message);
    this.name = 'ArgumentRangeError';
  }
}

/** Why {@link WasmLoadError} was thrown. */
export type WasmLoadReason =
  /** The page's or extension's Content-Security-Policy forbids compiling WebAssembly. */
  | 'csp-blocked'
  /** This JavaScript engine has no WebAssembly (e.g. Node.js with `--jitless`, or it is switched off). */
  | 'no-webassembly'
  /** Compiling, instantiating or initialising the module failed for another reason (see `cause`). */
  | 'instantiate-failed';

/**
 * Thrown (as a rejection of `CuckooFilter.create` / `fromBytes`) when the
 * WebAssembly module cannot be loaded. Nothing is cached on failure: a later
 * call tries again, so a page whose policy is fixed need not reload the library.
 * The engine's own error is kept as `cause`.
 */
export class WasmLoadError extends Error {
  /** Stable error code: `'ERR_WASM_LOAD'`. */
  readonly code = 'ERR_WASM_LOAD' as const;
  /** What stopped the module from loading. */
  readonly reason: WasmLoadReason;
  /** The engine's error (e.g. a `WebAssembly.CompileError`), if there was one. */
  readonly cause: unknown;

  constructor(message: string, reason: WasmLoadReason, cause?: unknown) {
    super(message);
    this.name = 'WasmLoadError';
    this.reason = reason;
    this.cause = cause;
  }
}

/**
 * Thrown when WebAssembly memory cannot hold what was asked for: a filter's
 * table (`create`, `fromBytes`) or a buffer the library needs for a call. The
 * module keeps working: filters made before still answer, and smaller ones can
 * be made. Dispose filters you no longer need, or make a smaller one; all
 * filters of a realm share one memory of at most 2 GiB (browsers may allow less).
 */
export class OutOfMemoryError extends Error {
  /** Stable error code: `'ERR_OUT_OF_MEMORY'`. */
  readonly code = 'ERR_OUT_OF_MEMORY' as const;
  /** Bytes that could not be allocated. */
  readonly requestedBytes: number;

  constructor(message: string, requestedBytes: number) {
    super(message);
    this.name = 'OutOfMemoryError';
    this.requestedBytes = requestedBytes;
  }
}
