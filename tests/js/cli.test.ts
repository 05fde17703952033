// The `cuckoo-wasm` command (dist/cli.cjs), run as a user runs it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const cli = join(__dirname, '..', '..', 'dist', 'cli.cjs');
const run = (args: string[], input?: string) =>
  spawnSync(process.execPath, [cli, ...args], { input, encoding: 'utf8' });

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cuckoo-cli-'));
  writeFileSync(join(dir, 'list.txt'), '# a comment\n  evil.example  \n\nphish.example\n#skip.example\ntracker.example\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('build: skips blanks and comments, trims, prints keys, bytes, bits per item, fpr', () => {
  const r = run(['build', join(dir, 'list.txt'), '-o', join(dir, 'f.cuckoo'), '--fpr', '0.01']);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/keys added:\s+3\n/);
  const bytes = readFileSync(join(dir, 'f.cuckoo'));
  expect(r.stdout).toContain(`bytes:               ${bytes.length}`);
  expect(r.stdout).toMatch(/bits per item:\s+[\d.]+/);
  expect(r.stdout).toMatch(/false-positive rate: [\d.e-]+ expected/);
});

test('query: arguments and standard input; tab-separated yes/no', () => {
  run(['build', join(dir, 'list.txt'), '-o', join(dir, 'q.cuckoo'), '--capacity', '100', '--bucket-size', '8']);
  const args = run(['query', join(dir, 'q.cuckoo'), 'evil.example', 'good.example']);
  expect(args.status).toBe(0);
  expect(args.stdout).toBe('evil.example\tyes\ngood.example\tno\n');
  const stdin = run(['query', join(dir, 'q.cuckoo')], 'phish.example\nskip.example\ntracker.example\n');
  expect(stdin.stdout).toBe('phish.example\tyes\nskip.example\tno\ntracker.example\tyes\n');
});

test('info: parameters and statistics', () => {
  run(['build', join(dir, 'list.txt'), '-o', join(dir, 'i.cuckoo'), '--capacity', '1000']);
  const r = run(['info', join(dir, 'i.cuckoo')]);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/items:\s+3\n/);
  expect(r.stdout).toMatch(/capacity:\s+1000\n/);
  expect(r.stdout).toMatch(/fingerprint bits:\s+13\n/);
});

test.each([
  [['info', '/nonexistent/file'], /cannot read filter \/nonexistent\/file: ENOENT/],
  [['query'], /query takes a FILE/],
  [['build', 'x'], /build needs -o FILE/],
  [['build', '/nonexistent', '-o', '/tmp/x'], /cannot read list/],
  [['frobnicate'], /unknown command "frobnicate"/],
  [['build', 'list', '-o', 'x', '--fpr', 'abc'], /--fpr must be a number/],
  [[], /missing command/],
])('%p: one line on stderr, exit code 1', (args, message) => {
  const r = run(args as string[]);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
});

test('a corrupt filter file: one-line FilterFormatError message, exit code 1', () => {
  writeFileSync(join(dir, 'bad.cuckoo'), 'not a filter at all, just text');
  const r = run(['info', join(dir, 'bad.cuckoo')]);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/bad\.cuckoo: not a valid cuckoo-wasm filter/);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  const bad = run(['build', join(dir, 'list.txt'), '-o', join(dir, 'z'), '--bucket-size', '3']);
  expect(bad.status).toBe(1);
  expect(bad.stderr).toMatch(/bucketSize must be 2, 4 or 8/);
});

describe('lists as real blocklists are written', () => {
  test('a BOM, CRLF, lone CR, spaces, tabs, blank and comment lines: query of the very list on stdin answers yes for every key', () => {
    const list =
      '\uFEFF  first.example  \r\n' +
      '# a comment\r\n' +
      '\r\n' +
      '\tsecond.example\t\r\n' +
      '   \r\n' +
      '   # an indented comment\r\n' +
      'third.example\r' +
      'fourth.example\n' +
      'fifth.example';
    writeFileSync(join(dir, 'messy.txt'), list);
    const b = run(['build', join(dir, 'messy.txt'), '-o', join(dir, 'messy.cuckoo')]);
    expect(b.stderr).toBe('');
    expect(b.stdout).toMatch(/keys added:\s+5\n/);
    const q = run(['query', join(dir, 'messy.cuckoo')], list);
    expect(q.status).toBe(0);
    // One output line per key, none for blank or comment lines, keys as build stored them.
    expect(q.stdout).toBe(
      ['first', 'second', 'third', 'fourth', 'fifth'].map((k) => `${k}.example\tyes\n`).join(''),
    );
    const args = run(['query', join(dir, 'messy.cuckoo'), 'first.example', 'fifth.example', 'sixth.example']);
    expect(args.stdout).toBe('first.example\tyes\nfifth.example\tyes\nsixth.example\tno\n');
  });
});
