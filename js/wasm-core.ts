/**
 * The one place that touches the WebAssembly module's memory (house style:
 * "every raw wasm access in one file"). It instantiates the module once,
 * owns a scratch region in wasm memory for single keys and a batch region for
 * `addAll` / `hasAll`, and writes keys there as bytes: strings as UTF-8 (short
 * ASCII strings code unit by code unit, batches of ASCII strings concatenated,
 * everything else through `TextEncoder.encodeInto`, so a lone surrogate becomes
 * U+FFFD), Uint8Arrays by copy. It calls the wasm instance's cf_* exports
 * directly. Nothing returned from here aliases wasm memory.
 *
 * @internal
 */
import createCuckooCore from 'cuckoo-core-glue';
import wasmBinary from 'cuckoo-core-wasm';
import { ArgumentRangeError, ArgumentTypeError, WasmLoadError } from './errors.js';

/** A key: a string (hashed as its UTF-8 bytes) or raw bytes. */
export type Key = string | Uint8Array;

/** Result of the core's create / deserialize: a cuckoo::Status and a filter handle. */
interface OpenResult {
  status: number;
  handle: number;
}

/** Fixed parameters of one filter, as the core reports them. */
export interface CoreInfo {
  capacity: number;
  bucketCount: number;
  fingerprintBits: number;
  bucketSize: number;
  maxKicks: number;
  seedLow: number;
  seedHigh: number;
  serializedSize: number;
}

/** The per-key and per-batch exports of bindings/cuckoo_bindings.cc (plain wasm functions). */
export interface HotExports {
  cf_add(handle: number, key: number, len: number): number;
  cf_contain(handle: number, key: number, len: number): number;
  cf_delete(handle: number, key: number, len: number): number;
  cf_count(handle: number, key: number, len: number): number;
  cf_add_batch(handle: number, keys: number, offsets: number, n: number, status: number): number;
  cf_contain_batch(handle: number, keys: number, offsets: number, n: number, results: number): void;
  cf_size(handle: number): number;
  cf_load_factor(handle: number): number;
}

const HOT_EXPORTS: readonly (keyof HotExports)[] = [
  'cf_add', 'cf_contain', 'cf_delete', 'cf_count', 'cf_add_batch', 'cf_contain_batch', 'cf_size', 'cf_load_factor',
];

/** The Emscripten module: embind functions, and the cf_* exports behind `_`-prefixed wrappers. */
type CoreModule = {
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  create(capacity: number, f: number, b: number, maxKicks: number, seedLow: number, seedHigh: number): OpenResult;
  serializedSizeFor(capacity: number, f: number, b: number): number;
  deserialize(ptr: number, len: number): OpenResult;
  destroy(handle: number): void;
  info(handle: number): CoreInfo;
  serialize(handle: number, out: number): void;
  statusMessage(status: number): string;
  allocatedBytes(): number;
} & { [K in keyof HotExports as `_${K}`]: HotExports[K] };

/** cuckoo::Status values (src/status.h). */
export const enum Status {
  Ok = 0,
  NotFound = 1,
  NotEnoughSpace = 2,
  InvalidArgument = 3,
  OutOfMemory = 4,
}

/** Largest wasm memory the module may grow to (-sMAXIMUM_MEMORY in CMakeLists.txt), bytes. */
export const MAX_WASM_MEMORY = 2 ** 31;

const SCRATCH_INITIAL = 4096; // >= 3 * ASCII_LOOP_MAX: writeKey's fast path needs no size check
/** Longest string writeKey copies code unit by code unit before using TextEncoder. */
const ASCII_LOOP_MAX = 64;
/** Batch region: keys packed back to back, then offsets (u32, n + 1), then results (u8). */
const BATCH_KEY_BYTES = 256 * 1024;
export const BATCH_MAX_KEYS = 8192;

const encoder = new TextEncoder();

