import { named } from '../common/named.js';
import { Key, describe } from '../common/checks.js';
import { ArgumentRangeError, ArgumentTypeError, FilterFullError } from '../common/errors.js';
import { CUCKOO, ENCODINGS, keyOpOf } from '../registry.js';
import { FamilyFilter } from './family-filter.js';
import { CuckooFilter as CuckooFilterReader, type CoreInfo } from './read/cuckoo-filter.js';
import { installWriters, type Writers } from './writers.js';
import { loadFullCore } from '../boundary/load.js';
import { capacityTooLarge, checkInteger, checkOptions, seedWords, toCapacity, toExpansion, toFalsePositiveRate, toSeed } from '../common/options.js';
import { MAX_WASM_MEMORY, Status, statusError } from '../common/status.js';
import { encodingName, toEncoding } from './table-encoding.js';
import type { Core } from '../boundary/wasm-core.js';
import type { FilterObject } from '../boundary/core-types.js';
import { bitsPerItemOf } from './filter-bytes.js';


export type { CuckooFilterInfo, CuckooSubFilterInfo } from './read/cuckoo-filter.js';

const DELETE = keyOpOf(CUCKOO, 'delete');

/** Options of {@link CuckooFilter.create}. */
export interface CuckooFilterOptions {
  /**
   * Items the filter must hold (an integer >= 1). The table is sized so that
   * `capacity` inserts succeed: about capacity / 0.96 slots for b = 4
   * (0.84 for b = 2, 0.98 for b = 8), never rounded up to a power of two.
   */
  capacity: number;
  /**
   * Target false-positive rate ε, a probability in (0, 1). Default 0.001.
   * Picks the smallest fingerprint size f with 2b / 2^f <= ε (Fan et al. 2014 §5.1).
   * Give this or `fingerprintBits`, not both.
   */
  falsePositiveRate?: number | undefined;
  /**
   * Fingerprint size f in bits, an integer 4..32, instead of `falsePositiveRate`.
   * Very small fingerprints limit where partial-key cuckoo hashing can move an
   * entry (Fan et al. 2014 §4): with f = 4 and bucketSize 2, a filter may fill
   * well before `capacity` (add then throws FilterFullError, losing nothing).
   */
  fingerprintBits?: number | undefined;
  /** Slots per bucket b: 2, 4 or 8. Default 4 (the paper's recommendation for ε > 0.002%). */
  bucketSize?: 2 | 4 | 8 | undefined;
  /** Evictions ("kicks") tried per insert before the filter reports full: an integer 0..1,000,000. Default 500. */
  maxKicks?: number | undefined;
  /**
   * Hash seed, an integer 0..2^64-1 (number up to 2^53-1, or bigint). Default fixed,
   * so the same keys and options give byte-identical `toBytes()` everywhere.
   */
  seed?: number | bigint | undefined;
  /**
   * Growth factor e, an integer 2..1024: when the filter is full, a sub-filter
   * e times larger (in buckets, with one more fingerprint bit) is added and
   * takes the new keys; lookups, deletes and counts cover all sub-filters.
   * The total false-positive rate stays at most `falsePositiveRate` however
   * far the filter grows: sub-filter j is sized for ε/2^(j+1) (Almeida et al.,
   * "Scalable Bloom Filters", 2007), so the first costs one more bit per
   * item than a filter that does not grow. Default: no growth (add throws
   * FilterFullError when full). At most 32 sub-filters and 1 GiB in all. A
   * key is still stored at most 2b + 1 times per sub-filter: adding it again once
   * its copies fill its two buckets throws FilterFullError rather than growing.
   */
  expansion?: number | undefined;
  /**
   * Semi-sorted buckets (Fan et al. 2014 §5.2): each bucket's four
   * fingerprints are kept sorted by their 4-bit prefixes, and the four
   * prefixes are stored as one 12-bit index into the 3,876 sorted 4-tuples
   * instead of 16 bits, so the table takes one bit per item less (12.5 bits
   * per item instead of 13.6 at ε = 0.1%) with the same fingerprints and
   * false-positive rate: the cuckoo filter is then smaller than a Bloom filter
   * from ε = 1% down. `bucketSize` 4 only (true with 2 or 8 is an
   * ArgumentRangeError). Lookups decode the buckets they read: has, hasAll and
   * hasUrl run 3–6% slower than with bit-packed buckets; add about 20–25%
   * slower and fromBytes about 3× longer (it checks every bucket), as the
   * README's "Semi-sorted buckets" measures. Default: true for `bucketSize` 4
   * (false for 2 and 8); give false for the bit-packed table. `info().encoding`
   * says which table a filter has; `fromBytes` reads either from the bytes.
   */
  semiSort?: boolean | undefined;
}

