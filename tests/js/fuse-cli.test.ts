// The binary fuse filter from the command line and the publisher: `cuckoo-wasm build --type fuse`, `info` and
// `query` of its file, and `publish --type fuse` (every version built again, fullOnly), run as a user runs them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BinaryFuseFilter, FilterFeed, MemoryFeedStore, PublishError, publish } from 'cuckoo-wasm';
import { feedFormat } from './feed-source';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.cjs');
const run = (args: string[], input?: string) => spawnSync(process.execPath, [cli, ...args], { input, encoding: 'utf8' });
const sample = readFileSync(join(root, 'examples/data/blocklist-sample.txt'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
const { parseEnvelope, parseManifest } = feedFormat();

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cuckoo-fuse-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('build --type fuse: f from --fpr, each key once, the smallest file; info and query read it', async () => {
  const list = join(dir, 'list.txt');
  writeFileSync(list, [...sample, sample[0], sample[1]].join('\n') + '\n');
  const fuse = run(['build', list, '-o', join(dir, 'f.fuse'), '--type', 'fuse', '--fpr', '0.001']);
  expect(fuse.stderr).toBe('');
  expect(fuse.status).toBe(0);
  expect(fuse.stdout).toMatch(new RegExp(`keys added:\\s+${sample.length}\\n`));
  expect(fuse.stdout).toMatch(/duplicates skipped:\s+2\n/);
  expect(fuse.stdout).toMatch(/fingerprint bits:\s+10 \(binary fuse, 4-wise/);
  expect(fuse.stdout).toMatch(/false-positive rate: 0\.000977 \(2\^-10; asked for 0\.00100\)/);
  const bytes = readFileSync(join(dir, 'f.fuse'));
  const f = await BinaryFuseFilter.fromBytes(bytes);
  expect(f.size).toBe(sample.length);
  expect((f.hasAll(sample) as boolean[]).every(Boolean)).toBe(true);
  f.dispose();
  // The same list as a cuckoo filter at the same rate takes more bytes.
  expect(run(['build', list, '-o', join(dir, 'f.cuckoo'), '--fpr', '0.001']).status).toBe(0);
  expect(bytes.length).toBeLessThan(readFileSync(join(dir, 'f.cuckoo')).length);

  const info = run(['info', join(dir, 'f.fuse')]);
  expect(info.status).toBe(0);
  expect(info.stdout).toMatch(/type:\s+fuse \(binary fuse, static\)\n/);
  expect(info.stdout).toMatch(new RegExp(`items:\\s+${sample.length}\\n`));
  expect(info.stdout).toMatch(/false-positive rate:\s+0\.000977 \(2\^-10\)\n/);
  const query = run(['query', join(dir, 'f.fuse'), sample[3], 'surely-not-listed.example']);
  expect(query.stdout).toBe(`${sample[3]}\tyes\nsurely-not-listed.example\tno\n`);
});

test('build --type fuse --urls: entries stored as their canonical expressions, looked up by URL', () => {
  const list = join(dir, 'urls.txt');
  writeFileSync(list, 'evil.example\nshared.example/~phisher/\n');
  const r = run(['build', list, '--urls', '--type', 'fuse', '--url-fpr', '0.01', '-o', join(dir, 'u.fuse')]);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/per-URL rate:\s+at most/);
  const q = run(['query', '--urls', join(dir, 'u.fuse'), 'https://a.evil.example/x', 'http://shared.example/~phisher/login', 'http://shared.example/']);
  expect(q.stdout).toBe('https://a.evil.example/x\tyes\tevil.example/\nhttp://shared.example/~phisher/login\tyes\tshared.example/~phisher/\nhttp://shared.example/\tno\n');
});

test.each([
  [['--capacity', '100'], /--capacity is not for a binary fuse filter/],
  [['--expansion', '2'], /--expansion is not for a binary fuse filter/],
  [['--keep-duplicates'], /--keep-duplicates is not for a binary fuse filter/],
  [['--bucket-size', '4'], /--bucket-size is for cuckoo filters; omit it with --type fuse/],
  [['--fpr', '0.00001'], /--fpr 0\.00001 is below 2\^-16/],
])('build --type fuse %j: a one-line message, exit code 1, no file', (extra, message) => {
  const out = join(dir, 'refused.fuse');
  const r = run(['build', join(root, 'examples/data/blocklist-sample.txt'), '-o', out, '--type', 'fuse', ...(extra as string[])]);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(message as RegExp);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(existsSync(out)).toBe(false);
});

test('publish --type fuse: every version built again and published fullOnly; a feed follows it', async () => {
  const list = join(dir, 'feed.txt');
  const out = join(dir, 'feed-out');
  const state = join(dir, 'feed-state');
  let entries = sample.slice(0, 2000);
  writeFileSync(list, entries.join('\n') + '\n');
  const first = await publish({ list, out, state, type: 'fuse' });
  expect(first).toMatchObject({ published: true, version: 1, family: 'BinaryFuseFilter', fullOnly: true, entries: 2000 });
  const files = new Map<string, Uint8Array>();
  const fetch = async (url: string | { href: string }) => {
    const path = String(typeof url === 'string' ? url : url.href).replace('https://feed.example/', '');
    const body = readFileSync(join(out, path));
    files.set(path, body);
    return new Response(body);
  };
  const feed = await FilterFeed.open({ manifestUrl: 'https://feed.example/manifest.json', fetch, store: new MemoryFeedStore() });
  expect(feed.version).toBe(1);
  expect(feed.filter).toBeInstanceOf(BinaryFuseFilter);
  // 1% of the entries replaced: a new version, built again, with no patch.
  entries = [...entries.slice(20), ...sample.slice(2000, 2020)];
  writeFileSync(list, entries.join('\n') + '\n');
  const second = await publish({ list, out, state, type: 'fuse' });
  expect(second).toMatchObject({ published: true, version: 2, fullOnly: true, added: 20, removed: 20, entries: 2000, patches: [] });
  const manifest = parseManifest(parseEnvelope(readFileSync(join(out, 'manifest.json'), 'utf8')).payload);
  expect(manifest.family).toBe('BinaryFuseFilter');
  expect(manifest.fullOnly).toBe(true);
  const update = await feed.update();
  expect(update).toMatchObject({ from: 1, to: 2, via: 'full' });
  expect((feed.filter.hasAll(entries) as boolean[]).every(Boolean)).toBe(true);
  expect(feed.has(sample[0])).toBe(feed.filter.has(sample[0]));
  feed.dispose();
  // Unchanged: nothing published.
  expect(await publish({ list, out, state, type: 'fuse' })).toMatchObject({ published: false, version: 2 });
  // A size or a growth factor has no meaning for a static filter.
  await expect(publish({ list, out, state, type: 'fuse', capacity: 10 })).rejects.toThrow(PublishError);
  await expect(publish({ list, out, state, type: 'fuse', expansion: 2 })).rejects.toThrow(/capacity and expansion are not for a binary fuse filter/);
});

test('publish --type fuse refuses a rate below 2^-16 before it reads the list', async () => {
  const missing = { list: join(dir, 'no-such-list.txt'), out: join(dir, 'rate-out'), state: join(dir, 'rate-state'), type: 'fuse' as const };
  const options = await publish({ ...missing, falsePositiveRate: 1e-5 }).catch((e: unknown) => e);
  expect(options).toBeInstanceOf(PublishError);
  expect(options).toMatchObject({ reason: 'options', message: expect.stringMatching(/falsePositiveRate 0\.00001 is below 2\^-16/) });
  const perUrl = await publish({ ...missing, urls: true, urlFalsePositiveRate: 1e-4 }).catch((e: unknown) => e);
  expect(perUrl).toMatchObject({ reason: 'options', message: expect.stringMatching(/urlFalsePositiveRate 0\.0001 needs a per-key rate of 0\.00000333, which is below 2\^-16/) });
});
