/**
 * The boundary: the one file that touches the WebAssembly module (house style:
 * "every raw wasm access in one file"). It instantiates the module once and
 * offers filter-level operations on handles (create, deserialize, add /
 * contain / delete / count of one key, the batches, serialize, info, size,
 * destroy); every other file checks arguments, calls these, and turns the
 * statuses they return into errors (js/status.ts).
 *
 * The module has two kinds of entry point (bindings/cuckoo_bindings.cc says
 * why): embind functions for everything off the hot path, and plain `cf_*`
 * exports for the per-key and per-batch calls, which are called here as the
 * wasm instance's own exports.
 *
 * Keys cross as bytes written into memory the boundary owns: a scratch region
 * for one key and a batch region for a chunk of keys. Strings are written as
 * UTF-8 (short ASCII strings code unit by code unit, a batch's strings
 * concatenated and encoded at once, everything else through
 * `TextEncoder.encodeInto`, so a lone surrogate becomes U+FFFD), Uint8Arrays by
 * copy. Nothing returned from here aliases wasm memory.
 *
 * No user code runs between writing into wasm memory and the call that reads
 * it: a batch's keys are first read from the caller into a {@link Chunk} (a
 * plain JS array), and only then written, with views taken at that moment. So
 * whatever user code does while keys are read (dispose, nested batches, memory
 * growth), no half-written region is left for it to disturb.
 *
 * Each filter family (cuckoo, Bloom) has its own operations and handle type
 * here; the key writing, the regions and the chunk packing are shared.
 *
 * @internal
 */
import createCuckooCore from 'cuckoo-core-glue';
import wasmBinary from 'cuckoo-core-wasm';
import { ArgumentTypeError, WasmLoadError } from './errors.js';
import { Status, statusError } from './status.js';

/** A key: a string (hashed as its UTF-8 bytes) or raw bytes. */
export type Key = string | Uint8Array;

/**
 * A cuckoo filter of the core, as the boundary names it: its address in wasm
 * memory (never 0). Branded, so that a plain number, or a handle of another
 * filter family, is not taken for one.
 */
export type CuckooHandle = number & { readonly family: 'cuckoo' };

/** A Bloom filter of the core (its ScalableBloomFilter's address), branded like {@link CuckooHandle}. */
export type BloomHandle = number & { readonly family: 'bloom' };

/** Result of create / deserialize: a cuckoo::Status, and the handle when it is Ok (else 0). */
export interface OpenResult<H extends number = CuckooHandle> {
  status: number;
  handle: H;
}

/** One cuckoo sub-filter, as the core reports it. */
export interface CoreCuckooSubFilter {
  capacity: number;
  bucketCount: number;
  fingerprintBits: number;
  size: number;
  loadFactor: number;
  victim: boolean;
  serializedSize: number;
}

/** Parameters of one cuckoo filter (those of sub-filter 0) and its sub-filters, as the core reports them. */
export interface CoreInfo {
  capacity: number;
  bucketCount: number;
  fingerprintBits: number;
  bucketSize: number;
  maxKicks: number;
  seedLow: number;
  seedHigh: number;
  expansion: number;
  serializedSize: number;
  subFilters: CoreCuckooSubFilter[];
}

/** One Bloom sub-filter, as the core reports it. */
export interface CoreBloomSubFilter {
  capacity: number;
  falsePositiveRate: number;
  bitCount: number;
  hashCount: number;
  size: number;
  setBitCount: number;
  expectedFalsePositiveRate: number;
  serializedSize: number;
}

/** Parameters and statistics of one Bloom filter, as the core reports them. */
export interface CoreBloomInfo {
  capacity: number;
  falsePositiveRate: number;
  seedLow: number;
  seedHigh: number;
  expansion: number;
  serializedSize: number;
  bitCount: number;
  hashCount: number;
  expectedFalsePositiveRate: number;
  estimatedCount: number;
  subFilters: CoreBloomSubFilter[];
}

/** The per-key and per-batch exports of bindings/cuckoo_bindings.cc (plain wasm functions). */
interface HotExports {
  cf_add(handle: number, key: number, len: number): number;
  cf_contain(handle: number, key: number, len: number): number;
  cf_delete(handle: number, key: number, len: number): number;
  cf_count(handle: number, key: number, len: number): number;
  cf_add_batch(handle: number, keys: number, offsets: number, n: number, status: number): number;
  cf_contain_batch(handle: number, keys: number, offsets: number, n: number, results: number): void;
  cf_size(handle: number): number;
  cf_load_factor(handle: number): number;
  cf_serialized_size(handle: number): number;
  cf_sub_filter_count(handle: number): number;
  bf_add(handle: number, key: number, len: number): number;
  bf_contain(handle: number, key: number, len: number): number;
  bf_add_batch(handle: number, keys: number, offsets: number, n: number, status: number): number;
  bf_contain_batch(handle: number, keys: number, offsets: number, n: number, results: number): void;
  bf_size(handle: number): number;
  bf_serialized_size(handle: number): number;
  url_add(family: number, handle: number, url: number, len: number, host: number, hostLen: number, region: number, regionLen: number): number;
  url_match(family: number, handle: number, url: number, len: number, host: number, hostLen: number, region: number, regionLen: number): number;
  url_add_batch(
    family: number, handle: number, keys: number, offsets: number, n: number, status: number, region: number, regionLen: number,
  ): number;
  url_match_batch(
    family: number, handle: number, keys: number, offsets: number, n: number, results: number, region: number, regionLen: number,
  ): void;
  url_canonicalize(url: number, len: number, host: number, hostLen: number, region: number, regionLen: number): number;
  url_expressions(url: number, len: number, host: number, hostLen: number, region: number, regionLen: number): number;
  url_entry(url: number, len: number, host: number, hostLen: number, region: number, regionLen: number): number;
}

