/**
 * The `cuckoo-wasm` command:
 *   cuckoo-wasm build LIST -o FILE [--urls] [--type cuckoo|bloom] [--fpr 0.001 | --url-fpr R] [--capacity N]
 *                                  [--expansion N] [--bucket-size 4] [--[no-]semi-sort] [--max-kicks 500] [--keep-duplicates]
 *   cuckoo-wasm query [--urls] FILE [KEY...]     (keys from stdin, one per line, when none are given)
 *   cuckoo-wasm info FILE
 *   cuckoo-wasm --version
 *   cuckoo-wasm redis-pull, redis-push (js/cli/redis.ts); diff OLD NEW -o PATCH, patch OLD PATCH -o NEW (js/cli/patch.ts)
 *   cuckoo-wasm publish, keygen (js/cli/publish.ts)
 * Lists are read by js/sources/list-formats.ts: the LIST file in its --format (streamed into sorted runs on disk and
 * merged, js/sources/sorted-entries.ts, as publish reads a list), query's standard input as a
 * `lines` list (listEntry): one key per line, trimmed, a leading byte order mark dropped, blank lines and
 * `#` comment lines skipped.
 * Errors: one line on stderr, exit code 1 (2 for a list with no entries, unless --allow-empty).
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { ArgumentRangeError, BinaryFuseFilter, BloomFilter, CuckooFilter, FilterFormatError, FilterFullError } from '../index.js';
import { MAX_MAX_KICKS, lowestFalsePositiveRate } from '../filters/cuckoo-filter.js';
import * as fs from 'node:fs';
import * as buffer from 'node:buffer';
import * as nodePath from 'node:path';
import { tmpdir } from 'node:os';
import { listEntry, notAUrl } from '../sources/list-formats.js';
import { LineReader, LineWriter, ListReadError, ListRuns, addAllFrom, arraySource, fileSource, mergeSorted, readRuns, unescapeEntry } from '../sources/sorted-entries.js';
import { MAX_URL_EXPRESSIONS, entryExpression } from '../url/url.js';
import { quoted } from '../common/status.js';
import { loadFullCore } from '../boundary/load.js';
import { REDIS_USAGE, RedisFilter, UsageError, loadRedisFile, redisCommand, redisInfo } from './redis.js';
import { PATCH_USAGE, patchCommand } from './patch.js';
import { PUBLISH_USAGE, feedCommand } from './publish.js';
import { fileError, outputName, readFile, reporter, writeOutput, writingStandardOutput } from './files.js';
import { BINARY_FUSE, BLOOM, FAMILIES } from '../registry.js';

/** The package's version (scripts/build.mjs defines it from package.json). */
declare const CUCKOO_VERSION: string;