const DEFAULT_FPR = 0.001;
const DEFAULT_BUCKET_SIZE = 4;
const DEFAULT_MAX_KICKS = 500;
/** Most evictions per insert the core accepts (cuckoo::kMaxMaxKicks, src/cuckoo/cuckoo_params.h). @internal */
export const MAX_MAX_KICKS = 1_000_000;

/**
 * The lowest false-positive rate a filter with `bucketSize` slots per bucket (growing when `expansion` is not 0) can
 * be sized for, a probability: the bound 2b/2^f at f = 32 (Fan et al. 2014 §5.1), twice that for a growing filter,
 * as the core sizes it (src/growth/sizing.h).
 * @internal
 */
export async function lowestFalsePositiveRate(bucketSize: number, expansion: number): Promise<number> {
  return (await loadFullCore()).sizeCuckoo(1, 0.5, 0, bucketSize, expansion, ENCODINGS.packed.id, MAX_WASM_MEMORY / 2).lowestRate;
}

/**
 * A cuckoo filter: a compact set of keys that answers "possibly present" or
 * "definitely absent", with deletion. Partial-key cuckoo hashing as in Fan,
 * Andersen, Kaminsky and Mitzenmacher, "Cuckoo Filter: Practically Better Than
 * Bloom" (CoNEXT 2014): each key is stored as an f-bit fingerprint in one of
 * two buckets of b slots; the false-positive rate is at most 2b / 2^f and a
 * key that was added (and not deleted) is always found.
 *
 * Keys are strings (hashed as their UTF-8 bytes, so `'é'` and
 * `new TextEncoder().encode('é')` are the same key; a lone UTF-16 surrogate is
 * encoded as U+FFFD, as `TextEncoder` does) or `Uint8Array`s.
 *
 * The filter lives in WebAssembly memory: call {@link CuckooFilter.dispose}
 * (or `using f = ...`) when done. Byte format: docs/FORMAT.md.
 *
 * @example
 * ```ts
 * const f = await CuckooFilter.create({ capacity: 1_000_000, falsePositiveRate: 0.001 });
 * f.add('phish.example');
 * f.has('phish.example'); // true
 * f.has('example.org');   // false (or, with probability <= 0.1%, true)
 * const bytes = f.toBytes();
 * const g = await CuckooFilter.fromBytes(bytes);
 * f.dispose(); g.dispose();
 * ```
 */
export class CuckooFilter extends CuckooFilterReader {
  /** @internal */
  protected constructor(core: Core, object: FilterObject, info?: CoreInfo) {
    super(core, object, info);
  }

  static {
    named(this, CUCKOO.className);
    installWriters(this);
  }

