/**
 * The Bloom filter as the reader (`cuckoo-wasm/reader`) has it: loaded from bytes, looked up, patched, serialized
 * and described. The full entry's BloomFilter (js/filters/bloom-filter.ts) extends it with creation, union and the
 * writers.
 */
import { named } from '../../common/named.js';
import { Key } from '../../common/checks.js';
import { BLOOM } from '../../registry.js';
import { FamilyFilter, madeInfo } from '../family-filter.js';
import type { ReadCore } from '../../boundary/read-core.js';
import type { FilterObject } from '../../boundary/core-types.js';
import { bitsPerItemOf } from '../filter-bytes.js';

/** Parameters and statistics of one Bloom filter, as the core reports them. @internal */
export interface CoreBloomInfo {
  capacity: number;
  falsePositiveRate: number;
  seedLow: number;
  seedHigh: number;
  expansion: number;
  serializedSize: number;
  bitCount: number;
  hashCount: number;
  subFilters: Omit<BloomSubFilterInfo, 'expectedFalsePositiveRate'>[];
}

/**
 * The sub-filters with their expected false-positive rates, (1 − e^(−k·n/m))^k
 * each (n its keys), and the filter's: 1 − ∏(1 − rate). Computed here, not in
 * the core: only reported, they decide no bytes of a filter, and the core's
 * WebAssembly then needs no exp and pow.
 */
function expectedRates(info: CoreBloomInfo): { rate: number; subFilters: BloomSubFilterInfo[] } {
  let none = 1;
  const subFilters = info.subFilters.map((s) => {
    const expectedFalsePositiveRate = (1 - Math.exp((-s.hashCount * s.size) / s.bitCount)) ** s.hashCount;
    none *= 1 - expectedFalsePositiveRate;
    const { byteLength, ...rest } = s;
    return { ...rest, expectedFalsePositiveRate, byteLength };
  });
  return { rate: 1 - none, subFilters };
}

/**
 * Distinct keys estimated from the set bits X of each sub-filter, summed:
 * −(m/k)·ln(1 − X/m) (Swamidass & Baldi 2007); Infinity once every bit of a
 * sub-filter is set.
 */
function estimatedCountOf(info: CoreBloomInfo): number {
  return info.subFilters.reduce(
    (sum, s) => sum + (s.setBitCount >= s.bitCount ? Infinity : -(s.bitCount / s.hashCount) * Math.log1p(-s.setBitCount / s.bitCount)),
    0,
  );
}

/** One sub-filter of a {@link BloomFilter}, as {@link BloomFilter.info} reports it. */
export interface BloomSubFilterInfo {
  /** Keys it was sized for. */
  capacity: number;
  /** ε it was sized for. */
  falsePositiveRate: number;
  /** Bits m. */
  bitCount: number;
  /** Hash functions k. */
  hashCount: number;
  /** Keys added to it. */
  size: number;
  /** Bits set. */
  setBitCount: number;
  /** (1 − e^(−k·size/m))^k. */
  expectedFalsePositiveRate: number;
  /** Its serialized bytes. */
  byteLength: number;
}

/** Statistics of a {@link BloomFilter} as one plain object (Redis's `BF.INFO`). */
export interface BloomFilterInfo {
  /** The family: always `'bloom'` here (`'cuckoo'` in {@link CuckooFilterInfo}). */
  type: 'bloom';
  /** The `capacity` option: keys the first sub-filter was sized for. */
  capacity: number;
  /** Adds made (a key added twice counts twice; {@link estimatedCount} does not). */
  size: number;
  /** Bits m of all sub-filters. */
  bitCount: number;
  /** Hash functions k of the first sub-filter (sub-filter j has about k + j). */
  hashCount: number;
  /** Key-hash seed (0..2^64-1). */
  seed: bigint;
  /** Growth factor; 0 when the filter does not grow. */
  expansion: number;
  /** Serialized size, bytes. */
  byteLength: number;
  /** Serialized bits per item of capacity (of all sub-filters for a grown filter). */
  bitsPerItem: number;
  /** The false-positive rate the filter was sized for (the `falsePositiveRate` option), a probability. */
  falsePositiveRate: number;
  /** The false-positive probability expected at the current fill: (1 − e^(−kn/m))^k per sub-filter, combined. */
  expectedFalsePositiveRate: number;
  /** Distinct keys estimated from the set bits, −(m/k)·ln(1 − X/m) per sub-filter (Swamidass & Baldi 2007). */
  estimatedCount: number;
  /** Oldest first. */
  subFilters: BloomSubFilterInfo[];
}

