/**
 * Key packing for the batches (`addAll`, `hasAll` and their URL forms): a
 * {@link Chunk} holds the keys read from the caller for one crossing, and packs
 * them back to back with their offsets into the arrays it is given. Never
 * touches wasm memory itself: js/boundary/wasm-core.ts hands it the views.
 */
import { Key, byteLengthOf } from './checks.js';

/** Most keys in one chunk of a batch (one boundary crossing). */
export const BATCH_MAX_KEYS = 8192;
/**
 * Most UTF-16 code units (plus Uint8Array bytes) in one chunk. Keeps a chunk's
 * joined string below V8's large-object size (128 KiB), where building and
 * encoding it gets markedly slower before Node.js 26, also when V8 holds it
 * with two bytes per unit: a string with a unit above U+00FF, and any string
 * sliced or joined from one (every line of a file read as one text that has a
 * single such character anywhere). One longer key makes a chunk of its own.
 */
const BATCH_MAX_UNITS = 32 * 1024;
/** Bytes of keys a batch region holds at least: UTF-8 needs at most 3 bytes per unit. */
export const BATCH_KEY_BYTES = 3 * BATCH_MAX_UNITS;
/** A code unit that is not ASCII: where a chunk's joined encoding stops matching its offsets. */
const NON_ASCII = /[^\x00-\x7f]/g;

const encoder = new TextEncoder();

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

  /**
   * Packs the keys as UTF-8 / raw bytes back to back into `heap[base, base +
   * cap)` (cap >= {@link maxBytes}) and their n + 1 offsets into `offsets[o ..]`:
   * key i is at base + [offsets[o + i], offsets[o + i + 1]). Then empties the
   * chunk, and returns how many keys it held. Runs no user code. The arrays
   * are any the caller gives (the boundary gives views of wasm memory taken
   * just before).
   */
  packInto(heap: Uint8Array, base: number, cap: number, offsets: Uint32Array, o: number): number {
    const keys = this.keys;
    const n = this.count;
    if (this.allStrings) {
      // One encodeInto for the whole chunk. When every unit was ASCII it wrote
      // one byte per unit, and the offsets are the running sum of the lengths.
      const joined = this.joined;
      const written = encoder.encodeInto(joined, heap.subarray(base, base + cap)).written;
      if (written === this.units) {
        let at = 0;
        for (let i = 0; i < n; ++i) {
          offsets[o + i] = at;
          at += (keys[i] as string).length;
        }
        offsets[o + n] = at;
      } else {
        rewriteFromFirstNonAscii(keys as string[], n, joined, heap, offsets, base, o);
      }
    } else {
      const { stage, stageAt, stageLength } = this;
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
    this.clear();
    return n;
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
/** Largest stage kept (bytes): one chunk's keys, 32K units, fit; a stage grown for one huge key is let go. */
const SPARE_STAGE_MAX = 1 << 20;

/**
 * For a chunk of strings whose joined encoding met a non-ASCII unit: the keys
 * before the first non-ASCII key are in place already; from there on, each
 * non-ASCII key is encoded on its own (so a lone surrogate at a key's edge
 * becomes U+FFFD, not half of a pair with its neighbour) and each run of
 * ASCII keys between them in one `encodeInto` of a slice of `joined`.
 */
function rewriteFromFirstNonAscii(
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