const HOT_EXPORTS: readonly (keyof HotExports)[] = [
  'cf_add', 'cf_contain', 'cf_delete', 'cf_count', 'cf_add_batch', 'cf_contain_batch', 'cf_size', 'cf_load_factor',
  'cf_serialized_size', 'cf_sub_filter_count',
  'bf_add', 'bf_contain', 'bf_add_batch', 'bf_contain_batch', 'bf_size', 'bf_serialized_size',
  'url_add', 'url_match', 'url_add_batch', 'url_match_batch', 'url_canonicalize', 'url_expressions', 'url_entry',
];

/** A filter family as the URL exports take it (bindings/cuckoo_bindings.cc kFamilyCuckoo). */
export const enum Family {
  Cuckoo = 0,
  Bloom = 1,
}

/**
 * The URL region's layout (bindings/cuckoo_bindings.cc): the CanonicalUrl
 * (ten u32: length, scheme length, host offset, host length, path offset and
 * length, query offset and length, has query, host kind), one UrlSpan (offset,
 * length), 30 UrlSpans, then the workspace the offsets count from.
 */
const URL_CANONICAL_AT = 0;
const URL_SPAN_AT = 40;
const URL_SPANS_AT = 48;
const URL_BUFFER_AT = URL_SPANS_AT + 8 * 30;
/** Longest URL the core canonicalizes, bytes (src/url_canon.h kMaxUrlBytes). */
const MAX_URL_BYTES = 2 << 20;

/**
 * True for a URL longer than the core accepts whatever its encoding (a
 * string's UTF-8 has at least one byte per code unit): it is refused as
 * UrlTooLong without allocating room for it in wasm memory.
 */
export function urlTooLong(url: Key): boolean {
  return (typeof url === 'string' ? url.length : isKey(url) ? byteLengthOf(url) : 0) > MAX_URL_BYTES;
}

/** Workspace bytes for a URL of `bytes` UTF-8 bytes (src/url_canon.h CanonicalBufferSize). */
const urlWorkspace = (bytes: number) => 4 * bytes + 32;

/** What a URL call needs besides the URL: the Punycode host, after a first call reported a non-ASCII host. */
export type AsciiHost = string | undefined;

/** The Emscripten module: embind functions, and the cf_* / bf_* / url_* exports behind `_`-prefixed wrappers. */
type CoreModule = {
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
  HEAP32: Int32Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  create(
    capacity: number, f: number, b: number, maxKicks: number, seedLow: number, seedHigh: number, expansion: number,
  ): OpenResult;
  serializedSizeFor(capacity: number, f: number, b: number, expansion: number): number;
  deserialize(ptr: number, len: number): OpenResult;
  destroy(handle: number): void;
  info(handle: number): CoreInfo;
  serialize(handle: number, out: number): void;
  bloomCreate(capacity: number, fpr: number, seedLow: number, seedHigh: number, expansion: number): OpenResult<BloomHandle>;
  bloomSerializedSizeFor(capacity: number, fpr: number, expansion: number): number;
  bloomDeserialize(ptr: number, len: number): OpenResult<BloomHandle>;
  bloomDestroy(handle: number): void;
  bloomInfo(handle: number): CoreBloomInfo;
  bloomSerialize(handle: number, out: number): void;
  bloomCompatible(a: number, b: number): boolean;
  bloomUnion(into: number, other: number): number;
  statusMessage(status: number): string;
  allocatedBytes(): number;
} & { [K in keyof HotExports as `_${K}`]: HotExports[K] };

const SCRATCH_INITIAL = 4096; // >= 3 * ASCII_LOOP_MAX: writeKey's fast path needs no size check
/** Longest string writeKey copies code unit by code unit before using TextEncoder. */
const ASCII_LOOP_MAX = 32;
/** Most keys in one chunk of a batch (one boundary crossing). */
export const BATCH_MAX_KEYS = 8192;
/**
 * Most UTF-16 code units (plus Uint8Array bytes) in one chunk. Keeps a chunk's
 * joined string below V8's large-object size (128 KiB), where building and
 * encoding it gets markedly slower. One longer key makes a chunk of its own.
 */
const BATCH_MAX_UNITS = 64 * 1024;
/** Batch region: keys packed back to back (UTF-8 needs at most 3 bytes per unit), then offsets (u32, n + 1), then results (u8). */
const BATCH_KEY_BYTES = 3 * BATCH_MAX_UNITS;
/** A code unit that is not ASCII: where a chunk's joined encoding stops matching its offsets. */
const NON_ASCII = /[^\x00-\x7f]/g;

const encoder = new TextEncoder();
/** Made on first use: only a non-ASCII host needs it. */
let decoder: TextDecoder | undefined;

// Brand checks through the intrinsic getters: true for a Uint8Array of any realm
// (a vm context, an iframe), false for look-alikes, and blind to subclasses that
// override `length`, so what is measured is what gets copied.
const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype) as object;
const intrinsicGetter = (name: PropertyKey) =>
  Object.getOwnPropertyDescriptor(typedArrayProto, name)!.get as (this: unknown) => unknown;
const typedArrayTag = intrinsicGetter(Symbol.toStringTag);
const typedArrayLength = intrinsicGetter('length') as (this: unknown) => number;
const typedArrayBuffer = intrinsicGetter('buffer') as (this: unknown) => ArrayBufferLike;
const arrayBufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')!.get!;

