import { named } from '../common/named.js';
import { Key, describe } from '../common/checks.js';
import { ArgumentRangeError, ArgumentTypeError, FilterFullError } from '../common/errors.js';
import { BINARY_FUSE } from '../registry.js';
import { FamilyFilter } from './family-filter.js';
import { BinaryFuseFilter as BinaryFuseFilterReader, type CoreBinaryFuseInfo } from './read/binary-fuse-filter.js';
import { installWriters, type Writers } from './writers.js';
import { loadFullCore } from '../boundary/load.js';
import { checkInteger, checkOptions, seedWords, toFalsePositiveRate, toSeed } from '../common/options.js';
import { Status, statusError } from '../common/status.js';
import type { Core } from '../boundary/wasm-core.js';
import type { FilterObject } from '../boundary/core-types.js';

export type { BinaryFuseFilterInfo } from './read/binary-fuse-filter.js';

/** Options of {@link BinaryFuseFilter.build}. */
export interface BinaryFuseFilterOptions {
  /**
   * The false-positive rate ε wanted, a probability from 2^−16 to 1: the filter has f = max(8, ⌈log2(1/ε)⌉)
   * fingerprint bits and a rate of 2^−f (at most ε). Default 0.01 (f = 8, 2^−8 ≈ 0.39%). Give this or
   * `fingerprintBits`, not both.
   */
  falsePositiveRate?: number | undefined;
  /** Fingerprint bits f, an integer 8..16: a false-positive rate of 2^−f and about 1.075·f bits per key. */
  fingerprintBits?: number | undefined;
  /**
   * Slots a key is stored across: 4 (default: about 1.075·f bits per key) or 3 (about 1.125·f bits per key for
   * large sets, one memory access less per lookup). bench/results/fuse.md compares them.
   */
  arity?: 3 | 4 | undefined;
  /**
   * Hash seed, an integer 0..2^64-1 (number up to 2^53-1, or bigint). Default fixed, so the same keys and options
   * give byte-identical `toBytes()` everywhere, whatever their order.
   */
  seed?: number | bigint | undefined;
  /**
   * True: each key is a blocklist entry (a URL, a host with a path, or a host), stored as its one canonical
   * expression, as `addUrls` of the other families stores it (docs/URLS.md); look URLs up with `hasUrl` /
   * `matchUrl`. Default false: each key is stored as its bytes.
   */
  urls?: boolean | undefined;
}

const DEFAULT_FPR = 0.01;
const MIN_BITS = 8;
const MAX_BITS = 16;
/** The arity of src/fuse/binary_fuse_filter.h's kDefaultFuseArity. */
const DEFAULT_ARITY = 4;
/** Keys a filter holds at most (src/fuse/binary_fuse_filter.h kMaxFuseKeys). */
const MAX_KEYS = 2 ** 28;

/** f for ε: the fewest bits, at least 8, whose 2^−f is at most ε. @throws ArgumentRangeError below 2^−16 */
function bitsFor(fpr: number): number {
  let bits = MIN_BITS;
  while (2 ** -bits > fpr && bits <= MAX_BITS) bits += 1;
  if (bits > MAX_BITS) {
    throw new ArgumentRangeError(`falsePositiveRate ${fpr} is below 2^-16, the rate of 16-bit fingerprints, the most a binary fuse filter takes`);
  }
  return bits;
}

