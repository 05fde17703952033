// publish() (js/feed/publish.ts, docs/FEED.md §5) from the Node.js entry, on real files: 30 versions of a real list
// with seeded adds and removals, each checked as a client would check it (the manifest, every file's size and
// SHA-256, every patch applied to the version it is from, every entry found), and what each option changes.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BloomFilter, CuckooFilter, PublishError, RedisCuckooFilter, applyPatchBytes, publish } from 'cuckoo-wasm';
import { fixtureChunks, readFixture, startFakeRedis } from './fake-redis';
import type { PublishOptions } from 'cuckoo-wasm';
import type { FeedManifest } from '../../js/feed/manifest';
import { feedFormat } from './feed-source';
import { createHash } from 'node:crypto';

const root = join(__dirname, '..', '..');
const sample = readFileSync(join(root, 'examples/data/blocklist-sample.txt'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
const { parseEnvelope, parseManifest } = feedFormat();
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A seeded 32-bit generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cuckoo-publish-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh feed: its list file, out and state folders. */
function feed(name: string) {
  const base = join(dir, name);
  const list = `${base}.txt`;
  return { list, out: `${base}-out`, state: `${base}-state`, write: (entries: string[]) => writeFileSync(list, entries.join('\n') + '\n') };
}

function served(out: string): { text: string; manifest: FeedManifest } {
  const text = readFileSync(join(out, 'manifest.json'), 'utf8');
  return { text, manifest: parseManifest(parseEnvelope(text).payload) };
}

/** Checks every file the manifest names as a client would: sizes and SHA-256s, and the full filter holds `entries`. */
async function checkServed(out: string, entries: string[], type: 'cuckoo' | 'bloom' = 'cuckoo'): Promise<{ manifest: FeedManifest; full: Buffer }> {
  const { manifest } = served(out);
  for (const f of [manifest.full, ...manifest.patches]) {
    const bytes = readFileSync(join(out, f.path));
    expect(bytes.length).toBe(f.size);
    expect(sha(bytes)).toBe(f.sha256);
    expect(f.path).toMatch(new RegExp(`^(full|patch-\\d+)-${f.sha256}\\.bin$`));
  }
  const full = readFileSync(join(out, manifest.full.path));
  const filter = type === 'bloom' ? await BloomFilter.fromBytes(full) : await CuckooFilter.fromBytes(full);
  const answers = filter.hasAll(entries) as boolean[];
  filter.dispose();
  expect(answers.filter((a) => !a).length).toBe(0);
  return { manifest, full };
}

test('30 versions of a real list with seeded adds and removals: every version checks out, every patch gives the new filter', async () => {
  const random = rng(30);
  const f = feed('thirty');
  let entries = sample.slice(0, 3000);
  let pool = sample.slice(3000);
  const fulls = new Map<number, Buffer>();
  const keep = 10;
  let unchangedRuns = 0;
  const removed = new Set<string>();
  for (let run = 0; run < 32; ++run) {
    if (run > 0) {
      // Version 5's run is unchanged: nothing published.
      const removals = run === 5 ? 0 : Math.floor(random() * 40);
      const adds = run === 5 ? 0 : Math.floor(random() * 40);
      for (let k = 0; k < removals; ++k) for (const e of entries.splice(Math.floor(random() * entries.length), 1)) removed.add(e);
      entries = [...entries, ...pool.slice(0, adds)];
      pool = pool.slice(adds);
    }
    f.write(entries);
    const before = run > 0 ? served(f.out).text : undefined;
    const r = await publish({ list: f.list, out: f.out, state: f.state, keep, now: new Date(Date.UTC(2026, 11, 7, run)) });
    const changed = run === 0 || run !== 5;
    expect(r.published).toBe(changed);
    if (!changed) {
      unchangedRuns += 1;
      expect(served(f.out).text).toBe(before);
      continue;
    }
    expect(r.version).toBe(run + 1 - unchangedRuns);
    expect(r.entries).toBe(new Set(entries).size);
    const { manifest, full } = await checkServed(f.out, entries);
    expect(manifest.version).toBe(r.version);
    expect(manifest.name).toBe('thirty');
    expect(manifest.family).toBe('CuckooFilter');
    expect(manifest.fullOnly).toBe(r.version === 1);
    expect(manifest.published).toBe(new Date(Date.UTC(2026, 11, 7, run)).toISOString());
    // A patch from each of the last `keep` versions, newest first, each giving exactly the new filter.
    const froms = manifest.patches.map((p) => p.from);
    expect(froms).toEqual(Array.from({ length: Math.min(keep, r.version - 1) }, (_, i) => r.version - 1 - i));
    for (const p of manifest.patches) {
      const applied = await applyPatchBytes(fulls.get(p.from)!, readFileSync(join(f.out, p.path)));
      expect(Buffer.from(applied).equals(full)).toBe(true);
      expect(p.size).toBeLessThan(full.length / 4);
    }
    fulls.set(r.version, full);
    // Entries removed are deleted: they answer only as false positives do (ε = 0.1%).
    const gone = [...removed].filter((e) => !entries.includes(e));
    const filter = await CuckooFilter.fromBytes(full);
    expect((filter.hasAll(gone) as boolean[]).filter(Boolean).length).toBeLessThanOrEqual(Math.max(1, gone.length * 0.02));
    filter.dispose();
    // Old files go once neither this manifest nor the one before names them.
    const names = new Set([manifest.full.path, ...manifest.patches.map((p) => p.path), 'manifest.json']);
    const extra = readdirSync(f.out).filter((n) => !names.has(n));
    expect(extra.length).toBeLessThanOrEqual(1 + keep);
    expect(extra.every((n) => /^(full|patch)-/.test(n))).toBe(true);
  }
  // The list's entries are never in the served folder.
  const bytes = Buffer.concat(readdirSync(f.out).map((n) => readFileSync(join(f.out, n))));
  for (const e of entries.slice(0, 50)) expect(bytes.includes(Buffer.from(e))).toBe(false);
});

test('out keeps exactly the files of the current and the previous manifest', async () => {
  const f = feed('generations');
  const entries = sample.slice(0, 500);
  const manifests: FeedManifest[] = [];
  for (let v = 1; v <= 5; ++v) {
    f.write(entries.slice(v));
    await publish({ list: f.list, out: f.out, state: f.state, keep: 2 });
    manifests.push(served(f.out).manifest);
    const files = (m: FeedManifest) => [m.full.path, ...m.patches.map((p) => p.path)];
    const expected = new Set(['manifest.json', ...files(manifests[v - 1]), ...(v > 1 ? files(manifests[v - 2]) : [])]);
    expect(new Set(readdirSync(f.out))).toEqual(expected);
    expect(manifests[v - 1].patches.map((p) => p.from)).toEqual([v - 1, v - 2].filter((x) => x >= 1));
  }
});

test('an unchanged list publishes nothing: published false, out byte for byte as it was', async () => {
  const f = feed('unchanged');
  f.write(sample.slice(0, 200));
  const first = await publish({ list: f.list, out: f.out, state: f.state });
  const listing = readdirSync(f.out).map((n) => [n, statSync(join(f.out, n)).mtimeMs, readFileSync(join(f.out, n)).toString('hex')]);
  // The same entries in another order, repeated, with comments and blank lines: the same list.
  writeFileSync(f.list, ['# comment', '', ...sample.slice(0, 200).reverse(), sample[0]].join('\n'));
  const again = await publish({ list: f.list, out: f.out, state: f.state });
  expect(again.published).toBe(false);
  expect(again.version).toBe(first.version);
  expect(again.full).toEqual(first.full);
  expect(readdirSync(f.out).map((n) => [n, statSync(join(f.out, n)).mtimeMs, readFileSync(join(f.out, n)).toString('hex')])).toEqual(listing);
});

test('a cuckoo filter the list outgrows is built again: fullOnly, no patches; the next version patches from it', async () => {
  const f = feed('outgrown');
  f.write(sample.slice(0, 1000));
  const v1 = await publish({ list: f.list, out: f.out, state: f.state });
  expect(v1.fullOnly).toBe(true);
  f.write(sample.slice(0, 1100)); // within the 1.25 headroom: a patch
  const v2 = await publish({ list: f.list, out: f.out, state: f.state });
  expect([v2.fullOnly, v2.patches.length, v2.added]).toEqual([false, 1, 100]);
  f.write(sample.slice(0, 2000)); // past it
  const v3 = await publish({ list: f.list, out: f.out, state: f.state });
  expect([v3.version, v3.fullOnly, v3.patches.length, v3.entries]).toEqual([3, true, 0, 2000]);
  const { manifest } = await checkServed(f.out, sample.slice(0, 2000));
  expect(manifest.fullOnly).toBe(true);
  f.write(sample.slice(10, 2000));
  const v4 = await publish({ list: f.list, out: f.out, state: f.state });
  // Patches only from versions with the same parameters: version 3 on.
  expect([v4.fullOnly, v4.patches.map((p) => p.from)]).toEqual([false, [3]]);
  await checkServed(f.out, sample.slice(10, 2000));
});

test('an explicit capacity too small for a filter that does not grow: FilterFullError; with expansion it grows and stays a patch', async () => {
  const f = feed('expansion');
  f.write(sample.slice(0, 1000));
  await expect(publish({ list: f.list, out: f.out, state: f.state, capacity: 500 })).rejects.toMatchObject({ code: 'ERR_FILTER_FULL' });
  expect(readdirSync(f.out)).toEqual([]);
  await publish({ list: f.list, out: f.out, state: f.state, capacity: 1000, expansion: 2 });
  f.write(sample.slice(0, 3000));
  const v2 = await publish({ list: f.list, out: f.out, state: f.state, capacity: 1000, expansion: 2 });
  expect([v2.fullOnly, v2.patches.length]).toEqual([false, 1]);
  await checkServed(f.out, sample.slice(0, 3000));
});

test('bloom: adds only give patches; a removal builds it again (fullOnly)', async () => {
  const f = feed('bloom');
  const o = (): PublishOptions => ({ list: f.list, out: f.out, state: f.state, type: 'bloom', falsePositiveRate: 0.01 });
  f.write(sample.slice(0, 1000));
  expect((await publish(o())).family).toBe('BloomFilter');
  f.write(sample.slice(0, 1100));
  const v2 = await publish(o());
  expect([v2.fullOnly, v2.patches.length, v2.added, v2.removed]).toEqual([false, 1, 100, 0]);
  const { full: full2 } = await checkServed(f.out, sample.slice(0, 1100), 'bloom');
  f.write(sample.slice(1, 1100));
  const v3 = await publish(o());
  expect([v3.fullOnly, v3.patches.length, v3.removed]).toEqual([true, 0, 1]);
  const { full: full3 } = await checkServed(f.out, sample.slice(1, 1100), 'bloom');
  expect(full3.equals(full2)).toBe(false);
});

test('urls: entries stored as their canonical expressions; a line that is no URL is refused naming it', async () => {
  const f = feed('urls');
  writeFileSync(f.list, 'https://Evil.EXAMPLE/a/./b#x\nphish.example/login\n');
  const r = await publish({ list: f.list, out: f.out, state: f.state, urls: true });
  expect(r.entries).toBe(2);
  const filter = await CuckooFilter.fromBytes(readFileSync(join(f.out, r.full.path)));
  expect(filter.hasUrl('http://evil.example/a/b')).toBe(true);
  expect(filter.hasUrl('https://phish.example/login?x=1')).toBe(true);
  filter.dispose();
  writeFileSync(f.list, 'https://ok.example/\nnot a url at all\n');
  await expect(publish({ list: f.list, out: f.out, state: f.state, urls: true })).rejects.toThrow(/urls\.txt:2: "not a url at all" is not a URL/);
  expect(served(f.out).manifest.version).toBe(1);
});

test('lists are read as build reads them: hosts format, CRLF, a byte order mark; not UTF-8 is refused with its line', async () => {
  const f = feed('hosts');
  writeFileSync(f.list, '\uFEFF# hosts\r\n127.0.0.1 localhost\r\n0.0.0.0 ads.example tracker.example\r\n0.0.0.0 evil.example\r\n');
  const r = await publish({ list: f.list, out: f.out, state: f.state });
  expect(r.entries).toBe(3);
  expect(r.report[0]).toMatch(/^format:\s+hosts/);
  await checkServed(f.out, ['ads.example', 'tracker.example', 'evil.example']);
  writeFileSync(f.list, Buffer.concat([Buffer.from('0.0.0.0 a.example\n0.0.0.0 b.example\n0.0.0.0 '), Buffer.from([0xff, 0xfe]), Buffer.from('.example\n')]));
  const e = await publish({ list: f.list, out: f.out, state: f.state }).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(PublishError);
  expect(e).toMatchObject({ reason: 'list', message: expect.stringMatching(/is not UTF-8 text \(line 3\)/) });
});

test('a list longer than one sorted run (runs merged from files) gives the same filter as the list in one run', async () => {
  // 600,000 entries: two runs of 2^19 entries; duplicates across runs counted once.
  const f = feed('runs');
  const many = Array.from({ length: 600000 }, (_, i) => `host-${(i * 7919) % 300000}.example`);
  f.write(many);
  const r = await publish({ list: f.list, out: f.out, state: f.state });
  expect(r.entries).toBe(300000);
  const g = feed('runs-one');
  g.write(Array.from({ length: 300000 }, (_, i) => `host-${i}.example`));
  const one = await publish({ list: g.list, out: g.out, state: g.state, name: 'runs' });
  expect(one.full.sha256).toBe(r.full.sha256);
});

test('options and folders that do not fit are refused with PublishError naming them', async () => {
  const f = feed('refused');
  f.write(['a.example']);
  const base = { list: f.list, out: f.out, state: f.state };
  await expect(publish({ ...base, keep: -1 })).rejects.toMatchObject({ reason: 'options', message: expect.stringMatching(/^keep must be an integer/) });
  await expect(publish({ ...base, falsePositiveRate: 2 })).rejects.toMatchObject({ reason: 'options' });
  await expect(publish({ ...base, name: 'no/slash' })).rejects.toMatchObject({ reason: 'options' });
  await expect(publish({ out: f.out, state: f.state } as PublishOptions)).rejects.toMatchObject({ reason: 'options' });
  await expect(publish({ ...base, state: join(f.out, 'state') })).rejects.toMatchObject({ reason: 'options', message: expect.stringMatching(/must never be served/) });
  await expect(publish({ ...base, state: f.out })).rejects.toMatchObject({ reason: 'options' });
  await expect(publish({ ...base, list: join(dir, 'missing.txt') })).rejects.toMatchObject({ reason: 'list', message: expect.stringMatching(/ENOENT/) });
  await publish(base);
  await expect(publish({ ...base, name: 'other' })).rejects.toMatchObject({ reason: 'state', message: expect.stringMatching(/serves the feed "refused", not "other"/) });
  await expect(publish({ ...base, signingKey: f.list })).rejects.toMatchObject({ reason: 'signing-key' });
});

test('a list with no entries is refused, nothing published, unless allowEmpty', async () => {
  const f = feed('empty');
  f.write(sample.slice(0, 10));
  await publish({ list: f.list, out: f.out, state: f.state });
  const before = served(f.out).text;
  writeFileSync(f.list, '# nothing today\n\n');
  await expect(publish({ list: f.list, out: f.out, state: f.state })).rejects.toMatchObject({ reason: 'list', message: expect.stringMatching(/has no entries, so nothing was published/) });
  expect(served(f.out).text).toBe(before);
  const r = await publish({ list: f.list, out: f.out, state: f.state, allowEmpty: true });
  expect([r.published, r.version, r.entries, r.removed]).toEqual([true, 2, 0, 10]);
});

test('redis: a RedisBloom key published as the server holds it; unchanged bytes publish nothing; a new family is fullOnly', async () => {
  const local = await RedisCuckooFilter.create({ capacity: 2000 });
  local.addAll(sample.slice(0, 1000));
  const chunks = () => [...local.scanDumpChunks()].map(([i, c]) => [i, Buffer.from(c)] as [number, Buffer]);
  const fake = await startFakeRedis({ feed: { type: 'CF', chunks: chunks() } });
  try {
    const f = feed('redis');
    const o = { redis: { url: fake.url, key: 'feed' }, out: f.out, state: f.state };
    const v1 = await publish(o);
    expect([v1.published, v1.version, v1.family, v1.fullOnly, v1.name]).toEqual([true, 1, 'RedisCuckooFilter', true, 'feed']);
    expect(readFileSync(join(f.out, v1.full.path)).equals(Buffer.from(local.toBytes()))).toBe(true);
    expect((await publish(o)).published).toBe(false);
    // Keys deleted and added on the server: a patch.
    for (const k of sample.slice(0, 10)) local.delete(k);
    local.addAll(sample.slice(1000, 1050));
    fake.keys.set('feed', { type: 'CF', chunks: chunks() });
    const v2 = await publish(o);
    expect([v2.version, v2.fullOnly, v2.patches.map((p) => p.from), v2.added, v2.entries]).toEqual([2, false, [1], 40, 1040]);
    const applied = await applyPatchBytes(readFileSync(join(f.out, v1.full.path)), readFileSync(join(f.out, v2.patches[0].path)));
    expect(Buffer.from(applied).equals(Buffer.from(local.toBytes()))).toBe(true);
    // Another family under the key: built anew, fullOnly.
    const bf = readFixture('bf-grow');
    fake.keys.set('feed', { type: 'BF', chunks: fixtureChunks(bf) });
    const v3 = await publish(o);
    expect([v3.version, v3.family, v3.fullOnly, v3.patches]).toEqual([3, 'RedisBloomFilter', true, []]);
    await expect(publish({ ...o, type: 'bloom' } as PublishOptions)).rejects.toMatchObject({ reason: 'options' });
  } finally {
    local.dispose();
    await fake.close();
  }
});

test('a lost state folder: the next version is numbered above what out serves, fullOnly', async () => {
  const f = feed('lost');
  f.write(sample.slice(0, 300));
  await publish({ list: f.list, out: f.out, state: f.state });
  f.write(sample.slice(0, 310));
  await publish({ list: f.list, out: f.out, state: f.state });
  rmSync(f.state, { recursive: true });
  const r = await publish({ list: f.list, out: f.out, state: f.state });
  expect([r.published, r.version, r.fullOnly]).toEqual([true, 3, true]);
  await checkServed(f.out, sample.slice(0, 310));
});

test('the browsers\' build has no publish: it rejects with PublishError unsupported-runtime', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const browser = require(join(root, 'dist', 'index.cjs')) as typeof import('cuckoo-wasm');
  const e = await browser.publish({ list: 'x', out: 'y', state: 'z' }).catch((x: unknown) => x);
  expect(e).toMatchObject({ code: 'ERR_PUBLISH', reason: 'unsupported-runtime', message: expect.stringMatching(/^publish runs in Node\.js, Deno or Bun: it writes files/) });
  for (const bundle of ['index.mjs', 'index.cjs', 'workerd.mjs']) {
    const text = readFileSync(join(root, 'dist', bundle), 'utf8');
    // No import of Node.js's modules (FileFeedStore names node:fs as a string, for process.getBuiltinModule), and no
    // publish code: its state file's format is named nowhere else.
    expect(text).not.toMatch(/(?:from\s*|import\s*\(\s*|require\s*\(\s*)["']node:/);
    expect(text).not.toContain('cuckoo-wasm-publish-state');
    expect(text).not.toContain('cuckoo-wasm-publish-state/1');
  }
  expect(readFileSync(join(root, 'dist', 'node.cjs'), 'utf8')).toContain('cuckoo-wasm-publish-state/1');
});

test('two publish runs of one process on one state folder: the second is refused (state), the first publishes', async () => {
  const f = feed('twice');
  f.write(sample.slice(0, 2000));
  const [a, b] = await Promise.allSettled([publish({ list: f.list, out: f.out, state: f.state }), publish({ list: f.list, out: f.out, state: f.state })]);
  expect(a.status).toBe('fulfilled');
  expect(b).toMatchObject({ status: 'rejected', reason: { code: 'ERR_PUBLISH', reason: 'state' } });
  expect(existsSync(join(f.state, 'lock'))).toBe(false);
  // The lock is released: the next run goes on.
  f.write(sample.slice(0, 2010));
  expect((await publish({ list: f.list, out: f.out, state: f.state })).version).toBe(2);
});

test('a lock left by a process that is gone is taken over; a pending version that out does not serve is never numbered again', async () => {
  const f = feed('stale');
  f.write(sample.slice(0, 300));
  await publish({ list: f.list, out: f.out, state: f.state });
  // A publisher killed after writing its pending state for version 2, whose manifest rename was then undone (a power
  // cut): out serves version 1.
  const meta = JSON.parse(readFileSync(join(f.state, 'meta.json'), 'utf8'));
  writeFileSync(join(f.state, 'pending.json'), JSON.stringify({ ...meta, version: 2, manifestSha256: '0'.repeat(64) }));
  writeFileSync(join(f.state, 'lock'), '2147483646 dead');
  f.write(sample.slice(0, 320));
  const r = await publish({ list: f.list, out: f.out, state: f.state });
  expect([r.published, r.version]).toEqual([true, 3]);
  expect(served(f.out).manifest.version).toBe(3);
  expect(existsSync(join(f.state, 'lock'))).toBe(false);
});