const USAGE = `usage:
  cuckoo-wasm build LIST -o FILE [--urls] [--format auto|lines|hosts|adblock|csv[:column]] [--type cuckoo|bloom|fuse] [--fpr 0.001 | --url-fpr R]
                                 [--capacity N] [--expansion N] [--bucket-size 4] [--[no-]semi-sort] [--max-kicks 500] [--keep-duplicates]
                                 [--allow-empty]
      FILE: the filter's bytes, written whole or not at all (into a temporary file beside it, then renamed); - writes
      them to standard output (the report then goes to standard error), a symbolic link is followed, and a device or
      FIFO is written as it is. The same for every -o below.
      LIST: UTF-8 text, --format auto (found from the first lines, printed), lines (one key per line, trimmed; blank and #
      lines skipped), hosts (ADDRESS HOST...), adblock (||host^ hosts; ||host/path, |https://...| URLs with --urls; rules no
      key stands for counted by kind) or csv (a header row; the column named, else url / domain). A key listed more than once
      is added once (the count skipped is printed) unless --keep-duplicates is given. A list with no entries is an
      error (exit code 2, nothing written) unless --allow-empty is given; a cuckoo
      filter stores one key at most 2 x bucket-size + 1 times. --type picks the filter (default
      cuckoo; bloom cannot delete; fuse, a binary fuse filter, is the smallest, about 1.075 x f
      bits per key for a rate of 2^-f with f = max(8, ceil(log2(1 / fpr))) up to 16, and static:
      built from the whole list, never added to or deleted from, so each new version of the list
      is built and shipped whole; it takes none of --capacity, --expansion, --keep-duplicates and
      the cuckoo options).
      --capacity defaults to the number of keys added; --expansion (2 to 1024) lets the filter
      grow by that factor when full, keeping the false-positive rate under --fpr; --bucket-size,
      --max-kicks (0 to 1000000, default 500) and --[no-]semi-sort are for cuckoo filters only.
      --semi-sort (the default for bucket size 4) stores each bucket's four fingerprints
      semi-sorted (Fan et al. 2014 §5.2): one bit per key less at the same rate, lookups a few
      percent slower; bucket size 4 only. --no-semi-sort: bit-packed buckets.
      --urls: each line is a URL blocklist entry (a URL, host/path, or a bare host meaning the
      whole site), stored as its Safe Browsing canonical expression; entries with the same
      expression count as duplicates. --url-fpr R sizes the filter so that one URL lookup (up
      to 30 expressions) is a false positive with probability at most R
  cuckoo-wasm query [--urls] FILE [KEY...]
      prints "KEY<TAB>yes|no" per key; reads keys from standard input when none are given,
      one per line as build reads them (blank and # lines print nothing). --urls: looks each
      URL up by its expressions and prints "URL<TAB>yes<TAB>matched-expression" or "URL<TAB>no";
      a line that is not a URL is reported on stderr (the exit code is then 1)
  cuckoo-wasm info FILE
      prints the filter's type, parameters and statistics, and its sub-filters
  cuckoo-wasm --version
      prints the package's version${REDIS_USAGE}${PATCH_USAGE}${PUBLISH_USAGE}`;

function numberOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || Number.isNaN(n)) throw new UsageError(`--${name} must be a number, got "${value}"`);
  return n;
}

/**
 * A whole-number option: `what` says what it counts, `omit` what leaving it out does. Values
 * above `max` get `tooLarge` as the message when given (the limit that matters is lower than `max`).
 * Messages about a value say what to give instead, so they carry no pointer to --help.
 */
function integerOption(
  name: string,
  value: string | undefined,
  range: { min: number; max: number; what: string; omit: string; tooLarge?: string },
): number | undefined {
  const n = numberOption(name, value);
  if (n === undefined) return undefined;
  if (!Number.isInteger(n) && Number.isFinite(n)) throw new Error(`--${name} must be a whole number of ${range.what}, got ${value}`);
  if (n < range.min) throw new Error(`--${name} must be at least ${range.min}, got ${value}: omit it ${range.omit}`);
  if (n > range.max || !Number.isFinite(n)) {
    throw new Error(range.tooLarge ?? `--${name} must be at most ${range.max}, got ${value}: omit it ${range.omit}`);
  }
  return n;
}

/**
 * parseArgs refuses `--capacity -5` (a value starting with "-" looks like an option to it);
 * joined as `--capacity=-5`, the value reaches the range check, whose message says what to give.
 */
function joinNegativeValues(args: string[], options: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; ++i) {
    if (options.includes(args[i]) && i + 1 < args.length && /^-(\d|\.\d|Infinity$)/.test(args[i + 1])) {
      out.push(`${args[i]}=${args[i + 1]}`);
      ++i;
    } else {
      out.push(args[i]);
    }
  }
  return out;
}

/** A filter file of any type. */
async function load(path: string): Promise<CuckooFilter | BloomFilter | BinaryFuseFilter | RedisFilter> {
  return (await loadRedisFile(path)) ?? (await loadFile(path)).filter;
}

/** The filter in the file at `path`, and the format version (docs/FORMAT.md) it was written in. */
async function loadFile(path: string): Promise<{ filter: CuckooFilter | BloomFilter | BinaryFuseFilter; version: number }> {
  const bytes = readFile(path, 'filter');
  const version = bytes[4] | (bytes[5] << 8);
  try {
    try {
      return { filter: await CuckooFilter.fromBytes(bytes), version };
    } catch (e) {
      // Another family's bytes: loaded by that family's class (a RedisBloom file reached here is refused by it).
      const other = e instanceof FilterFormatError ? FAMILIES.find((f) => f.foreignReason === e.reason) : undefined;
      if (other === BLOOM) return { filter: await BloomFilter.fromBytes(bytes), version };
      if (other === BINARY_FUSE) return { filter: await BinaryFuseFilter.fromBytes(bytes), version };
      throw e;
    }
  } catch (e) {
    throw new Error(`${path}: ${(e as Error).message}`);
  }
}

