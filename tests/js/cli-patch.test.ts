// `cuckoo-wasm diff` and `cuckoo-wasm patch` (dist/cli.cjs, js/cli/patch.ts), run as a user runs them, on filter
// files written by the API: the patch file is diffBytes' patch, the patched file is the newer filter byte for byte,
// and a patch that does not fit is refused with a clear message, exit code 1, and no file written or changed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BloomFilter, CuckooFilter, RedisCuckooFilter, diffBytes } from 'cuckoo-wasm';

const cli = join(__dirname, '..', '..', 'dist', 'cli.cjs');
const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
const keysOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}.example`);

let dir: string;
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cuckoo-cli-patch-'));
  // Day 0: 5000 domains; day 1: 50 of them removed, 50 new ones (1% churn each way).
  const day0 = await CuckooFilter.create({ capacity: 6000, falsePositiveRate: 0.001 });
  day0.addAll(keysOf('day0', 5000));
  writeFileSync(file('day0.cuckoo'), day0.toBytes());
  for (const k of keysOf('day0', 50)) day0.delete(k);
  day0.addAll(keysOf('day1', 50));
  writeFileSync(file('day1.cuckoo'), day0.toBytes());
  day0.addAll(keysOf('day2', 50));
  writeFileSync(file('day2.cuckoo'), day0.toBytes());
  day0.dispose();
  const bloom = await BloomFilter.create({ capacity: 6000, falsePositiveRate: 0.01 });
  bloom.addAll(keysOf('day0', 5000));
  writeFileSync(file('day0.bloom'), bloom.toBytes());
  bloom.dispose();
  const redis = await RedisCuckooFilter.create({ capacity: 1000 });
  redis.addAll(keysOf('r', 500));
  writeFileSync(file('day0.redis'), redis.toBytes());
  redis.delete('r-1.example');
  redis.add('new.example');
  writeFileSync(file('day1.redis'), redis.toBytes());
  redis.dispose();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('diff OLD NEW -o PATCH: writes the patch and prints both sizes, the patch size and the ratio', async () => {
  const r = run(['diff', file('day0.cuckoo'), file('day1.cuckoo'), '-o', file('01.patch')]);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const older = readFileSync(file('day0.cuckoo'));
  const newer = readFileSync(file('day1.cuckoo'));
  const patch = readFileSync(file('01.patch'));
  expect(patch.equals(Buffer.from(await diffBytes(older, newer)))).toBe(true);
  expect(r.stdout).toMatch(new RegExp(`old filter:\\s+${older.length} bytes .*day0\\.cuckoo\\n`));
  expect(r.stdout).toMatch(new RegExp(`new filter:\\s+${newer.length} bytes .*day1\\.cuckoo\\n`));
  expect(r.stdout).toMatch(new RegExp(`patch:\\s+${patch.length} bytes, \\d+ changes\\n`));
  const ratio = ((100 * patch.length) / newer.length).toFixed(2);
  expect(r.stdout).toContain(`patch / new filter:  ${ratio}% (`);
  expect(patch.length).toBeLessThan(newer.length / 10);
  expect(r.stdout).toContain(`wrote ${file('01.patch')}`);
});

test('patch OLD PATCH -o NEW: writes the newer filter byte for byte; patches chain', () => {
  run(['diff', file('day0.cuckoo'), file('day1.cuckoo'), '-o', file('a01.patch')]);
  run(['diff', file('day1.cuckoo'), file('day2.cuckoo'), '-o', file('a12.patch')]);
  const r = run(['patch', file('day0.cuckoo'), file('a01.patch'), '-o', file('out1.cuckoo')]);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(readFileSync(file('out1.cuckoo')).equals(readFileSync(file('day1.cuckoo')))).toBe(true);
  expect(r.stdout).toMatch(/new filter:\s+\d+ bytes/);
  expect(run(['patch', file('out1.cuckoo'), file('a12.patch'), '-o', file('out2.cuckoo')]).status).toBe(0);
  expect(readFileSync(file('out2.cuckoo')).equals(readFileSync(file('day2.cuckoo')))).toBe(true);
  // -o over the old file itself: replaced whole.
  writeFileSync(file('inplace.cuckoo'), readFileSync(file('day0.cuckoo')));
  expect(run(['patch', file('inplace.cuckoo'), file('a01.patch'), '-o', file('inplace.cuckoo')]).status).toBe(0);
  expect(readFileSync(file('inplace.cuckoo')).equals(readFileSync(file('day1.cuckoo')))).toBe(true);
  // Any family: a Redis cuckoo filter file.
  expect(run(['diff', file('day0.redis'), file('day1.redis'), '-o', file('r.patch')]).status).toBe(0);
  expect(run(['patch', file('day0.redis'), file('r.patch'), '-o', file('r1.redis')]).status).toBe(0);
  expect(readFileSync(file('r1.redis')).equals(readFileSync(file('day1.redis')))).toBe(true);
});

test('patch refuses a patch made for another version: a clear message, exit code 1, nothing written or changed', () => {
  run(['diff', file('day1.cuckoo'), file('day2.cuckoo'), '-o', file('b12.patch')]);
  const r = run(['patch', file('day0.cuckoo'), file('b12.patch'), '-o', file('never.cuckoo')]);
  expect(r.status).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(/^cuckoo-wasm: .*b12\.patch cannot be applied to .*day0\.cuckoo: .*this patch is for another version of the filter.*nothing was written\n$/);
  expect(existsSync(file('never.cuckoo'))).toBe(false);
  // An existing output file is left as it was.
  writeFileSync(file('kept.cuckoo'), 'keep me');
  expect(run(['patch', file('day0.cuckoo'), file('b12.patch'), '-o', file('kept.cuckoo')]).status).toBe(1);
  expect(readFileSync(file('kept.cuckoo'), 'utf8')).toBe('keep me');
  // A damaged patch, and a file that is no patch: the same.
  const damaged = readFileSync(file('b12.patch'));
  damaged[damaged.length >> 1] ^= 0xff;
  writeFileSync(file('damaged.patch'), damaged);
  for (const bad of ['damaged.patch', 'day1.cuckoo']) {
    const d = run(['patch', file('day1.cuckoo'), file(bad), '-o', file('never.cuckoo')]);
    expect([bad, d.status]).toEqual([bad, 1]);
    expect(d.stderr).toMatch(/cannot be applied to .*nothing was written\n$/);
    expect(existsSync(file('never.cuckoo'))).toBe(false);
  }
  expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
});

test('diff of two filters that differ in type or parameters: exit code 1 naming the difference, no patch written', () => {
  const r = run(['diff', file('day0.bloom'), file('day0.cuckoo'), '-o', file('never.patch')]);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/^cuckoo-wasm: .*day0\.bloom and .*day0\.cuckoo: cannot diff these filters: .*famil/);
  expect(existsSync(file('never.patch'))).toBe(false);
});

test('usage and file errors: one line, exit code 1', () => {
  expect(run(['--help']).stdout).toMatch(/cuckoo-wasm diff OLD NEW -o PATCH[\s\S]*cuckoo-wasm patch OLD PATCH -o NEW/);
  const noOutput = run(['diff', file('day0.cuckoo'), file('day1.cuckoo')]);
  expect([noOutput.status, noOutput.stderr]).toEqual([1, 'cuckoo-wasm: diff needs -o FILE (see cuckoo-wasm --help)\n']);
  const oneFile = run(['patch', file('day0.cuckoo'), '-o', file('x')]);
  expect([oneFile.status, oneFile.stderr]).toEqual([1, 'cuckoo-wasm: patch takes two files, OLD and PATCH (see cuckoo-wasm --help)\n']);
  const missing = run(['patch', file('nope.cuckoo'), file('a01.patch'), '-o', file('x')]);
  expect(missing.status).toBe(1);
  expect(missing.stderr).toMatch(/^cuckoo-wasm: cannot read filter .*nope\.cuckoo: ENOENT \(no such file or directory\)\n$/);
  expect(existsSync(file('x'))).toBe(false);
});

test('build, then diff of the next day\'s list: refused with what to do when each was sized by its own list; with --capacity pinned, a patch of a few bytes per changed key that gives the newer file', () => {
  // Day 1: 2000 domains; day 2: 20 of them gone, 100 new ones (the list grew).
  const day1 = keysOf('list', 2000);
  const day2 = [...day1.slice(20), ...keysOf('new', 100)];
  writeFileSync(file('list1.txt'), day1.join('\n'));
  writeFileSync(file('list2.txt'), day2.join('\n'));
  for (const [list, out, pinned] of [
    ['list1.txt', 'sized1.cuckoo', []],
    ['list2.txt', 'sized2.cuckoo', []],
    ['list1.txt', 'pinned1.cuckoo', ['--capacity', '2500', '--expansion', '2']],
    ['list2.txt', 'pinned2.cuckoo', ['--capacity', '2500', '--expansion', '2']],
  ] as const) {
    expect(run(['build', file(list), '-o', file(out), ...pinned]).status).toBe(0);
  }
  const refused = run(['diff', file('sized1.cuckoo'), file('sized2.cuckoo'), '-o', file('sized.patch')]);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toMatch(/differ in bucket count: \d+ in the older filter, \d+ in the newer; build every version with the same --capacity/);
  expect(existsSync(file('sized.patch'))).toBe(false);
  // Versions built with other options: the hint names the options, not the capacity.
  expect(run(['build', file('list1.txt'), '-o', file('coarse1.cuckoo'), '--capacity', '2500', '--expansion', '2', '--fpr', '0.01']).status).toBe(0);
  const options = run(['diff', file('coarse1.cuckoo'), file('pinned2.cuckoo'), '-o', file('options.patch')]);
  expect(options.stderr).toMatch(/differ in fingerprint bits: \d+ in the older filter, \d+ in the newer; build every version with the same --type and options/);
  expect(run(['diff', file('pinned1.cuckoo'), file('pinned2.cuckoo'), '-o', file('pinned.patch')]).status).toBe(0);
  const patch = readFileSync(file('pinned.patch'));
  expect(patch.length).toBeLessThan(120 * 8); // 120 changed keys, at most 8 bytes each
  expect(run(['patch', file('pinned1.cuckoo'), file('pinned.patch'), '-o', file('pinned2-again.cuckoo')]).status).toBe(0);
  expect(readFileSync(file('pinned2-again.cuckoo')).equals(readFileSync(file('pinned2.cuckoo')))).toBe(true);
});
