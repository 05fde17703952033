// A reference model of RedisBloom's cuckoo filter (the server's CF.* commands), in plain
// TypeScript, for the differential test (tests/js/redis-differential.test.ts). It is a second
// implementation written only from the documented description: ../shared/redis/README.md and
// docs/FORMAT.md §15 (keys, tables and growth, the add order with its kick chain and rollback,
// CF.DEL with compaction, CF.COMPACT, CF.INFO, CF.SCANDUMP chunks, and the README's "Limits":
// CF.COUNT, the 32 sub-filters checked at the start of each command, CF.INSERT growing past them,
// EXPANSION rounded up to a power of two). It shares no code with src/ or bindings/, and favours
// plain loops over speed.

const MASK64 = (1n << 64n) - 1n;
const MURMUR_M = 0xc6a4a7935bd1e995n;
/** The multiplier of the alternate bucket: Alt(i, fp) = (i XOR fp · ALT_MULTIPLIER) mod n. */
const ALT_MULTIPLIER = 0x5bd1e995;
/**
 * The server's limit on growth: a command that adds (CF.ADD, CF.ADDNX, CF.INSERT) is refused when it starts with this
 * many sub-filters or more; within one command the filter grows on.
 */
export const MAX_SUB_FILTERS = 32;
/** This library's bounds on what one command grows to: sub-filters (its format's count byte), and bytes of tables. */
export const MAX_FILE_SUB_FILTERS = 255;
export const MAX_TABLE_BYTES = 2 ** 30;
/** Largest CF.SCANDUMP chunk of table bytes. */
export const MAX_CHUNK_BYTES = 16 * 2 ** 20;
export const HEADER_BYTES = 38;

const encoder = new TextEncoder();

/** A key as the server sees it: a string is its UTF-8 bytes. */
export function keyBytes(key: string | Uint8Array): Uint8Array {
  return typeof key === 'string' ? encoder.encode(key) : key;
}

/** MurmurHash64A (Austin Appleby) of `data`, 64-bit, little-endian blocks. */
export function murmurHash64A(data: Uint8Array, seed = 0n): bigint {
  const len = data.length;
  let h = (seed ^ BigInt(len) * MURMUR_M) & MASK64;
  const blocks = len - (len % 8);
  for (let at = 0; at < blocks; at += 8) {
    let k = 0n;
    for (let i = 7; i >= 0; --i) k = (k << 8n) | BigInt(data[at + i]);
    k = (k * MURMUR_M) & MASK64;
    k ^= k >> 47n;
    k = (k * MURMUR_M) & MASK64;
    h ^= k;
    h = (h * MURMUR_M) & MASK64;
  }
  if (len % 8 !== 0) {
    for (let i = len - 1; i >= blocks; --i) h ^= BigInt(data[i]) << BigInt(8 * (i - blocks));
    h = (h * MURMUR_M) & MASK64;
  }
  h ^= h >> 47n;
  h = (h * MURMUR_M) & MASK64;
  h ^= h >> 47n;
  return h;
}

/** A key's fingerprint (1..255; 0 marks an empty slot) and its hash, which places it in each sub-filter. */
export interface KeyHash {
  readonly fingerprint: number;
  readonly hash: bigint;
}

export function keyHash(key: string | Uint8Array): KeyHash {
  const hash = murmurHash64A(keyBytes(key));
  return { fingerprint: Number(hash % 255n) + 1, hash };
}

/** Alternate bucket of bucket `i` for `fingerprint` among `n` buckets (n a power of two, so Alt(Alt(i)) = i). */
export function alternate(i: number, fingerprint: number, n: number): number {
  // fingerprint · ALT_MULTIPLIER < 2^40 is exact in a double, and n ≤ 2^30 keeps the XOR in 32 bits.
  return (i ^ ((fingerprint * ALT_MULTIPLIER) % n)) % n;
}

/** The smallest power of two >= x (1 at least). */
function powerOfTwoAtLeast(x: number): number {
  let p = 1;
  while (p < x) p *= 2;
  return p;
}

/** One sub-filter: `numBuckets` buckets of `bucketSize` one-byte slots, bucket i at bytes [i·b, i·b + b). */
class SubFilter {
  readonly slots: Uint8Array;

