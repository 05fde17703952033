/**
 * The one place that touches the WebAssembly module's memory (house style:
 * "every raw wasm access in one file"). It instantiates the module once,
 * owns a scratch region in wasm memory for single keys and a batch region for
 * `addAll` / `hasAll`, and writes keys there as bytes: strings through
 * `TextEncoder.encodeInto` (UTF-8; a lone surrogate becomes U+FFFD),
 * Uint8Arrays by copy. Nothing returned from here aliases wasm memory.
 *
 * @internal
 */
import createCuckooCore from 'cuckoo-core-glue';
import wasmBinary from 'cuckoo-core-wasm';
import { ArgumentRangeError, ArgumentTypeError } from './errors.js';

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

const SCRATCH_INITIAL = 4096;
/** Longest string writeKey copies code unit by code unit before using TextEncoder. */
const ASCII_LOOP_MAX = 64;
/** Batch region: keys packed back to back, then offsets (u32, n + 1), then results (u8). */
const BATCH_KEY_BYTES = 256 * 1024;
const BATCH_MAX_KEYS = 8192;

const encoder = new TextEncoder();

/** Returned by a {@link Core.packBatches} key source when there are no more keys. */
export const END: unique symbol = Symbol('end of keys');

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
  /** Keys of the chunk being packed; reused so a batch allocates no array per chunk. */
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
    if (typeof key === 'string') {
      // UTF-8 needs at most 3 bytes per UTF-16 code unit.
      if (key.length * 3 > this.scratchCap) this.growScratch(key.length * 3);
      let view = this.scratchView;
      if (view.byteLength === 0) view = this.refreshScratch(); // memory grew: old view detached
      const n = key.length;
      if (n <= ASCII_LOOP_MAX) {
        // Short ASCII keys (domain names): copy the code units, which are their
        // UTF-8 bytes. Faster than encodeInto here, and allocates nothing.
        let i = 0;
        for (; i < n; ++i) {
          const c = key.charCodeAt(i);
          if (c >= 0x80) break;
          view[i] = c;
        }
        if (i === n) return n;
      }
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
   * Encodes the keys `next()` returns, until it returns {@link END}, into the
   * batch region, calling `flush(keys, offsets, results, n)` with each chunk of
   * up to 8192 keys or 256 KiB: one boundary crossing per chunk. A final
   * partial chunk is flushed too. `flush` returns false to stop early.
   *
   * A chunk of string keys is joined and encoded with one `encodeInto`; when
   * that writes exactly one byte per UTF-16 unit every key was ASCII and the
   * offsets are the running sum of the keys' lengths (measured: 35 ns per
   * domain-name key, against 63 ns for one `encodeInto` per key). Otherwise
   * each key of the chunk is encoded on its own.
   */
  packBatches(
    next: () => unknown,
    flush: (keys: number, offsets: number, results: number, n: number) => boolean,
    where: (index: number) => string,
  ): void {
    this.ensureBatch(BATCH_KEY_BYTES);
    const chunk = this.chunk;
    let index = 0;
    let key = next();
    while (key !== END) {
      // Collect one chunk: at most BATCH_MAX_KEYS keys whose worst-case UTF-8
      // size fits the batch region (a single larger key gets a chunk of its own).
      chunk.length = 0;
      let need = 0;
      let allStrings = true;
      while (key !== END && chunk.length < BATCH_MAX_KEYS) {
        let size: number;
        if (typeof key === 'string') size = key.length * 3;
        else if (key instanceof Uint8Array) {
          size = key.length;
          allStrings = false;
        } else throw keyTypeError(key, where(index));
        if (chunk.length > 0 && need + size > this.batchCap) break;
        chunk.push(key);
        need += size;
        key = next();
        ++index;
      }
      this.ensureBatch(need);
      const n = chunk.length;
      const offsets = this.m.HEAPU32;
      const o = (this.batchPtr + this.batchCap) >>> 2;
      if (!(allStrings && this.encodeAscii(chunk as string[], offsets, o))) {
        const heap = this.m.HEAPU8;
        let used = 0;
        for (let i = 0; i < n; ++i) {
          const k = chunk[i];
          offsets[o + i] = used;
          const at = this.batchPtr + used;
          if (typeof k === 'string') {
            used += encoder.encodeInto(k, heap.subarray(at, at + k.length * 3)).written;
          } else {
            heap.set(k as Uint8Array, at);
            used += (k as Uint8Array).length;
          }
        }
        offsets[o + n] = used;
      }
      const results = this.batchPtr + this.batchCap + (BATCH_MAX_KEYS + 1) * 4;
      if (!flush(this.batchPtr, this.batchPtr + this.batchCap, results, n)) return;
    }
    chunk.length = 0;
  }

  /** The fast path of packBatches: true if every key was ASCII and is now packed. */
  private encodeAscii(keys: string[], offsets: Uint32Array, o: number): boolean {
    const joined = keys.join('');
    let view = this.batchView;
    if (view.byteLength === 0) view = this.batchView = this.view(this.batchPtr, this.batchCap);
    const r = encoder.encodeInto(joined, view);
    if (r.read !== joined.length || r.written !== joined.length) return false;
    let used = 0;
    for (let i = 0; i < keys.length; ++i) {
      offsets[o + i] = used;
      used += keys[i].length;
    }
    offsets[o + keys.length] = used;
    return true;
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

/** Instantiates the WebAssembly module once per realm; later calls share it. */
export function loadCore(): Promise<Core> {
  corePromise ??= (async () => {
    let exports: WebAssembly.Exports | undefined;
    const module = (await createCuckooCore({
      // Instantiate from the embedded bytes: no fetch, no file path, so it works
      // the same in Node (ESM and CJS), browsers, workers and bundlers.
      instantiateWasm(
        imports: WebAssembly.Imports,
        receive: (instance: WebAssembly.Instance) => void,
      ) {
        WebAssembly.instantiate(wasmBinary as Uint8Array<ArrayBuffer>, imports).then(({ instance }) => {
          exports = instance.exports;
          receive(instance);
        });
        return {};
      },
    })) as CoreModule;
    return new Core(module, exports);
  })();
  corePromise.catch(() => {
    corePromise = undefined;
  });
  return corePromise;
}
