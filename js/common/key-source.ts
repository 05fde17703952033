/**
 * How a batch (js/filters/wasm-filter.ts) reads the caller's keys: an array or
 * array-like by index, any other iterable through its iterator, which is
 * closed when the batch stops early. Touches no wasm memory.
 */
import { ArgumentTypeError } from './errors.js';
import { describe } from './checks.js';
import { quoted } from './status.js';

/** The most elements a JS array holds: hasAll answers at most this many keys of an array-like. */
export const MAX_ARRAY_LENGTH = 2 ** 32 - 1;

/** How a batch reads the caller's keys: by index (arrays, array-likes) or through an iterator. */
export type KeySource = { list: ArrayLike<unknown>; length: number; iterator?: undefined } | { iterator: Iterator<unknown> };

/**
 * Checks that `keys` is an array, an iterable or an array-like (a non-negative
 * integer `length`), and how to read it. An array-like's length is read once, so
 * one that shrinks while it is read yields `undefined` keys, which are refused.
 */
export function keySource(keys: unknown): KeySource {
  if (typeof keys === 'string') {
    // Iterable (by character), but a string given as the keys is a mistake for one key.
    throw new ArgumentTypeError(
      `keys must be an iterable or array-like of keys, got a string ${quoted(keys, 40)}: pass [key], or call the one-key method`,
    );
  }
  if (typeof keys === 'object' && keys !== null) {
    let array: boolean;
    try {
      array = Array.isArray(keys);
    } catch {
      throw new ArgumentTypeError('keys is a revoked Proxy: it has no keys to read');
    }
    if (array) return { list: keys as unknown[], length: (keys as unknown[]).length };
    const iterate = (keys as Partial<Iterable<unknown>>)[Symbol.iterator];
    if (typeof iterate === 'function') {
      const iterator = iterate.call(keys) as Iterator<unknown>;
      if (typeof iterator === 'object' && iterator !== null && typeof iterator.next === 'function') return { iterator };
    } else {
      const length = (keys as ArrayLike<unknown>).length;
      if (Number.isSafeInteger(length) && length >= 0) return { list: keys as ArrayLike<unknown>, length };
    }
  }
  throw new ArgumentTypeError(
    `keys must be an iterable or array-like of strings and Uint8Arrays, got ${describe(keys)}`,
  );
}

/** Closes an iterator a batch stops reading early (as `for...of` does on `break`); its errors are not ours to report. */
export function closeIterator(iterator: Iterator<unknown>): void {
  try {
    iterator.return?.();
  } catch {
    // The batch's own outcome (its error or result) is what the caller gets.
  }
}
