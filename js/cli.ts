/**
 * The `cuckoo-wasm` command:
 *   cuckoo-wasm build LIST -o FILE [--fpr 0.001] [--capacity N] [--bucket-size 4]
 *   cuckoo-wasm query FILE [KEY...]     (keys from stdin, one per line, when none are given)
 *   cuckoo-wasm info FILE
 * Lists (the LIST file, query's standard input) are read by js/lines.ts: one key per line,
 * trimmed, a leading byte order mark dropped, blank lines and `#` comment lines skipped.
 * Errors: one line on stderr, exit code 1.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { CuckooFilter } from './index.js';
import { listEntries, listEntry } from './lines.js';

const USAGE = `usage:
  cuckoo-wasm build LIST -o FILE [--fpr 0.001] [--capacity N] [--bucket-size 4]
      one key per line (UTF-8): whitespace trimmed, a leading byte order mark dropped, blank lines
      and lines starting with # skipped
  cuckoo-wasm query FILE [KEY...]
      prints "KEY<TAB>yes|no" per key; reads keys from standard input when none are given,
      one per line as build reads them (blank and # lines print nothing)
  cuckoo-wasm info FILE
      prints the filter's parameters and statistics`;

class UsageError extends Error {}

function readFile(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new Error(`cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function numberOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || Number.isNaN(n)) throw new UsageError(`--${name} must be a number, got "${value}"`);
  return n;
}

async function load(path: string): Promise<CuckooFilter> {
  const bytes = readFile(path, 'filter');
  try {
    return await CuckooFilter.fromBytes(bytes);
  } catch (e) {
    throw new Error(`${path}: ${(e as Error).message}`);
  }
}

async function build(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      fpr: { type: 'string' },
      capacity: { type: 'string' },
      'bucket-size': { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('build takes one LIST file');
  if (!values.output) throw new UsageError('build needs -o FILE');
  const fpr = numberOption('fpr', values.fpr) ?? 0.001;
  const bucketSize = (numberOption('bucket-size', values['bucket-size']) ?? 4) as 2 | 4 | 8;
  const requested = numberOption('capacity', values.capacity);
  const keys = listEntries(readFile(positionals[0], 'list').toString('utf8'));
  const capacity = requested ?? Math.max(1, keys.length);
  const filter = await CuckooFilter.create({ capacity, falsePositiveRate: fpr, bucketSize });
  try {
    const added = filter.addAll(keys);
    const bytes = filter.toBytes();
    writeFileSync(values.output, bytes);
    console.log(`keys added:          ${added}`);
    console.log(`bytes:               ${bytes.length}`);
    console.log(`bits per item:       ${((bytes.length * 8) / Math.max(1, added)).toFixed(2)}`);
    console.log(`fingerprint bits:    ${filter.fingerprintBits} (bucket size ${filter.bucketSize}, load factor ${filter.loadFactor.toFixed(4)})`);
    console.log(`false-positive rate: ${filter.expectedFalsePositiveRate.toPrecision(3)} expected (bound 2b/2^f = ${filter.falsePositiveRate.toPrecision(3)})`);
    console.log(`wrote ${values.output}`);
  } finally {
    filter.dispose();
  }
}

async function query(args: string[]): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length < 1) throw new UsageError('query takes a FILE and then keys');
  const filter = await load(positionals[0]);
  try {
    const answer = (key: string) => `${key}\t${filter.has(key) ? 'yes' : 'no'}`;
    if (positionals.length > 1) {
      for (const key of positionals.slice(1)) console.log(answer(key));
      return;
    }
    const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
    const out: string[] = [];
    for await (const line of lines) {
      const key = listEntry(line);
      if (key === undefined) continue;
      out.push(answer(key));
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
  const f = await load(positionals[0]);
  try {
    const rows: [string, string | number][] = [
      ['items', f.size],
      ['capacity', f.capacity],
      ['load factor', f.loadFactor.toFixed(4)],
      ['fingerprint bits', f.fingerprintBits],
      ['bucket size', f.bucketSize],
      ['buckets', f.bucketCount],
      ['max kicks', f.maxKicks],
      ['seed', `0x${f.seed.toString(16)}`],
      ['bytes', f.byteLength],
      ['bits per item', f.bitsPerItem.toFixed(2)],
      ['false-positive rate', `${f.expectedFalsePositiveRate.toPrecision(3)} expected, bound ${f.falsePositiveRate.toPrecision(3)}`],
    ];
    for (const [k, v] of rows) console.log(`${`${k}:`.padEnd(21)}${v}`);
  } finally {
    f.dispose();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'build': return build(rest);
    case 'query': return query(rest);
    case 'info': return info(rest);
    case '-h': case '--help': case 'help':
      console.log(USAGE);
      return;
    default:
      throw new UsageError(command === undefined ? 'missing command' : `unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`cuckoo-wasm: ${message}${e instanceof UsageError ? ' (see cuckoo-wasm --help)' : ''}\n`);
  process.exitCode = 1;
});
