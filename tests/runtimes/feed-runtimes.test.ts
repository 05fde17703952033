// Following a feed in the runtimes besides the browsers: Node.js (the reference), Deno, Bun and workerd, each
// running tests/feed/follow-scenario.mjs unchanged against a feed server on 127.0.0.1 (tests/feed/feed-server.ts)
// that serves 30 versions of a real list published by publish(), and the plan every realm follows
// (standardPlan: every version by patch, faults, skipped versions, every version by the full file, a feed opened
// again on its store). After each step the runtime checks that every entry of the version it holds is found (has
// and hasUrl) and that toBytes()'s SHA-256 is the manifest's full.sha256; the server checks what was downloaded.
// The package is installed as npm installs it (build/runtimes/feed-app/node_modules/cuckoo-wasm), resolved by
// each runtime's own conditions; binaries from scripts/runtime-versions.sh.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeedTestServer, failuresOf, publishVersions, scenarioFile, standardPlan, summaryOf, type Published } from '../feed/feed-server';
import { installPackage, root, workDir } from './input';
import { bundleWorker, serveWorkers, type WorkerdServer } from './workerd';

const app = join(workDir, 'feed-app');
let tmp: string;
let published: Published;
const servers: FeedTestServer[] = [];
let workerd: WorkerdServer | undefined;

function runtimeBinary(name: string): string {
  const r = spawnSync('bash', [join(root, 'scripts/runtime-versions.sh'), name], { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`cannot get ${name}: ${r.stderr || r.error}`);
  return r.stdout.trim();
}

/** Runs `command` in the app folder without blocking this process (the feed server runs in it); its last stdout line as JSON. */
function run(command: string[], env: Record<string, string> = {}): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), { cwd: app, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !last.startsWith('{')) reject(new Error(`${command.join(' ')} exited ${code ?? signal}:\n${out}\n${err}`));
      else resolve(JSON.parse(last));
    });
  });
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cuckoo-feed-runtimes-'));
  published = await publishVersions(tmp);
  console.log(`published 30 versions in ${published.ms} ms`);
  installPackage(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'feed-scenario', private: true, type: 'module' }) + '\n');
  cpSync(scenarioFile, join(app, 'follow-scenario.mjs'));
  for (const f of ['feed-host.mjs', 'feed-worker.mjs']) cpSync(join(__dirname, f), join(app, f));
}, 120_000);

afterAll(async () => {
  await workerd?.close();
  for (const s of servers) await s.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** A feed server with the standard plan, and a client started by `start(control)`; checks the reports. */
async function follow(name: string, start: (control: string) => Promise<Record<string, any>>): Promise<Record<string, any>> {
  const server = await FeedTestServer.start(published);
  servers.push(server);
  server.add(standardPlan({ tag: name }));
  const started = Date.now();
  const summary = await start(server.control);
  const s = summaryOf(server.reports);
  console.log(`${name}: ${JSON.stringify(s)}, ${Date.now() - started} ms in all; ${summary.runtime ?? ''}`);
  expect(failuresOf(server.reports)).toEqual([]);
  expect(summary).toMatchObject({ last: 'end', failed: 0, ed25519: true });
  expect(summary.passed).toBe(server.reports.length);
  // Every step of the plan was run: 20 + 6 faults + 3 skips by feed A, 30 by feed B, A opened again.
  expect(s).toMatchObject({ steps: 60, patch: 20, full: 34, stored: 1, refused: 5, falseNegatives: 0 });
  return summary;
}

test('Node.js follows the feed: every version by patch and by full, faults, skips, reopened from its store', async () => {
  await follow('node', (control) => run([process.execPath, 'feed-host.mjs', control]));
});

test('Node.js, the reader entry (cuckoo-wasm/reader)', async () => {
  await follow('node-reader', (control) => run([process.execPath, 'feed-host.mjs', control, 'cuckoo-wasm/reader']));
});

test('Deno follows the feed (network access to 127.0.0.1 only)', async () => {
  const deno = runtimeBinary('deno');
  const summary = await follow('deno', (control) =>
    run([deno, 'run', '--no-prompt', '--allow-net=127.0.0.1', 'feed-host.mjs', control], { DENO_DIR: join(workDir, 'deno-dir'), DENO_NO_UPDATE_CHECK: '1' }),
  );
  expect(summary.runtime).toMatch(/^deno /);
});

test('Bun follows the feed', async () => {
  const bun = runtimeBinary('bun');
  const summary = await follow('bun', (control) => run([bun, '--no-install', 'feed-host.mjs', control], { BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0' }));
  expect(summary.runtime).toMatch(/^bun /);
});

test('workerd follows the feed: a Worker bundled as wrangler does, fetching from the server on 127.0.0.1', async () => {
  const bin = runtimeBinary('workerd');
  const bundle = await bundleWorker(join(app, 'feed-worker.mjs'), join(workDir, 'feed-workerd', 'follow'));
  expect(bundle.inputs).toContain('build/runtimes/feed-app/node_modules/cuckoo-wasm/dist/workerd.mjs');
  workerd = await serveWorkers(bin, join(workDir, 'feed-workerd'), [{ name: 'follow', bundle }]);
  await follow('workerd', async (control) => {
    const response = await fetch(`${workerd!.origins.follow}/follow`, { method: 'POST', body: control, signal: AbortSignal.timeout(90_000) });
    const text = await response.text();
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${text}\n${workerd!.log()}`);
    return JSON.parse(text);
  });
});
