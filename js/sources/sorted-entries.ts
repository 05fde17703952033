/**
 * A list's entries as a sorted stream, in bounded memory whatever the list's length: the list is read in chunks and
 * parsed line by line ({@link ListParser}), each entry canonicalized (a URL entry as its canonical expression) and
 * escaped; entries are sorted in runs of {@link RUN_ENTRIES}, written to files of a folder the caller owns (the last
 * run stays in memory), and the runs are merged k-way into one sorted stream. `cuckoo-wasm publish`
 * (js/feed/publish.ts) and `cuckoo-wasm build` (js/cli/main.ts) both read their lists this way.
 *
 * Lines are sorted by UTF-16 code units, one per line, `\` `\n` `\r` escaped ({@link escapeEntry}: a CSV field may
 * hold a line break). Node.js's modules are handed in ({@link NodeModules}) rather than imported: publish takes them
 * by process.getBuiltinModule when it is first called (its bundle is also imported where they are missing).
 */
import type * as NodeFs from 'node:fs';
import type * as NodeBuffer from 'node:buffer';
import type * as NodePath from 'node:path';
import { entryExpression } from '../url/url.js';
import { loadFullCore } from '../boundary/load.js';
import { ListParser, notAUrl } from './list-formats.js';

/** The Node.js modules this file uses. */
export interface NodeModules {
  fs: typeof NodeFs;
  buffer: typeof NodeBuffer;
  path: typeof NodePath;
}

/** Entries sorted in memory at once before a run is written to a file (about 40 MB of strings). */
export const RUN_ENTRIES = 1 << 19;
/** Keys added to a filter per addAll call. */
export const BATCH = 1 << 16;

/** An entry as a line of a file of entries: `\`, LF and CR escaped (a CSV field may hold a line break). */
export function escapeEntry(entry: string): string {
  return /[\\\n\r]/.test(entry) ? entry.replace(/[\\\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : '\\r')) : entry;
}
export function unescapeEntry(line: string): string {
  return line.includes('\\') ? line.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : c)) : line;
}

/**
 * The lines of `bytes[start, end)`, each one string of its own (V8 compares strings sliced out of a larger one
 * several times slower than such flat strings, and the sort and the merges are all comparisons): LF, CRLF and a lone
 * CR end a line, as node:readline and js/sources/list-formats.ts split them.
 */
export function linesOfBytes(bytes: Buffer, start: number, end: number, take: (line: string) => void): void {
  while (start < end) {
    let stop = bytes.indexOf(10, start);
    if (stop < 0 || stop > end) stop = end;
    let line = bytes.toString('utf8', start, stop > start && bytes[stop - 1] === 13 ? stop - 1 : stop);
    start = stop + 1;
    if (line.includes('\r')) {
      const parts = line.split('\r');
      line = parts.pop()!;
      for (const part of parts) take(part);
    }
    take(line);
  }
}

/** Reads a file of LF-terminated lines, synchronously, in 1 MiB chunks. */
export class LineReader {
  private readonly fd: number;
  private buffer = Buffer.allocUnsafe(1 << 20);
  private lines: string[] = [];
  private index = 0;
  /** Bytes of a line the last chunk ended inside, at the buffer's start. */
  private carry = 0;
  private done = false;

  constructor(
    private readonly fs: typeof NodeFs,
    path: string,
  ) {
    this.fd = fs.openSync(path, 'r');
  }

  /** The next line, or undefined at the end (the file is then closed). */
  next(): string | undefined {
    while (this.index >= this.lines.length) {
      if (this.done) return undefined;
      if (this.carry === this.buffer.length) {
        const larger = Buffer.allocUnsafe(this.buffer.length * 2);
        this.buffer.copy(larger);
        this.buffer = larger;
      }
      const n = this.fs.readSync(this.fd, this.buffer, this.carry, this.buffer.length - this.carry, null);
      const filled = this.carry + n;
      this.lines = [];
      this.index = 0;
      if (n === 0) {
        this.done = true;
        this.fs.closeSync(this.fd);
        if (filled > 0) linesOfBytes(this.buffer, 0, filled, (line) => this.lines.push(line));
        continue;
      }
      const last = this.buffer.lastIndexOf(10, filled - 1);
      if (last < 0) {
        this.carry = filled;
        continue;
      }
      linesOfBytes(this.buffer, 0, last, (line) => this.lines.push(line));
      this.buffer.copy(this.buffer, 0, last + 1, filled);
      this.carry = filled - last - 1;
    }
    return this.lines[this.index++];
  }

  /** Closes the file if the end was not reached. */
  close(): void {
    if (!this.done) {
      this.done = true;
      this.fs.closeSync(this.fd);
    }
  }
}

