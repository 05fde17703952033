// The edge example (examples/cloudflare-worker) in workerd: its Worker bundled as wrangler bundles it (the package's
// "workerd" entry, the .wasm as a module), following a feed (docs/FEED.md) that this test publishes with the package's
// CLI (`cuckoo-wasm publish --urls --sign KEY`) from the sample lists and serves from a server on 127.0.0.1. It
// answers GET /check?url=… with the entry that matched or null, follows the feed by a patch, falls back to the full
// filter when a patch arrives damaged, and what a check costs in workerd is measured and printed (by a bench Worker
// that reads the feed's full filter as a static asset).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { installPackage, root, workDir } from './input';
import { bundleWorker, serveWorkers, WorkerdServer } from './workerd';

const example = join(root, 'examples', 'cloudflare-worker');
const dir = join(workDir, 'cloudflare-worker');
const publicDir = join(dir, 'public');
const feedDir = join(dir, 'feed');
const stateDir = join(dir, 'feed-state');
/** An entry added to the sample lists for the test: a bare host (the whole site). */
const ADDED = 'blocked-by-worker.test';

let server: WorkerdServer | undefined;
let updates: Server | undefined;
/** Bytes the feed server answers in place of a file's, by file name. */
const damaged = new Map<string, Uint8Array>();
let origin = '';
let benchOrigin = '';

/** Runs the package's CLI (dist/cli.cjs); its output. */
function cli(args: string[]): string {
  const r = spawnSync(process.execPath, [join(root, 'dist/cli.cjs'), ...args], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`cuckoo-wasm ${args[0]} failed: ${r.stderr}`);
  return r.stdout;
}

interface Manifest {
  version: number;
  full: { path: string; size: number; sha256: string };
  patches: { from: number; path: string; size: number }[];
}

/** Publishes the sample lists plus `entries` as the feed's next version; its manifest. */
function publish(entries: string[]): Manifest {
  const samples = ['blocklist-sample.txt', 'phishing-urls-sample.txt'].map((f) => readFileSync(join(root, 'examples/data', f), 'utf8').replace(/\n?$/, ''));
  const list = join(dir, 'blocklist.txt');
  writeFileSync(list, [...samples, ...entries].join('\n') + '\n');
  cli(['publish', list, '--out', feedDir, '--state', stateDir, '--urls', '--url-fpr', '0.001', '--poll-seconds', '1', '--sign', join(dir, 'feed.key')]);
  const envelope = JSON.parse(readFileSync(join(feedDir, 'manifest.json'), 'utf8'));
  return JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8'));
}

beforeAll(async () => {
  installPackage(dir);
  const publicKey = /^public key: (\S+)$/m.exec(cli(['keygen', '--out', join(dir, 'feed.key')]))![1];
  const v1 = publish([ADDED]);
  mkdirSync(publicDir, { recursive: true });
  copyFileSync(join(feedDir, v1.full.path), join(publicDir, 'blocklist.cuckoo'));

  updates = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const name = path.startsWith('/feed/') ? path.slice('/feed/'.length) : '';
    let body: Uint8Array | undefined = damaged.get(name);
    try {
      body ??= /^[\w.-]+$/.test(name) ? readFileSync(join(feedDir, name)) : undefined;
    } catch {
      body = undefined;
    }
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200).end(body);
  });
  await new Promise<void>((done) => updates!.listen(0, '127.0.0.1', done));
  const feedUrl = `http://127.0.0.1:${(updates.address() as AddressInfo).port}/feed/manifest.json`;

  const nodePaths = [join(dir, 'node_modules')];
  const bundle = await bundleWorker(join(example, 'src/worker.ts'), join(dir, 'worker'), undefined, nodePaths);
  expect(bundle.inputs).toContain('build/runtimes/cloudflare-worker/node_modules/cuckoo-wasm/dist/workerd.mjs');
  const bench = await bundleWorker(join(__dirname, 'bench-worker.mjs'), join(dir, 'bench'), undefined, nodePaths);
  const workerd = spawnSync('bash', [join(root, 'scripts/runtime-versions.sh'), 'workerd'], { encoding: 'utf8', timeout: 300_000 });
  if (workerd.status !== 0) throw new Error(`cannot get workerd: ${workerd.stderr}`);
  server = await serveWorkers(workerd.stdout.trim(), dir, [
    { name: 'example', bundle, vars: { FEED_URL: feedUrl, FEED_PUBLIC_KEY: publicKey, UPDATE_SECONDS: '0' } },
    { name: 'bench', bundle: bench, disks: { ASSETS: publicDir }, vars: { FILTER_VERSION: '1' } },
  ]);
  origin = server.origins.example;
  benchOrigin = server.origins.bench;
}, 180_000);

afterAll(async () => {
  await server?.close();
  await new Promise((done) => (updates ? updates.close(done) : done(undefined)));
});

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${origin}${path}`, { signal: AbortSignal.timeout(30_000) });
  return { status: response.status, body: await response.json() };
}

const check = (url: string) => get(`/check?url=${encodeURIComponent(url)}`);

/** Asks /check?url= until `until` holds for the answer, within 10 s (each request lets the Worker update after it). */
async function checkUntil(url: string, until: (body: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { body } = await check(url);
    if (until(body) || Date.now() > deadline) return body;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('GET /check?url=… answers with the entry that matched, or null; a URL that is none gets 400', async () => {
  expect(await check(`https://www.${ADDED}/login?x=1`)).toEqual({
    status: 200,
    body: { url: `https://www.${ADDED}/login?x=1`, match: `${ADDED}/`, version: 1 },
  });
  const phishing = readFileSync(join(root, 'examples/data/phishing-urls-sample.txt'), 'utf8').split('\n')[100];
  expect((await check(phishing)).body.match).toEqual(expect.any(String));
  expect((await check('https://example.org/')).body).toMatchObject({ match: null, version: 1 });
  expect(await check('/no-host')).toMatchObject({ status: 400, body: { error: 'InvalidUrlError', reason: 'no-host' } });
  expect((await get('/check')).status).toBe(400);
  expect((await get('/elsewhere')).status).toBe(404);
});

