/**
 * The binary fuse filter as the reader (`cuckoo-wasm/reader`) has it: loaded from bytes, looked up, patched,
 * serialized and described. The full entry's BinaryFuseFilter (js/filters/binary-fuse-filter.ts) extends it with
 * `build` and `diff`.
 */
import { named } from '../../common/named.js';
import { BINARY_FUSE } from '../../registry.js';
import { FamilyFilter, madeInfo } from '../family-filter.js';
import type { ReadCore } from '../../boundary/read-core.js';
import type { FilterObject } from '../../boundary/core-types.js';

/** What the core's info() reports (src/fuse/fuse_info.h). @internal */
export interface CoreBinaryFuseInfo {
  capacity: number;
  seedLow: number;
  seedHigh: number;
  expansion: number;
  serializedSize: number;
  size: number;
  fingerprintBits: number;
  arity: number;
  segmentLength: number;
  segmentCount: number;
  arrayLength: number;
  falsePositiveRate: number;
}

/** Statistics of a {@link BinaryFuseFilter} as one plain object. */
export interface BinaryFuseFilterInfo {
  /** The family: always `'binary-fuse'` here. */
  type: 'binary-fuse';
  /** Distinct keys the filter was built from (a key given twice counts once). */
  size: number;
  /** Fingerprint bits f, 8..16. */
  fingerprintBits: number;
  /** Slots a key is stored across: 3 or 4 (the paper's three-wise and four-wise filters). */
  arity: number;
  /** Slots per segment, a power of two. */
  segmentLength: number;
  /** Segments a key's first slot may lie in (the table has `arity − 1` more). */
  segmentCount: number;
  /** Slots of the table: (segmentCount + arity − 1) × segmentLength. */
  arrayLength: number;
  /** Key-hash seed (0..2^64-1). */
  seed: bigint;
  /** Serialized size, bytes. */
  byteLength: number;
  /** Serialized bits per key: byteLength × 8 / size (Infinity for a filter of no keys). */
  bitsPerItem: number;
  /** 2^−f: the probability that a key not in the set is reported. */
  falsePositiveRate: number;
}

/**
 * A binary fuse filter (Graf and Lemire, "Binary Fuse Filters: Fast and Smaller Than Xor Filters", ACM JEA 2022),
 * loaded read-only from the bytes `toBytes()` or the CLI wrote (docs/FORMAT.md, "Binary fuse filter (family 5)"). It is
 * `cuckoo-wasm`'s `BinaryFuseFilter` without `build` and `diff`: every member here answers as that class's does, for
 * the same bytes. A static set: no filter of this family is ever added to.
 */
export class BinaryFuseFilter extends FamilyFilter {
  static {
    named(this, BINARY_FUSE.className);
  }

  /** Fingerprint bits f, 8..16. */
  readonly fingerprintBits: number;
  /** Slots a key is stored across: 3 or 4. */
  readonly arity: number;
  /** 2^−f: the probability that a key not in the set is reported. */
  readonly falsePositiveRate: number;

  /** @internal */
  protected constructor(core: ReadCore, object: FilterObject, info = madeInfo<CoreBinaryFuseInfo>(core, object, new.target)) {
    super(core, object, BINARY_FUSE, info);
    this.fingerprintBits = info.fingerprintBits;
    this.arity = info.arity;
    this.falsePositiveRate = info.falsePositiveRate;
  }

  /**
   * Loads a filter from bytes produced by {@link BinaryFuseFilter.toBytes} (docs/FORMAT.md, "Binary fuse filter
   * (family 5)"): every field, the checksum and the padding are checked first.
   *
   * @param bytes - the serialized filter (a Uint8Array, any view offset, or an ArrayBuffer). Not retained.
   * @throws FilterFormatError if the bytes are not a binary fuse filter this version wrote; its `reason` names the
   *   family of another family's bytes (`'is-cuckoo-filter'`, ...).
   * @throws ArgumentTypeError if `bytes` is neither a Uint8Array nor an ArrayBuffer, or is detached.
   * @throws ArgumentRangeError if the bytes are longer than any filter this build can hold (1 GiB).
   * @throws OutOfMemoryError if WebAssembly memory cannot hold the filter now.
   * @throws WasmLoadError if the WebAssembly module cannot be loaded.
   */
  static async fromBytes(bytes: Uint8Array | ArrayBuffer): Promise<BinaryFuseFilter> {
    const { core, object } = await FamilyFilter.load(BINARY_FUSE, bytes);
    return new BinaryFuseFilter(core, object);
  }

  /** Distinct keys the filter was built from. */
  get size(): number {
    return this.core.size(this.fx, this.live());
  }

  /** Serialized bits per key: {@link byteLength} × 8 / {@link size} (Infinity for a filter of no keys). */
  get bitsPerItem(): number {
    return (this.byteLength * 8) / this.size;
  }

  /**
   * The filter's parameters and statistics as one plain object.
   * @throws FilterDisposedError after dispose().
   */
  info(): BinaryFuseFilterInfo {
    const info = this.infoAs<CoreBinaryFuseInfo>(BINARY_FUSE);
    return {
      type: 'binary-fuse',
      size: info.size,
      fingerprintBits: info.fingerprintBits,
      arity: info.arity,
      segmentLength: info.segmentLength,
      segmentCount: info.segmentCount,
      arrayLength: info.arrayLength,
      seed: this.seed,
      byteLength: info.serializedSize,
      bitsPerItem: (info.serializedSize * 8) / info.size,
      falsePositiveRate: info.falsePositiveRate,
    };
  }
}
