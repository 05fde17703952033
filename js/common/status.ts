/**
 * The statuses the core reports (`cuckoo::Status`, src/status.h), by name and
 * value, and what each becomes on the TS side: the error class (and with it
 * the `code`), the `reason` of a {@link FilterFormatError}, and the message.
 * Every status an operation of the core returns is turned into an error here
 * and nowhere else. tests/js/status.test.ts checks this table against
 * src/status.h, both ways.
 *
 * A status added to src/status.h (for example one a second filter family's
 * deserializer reports) gets one row here; a format status brings its own
 * `reason`, which {@link FilterFormatReason} then includes.
 *
 * @internal
 */
import {
  ArgumentRangeError,
  FilterFormatError,
  FilterFullError,
  InvalidUrlError,
  InvalidUrlReason,
  OutOfMemoryError,
} from './errors.js';

/**
 * `text` for a one-line message: JSON-quoted, and when longer than `max` UTF-16
 * code units cut to its first `max` with its length, as `"abc..." (100000 characters)`.
 */
export function quoted(text: string, max: number): string {
  return text.length > max ? `${JSON.stringify(text.slice(0, max)).slice(0, -1)}..." (${text.length} characters)` : JSON.stringify(text);
}

/** Largest wasm memory the module may grow to (-sMAXIMUM_MEMORY in CMakeLists.txt), bytes. */
export const MAX_WASM_MEMORY = 2 ** 31;

/** What a call that returned a status tells the error about itself. */
export interface StatusContext {
  /** The core's own description of the status (cuckoo::StatusMessage). */
  readonly detail?: string;
  /** OutOfMemory: bytes that could not be allocated. */
  readonly bytes?: number;
  /** NotEnoughSpace: the full filter's state, and how many keys of a batch went in first. */
  readonly full?: { size: number; slots: number; capacity: number; maxKicks: number; added: number };
  /** GrowthLimit: the filter's sub-filters and bytes, and how many keys of a batch went in first. */
  readonly growth?: { subFilters: number; bytes: number; added: number };
  /** Url*: the refused URL (a string, or a description of bytes), and its index in a batch. */
  readonly url?: { input: string; index?: number };
  /** FormatWrongFamily: the family the bytes hold (js/registry.ts), as the core's PeekFamily found it. */
  readonly found?: { readonly what: string; readonly className: string; readonly foreignReason: FilterFormatReason } | undefined;
}

/** How a status that is an error becomes one: each kind is one error class and its message. */
const KINDS = {
  full: (c: StatusContext) => {
    const s = c.full!;
    return new FilterFullError(
      `the filter is full (${s.size} fingerprints in ${s.slots} slots, capacity ${s.capacity}): ` +
        `no slot found after ${s.maxKicks} kicks; the key was not added and nothing stored was lost. ` +
        'Create a filter with a larger capacity.',
      s.added,
    );
  },
  growth: (c: StatusContext) => {
    const g = c.growth!;
    return new FilterFullError(
      `the filter is full and cannot grow further (${g.subFilters} sub-filters, ${g.bytes} bytes; at most 32 ` +
        'sub-filters, 32-bit fingerprints, 2^32 buckets or bits, 1 GiB in all): the key was not added and nothing ' +
        'stored was lost. Create a filter with a larger capacity or expansion.',
      g.added,
    );
  },
  range: (c: StatusContext) => new ArgumentRangeError(`cannot create filter: ${c.detail}`),
  memory: (c: StatusContext) =>
    new OutOfMemoryError(
      `not enough WebAssembly memory for ${c.bytes} bytes (all filters of this realm share at most ${MAX_WASM_MEMORY} bytes); ` +
        'dispose filters you no longer need, or use a smaller filter',
      c.bytes!,
    ),
  url: (c: StatusContext, reason: InvalidUrlReason) => {
    const u = c.url!;
    const where = u.index === undefined ? '' : ` (index ${u.index})`;
    return new InvalidUrlError(`${quoted(u.input, 200)}${where} is not a URL: ${c.detail}`, reason, u.index);
  },
  family: (c: StatusContext) =>
    c.found === undefined
      ? new FilterFormatError(`wrong filter type: ${c.detail}`, 'bad-parameter')
      : new FilterFormatError(
          `wrong filter type: these bytes hold ${c.found.what}: load them with ${c.found.className}.fromBytes`,
          c.found.foreignReason,
        ),
  // A patch that cannot be made or applied (docs/FORMAT.md §17); the detail says why (for 'patch-family' from a
  // diff's two filters or an apply's base and result, the field and both values: js/patch/patch.ts mismatchSentence).
  // Nothing was changed.
  patch: (c: StatusContext, reason: FilterFormatReason) => new FilterFormatError(`patch refused: ${c.detail}`, reason),
  format: (c: StatusContext, reason: FilterFormatReason) =>
    new FilterFormatError(
      reason === 'is-bloom-filter' || reason === 'is-cuckoo-filter'
        ? `wrong filter type: ${c.detail}`
        : `not a valid cuckoo-wasm filter: ${c.detail}`,
      reason,
    ),
} as const;

/**
 * One row per `cuckoo::Status` enumerator: its name without the `k`, its value,
 * and, for a status that is an error, its kind (see KINDS) and, for a format
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
  FormatIsBloomFilter: { value: 19, kind: 'format', reason: 'is-bloom-filter' },
  FormatIsCuckooFilter: { value: 20, kind: 'format', reason: 'is-cuckoo-filter' },
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
 * (`is-redis-*`, the FormatWrongFamily status with js/registry.ts's `foreignReason`) which Redis
 * family's bytes were given to another family's `fromBytes`, or (`patch-*`, docs/FORMAT.md §17)
 * why a patch could not be made or applied: not a patch, an unknown patch version, truncated or
 * corrupted, for another version of the filter (`patch-wrong-base`), for another family or
 * parameters (`patch-family`), or its result's checksum is not the one it names.
 */
export type FilterFormatReason =
  | Extract<Row, { kind: 'format' | 'patch' }>['reason']
  | 'is-redis-cuckoo-filter'
  | 'is-redis-bloom-filter';

/** The status values by name, for comparing what a call returned: `Status.Ok` is 0. */
export const Status = Object.freeze(
  Object.fromEntries(Object.entries(STATUSES).map(([name, row]) => [name, row.value])),
) as { readonly [N in StatusName]: Rows[N]['value'] };

/** The rows indexed by value (a sparse array: some values are unused). */
const BY_VALUE: readonly (Row | undefined)[] = (() => {
  const rows: (Row | undefined)[] = [];
  for (const row of Object.values(STATUSES) as Row[]) rows[row.value] = row;
  return rows;
})();

/**
 * The error a call that returned `status` throws. Ok and NotFound are not
 * errors, and a value missing from the table means the core and this table
 * disagree: both give a plain Error naming the value (a bug, never a user's mistake).
 */
export function statusError(status: number, context: StatusContext): Error {
  const row = BY_VALUE[status];
  if (row === undefined || !('kind' in row)) {
    return new Error(`cuckoo-wasm: the core reported status ${status}, which is not an error this call can report`);
  }
  if (row.kind === 'format') return KINDS.format(context, row.reason);
  if (row.kind === 'patch') return KINDS.patch(context, row.reason);
  if (row.kind === 'url') return KINDS.url(context, row.reason);
  return KINDS[row.kind](context);
}
