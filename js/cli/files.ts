/**
 * How the `cuckoo-wasm` commands read their input files and write their output files, one way for all:
 * a file is read whole, and written whole or not at all (into a temporary file beside it, then renamed
 * over it), so a crash or a full disk mid-write leaves the previous file as it was. Errors are thrown as
 * Error, one line naming what, where and why (the caller prints it and exits with code 1).
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/** Why a file could not be opened, for the codes a user can act on. */
const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a parent of it is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
};

/** `cannot VERB WHAT PATH: CODE (why)`, from the error a file call threw. */
export function fileError(verb: string, what: string, path: string, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code;
  const reason = code === undefined ? (e as Error).message : `${code}${code in FILE_ERRORS ? ` (${FILE_ERRORS[code]})` : ''}`;
  return new Error(`cannot ${verb} ${what} ${path}: ${reason}`);
}

/** The bytes of the file at `path`; `what` names it in the error (`list`, `filter`, `patch`). */
export function readFile(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw fileError('read', what, path, e);
  }
}

/** Writes `bytes` to `path` whole or not at all: into a temporary file beside it, then renamed over it. */
export function writeWhole(path: string, bytes: Uint8Array, what: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, bytes, { flag: 'wx' });
    renameSync(temporary, path);
  } catch (e) {
    rmSync(temporary, { force: true });
    throw fileError('write', what, path, e);
  }
}
