import { named } from '../common/named.js';
import { Key, describe } from '../common/checks.js';
import { ArgumentRangeError, ArgumentTypeError } from '../common/errors.js';
import { BLOOM } from '../registry.js';
import { FamilyFilter } from './family-filter.js';
import { foreignBytes, foreignFamily } from './wasm-filter.js';
import { BloomFilter as BloomFilterReader, type CoreBloomInfo } from './read/bloom-filter.js';
import { installWriters, type Writers } from './writers.js';
import { loadFullCore } from '../boundary/load.js';
import { checkOptions, seedWords, toCapacity, toExpansion, toFalsePositiveRate, toSeed } from '../common/options.js';
import { MAX_WASM_MEMORY, statusError } from '../common/status.js';
import type { Core } from '../boundary/wasm-core.js';
import type { FilterObject } from '../boundary/core-types.js';

export type { BloomFilterInfo, BloomSubFilterInfo } from './read/bloom-filter.js';

/** Options of {@link BloomFilter.create}. */
export interface BloomFilterOptions {
  /** Keys the filter is sized for (an integer >= 1): n. */
  capacity: number;
  /**
   * False-positive rate ε at `capacity` keys, a probability in (0, 1). Default 0.01.
   * The filter has m = ⌈−n·ln ε / (ln 2)²⌉ bits and k = round((m/n)·ln 2) hash functions,
   * whose positions are independent (docs/FORMAT.md §11.6), so the rate at capacity is about
   * ε for small filters too.
   */
  falsePositiveRate?: number | undefined;
  /**
   * Hash seed, an integer 0..2^64-1 (number up to 2^53-1, or bigint). Default fixed,
   * so the same keys and options give byte-identical `toBytes()` everywhere.
   */
  seed?: number | bigint | undefined;
  /**
   * Growth factor e, an integer 2..1024: when the newest sub-filter holds its
   * capacity, a sub-filter for e times as many keys is added and takes the
   * new keys; lookups check all of them. Sub-filter j is sized for ε/2^(j+1)
   * (Almeida et al., "Scalable Bloom Filters", 2007), so the total rate stays
   * at most `falsePositiveRate` however far the filter grows. Default: no
   * growth (past its capacity the rate climbs: see {@link BloomFilter.expectedFalsePositiveRate}).
   * At most 32 sub-filters and 1 GiB in all.
   */
  expansion?: number | undefined;
}

const DEFAULT_FPR = 0.01;

/** The writers every family's class of the full entry has (js/filters/writers.ts), as a Bloom filter's. */
export interface BloomFilter extends Writers {
  /**
   * Adds a key (sets its k bits in the newest sub-filter).
   *
   * @param key - a string (UTF-8) or Uint8Array.
   * @returns this filter, like `Set.prototype.add`.
   * @throws FilterFullError only for a growing filter that may not grow further (32 sub-filters or
   *   1 GiB): the key is not added. A filter that does not grow never refuses a key; past its
   *   capacity its false-positive rate climbs.
   * @throws ArgumentTypeError if key is neither a string nor a Uint8Array.
   * @throws FilterDisposedError after dispose().
   */
  add(key: Key): this;

  /**
   * Adds many keys, crossing into WebAssembly once per chunk (as {@link CuckooFilter.addAll}).
   * @returns how many keys were added (all of them).
   * @throws FilterFullError when a growing filter may not grow further; its `added` says how many
   *   went in before. ArgumentTypeError, FilterDisposedError as {@link CuckooFilter.addAll}.
   */
  addAll(keys: Iterable<Key> | ArrayLike<Key>): number;
}

/**
 * A Bloom filter (Bloom 1970): m bits and k hash functions, sized from a
 * capacity and a false-positive rate. A key's k bit positions come from one
 * 64-bit hash of it (XXH3-64), two from its halves and two more from each
 * 64-bit mix of it (docs/FORMAT.md §11.6), so each lookup hashes the key once
 * and the positions are independent. Same conventions as {@link CuckooFilter}:
 * keys, batches, errors, dispose, and the byte format family of
 * docs/FORMAT.md (version 4; versions 2 and 3, which earlier releases wrote,
 * still load: see {@link BloomFilter.fromBytes}).
 *
 * No delete: clearing a key's bits would clear bits that other keys share, and
 * those keys would then be reported absent. Use {@link CuckooFilter} when keys
 * must be removed (it is also smaller below about 0.09%, and at 0.1%; a Bloom filter is smaller at 0.5% and
 * more: see the README's measured comparison).
 *
 * @example
 * ```ts
 * const f = await BloomFilter.create({ capacity: 100_000, falsePositiveRate: 0.01 });
 * f.add('phish.example');
 * f.has('phish.example'); // true
 * f.dispose();
 * ```
 */
export class BloomFilter extends BloomFilterReader {
  /** @internal */
  protected constructor(core: Core, object: FilterObject, info?: CoreBloomInfo) {
    super(core, object, info);
  }

  static {
    named(this, BLOOM.className);
    installWriters(this);
  }

