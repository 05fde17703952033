// The edge example (examples/cloudflare-worker) in workerd: its filter built by its build.mjs, its Worker bundled
// as wrangler bundles it (the package's "workerd" entry, the .wasm as a module), its static assets served by a
// workerd disk service bound as ASSETS (what wrangler's [assets] binding gives), and an update server on
// 127.0.0.1. It answers GET /check?url=… with the entry that matched or null, follows the list by a patch, falls
// back to the full filter when a patch is refused, and what a check costs in workerd is measured and printed.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CuckooFilter } from 'cuckoo-wasm';
import { installPackage, root, workDir } from './input';
import { bundleWorker, serveWorkers, WorkerdServer } from './workerd';

const example = join(root, 'examples', 'cloudflare-worker');
const dir = join(workDir, 'cloudflare-worker');
const publicDir = join(dir, 'public');
/** An entry added to the sample lists for the test: a bare host (the whole site). */
const ADDED = 'blocked-by-worker.test';

let server: WorkerdServer | undefined;
let updates: Server | undefined;
/** What the update server answers under /updates/, by path. */
const published = new Map<string, Uint8Array | string>();
let origin = '';
let benchOrigin = '';

beforeAll(async () => {
  installPackage(dir);
  const built = spawnSync(process.execPath, [join(example, 'build.mjs'), publicDir, '--add', ADDED], { encoding: 'utf8', timeout: 60_000 });
  if (built.status !== 0) throw new Error(`build.mjs failed: ${built.stderr}`);

  updates = createServer((req, res) => {
    const body = published.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200).end(body);
  });
  await new Promise<void>((done) => updates!.listen(0, '127.0.0.1', done));
  const updateUrl = `http://127.0.0.1:${(updates.address() as AddressInfo).port}/updates/manifest.json`;

  const nodePaths = [join(dir, 'node_modules')];
  const bundle = await bundleWorker(join(example, 'src/worker.ts'), join(dir, 'worker'), undefined, nodePaths);
  expect(bundle.inputs).toContain('build/runtimes/cloudflare-worker/node_modules/cuckoo-wasm/dist/workerd.mjs');
  const bench = await bundleWorker(join(__dirname, 'bench-worker.mjs'), join(dir, 'bench'), undefined, nodePaths);
  const workerd = spawnSync('bash', [join(root, 'scripts/runtime-versions.sh'), 'workerd'], { encoding: 'utf8', timeout: 300_000 });
  if (workerd.status !== 0) throw new Error(`cannot get workerd: ${workerd.stderr}`);
  server = await serveWorkers(workerd.stdout.trim(), dir, [
    { name: 'example', bundle, disks: { ASSETS: publicDir }, vars: { FILTER_VERSION: '1', UPDATE_URL: updateUrl, UPDATE_SECONDS: '0' } },
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

test('the Worker follows the list by a patch, and loads the full filter when a patch is refused', async () => {
  // Version 2: the added entry removed and a new one listed, made from the asset's bytes (as a publisher keeps
  // the filter it shipped) and served as a patch from version 1.
  const v1Bytes = new Uint8Array(readFileSync(join(publicDir, 'blocklist.cuckoo')));
  const v1 = await CuckooFilter.fromBytes(v1Bytes);
  const v2 = await CuckooFilter.fromBytes(v1Bytes);
  expect(v2.delete(`${ADDED}/`)).toBe(true);
  v2.addUrl('newly-listed.test');
  const patch12 = v2.diff(v1);
  published.set('/updates/1-to-2.ckpt', patch12);
  published.set('/updates/full-2.cuckoo', v2.toBytes());
  published.set('/updates/manifest.json', JSON.stringify({ version: 2, full: 'full-2.cuckoo', patches: { '1': '1-to-2.ckpt' } }));
  expect(await checkUntil('http://newly-listed.test/a', (b) => b.version === 2)).toMatchObject({ match: 'newly-listed.test/', version: 2 });
  expect((await check(`https://${ADDED}/`)).body).toMatchObject({ match: null, version: 2 });
  const status = (await get('/status')).body;
  expect(status).toMatchObject({ version: 2, source: 'patch', items: v2.size });
  expect((status.updates as unknown[])[0]).toMatchObject({ from: 1, to: 2, via: 'patch', bytes: patch12.length, patchError: null, error: null });

  // Version 3: its patch from version 2 arrives damaged; the Worker loads the full filter instead.
  const v3 = await CuckooFilter.fromBytes(v2.toBytes());
  v3.addUrl('third.test/path/');
  const corrupt = v3.diff(v2);
  corrupt[corrupt.length >> 1] ^= 0xff;
  published.set('/updates/2-to-3.ckpt', corrupt);
  published.set('/updates/full-3.cuckoo', v3.toBytes());
  published.set('/updates/manifest.json', JSON.stringify({ version: 3, full: 'full-3.cuckoo', patches: { '2': '2-to-3.ckpt' } }));
  expect(await checkUntil('http://third.test/path/x.html', (b) => b.version === 3)).toMatchObject({ match: 'third.test/path/', version: 3 });
  const after = (await get('/status')).body;
  expect(after).toMatchObject({ version: 3, source: 'full' });
  expect((after.updates as unknown[])[1]).toMatchObject({ from: 2, to: 3, via: 'full', patchError: expect.stringMatching(/^FilterFormatError \(patch-/) });
  for (const f of [v1, v2, v3]) f.dispose();
  process.stdout.write(`cloudflare-worker: patch 1->2 ${patch12.length} bytes (full filter ${v1Bytes.length}); 2->3 damaged patch refused, full filter loaded\n`);
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