  constructor(
    readonly numBuckets: number,
    readonly bucketSize: number,
  ) {
    this.slots = new Uint8Array(numBuckets * bucketSize);
  }

  /** Bucket i1 of a key: its hash mod the bucket count. */
  firstBucket(hash: bigint): number {
    return Number(hash % BigInt(this.numBuckets));
  }

  /** The first empty slot of bucket i (its byte offset), or -1. */
  freeSlot(i: number): number {
    for (let at = i * this.bucketSize; at < (i + 1) * this.bucketSize; ++at) if (this.slots[at] === 0) return at;
    return -1;
  }

  /** The first slot of bucket i holding the fingerprint (its byte offset), or -1. */
  slotOf(i: number, fingerprint: number): number {
    for (let at = i * this.bucketSize; at < (i + 1) * this.bucketSize; ++at) if (this.slots[at] === fingerprint) return at;
    return -1;
  }

  /** How many slots of bucket i hold the fingerprint. */
  matches(i: number, fingerprint: number): number {
    let n = 0;
    for (let at = i * this.bucketSize; at < (i + 1) * this.bucketSize; ++at) n += this.slots[at] === fingerprint ? 1 : 0;
    return n;
  }

  /** Stores the fingerprint in the first empty slot of bucket i; false if the bucket is full. */
  place(i: number, fingerprint: number): boolean {
    const at = this.freeSlot(i);
    if (at < 0) return false;
    this.slots[at] = fingerprint;
    return true;
  }
}

/** `CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS i] [EXPANSION e]`. */
export interface ReserveOptions {
  capacity: number;
  bucketSize?: number;
  maxIterations?: number;
  expansion?: number;
}

/** What CF.ADD answers: stored, or the server's error text (nothing changed then). */
export type AddResult = 'ok' | 'Filter is full' | 'Maximum expansions reached';

/** What CF.INSERT does: how many of its keys went in (in order), and the error that stopped it, if one did. */
export interface InsertResult {
  added: number;
  error: Exclude<AddResult, 'ok'> | null;
}

/** `CF.INFO`, the server's labels camelCased. */
export interface CfInfo {
  size: number;
  numberOfBuckets: number;
  numberOfFilters: number;
  numberOfItemsInserted: number;
  numberOfItemsDeleted: number;
  bucketSize: number;
  expansionRate: number;
  maxIterations: number;
}

export class RedisCfModel {
  readonly bucketSize: number;
  readonly maxIterations: number;
  /** The growth factor: EXPANSION rounded up to a power of two, as the server stores it (the header and CF.INFO show it; 0: never grows). */
  readonly growth: number;
  /** Buckets of sub-filter 0. */
  readonly firstBuckets: number;
  /** The sub-filters, oldest first. */
  readonly subFilters: SubFilter[] = [];
  /** Fingerprints stored (CF.INFO "Number of items inserted"). */
  numItems = 0;
  /** Deletes since the last compaction (CF.INFO "Number of items deleted"). */
  numDeletes = 0;

  constructor({ capacity, bucketSize = 2, maxIterations = 20, expansion = 1 }: ReserveOptions) {
    this.bucketSize = bucketSize;
    this.maxIterations = maxIterations;
    this.growth = expansion === 0 ? 0 : powerOfTwoAtLeast(expansion);
    this.firstBuckets = powerOfTwoAtLeast(Math.floor(capacity / bucketSize));
    this.subFilters.push(new SubFilter(this.firstBuckets, bucketSize));
  }

  /** Bytes of all tables. */
  get tableBytes(): number {
    return this.subFilters.reduce((sum, f) => sum + f.slots.length, 0);
  }

  /** CF.EXISTS: the fingerprint in bucket i1 or i2 of any sub-filter. */
  exists(key: string | Uint8Array, kh = keyHash(key)): boolean {
    return this.subFilters.some((f) => {
      const i1 = f.firstBucket(kh.hash);
      return f.slotOf(i1, kh.fingerprint) >= 0 || f.slotOf(alternate(i1, kh.fingerprint, f.numBuckets), kh.fingerprint) >= 0;
    });
  }

  /** Whether a command that adds may start: fewer than 32 sub-filters. */
  private get mayStart(): boolean {
    return this.subFilters.length < MAX_SUB_FILTERS;
  }