/** The options of {@link BinaryFuseFilter.build}, checked, in the core's terms. */
function buildOptions(options: unknown): { fingerprintBits: number; arity: number; seed: [number, number]; urls: boolean } {
  const o = checkOptions(options as BinaryFuseFilterOptions, BINARY_FUSE, 'build', 'an object');
  let fingerprintBits: number;
  if (o.fingerprintBits !== undefined) {
    if (o.falsePositiveRate !== undefined) throw new ArgumentTypeError('give falsePositiveRate or fingerprintBits, not both');
    fingerprintBits = checkInteger('fingerprintBits', o.fingerprintBits, MIN_BITS, MAX_BITS);
  } else {
    fingerprintBits = bitsFor(toFalsePositiveRate(o.falsePositiveRate, DEFAULT_FPR));
  }
  const arity = o.arity === undefined ? DEFAULT_ARITY : checkInteger('arity', o.arity, 3, 4);
  if (o.urls !== undefined && typeof o.urls !== 'boolean') throw new ArgumentTypeError(`urls must be a boolean, got ${describe(o.urls)}`);
  return { fingerprintBits, arity, seed: seedWords(toSeed(o.seed)), urls: o.urls === true };
}

/**
 * The filter a build collects its keys in: the core's collecting binary fuse filter, whose adds keep each key's
 * hash, with the writers' batches (every chunked, re-entrant, user-code-safe read of the keys). Never leaves
 * {@link BinaryFuseFilter.build}.
 */
class Collector extends BinaryFuseFilterReader {
  static {
    installWriters(this);
  }

  /** @internal */
  constructor(core: Core, object: FilterObject) {
    super(core, object);
  }

  /** The core filter's address, which the build's `from` names. */
  handleForBuild(): number {
    return this.live();
  }

  protected fullError(status: number, added: number): Error {
    if (status === Status.GrowthLimit) {
      return new FilterFullError(`a binary fuse filter is built from at most ${MAX_KEYS} keys; ${added} of this batch were read before the limit`, added);
    }
    return statusError(status, { bytes: added * 8 });
  }
}
interface Collector extends Writers {}

/**
 * A binary fuse filter (Graf and Lemire, "Binary Fuse Filters: Fast and Smaller Than Xor Filters", ACM JEA 2022):
 * the smallest filter here for a set that is built once and never changed: about 1.075·f bits per key (four-wise;
 * 1.125·f three-wise) for a false-positive rate of 2^−f, against the cuckoo filter's (f + 3)/α and the Bloom filter's
 * 1.44·f. A key is looked up by XORing `arity` f-bit values and comparing with its fingerprint: no branch, 3 or 4
 * memory accesses. It is static: {@link build} makes it from every key at once, and it has no `add` or `delete`;
 * a new version of a list is built again (a patch between two versions is about as large as the filter: ship the
 * filter whole). Same conventions as {@link CuckooFilter} for keys, batches, URLs, errors, dispose and the byte format
 * (docs/FORMAT.md, "Binary fuse filter (family 5)").
 *
 * @example
 * ```ts
 * const f = await BinaryFuseFilter.build(domains, { falsePositiveRate: 0.001 });
 * f.has('phish.example'); // true if it was in `domains`
 * fs.writeFileSync('blocklist.fuse', f.toBytes());
 * ```
 */
export class BinaryFuseFilter extends BinaryFuseFilterReader {
  /** @internal */
  protected constructor(core: Core, object: FilterObject, info?: CoreBinaryFuseInfo) {
    super(core, object, info);
  }

  static {
    named(this, BINARY_FUSE.className);
  }