  /**
   * Makes an empty filter sized for `options.capacity` keys at `options.falsePositiveRate`.
   *
   * @returns a promise of the filter (the WebAssembly module is loaded on first use).
   * @throws ArgumentTypeError if options is not an object, has an option not listed in
   *   {@link BloomFilterOptions}, or an option has the wrong type.
   * @throws ArgumentRangeError if capacity is not an integer >= 1, ε is not in (0, 1), expansion
   *   is not 2..1024, k would exceed 64, m would exceed 2^32 − 1 bits, or the filter would need
   *   more than 1 GiB.
   * @throws OutOfMemoryError if WebAssembly memory cannot hold it now; filters made before keep working.
   * @throws WasmLoadError if the WebAssembly module cannot be loaded.
   * @example
   * ```ts
   * const f = await BloomFilter.create({ capacity: 50_000, falsePositiveRate: 0.001, expansion: 2 });
   * ```
   */
  static async create(options: BloomFilterOptions): Promise<BloomFilter> {
    checkOptions(options, BLOOM);
    const capacity = toCapacity(options.capacity);
    const fpr = toFalsePositiveRate(options.falsePositiveRate, DEFAULT_FPR);
    const seed = toSeed(options.seed);
    const expansion = toExpansion(options.expansion);
    const core = await loadFullCore();
    const bytes = core.sizeBloom(capacity, fpr, expansion);
    if (bytes <= 0 || bytes > MAX_WASM_MEMORY / 2) {
      throw new ArgumentRangeError(
        `a Bloom filter for ${capacity} keys at a false-positive rate of ${fpr} needs ` +
          `${bytes <= 0 ? 'more than 2^32 - 1 bits or more than 64 hash functions' : `${bytes} bytes`}; ` +
          `a filter may use at most ${MAX_WASM_MEMORY / 2} bytes and 2^32 - 1 bits`,
      );
    }
    const made = core.create(BLOOM.id, { capacity, falsePositiveRate: fpr, seed: seedWords(seed), expansion });
    return new BloomFilter(core, FamilyFilter.opened(core, made, bytes));
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
    return new BloomFilter(core as Core, object);
  }

  /**
   * True if `other` is a Bloom filter with the same seed, growth, format version
   * and sub-filters of the same bit count m and hash count k, so that
   * {@link union} can merge it (Guava's `isCompatible`).
   * @throws ArgumentTypeError if `other` is not a BloomFilter; FilterDisposedError if either is disposed.
   */
  isCompatible(other: BloomFilter): boolean {
    this.liveAs(BLOOM);
    return this.withPeer(other, (from) => (this.core as Core).bloomCompatible(this.liveObject(), from));
  }

  /**
   * Merges `other`'s keys into this filter by OR-ing its bits (Guava's `putAll`):
   * afterwards `has` is true for every key added to either. {@link size} becomes
   * the sum of both sizes (keys in both are counted twice).
   * @returns this filter.
   * @throws ArgumentRangeError if the filters are not {@link isCompatible}; nothing is changed.
   * @throws ArgumentTypeError if `other` is not a BloomFilter; FilterDisposedError if either is disposed.
   */
  union(other: BloomFilter): this {
    this.liveAs(BLOOM);
    // This filter's object once the other's bytes are read: another copy's toBytes() may have disposed it.
    const merged = this.withPeer(other, (from) => (this.core as Core).bloomUnion(this.liveObject(), from));
    if (merged !== 0) {
      throw new ArgumentRangeError(
        'union needs a compatible Bloom filter (same seed, expansion and sub-filters of the same bit and ' +
          'hash counts, and the same format version: one loaded from version 2 bytes places bits differently ' +
          'from a new one): create both with the same options and add keys to both the same way',
      );
    }
    return this;
  }

  /**
   * `use` of another Bloom filter for union / isCompatible: its embind object when it is of this module; a copy
   * loaded from its toBytes() when it is of another copy of the package (the reader entry's, another bundle's, another
   * realm's), freed afterwards.
   */
  private withPeer<T>(other: unknown, use: (from: FilterObject) => T): T {
    let own: boolean;
    try {
      own = other instanceof BloomFilter;
    } catch {
      own = false; // a revoked Proxy
    }
    if (own) {
      const filter = other as BloomFilter;
      if (filter.core !== this.core) throw new ArgumentTypeError('expected a BloomFilter, got a look-alike');
      return use(filter.liveObject());
    }
    if (foreignFamily(other) !== BLOOM.id) throw new ArgumentTypeError(`expected a BloomFilter, got ${describe(other)}`);
    const loaded = this.core.deserialize(BLOOM.id, foreignBytes(other));
    if ('status' in loaded) throw FamilyFilter.opened(this.core, loaded.status, 0, loaded.found);
    try {
      return use(loaded);
    } finally {
      this.core.destroy(loaded);
    }
  }

  /** The error of an add that failed with `status` after `added` keys of its batch went in. @internal */
  protected fullError(status: number, added: number): Error {
    const bytes = this.byteLength;
    return statusError(status, {
      growth: { subFilters: this.subFilterCount, bytes, added },
      bytes: bytes * Math.max(this.expansion, 1),
    });
  }
}
