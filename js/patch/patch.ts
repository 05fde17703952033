/**
 * Patches between two versions of a filter (docs/FORMAT.md §17; src/patch/patch.h):
 * the bytes-only functions for servers and storage ({@link diffBytes},
 * {@link applyPatchBytes}, {@link patchInfo}), and the argument checks and
 * errors that `diff` / `applyPatch` of every filter (js/filters/wasm-filter.ts) share.
 * A patch is computed by the core on serialized filters only, so one
 * implementation serves every family. Touches no wasm memory.
 */
import { byteLengthOf, describe, isArrayBuffer, isDetached, isUint8Array } from '../common/checks.js';
import { ArgumentRangeError, ArgumentTypeError, FilterFormatError } from '../common/errors.js';
import { familyOf } from '../registry.js';
import { loadCore } from '../boundary/load.js';
import { MAX_WASM_MEMORY, statusError } from '../common/status.js';
import type { Core, PatchMismatch, PatchRefusal } from '../boundary/wasm-core.js';
import type { ReadCore } from '../boundary/read-core.js';

/**
 * What a patch's header says (docs/FORMAT.md §17), read without applying it.
 * Checksums are the XXH3-64 each filter's bytes end with, as 16 hex digits.
 */
export interface PatchInfo {
  /** The patch format version. */
  readonly version: number;
  /** The class whose filters it patches: 'CuckooFilter', 'BloomFilter', 'RedisCuckooFilter' or 'RedisBloomFilter'. */
  readonly family: string;
  /** Bytes of the filter it applies to (its base). */
  readonly baseLength: number;
  /** Checksum of its base. */
  readonly baseChecksum: string;
  /** Bytes of the filter it makes. */
  readonly resultLength: number;
  /** Checksum of the filter it makes. */
  readonly resultChecksum: string;
  /** How many changes it encodes (fingerprints added, removed or moved; Bloom bits set; header edits). */
  readonly changes: number;
}

/**
 * Checks that `value` is patch or filter bytes (a Uint8Array of any realm, at any offset, or an
 * ArrayBuffer), not detached and not larger than wasm memory can ever hold, and views it.
 * `what` names the argument in the message (as `diff: older`), `accepted` what it may be.
 * @throws ArgumentTypeError, ArgumentRangeError
 * @internal
 */
export function patchInput(value: unknown, what: string, accepted = 'a Uint8Array or ArrayBuffer'): Uint8Array {
  if (!isArrayBuffer(value) && !isUint8Array(value)) {
    throw new ArgumentTypeError(`${what} must be ${accepted}, got ${describe(value)}`);
  }
  if (isDetached(value)) {
    throw new ArgumentTypeError(
      `${what} is a detached buffer (transferred to a worker, or resized away): it has no bytes to read; pass the bytes before transferring them`,
    );
  }
  const view = isArrayBuffer(value) ? new Uint8Array(value) : value;
  const length = byteLengthOf(view);
  if (length > MAX_WASM_MEMORY / 2) {
    throw new ArgumentRangeError(`${what} has ${length} bytes, more than any filter or patch can have (at most ${MAX_WASM_MEMORY / 2})`);
  }
  return view;
}

/**
 * The error of a patch call the core refused: a FilterFormatError with the status's reason
 * ('patch-wrong-base', 'patch-family', ..., or a filter format reason for bytes that are no filter)
 * whose message starts with `action` and says why (for 'patch-family', the field that differs and
 * both values), or the status's own error (OutOfMemoryError for `bytes` bytes).
 * @internal
 */
export function patchError(core: ReadCore, refusal: PatchRefusal | number, action: string, bytes: number): Error {
  const status = typeof refusal === 'number' ? -refusal : refusal.status;
  const mismatch = typeof refusal === 'number' ? undefined : refusal.mismatch;
  const detail = mismatch ? mismatchSentence(mismatch) : core.statusMessage(status);
  const e = statusError(status, { detail, bytes });
  return e instanceof FilterFormatError ? new FilterFormatError(`${action}: ${detail}`, e.reason) : e;
}

/**
 * "the filters differ in fingerprint bits: 12 in the older filter, 13 in the newer": the sentence of a PatchFamily
 * refusal from two filters compared.
 * @internal
 */
export function mismatchSentence(m: PatchMismatch): string {
  const shown = (v: number | string) => (m.field === 'family' ? familyOf(Number(v))?.className ?? `family ${v}` : String(v));
  const what = m.section >= 0 ? `sub-filter ${m.section}'s ${m.field}` : m.field;
  return `the filters differ in ${what}: ${shown(m.older)} in the older filter, ${shown(m.newer)} in the newer`;
}

/**
 * The error of `diff` given a filter of another family than its own (family ids of src/common/family.h).
 * @internal
 */
export function familyMismatch(own: number, other: number): FilterFormatError {
  const name = (id: number) => familyOf(id)?.what ?? `a filter of family ${id}`;
  return new FilterFormatError(
    `cannot diff ${name(own)} against ${name(other)}: a patch leads from one version of a filter to another of the same family and parameters`,
    'patch-family',
  );
}