  /** CF.ADD: refused at the start with 32 sub-filters or more; else {@link place}. */
  add(key: string | Uint8Array, kh = keyHash(key)): AddResult {
    return this.mayStart ? this.place(kh) : 'Maximum expansions reached';
  }

  /** CF.ADDNX: refused at the start as CF.ADD; then 'exists' (no change) if CF.EXISTS is true for the key, else as CF.ADD. */
  addUnique(key: string | Uint8Array, kh = keyHash(key)): AddResult | 'exists' {
    if (!this.mayStart) return 'Maximum expansions reached';
    return this.exists(key, kh) ? 'exists' : this.place(kh);
  }

  /** CF.INSERT: the limit checked once, at the start; then each key placed in order, growing past 32, until one is refused. */
  insert(keys: readonly (string | Uint8Array)[], hashes = keys.map((k) => keyHash(k))): InsertResult {
    if (keys.length > 0 && !this.mayStart) return { added: 0, error: 'Maximum expansions reached' };
    for (let k = 0; k < keys.length; ++k) {
      const r = this.place(hashes[k]);
      if (r !== 'ok') return { added: k, error: r };
    }
    return { added: keys.length, error: null };
  }

  /**
   * CF.COUNT: the fingerprint's matches in bucket i1 plus those in bucket i2, in every sub-filter; where i1 and i2 are
   * the same bucket its matches count twice.
   */
  count(key: string | Uint8Array, kh = keyHash(key)): number {
    let n = 0;
    for (const f of this.subFilters) {
      const i1 = f.firstBucket(kh.hash);
      n += f.matches(i1, kh.fingerprint) + f.matches(alternate(i1, kh.fingerprint, f.numBuckets), kh.fingerprint);
    }
    return n;
  }

  /**
   * One key of an add: a free slot of bucket i1, else i2, in the sub-filters newest first; else a
   * kick chain in the newest; else a new sub-filter (or the server's error when the filter may not
   * grow: no expansion, or past this library's bounds on one command's growth).
   */
  private place(kh: KeyHash): AddResult {
    for (;;) {
      if (this.placeAnywhere(kh) || this.kick(this.subFilters[this.subFilters.length - 1], kh)) {
        ++this.numItems;
        return 'ok';
      }
      if (this.growth === 0) return 'Filter is full';
      const buckets = this.subFilters[this.subFilters.length - 1].numBuckets * this.growth;
      if (this.subFilters.length >= MAX_FILE_SUB_FILTERS || this.tableBytes + buckets * this.bucketSize > MAX_TABLE_BYTES) {
        return 'Maximum expansions reached';
      }
      this.subFilters.push(new SubFilter(buckets, this.bucketSize));
    }
  }

  /**
   * CF.DEL: clears the first slot holding the fingerprint, sub-filters newest first, bucket i1 then
   * i2; then compacts when there is more than one sub-filter and deletes > 10% of the items.
   */
  delete(key: string | Uint8Array, kh = keyHash(key)): boolean {
    for (let s = this.subFilters.length - 1; s >= 0; --s) {
      const f = this.subFilters[s];
      const i1 = f.firstBucket(kh.hash);
      let at = f.slotOf(i1, kh.fingerprint);
      if (at < 0) at = f.slotOf(alternate(i1, kh.fingerprint, f.numBuckets), kh.fingerprint);
      if (at < 0) continue;
      f.slots[at] = 0;
      --this.numItems;
      ++this.numDeletes;
      if (this.subFilters.length > 1 && 10 * this.numDeletes > this.numItems) this.compactPass(true);
      return true;
    }
    return false;
  }

  /** CF.COMPACT: the compaction pass, going on past sub-filters it cannot empty. */
  compact(): void {
    this.compactPass(false);
  }

  info(): CfInfo {
    return {
      size: this.tableBytes + 40 + 16 * this.subFilters.length,
      numberOfBuckets: this.firstBuckets,
      numberOfFilters: this.subFilters.length,
      numberOfItemsInserted: this.numItems,
      numberOfItemsDeleted: this.numDeletes,
      bucketSize: this.bucketSize,
      expansionRate: this.growth,
      maxIterations: this.maxIterations,
    };
  }