/** Describes a value for an error message without dumping it. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  if (typeof value === 'object') return `an object (${(value as object).constructor?.name ?? 'no prototype'})`;
  return `${typeof value} ${String(value)}`;
}

function keyTypeError(key: unknown, where: string): ArgumentTypeError {
  return new ArgumentTypeError(`${where} must be a string or a Uint8Array, got ${describe(key)}`);
}

/** One instantiated module with its scratch and batch regions. */
export class Core {
  readonly m: CoreModule;
  /**
   * The cf_* functions, taken from the wasm instance's exports: the module
   * object is a dictionary-mode object whose property loads cost about 6 ns,
   * and its `_cf_*` entries start as wrappers that replace themselves.
   */
  readonly hot: HotExports;
  /** True when every cf_* function is the instance's own export (no wrapper). */
  readonly direct: boolean;
  private scratchPtr: number;
  private scratchCap: number;
  private scratchView: Uint8Array;
  private batchPtr = 0;
  private batchCap = 0;
  private batchView: Uint8Array = new Uint8Array(0);
  /** Keys of the chunk packMixed is writing, each read once from the caller's array-like; reused. */
  private readonly chunk: unknown[] = [];

  constructor(module: CoreModule, exports: WebAssembly.Exports | undefined) {
    this.m = module;
    // The wasm export names are kept (CMakeLists.txt links -lexports.js, which
    // turns off their minification); if a toolchain minifies them anyway, the
    // module's wrappers still work, only slower.
    const hot: Partial<HotExports> = {};
    let direct = true;
    for (const name of HOT_EXPORTS) {
      const raw = exports?.[name];
      if (typeof raw === 'function') (hot as Record<string, unknown>)[name] = raw;
      else {
        direct = false;
        (hot as Record<string, unknown>)[name] = (...args: number[]) =>
          (module[`_${name}`] as (...a: number[]) => number)(...args);
      }
    }
    this.hot = hot as HotExports;
    this.direct = direct;
    this.scratchCap = SCRATCH_INITIAL;
    this.scratchPtr = this.alloc(SCRATCH_INITIAL);
    this.scratchView = this.view(this.scratchPtr, this.scratchCap);
  }

  /** malloc that throws instead of returning 0. */
  alloc(bytes: number): number {
    const ptr = this.m._malloc(Math.max(1, bytes));
    if (ptr === 0) {
      throw new ArgumentRangeError(
        `could not allocate ${bytes} bytes of WebAssembly memory (the module may grow to ${MAX_WASM_MEMORY} bytes); dispose filters you no longer need`,
      );
    }
    return ptr;
  }

  private view(ptr: number, len: number): Uint8Array {
    return new Uint8Array(this.m.HEAPU8.buffer, ptr, len);
  }

