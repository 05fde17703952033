import { Key, describe } from '../common/checks.js';
import { ArgumentRangeError, ArgumentTypeError, FilterFullError } from '../common/errors.js';
import { CUCKOO, keyOpOf } from '../registry.js';
import { FamilyFilter } from './family-filter.js';
import { loadCore } from '../boundary/load.js';
import { capacityTooLarge, checkInteger, checkOptions, checkProbability, toExpansion, toSeed } from '../common/options.js';
import { MAX_WASM_MEMORY, Status, statusError } from '../common/status.js';
import { TableEncoding, encodingName, toEncoding } from './table-encoding.js';
import { Core, Handle } from '../boundary/wasm-core.js';
import { bitsPerItemOf } from './filter-bytes.js';

const COUNT = keyOpOf(CUCKOO, 'count');
const DELETE = keyOpOf(CUCKOO, 'delete');

/** Parameters of one cuckoo filter (those of sub-filter 0) and its sub-filters, as the core reports them. */
interface CoreInfo {
  capacity: number;
  bucketCount: number;
  fingerprintBits: number;
  bucketSize: number;
  maxKicks: number;
  /** A cuckoo::TableEncoding, as are the sub-filters'. */
  encoding: number;
  seedLow: number;
  seedHigh: number;
  expansion: number;
  serializedSize: number;
  subFilters: (Omit<CuckooSubFilterInfo, 'encoding'> & { encoding: number })[];
}

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

/** One sub-filter of a {@link CuckooFilter}, as {@link CuckooFilter.info} reports it. */
export interface CuckooSubFilterInfo {
  /** Items it was sized for. */
  capacity: number;
  /** Buckets m. */
  bucketCount: number;
  /** Fingerprint size f, in bits. */
  fingerprintBits: number;
  /** How its buckets are stored (the same in every sub-filter). */
  encoding: TableEncoding;
  /** Stored fingerprints, victim included. */
  size: number;
  /** Fraction of its slots in use (victim excluded). */
  loadFactor: number;
  /** True if its victim slot holds a fingerprint. */
  victim: boolean;
  /** Its serialized bytes. */
  byteLength: number;
}

/** Statistics of a {@link CuckooFilter} as one plain object (Redis's `CF.INFO`). */
export interface CuckooFilterInfo {
  /** The family: always `'cuckoo'` here (`'bloom'` in {@link BloomFilterInfo}). */
  type: 'cuckoo';
  /** The `capacity` option: items the first sub-filter was sized for. */
  capacity: number;
  /** Stored fingerprints in all sub-filters. */
  size: number;
  /** Slots per bucket b (2, 4 or 8), as {@link CuckooFilter.bucketSize}. */
  bucketSize: number;
  /** How the buckets are stored: `'semi-sorted'` ({@link CuckooFilterOptions.semiSort}), or `'packed'`. */
  encoding: TableEncoding;
  /** Most evictions ("kicks") one insert may make, as {@link CuckooFilter.maxKicks}. */
  maxKicks: number;
  /** Key-hash seed (0..2^64-1), as {@link CuckooFilter.seed}. */
  seed: bigint;
  /** Growth factor; 0 when the filter does not grow. */
  expansion: number;
  /** Serialized size, bytes. */
  byteLength: number;
  /** Serialized bits per item of capacity (of all sub-filters for a grown filter), as {@link CuckooFilter.bitsPerItem}. */
  bitsPerItem: number;
  /** Fraction of the slots holding a fingerprint (the paper's α), in [0, 1], as {@link CuckooFilter.loadFactor}. */
  loadFactor: number;
  /** The bound on a non-member's false-positive probability, 2b/2^f per sub-filter, as {@link CuckooFilter.falsePositiveRate}. */
  falsePositiveRate: number;
  /** The false-positive probability expected at the current load, as {@link CuckooFilter.expectedFalsePositiveRate}. */
  expectedFalsePositiveRate: number;
  /** Oldest first. */
  subFilters: CuckooSubFilterInfo[];
}

const DEFAULT_FPR = 0.001;
const DEFAULT_BUCKET_SIZE = 4;
const DEFAULT_MAX_KICKS = 500;
/** Most evictions per insert the core accepts (cuckoo::kMaxMaxKicks, src/cuckoo/cuckoo_params.h). @internal */
export const MAX_MAX_KICKS = 1_000_000;

