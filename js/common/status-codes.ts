/**
 * The statuses the core reports (`cuckoo::Status`, src/status.h), by name and
 * value, each with what kind of error it is and, for a format error, its
 * `reason`: one table, from which {@link FilterFormatReason} (js/common/errors.ts)
 * and the errors of js/common/status.ts derive. It imports nothing but the
 * registry's types (js/registry.ts imports nothing), so the error classes can
 * take their reasons from it. tests/js/status.test.ts checks it
 * against src/status.h, both ways.
 *
 * A status added to src/status.h (for example one a second filter family's
 * deserializer reports) gets one row here; a format status brings its own
 * `reason`, which {@link FilterFormatReason} then includes.
 */

import type { FamilyDescriptor } from '../registry.js';

/**
 * One row per `cuckoo::Status` enumerator: its name without the `k`, its value,
 * and, for a status that is an error, its kind (js/common/status.ts KINDS) and, for a format
 * error, the `reason` (the names of docs/FORMAT.md §7).
 */
export const STATUSES = {
  Ok: { value: 0 },
  NotFound: { value: 1 },
  NotEnoughSpace: { value: 2, kind: 'full' },
  InvalidArgument: { value: 3, kind: 'range' },
  OutOfMemory: { value: 4, kind: 'memory' },
  FormatTruncated: { value: 10, kind: 'format', reason: 'truncated' },
  FormatBadMagic: { value: 11, kind: 'format', reason: 'bad-magic' },
  FormatUnsupportedVersion: { value: 12, kind: 'format', reason: 'unsupported-version' },
  FormatBadParameter: { value: 13, kind: 'format', reason: 'bad-parameter' },
  FormatTrailingBytes: { value: 14, kind: 'format', reason: 'trailing-bytes' },
  FormatChecksumMismatch: { value: 15, kind: 'format', reason: 'checksum-mismatch' },
  FormatCountMismatch: { value: 16, kind: 'format', reason: 'count-mismatch' },
  FormatBadVictim: { value: 17, kind: 'format', reason: 'bad-victim' },
  FormatBadPadding: { value: 18, kind: 'format', reason: 'bad-padding' },
  GrowthLimit: { value: 21, kind: 'growth' },
  // Any family's bytes given to another's fromBytes: the reason names the family found (StatusContext.found).
  FormatWrongFamily: { value: 22, kind: 'family' },
  FormatBadChunk: { value: 23, kind: 'format', reason: 'bad-chunk' },
  UrlEmpty: { value: 30, kind: 'url', reason: 'empty' },
  UrlNoHost: { value: 31, kind: 'url', reason: 'no-host' },
  UrlBadHost: { value: 32, kind: 'url', reason: 'bad-host' },
  UrlTooLong: { value: 33, kind: 'url', reason: 'too-long' },
  // Not an error a caller sees: the URL methods convert the host to Punycode and call again.
  UrlNonAsciiHost: { value: 34 },
  // Patches (src/patch/patch.h): each a FilterFormatError with its own reason.
  PatchNotAPatch: { value: 40, kind: 'patch', reason: 'patch-not-a-patch' },
  PatchVersion: { value: 41, kind: 'patch', reason: 'patch-version' },
  PatchTruncated: { value: 42, kind: 'patch', reason: 'patch-truncated' },
  PatchCorrupt: { value: 43, kind: 'patch', reason: 'patch-corrupt' },
  PatchWrongBase: { value: 44, kind: 'patch', reason: 'patch-wrong-base' },
  PatchFamily: { value: 45, kind: 'patch', reason: 'patch-family' },
  PatchResultMismatch: { value: 46, kind: 'patch', reason: 'patch-result-mismatch' },
} as const;

type Rows = typeof STATUSES;
type Row = Rows[keyof Rows];

/** A `cuckoo::Status` name, without the `k`. */
export type StatusName = keyof Rows;

/**
 * Why {@link FilterFormatError} refused some bytes: which check of docs/FORMAT.md §7 failed, or
 * (`is-*`, the FormatWrongFamily status with js/registry.ts's `foreignReason`) which family's bytes
 * were given to another family's `fromBytes`, or (`patch-*`, docs/FORMAT.md §17)
 * why a patch could not be made or applied: not a patch, an unknown patch version, truncated or
 * corrupted, for another version of the filter (`patch-wrong-base`), for another family or
 * parameters (`patch-family`), or its result's checksum is not the one it names.
 */
export type FilterFormatReason = Extract<Row, { kind: 'format' | 'patch' }>['reason'] | FamilyDescriptor['foreignReason'];

/** The status values by name, for comparing what a call returned: `Status.Ok` is 0. */
export const Status = Object.freeze(
  Object.fromEntries(Object.entries(STATUSES).map(([name, row]) => [name, row.value])),
) as { readonly [N in StatusName]: Rows[N]['value'] };