  /**
   * Makes an empty filter sized for `options.capacity` items.
   *
   * @returns a promise of the filter (the WebAssembly module is loaded on first use).
   * @throws ArgumentTypeError if options is not an object, has an option not listed in
   *   {@link CuckooFilterOptions}, or an option has the wrong type, or both `falsePositiveRate`
   *   and `fingerprintBits` are given.
   * @throws ArgumentRangeError if capacity is not an integer >= 1, ε is not in (0, 1),
   *   fingerprintBits is not 4..32, bucketSize is not 2, 4 or 8, maxKicks is not 0..1,000,000,
   *   semiSort is true with a bucketSize other than 4, or the filter would need more than 1 GiB (half the 2 GiB WebAssembly memory limit).
   * @throws OutOfMemoryError if WebAssembly memory cannot hold the table now (other filters use it,
   *   or the browser allows less); filters made before keep working.
   * @throws WasmLoadError if the WebAssembly module cannot be loaded (e.g. a CSP without 'wasm-unsafe-eval').
   * @example
   * ```ts
   * const f = await CuckooFilter.create({ capacity: 50_000, falsePositiveRate: 0.01 });
   * ```
   */
  static async create(options: CuckooFilterOptions): Promise<CuckooFilter> {
    checkOptions(options, CUCKOO);
    const expansion = toExpansion(options.expansion);
    const capacity = toCapacity(options.capacity);
    const bucketSize = options.bucketSize === undefined ? DEFAULT_BUCKET_SIZE : options.bucketSize;
    if (typeof bucketSize !== 'number') {
      throw new ArgumentTypeError(`bucketSize must be 2, 4 or 8, got ${describe(bucketSize)}`);
    }
    if (bucketSize !== 2 && bucketSize !== 4 && bucketSize !== 8) {
      throw new ArgumentRangeError(`bucketSize must be 2, 4 or 8, got ${bucketSize}`);
    }
    let fingerprintBits: number | undefined;
    let fpr = 0;
    if (options.fingerprintBits !== undefined) {
      if (options.falsePositiveRate !== undefined) {
        throw new ArgumentTypeError('give falsePositiveRate or fingerprintBits, not both');
      }
      fingerprintBits = checkInteger('fingerprintBits', options.fingerprintBits, 4, 32);
    } else {
      fpr = toFalsePositiveRate(options.falsePositiveRate, DEFAULT_FPR);
    }
    const maxKicks =
      options.maxKicks === undefined ? DEFAULT_MAX_KICKS : checkInteger('maxKicks', options.maxKicks, 0, MAX_MAX_KICKS);
    const seed = toSeed(options.seed);
    const encoding = toEncoding(options.semiSort, bucketSize);

    const core = await loadFullCore();
    // The core sizes by ε in one call (src/growth/sizing.h): a filter that grows spends half of ε on its first
    // sub-filter; past the memory bound it also finds the most keys that fit.
    const size = core.sizeCuckoo(capacity, fpr, fingerprintBits ?? 0, bucketSize, expansion, encoding, MAX_WASM_MEMORY / 2);
    if (size.fingerprintBits === 0) {
      throw new ArgumentRangeError(
        `falsePositiveRate ${fpr} is below what 32-bit fingerprints give with bucketSize ${bucketSize}` +
          `${expansion ? ' in a filter that grows' : ''}: the smallest is ${expansion ? '2 × ' : ''}2b/2^32 = ${size.lowestRate}`,
      );
    }
    const bits = size.fingerprintBits;
    if (size.bytes <= 0 || size.bytes > MAX_WASM_MEMORY / 2) {
      throw capacityTooLarge(capacity, size, `${bits}-bit fingerprints and bucketSize ${bucketSize}`, 'shorter fingerprints');
    }
    const made = core.create(CUCKOO.id, { capacity, fingerprintBits: bits, bucketSize, maxKicks, seed: seedWords(seed), expansion, encoding });
    return new CuckooFilter(core, FamilyFilter.opened(core, made, size.bytes));
  }

  /**
   * Loads a filter from bytes produced by {@link CuckooFilter.toBytes} (docs/FORMAT.md).
   * Every header field, the checksum, the padding and the item count are checked first.
   *
   * @param bytes - the serialized filter (a Uint8Array, any view offset, or an ArrayBuffer). Not retained.
   * @throws FilterFormatError if the bytes are not a filter this version wrote (its `reason` says which check failed).
   * @throws ArgumentTypeError if `bytes` is neither a Uint8Array nor an ArrayBuffer (of any realm), or its buffer is detached.
   * @throws ArgumentRangeError if the bytes are longer than any filter this build can hold (1 GiB).
   * @throws OutOfMemoryError if WebAssembly memory cannot hold the table now; filters made before keep working.
   * @throws WasmLoadError if the WebAssembly module cannot be loaded.
   * @example
   * ```ts
   * const bytes = new Uint8Array(await (await fetch('/blocklist.cuckoo')).arrayBuffer());
   * const f = await CuckooFilter.fromBytes(bytes);
   * ```
   */
  static async fromBytes(bytes: Uint8Array | ArrayBuffer): Promise<CuckooFilter> {
    const { core, object } = await FamilyFilter.load(CUCKOO, bytes);
    return new CuckooFilter(core as Core, object);
  }

  /**
   * Adds the key only if {@link has} is false for it (Redis's `CF.ADDNX`).
   *
   * Caveat: a key that is a false positive is not added, so deleting it later
   * removes the fingerprint of the key it collides with, which that key then
   * loses. Use `addUnique` only for sets whose keys are never deleted, or use
   * {@link add} (and {@link count}) when keys are deleted.
   *
   * @returns true if the key was added, false if `has(key)` was already true.
   * @throws FilterFullError, ArgumentTypeError, FilterDisposedError as {@link add}.
   * @example
   * ```ts
   * if (f.addUnique(url)) newlyListed++;
   * ```
   */
  addUnique(key: Key): boolean {
    if (this.has(key)) return false;
    this.add(key);
    return true;
  }

