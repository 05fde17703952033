/**
 * What every filter class does with serialized bytes before and after its
 * family's core reads them: the checks of `fromBytes`' argument, and the bits
 * per item the core's sizes give. Touches no wasm memory.
 */
import { ArgumentRangeError, ArgumentTypeError } from '../common/errors.js';
import { byteLengthOf, describe, isArrayBuffer, isDetached, isUint8Array } from '../common/checks.js';
import { loadCore } from '../boundary/load.js';
import { MAX_WASM_MEMORY } from '../common/status.js';
import type { ReadCore } from '../boundary/read-core.js';

/**
 * What every `fromBytes` does before its family's core reads the bytes: checks
 * that they are a Uint8Array or ArrayBuffer (of any realm), loads the module,
 * then checks that the buffer is not detached (the caller's code runs during
 * the await and may transfer it) and not longer than any filter can be.
 * @throws ArgumentTypeError, ArgumentRangeError, WasmLoadError
 * @internal
 */
export async function checkedBytes(
  bytes: unknown,
): Promise<{ core: ReadCore; view: Uint8Array; length: number }> {
  // Brand checks, not instanceof: bytes from another realm (a vm context, an iframe) are welcome.
  if (!isArrayBuffer(bytes) && !isUint8Array(bytes)) {
    throw new ArgumentTypeError(`fromBytes needs a Uint8Array or ArrayBuffer, got ${describe(bytes)}`);
  }
  const core = await loadCore();
  if (isDetached(bytes)) {
    throw new ArgumentTypeError(
      'fromBytes got a detached buffer (transferred to a worker, or resized away): it has no bytes to read; pass the bytes before transferring them',
    );
  }
  const view = isArrayBuffer(bytes) ? new Uint8Array(bytes) : bytes;
  const length = byteLengthOf(view);
  if (length > MAX_WASM_MEMORY / 2) {
    throw new ArgumentRangeError(
      `${length} bytes is larger than any filter this build can hold (at most ${MAX_WASM_MEMORY / 2} bytes)`,
    );
  }
  return { core, view, length };
}

/**
 * Serialized bits per item of a filter as the core reports it: its bytes · 8
 * over the capacity of all its sub-filters.
 * @internal
 */
export function bitsPerItemOf(info: { serializedSize: number; subFilters: { capacity: number }[] }): number {
  const capacity = info.subFilters.reduce((n, sub) => n + sub.capacity, 0);
  return (info.serializedSize * 8) / capacity;
}
