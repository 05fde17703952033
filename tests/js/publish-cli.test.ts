// `cuckoo-wasm publish` and `cuckoo-wasm keygen` (dist/cli.cjs, js/cli/publish.ts), run as a publisher runs them:
// what they print, signatures a client verifies with the printed key, the key file, and crash safety: the publish
// process killed (SIGKILL) at every point where it writes, renames or deletes a file, after which out still serves a
// complete version and the next run ends consistent, never publishing one version number with two filters.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CuckooFilter, applyPatchBytes } from 'cuckoo-wasm';
import type { FeedManifest } from '../../js/feed/manifest';
import { feedFormat } from './feed-source';

const { parseEnvelope, parseManifest, verifyEnvelope, publicKeyBytes } = feedFormat();
const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.cjs');
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
const sample = readFileSync(join(root, 'examples/data/blocklist-sample.txt'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cuckoo-publish-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function served(out: string): { text: string; manifest: FeedManifest } {
  const text = readFileSync(join(out, 'manifest.json'), 'utf8');
  return { text, manifest: parseManifest(parseEnvelope(text).payload) };
}

/** Every file the manifest names exists with its size and SHA-256; the full filter holds `entries`. */
async function checkServed(out: string, entries: string[]): Promise<{ manifest: FeedManifest; full: Buffer }> {
  const { manifest } = served(out);
  for (const f of [manifest.full, ...manifest.patches]) {
    const bytes = readFileSync(join(out, f.path));
    expect([bytes.length, sha(bytes)]).toEqual([f.size, f.sha256]);
  }
  const full = readFileSync(join(out, manifest.full.path));
  const filter = await CuckooFilter.fromBytes(full);
  expect((filter.hasAll(entries) as boolean[]).every(Boolean)).toBe(true);
  filter.dispose();
  return { manifest, full };
}

test('publish prints the version, entries added and removed, the full filter and each patch; then "unchanged"', () => {
  const list = join(dir, 'blocklist.txt');
  const out = join(dir, 'printed-out');
  const state = join(dir, 'printed-state');
  writeFileSync(list, sample.slice(0, 1000).join('\n'));
  const first = run(['publish', list, '--out', out, '--state', state]);
  expect(first.stderr).toBe('');
  expect(first.status).toBe(0);
  expect(first.stdout).toMatch(/^format:\s+lines/m);
  expect(first.stdout).toContain('published:           blocklist version 1 (CuckooFilter, fullOnly: no patch leads to it)\n');
  expect(first.stdout).toContain('entries:             1000 (1000 added, 0 removed)\n');
  const m1 = served(out).manifest;
  expect(first.stdout).toContain(`full:                ${m1.full.path} (${m1.full.size} bytes)\n`);
  expect(first.stdout).toContain(`wrote ${out}/manifest.json (unsigned)`);
  writeFileSync(list, sample.slice(5, 1010).join('\n'));
  const second = run(['publish', list, '--out', out, '--state', state, '--poll-seconds', '60']);
  expect(second.status).toBe(0);
  const m2 = served(out).manifest;
  expect(m2.pollSeconds).toBe(60);
  expect(second.stdout).toContain('entries:             1005 (10 added, 5 removed)\n');
  expect(second.stdout).toContain(`patch from 1        ${m2.patches[0].path} (${m2.patches[0].size} bytes)\n`);
  const third = run(['publish', list, '--out', out, '--state', state]);
  expect(third.status).toBe(0);
  expect(third.stdout).toContain(`unchanged: nothing published (${out} serves version 2 of blocklist, 1005 entries)`);
  const bad = run(['publish', list, '--out', out]);
  expect([bad.status, bad.stderr]).toEqual([1, 'cuckoo-wasm: publish needs --state DIR (the publisher\'s own folder, not served) (see cuckoo-wasm --help)\n']);
});

test('keygen writes a PKCS#8 key with mode 0600, never over a file; publish --sign signs what verifyEnvelope accepts with the printed key', async () => {
  const key = join(dir, 'feed.key');
  const k = run(['keygen', '--out', key]);
  expect(k.status).toBe(0);
  expect(statSync(key).mode & 0o777).toBe(0o600);
  expect(readFileSync(key, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  const printed = /^public key: (\S+)$/m.exec(k.stdout)![1];
  const publicKey = publicKeyBytes(printed)!;
  expect(publicKey).toHaveLength(32);
  const before = readFileSync(key);
  const again = run(['keygen', '--out', key]);
  expect(again.status).toBe(1);
  expect(again.stderr).toMatch(/feed\.key exists: keygen never replaces a key/);
  expect(readFileSync(key).equals(before)).toBe(true);

  const list = join(dir, 'signed.txt');
  const out = join(dir, 'signed-out');
  writeFileSync(list, sample.slice(0, 100).join('\n'));
  const p = run(['publish', list, '--out', out, '--state', join(dir, 'signed-state'), '--sign', key]);
  expect(p.status).toBe(0);
  expect(p.stdout).toContain(`(signed with ${key})`);
  const envelope = parseEnvelope(served(out).text);
  expect(envelope.signatures).toHaveLength(1);
  await expect(verifyEnvelope(envelope, publicKey)).resolves.toBeUndefined();
  // Another key does not verify it, and a changed payload does not verify with this one.
  const other = join(dir, 'other.key');
  const otherKey = publicKeyBytes(/^public key: (\S+)$/m.exec(run(['keygen', '--out', other]).stdout)![1])!;
  await expect(verifyEnvelope(envelope, otherKey)).rejects.toMatchObject({ reason: 'bad-signature' });
  const changed = { ...envelope, payload: new TextEncoder().encode(new TextDecoder().decode(envelope.payload).replace('"version":1', '"version":2')) };
  await expect(verifyEnvelope(changed, publicKey)).rejects.toMatchObject({ reason: 'bad-signature' });
  // The key id is the first 8 bytes of SHA-256 of the public key.
  expect(envelope.signatures[0].keyid).toBe(createHash('sha256').update(publicKey).digest().subarray(0, 8).toString('base64'));
});

test('--keep N: at most N patches, from the last N versions', () => {
  const list = join(dir, 'keep.txt');
  const out = join(dir, 'keep-out');
  for (let v = 1; v <= 6; ++v) {
    writeFileSync(list, sample.slice(v, 500 + v).join('\n'));
    expect(run(['publish', list, '--out', out, '--state', join(dir, 'keep-state'), '--keep', '3']).status).toBe(0);
    expect(served(out).manifest.patches.map((p) => p.from)).toEqual([v - 1, v - 2, v - 3].filter((x) => x >= 1));
  }
  const zero = run(['publish', list, '--out', out, '--state', join(dir, 'keep-state'), '--keep', '1.5']);
  expect(zero.status).toBe(1);
  expect(zero.stderr).toMatch(/keep must be an integer from 0 to 1000/);
});

/**
 * Crash safety. Version 1 is published from list A; then the publish of list B is killed at its K-th write, rename or
 * delete (CUCKOO_PUBLISH_CRASH_AT=K), for every K until a run ends without reaching K. After each kill, out serves
 * version 1 or 2, complete. Then the publish of B runs again: out serves B's version (2, published by the killed run
 * or now, or 3 when the killed run's pending version 2 was dropped), each number with one filter only; then list C
 * gives the next version, whose patches from 1 and B's version apply to the filters that were served.
 */
test('killed at every point of a publish: out always serves a complete version, the next runs end consistent', async () => {
  const a = sample.slice(0, 2000);
  const b = [...sample.slice(20, 2000), ...sample.slice(2000, 2030)];
  const c = [...sample.slice(25, 2030), ...sample.slice(2030, 2040)];
  const base = join(dir, 'crash-base');
  const list = join(dir, 'crash.txt');
  writeFileSync(list, a.join('\n'));
  expect(run(['publish', list, '--out', join(base, 'out'), '--state', join(base, 'state')]).status).toBe(0);
  const v1 = readFileSync(join(base, 'out', served(join(base, 'out')).manifest.full.path));
  /** The filters published under each version number (by SHA-256): one each. */
  const fulls = new Map<number, Set<string>>();
  let crashes = 0;
  for (let k = 1; k < 100; ++k) {
    const copy = join(dir, `crash-${k}`);
    cpSync(base, copy, { recursive: true });
    const out = join(copy, 'out');
    const state = join(copy, 'state');
    writeFileSync(list, b.join('\n'));
    const killed = run(['publish', list, '--out', out, '--state', state], { CUCKOO_PUBLISH_CRASH_AT: String(k) });
    if (killed.signal === null) {
      expect(killed.status).toBe(0);
      rmSync(copy, { recursive: true, force: true });
      break;
    }
    expect(killed.signal).toBe('SIGKILL');
    crashes += 1;
    // Right after the kill: version 1 or 2, every file there and right.
    const after = served(out).manifest;
    expect([1, 2]).toContain(after.version);
    const { full } = await checkServed(out, after.version === 1 ? a : b);
    if (after.version === 1) expect(full.equals(v1)).toBe(true);
    else fulls.set(2, new Set([...(fulls.get(2) ?? []), after.full.sha256]));
    // The next run: version 2, whoever published it.
    const again = run(['publish', list, '--out', out, '--state', state]);
    expect(again.stderr).toBe('');
    expect(again.status).toBe(0);
    // Version 2 again, or 3 when the killed run's pending version 2 was dropped: a number whose manifest may have been
    // seen (a power cut can undo a rename clients saw) is never used again.
    const { manifest: m2, full: full2 } = await checkServed(out, b);
    expect(again.stdout).toMatch(after.version === 2 ? /unchanged: nothing published/ : new RegExp(`published:\\s+crash version ${m2.version}`));
    expect(after.version === 2 ? [2] : [2, 3]).toContain(m2.version);
    if (after.version === 2) expect(m2.full.sha256).toBe(after.full.sha256);
    if (!fulls.has(m2.version)) fulls.set(m2.version, new Set());
    fulls.get(m2.version)!.add(m2.full.sha256);
    // And the one after: its patches apply to what was served.
    writeFileSync(list, c.join('\n'));
    expect(run(['publish', list, '--out', out, '--state', state]).status).toBe(0);
    const { manifest: m3, full: full3 } = await checkServed(out, c);
    expect(m3.version).toBe(m2.version + 1);
    const bases = new Map([[1, v1], [m2.version, full2]]);
    expect(m3.patches.map((p) => p.from)).toEqual([m2.version, 1]);
    for (const p of m3.patches) {
      expect(Buffer.from(await applyPatchBytes(bases.get(p.from)!, readFileSync(join(out, p.path)))).equals(full3)).toBe(true);
    }
    // Nothing is left behind: out holds versions 2 and 3's files, the state no temporary file.
    const named = new Set(['manifest.json', m3.full.path, ...m3.patches.map((p) => p.path), m2.full.path, ...m2.patches.map((p) => p.path)]);
    expect(readdirSync(out).filter((n) => !named.has(n))).toEqual([]);
    expect(readdirSync(state).filter((n) => /tmp|pending|lock/.test(n))).toEqual([]);
    rmSync(copy, { recursive: true, force: true });
  }
  // Every point was reached, and each version number was only ever one filter (a deterministic build from the same state).
  expect(crashes).toBeGreaterThan(10);
  for (const [version, shas] of fulls) expect([version, shas.size]).toEqual([version, 1]);
  expect(fulls.has(2)).toBe(true);
  expect(existsSync(join(base, 'state', 'lock'))).toBe(false);
});