  /**
   * Removes one stored fingerprint matching the key.
   *
   * Only delete keys that were added: deleting a key that was never added may
   * remove the fingerprint of a different key that shares it (a false positive),
   * which that key then loses (Fan et al. 2014 §3.3).
   *
   * @returns true if a matching fingerprint was removed, false if there was none.
   * @throws ArgumentTypeError if key is neither a string nor a Uint8Array.
   * @throws FilterDisposedError after dispose().
   * @example
   * ```ts
   * f.delete('cleaned-site.example');
   * ```
   */
  delete(key: Key): boolean {
    return this.core.keyOp(DELETE, this.liveAs(CUCKOO), key) === 1;
  }

  /** The error of an add that failed with `status` after `added` keys of its batch went in. @internal */
  protected fullError(status: number, added: number): Error {
    if (status === Status.GrowthLimit || status === Status.OutOfMemory) {
      const bytes = this.byteLength;
      return statusError(status, {
        growth: { subFilters: this.subFilterCount, bytes, added },
        bytes: bytes * Math.max(this.expansion, 1),
      });
    }
    if (this.expansion !== 0) {
      // A growing filter refuses only a key whose copies fill its two buckets (src/growth/scalable_filter.h).
      const b = this.bucketSize;
      return new FilterFullError(
        `the key's two buckets and the victim slot hold copies of its fingerprint (a key added more than 2b + 1 = ${2 * b + 1} times, ` +
          'or keys that share its fingerprint): the key was not added and nothing stored was lost. ' +
          'A growing filter does not grow for copies of one key, as every larger sub-filter would fill the same way; ' +
          'add each key once (see addUnique), or count repeats outside the filter.',
        added,
      );
    }
    if (this.maxKicks < DEFAULT_MAX_KICKS && this.size < this.capacity) {
      // The table is sized for `capacity` inserts with 500 kicks (src/cuckoo/cuckoo_filter.cc): fewer fill it sooner.
      const slots = this.bucketCount * this.bucketSize;
      const why = this.maxKicks === 0 ? 'no stored fingerprint may move to its alternate bucket' : `at most ${this.maxKicks} stored fingerprints may move to make room`;
      return new FilterFullError(
        `the filter is full below its capacity (${this.size} fingerprints in ${slots} slots, load factor ${(this.size / slots).toFixed(2)}, ` +
          `capacity ${this.capacity}) because maxKicks is ${this.maxKicks}: ${why}; the key was not added and nothing stored was lost. ` +
          `Create the filter with a larger maxKicks (the table holds its capacity with the default, ${DEFAULT_MAX_KICKS}), not a larger capacity.`,
        added,
      );
    }
    return statusError(Status.NotEnoughSpace, {
      full: {
        size: this.size,
        slots: this.bucketCount * this.bucketSize,
        capacity: this.capacity,
        maxKicks: this.maxKicks,
        added,
      },
    });
  }
}

/** The writers every family's class of the full entry has (js/filters/writers.ts). */
export interface CuckooFilter extends Writers {}

/** WebAssembly memory figures of {@link wasmMemoryUsage}, in bytes. */
export interface WasmMemoryUsage {
  /** Size of the module's linear memory: grows on demand, never shrinks (at most 2 GiB). */
  heapBytes: number;
  /**
   * Bytes asked for by the allocations in use in it: filters, their tables, and the library's
   * scratch buffers (bindings/allocator.cc counts them exactly; the allocator's own block headers
   * and alignment are not included). Back to the same number after a filter is created and disposed, once its
   * family has been used: the first filter of each family registers its class, which keeps a few hundred bytes.
   */
  allocatedBytes: number;
}

/**
 * Reports how much WebAssembly memory the filters of this realm use. Every
 * filter's table is allocated there until `dispose()` (or garbage collection,
 * via a `FinalizationRegistry`) frees it.
 *
 * @returns `{ heapBytes, allocatedBytes }`, in bytes.
 * @throws WasmLoadError if the module cannot be loaded (for example under a CSP without 'wasm-unsafe-eval').
 * @example
 * ```ts
 * const before = (await wasmMemoryUsage()).allocatedBytes;
 * const f = await CuckooFilter.create({ capacity: 1e6 });
 * (await wasmMemoryUsage()).allocatedBytes - before; // ≈ f.byteLength
 * ```
 */
export async function wasmMemoryUsage(): Promise<WasmMemoryUsage> {
  return (await loadFullCore()).memoryUsage();
}