/**
 * The members BloomFilter inherits, with their TSDoc for a Bloom filter (the
 * shared base, js/filters/family-filter.ts, documents them for a cuckoo filter).
 */
export interface BloomFilter {
  /** Keys the (first sub-)filter was sized for: the `capacity` option. */
  readonly capacity: number;
  /** Hash seed (0..2^64-1). */
  readonly seed: bigint;
  /** Growth factor (the `expansion` option); 0 when the filter does not grow. */
  readonly expansion: number;
  /** Size of `toBytes()` output, in bytes: 24-byte header, per sub-filter 48 bytes and its bits, 8-byte checksum. */
  get byteLength(): number;

  /**
   * Tests membership.
   *
   * @returns false if the key was definitely never added; true if it was added, or, for a
   *   non-member, with probability about {@link expectedFalsePositiveRate}.
   * @throws ArgumentTypeError if key is neither a string nor a Uint8Array.
   * @throws FilterDisposedError after dispose().
   */
  has(key: Key): boolean;

  /**
   * Tests many keys, crossing into WebAssembly once per chunk (as {@link CuckooFilter.hasAll}),
   * optionally into the caller's Uint8Array `out` (one byte per key, 1 or 0; as {@link CuckooFilter.hasAll}).
   * @returns without `out`: `result[i] === has(keys[i])`, a new boolean[]. With it: `out`.
   * @throws ArgumentTypeError, ArgumentRangeError, FilterDisposedError as {@link CuckooFilter.hasAll}.
   */
  hasAll(keys: Iterable<Key> | ArrayLike<Key>, out?: undefined): boolean[];
  /**
   * {@link hasAll} into the caller's Uint8Array `out`: byte i is 1 if `has(keys[i])`, else 0.
   * @returns `out`.
   * @throws ArgumentTypeError, ArgumentRangeError (an `out` shorter than the keys), FilterDisposedError.
   */
  hasAll<Out extends Uint8Array>(keys: Iterable<Key> | ArrayLike<Key>, out: Out): Out;

  /**
   * Serializes the filter (docs/FORMAT.md §14, version 4; a filter loaded from version 2 or 3 bytes writes its version again):
   * little-endian, versioned, checksummed.
   * @returns a new Uint8Array of {@link byteLength} bytes.
   * @throws FilterDisposedError after dispose().
   */
  toBytes(): Uint8Array;
}

/**
 * A Bloom filter (m bits, k hash functions; ε ≈ (1 − e^(−kn/m))^k), growing as a stack of sub-filters, loaded
 * read-only from the bytes `toBytes()` or the CLI wrote (docs/FORMAT.md). It is `cuckoo-wasm`'s `BloomFilter`
 * without creation, the writers and `union`: every member here answers as that class's does, for the same bytes.
 */
export class BloomFilter extends FamilyFilter {
  static {
    named(this, BLOOM.className);
  }

  /** Hash functions k of the first sub-filter (sub-filter j has about k + j). */
  readonly hashCount: number;
  /** The configured total false-positive rate ε, a probability. */
  readonly falsePositiveRate: number;

