/**
 * Where a lookup batch (`hasAll`, `hasAllUrls`) puts its answers: a new
 * `boolean[]`, or a Uint8Array the caller owns and passes in (one byte per
 * key, 1 for "may be in the filter", 0 for "definitely not"), so a batch
 * allocates nothing per answer. The checks that keep writes into a
 * caller's array in bounds: it is a Uint8Array (any realm, a view of a
 * SharedArrayBuffer too), not detached, long enough, and not a view of wasm
 * memory (which answers would overwrite). The caller's code runs while a
 * batch reads keys and may resize or transfer the array's buffer, so its
 * length is read again from its internal slot just before each write.
 * Touches no wasm memory: js/boundary/wasm-core.ts hands in the view of the results.
 */
import { ArgumentRangeError, ArgumentTypeError } from './errors.js';
import { byteLengthOf, describe, isDetached, isUint8Array } from './checks.js';

/** The answers of a lookup batch: a new boolean[], or the caller's Uint8Array. */
export type Answers = boolean[] | Uint8Array;

// %TypedArray%.prototype's own `set` and `buffer` getter: a subclass's or an own
// property is never consulted, so no user code runs and no realm matters.
const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype) as object;
const typedArraySet = (typedArrayProto as Uint8Array).set as (this: Uint8Array, source: ArrayLike<number>, offset: number) => void;
const typedArrayBuffer = Object.getOwnPropertyDescriptor(typedArrayProto, 'buffer')!.get as (this: Uint8Array) => ArrayBufferLike;

/**
 * Checks the `out` argument of a lookup batch before any key is read: a
 * Uint8Array (any realm) whose buffer is not detached and not wasm memory's
 * (`isMemory`, js/boundary/wasm-core.ts). Its length is checked by {@link checkRoom}
 * once the number of keys is known, or key by key for an iterator.
 * @throws ArgumentTypeError if it is not a Uint8Array, is detached, or is a view of wasm memory.
 */
export function checkAnswerBytes(out: unknown, isMemory: (buffer: ArrayBufferLike) => boolean): Uint8Array {
  if (!isUint8Array(out)) throw new ArgumentTypeError(`out must be a Uint8Array, got ${describe(out)}`);
  if (isMemory(typedArrayBuffer.call(out))) throw new ArgumentTypeError('out is a view of wasm memory: pass a Uint8Array of its own');
  return checkRoom(out, 0, 0);
}

/**
 * Checks, just before a write of answers for keys [`from`, `end`), that `out`
 * is not detached and still holds `end` bytes: the caller's code may have
 * shrunk, resized or transferred its buffer while keys were read. Runs no user code.
 * @throws ArgumentTypeError if its buffer was detached; ArgumentRangeError if it is shorter than `end`.
 */
export function checkRoom(out: Uint8Array, end: number, from: number): Uint8Array {
  const length = byteLengthOf(out); // 0 once detached or out of bounds
  if (length >= end && (length > 0 || !isDetached(out))) return out;
  if (isDetached(out)) throw new ArgumentTypeError("out's buffer was detached (transferred or resized away)");
  throw new ArgumentRangeError(`out has length ${length}, needs at least ${end} (one byte per key) for keys[${from}..${end - 1}]`);
}

/**
 * Copies `n` answers (bytes 0 / 1, src/common/batch.h) from `results[from ..]` to
 * `out[at ..]`: into a boolean[] one by one, into a Uint8Array at once (which
 * {@link checkRoom} found long enough). Returns the index after the last.
 */
export function writeAnswers(results: Uint8Array | Int8Array, from: number, n: number, out: Answers, at: number): number {
  if (Array.isArray(out)) {
    for (let i = 0; i < n; ++i) out[at + i] = results[from + i] !== 0;
  } else {
    typedArraySet.call(out, results.subarray(from, from + n), at);
  }
  return at + n;
}