  /** CF.SCANDUMP's chunks, [iterator, bytes]: the 38-byte header, then each sub-filter's table in chunks of at most 16 MiB. */
  scanDump(): [number, Uint8Array][] {
    if (this.numItems === 0) return [];
    const header = new DataView(new ArrayBuffer(HEADER_BYTES));
    header.setBigUint64(0, BigInt(this.numItems), true);
    header.setBigUint64(8, BigInt(this.firstBuckets), true);
    header.setBigUint64(16, BigInt(this.numDeletes), true);
    header.setBigUint64(24, BigInt(this.subFilters.length), true);
    header.setUint16(32, this.bucketSize, true);
    header.setUint16(34, this.maxIterations, true);
    header.setUint16(36, this.growth, true);
    const chunks: [number, Uint8Array][] = [[1, new Uint8Array(header.buffer)]];
    let returned = 0;
    for (const f of this.subFilters) {
      for (let at = 0; at < f.slots.length; at += MAX_CHUNK_BYTES) {
        const chunk = f.slots.slice(at, Math.min(at + MAX_CHUNK_BYTES, f.slots.length));
        returned += chunk.length;
        chunks.push([1 + returned, chunk]);
      }
    }
    return chunks;
  }

  /** A free slot of bucket i1, else of i2, in the sub-filters newest first. */
  private placeAnywhere(kh: KeyHash): boolean {
    for (let s = this.subFilters.length - 1; s >= 0; --s) {
      const f = this.subFilters[s];
      const i1 = f.firstBucket(kh.hash);
      if (f.place(i1, kh.fingerprint) || f.place(alternate(i1, kh.fingerprint, f.numBuckets), kh.fingerprint)) return true;
    }
    return false;
  }

  /**
   * The kick chain in sub-filter f: the carried fingerprint (first the key's) swaps with the victim
   * in slot v of bucket i (v rotating through the slots), and the victim goes on to its alternate
   * bucket, until an empty slot takes it or max iterations swaps were made. A chain that fails is
   * undone swap by swap in reverse, so the table is exactly as before.
   */
  private kick(f: SubFilter, kh: KeyHash): boolean {
    const swapped: number[] = [];
    let carried = kh.fingerprint;
    let i = f.firstBucket(kh.hash);
    let v = 0;
    for (let n = 0; n < this.maxIterations; ++n) {
      const at = i * this.bucketSize + v;
      const victim = f.slots[at];
      f.slots[at] = carried;
      carried = victim;
      swapped.push(at);
      i = alternate(i, carried, f.numBuckets);
      if (f.place(i, carried)) return true;
      v = (v + 1) % this.bucketSize;
    }
    for (let k = swapped.length - 1; k >= 0; --k) {
      const victim = f.slots[swapped[k]];
      f.slots[swapped[k]] = carried;
      carried = victim;
    }
    return false;
  }

  /**
   * Compaction: sub-filters from the newest down to sub-filter 1, each slot in order, move the
   * fingerprint in bucket x into the oldest older sub-filter j with a free slot in bucket x mod m_j,
   * else in its alternate there. The newest sub-filter left is freed when all of it moved. A
   * sub-filter that keeps a fingerprint ends the pass when `stopAtStuck` (CF.DEL's compaction).
   * Deletes are counted from 0 again.
   */
  private compactPass(stopAtStuck: boolean): void {
    for (let s = this.subFilters.length - 1; s >= 1; --s) {
      const f = this.subFilters[s];
      let stuck = false;
      for (let at = 0; at < f.slots.length; ++at) {
        const fingerprint = f.slots[at];
        if (fingerprint === 0) continue;
        const x = Math.floor(at / this.bucketSize);
        let moved = false;
        for (let j = 0; j < s && !moved; ++j) {
          const older = this.subFilters[j];
          const i = x % older.numBuckets;
          moved = older.place(i, fingerprint) || older.place(alternate(i, fingerprint, older.numBuckets), fingerprint);
        }
        if (moved) f.slots[at] = 0;
        else stuck = true;
      }
      if (!stuck && s === this.subFilters.length - 1) this.subFilters.pop();
      if (stuck && stopAtStuck) break;
    }
    this.numDeletes = 0;
  }
}
