/**
 * Argument checks of keys and byte arrays, shared by every method that takes
 * them: brand checks that hold across realms, the key type error, and a
 * description of a value for an error message. Touches no wasm memory.
 */
import { ArgumentTypeError } from './errors.js';

/** A key: a string (hashed as its UTF-8 bytes) or raw bytes. */
export type Key = string | Uint8Array;

// Brand checks through the intrinsic getters: true for a Uint8Array of any realm
// (a vm context, an iframe), false for look-alikes, and blind to subclasses that
// override `length`, so what is measured is what gets copied.
const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype) as object;
const intrinsicGetter = (name: PropertyKey) =>
  Object.getOwnPropertyDescriptor(typedArrayProto, name)!.get as (this: unknown) => unknown;
const typedArrayTag = intrinsicGetter(Symbol.toStringTag);
const typedArrayLength = intrinsicGetter('length') as (this: unknown) => number;
const typedArrayBuffer = intrinsicGetter('buffer') as (this: unknown) => ArrayBufferLike;
const arrayBufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')!.get!;

/** True for a Uint8Array from any realm (not a Uint8ClampedArray, not a look-alike). */
export function isUint8Array(value: unknown): value is Uint8Array {
  return typedArrayTag.call(value) === 'Uint8Array';
}

/** The length of a Uint8Array (any realm), read from its internal slot. */
export function byteLengthOf(bytes: Uint8Array): number {
  return typedArrayLength.call(bytes);
}

/** True for an ArrayBuffer from any realm (not a SharedArrayBuffer). */
export function isArrayBuffer(value: unknown): value is ArrayBuffer {
  try {
    arrayBufferByteLength.call(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * True if the buffer behind `bytes` (or `bytes` itself) was detached, e.g.
 * transferred to a worker: its views then read as empty.
 */
export function isDetached(bytes: Uint8Array | ArrayBuffer): boolean {
  const buffer = isUint8Array(bytes) ? typedArrayBuffer.call(bytes) : bytes;
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

/**
 * Describes a value for an error message without dumping it. Never throws: the
 * error it is for is thrown instead of whatever inspecting the value would
 * throw (a revoked Proxy, a `constructor` getter that throws).
 */
export function describe(value: unknown): string {
  try {
    if (value === null) return 'null';
    if (Array.isArray(value)) return 'an array';
    if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
    if (typeof value === 'object') return `an object (${(value as object).constructor?.name ?? 'no prototype'})`;
    return `${typeof value} ${String(value)}`;
  } catch {
    return typeof value === 'object' ? 'an object that cannot be inspected (a revoked Proxy?)' : typeof value;
  }
}

/** The error for a key that is neither a string nor a live Uint8Array; `where` names it (`key`, `keys[3]`). */
export function keyTypeError(key: unknown, where: string): ArgumentTypeError {
  if (isUint8Array(key)) {
    return new ArgumentTypeError(
      `${where} is a Uint8Array whose buffer was detached (transferred or resized away): it has no bytes to read; pass a copy made before the transfer`,
    );
  }
  return new ArgumentTypeError(`${where} must be a string or a Uint8Array, got ${describe(key)}`);
}

/** True if `key` can be written: a string, or a Uint8Array whose buffer is not detached. */
export function isKey(key: unknown): key is Key {
  if (typeof key === 'string') return true;
  return isUint8Array(key) && (byteLengthOf(key) > 0 || !isDetached(key));
}