/** Writes lines to a file, each encoded straight into a 2 MiB buffer (several times faster than joining them). */
export class LineWriter {
  private readonly fd: number;
  private readonly buffer = Buffer.allocUnsafe(1 << 21);
  private at = 0;

  constructor(
    private readonly fs: typeof NodeFs,
    readonly path: string,
  ) {
    this.fd = fs.openSync(path, 'w');
  }

  write(line: string): void {
    // A UTF-16 code unit is at most 3 bytes of UTF-8.
    if (this.at + 3 * line.length + 1 > this.buffer.length) this.flush();
    if (3 * line.length + 1 > this.buffer.length) {
      const bytes = Buffer.from(line + '\n');
      for (let at = 0; at < bytes.length; ) at += this.fs.writeSync(this.fd, bytes, at, bytes.length - at);
      return;
    }
    this.at += this.buffer.write(line, this.at);
    this.buffer[this.at++] = 10;
  }

  private flush(): void {
    for (let at = 0; at < this.at; ) at += this.fs.writeSync(this.fd, this.buffer, at, this.at - at);
    this.at = 0;
  }

  /** Flushes, syncs (when `durable`) and closes. */
  close(durable: boolean): void {
    this.flush();
    if (durable) this.fs.fsyncSync(this.fd);
    this.fs.closeSync(this.fd);
  }
}

/** A sorted source of lines for the merge: its current line (`head`), undefined once it is exhausted. */
export interface Sorted {
  head: string | undefined;
  advance(): void;
}

export function fileSource(fs: typeof NodeFs, path: string): Sorted & { reader: LineReader } {
  const reader = new LineReader(fs, path);
  const source = { reader, head: reader.next(), advance: () => (source.head = reader.next()) };
  return source;
}

export function arraySource(lines: string[]): Sorted {
  let i = 0;
  const source = { head: lines[0], advance: () => (source.head = lines[++i]) };
  return source;
}

/**
 * The k-way merge of sorted sources into one sorted stream (a binary heap on the heads): without repeats when
 * `unique` (the default), else every line of every source.
 */
export function mergeSorted(sources: Sorted[], unique = true): () => string | undefined {
  const heap = sources.filter((s) => s.head !== undefined);
  const less = (a: Sorted, b: Sorted) => a.head! < b.head!;
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l], heap[m])) m = l;
      if (r < heap.length && less(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; --i) down(i);
  let last: string | undefined;
  return () => {
    while (heap.length > 0) {
      const top = heap[0];
      const line = top.head!;
      top.advance();
      if (top.head === undefined) {
        heap[0] = heap[heap.length - 1];
        heap.pop();
      }
      if (heap.length > 0) down(0);
      if (!unique || line !== last) {
        last = line;
        return line;
      }
    }
    return undefined;
  };
}

/** Sorted, and without repeats when `unique`. */
export function sortLines(lines: string[], unique = true): string[] {
  lines.sort();
  if (!unique) return lines;
  let n = 0;
  for (let i = 0; i < lines.length; ++i) if (i === 0 || lines[i] !== lines[n - 1]) lines[n++] = lines[i];
  lines.length = n;
  return lines;
}

/**
 * Why {@link readRuns} failed, for its caller to word in its own terms: `read` (the file could not be opened or read;
 * `cause` is the file system's error), `format` (the format named is none the parser knows; the parser's message),
 * `parse` (the list does not fit its format, e.g. a CSV list without the column; the parser's message, naming no
 * file) or `list` (not UTF-8, or an entry that is not a URL; the message names the list and line).
 */
export class ListReadError extends Error {
  constructor(
    message: string,
    readonly kind: 'read' | 'format' | 'parse' | 'list',
    options?: { cause?: unknown },
  ) {
    super(message);
    this.cause = options?.cause;
  }

  /** The error this one stands for, if any (the file system's for `read`). */
  readonly cause: unknown;
}

/** The sorted runs of a list ({@link readRuns}). */
export interface ListRuns {
  /** The runs written to files, each sorted. */
  runs: string[];
  /** The last run, sorted, in memory. */
  last: string[];
  /** The report's lines of the list's format and what was skipped (ListParser's). */
  report: string[];
  /** How many entries the list has, repeats included. */
  entries: number;
}

/**
 * Reads the list at `path` line by line (UTF-8, checked), each entry canonicalized (a URL entry, with `urls`, as its
 * canonical expression) and escaped, into sorted runs: files `run-<i>.tmp` of `dir`, and the last run in memory.
 * Each run is without repeats when `unique` (the default), else holds every entry.
 * @throws ListReadError; the file system's errors writing the runs.
 */
