// A multiset model of a cuckoo filter's contents, for the model-based property
// tests (tests/js/property.test.ts). Keys are identified by their bytes: a
// string key is its UTF-8 encoding (TextEncoder, so a lone surrogate is U+FFFD),
// exactly as the filter hashes it.

export type Key = string | Uint8Array;

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes the filter hashes for `key`. */
export function keyBytes(key: Key): Uint8Array {
  return typeof key === 'string' ? encoder.encode(key) : key;
}

/** An injective name for a key's bytes (one latin1 char per byte), for Map identity. */
export function keyId(key: Key): string {
  const b = keyBytes(key);
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
}

/** A short printable form of a key for counterexamples: strings as JSON, bytes as hex. */
export function showKey(key: Key): string {
  if (typeof key === 'string') {
    return key.length > 40 ? `${JSON.stringify(key.slice(0, 40))}…(${key.length} units)` : JSON.stringify(key);
  }
  const hex = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('hex');
  return `bytes[${hex.length > 80 ? `${hex.slice(0, 80)}…(${key.length} bytes)` : hex}]`;
}

/** One distinct key the model holds: its bytes, a string with those UTF-8 bytes if there is one, its multiplicity. */
export interface Entry {
  readonly bytes: Uint8Array;
  readonly text: string | undefined;
  count: number;
}

/** Multiset of keys: key (by bytes) → multiplicity. */
export class MultisetModel {
  private readonly entries = new Map<string, Entry>();
  /** Sum of the multiplicities: what the filter's `size` must be. */
  total = 0;
  /** Counter for commands that make fresh keys (advanced deterministically, so shrinking replays the same keys). */
  fresh = 0;

  add(key: Key, times = 1): void {
    const id = keyId(key);
    const e = this.entries.get(id);
    if (e) e.count += times;
    else this.entries.set(id, { bytes: keyBytes(key).slice(), text: textOf(key), count: times });
    this.total += times;
  }

  /** Removes one copy; throws if the model does not hold the key (a test bug, not a filter bug). */
  remove(key: Key): void {
    const id = keyId(key);
    const e = this.entries.get(id);
    if (!e) throw new Error(`model does not hold ${showKey(key)}`);
    if (--e.count === 0) this.entries.delete(id);
    --this.total;
  }

  multiplicity(key: Key): number {
    return this.entries.get(keyId(key))?.count ?? 0;
  }

  /** Distinct keys held. */
  get distinct(): number {
    return this.entries.size;
  }

  /** The distinct keys held, in first-insertion order. */
  keys(): IterableIterator<Entry> {
    return this.entries.values();
  }

  /** The `index % distinct`-th distinct key (insertion order); undefined if empty. */
  pick(index: number): Entry | undefined {
    if (this.entries.size === 0) return undefined;
    let i = index % this.entries.size;
    for (const e of this.entries.values()) if (i-- === 0) return e;
    return undefined;
  }
}

/** A string whose UTF-8 encoding is the key's bytes, or undefined if the bytes are not valid UTF-8. */
function textOf(key: Key): string | undefined {
  if (typeof key === 'string') return key;
  try {
    return strictDecoder.decode(key);
  } catch {
    return undefined;
  }
}
