/**
 * What every family's class does the same way over its {@link FamilyDescriptor}:
 * opening a serialized filter, one key (has), many keys (hasAll, a chunk per
 * crossing), toBytes, and the size getters; the full entry's writers (add,
 * addAll, ...) are js/filters/writers.ts's. A family's
 * class keeps only what is its own: its options and their checks, its
 * getters and info(), and the error of a full filter.
 */
import { Key, describe } from '../common/checks.js';
import { ArgumentTypeError } from '../common/errors.js';
import { Answers } from '../common/answers.js';
import { Chunk } from '../common/chunk.js';
import { FamilyDescriptor, KeyOp, familyOf } from '../registry.js';
import { seedFromWords } from '../common/options.js';
import { statusError } from '../common/status.js';
import { UrlFilter } from './url-filter.js';
import type { ReadCore } from '../boundary/read-core.js';
import type { ExportRow, FilterObject, Handle } from '../boundary/core-types.js';
import { checkedBytes } from './filter-bytes.js';
import { checkMade } from './wasm-filter.js';

/** What the core's info() reports for every family (each family's <name>_info.h in src/). */
interface CommonInfo {
  capacity: number;
  seedLow: number;
  seedHigh: number;
  expansion: number;
}

/**
 * What a family's constructor reads of the filter the core made: its info(), once {@link checkMade} has seen that a
 * factory made it.
 * @throws ArgumentTypeError naming the factories when `new` was called on the class in user code.
 * @internal
 */
export function madeInfo<T>(core: ReadCore, object: FilterObject, target: { readonly name: string }): T {
  checkMade(core, target);
  return core.info<T>(object);
}

/** An info() object as JSON can hold it: its bigints (the seed) as decimal strings. */
export type JsonInfo<T> = { [K in keyof T]: T[K] extends bigint ? string : T[K] };

/** What util.inspect shows of a filter (js/filters/family-filter.ts). */
const inspectKey = Symbol.for('nodejs.util.inspect.custom');

/**
 * A filter of one family. Not exported from the package. Its members' TSDoc is
 * CuckooFilter's; BloomFilter gives its own in an interface of the same name.
 */
export abstract class FamilyFilter extends UrlFilter {
  /** Items the filter was sized for (the `capacity` option). */
  readonly capacity: number;
  /** Hash seed (0..2^64-1). */
  readonly seed: bigint;
  /** Growth factor (the `expansion` option); 0 when the filter does not grow. */
  readonly expansion: number;
  /** The family's hot exports. @internal */
  protected readonly fx: ExportRow;

  /** @internal */
  protected constructor(core: ReadCore, object: FilterObject, family: FamilyDescriptor, info: CommonInfo) {
    super(core, object, family.id);
    this.fx = core.exportsOf(family.prefix);
    this.capacity = info.capacity;
    this.seed = seedFromWords(info.seedLow, info.seedHigh);
    this.expansion = info.expansion;
  }

  /**
   * A filter the core made (`made` the filter, or the status that refused a filter of `bytes` bytes; `found`: the
   * family its bytes hold, if another's).
   * @throws the status's error (ArgumentRangeError, OutOfMemoryError, FilterFormatError).
   * @internal
   */
  protected static opened(core: ReadCore, made: FilterObject | number, bytes: number, found = 0): FilterObject {
    if (typeof made !== 'number') return made;
    throw statusError(made, { bytes, detail: core.statusMessage(made), found: found ? familyOf(found) : undefined });
  }

  /**
   * What every `fromBytes` does: checks the bytes (js/filters/wasm-filter.ts
   * checkedBytes), and loads them as a filter of `family`.
   * @internal
   */
  protected static async load(family: FamilyDescriptor, bytes: unknown): Promise<{ core: ReadCore; object: FilterObject }> {
    const { core, view, length } = await checkedBytes(bytes);
    const loaded = core.deserialize(family.id, view);
    const object = 'status' in loaded ? FamilyFilter.opened(core, loaded.status, length, loaded.found) : loaded;
    return { core, object };
  }

  /**
   * The handle, for a call only filters of `family` may make: its exports, or its id given to the core. A method of
   * one family's class called on another family's filter (`CuckooFilter.prototype.count.call(bloom)`) is refused
   * here, before the core would read that filter as one of `family` (a trap or a corrupted filter).
   * @throws ArgumentTypeError if this filter is of another family; FilterDisposedError after dispose().
   * @internal
   */
  protected liveAs(family: FamilyDescriptor): Handle {
    if (this.familyId !== family.id) {
      throw new ArgumentTypeError(
        `a method of ${family.className} was called on a ${familyOf(this.familyId)?.className ?? describe(this)}: ` +
          `call each class's methods on filters of that class`,
      );
    }
    return this.live();
  }

  /**
   * What the core's info() reports of this filter, a filter of `family` (see {@link liveAs}).
   * @internal
   */
  protected infoAs<T>(family: FamilyDescriptor): T {
    this.liveAs(family);
    return this.core.info<T>(this.liveObject());
  }

  /**
   * Tests membership.
   *
   * @returns false if the key was definitely never added (or was deleted); true if it was added,
   *   or, for a non-member, with probability at most {@link falsePositiveRate}.
   * @throws ArgumentTypeError if key is neither a string nor a Uint8Array.
   * @throws FilterDisposedError after dispose().
   * @example
   * ```ts
   * if (f.has(hostname)) { /* check the full list, or block *\/ }
   * ```
   */
  has(key: Key): boolean {
    return this.core.contain(this.fx, this.live(), key);
  }