  /** @internal */
  protected constructor(core: ReadCore, object: FilterObject, info = madeInfo<CoreBloomInfo>(core, object, new.target)) {
    super(core, object, BLOOM, info);
    this.hashCount = info.hashCount;
    this.falsePositiveRate = info.falsePositiveRate;
  }

  /**
   * Loads a filter from bytes produced by {@link BloomFilter.toBytes} (docs/FORMAT.md §11; validation §12).
   * Every field, the checksum and the padding are checked first.
   *
   * Bytes of format versions 2 and 3 (earlier releases) load too and write their version again.
   * Version 2 keeps its positions (enhanced double hashing mod m, which has a rate floor of about
   * n/m² for small filters at small ε): such a filter answers for its keys and grows. Rebuild it
   * from the keys to get independent positions (version 4).
   *
   * @param bytes - the serialized filter (a Uint8Array, any view offset, or an ArrayBuffer). Not retained.
   * @throws FilterFormatError if the bytes are not a Bloom filter this version wrote; its `reason`
   *   is `'is-cuckoo-filter'` for a cuckoo filter's bytes (load those with CuckooFilter.fromBytes).
   * @throws ArgumentTypeError if `bytes` is neither a Uint8Array nor an ArrayBuffer, or is detached.
   * @throws ArgumentRangeError if the bytes are longer than any filter this build can hold (1 GiB).
   * @throws OutOfMemoryError if WebAssembly memory cannot hold the filter now.
   * @throws WasmLoadError if the WebAssembly module cannot be loaded.
   */
  static async fromBytes(bytes: Uint8Array | ArrayBuffer): Promise<BloomFilter> {
    const { core, object } = await FamilyFilter.load(BLOOM, bytes);
    return new BloomFilter(core, object);
  }

  /** Keys added (duplicates counted; both sides' after a union). */
  get size(): number {
    return this.core.size(this.fx, this.live());
  }

  /** Bits m of all sub-filters. */
  get bitCount(): number {
    return this.infoAs<CoreBloomInfo>(BLOOM).bitCount;
  }

  /** Serialized bits per item of capacity (of all sub-filters, for a grown filter). */
  get bitsPerItem(): number {
    return bitsPerItemOf(this.infoAs<CoreBloomInfo>(BLOOM));
  }

  /**
   * False-positive rate expected at the current fill, a probability:
   * (1 − e^(−k·n/m))^k per sub-filter (n its keys), and 1 − ∏(1 − rate) over
   * sub-filters. Past capacity (without growth) it climbs above {@link falsePositiveRate}.
   */
  get expectedFalsePositiveRate(): number {
    return expectedRates(this.infoAs<CoreBloomInfo>(BLOOM)).rate;
  }

  /**
   * The number of distinct keys, estimated from the set bits X of each
   * sub-filter: −(m/k)·ln(1 − X/m) (Swamidass & Baldi 2007). Unlike
   * {@link size} it does not count a key added twice twice. Infinity once
   * every bit of a sub-filter is set.
   * @throws FilterDisposedError after dispose().
   */
  estimatedCount(): number {
    return estimatedCountOf(this.infoAs<CoreBloomInfo>(BLOOM));
  }

  /**
   * The filter's parameters and statistics, and those of each sub-filter, as
   * one plain object (like Redis's `BF.INFO`).
   * @throws FilterDisposedError after dispose().
   */
  info(): BloomFilterInfo {
    const info = this.infoAs<CoreBloomInfo>(BLOOM);
    const expected = expectedRates(info);
    return {
      type: 'bloom',
      capacity: this.capacity,
      size: this.size,
      bitCount: info.bitCount,
      hashCount: info.hashCount,
      seed: this.seed,
      expansion: this.expansion,
      byteLength: info.serializedSize,
      bitsPerItem: bitsPerItemOf(info),
      falsePositiveRate: this.falsePositiveRate,
      expectedFalsePositiveRate: expected.rate,
      estimatedCount: estimatedCountOf(info),
      subFilters: expected.subFilters,
    };
  }
}