  /**
   * Builds the filter of a set of keys: reads every key (duplicates count once), then builds the table in time
   * linear in their number (the paper's peeling; a construction that does not peel, under 1% of them, is retried
   * with the next seed, so the same keys and options always give the same bytes, in any order).
   *
   * @param keys - an iterable or array-like of strings (UTF-8) and Uint8Arrays (any realm), read a chunk at a time
   *   as `addAll` of the other families reads them (8 bytes of WebAssembly memory per key until the build).
   * @param options - {@link BinaryFuseFilterOptions}: `falsePositiveRate` or `fingerprintBits`, `arity`, `seed`, `urls`.
   * @returns a promise of the filter (the WebAssembly module is loaded on first use).
   * @throws ArgumentTypeError if options is not an object, has an unknown option or one of the wrong type; if `keys`
   *   is neither an iterable nor an array-like, or a key is neither a string nor a live Uint8Array.
   * @throws ArgumentRangeError if falsePositiveRate is not in [2^−16, 1), fingerprintBits not 8..16, arity not 3 or 4.
   * @throws InvalidUrlError (with `urls`) for an entry that cannot be a URL; nothing is built.
   * @throws FilterFullError for more than 2^28 keys given (duplicates included).
   * @throws OutOfMemoryError if WebAssembly memory cannot hold the keys or the build: at its peak about 35 to 43 bytes
   *   per key given (their hashes, 8 to 16; the peeling's arrays, about 26; the table), so WebAssembly's 2 GiB hold
   *   the build of some 50,000,000 keys; filters made before keep working.
   * @throws WasmLoadError if the WebAssembly module cannot be loaded.
   * @example
   * ```ts
   * const f = await BinaryFuseFilter.build(['evil.example', 'phish.example/login'], { urls: true, fingerprintBits: 16 });
   * f.hasUrl('https://evil.example/a?b'); // true
   * ```
   */
  static async build(keys: Iterable<Key> | ArrayLike<Key>, options: BinaryFuseFilterOptions = {}): Promise<BinaryFuseFilter> {
    const { fingerprintBits, arity, seed, urls } = buildOptions(options);
    const core = await loadFullCore();
    const collecting = core.create(BINARY_FUSE.id, { fingerprintBits, arity, seed, from: 0 });
    const collector = new Collector(core, FamilyFilter.opened(core, collecting, 0));
    try {
      const keyCount = urls ? collector.addUrls(keys) : collector.addAll(keys);
      const made = core.create(BINARY_FUSE.id, { fingerprintBits, arity, seed, from: collector.handleForBuild() });
      return new BinaryFuseFilter(core, FamilyFilter.opened(core, made, Math.ceil((keyCount * 1.13 * fingerprintBits) / 8)));
    } finally {
      collector.dispose();
    }
  }

  /**
   * Loads a filter from bytes produced by {@link BinaryFuseFilter.toBytes} (docs/FORMAT.md, "Binary fuse filter
   * (family 5)"): every field, the checksum and the padding are checked first.
   *
   * @param bytes - the serialized filter (a Uint8Array, any view offset, or an ArrayBuffer). Not retained.
   * @throws FilterFormatError if the bytes are not a binary fuse filter this version wrote; its `reason` names the
   *   family of another family's bytes (`'is-cuckoo-filter'`, ...).
   * @throws ArgumentTypeError, ArgumentRangeError, OutOfMemoryError, WasmLoadError as {@link CuckooFilter.fromBytes}.
   */
  static async fromBytes(bytes: Uint8Array | ArrayBuffer): Promise<BinaryFuseFilter> {
    const { core, object } = await FamilyFilter.load(BINARY_FUSE, bytes);
    return new BinaryFuseFilter(core as Core, object);
  }

  /**
   * The patch that turns `older` (an earlier version of this list's filter, or its bytes) into this filter
   * (docs/FORMAT.md §17), for `applyPatch` / `applyPatchBytes`. Two versions join only with the same number of
   * segments (their key counts close) and the same f, arity and seed; a rebuild moves most values of the table,
   * so a patch of a 1% change is most of the filter's size: bench/results/fuse.md measures it.
   *
   * @throws FilterFormatError with reason 'patch-family' (the message names the field that differs, e.g. the segment
   *   count); ArgumentTypeError, FilterDisposedError as the other families' `diff`.
   */
  diff(older: BinaryFuseFilter | Uint8Array | ArrayBuffer): Uint8Array {
    // The writers' diff (js/filters/writers.ts), which reads only what every filter has and `writer`.
    return (Collector.prototype.diff as (this: BinaryFuseFilter, older: unknown) => Uint8Array).call(this, older);
  }

  /** The core with its writers, as the writers' `diff` reads it. */
  private get writer(): Core {
    return this.core as Core;
  }
}
