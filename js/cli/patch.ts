/**
 * The `cuckoo-wasm` commands for patches (docs/FORMAT.md §17; js/patch/patch.ts):
 *   cuckoo-wasm diff OLD NEW -o PATCH     the patch that turns filter file OLD into NEW
 *   cuckoo-wasm patch OLD PATCH -o NEW    OLD with PATCH applied
 * Both work on the files' bytes alone, for a filter of any family. The output is written as js/cli/files.ts
 * writeOutput writes it (`-o -`: standard output, the report then going to standard error) and only once
 * everything succeeded, so a refused patch or a failed write leaves no file, or the one that was there, untouched.
 * Errors: thrown as Error (one line; js/cli/main.ts prints it and exits with code 1).
 */
import { parseArgs } from 'node:util';
import { FilterFormatError, applyPatchBytes, diffBytes, patchInfo } from '../index.js';
import { UsageError } from './redis.js';
import { outputName, readFile, reporter, writeOutput } from './files.js';

export const PATCH_USAGE = `
  cuckoo-wasm diff OLD NEW -o PATCH
      writes the patch that turns filter file OLD into NEW (two versions of one filter: same type
      and parameters; NEW may have grown more sub-filters), and prints both filters' sizes, the
      patch's size and its ratio to NEW's. Clients holding OLD download the patch instead of NEW
  cuckoo-wasm patch OLD PATCH -o NEW
      applies PATCH to filter file OLD and writes the result to NEW, byte for byte the filter the
      patch was made from. A patch made for another version of the filter (or another filter, or
      a damaged one) is refused, and nothing is written`;

/** `bytes` as a count with its size in KiB or MiB. */
function size(bytes: number): string {
  const unit = bytes >= 2 ** 20 ? ` (${(bytes / 2 ** 20).toFixed(2)} MiB)` : bytes >= 1024 ? ` (${(bytes / 1024).toFixed(1)} KiB)` : '';
  return `${bytes} bytes${unit}`;
}

function commandArgs(command: string, args: string[], operands: string): { positionals: string[]; output: string } {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { output: { type: 'string', short: 'o' } } });
  if (positionals.length !== 2) throw new UsageError(`${command} takes two files, ${operands}`);
  if (!values.output) throw new UsageError(`${command} needs -o FILE`);
  return { positionals, output: values.output };
}

async function diff(args: string[]): Promise<void> {
  const { positionals: [oldPath, newPath], output } = commandArgs('diff', args, 'OLD and NEW');
  const older = readFile(oldPath, 'filter');
  const newer = readFile(newPath, 'filter');
  let patch: Uint8Array;
  try {
    patch = await diffBytes(older, newer);
  } catch (e) {
    if (!(e instanceof FilterFormatError)) throw e;
    // Filters that `build` sized each by its own list differ in size as soon as the list's length changes; other
    // fields differ when the versions were built with other options.
    const sized = /differ in (?:sub-filter \d+'s )?(?:bucket count|bit count|capacity):/.test(e.message);
    const hint =
      e.reason !== 'patch-family'
        ? ''
        : sized
          ? '; build every version with the same --capacity (with --expansion N, a list that outgrows it still fits: docs/updates-by-patch.md)'
          : '; build every version with the same --type and options (--fpr or --url-fpr, --bucket-size, --[no-]semi-sort, --expansion)';
    throw new Error(`${oldPath} and ${newPath}: ${e.message}${hint}`);
  }
  const { changes } = await patchInfo(patch);
  await writeOutput(output, patch, 'patch');
  const say = reporter(output);
  say(`old filter:          ${size(older.length)}  ${oldPath}`);
  say(`new filter:          ${size(newer.length)}  ${newPath}`);
  say(`patch:               ${size(patch.length)}, ${changes} changes`);
  say(`patch / new filter:  ${((100 * patch.length) / newer.length).toFixed(2)}% (${(newer.length / patch.length).toFixed(1)} times smaller)`);
  say(`wrote ${outputName(output)}`);
}

async function patch(args: string[]): Promise<void> {
  const { positionals: [oldPath, patchPath], output } = commandArgs('patch', args, 'OLD and PATCH');
  const base = readFile(oldPath, 'filter');
  const bytes = readFile(patchPath, 'patch');
  let result: Uint8Array;
  try {
    result = await applyPatchBytes(base, bytes);
  } catch (e) {
    if (!(e instanceof FilterFormatError)) throw e;
    // The core's message says why: for a patch of another version, "this patch is for another version of the filter".
    throw new Error(`${patchPath} cannot be applied to ${oldPath}: ${e.message}; nothing was written`);
  }
  await writeOutput(output, result, 'filter');
  const say = reporter(output);
  say(`old filter:          ${size(base.length)}  ${oldPath}`);
  say(`patch:               ${size(bytes.length)}  ${patchPath}`);
  say(`new filter:          ${size(result.length)}`);
  say(`wrote ${outputName(output)}`);
}

/**
 * Runs `diff` or `patch`.
 * @throws UsageError for arguments that do not fit the command; Error (one line) for anything else.
 */
export function patchCommand(command: 'diff' | 'patch', args: string[]): Promise<void> {
  return command === 'diff' ? diff(args) : patch(args);
}