async function build(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: joinNegativeValues(args, ['--fpr', '--url-fpr', '--capacity', '--bucket-size', '--max-kicks', '--expansion']),
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      urls: { type: 'boolean' },
      'url-fpr': { type: 'string' },
      type: { type: 'string' },
      expansion: { type: 'string' },
      fpr: { type: 'string' },
      capacity: { type: 'string' },
      'bucket-size': { type: 'string' },
      'semi-sort': { type: 'boolean' },
      'no-semi-sort': { type: 'boolean' },
      'max-kicks': { type: 'string' },
      'keep-duplicates': { type: 'boolean' },
      'allow-empty': { type: 'boolean' },
      format: { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('build takes one LIST file');
  if (!values.output) throw new UsageError('build needs -o FILE');
  const type = values.type ?? 'cuckoo';
  if (type !== 'cuckoo' && type !== 'bloom' && type !== 'fuse') throw new UsageError(`--type must be cuckoo, bloom or fuse, got "${type}"`);
  if (type !== 'cuckoo') {
    for (const cuckooOnly of ['bucket-size', 'max-kicks', 'semi-sort', 'no-semi-sort'] as const) {
      if (values[cuckooOnly] !== undefined) throw new UsageError(`--${cuckooOnly} is for cuckoo filters; omit it with --type ${type}`);
    }
  }
  if (type === 'fuse') {
    // A binary fuse filter holds the set it was built from: no room to size, no growth, each key once.
    for (const unsized of ['capacity', 'expansion', 'keep-duplicates'] as const) {
      if (values[unsized] !== undefined) throw new UsageError(`--${unsized} is not for a binary fuse filter, which is built for exactly the list's keys; omit it with --type fuse`);
    }
  }
  const expansion = integerOption('expansion', values.expansion, {
    min: 2,
    max: 1024,
    what: 'times (the growth factor)',
    omit: 'for a filter that does not grow',
  });
  const urls = values.urls === true;
  if (values['url-fpr'] !== undefined && (!urls || values.fpr !== undefined)) {
    throw new UsageError(urls ? 'give --fpr or --url-fpr, not both' : '--url-fpr is for URL lists: add --urls');
  }
  const urlFpr = numberOption('url-fpr', values['url-fpr']);
  if (urlFpr !== undefined && !(urlFpr > 0 && urlFpr < 1)) {
    throw new Error(`--url-fpr must be a number between 0 and 1 (a per-URL false-positive rate such as 0.01), got ${values['url-fpr']}`);
  }
  // A URL is looked up by up to 30 expressions: 1 - (1 - ε)^30 <= R per URL.
  const perUrl = (perKey: number) => 1 - (1 - perKey) ** MAX_URL_EXPRESSIONS;
  const fpr =
    urlFpr !== undefined ? 1 - (1 - urlFpr) ** (1 / MAX_URL_EXPRESSIONS) : (numberOption('fpr', values.fpr) ?? 0.001);
  if (urlFpr === undefined && !(fpr > 0 && fpr < 1)) {
    throw new Error(`--fpr must be a number between 0 and 1 (a false-positive rate such as 0.001 for 0.1%), got ${values.fpr}`);
  }
  const bucketSize = (numberOption('bucket-size', values['bucket-size']) ?? 4) as 2 | 4 | 8;
  const validBucketSize = bucketSize === 2 || bucketSize === 4 || bucketSize === 8;
  if (values['semi-sort'] && values['no-semi-sort']) throw new UsageError('give --semi-sort or --no-semi-sort, not both');
  const semiSort = values['semi-sort'] ? true : values['no-semi-sort'] ? false : undefined;
  if (semiSort && validBucketSize && bucketSize !== 4) {
    throw new UsageError(`--semi-sort needs --bucket-size 4 (semi-sorted buckets hold four fingerprints), got --bucket-size ${bucketSize}`);
  }
  // A filter that grows splits its rate among its sub-filters, the first getting half.
  const lowest = type === 'cuckoo' && validBucketSize ? await lowestFalsePositiveRate(bucketSize, expansion ?? 0) : 0;
  const why =
    `the lowest rate 32-bit fingerprints give with bucket size ${bucketSize} (2b/2^32)` + (expansion ? ' in a filter that grows (twice that)' : '');
  if (urlFpr !== undefined && !(fpr >= lowest && fpr > 0)) {
    // Also when R is so small that the per-key rate it needs rounds to 0.
    const floor = lowest > 0 ? perUrl(lowest) : 0;
    throw new Error(
      floor > 0
        ? `--url-fpr ${values['url-fpr']} is below ${floor.toPrecision(3)}, the lowest per-URL rate (${MAX_URL_EXPRESSIONS} lookups of ${lowest.toPrecision(3)}, ${why}): raise --url-fpr`
        : `--url-fpr ${values['url-fpr']} is too small: the per-key rate it needs, 1 − (1 − R)^(1/${MAX_URL_EXPRESSIONS}), is 0 in floating point. Raise --url-fpr`,
    );
  }
  if (fpr < lowest) {
    throw new Error(`--fpr ${values.fpr} is below ${lowest.toPrecision(3)}, ${why}: raise --fpr`);
  }
  if (type === 'fuse' && fpr < 2 ** -16) {
    throw new Error(
      `${urlFpr !== undefined ? `--url-fpr ${values['url-fpr']} needs a per-key rate of ${fpr.toPrecision(3)}, which is` : `--fpr ${values.fpr} is`} ` +
        `below 2^-16 (${(2 ** -16).toPrecision(3)}), the rate of 16-bit fingerprints, the most a binary fuse filter takes: raise it, or use --type cuckoo`,
    );
  }
  const requested = integerOption('capacity', values.capacity, {
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    what: 'keys',
    omit: 'to size the filter to the list',
    tooLarge: `--capacity ${values.capacity} is too large: a filter may use at most 1 GiB of memory. Lower --capacity`,
  });
  const maxKicks = integerOption('max-kicks', values['max-kicks'], {
    min: 0,
    max: MAX_MAX_KICKS,
    what: 'evictions',
    omit: 'for the default, 500',
  });
  const keepDuplicates = values['keep-duplicates'] === true;
  const list = positionals[0];

  // The list's entries sorted (js/sources/sorted-entries.ts, as publish reads a list), in a temporary folder removed
  // once the keys are added (before the filter is written), also on errors and signals.
  const temp = temporaryFolder('cuckoo-wasm-build-');
  const dir = temp.path;
  try {
    let read: ListRuns;
    try {
      read = await readRuns({ fs, buffer, path: nodePath }, list, { format: values.format, urls, dir, unique: !keepDuplicates });
    } catch (e) {
      if (!(e instanceof ListReadError)) throw e;
      throw e.kind === 'read' ? fileError('read', 'list', list, e.cause) : new Error(e.message);
    }
    if (read.entries === 0 && values['allow-empty'] !== true) {
      throw new CliError(`${list} has no entries, so nothing was written: give --allow-empty to write an empty filter`, 2);
    }
    // First pass: the runs merged (every copy kept with --keep-duplicates), counting the distinct keys and the most
    // repeated one; written to one sorted file when there is more than one run, for the second pass to add.
    const sorted = new SortedKeys(read, dir, !keepDuplicates);
    const keyCount = keepDuplicates ? read.entries : sorted.distinct;
    const repeats = read.entries - sorted.distinct;
    // URL entries are already their canonical expressions: adding them as keys stores the same.
    await addKeys(
      { values, list, type, fpr, bucketSize, validBucketSize, maxKicks, expansion, semiSort, requested, keepDuplicates, urls },
      sorted,
      { keyCount, repeats, report: read.report, onAdded: temp.remove },
    );
  } finally {
    temp.remove();
  }
}

/**
 * A new folder of os.tmpdir() for one command's temporary files, and its removal: called at the end and on errors,
 * and made on exit and on SIGINT, SIGTERM or SIGHUP (the signal then ends the process as it would have).
 */
function temporaryFolder(prefix: string): { path: string; remove(): void } {
  const path = fs.mkdtempSync(nodePath.join(tmpdir(), prefix));
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const onSignal = (signal: NodeJS.Signals) => {
    remove();
    process.kill(process.pid, signal);
  };
  const remove = () => {
    for (const signal of signals) process.off(signal, onSignal);
    process.off('exit', remove);
    fs.rmSync(path, { recursive: true, force: true });
  };
  for (const signal of signals) process.on(signal, onSignal);
  process.on('exit', remove);
  return { path, remove };
}

/**
 * A list's keys, sorted: counted when made (the runs merged), then read once by {@link SortedKeys.next}; from the
 * last run in memory when the list had one run, else from a file of `dir`.
 */
class SortedKeys {
  /** How many distinct keys. */
  readonly distinct: number;
  /** The key that occurs most often (as escaped in the runs), and how often. */
  readonly most: [string, number] = ['', 0];
  private readonly reader: LineReader | undefined;
  private readonly memory: string[];
  private index = 0;

  constructor(read: ListRuns, dir: string, unique: boolean) {
    const next = mergeSorted([...read.runs.map((run) => fileSource(fs, run)), arraySource(read.last)], unique);
    const file = read.runs.length > 0 ? nodePath.join(dir, 'keys.tmp') : undefined;
    const writer = file === undefined ? undefined : new LineWriter(fs, file);
    let distinct = 0;
    let previous: string | undefined;
    let copies = 0;
    for (let line = next(); line !== undefined; line = next()) {
      writer?.write(line);
      if (line === previous) {
        copies += 1;
        continue;
      }
      if (copies > this.most[1]) this.most = [previous!, copies];
      previous = line;
      copies = 1;
      distinct += 1;
    }
    if (copies > this.most[1]) this.most = [previous!, copies];
    this.distinct = distinct;
    writer?.close(false);
    for (const run of read.runs) fs.rmSync(run, { force: true });
    this.memory = file === undefined ? read.last : [];
    this.reader = file === undefined ? undefined : new LineReader(fs, file);
  }

  /** The next key (escaped), or undefined at the end. */
  next(): string | undefined {
    return this.reader !== undefined ? this.reader.next() : this.memory[this.index++];
  }

  close(): void {
    this.reader?.close();
  }
}

/**
 * Creates the filter, adds the keys in batches (then calls `read.onAdded`: the sorted keys are no longer needed),
 * writes it and reports.
 */
async function addKeys(
  o: {
    values: { output?: string; capacity?: string; 'url-fpr'?: string; fpr?: string };
    list: string;
    type: 'cuckoo' | 'bloom' | 'fuse';
    fpr: number;
    bucketSize: 2 | 4 | 8;
    validBucketSize: boolean;
    maxKicks: number | undefined;
    expansion: number | undefined;
    semiSort: boolean | undefined;
    requested: number | undefined;
    keepDuplicates: boolean;
    urls: boolean;
  },
  sorted: SortedKeys,
  read: { keyCount: number; repeats: number; report: string[]; onAdded: () => void },
): Promise<void> {
  const { values, list, type, fpr, bucketSize, validBucketSize, maxKicks, expansion, semiSort, requested, keepDuplicates, urls } = o;
  const { keyCount, repeats, report: listReport } = read;
  if (type === 'fuse') {
    await buildFuse(o, sorted, read);
    return;
  }
  const capacity = requested ?? Math.max(1, keyCount);
  let filter: CuckooFilter | BloomFilter;
  try {
    filter =
      type === 'bloom'
        ? await BloomFilter.create({ capacity, falsePositiveRate: fpr, expansion })
        : await CuckooFilter.create({ capacity, falsePositiveRate: fpr, bucketSize, maxKicks, expansion, semiSort });
  } catch (e) {
    // With every option checked above, a range error left means the filter is too large.
    if (!(e instanceof ArgumentRangeError) || !validBucketSize) throw e;
    const smaller = type === 'bloom' ? 'fewer bits and hash functions per key' : 'shorter fingerprints';
    throw new Error(
      requested === undefined
        ? `the ${keyCount} keys of ${list} need too large a filter at --fpr ${fpr}: ${e.message}. Split the list, or raise --fpr for ${smaller}`
        : `--capacity ${values.capacity} is too large at --fpr ${fpr}: ${e.message}. Lower --capacity, or raise --fpr for ${smaller}`,
    );
  }
  try {
    let added: number;
    const progress = { added: 0 };
    try {
      added = addAllFrom(filter, () => sorted.next(), progress);
    } catch (e) {
      if (!(e instanceof FilterFullError)) throw e;
      const before = progress.added + e.added;
      if (filter instanceof BloomFilter || filter.expansion !== 0) {
        throw new Error(`the filter is full after ${before} of the ${keyCount} keys of ${list}: ${e.message}`);
      }
      const most: [string, number] = [unescapeEntry(sorted.most[0]), sorted.most[1]];
      throw new Error(whyFull({ filter, list, added: before, keys: keyCount, requested, keepDuplicates, most }));
    } finally {
      sorted.close();
      read.onAdded();
    }
    const bytes = filter.toBytes();
    await writeOutput(values.output!, bytes, 'filter');
    const say = reporter(values.output!);
    say([`${urls ? 'URL entries added: ' : 'keys added:        '}  ${added}`, ...listReport].join('\n'));
    say(keepDuplicates ? `duplicates kept:     ${repeats}` : `duplicates skipped:  ${repeats}`);
    say(`bytes:               ${bytes.length}`);
    say(`bits per item:       ${((bytes.length * 8) / Math.max(1, added)).toFixed(2)}`);
    if (filter instanceof BloomFilter) {
      say(`bits, hash count:    ${filter.bitCount} bits, k = ${filter.hashCount} (sub-filters ${filter.subFilterCount})`);
      say(`false-positive rate: ${filter.expectedFalsePositiveRate.toPrecision(3)} expected (sized for ${fpr})`);
    } else {
      say(`fingerprint bits:    ${filter.fingerprintBits} (bucket size ${filter.bucketSize}${filter.encoding === 'packed' ? '' : `, ${filter.encoding}`}, load factor ${filter.loadFactor.toFixed(4)}, sub-filters ${filter.subFilterCount})`);
      say(`false-positive rate: ${filter.expectedFalsePositiveRate.toPrecision(3)} expected (bound ${filter.falsePositiveRate.toPrecision(3)})`);
    }
    if (urls) say(`per-URL rate:        at most ${filter.urlFalsePositiveRate.toPrecision(3)} (up to ${MAX_URL_EXPRESSIONS} lookups per URL)`);
    say(`wrote ${outputName(values.output!)}`);
  } finally {
    filter.dispose();
  }
}

/**
 * Builds a binary fuse filter of the sorted keys (each read once, unescaped, by BinaryFuseFilter.build; then
 * `read.onAdded`), writes it and reports.
 */
async function buildFuse(
  o: { values: { output?: string }; fpr: number; urls: boolean },
  sorted: SortedKeys,
  read: { keyCount: number; repeats: number; report: string[]; onAdded: () => void },
): Promise<void> {
  const { values, fpr, urls } = o;
  let filter: BinaryFuseFilter;
  try {
    // The keys are already the entries' canonical expressions when --urls: built as keys, they store the same.
    filter = await BinaryFuseFilter.build(
      (function* keys() {
        for (let line = sorted.next(); line !== undefined; line = sorted.next()) yield unescapeEntry(line);
      })(),
      { falsePositiveRate: fpr },
    );
  } finally {
    sorted.close();
    read.onAdded();
  }
  try {
    const bytes = filter.toBytes();
    await writeOutput(values.output!, bytes, 'filter');
    const say = reporter(values.output!);
    say([`${urls ? 'URL entries added: ' : 'keys added:        '}  ${filter.size}`, ...read.report].join('\n'));
    say(`duplicates skipped:  ${read.repeats}`);
    say(`bytes:               ${bytes.length}`);
    say(`bits per item:       ${((bytes.length * 8) / Math.max(1, filter.size)).toFixed(2)}`);
    say(`fingerprint bits:    ${filter.fingerprintBits} (binary fuse, ${filter.arity}-wise, ${filter.info().arrayLength} slots)`);
    say(`false-positive rate: ${filter.falsePositiveRate.toPrecision(3)} (2^-${filter.fingerprintBits}; asked for ${fpr.toPrecision(3)})`);
    if (urls) say(`per-URL rate:        at most ${filter.urlFalsePositiveRate.toPrecision(3)} (up to ${MAX_URL_EXPRESSIONS} lookups per URL)`);
    say(`wrote ${outputName(values.output!)}`);
  } finally {
    filter.dispose();
  }
}

/** An error whose exit code is not 1. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/**
 * The message for a build whose filter filled up, naming the cause a user can change:
 * a key repeated past what two buckets hold, --max-kicks 0, a capacity below the keys, or
 * (when none of those) a capacity too tight.
 */
function whyFull(o: {
  filter: CuckooFilter;
  list: string;
  added: number;
  keys: number;
  requested: number | undefined;
  keepDuplicates: boolean;
  /** The key that occurs most often in the list, and how often. */
  most: [string, number];
}): string {
  const { filter, list, requested } = o;
  const b = filter.bucketSize;
  const start = `the filter is full after ${o.added} of the ${o.keys} keys of ${list}`;
  const most = o.most;
  const key = quoted(most[0], 40);
  // Every copy of a key goes to one of the same two buckets (Fan et al. 2014 §3.1), or to the victim slot.
  if (o.keepDuplicates && most[1] > 2 * b + 1) {
    return (
      `${start}: ${key} occurs ${most[1]} times, and a cuckoo filter stores a key at most 2b + 1 = ${2 * b + 1} times ` +
      `(its two buckets of ${b} slots, and the victim slot). Omit --keep-duplicates to add each key once`
    );
  }
  if (filter.maxKicks === 0) {
    return `${start}: --max-kicks 0 allows no evictions, so a key whose two buckets are full cannot be placed. Raise --max-kicks, or omit it for the default`;
  }
  if (requested !== undefined && requested < o.keys) {
    return `capacity ${requested} is below the ${o.keys} keys of ${list}${o.keepDuplicates ? ' (duplicates included)' : ''}: raise --capacity or omit it`;
  }
  if (o.keepDuplicates && most[1] > 1) {
    return (
      `${start}: with --keep-duplicates every copy of a key needs a slot in the same two buckets (2b = ${2 * b} slots, ` +
      `fewer when other keys share them), and ${key} occurs ${most[1]} times. Omit --keep-duplicates, or raise --capacity`
    );
  }
  return `${start} (capacity ${filter.capacity}, ${filter.bucketCount * b} slots, ${filter.maxKicks} kicks per key): raise --capacity`;
}

async function query(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { urls: { type: 'boolean' } } });
  if (positionals.length < 1) throw new UsageError('query takes a FILE and then keys');
  const filter = await load(positionals[0]);
  const core = values.urls === true ? await loadFullCore() : undefined;
  try {
    const answer = (key: string): string | undefined => {
      if (core === undefined) return `${key}\t${filter.has(key) ? 'yes' : 'no'}`;
      try {
        const why = notAUrl(key, entryExpression(core, key));
        if (why !== undefined) throw new Error(why);
        const matched = filter.matchUrl(key);
        return matched === null ? `${key}\tno` : `${key}\tyes\t${matched}`;
      } catch (e) {
        process.stderr.write(`cuckoo-wasm: ${(e as Error).message}\n`);
        process.exitCode = 1;
        return undefined;
      }
    };
    if (positionals.length > 1) {
      for (const key of positionals.slice(1)) {
        const line = answer(key);
        if (line !== undefined) console.log(line);
      }
      return;
    }
    const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
    const out: string[] = [];
    for await (const line of lines) {
      const key = listEntry(line);
      if (key === undefined) continue;
      const answered = answer(key);
      if (answered !== undefined) out.push(answered);
      if (out.length >= 4096) process.stdout.write(out.splice(0).join('\n') + '\n');
    }
    if (out.length > 0) process.stdout.write(out.join('\n') + '\n');
  } finally {
    filter.dispose();
  }
}