export async function readRuns(
  node: NodeModules,
  path: string,
  o: { format?: string; urls?: boolean; dir: string; unique?: boolean },
): Promise<ListRuns> {
  const { fs, buffer } = node;
  const unique = o.unique !== false;
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch (e) {
    throw new ListReadError(`cannot read the list ${path}`, 'read', { cause: e });
  }
  let stream: NodeFs.ReadStream | undefined;
  try {
    const core = o.urls ? await loadFullCore() : undefined;
    const runs: string[] = [];
    let run: string[] = [];
    let entries = 0;
    const flush = () => {
      const file = node.path.join(o.dir, `run-${runs.length}.tmp`);
      const writer = new LineWriter(fs, file);
      for (const line of sortLines(run, unique)) writer.write(line);
      writer.close(false);
      runs.push(file);
      run = [];
    };
    let parser: ListParser;
    try {
      parser = new ListParser(o.format ?? 'auto', { urls: o.urls }, take);
    } catch (e) {
      throw new ListReadError((e as Error).message, 'format', { cause: e });
    }
    function take(entry: string, line: number): void {
      if (core !== undefined) {
        let expression: string;
        try {
          expression = entryExpression(core, entry);
        } catch (e) {
          throw new ListReadError(`${path}:${line}: ${(e as Error).message}`, 'list', { cause: e });
        }
        const why = notAUrl(entry, expression);
        if (why !== undefined) throw new ListReadError(`${path}:${line}: ${why}`, 'list');
        entry = expression;
      }
      entries += 1;
      run.push(escapeEntry(entry));
      if (run.length >= RUN_ENTRIES) flush();
    }
    // The list in chunks, split into lines here rather than by node:readline: each line a flat string (linesOfBytes),
    // the chunk checked as UTF-8 at once.
    let lines = 0;
    let carry: Buffer | undefined;
    const push = (line: string) => {
      lines += 1;
      parser.push(line);
    };
    const notUtf8 = (bytes: Buffer, end: number) => {
      // The first line (as linesOfBytes splits them: LF, CRLF or a lone CR) that is not UTF-8.
      let line = lines + 1;
      for (let start = 0; start < end; ++line) {
        let stop = start;
        while (stop < end && bytes[stop] !== 10 && bytes[stop] !== 13) ++stop;
        if (!buffer.isUtf8(bytes.subarray(start, stop))) break;
        start = stop + (bytes[stop] === 13 && stop + 1 < end && bytes[stop + 1] === 10 ? 2 : 1);
      }
      return new ListReadError(`${path} is not UTF-8 text (line ${line}): lists are read as UTF-8; convert it first, e.g. iconv -f latin1 -t utf-8`, 'list');
    };
    try {
      stream = fs.createReadStream(path, { fd, highWaterMark: 1 << 20, autoClose: true });
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        const bytes = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
        const last = bytes.lastIndexOf(10);
        if (last < 0) {
          carry = bytes;
          continue;
        }
        if (!buffer.isUtf8(bytes.subarray(0, last))) throw notUtf8(bytes, last);
        linesOfBytes(bytes, 0, last, push);
        carry = bytes.subarray(last + 1);
      }
      if (carry !== undefined && carry.length > 0) {
        if (!buffer.isUtf8(carry)) throw notUtf8(carry, carry.length);
        linesOfBytes(carry, 0, carry.length, push);
      }
    } catch (e) {
      throw readError(e, path);
    }
    let report: string[];
    try {
      report = parser.end().report;
    } catch (e) {
      throw new ListReadError((e as Error).message, 'parse', { cause: e });
    }
    return { runs, last: sortLines(run, unique), report, entries };
  } finally {
    if (stream === undefined) fs.closeSync(fd);
    else stream.destroy();
  }
}

/** What an error thrown while the list was streamed is: a ListReadError as it is, a read's, the parser's, or another (a run's write) as it is. */
function readError(e: unknown, path: string): unknown {
  if (e instanceof ListReadError) return e;
  const { code, syscall } = e as NodeJS.ErrnoException;
  if (code === undefined) return new ListReadError((e as Error).message, 'parse', { cause: e });
  if (syscall === 'read' || syscall === 'open') return new ListReadError(`cannot read the list ${path}`, 'read', { cause: e });
  return e;
}

/**
 * Adds the keys `next` yields (escaped lines), unescaped, in batches of {@link BATCH}.
 * @returns How many addAll counted as added (its return values summed).
 * @throws What addAll throws; `progress.added` is then what the batches before the one that threw added.
 */
export function addAllFrom(filter: { addAll(keys: string[]): number }, next: () => string | undefined, progress: { added: number } = { added: 0 }): number {
  for (;;) {
    const batch: string[] = [];
    for (let line = next(); line !== undefined; line = batch.length < BATCH ? next() : undefined) {
      batch.push(unescapeEntry(line));
      if (batch.length >= BATCH) break;
    }
    if (batch.length === 0) return progress.added;
    progress.added += filter.addAll(batch);
    if (batch.length < BATCH) return progress.added;
  }
}
