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
import { ArgumentTypeError } from './errors.js';

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

/** The Emscripten module: embind functions and the cf_* exports of bindings/cuckoo_bindings.cc. */
interface CoreModule {
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
  HEAP32: Int32Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  _cf_add(handle: number, key: number, len: number): number;
  _cf_contain(handle: number, key: number, len: number): number;
  _cf_delete(handle: number, key: number, len: number): number;
  _cf_count(handle: number, key: number, len: number): number;
  _cf_add_batch(handle: number, keys: number, offsets: number, n: number, status: number): number;
  _cf_contain_batch(handle: number, keys: number, offsets: number, n: number, results: number): void;
  _cf_size(handle: number): number;
  _cf_load_factor(handle: number): number;
  create(capacity: number, f: number, b: number, maxKicks: number, seedLow: number, seedHigh: number): OpenResult;
  serializedSizeFor(capacity: number, f: number, b: number): number;
  deserialize(ptr: number, len: number): OpenResult;
  destroy(handle: number): void;
  info(handle: number): CoreInfo;
  serialize(handle: number, out: number): void;
  statusMessage(status: number): string;
}

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

/**
 * Writes `s` at heap[at..] if every code unit is ASCII (then UTF-8 is the code
 * units themselves) and returns its length; returns -1 at the first non-ASCII
 * unit, leaving the caller to use TextEncoder. Saves a subarray per batch key.
 */
function writeAscii(heap: Uint8Array, at: number, s: string): number {
  const n = s.length;
  for (let i = 0; i < n; ++i) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return -1;
    heap[at + i] = c;
  }
  return n;
}

function keyTypeError(key: unknown, where: string): ArgumentTypeError {
  return new ArgumentTypeError(`${where} must be a string or a Uint8Array, got ${describe(key)}`);
}

/** One instantiated module with its scratch and batch regions. */
export class Core {
  readonly m: CoreModule;
  private scratchPtr: number;
  private scratchCap: number;
  private scratchView: Uint8Array;
  private batchPtr = 0;
  private batchCap = 0;

  constructor(module: CoreModule) {
    this.m = module;
    this.scratchCap = SCRATCH_INITIAL;
    this.scratchPtr = this.alloc(SCRATCH_INITIAL);
    this.scratchView = this.view(this.scratchPtr, this.scratchCap);
  }

  /** malloc that throws instead of returning 0. */
  alloc(bytes: number): number {
    const ptr = this.m._malloc(Math.max(1, bytes));
    if (ptr === 0) {
      throw new RangeError(
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
  }

  /**
   * Encodes the keys `next()` returns, until it returns {@link END}, into the
   * batch region, calling `flush(keys, offsets, results, n)` with each chunk of
   * up to 8192 keys or 256 KiB: one boundary crossing per chunk. A final
   * partial chunk is flushed too. `flush` returns false to stop early.
   */
  packBatches(
    next: () => unknown,
    flush: (keys: number, offsets: number, results: number, n: number) => boolean,
    where: (index: number) => string,
  ): void {
    this.ensureBatch(BATCH_KEY_BYTES);
    let n = 0;
    let used = 0;
    let index = 0;
    let heap = this.m.HEAPU8;
    let offsets = this.m.HEAPU32;
    const offsetsIndex = () => (this.batchPtr + this.batchCap) >>> 2;
    const resultsPtr = () => this.batchPtr + this.batchCap + (BATCH_MAX_KEYS + 1) * 4;
    const emit = (): boolean => {
      offsets[offsetsIndex() + n] = used;
      const keep = flush(this.batchPtr, this.batchPtr + this.batchCap, resultsPtr(), n);
      n = 0;
      used = 0;
      return keep;
    };
    for (let key = next(); key !== END; key = next(), ++index) {
      let need: number;
      if (typeof key === 'string') need = key.length * 3;
      else if (key instanceof Uint8Array) need = key.length;
      else throw keyTypeError(key, where(index));
      if (n === BATCH_MAX_KEYS || used + need > this.batchCap) {
        if (n > 0 && !emit()) return;
        if (need > this.batchCap) {
          this.ensureBatch(need);
        }
        heap = this.m.HEAPU8;
        offsets = this.m.HEAPU32;
      }
      offsets[offsetsIndex() + n] = used;
      const at = this.batchPtr + used;
      if (typeof key === 'string') {
        const ascii = writeAscii(heap, at, key);
        used += ascii >= 0 ? ascii : encoder.encodeInto(key, heap.subarray(at, at + need)).written;
      } else {
        heap.set(key as Uint8Array, at);
        used += need;
      }
      ++n;
    }
    if (n > 0) emit();
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
    const module = (await createCuckooCore({
      // Instantiate from the embedded bytes: no fetch, no file path, so it works
      // the same in Node (ESM and CJS), browsers, workers and bundlers.
      instantiateWasm(
        imports: WebAssembly.Imports,
        receive: (instance: WebAssembly.Instance) => void,
      ) {
        WebAssembly.instantiate(wasmBinary as Uint8Array<ArrayBuffer>, imports).then(({ instance }) => receive(instance));
        return {};
      },
    })) as CoreModule;
    return new Core(module);
  })();
  corePromise.catch(() => {
    corePromise = undefined;
  });
  return corePromise;
}
