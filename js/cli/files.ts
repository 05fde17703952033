/**
 * How the `cuckoo-wasm` commands read their input files and write their output files, one way for all, as the Unix
 * tools beside them do: a file is read whole; an output is written whole or not at all where it can be (a regular
 * file, or a new one: into a temporary file beside it, then renamed over it, so a crash or a full disk mid-write
 * leaves the previous file as it was). `-` is standard output; a symbolic link is followed, and the file it names
 * replaced; a device, FIFO or socket is opened and written, as `cat > PATH` would. Errors are thrown as Error, one
 * line naming what, where and why (the caller prints it and exits with code 1).
 */
import { closeSync, fstatSync, lstatSync, openSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Why a file could not be opened, for the codes a user can act on. */
const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a parent of it is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  ELOOP: 'too many levels of symbolic links',
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

/** The output path that means standard output. */
export const STDOUT = '-';

/** How a report names the output `path`. */
export function outputName(path: string): string {
  return path === STDOUT ? 'standard output' : path;
}

/**
 * Where a command's report goes: standard error when its output (`-o`) is standard output (`-`, `/dev/stdout`), so
 * that the report never mixes with the bytes written there; else standard output.
 */
export function reporter(output: string): (line: string) => void {
  return isStandardOutput(output) ? (line) => process.stderr.write(`${line}\n`) : (line) => process.stdout.write(`${line}\n`);
}

/** True while a filter or a patch is being written to standard output (`-o -`). */
let toStandardOutput = false;

/** True while a filter or a patch is being written to standard output: a closed pipe then cuts it short. */
export function writingStandardOutput(): boolean {
  return toStandardOutput;
}

/** True if `path` is this process's standard output: `-`, or a name of it (`/dev/stdout`, `/proc/self/fd/1`). */
function isStandardOutput(path: string): boolean {
  if (path === STDOUT) return true;
  try {
    const out = fstatSync(1);
    const stats = statSync(path);
    return out.dev === stats.dev && out.ino === stats.ino;
  } catch {
    return false;
  }
}

/** What is at `path` (a link followed), or undefined if nothing is. */
function statOf(path: string, what: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fileError('write', what, path, e);
  }
}

/**
 * Writes `bytes` to `path` (`-`: standard output): whole or not at all where `path` is a regular file or nothing yet
 * (through a temporary file beside the file it names, renamed over it); a device, FIFO or socket is opened and
 * written. `what` names the output in errors (`filter`, `patch`).
 */
export async function writeOutput(path: string, bytes: Uint8Array, what: string): Promise<void> {
  if (isStandardOutput(path)) {
    toStandardOutput = true;
    try {
      await new Promise<void>((done, fail) => process.stdout.write(bytes, (e) => (e ? fail(fileError('write', what, 'to standard output', e)) : done())));
    } finally {
      toStandardOutput = false;
    }
    return;
  }
  const stats = statOf(path, what);
  if (stats?.isDirectory()) throw fileError('write', what, path, { code: 'EISDIR' });
  if (stats !== undefined && !stats.isFile()) {
    let fd: number | undefined;
    try {
      fd = openSync(path, 'w');
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    } catch (e) {
      throw fileError('write', what, path, e);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    return;
  }
  writeWhole(path, stats === undefined ? linkTarget(path, what) : realpathSync(path), bytes, what);
}

/**
 * The path a new file at `path` gets: `path` itself, or where a dangling symbolic link there points, each link read
 * from its folder's real path, as the kernel follows it.
 * @throws Error (EISDIR) for a link that names a folder (its text ends in `/`).
 */
function linkTarget(path: string, what: string): string {
  let target = path;
  for (let hops = 0; hops < 40; ++hops) {
    let link: string;
    try {
      if (!lstatSync(target).isSymbolicLink()) return target;
      link = readlinkSync(target);
    } catch {
      return target;
    }
    if (link.endsWith('/')) throw fileError('write', what, path, { code: 'EISDIR' });
    let folder = dirname(target);
    try {
      folder = realpathSync(folder);
    } catch {
      // A folder that does not exist: the write below reports it.
    }
    target = resolve(folder, link);
  }
  return target;
}

/** Writes `bytes` to the regular file `file` (or a new one) whole or not at all; errors name `path`, as given. */
function writeWhole(path: string, file: string, bytes: Uint8Array, what: string): void {
  // A name no other writer picks (two processes of one PID in two containers sharing the folder included).
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  let created = false;
  try {
    const fd = openSync(temporary, 'wx');
    created = true;
    try {
      writeFileSync(fd, bytes);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (e) {
    if (created) rmSync(temporary, { force: true });
    throw fileError('write', what, path, e);
  }
}