/**
 * The patch that turns the filter `older` into `newer`, from their bytes alone (`toBytes()` of
 * two versions of one filter: same family and parameters; `newer` may have more sub-filters).
 * What `newer.diff(older)` returns, for a server that keeps the bytes and not the filters.
 *
 * @param older - the filter's bytes as clients have them (a Uint8Array, any realm, or ArrayBuffer).
 * @param newer - the bytes of its next version.
 * @returns a promise of the patch (docs/FORMAT.md §17), a new Uint8Array the caller owns.
 * @throws FilterFormatError with reason 'patch-family' if the two differ in family or parameters
 *   (the message names the field and both values), or a format reason ('truncated',
 *   'checksum-mismatch', ...) if either is not a valid filter.
 * @throws ArgumentTypeError if either is not a Uint8Array or ArrayBuffer, or is detached.
 * @throws ArgumentRangeError (more than 1 GiB), OutOfMemoryError, WasmLoadError.
 * @example
 * ```ts
 * const patch = await diffBytes(readFileSync('day1.cuckoo'), readFileSync('day2.cuckoo'));
 * ```
 */
export async function diffBytes(older: Uint8Array | ArrayBuffer, newer: Uint8Array | ArrayBuffer): Promise<Uint8Array> {
  return onBytes(['diffBytes: older', older], ['diffBytes: newer', newer], 'cannot diff these filters', (core, a, b) => (core as Core).patchDiff(a, b));
}

/**
 * The bytes of the filter `patch` makes of the filter bytes `base`, from bytes alone: byte for byte
 * the newer filter's `toBytes()`. What `filter.applyPatch(patch)` does, for storage that keeps bytes.
 * The patch is checked against `base` (its length and checksum) before anything, and the result
 * (its checksum, a full load as a filter, the base's parameters) before it is returned; `base` is
 * never changed.
 *
 * @param base - the filter's bytes (a Uint8Array, any realm, or ArrayBuffer).
 * @param patch - a patch of {@link diffBytes} or `diff`.
 * @returns a promise of the new filter's bytes, a new Uint8Array the caller owns.
 * @throws FilterFormatError with reason 'patch-wrong-base' (the patch is for another version of
 *   the filter), 'patch-family' (for another family, or its result's parameters are not the base's:
 *   the message names the field and both values), 'patch-not-a-patch',
 *   'patch-version', 'patch-truncated', 'patch-corrupt' or 'patch-result-mismatch'.
 * @throws ArgumentTypeError, ArgumentRangeError, OutOfMemoryError, WasmLoadError, as {@link diffBytes}.
 * @example
 * ```ts
 * const day2 = await applyPatchBytes(stored, await (await fetch(patchUrl)).arrayBuffer());
 * ```
 */
export async function applyPatchBytes(base: Uint8Array | ArrayBuffer, patch: Uint8Array | ArrayBuffer): Promise<Uint8Array> {
  return onBytes(['applyPatchBytes: base', base], ['applyPatchBytes: patch', patch], 'cannot apply the patch', (core, a, p) => core.patchApply(a, p));
}

/**
 * What diffBytes and applyPatchBytes do around their core call: both inputs checked, before loading the module and
 * again after (the caller's code ran during the await and may have transferred them), then `call`, whose refusal
 * becomes the error of `action`.
 */
async function onBytes(
  [whatX, x]: [string, unknown],
  [whatY, y]: [string, unknown],
  action: string,
  call: (core: ReadCore, a: Uint8Array, b: Uint8Array) => Uint8Array | PatchRefusal,
): Promise<Uint8Array> {
  patchInput(x, whatX);
  patchInput(y, whatY);
  const core = await loadCore();
  const a = patchInput(x, whatX);
  const b = patchInput(y, whatY);
  const r = call(core, a, b);
  if (!(r instanceof Uint8Array)) throw patchError(core, r, action, byteLengthOf(a) + byteLengthOf(b));
  return r;
}

/**
 * What a patch says about itself (its header; the body is not decoded): the family, the lengths
 * and checksums of the filters it leads from and to, and how many changes it carries.
 *
 * @throws FilterFormatError ('patch-not-a-patch', 'patch-version', 'patch-truncated', 'patch-corrupt').
 * @throws ArgumentTypeError, ArgumentRangeError, WasmLoadError, as {@link diffBytes}.
 * @example
 * ```ts
 * const { baseChecksum, changes } = await patchInfo(patch);
 * ```
 */
export async function patchInfo(patch: Uint8Array | ArrayBuffer): Promise<PatchInfo> {
  patchInput(patch, 'patchInfo: patch');
  const core = await loadCore();
  const p = patchInput(patch, 'patchInfo: patch');
  const r = core.patchInfo(p);
  if (typeof r === 'number') throw patchError(core, r, 'not a patch', byteLengthOf(p));
  const family = familyOf(r.family)?.className ?? `family ${r.family}`;
  return {
    version: r.version,
    family,
    baseLength: r.baseLength,
    baseChecksum: r.baseChecksum,
    resultLength: r.resultLength,
    resultChecksum: r.resultChecksum,
    changes: r.changes,
  };
}