test('the Worker follows the feed by a patch, and loads the full filter when a patch arrives damaged', async () => {
  // The isolate opened the feed at its first request: version 1, the full filter.
  const before = (await get('/status')).body;
  expect(before).toMatchObject({ name: 'blocklist', version: 1, source: 'full' });
  expect((before.updates as unknown[])[0]).toMatchObject({ from: 0, to: 1, via: 'full', patchError: null });

  // Version 2: the added entry removed and a new one listed; the publisher writes a patch from version 1.
  const m2 = publish(['newly-listed.test']);
  const patch12 = m2.patches.find((p) => p.from === 1)!;
  expect(await checkUntil('http://newly-listed.test/a', (b) => b.version === 2)).toMatchObject({ match: 'newly-listed.test/', version: 2 });
  expect((await check(`https://${ADDED}/`)).body).toMatchObject({ match: null, version: 2 });
  const status = (await get('/status')).body;
  expect(status).toMatchObject({ version: 2, source: 'patch' });
  expect((status.updates as unknown[])[1]).toMatchObject({ from: 1, to: 2, via: 'patch', patchError: null });

  // Version 3: its patch from version 2 arrives damaged (one byte changed); the Worker loads the full filter instead.
  const m3 = publish(['newly-listed.test', 'third.test/path/']);
  const patch23 = m3.patches.find((p) => p.from === 2)!;
  const bad = new Uint8Array(readFileSync(join(feedDir, patch23.path)));
  bad[bad.length >> 1] ^= 0xff;
  damaged.set(patch23.path, bad);
  expect(await checkUntil('http://third.test/path/x.html', (b) => b.version === 3)).toMatchObject({ match: 'third.test/path/', version: 3 });
  const after = (await get('/status')).body;
  // lastCheck is the update this request started (UPDATE_SECONDS is 0 here), which may be under way.
  expect(after).toMatchObject({ version: 3, source: 'full', lastCheck: { error: null } });
  expect((after.updates as unknown[])[2]).toMatchObject({ from: 2, to: 3, via: 'full', patchError: expect.stringMatching(/^FeedError \(hash-mismatch\)/) });
  process.stdout.write(`cloudflare-worker: patch 1->2 ${patch12.size} bytes (full filter ${m2.full.size}); 2->3 damaged patch refused, full filter loaded\n`);
});

test('what a check costs in workerd (printed, not asserted): the first request, then microseconds per check', async () => {
  const listed = readFileSync(join(root, 'examples/data/phishing-urls-sample.txt'), 'utf8').split('\n').filter(Boolean).slice(0, 50);
  const benign = readFileSync(join(root, 'examples/data/benign-opendns.txt'), 'utf8').split('\n').filter(Boolean).slice(0, 50).map((h) => `https://${h}/`);
  const urls = [...listed, ...benign];
  const time = async (f: () => Promise<unknown>) => {
    const t0 = performance.now();
    await f();
    return performance.now() - t0;
  };
  // The bench isolate's first request loads the module and the filter.
  const first = await time(() => fetch(`${benchOrigin}/check?url=${encodeURIComponent(urls[0])}`).then((r) => r.json()));
  const repeat = (n: number, match: boolean) =>
    time(() =>
      fetch(`${benchOrigin}/repeat`, { method: 'POST', body: JSON.stringify({ n, urls, match }), signal: AbortSignal.timeout(60_000) }).then((r) =>
        r.json(),
      ),
    );
  const N = 20_000;
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
  /** Microseconds per repetition: median of 5 runs of N less the median of 5 runs of 0, over N. */
  const perRepetition = async (match: boolean) => {
    await repeat(N, match); // warm-up
    const base: number[] = [];
    const full: number[] = [];
    for (let i = 0; i < 5; ++i) {
      base.push(await repeat(0, match));
      full.push(await repeat(N, match));
    }
    return ((median(full) - median(base)) / N) * 1000;
  };
  const perCheckUs = await perRepetition(false);
  const perMatchUs = await perRepetition(true);
  const http: number[] = [];
  for (let i = 0; i < 200; ++i) http.push(await time(() => fetch(`${benchOrigin}/check?url=${encodeURIComponent(urls[i % urls.length])}`).then((r) => r.json())));
  const line =
    `cloudflare-worker in workerd: first request ${first.toFixed(1)} ms (module and filter loaded); then ` +
    `${perCheckUs.toFixed(2)} µs per check inside the Worker (its Request, matchUrl, JSON Response; median of 5 x ${N}), ` +
    `of which matchUrl ${perMatchUs.toFixed(2)} µs, ` +
    `${(median(http) * 1000).toFixed(0)} µs per GET /check over HTTP on 127.0.0.1 (median of 200)\n`;
  process.stdout.write(line);
  expect(perCheckUs).toBeGreaterThan(0);
  expect(perMatchUs).toBeGreaterThan(0);
});
