/**
 * Checks of the options the filter families take the same way: the options
 * object, integers, the capacity, the false-positive rate, the hash seed and
 * the growth factor (ours, and RedisBloom's for the Redis families). Each
 * family's `create` calls them in its own order, with its own defaults.
 * @internal
 */
import { ArgumentRangeError, ArgumentTypeError } from './errors.js';
import { describe } from './checks.js';
import { MAX_WASM_MEMORY } from './status.js';

/** cuckoo::kDefaultSeed, 0x63756b6f6f2d7761 (src/common/hash.h). */
export const DEFAULT_SEED = 0x63756b6f6f2d7761n;
const U64_MAX = (1n << 64n) - 1n;
/** Largest growth factor the core accepts (cuckoo::format::kMaxExpansion, src/format/format.h). */
export const MAX_EXPANSION = 1024;
/** Largest EXPANSION RedisBloom's CF.RESERVE and BF.RESERVE accept (src/redis/redis_cuckoo.h, kRedisBloomMaxExpansion in src/redis/redis_bloom.h). */
const MAX_REDIS_EXPANSION = 32768;

/** `value` if it is an integer in [min, max]. @throws ArgumentTypeError, ArgumentRangeError */
export function checkInteger(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number') {
    throw new ArgumentTypeError(`${name} must be a number, got ${describe(value)}`);
  }
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ArgumentRangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

/** `value` if it is a probability in (0, 1). @throws ArgumentTypeError, ArgumentRangeError */
function checkProbability(name: string, value: unknown): number {
  if (typeof value !== 'number') {
    throw new ArgumentTypeError(`${name} must be a number in (0, 1), got ${describe(value)}`);
  }
  if (!(value > 0 && value < 1)) {
    throw new ArgumentRangeError(`${name} must be a probability in (0, 1), got ${value}`);
  }
  return value;
}

/**
 * The options object of `family`'s `create` (e.g. `CuckooFilter.create`; or of the factory `method` names, e.g.
 * `BinaryFuseFilter.build`), whose options are the family's row's (js/registry.ts).
 * @param needs - what the options must be, for the message: by default an object with `create`'s one required option.
 * @throws ArgumentTypeError if it is not an object, or it has an option not in the row (a
 *   misspelt option would otherwise be left at its default without a word)
 */
export function checkOptions<T>(
  options: T,
  family: { readonly className: string; readonly options: readonly string[] },
  method = 'create',
  needs = 'an object with at least { capacity }',
): T & object {
  const known = family.options;
  if (typeof options !== 'object' || options === null) {
    throw new ArgumentTypeError(`options must be ${needs}, got ${describe(options)}`);
  }
  try {
    Array.isArray(options); // throws only for a revoked Proxy
  } catch {
    throw new ArgumentTypeError('options is a revoked Proxy: it has no options to read');
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new ArgumentTypeError(`unknown option ${JSON.stringify(key)}: the options of ${family.className}.${method} are ${known.join(', ')}`);
    }
  }
  return options;
}

/** The `capacity` option: an integer from 1 to `max` keys. @throws ArgumentTypeError, ArgumentRangeError */
export function toCapacity(value: unknown, max = Number.MAX_SAFE_INTEGER): number {
  return checkInteger('capacity', value, 1, max);
}

/**
 * The `falsePositiveRate` option: `fallback` (the family's default) when undefined, else a probability in (0, 1).
 * @throws ArgumentTypeError, ArgumentRangeError
 */
export function toFalsePositiveRate(value: unknown, fallback: number): number {
  return checkProbability('falsePositiveRate', value === undefined ? fallback : value);
}

/** The `seed` option as a u64: the default when undefined. @throws ArgumentTypeError, ArgumentRangeError */
export function toSeed(value: unknown): bigint {
  if (value === undefined) return DEFAULT_SEED;
  if (typeof value === 'bigint') {
    if (value < 0n || value > U64_MAX) throw new ArgumentRangeError(`seed must be from 0 to 2^64-1, got ${value}`);
    return value;
  }
  return BigInt(checkInteger('seed', value, 0, Number.MAX_SAFE_INTEGER));
}

/**
 * The `expansion` option as the core takes it: 0 (undefined: the filter does
 * not grow) or an integer growth factor 2..1024.
 * @throws ArgumentTypeError, ArgumentRangeError
 */
export function toExpansion(value: unknown): number {
  if (value === undefined) return 0;
  return checkInteger('expansion', value, 2, MAX_EXPANSION);
}

/**
 * The `expansion` option of a Redis family, as the server takes EXPANSION: `fallback` (the
 * server's default) when undefined or null, else an integer 0..32768.
 * @throws ArgumentTypeError, ArgumentRangeError
 */
export function toRedisExpansion(value: unknown, fallback: number): number {
  return checkInteger('expansion', value ?? fallback, 0, MAX_REDIS_EXPANSION);
}

/** The seed from the two 32-bit words the core reports. */
export function seedFromWords(low: number, high: number): bigint {
  return (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0);
}

/** A u64 seed as the [low, high] 32-bit words the core's functions take. */
export function seedWords(seed: bigint): [number, number] {
  return [Number(seed & 0xffffffffn), Number(seed >> 32n)];
}

/**
 * The error for a capacity whose filter would be larger than a filter may be (half the WebAssembly
 * memory limit): the bytes it needs, and the largest capacity that fits.
 *
 * @param size - What the core's sizing found (src/growth/sizing.h SizeCuckoo): the filter's bytes (0
 *   when it would need more than 2^32 buckets: the bytes then grow in proportion to the keys), the
 *   most keys that fit, and their bytes.
 * @param shape - The options that set the bytes per key, for the message.
 * @param smaller - What a larger falsePositiveRate gives, for the message.
 */
export function capacityTooLarge(
  capacity: number,
  size: { bytes: number; maxCapacity: number; bytesAtMax: number },
  shape: string,
  smaller: string,
): ArgumentRangeError {
  const limit = MAX_WASM_MEMORY / 2;
  const most = size.maxCapacity;
  const need =
    size.bytes > 0 ? `${size.bytes} bytes` : `about ${Math.ceil((size.bytesAtMax / most) * capacity)} bytes (more than 2^32 buckets)`;
  return new ArgumentRangeError(
    `capacity ${capacity} is too large: with ${shape} it needs ${need}, and a filter may use at most ${limit} bytes ` +
      `(half the ${MAX_WASM_MEMORY}-byte WebAssembly memory limit), which holds at most ${most} keys. ` +
      `Give a capacity of at most ${most}, a larger falsePositiveRate (${smaller}), or split the keys over several filters`,
  );
}