/**
 * The lowest false-positive rate a filter with `bucketSize` slots per bucket
 * can be sized for: the bound 2b/2^f at f = 32 (Fan et al. 2014 §5.1), a probability.
 * @internal
 */
export function lowestFalsePositiveRate(bucketSize: number): number {
  return (2 * bucketSize) / 2 ** 32;
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
export class CuckooFilter extends FamilyFilter {
  /** Fingerprint size f, in bits (4..32). */
  readonly fingerprintBits: number;
  /** Slots per bucket b (2, 4 or 8). */
  readonly bucketSize: number;
  /** Number of buckets m (not a power of two in general). */
  readonly bucketCount: number;
  /** Maximum evictions per insert. */
  readonly maxKicks: number;
  /** How the buckets are stored: `'packed'`, or `'semi-sorted'` ({@link CuckooFilterOptions.semiSort}). */
  readonly encoding: TableEncoding;
  private constructor(core: Core, handle: Handle, info = core.info<CoreInfo>(CUCKOO.id, handle)) {
    super(core, handle, CUCKOO, info);
    this.fingerprintBits = info.fingerprintBits;
    this.bucketSize = info.bucketSize;
    this.bucketCount = info.bucketCount;
    this.maxKicks = info.maxKicks;
    this.encoding = encodingName(info.encoding);
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
    checkOptions(options, 'CuckooFilter.create', CUCKOO.options);
    const expansion = toExpansion(options.expansion);
    const capacity = checkInteger('capacity', options.capacity, 1, Number.MAX_SAFE_INTEGER);
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
      fpr = checkProbability(
        'falsePositiveRate',
        options.falsePositiveRate === undefined ? DEFAULT_FPR : options.falsePositiveRate,
      );
    }
    const maxKicks =
      options.maxKicks === undefined ? DEFAULT_MAX_KICKS : checkInteger('maxKicks', options.maxKicks, 0, MAX_MAX_KICKS);
    const seed = toSeed(options.seed);
    const encoding = toEncoding(options.semiSort, bucketSize);

    const core = await loadCore();
    if (fingerprintBits === undefined) {
      // The core sizes by ε (src/growth/sizing.h): a filter that grows spends half of ε on its first sub-filter.
      const rate = core.cold.firstSubFilterRate(fpr, expansion);
      fingerprintBits = core.cold.fingerprintBitsFor(rate, bucketSize);
      if (fingerprintBits < 0) {
        throw new ArgumentRangeError(
          `falsePositiveRate ${rate} is below what 32-bit fingerprints give with bucketSize ${bucketSize}: ` +
            `the smallest is 2b/2^32 = ${lowestFalsePositiveRate(bucketSize)}`,
        );
      }
    }
    const sizeFor = (n: number) => core.cold.cuckooSerializedSizeFor(n, fingerprintBits!, bucketSize, expansion, encoding);
    const bytes = sizeFor(capacity);
    if (bytes <= 0 || bytes > MAX_WASM_MEMORY / 2) {
      throw capacityTooLarge(capacity, sizeFor, `${fingerprintBits}-bit fingerprints and bucketSize ${bucketSize}`, 'shorter fingerprints');
    }
    const r = core.cuckooCreate(capacity, fingerprintBits, bucketSize, maxKicks, seed, expansion, encoding);
    return new CuckooFilter(core, FamilyFilter.opened(core, r, bytes));
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
    const { core, handle } = await FamilyFilter.load(CUCKOO, bytes);
    return new CuckooFilter(core, handle);
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
    return this.core.keyOp(DELETE, this.live(), key) === 1;
  }

  /**
   * Counts the stored fingerprints matching the key (in both its buckets and the victim slot).
   *
   * @returns an integer >= the number of times the key was added and not deleted
   *   (higher when other keys share its fingerprint and bucket).
   * @throws ArgumentTypeError if key is neither a string nor a Uint8Array.
   * @throws FilterDisposedError after dispose().
   * @example
   * ```ts
   * f.add('a').add('a'); f.count('a'); // 2
   * ```
   */
  count(key: Key): number {
    return this.core.keyOp(COUNT, this.live(), key);
  }

  /** Stored fingerprints (keys added minus keys deleted, duplicates counted), victim included. */
  get size(): number {
    return this.core.size(this.fx, this.live());
  }

  /** Fraction of the m·b slots that hold a fingerprint (the paper's α), in [0, 1]. */
  get loadFactor(): number {
    return this.core.loadFactor(this.live());
  }

  /**
   * The false-positive rate this filter was sized for: the paper's figure 2b / 2^f
   * at full load (Fan et al. 2014 §5.1), a probability. Counting that fingerprints
   * take 2^f − 1 values and the victim slot is compared too, the exact worst case
   * is 1 − (1 − 1/(2^f − 1))^(2b+1), slightly higher for small f (0.110% instead of
   * 0.098% at f = 13, b = 4). For a growing filter, twice the first sub-filter's
   * figure: the bound summed over every sub-filter it may add. See
   * {@link expectedFalsePositiveRate} for the current load.
   */
  get falsePositiveRate(): number {
    const first = (2 * this.bucketSize) / 2 ** this.fingerprintBits;
    // Growing: sub-filter j has f + j bits, and the sum over all j is 2 × the first's.
    return this.expansion === 0 ? first : 2 * first;
  }

  /**
   * False-positive rate expected at the current load, a probability: for each
   * sub-filter, 1 − (1 − 1/(2^f − 1))^(2bα + v), the chance that one of the 2b·α
   * fingerprints a lookup compares (plus the victim, which is compared only when
   * its bucket is one of the lookup's two: v = min(1, 2/m) when it is in use,
   * docs/FORMAT.md §5.3) matches; a lookup misses only if it misses in every sub-filter.
   */
  get expectedFalsePositiveRate(): number {
    return this.expectedRateOf(this.core.info<CoreInfo>(CUCKOO.id, this.live()));
  }

  /** {@link expectedFalsePositiveRate} from a core report. */
  private expectedRateOf(info: CoreInfo): number {
    let none = 1;
    for (const sub of info.subFilters) {
      const victim = sub.victim ? Math.min(1, 2 / sub.bucketCount) : 0;
      const compared = 2 * this.bucketSize * sub.loadFactor + victim;
      none *= (1 - 1 / (2 ** sub.fingerprintBits - 1)) ** compared;
    }
    return 1 - none;
  }

  /**
   * Serialized bits per item of capacity: byteLength · 8 / capacity, where a
   * grown filter's capacity is that of all its sub-filters.
   */
  get bitsPerItem(): number {
    return bitsPerItemOf(this.core.info<CoreInfo>(CUCKOO.id, this.live()));
  }

  /**
   * The filter's parameters and statistics, and those of each sub-filter, as
   * one plain object (like Redis's `CF.INFO`).
   * @throws FilterDisposedError after dispose().
   * @example
   * ```ts
   * console.log(f.info()); // { type: 'cuckoo', capacity: 1000, size: 3, ..., subFilters: [{ ... }] }
   * ```
   */
  info(): CuckooFilterInfo {
    const info = this.core.info<CoreInfo>(CUCKOO.id, this.live());
    return {
      type: 'cuckoo',
      capacity: this.capacity,
      size: this.size,
      bucketSize: this.bucketSize,
      encoding: this.encoding,
      maxKicks: this.maxKicks,
      seed: this.seed,
      expansion: this.expansion,
      byteLength: info.serializedSize,
      bitsPerItem: bitsPerItemOf(info),
      loadFactor: this.loadFactor,
      falsePositiveRate: this.falsePositiveRate,
      expectedFalsePositiveRate: this.expectedRateOf(info),
      subFilters: info.subFilters.map((sub) => ({ ...sub, encoding: encodingName(sub.encoding) })),
    };
  }

  /** @internal */
  protected fullError(added: number): Error {
    const status = this.lastFailure;
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

/** WebAssembly memory figures of {@link wasmMemoryUsage}, in bytes. */
export interface WasmMemoryUsage {
  /** Size of the module's linear memory: grows on demand, never shrinks (at most 2 GiB). */
  heapBytes: number;
  /**
   * Bytes asked for by the allocations in use in it: filters, their tables, and the library's
   * scratch buffers (bindings/allocator.cc counts them exactly; the allocator's own block headers
   * and alignment are not included). Back to the same number after a filter is created and disposed.
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
  return (await loadCore()).memoryUsage();
}
