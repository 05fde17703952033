/**
 * The cuckoo filter as the reader (`cuckoo-wasm/reader`) has it: loaded from bytes, looked up, patched,
 * serialized and described. The full entry's CuckooFilter (js/filters/cuckoo-filter.ts) extends it with creation
 * and the writers.
 */
import { named } from '../../common/named.js';
import { Key } from '../../common/checks.js';
import { CUCKOO, keyOpOf, type TableEncoding } from '../../registry.js';
import { FamilyFilter, madeInfo } from '../family-filter.js';
import { encodingName } from '../table-encoding.js';
import type { ReadCore } from '../../boundary/read-core.js';
import type { FilterObject } from '../../boundary/core-types.js';
import { bitsPerItemOf } from '../filter-bytes.js';

const COUNT = keyOpOf(CUCKOO, 'count');

/** Parameters of one cuckoo filter (those of sub-filter 0) and its sub-filters, as the core reports them. @internal */
export interface CoreInfo {
  capacity: number;
  bucketCount: number;
  fingerprintBits: number;
  bucketSize: number;
  maxKicks: number;
  /** A cuckoo::TableEncoding, as are the sub-filters'. */
  encoding: number;
  /** The rate it was sized for (src/growth/sizing.h CuckooSizedRate). */
  falsePositiveRate: number;
  seedLow: number;
  seedHigh: number;
  expansion: number;
  serializedSize: number;
  subFilters: (Omit<CuckooSubFilterInfo, 'encoding'> & { encoding: number })[];
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
  /** How the buckets are stored: `'semi-sorted'` (the full entry's `semiSort` option of `create`), or `'packed'`. */
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

/**
 * A cuckoo filter (Fan et al., CoNEXT 2014: f-bit fingerprints in buckets of b slots, partial-key cuckoo hashing,
 * ε ≤ 2b/2^f per sub-filter), either table encoding, growing as a stack of sub-filters, loaded read-only from the
 * bytes `toBytes()` or the CLI wrote (docs/FORMAT.md). It is `cuckoo-wasm`'s `CuckooFilter` without creation and
 * the writers: every member here answers as that class's does, for the same bytes.
 */
export class CuckooFilter extends FamilyFilter {
  static {
    named(this, CUCKOO.className);
  }

  /** Fingerprint size f, in bits (4..32). */
  readonly fingerprintBits: number;
  /** Slots per bucket b (2, 4 or 8). */
  readonly bucketSize: number;
  /** Number of buckets m (not a power of two in general). */
  readonly bucketCount: number;
  /** Maximum evictions per insert. */
  readonly maxKicks: number;
  /** How the buckets are stored: `'packed'`, or `'semi-sorted'` (the full entry's `semiSort` option of `create`). */
  readonly encoding: TableEncoding;
  /** The rate the core reports it was sized for (see {@link falsePositiveRate}). */
  private readonly sizedRate: number;

  /** @internal */
  protected constructor(core: ReadCore, object: FilterObject, info = madeInfo<CoreInfo>(core, object, new.target)) {
    super(core, object, CUCKOO, info);
    this.fingerprintBits = info.fingerprintBits;
    this.bucketSize = info.bucketSize;
    this.bucketCount = info.bucketCount;
    this.maxKicks = info.maxKicks;
    this.encoding = encodingName(info.encoding);
    this.sizedRate = info.falsePositiveRate;
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
    return new CuckooFilter(core, object);
  }

  /**
   * Counts the stored fingerprints matching the key (in both its buckets and the victim slot). Where the key's two
   * buckets are the same bucket, its matches there count once, so the count is the key's copies (plus those of keys
   * that share its fingerprint and buckets). RedisCuckooFilter.count counts as the server's `CF.COUNT` does instead:
   * such a bucket twice.
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
    return this.core.keyOp(COUNT, this.liveAs(CUCKOO), key);
  }

  /** Stored fingerprints (keys added minus keys deleted, duplicates counted), victim included. */
  get size(): number {
    return this.core.size(this.fx, this.live());
  }

  /** Fraction of the m·b slots that hold a fingerprint (the paper's α), in [0, 1]. */
  get loadFactor(): number {
    return this.core.loadFactor(this.liveAs(CUCKOO));
  }

  /**
   * The false-positive rate this filter was sized for: the paper's figure 2b / 2^f
   * at full load (Fan et al. 2014 §5.1), a probability. Counting that fingerprints
   * take 2^f − 1 values and the victim slot is compared too, the exact worst case
   * is 1 − (1 − 1/(2^f − 1))^(2b+1), slightly higher for small f (0.110% instead of
   * 0.098% at f = 13, b = 4). For a growing filter, twice the first sub-filter's
   * figure: the bound summed over every sub-filter it may add (sub-filter j has f + j bits). The core computes it
   * (src/growth/sizing.h CuckooSizedRate). See {@link expectedFalsePositiveRate} for the current load.
   */
  get falsePositiveRate(): number {
    return this.sizedRate;
  }

  /**
   * False-positive rate expected at the current load, a probability: for each
   * sub-filter, 1 − (1 − 1/(2^f − 1))^(2bα + v), the chance that one of the 2b·α
   * fingerprints a lookup compares (plus the victim, which is compared only when
   * its bucket is one of the lookup's two: v = min(1, 2/m) when it is in use,
   * docs/FORMAT.md §5.3) matches; a lookup misses only if it misses in every sub-filter.
   */
  get expectedFalsePositiveRate(): number {
    return this.expectedRateOf(this.infoAs<CoreInfo>(CUCKOO));
  }

  /** @internal */
  protected expectedRateOf(info: CoreInfo): number {
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
    return bitsPerItemOf(this.infoAs<CoreInfo>(CUCKOO));
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
    const info = this.infoAs<CoreInfo>(CUCKOO);
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
}
