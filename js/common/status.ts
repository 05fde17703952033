/**
 * What each status the core reports (`cuckoo::Status`, src/status.h; its row in
 * js/common/status-codes.ts) becomes on the TS side: the error class (and with it
 * the `code`) and the message. Every status an operation of the core returns is
 * turned into an error here and nowhere else. tests/js/status.test.ts checks the
 * table against src/status.h, both ways, and each status's error.
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
import { STATUSES, type FilterFormatReason } from './status-codes.js';

// The status values, for the callers that compare what a call returned and turn it into its error here.
export { Status } from './status-codes.js';

/**
 * `text` for a one-line message: JSON-quoted, and when longer than `max` UTF-16
 * code units cut to its first `max` with its length, as `"abc..." (100000 characters)`.
 */
export function quoted(text: string, max: number): string {
  return text.length > max ? `${JSON.stringify(text.slice(0, max)).slice(0, -1)}..." (${text.length} characters)` : JSON.stringify(text);
}

/**
 * Checks the module's statuses (its embind constants `status<Name>`, made from src/status.h's list) against the table
 * of this build (js/common/status-codes.ts), both ways, when the module loads.
 * @throws Error naming the first difference: the module and the package's JavaScript are of different builds.
 */
export function checkStatuses(module: Readonly<Record<string, unknown>>): void {
  const core = Object.keys(module).filter((key) => /^status[A-Z]/.test(key) && typeof module[key] === 'number').map((key) => key.slice(6));
  for (const name of new Set([...Object.keys(STATUSES), ...core])) {
    const theirs = module[`status${name}`];
    const ours = (STATUSES as Record<string, { value: number }>)[name]?.value;
    if (theirs !== ours) throw new Error(`the core numbers status ${name} ${theirs}, this build ${ours}: rebuild the package`);
  }
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
  format: (c: StatusContext, reason: FilterFormatReason) => new FilterFormatError(`not a valid cuckoo-wasm filter: ${c.detail}`, reason),
} as const;

type Row = (typeof STATUSES)[keyof typeof STATUSES];

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