async function info(args: string[]): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('info takes one FILE');
  const { filter: f, version } = await loadFile(positionals[0]);
  try {
    const rate =
      f instanceof BinaryFuseFilter
        ? `${f.falsePositiveRate.toPrecision(3)} (2^-${f.fingerprintBits})`
        : `${f.expectedFalsePositiveRate.toPrecision(3)} expected, ${f instanceof BloomFilter ? 'sized for' : 'bound'} ${f.falsePositiveRate.toPrecision(3)}`;
    const fuse = f instanceof BinaryFuseFilter ? f.info() : undefined;
    const rows: [string, string | number][] =
      fuse !== undefined
        ? [
            ['type', 'fuse (binary fuse, static)'],
            ['items', fuse.size],
            ['fingerprint bits', fuse.fingerprintBits],
            ['arity', fuse.arity],
            ['segments', `${fuse.segmentCount} + ${fuse.arity - 1} of ${fuse.segmentLength} slots (${fuse.arrayLength} slots)`],
          ]
        : f instanceof BloomFilter
        ? [
            ['type', 'bloom'],
            ['items', f.size],
            ['estimated items', Math.round(f.estimatedCount())],
            ['capacity', f.capacity],
            ['bits', f.bitCount],
            ['hash functions', f.hashCount],
          ]
        : f instanceof CuckooFilter
          ? [
            ['type', 'cuckoo'],
            ['items', f.size],
            ['capacity', f.capacity],
            ['load factor', f.loadFactor.toFixed(4)],
            ['fingerprint bits', f.fingerprintBits],
            ['bucket size', f.bucketSize],
            ['table encoding', f.encoding],
            ['buckets', f.bucketCount],
            ['max kicks', f.maxKicks],
          ]
          : [];
    rows.push(
      [
        'format version',
        f instanceof BloomFilter && version === 2
          ? '2 (an earlier release\'s bit positions: build it again from the keys for version 4, docs/FORMAT.md §11.6)'
          : version,
      ],
      ['seed', `0x${f.seed.toString(16)}`],
      ['expansion', f.expansion === 0 ? 'none (does not grow)' : f.expansion],
      ['bytes', f.byteLength],
      ['bits per item', f.bitsPerItem.toFixed(2)],
      ['false-positive rate', rate],
      ['sub-filters', f.subFilterCount],
    );
    for (const [k, v] of rows) console.log(`${`${k}:`.padEnd(21)}${v}`);
    if (!(f instanceof BinaryFuseFilter) && f.subFilterCount > 1) {
      f.info().subFilters.forEach((sub, j) => {
        const shape =
          'hashCount' in sub
            ? `${sub.bitCount} bits, k = ${sub.hashCount}, sized for ${sub.falsePositiveRate.toPrecision(3)}`
            : `${sub.bucketCount} buckets, f = ${sub.fingerprintBits}, load factor ${sub.loadFactor.toFixed(4)}`;
        console.log(`  sub-filter ${j}: ${sub.size} items, capacity ${sub.capacity}, ${shape}, ${sub.byteLength} bytes`);
      });
    }
  } finally {
    f.dispose();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'build': return build(rest);
    case 'query': return query(rest);
    case 'info': return redisInfo(rest, info);
    case 'redis-pull': case 'redis-push': return redisCommand(command, rest);
    case 'diff': case 'patch': return patchCommand(command, rest);
    case 'publish': case 'keygen': return feedCommand(command, rest);
    case '-h': case '--help': case 'help':
      console.log(USAGE);
      return;
    case '--version':
      console.log(CUCKOO_VERSION);
      return;
    default:
      throw new UsageError(command === undefined ? 'missing command' : `unknown command "${command}"`);
  }
}

// A reader that stops early (`| head`) closes the pipe: stop quietly, as line tools do; but not while a filter or a
// patch is written there (`-o -`), which is then cut short: that is an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE' && !writingStandardOutput()) process.exit(0);
  process.stderr.write(`cuckoo-wasm: cannot write the output: ${e.message}\n`);
  process.exit(1);
});

main(process.argv.slice(2)).catch((e: unknown) => {
  // One line: parseArgs puts a hint on a second line for some errors.
  const message = (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, ' ');
  const usage = e instanceof UsageError || /^ERR_PARSE_ARGS_/.test(String((e as NodeJS.ErrnoException).code));
  process.stderr.write(`cuckoo-wasm: ${message}${usage ? ' (see cuckoo-wasm --help)' : ''}\n`);
  process.exitCode = e instanceof CliError ? e.exitCode : 1;
});