/** True for a Uint8Array from any realm (not a Uint8ClampedArray, not a look-alike). */
export function isUint8Array(value: unknown): value is Uint8Array {
  return typedArrayTag.call(value) === 'Uint8Array';
}

/** The length of a Uint8Array (any realm), read from its internal slot. */
export function byteLengthOf(bytes: Uint8Array): number {
  return typedArrayLength.call(bytes);
}

/** True for an ArrayBuffer from any realm (not a SharedArrayBuffer). */
export function isArrayBuffer(value: unknown): value is ArrayBuffer {
  try {
    arrayBufferByteLength.call(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * True if the buffer behind `bytes` (or `bytes` itself) was detached, e.g.
 * transferred to a worker: its views then read as empty.
 */
export function isDetached(bytes: Uint8Array | ArrayBuffer): boolean {
  const buffer = isUint8Array(bytes) ? typedArrayBuffer.call(bytes) : bytes;
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

/**
 * Describes a value for an error message without dumping it. Never throws: the
 * error it is for is thrown instead of whatever inspecting the value would
 * throw (a revoked Proxy, a `constructor` getter that throws).
 */
export function describe(value: unknown): string {
  try {
    if (value === null) return 'null';
    if (Array.isArray(value)) return 'an array';
    if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
    if (typeof value === 'object') return `an object (${(value as object).constructor?.name ?? 'no prototype'})`;
    return `${typeof value} ${String(value)}`;
  } catch {
    return typeof value === 'object' ? 'an object that cannot be inspected (a revoked Proxy?)' : typeof value;
  }
}

/** The error for a key that is neither a string nor a live Uint8Array; `where` names it (`key`, `keys[3]`). */
export function keyTypeError(key: unknown, where: string): ArgumentTypeError {
  if (isUint8Array(key)) {
    return new ArgumentTypeError(
      `${where} is a Uint8Array whose buffer was detached (transferred or resized away): it has no bytes to read; pass a copy made before the transfer`,
    );
  }
  return new ArgumentTypeError(`${where} must be a string or a Uint8Array, got ${describe(key)}`);
}

/**
 * The keys of one chunk of a batch, read from the caller and not yet written
 * to wasm memory. A chunk of strings is also concatenated as it is read (V8
 * builds a rope, flattened once by the `encodeInto` that writes the chunk:
 * cheaper per key than `Array.prototype.join`). A Uint8Array key is copied
 * when it is read: until the chunk is written the caller's code runs again
 * (the next key's getter or generator step), and may refill, resize or
 * transfer the array; the key is what it held when it was read, as for a loop
 * of single calls.
 */
export class Chunk {
  /**
   * The keys, in `keys[0 .. count)`: a string key itself, `null` for a
   * Uint8Array key (its copy is in the stage; {@link key} gives it). The array
   * is reused from chunk to chunk.
   */
  readonly keys: (string | null)[] = [];
  count = 0;
  /** UTF-16 code units of the string keys plus bytes of the Uint8Array keys. */
  units = 0;
  /** Bytes of the Uint8Array keys. */
  bytes = 0;
  /** True while every key is a string. */
  allStrings = true;
  /** While every key is a string: the keys concatenated, as they are read. */
  joined = '';
  /** The copies of the Uint8Array keys, back to back in `stage[0 .. staged)`, in key order. */
  stage: Uint8Array = EMPTY_STAGE;
  staged = 0;
  /** For a Uint8Array key i: where its copy starts in the stage, and its length. */
  stageAt: Uint32Array = EMPTY_STAGE_INDEX;
  stageLength: Uint32Array = EMPTY_STAGE_INDEX;

  /** Most bytes the keys can take as UTF-8: 3 per code unit, 1 per byte. */
  get maxBytes(): number {
    return 3 * (this.units - this.bytes) + this.bytes;
  }

  /**
   * Adds a key that was checked to be a string or a live Uint8Array. Returns
   * 0 when it was added and there is room for more, 1 when it was added and the
   * chunk is now full, or 2 when the chunk must be written first: the key
   * would take this non-empty chunk past its unit budget (so a long key makes a
   * chunk of its own, and the batch region never needs more than 3 bytes per
   * unit of the longest key).
   */
  push(key: Key): 0 | 1 | 2 {
    const n = typeof key === 'string' ? key.length : byteLengthOf(key);
    if (this.count > 0 && this.units + n > BATCH_MAX_UNITS) return 2;
    if (typeof key === 'string') {
      if (this.allStrings) this.joined += key;
      this.keys[this.count++] = key;
    } else {
      this.copy(key, n);
      this.bytes += n;
      this.allStrings = false;
      this.joined = '';
      this.keys[this.count++] = null;
    }
    this.units += n;
    return this.count === BATCH_MAX_KEYS || this.units >= BATCH_MAX_UNITS ? 1 : 0;
  }

  /**
   * Copies the `n` bytes of a live Uint8Array (any realm) to the end of the
   * stage, as key `count`. `set` reads its source through internal slots: no
   * user code runs, and a subclass's `length` getter is not consulted.
   */
  private copy(bytes: Uint8Array, n: number): void {
    if (this.stageAt.length === 0) {
      // The stage of the last batch that ended, if no other batch took it;
      // else new ones (a batch nested in another's user code gets its own).
      if (spareAt.length !== 0) {
        this.stage = spareBytes;
        this.stageAt = spareAt;
        this.stageLength = spareLength;
        spareBytes = EMPTY_STAGE;
        spareAt = spareLength = EMPTY_STAGE_INDEX;
      } else {
        this.stageAt = new Uint32Array(BATCH_MAX_KEYS);
        this.stageLength = new Uint32Array(BATCH_MAX_KEYS);
      }
    }
    const at = this.staged;
    if (at + n > this.stage.length) {
      const grown = new Uint8Array(Math.max(at + n, 2 * this.stage.length, 4096));
      grown.set(this.stage.subarray(0, at));
      this.stage = grown;
    }
    this.stage.set(bytes, at);
    this.stageAt[this.count] = at;
    this.stageLength[this.count] = n;
    this.staged = at + n;
  }

  /** Key `i` as it was read: the string, or a copy of the Uint8Array's bytes. */
  key(i: number): Key {
    const k = this.keys[i];
    if (k !== null) return k;
    const at = this.stageAt[i];
    return this.stage.slice(at, at + this.stageLength[i]);
  }

  /**
   * Adds a string key if the chunk has room for it and stays below its limits
   * afterwards; false (nothing added) otherwise, and {@link push} decides.
   */
  pushString(key: string): boolean {
    const units = this.units + key.length;
    if (units >= BATCH_MAX_UNITS || this.count >= BATCH_MAX_KEYS - 1 || !this.allStrings) return false;
    this.units = units;
    this.keys[this.count++] = key;
    this.joined += key;
    return true;
  }

  /** Empties the chunk for the next keys. */
  clear(): void {
    this.count = 0;
    this.units = 0;
    this.bytes = 0;
    this.allStrings = true;
    this.joined = '';
    this.staged = 0;
  }

  /** Lets go of the caller's keys, and keeps the stage for the next batch (when the batch ends). */
  release(): void {
    this.clear();
    this.keys.length = 0;
    if (this.stageAt.length !== 0 && spareAt.length === 0 && this.stage.length <= SPARE_STAGE_MAX) {
      spareBytes = this.stage;
      spareAt = this.stageAt;
      spareLength = this.stageLength;
    }
    this.stage = EMPTY_STAGE;
    this.stageAt = this.stageLength = EMPTY_STAGE_INDEX;
  }
}

const EMPTY_STAGE = new Uint8Array(0);
const EMPTY_STAGE_INDEX = new Uint32Array(0);
/**
 * A stage and its index kept from one batch to the next (none while the
 * index is empty), so a small batch of Uint8Arrays allocates nothing.
 */
let spareBytes: Uint8Array = EMPTY_STAGE;
let spareAt: Uint32Array = EMPTY_STAGE_INDEX;
let spareLength: Uint32Array = EMPTY_STAGE_INDEX;
/** Largest stage kept (bytes): one chunk's keys, 64K units, fit; a stage grown for one huge key is let go. */
const SPARE_STAGE_MAX = 1 << 20;

/** True if `key` can be written: a string, or a Uint8Array whose buffer is not detached. */
export function isKey(key: unknown): key is Key {
  if (typeof key === 'string') return true;
  return isUint8Array(key) && (byteLengthOf(key) > 0 || !isDetached(key));
}

/** One instantiated module with its scratch and batch regions, and the operations on its filters. */
export class Core {
  private readonly m: CoreModule;
  /**
   * The cf_* / bf_* / url_* functions, taken from the wasm instance's exports: the module
   * object is a dictionary-mode object whose property loads are slow, and its
   * `_cf_*` entries start as wrappers that replace themselves.
   */
  private readonly hot: HotExports;
  /** True when every cf_* / bf_* / url_* function is the instance's own export (no wrapper). */
  readonly direct: boolean;
  private scratchPtr: number;
  private scratchCap: number;
  private scratchView: Uint8Array;
  private batchPtr = 0;
  private batchCap = 0;
  private urlPtr = 0;
  private urlCap = 0;

  /** @internal */
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

  // -------------------------------------------------------------------------
  // Cuckoo filters: opening, reading out, closing.

  /**
   * Bytes a cuckoo filter with these parameters serializes to, or 0 if the
   * core would refuse them; lets a caller refuse a filter too large for wasm
   * memory before anything is allocated.
   */
  serializedSizeFor(capacity: number, fingerprintBits: number, bucketSize: number, expansion: number): number {
    return this.m.serializedSizeFor(capacity, fingerprintBits, bucketSize, expansion);
  }

  /**
   * Makes an empty cuckoo filter (growing by `expansion`, or 0 for a fixed
   * size): status Ok and its handle, or InvalidArgument / OutOfMemory.
   */
  create(
    capacity: number,
    fingerprintBits: number,
    bucketSize: number,
    maxKicks: number,
    seed: bigint,
    expansion: number,
  ): OpenResult {
    const [low, high] = seedWords(seed);
    return this.m.create(capacity, fingerprintBits, bucketSize, maxKicks, low, high, expansion);
  }

  /**
   * Loads a cuckoo filter from its serialized bytes (docs/FORMAT.md), which are
   * copied into wasm memory for the call and freed after it: status Ok and its
   * handle, OutOfMemory, or the Format* status of the first check that failed.
   * @throws OutOfMemoryError if wasm memory cannot hold the copy.
   */
  deserialize(bytes: Uint8Array): OpenResult {
    return this.withBytes(bytes, (ptr, length) => this.m.deserialize(ptr, length));
  }

  /** Copies `bytes` into wasm memory for the duration of `use`. */
  private withBytes<T>(bytes: Uint8Array, use: (ptr: number, length: number) => T): T {
    const length = byteLengthOf(bytes);
    const ptr = this.alloc(length);
    try {
      this.m.HEAPU8.set(bytes, ptr);
      return use(ptr, length);
    } finally {
      this.m._free(ptr);
    }
  }

  /** Parameters and statistics of the filter and of each of its sub-filters. */
  info(handle: CuckooHandle): CoreInfo {
    return this.m.info(handle);
  }

  /**
   * The filter's serialized bytes (docs/FORMAT.md), `byteLength` of them (its
   * `serializedSize`), in a new array the caller owns.
   * @throws OutOfMemoryError if wasm memory cannot hold them.
   */
  serialize(handle: CuckooHandle): Uint8Array {
    return this.serializeWith(this.hot.cf_serialized_size(handle), (ptr) => this.m.serialize(handle, ptr));
  }

  private serializeWith(byteLength: number, write: (ptr: number) => void): Uint8Array {
    const ptr = this.alloc(byteLength);
    try {
      write(ptr);
      return this.m.HEAPU8.slice(ptr, ptr + byteLength);
    } finally {
      this.m._free(ptr);
    }
  }

  /** Bytes {@link serialize} gives now (it changes as the filter grows). */
  serializedSize(handle: CuckooHandle): number {
    return this.hot.cf_serialized_size(handle);
  }

  /** Sub-filters of the filter: 1, more once it grew. */
  subFilterCount(handle: CuckooHandle): number {
    return this.hot.cf_sub_filter_count(handle);
  }

  /** Frees the filter; its handle must not be used again. */
  destroy(handle: CuckooHandle): void {
    this.m.destroy(handle);
  }

  /** The core's description of a status (what was wrong and what to do), for an error message. */
  statusMessage(status: number): string {
    return this.m.statusMessage(status);
  }

  /** Size of wasm memory, and the bytes allocated in it (filters, tables, this object's regions). */
  memoryUsage(): { heapBytes: number; allocatedBytes: number } {
    return { heapBytes: this.m.HEAPU8.length, allocatedBytes: this.m.allocatedBytes() };
  }

  // -------------------------------------------------------------------------
  // Cuckoo filters: one key, one call. Each writes the key into the scratch
  // region and crosses once.

  /**
   * Adds a key: Ok, or NotEnoughSpace / GrowthLimit / OutOfMemory (nothing changed).
   * @throws ArgumentTypeError if `key` is neither a string nor a live Uint8Array.
   */
  add(handle: CuckooHandle, key: Key): number {
    const len = this.writeKey(key);
    return this.hot.cf_add(handle, this.scratchPtr, len);
  }

  /**
   * True if the key's fingerprint is in one of its buckets or the victim slot.
   * @throws ArgumentTypeError if `key` is neither a string nor a live Uint8Array.
   */
  contain(handle: CuckooHandle, key: Key): boolean {
    const len = this.writeKey(key);
    return this.hot.cf_contain(handle, this.scratchPtr, len) !== 0;
  }

  /**
   * Removes one matching fingerprint: Ok, or NotFound.
   * @throws ArgumentTypeError if `key` is neither a string nor a live Uint8Array.
   */
  remove(handle: CuckooHandle, key: Key): number {
    const len = this.writeKey(key);
    return this.hot.cf_delete(handle, this.scratchPtr, len);
  }

  /**
   * Stored fingerprints matching the key.
   * @throws ArgumentTypeError if `key` is neither a string nor a live Uint8Array.
   */
  count(handle: CuckooHandle, key: Key): number {
    const len = this.writeKey(key);
    return this.hot.cf_count(handle, this.scratchPtr, len);
  }

  /** Stored fingerprints, victim included. */
  size(handle: CuckooHandle): number {
    return this.hot.cf_size(handle);
  }

  /** Fraction of the table's slots in use, victim excluded. */
  loadFactor(handle: CuckooHandle): number {
    return this.hot.cf_load_factor(handle);
  }

  // -------------------------------------------------------------------------
  // Cuckoo filters: one chunk of a batch, one call. Each writes the chunk's
  // keys into the batch region and crosses once; runs no user code.

  /**
   * Adds the chunk's keys in order, stopping at the first that does not fit:
   * how many went in. {@link batchStatus} then says why it stopped.
   */
  addBatch(handle: CuckooHandle, chunk: Chunk): number {
    const n = chunk.count;
    this.writeChunk(chunk);
    return this.hot.cf_add_batch(handle, this.batchPtr, this.batchOffsets, n, this.batchResults);
  }

  /** Looks up the chunk's keys: their answers go to `out[at ..]`; returns the index after the last. */
  containBatch(handle: CuckooHandle, chunk: Chunk, out: boolean[], at: number): number {
    const n = chunk.count;
    this.writeChunk(chunk);
    this.hot.cf_contain_batch(handle, this.batchPtr, this.batchOffsets, n, this.batchResults);
    return this.readAnswers(n, out, at);
  }

  /** The status of the last addBatch / bloomAddBatch: Ok, or why its last key was not added. */
  batchStatus(): number {
    return this.m.HEAP32[this.batchResults >>> 2];
  }

  private readAnswers(n: number, out: boolean[], at: number): number {
    const heap = this.m.HEAPU8;
    const results = this.batchResults;
    for (let i = 0; i < n; ++i) out[at++] = heap[results + i] !== 0;
    return at;
  }

  // -------------------------------------------------------------------------
  // Bloom filters.

  /** Bytes a new Bloom filter of these parameters serializes to, or 0 if the core would refuse them. */
  bloomSerializedSizeFor(capacity: number, falsePositiveRate: number, expansion: number): number {
    return this.m.bloomSerializedSizeFor(capacity, falsePositiveRate, expansion);
  }

  /** Makes an empty Bloom filter: status Ok and its handle, or InvalidArgument / OutOfMemory. */
  bloomCreate(capacity: number, falsePositiveRate: number, seed: bigint, expansion: number): OpenResult<BloomHandle> {
    const [low, high] = seedWords(seed);
    return this.m.bloomCreate(capacity, falsePositiveRate, low, high, expansion);
  }

  /** As {@link deserialize}, for a Bloom filter's bytes. */
  bloomDeserialize(bytes: Uint8Array): OpenResult<BloomHandle> {
    return this.withBytes(bytes, (ptr, length) => this.m.bloomDeserialize(ptr, length));
  }

  /** Parameters and statistics of a Bloom filter and its sub-filters. */
  bloomInfo(handle: BloomHandle): CoreBloomInfo {
    return this.m.bloomInfo(handle);
  }

  /** The Bloom filter's serialized bytes, in a new array. @throws OutOfMemoryError */
  bloomSerialize(handle: BloomHandle): Uint8Array {
    return this.serializeWith(this.hot.bf_serialized_size(handle), (ptr) => this.m.bloomSerialize(handle, ptr));
  }

  /** Bytes {@link bloomSerialize} gives now. */
  bloomSerializedSize(handle: BloomHandle): number {
    return this.hot.bf_serialized_size(handle);
  }

  bloomDestroy(handle: BloomHandle): void {
    this.m.bloomDestroy(handle);
  }

  /** Same seed, growth and sub-filters of the same m and k. */
  bloomCompatible(a: BloomHandle, b: BloomHandle): boolean {
    return this.m.bloomCompatible(a, b);
  }

  /** ORs `other`'s bits into `into`: Ok, or InvalidArgument (nothing changed) if they are not compatible. */
  bloomUnion(into: BloomHandle, other: BloomHandle): number {
    return this.m.bloomUnion(into, other);
  }

  /** Adds a key: Ok, or GrowthLimit / OutOfMemory (nothing changed). @throws ArgumentTypeError */
  bloomAdd(handle: BloomHandle, key: Key): number {
    const len = this.writeKey(key);
    return this.hot.bf_add(handle, this.scratchPtr, len);
  }

  /** True if every bit of the key is set in some sub-filter. @throws ArgumentTypeError */
  bloomContain(handle: BloomHandle, key: Key): boolean {
    const len = this.writeKey(key);
    return this.hot.bf_contain(handle, this.scratchPtr, len) !== 0;
  }

  /** Keys added. */
  bloomSize(handle: BloomHandle): number {
    return this.hot.bf_size(handle);
  }

  /** As {@link addBatch}. */
  bloomAddBatch(handle: BloomHandle, chunk: Chunk): number {
    const n = chunk.count;
    this.writeChunk(chunk);
    return this.hot.bf_add_batch(handle, this.batchPtr, this.batchOffsets, n, this.batchResults);
  }

  /** As {@link containBatch}. */
  bloomContainBatch(handle: BloomHandle, chunk: Chunk, out: boolean[], at: number): number {
    const n = chunk.count;
    this.writeChunk(chunk);
    this.hot.bf_contain_batch(handle, this.batchPtr, this.batchOffsets, n, this.batchResults);
    return this.readAnswers(n, out, at);
  }

  // -------------------------------------------------------------------------
  // URLs (src/url_filter.h). Each call writes the URL into the scratch region
  // (the Punycode host, if any, behind it) and crosses once; what the core
  // found is read from the URL region afterwards: urlHost, urlCanonical,
  // urlSpan, urlSpans. A status of UrlNonAsciiHost asks the caller to call
  // again with the host in Punycode (js/url.ts).

  /** Adds a list entry's canonical expression: Ok, a Url* status, or the filter's add status. */
  urlAdd(family: Family, handle: number, url: Key, host: AsciiHost): number {
    if (urlTooLong(url)) return Status.UrlTooLong;
    return this.urlCall(url, host, (u, n, h, hn, r, rn) => this.hot.url_add(family, handle, u, n, h, hn, r, rn));
  }

  /** 1 if an expression of the URL is in the filter ({@link urlSpan} is the first), 0 if none, -status if refused. */
  urlMatch(family: Family, handle: number, url: Key, host: AsciiHost): number {
    if (urlTooLong(url)) return -Status.UrlTooLong;
    if (host === undefined) {
      // The per-URL lookup: no closure, no host.
      const len = this.writeKey(url);
      if (URL_BUFFER_AT + urlWorkspace(len) > this.urlCap) this.ensureUrlRegion(len);
      return this.hot.url_match(family, handle, this.scratchPtr, len, 0, 0, this.urlPtr, this.urlCap);
    }
    return this.urlCall(url, host, (u, n, h, hn, r, rn) => this.hot.url_match(family, handle, u, n, h, hn, r, rn));
  }

  /** Canonicalizes: Ok ({@link urlCanonical} is the result) or a Url* status. */
  urlCanonicalize(url: Key, host: AsciiHost): number {
    if (urlTooLong(url)) return Status.UrlTooLong;
    return this.urlCall(url, host, (u, n, h, hn, r, rn) => this.hot.url_canonicalize(u, n, h, hn, r, rn));
  }

  /** The URL's expressions: their count ({@link urlSpans} reads them), or -status. */
  urlExpressions(url: Key, host: AsciiHost): number {
    if (urlTooLong(url)) return -Status.UrlTooLong;
    return this.urlCall(url, host, (u, n, h, hn, r, rn) => this.hot.url_expressions(u, n, h, hn, r, rn));
  }

  /** A list entry's canonical expression: Ok ({@link urlSpan} is it) or a Url* status. */
  urlEntry(url: Key, host: AsciiHost): number {
    if (urlTooLong(url)) return Status.UrlTooLong;
    return this.urlCall(url, host, (u, n, h, hn, r, rn) => this.hot.url_entry(u, n, h, hn, r, rn));
  }

  /** After UrlNonAsciiHost: the host as the core found it (decoded, dots and ASCII case canonical). */
  urlHost(): string {
    const at = this.urlPtr + URL_CANONICAL_AT;
    const u32 = this.m.HEAPU32;
    return this.urlText(u32[(at >>> 2) + 2], u32[(at >>> 2) + 3], true);
  }

  /** After a canonicalization that returned Ok: the canonical URL. */
  urlCanonical(): string {
    return this.urlText(0, this.m.HEAPU32[(this.urlPtr + URL_CANONICAL_AT) >>> 2], false);
  }

  /** After a match or an entry: the expression in the span slot. */
  urlSpan(): string {
    const at = (this.urlPtr + URL_SPAN_AT) >>> 2;
    return this.urlText(this.m.HEAPU32[at], this.m.HEAPU32[at + 1], false);
  }

  /** After urlExpressions returned n: the n expressions. */
  urlSpans(n: number): string[] {
    const at = (this.urlPtr + URL_SPANS_AT) >>> 2;
    const out: string[] = [];
    for (let i = 0; i < n; ++i) out.push(this.urlText(this.m.HEAPU32[at + 2 * i], this.m.HEAPU32[at + 2 * i + 1], false));
    return out;
  }

  /**
   * Adds a chunk of list entries, stopping at the first refused: how many went
   * in ({@link batchStatus} says why it stopped). `from` resumes a chunk written
   * by an earlier call at that index.
   */
  urlAddBatch(family: Family, handle: number, chunk: Chunk | undefined, from: number, n: number): number {
    if (chunk !== undefined) this.writeChunkForUrls(chunk);
    const offsets = this.batchOffsets + 4 * from;
    return this.hot.url_add_batch(family, handle, this.batchPtr, offsets, n - from, this.batchResults, this.urlPtr, this.urlCap);
  }

  /**
   * Looks up a chunk of URLs; each result goes to `codes[i]`: 1 found, 0 not
   * found, else the status that refused URL i (UrlNonAsciiHost included).
   */
  urlMatchBatch(family: Family, handle: number, chunk: Chunk, codes: Uint8Array): void {
    const n = chunk.count;
    this.writeChunkForUrls(chunk);
    this.hot.url_match_batch(family, handle, this.batchPtr, this.batchOffsets, n, this.batchResults, this.urlPtr, this.urlCap);
    codes.set(this.m.HEAPU8.subarray(this.batchResults, this.batchResults + n));
  }

  /** writeChunk, with the URL region sized for the chunk's longest possible key. */
  private writeChunkForUrls(chunk: Chunk): void {
    this.ensureUrlRegion(chunk.maxBytes);
    this.writeChunk(chunk);
  }

  private urlCall(
    url: Key,
    host: AsciiHost,
    call: (url: number, len: number, host: number, hostLen: number, region: number, regionLen: number) => number,
  ): number {
    const len = this.writeKey(url);
    let hostPtr = 0;
    let hostLen = 0;
    if (host !== undefined) {
      // The host goes behind the URL in the scratch region (ASCII: one byte per unit).
      hostLen = host.length;
      if (len + hostLen > this.scratchCap) {
        const copy = this.m.HEAPU8.slice(this.scratchPtr, this.scratchPtr + len);
        this.growScratch(len + hostLen);
        this.m.HEAPU8.set(copy, this.scratchPtr);
      }
      hostPtr = this.scratchPtr + len;
      const heap = this.m.HEAPU8;
      for (let i = 0; i < hostLen; ++i) heap[hostPtr + i] = host.charCodeAt(i) & 0x7f;
    }
    this.ensureUrlRegion(len + hostLen);
    return call(this.scratchPtr, len, hostPtr, hostLen, this.urlPtr, this.urlCap);
  }

  /** Makes the URL region large enough for a URL (plus host) of `bytes` bytes. */
  private ensureUrlRegion(bytes: number): void {
    const need = URL_BUFFER_AT + urlWorkspace(bytes);
    if (need <= this.urlCap) return;
    const cap = Math.max(need, 4096);
    const ptr = this.alloc(cap);
    if (this.urlPtr) this.m._free(this.urlPtr);
    this.urlPtr = ptr;
    this.urlCap = cap;
  }

  /** `length` bytes of the URL workspace from `offset`, as a string (UTF-8 when `utf8`, else ASCII). */
  private urlText(offset: number, length: number, utf8: boolean): string {
    const at = this.urlPtr + URL_BUFFER_AT + offset;
    const bytes = this.m.HEAPU8.subarray(at, at + length);
    if (utf8) return (decoder ??= new TextDecoder()).decode(bytes);
    let s = '';
    for (let i = 0; i < length; i += 4096) s += String.fromCharCode(...bytes.subarray(i, Math.min(length, i + 4096)));
    return s;
  }

  // -------------------------------------------------------------------------
  // Memory, and writing keys into it.

  /** malloc that throws OutOfMemoryError instead of returning 0. */
  private alloc(bytes: number): number {
    const ptr = this.m._malloc(Math.max(1, bytes));
    if (ptr === 0) throw statusError(Status.OutOfMemory, { bytes });
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
  private writeKey(key: unknown): number {
    // Kept small so the JIT inlines it into contain() / add(): short ASCII
    // strings (domain names) are copied here, everything else goes to
    // writeOtherKey.
    const view = this.scratchView; // >= 3 * ASCII_LOOP_MAX bytes
    // If wasm memory grew since the view was made, the view is detached and
    // reads give undefined: then writeOtherKey makes it again. This read is
    // cheaper than view.byteLength, and it keeps the loop below from ever
    // storing into a detached view, which would turn its element stores
    // generic (and slow) for the rest of the process.
    if (typeof key === 'string' && key.length <= ASCII_LOOP_MAX && view[0] !== undefined) {
      const n = key.length;
      // Copy the code units, which are the key's UTF-8 bytes if it is ASCII:
      // faster than encodeInto for short keys, and allocates nothing. The
      // units are OR-ed together and checked once at the end rather than each
      // tested in the loop, which is faster.
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
    if (isKey(key)) {
      const bytes = key as Uint8Array;
      const n = byteLengthOf(bytes);
      if (n > this.scratchCap) this.growScratch(n);
      this.m.HEAPU8.set(bytes, this.scratchPtr);
      return n;
    }
    throw keyTypeError(key, 'key');
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

  /** Address of the n + 1 u32 offsets of the chunk written last: key i is at batchPtr + [offsets[i], offsets[i + 1]). */
  private get batchOffsets(): number {
    return this.batchPtr + this.batchCap;
  }

  /** Address of n bytes (or one i32 status) for the results of the call on that chunk. */
  private get batchResults(): number {
    return this.batchPtr + this.batchCap + (BATCH_MAX_KEYS + 1) * 4;
  }

  /**
   * Writes a chunk's keys into the batch region as UTF-8 / raw bytes packed back
   * to back, with their offsets (see {@link batchOffsets}), and empties the
   * chunk. Runs no user code.
   */
  private writeChunk(chunk: Chunk): void {
    const keys = chunk.keys;
    const n = chunk.count;
    this.ensureBatch(chunk.maxBytes);
    const heap = this.m.HEAPU8; // taken now: memory may have grown while keys were read
    const offsets = this.m.HEAPU32;
    const base = this.batchPtr;
    const o = (base + this.batchCap) >>> 2;
    if (chunk.allStrings) {
      // One encodeInto for the whole chunk. When every unit was ASCII it wrote
      // one byte per unit, and the offsets are the running sum of the lengths.
      const joined = chunk.joined;
      const written = encoder.encodeInto(joined, heap.subarray(base, base + this.batchCap)).written;
      if (written === chunk.units) {
        let at = 0;
        for (let i = 0; i < n; ++i) {
          offsets[o + i] = at;
          at += (keys[i] as string).length;
        }
        offsets[o + n] = at;
      } else {
        this.rewriteFromFirstNonAscii(keys as string[], n, joined, heap, offsets, base, o);
      }
    } else {
      const { stage, stageAt, stageLength } = chunk;
      let at = 0;
      for (let i = 0; i < n; ) {
        const k = keys[i];
        if (k !== null) {
          offsets[o + i] = at;
          at += encoder.encodeInto(k, heap.subarray(base + at, base + at + 3 * k.length)).written;
          ++i;
          continue;
        }
        // A run of Uint8Array keys: their copies are back to back in the stage,
        // written in one piece (a short one byte by byte, cheaper than a view).
        const from = stageAt[i];
        let j = i;
        for (; j < n && keys[j] === null; ++j) offsets[o + j] = at + (stageAt[j] - from);
        const to = stageAt[j - 1] + stageLength[j - 1];
        if (to - from <= 64) {
          for (let b = from, w = base + at; b < to; ++b, ++w) heap[w] = stage[b];
        } else {
          heap.set(stage.subarray(from, to), base + at);
        }
        at += to - from;
        i = j;
      }
      offsets[o + n] = at;
    }
    chunk.clear();
  }

  /**
   * For a chunk of strings whose joined encoding met a non-ASCII unit: the keys
   * before the first non-ASCII key are in place already; from there on, each
   * non-ASCII key is encoded on its own (so a lone surrogate at a key's edge
   * becomes U+FFFD, not half of a pair with its neighbour) and each run of
   * ASCII keys between them in one `encodeInto` of a slice of `joined`.
   */
  private rewriteFromFirstNonAscii(
    keys: string[],
    n: number,
    joined: string,
    heap: Uint8Array,
    offsets: Uint32Array,
    base: number,
    o: number,
  ): void {
    NON_ASCII.lastIndex = 0;
    let next = NON_ASCII.exec(joined)?.index ?? Infinity; // unit index of the next non-ASCII unit
    let unit = 0; // units of `joined` written so far
    let at = 0; // bytes written so far
    let i = 0;
    while (i < n) {
      const k = keys[i];
      if (next < unit + k.length) {
        offsets[o + i] = at;
        at += encoder.encodeInto(k, heap.subarray(base + at, base + at + 3 * k.length)).written;
        unit += k.length;
        ++i;
        NON_ASCII.lastIndex = unit;
        next = NON_ASCII.exec(joined)?.index ?? Infinity;
        continue;
      }
      // Keys [i, j) hold no non-ASCII unit: one byte per unit.
      let end = unit;
      let j = i;
      for (; j < n && end + keys[j].length <= next; ++j) {
        offsets[o + j] = at + (end - unit);
        end += keys[j].length;
      }
      if (at !== unit) encoder.encodeInto(joined.slice(unit, end), heap.subarray(base + at, base + at + (end - unit)));
      at += end - unit;
      unit = end;
      i = j;
    }
    offsets[o + n] = at;
  }
}

/** A u64 seed as the [low, high] 32-bit words the core's functions take. */
function seedWords(seed: bigint): [number, number] {
  return [Number(seed & 0xffffffffn), Number(seed >> 32n)];
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