  /**
   * Tests many keys, crossing into WebAssembly once per chunk of up to 8192 keys (and 32K code units).
   * The answers are those of a loop of `has(k)`, whatever the caller's getters, Proxy or iterator do
   * meanwhile. Given `out`, the answers go into it as bytes and the batch allocates nothing per key
   * (the `boolean[]` it otherwise returns is, for many keys, a large new object); reuse one `out` for
   * batch after batch.
   *
   * @param keys - an iterable or array-like (`length` a non-negative integer, read once) of strings
   *   and Uint8Arrays (any realm), each Uint8Array copied when it is read.
   * @param out - optional: a Uint8Array (any realm, a view of a SharedArrayBuffer too) with at least
   *   one byte per key; `out[i]` becomes 1 if `has(keys[i])`, else 0, and the bytes past the last key
   *   are left as they were. With an iterator, whose length is unknown, a key arriving past the end of
   *   `out` throws ArgumentRangeError before it is looked up. Its length is read again before each
   *   chunk's answers are written, so the caller's code may resize or transfer its buffer mid-batch:
   *   the batch then throws, writing nothing past the end and nothing into a detached buffer. On any
   *   error, `out` may hold the answers of some of the keys before the failing one.
   * @returns without `out`: `result[i] === has(keys[i])`, one boolean per key, a new array. With it: `out`.
   * @throws ArgumentTypeError if `keys` is neither, or any key is neither a string nor a live Uint8Array;
   *   if `out` is not a Uint8Array, or its buffer is (or becomes, mid-batch) detached.
   * @throws ArgumentRangeError if an array-like's `length` is above 2^32 − 1 (more answers than an array
   *   holds); if `out` is shorter than the keys (the message says both lengths), or shrinks mid-batch.
   * @throws FilterDisposedError after dispose(), also when the caller's code disposes it mid-batch.
   * @example
   * ```ts
   * const blocked = f.hasAll(links.map((a) => new URL(a.href).hostname));
   * const answers = new Uint8Array(65536); // reused: one byte per key
   * for (const part of parts) f.hasAll(part, answers); // answers[i] === 1: part[i] may be in the filter
   * ```
   */
  hasAll(keys: Iterable<Key> | ArrayLike<Key>, out?: undefined): boolean[];
  hasAll<Out extends Uint8Array>(keys: Iterable<Key> | ArrayLike<Key>, out: Out): Out;
  hasAll(keys: Iterable<Key> | ArrayLike<Key>, out?: Uint8Array): boolean[] | Uint8Array {
    return this.containKeys(keys, undefined, out);
  }

  /**
   * Serializes the filter (docs/FORMAT.md): little-endian, versioned, checksummed.
   * The same keys, order and options give byte-identical output on every machine.
   *
   * @returns a new Uint8Array of {@link byteLength} bytes that the caller owns.
   * @throws FilterDisposedError after dispose().
   * @example
   * ```ts
   * fs.writeFileSync('blocklist.cuckoo', f.toBytes());
   * ```
   */
  toBytes(): Uint8Array {
    return this.core.serialize(this.fx, this.liveObject());
  }

  /**
   * Size of `toBytes()` output, in bytes (docs/FORMAT.md §14, version 4): a
   * 32-byte header naming the family, its table encoding and growth, each
   * sub-filter's section, an 8-byte checksum; it grows with the filter. A
   * filter loaded from bytes of an earlier version writes that version, whose
   * header differs (FORMAT.md §2, §11).
   */
  get byteLength(): number {
    return this.core.serializedSize(this.fx, this.live());
  }

  /** Number of sub-filters: 1, more once a growing filter has grown. */
  get subFilterCount(): number {
    return this.core.subFilterCount(this.fx, this.live());
  }

  /** Items in the filter (each family says how it counts them). */
  abstract get size(): number;

  /** The filter's statistics as one plain object. */
  abstract info(): object;

  /**
   * What `JSON.stringify(filter)` writes: {@link info}, its bigints (the seed) as decimal strings; after
   * {@link dispose}, `{ disposed: true }`.
   */
  toJSON(): JsonInfo<ReturnType<this['info']>> | { disposed: true } {
    if (this.disposed) return { disposed: true };
    const info = this.info() as Record<string, unknown>;
    for (const k in info) if (typeof info[k] === 'bigint') info[k] = String(info[k]);
    return info as JsonInfo<ReturnType<this['info']>>;
  }

  /**
   * What `console.log(filter)` and `util.inspect` show in Node.js: one line with the class, its items, its bytes
   * and its false-positive rate, rather than the module's internals.
   */
  [inspectKey](): string {
    const name = familyOf(this.familyId)?.className ?? 'filter';
    if (this.disposed) return `${name} <disposed>`;
    return `${name} { size: ${this.size}, byteLength: ${this.byteLength}, falsePositiveRate: ${this.falsePositiveRate} }`;
  }

  /** @internal */
  protected containChunk(handle: Handle, chunk: Chunk, out: Answers, at: number): number {
    return this.core.containBatch(this.fx, handle, chunk, out, at);
  }
}