  /**
   * Writes `key` into the scratch region and returns its length in bytes.
   * Allocates nothing unless the key is longer than any seen before.
   * @throws ArgumentTypeError if `key` is neither a string nor a Uint8Array.
   */
  writeKey(key: unknown): number {
    // Kept small so the JIT inlines it into has() / add(): short ASCII strings
    // (domain names) are copied here, everything else goes to writeOtherKey.
    const view = this.scratchView; // >= 3 * ASCII_LOOP_MAX bytes
    // If wasm memory grew since the view was made, the view is detached and
    // reads give undefined: then writeOtherKey makes it again. This read is
    // free where view.byteLength costs 13 ns, and it keeps the loop below from
    // ever storing into a detached view, which would turn its element stores
    // generic (measured: 890 ns per key for the rest of the process).
    if (typeof key === 'string' && key.length <= ASCII_LOOP_MAX && view[0] !== undefined) {
      const n = key.length;
      // Copy the code units, which are the key's UTF-8 bytes if it is ASCII:
      // faster than encodeInto for short keys, and allocates nothing. The
      // units are OR-ed together and checked once at the end rather than each
      // tested in the loop (37 against 47 ns per 23-unit key).
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
    if (key instanceof Uint8Array) {
      if (key.length > this.scratchCap) this.growScratch(key.length);
      this.m.HEAPU8.set(key, this.scratchPtr);
      return key.length;
    }
    throw keyTypeError(key, 'key');
  }

  get scratch(): number {
    return this.scratchPtr;
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
    this.scratchView = this.view(this.scratchPtr, this.scratchCap);
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
    this.batchView = this.view(ptr, cap);
  }

  /**
   * Packs `keys` into the batch region chunk by chunk and calls
   * `flush(keys, offsets, results, n)` with each chunk of up to 8192 keys or
   * 256 KiB: one boundary crossing per chunk. `flush` returns false to stop
   * early; packBatches then returns false.
   *
   * A chunk of strings takes one pass: it writes each key's offset and
   * concatenates the keys, then one `encodeInto` writes the whole chunk. When
   * that writes exactly one byte per UTF-16 unit, every key was ASCII and the
   * offsets already hold. Otherwise (or with Uint8Array keys) the chunk is
   * written again key by key. Measured on domain names: 35–38 ns per key,
   * against 41–48 ns with a separate join and 63 ns with an `encodeInto` per key.
   *
   * @param where - names key i in an error message, e.g. `keys[i]`.
   * @throws ArgumentTypeError at the first key that is neither a string nor a Uint8Array
   *   (chunks before it have been flushed).
   */
  packBatches(
    keys: ArrayLike<unknown>,
    flush: (keys: number, offsets: number, results: number, n: number) => boolean,
    where: (index: number) => string,
  ): boolean {
    this.ensureBatch(BATCH_KEY_BYTES);
    const total = keys.length;
    let a = 0;
    while (a < total) {
      const b = this.packAscii(keys, a) || this.packMixed(keys, a, where);
      const results = this.batchPtr + this.batchCap + (BATCH_MAX_KEYS + 1) * 4;
      if (!flush(this.batchPtr, this.batchPtr + this.batchCap, results, b - a)) return false;
      a = b;
    }
    return true;
  }

  /**
   * Collects into `this.chunk` the keys of a chunk starting at `a` whose
   * worst-case UTF-8 size fits, growing the region for one huge key; returns
   * the index after it. Each key is read from `keys` once: what is sized is
   * what gets written, even if `keys` is a Proxy or has getters.
   */
  private collectChunk(keys: ArrayLike<unknown>, a: number, where: (index: number) => string): number {
    const limit = Math.min(keys.length, a + BATCH_MAX_KEYS);
    const chunk = this.chunk;
    chunk.length = 0;
    let need = 0;
    let q = a;
    for (; q < limit; ++q) {
      const k = keys[q];
      let size: number;
      if (typeof k === 'string') size = k.length * 3;
      else if (k instanceof Uint8Array) size = k.length;
      else throw keyTypeError(k, where(q));
      if (q > a && need + size > this.batchCap) break;
      need += size;
      chunk.push(k);
    }
    this.ensureBatch(need);
    return q;
  }

  /**
   * The one-pass path for a chunk of ASCII strings starting at `a`: returns
   * the index after the chunk, or 0 if the chunk holds anything else (then
   * nothing is flushed and packMixed writes it).
   */
  private packAscii(keys: ArrayLike<unknown>, a: number): number {
    const limit = Math.min(keys.length, a + BATCH_MAX_KEYS);
    const cap = this.batchCap;
    const offsets = this.m.HEAPU32;
    const o = (this.batchPtr + cap) >>> 2;
    let joined = '';
    let used = 0;
    let q = a;
    for (; q < limit; ++q) {
      const k = keys[q];
      if (typeof k !== 'string') return 0;
      // Cut where the chunk would no longer fit if ASCII; if it is not ASCII,
      // encodeInto stops short and packMixed sizes the chunk by itself.
      if (used + k.length > cap) break;
      offsets[o + q - a] = used;
      used += k.length;
      joined += k;
    }
    if (q === a) return 0; // one key longer than the region: packMixed grows it
    offsets[o + q - a] = used;
    let view = this.batchView;
    if (view.byteLength === 0) view = this.batchView = this.view(this.batchPtr, cap);
    const r = encoder.encodeInto(joined, view);
    return r.read === used && r.written === used ? q : 0;
  }

  /** Writes the chunk starting at `a` key by key (any strings, Uint8Arrays); returns the index after it. */
  private packMixed(keys: ArrayLike<unknown>, a: number, where: (index: number) => string): number {
    const b = this.collectChunk(keys, a, where);
    const chunk = this.chunk as Key[];
    const heap = this.m.HEAPU8;
    const offsets = this.m.HEAPU32;
    const o = (this.batchPtr + this.batchCap) >>> 2;
    let used = 0;
    for (let i = 0; i < chunk.length; ++i) {
      const k = chunk[i];
      offsets[o + i] = used;
      const at = this.batchPtr + used;
      if (typeof k === 'string') {
        used += encoder.encodeInto(k, heap.subarray(at, at + k.length * 3)).written;
      } else {
        heap.set(k, at);
        used += k.length;
      }
    }
    offsets[o + chunk.length] = used;
    chunk.length = 0; // hold no user keys between calls
    return b;
  }

  /** Copies `len` bytes at `ptr` out of wasm memory. */
  copyOut(ptr: number, len: number): Uint8Array {
    return this.m.HEAPU8.slice(ptr, ptr + len);
  }

  /** Copies `bytes` into freshly allocated wasm memory; the caller frees the pointer. */
  copyIn(bytes: Uint8Array): number {
    const ptr = this.alloc(bytes.length);
    this.m.HEAPU8.set(bytes, ptr);
    return ptr;
  }
}

let corePromise: Promise<Core> | undefined;

/** Turns whatever stopped the module from loading into a {@link WasmLoadError} that says what to do. */
function loadError(cause: unknown): WasmLoadError {
  const detail = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  // Chromium: "Refused to compile or instantiate WebAssembly module because 'unsafe-eval'
  // is not an allowed source of script ..."; Firefox: "... blocked by CSP".
  if (/Content.Security.Policy|\bCSP\b|unsafe-eval/i.test(detail)) {
    return new WasmLoadError(
      "cuckoo-wasm cannot compile its WebAssembly module: the Content-Security-Policy forbids it. " +
        "Add 'wasm-unsafe-eval' to script-src (e.g. script-src 'self' 'wasm-unsafe-eval'); " +
        `'unsafe-eval' is not needed, whatever the browser's message says. (${detail})`,
      'csp-blocked',
      cause,
    );
  }
  return new WasmLoadError(
    `cuckoo-wasm could not load its WebAssembly module (${detail}); a later call tries again`,
    'instantiate-failed',
    cause,
  );
}

/**
 * Instantiates the WebAssembly module once per realm; later calls share it.
 * Settles promptly either way: if the module cannot be compiled, instantiated
 * or initialised, the promise rejects with a {@link WasmLoadError} and the next
 * call starts afresh.
 */
export function loadCore(): Promise<Core> {
  corePromise ??= new Promise<Core>((resolve, reject) => {
    if (typeof WebAssembly !== 'object' || WebAssembly === null) {
      reject(
        new WasmLoadError(
          'cuckoo-wasm needs WebAssembly, which this JavaScript engine does not provide ' +
            '(in Node.js, do not run with --jitless)',
          'no-webassembly',
        ),
      );
      return;
    }
    const fail = (cause: unknown) => reject(loadError(cause));
    let exports: WebAssembly.Exports | undefined;
    try {
      // The glue's own promise never settles when instantiateWasm fails, so
      // every failure is caught here and rejects the outer promise directly.
      (createCuckooCore({
        // Instantiate from the embedded bytes: no fetch, no file path, so it works
        // the same in Node (ESM and CJS), browsers, workers and bundlers.
        instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance) => void) {
          WebAssembly.instantiate(wasmBinary as Uint8Array<ArrayBuffer>, imports).then(({ instance }) => {
            exports = instance.exports;
            try {
              receive(instance); // runs the module's static initialisers (embind registration)
            } catch (e) {
              fail(e);
            }
          }, fail);
          return {};
        },
        onAbort: fail,
      }) as Promise<CoreModule>).then((module) => resolve(new Core(module, exports)), fail);
    } catch (e) {
      fail(e);
    }
  });
  corePromise.catch(() => {
    corePromise = undefined;
  });
  return corePromise;
}
