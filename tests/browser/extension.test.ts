// The Manifest V3 example extension (examples/extension/) in Chromium, following a feed (docs/FEED.md) published
// here with the package's CLI (`cuckoo-wasm publish --urls --sign KEY`) from the default URL lists (the domain sample
// and the phishing URL sample) plus entries for the test server (blocked.test, a bare host; 127.0.0.1/phish/kit/, a
// folder; 127.0.0.1/account/verify.php, a page; gone.test, which version 2 removes). The extension is built by its
// own build.mjs against that feed, with the publisher's public key (so the bundled filter is the feed's version 1,
// downloaded and checked by build.mjs), on the package's read-only entry cuckoo-wasm/reader (dist/reader.mjs,
// checked by the module id it embeds), loaded unpacked into a fresh profile, and exercised as a user would, by
// opening URLs in a tab. Every URL goes to one local server on 127.0.0.1: the test's entries name it by its address,
// and the other hosts resolve to it (--host-resolver-rules), so nothing leaves the machine. The same server serves
// the feed's folder under /feed/. The service worker runs its own module under the manifest's CSP, follows the feed
// with FilterFeed and its own alarm (every 1.5 s in this build), and publishes what it decided in
// self.__cuckooExtension; the test only reads that and chrome.storage (harness.ts says why), and stops the worker
// once through CDP, as Chromium stops an idle worker.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, Worker } from 'playwright-core';
import {
  BrowserContext,
  CHROMIUM,
  CHROMIUM_ARGS,
  Page,
  embeddedModule,
  outputDir,
  root,
  runNodeScript,
  watch,
} from './harness';

/** A hostname of examples/data/blocklist-sample.txt, so the sample lists themselves are tested, not only --add. */
const REAL_LISTED = '000webhostersarec.000webhostapp.com';
/** A whole URL of examples/data/phishing-urls-sample.txt (`http://aasp-apple-portal-online.com/loading.html`): its host and path. */
const REAL_PHISH_HOST = 'aasp-apple-portal-online.com';
const REAL_PHISH_PATH = '/loading.html';
/** The entries added for the test server, each a different form: a bare host, a folder, a page. */
const ADDED = ['blocked.test', '127.0.0.1/phish/kit/', '127.0.0.1/account/verify.php'];
/** Listed in version 1 (the bundled filter), removed in version 2. */
const REMOVED_IN_V2 = 'gone.test';
/** Listed from version 2 on, from version 3 on, in version 4 (signed with another key, refused) and in version 5. */
const ADDED_IN_V2 = 'fresh.test';
const ADDED_IN_V3 = 'third.test';
const ADDED_IN_V4 = 'fourth.test';
const ADDED_IN_V5 = 'fifth.test';
/** Entries of the sample lists: 50,114 hosts and 4,926 URLs. */
const SAMPLES = 50114 + 4926;
/** The worker's alarm period in this build: 1.5 s (Chromium allows 1 s for an unpacked extension). */
const UPDATE_MINUTES = 0.025;

interface ExtensionState {
  ready: boolean;
  items: number;
  name: string | null;
  version: number | null;
  source: 'bundled' | 'stored' | 'patch' | 'full' | null;
  error: string | null;
  errors: string[];
  decisions: { url: string; match: string | null; listed: boolean; time: number; version: number }[];
  checks: number;
  lastCheck: { time: number; version: number | null; error: string | null } | null;
  updates: {
    time: number;
    from: number;
    to: number;
    via: 'patch' | 'full' | null;
    bytes: number;
    patchError: string | null;
  }[];
}

const temps: string[] = [];
let extensionDir: string;
let server: Server;
let port: number;
/** Host and path of every request the site server answered (but those for the feed). */
const requests: string[] = [];
/** The feed's folder (served under /feed/), the publisher's state, its list and its keys. */
let feedDir: string;
let stateDir: string;
let listFile: string;
let keyFile: string;
let otherKeyFile: string;
let publicKey: string;
/** Bytes the server answers in place of a feed file's, by file name. */
const damaged = new Map<string, Uint8Array>();
/** The path of every request under /feed/, in order. */
const feedRequests: string[] = [];
/** blocklist.cuckoo as build.mjs wrote it: the feed's version 1. */
let bundled: Uint8Array;
let context: BrowserContext;
let worker: Worker;
let extensionId: string;
let msToReady: number;

function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `cuckoo-extension-${name}-`));
  temps.push(dir);
  return dir;
}

/** The service worker's published state, copied out as plain data (null before its module has run). */
function readState(): Promise<ExtensionState | null> {
  return worker.evaluate(() =>
    JSON.parse(JSON.stringify((self as unknown as { __cuckooExtension?: unknown }).__cuckooExtension ?? null)),
  );
}

/** What the worker's store keeps in chrome.storage.local under 'feed': { name, version, family, sha256, bytes (base64) }. */
function readStored(): Promise<Record<string, unknown> | undefined> {
  type StorageArea = { get(key: string): Promise<Record<string, unknown>> };
  return worker.evaluate(async () => {
    const { storage } = (globalThis as unknown as { chrome: { storage: { local: StorageArea } } }).chrome;
    return (await storage.local.get('feed')).feed as Record<string, unknown> | undefined;
  });
}

/** Reads chrome.storage.local every 50 ms until it holds `version` (the feed stores before it switches filters). */
async function waitForStored(version: number): Promise<Record<string, unknown> | undefined> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const stored = await readStored();
    if (stored?.version === version || Date.now() > deadline) return stored;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Reads the state every 50 ms until `done(state)` holds; throws with the last state after `timeoutMs`. */
async function waitForState(
  done: (s: ExtensionState) => boolean,
  what: string,
  timeoutMs = 10000,
): Promise<ExtensionState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await readState();
    if (state === null) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: the worker published no state`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    if (state.error) throw new Error(`the extension failed while waiting for ${what}: ${state.error}`);
    if (done(state)) return state;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; state: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The feed's manifest as published now (the envelope's payload). */
interface Manifest {
  version: number;
  full: { path: string; size: number; sha256: string };
  patches: { from: number; path: string; size: number; sha256: string }[];
}
function feedManifest(): Manifest {
  const envelope = JSON.parse(readFileSync(join(feedDir, 'manifest.json'), 'utf8'));
  return JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8'));
}

/** Publishes the sample lists plus `entries` as the feed's next version, with the CLI, signed with `key`. */
function publish(entries: string[], key = keyFile): Manifest {
  const samples = ['blocklist-sample.txt', 'phishing-urls-sample.txt'].map((f) => readFileSync(join(root, 'examples/data', f), 'utf8').replace(/\n?$/, ''));
  writeFileSync(listFile, [...samples, ...entries].join('\n') + '\n');
  const args = ['--out', feedDir, '--state', stateDir, '--name', 'blocklist', '--urls', '--url-fpr', '0.001', '--poll-seconds', '1', '--sign', key];
  runNodeScript('dist/cli.cjs', ['publish', listFile, ...args], 30000);
  return feedManifest();
}

/** runNodeScript without blocking this process: node `script` (from the repository's root) with `args`; its output. */
function runNodeScriptAsync(script: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(root, script), ...args], { cwd: root, encoding: 'utf8', timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`node ${script} ${args.join(' ')} failed (${error.message}):\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** A new Ed25519 key from `cuckoo-wasm keygen`: its file, and its public key as clients take it. */
function keygen(name: string): { file: string; publicKey: string } {
  const file = join(tempDir('key'), name);
  const out = runNodeScript('dist/cli.cjs', ['keygen', '--out', file]);
  return { file, publicKey: /^public key: (\S+)$/m.exec(out)![1] };
}

beforeAll(async () => {
  // Every host and path gets the same small page with status 200: it stands for every site,
  // listed or not. (A listed site does see the request: the extension redirects the tab
  // while it is under way, see its README, so an error status here could reach the console.)
  // Paths under /feed/ are the feed folder's files (or `damaged`'s bytes for them), or 404.
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path.startsWith('/feed/')) {
      feedRequests.push(path);
      const name = path.slice('/feed/'.length);
      let body: Uint8Array | undefined = damaged.get(name);
      try {
        body ??= /^[\w.-]+$/.test(name) ? readFileSync(join(feedDir, name)) : undefined;
      } catch {
        body = undefined;
      }
      if (body === undefined) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      else res.writeHead(200, { 'content-type': name === 'manifest.json' ? 'application/json' : 'application/octet-stream', 'cache-control': name === 'manifest.json' ? 'no-cache' : 'public, max-age=31536000, immutable' }).end(body);
      return;
    }
    requests.push(`${req.headers.host}${path}`);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end('<!doctype html><title>clean page</title><p>a page that is not listed</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;

  feedDir = tempDir('feed');
  stateDir = tempDir('state');
  listFile = join(tempDir('list'), 'blocklist.txt');
  const key = keygen('feed.key');
  keyFile = key.file;
  publicKey = key.publicKey;
  otherKeyFile = keygen('other.key').file;
  expect(publish([...ADDED, REMOVED_IN_V2])).toMatchObject({ version: 1 });

  extensionDir = tempDir('build');
  const feedArgs = ['--update-url', `http://127.0.0.1:${port}/feed/manifest.json`, '--public-key', publicKey, '--update-minutes', String(UPDATE_MINUTES)];
  // Not runNodeScript: build.mjs reads the feed from this process's server, which must go on answering meanwhile.
  await runNodeScriptAsync('examples/extension/build.mjs', [extensionDir, ...feedArgs], 30000);
  bundled = new Uint8Array(readFileSync(join(extensionDir, 'blocklist.cuckoo')));

  const started = performance.now();
  context = await chromium.launchPersistentContext(tempDir('profile'), {
    executablePath: CHROMIUM,
    headless: false, // --headless=new in CHROMIUM_ARGS: the headless mode that runs extensions
    ignoreDefaultArgs: ['--disable-extensions'],
    args: [
      ...CHROMIUM_ARGS,
      `--disable-extensions-except=${extensionDir}`,
      `--load-extension=${extensionDir}`,
      '--host-resolver-rules=' +
        ['www.blocked.test', 'clean.test', REAL_LISTED, REAL_PHISH_HOST, REMOVED_IN_V2, ADDED_IN_V2, ADDED_IN_V3, ADDED_IN_V4, ADDED_IN_V5]
          .map((h) => `MAP ${h} 127.0.0.1`)
          .join(', '),
    ],
    timeout: 20000,
  });
  worker =
    context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://')) ??
    (await context.waitForEvent('serviceworker', {
      predicate: (w) => w.url().startsWith('chrome-extension://'),
      timeout: 10000,
    }));
  extensionId = new URL(worker.url()).host;
  await waitForState((s) => s.ready, 'the filter to load');
  msToReady = performance.now() - started;
}, 50000);

afterAll(async () => {
  await context?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/**
 * Opens a listed URL in `page` and waits until the tab shows the extension's warning page for it,
 * naming `match`, the list entry the service worker matched.
 */
async function openListed(page: Page, url: string, match: string): Promise<void> {
  const query = new URLSearchParams({ url, match }).toString();
  const warning = new RegExp(`^chrome-extension://${extensionId}/warning\\.html\\?${escapeRegExp(query)}$`);
  // Waiting starts before the navigation: the warning can replace the page before goto settles.
  const warned = page.waitForEvent('framenavigated', {
    predicate: (f) => f === page.mainFrame() && warning.test(f.url()),
    timeout: 10000,
  });
  // The extension cancels this navigation by sending the tab elsewhere, so goto usually rejects (net::ERR_ABORTED).
  await page.goto(url, { timeout: 10000 }).catch(() => {});
  await warned.catch((e: Error) => {
    throw new Error(`no warning page for ${url} (${match}); the tab shows ${page.url()} (${e.message.split('\n')[0]})`);
  });
  await page.waitForLoadState('load', { timeout: 10000 });
}

/** Opens an unlisted URL in `page` and checks that the server's page, not the warning, is what the tab shows. */
async function openClean(page: Page, url: string): Promise<void> {
  const response = await page.goto(url, { timeout: 10000 });
  expect(response?.status()).toBe(200);
  expect(page.url()).toBe(url);
  expect(await page.title()).toBe('clean page');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test('the extension checks whole URLs: warns before listed sites, folders and pages, lets their neighbours load', async () => {
  const manifest = JSON.parse(readFileSync(join(extensionDir, 'manifest.json'), 'utf8'));
  expect(manifest.content_security_policy).toEqual({
    extension_pages: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'",
  });
  expect([manifest.permissions, manifest.host_permissions]).toEqual([['webNavigation', 'storage', 'alarms'], ['http://127.0.0.1/*']]);

  // The worker only loads, checks and patches, so it ships the read-only entry, cuckoo-wasm/reader, as built,
  // with the reader's module and nothing of the full entry; the worker imports it.
  const lib = join(extensionDir, 'lib');
  expect(readdirSync(lib).sort()).toEqual(['LICENSE', 'cuckoo-reader.mjs']);
  const shipped = readFileSync(join(lib, 'cuckoo-reader.mjs'), 'utf8');
  expect(shipped === readFileSync(join(root, 'dist', 'reader.mjs'), 'utf8')).toBe(true);
  expect(embeddedModule(shipped)).toBe('reader');
  expect(readFileSync(join(extensionDir, 'service-worker.js'), 'utf8')).toMatch(/^import .* from '\.\/lib\/cuckoo-reader\.mjs';$/m);

  expect(extensionId).toMatch(/^[a-p]{32}$/); // an extension id: safe inside a RegExp
  const state = (await readState())!;
  expect({ ready: state.ready, items: state.items, error: state.error, name: state.name, version: state.version, source: state.source }).toEqual({
    ready: true,
    items: SAMPLES + ADDED.length + 1, // + REMOVED_IN_V2
    error: null,
    name: 'blocklist',
    version: 1,
    source: 'bundled',
  });
  // The bundled filter is the feed's version 1, as published.
  expect(Buffer.from(bundled).equals(readFileSync(join(feedDir, feedManifest().full.path)))).toBe(true);
  expect(JSON.parse(readFileSync(join(extensionDir, 'feed.json'), 'utf8'))).toEqual({
    manifestUrl: `http://127.0.0.1:${port}/feed/manifest.json`,
    publicKey,
    periodMinutes: UPDATE_MINUTES,
    bundled: { name: 'blocklist', version: 1, family: 'CuckooFilter', sha256: feedManifest().full.sha256 },
  });

  const site = `127.0.0.1:${port}`;
  // [URL, the entry it must match, or null for a URL that must load], in the order they are opened.
  const visits: [string, string | null][] = [
    // deeper under the listed folder 127.0.0.1/phish/kit/, and a sibling folder of it
    [`http://${site}/phish/kit/login.html?u=1#form`, '127.0.0.1/phish/kit/'],
    [`http://${site}/phish/docs/readme.html`, null],
    // the listed page 127.0.0.1/account/verify.php, and the folder it is in
    [`http://${site}/account/verify.php`, '127.0.0.1/account/verify.php'],
    [`http://${site}/account/`, null],
    // a subdomain of the listed bare host blocked.test, with a path and a query
    [`http://www.blocked.test:${port}/some/path?q=1`, 'blocked.test/'],
    // the samples: a whole URL with a path, and a bare host
    [`http://${REAL_PHISH_HOST}:${port}${REAL_PHISH_PATH}`, `${REAL_PHISH_HOST}${REAL_PHISH_PATH}`],
    [`http://${REAL_LISTED}:${port}/`, `${REAL_LISTED}/`],
    // the front page of the site whose one page is listed, and a site with nothing listed
    [`http://${REAL_PHISH_HOST}:${port}/`, null],
    [`http://clean.test:${port}/`, null],
  ];

  const page = context.pages()[0] ?? (await context.newPage());
  const problems = watch(page);
  const warnings: Record<string, { url: string | null; match: string | null; why: string | null }> = {};
  for (const [url, match] of visits) {
    if (match === null) {
      await openClean(page, url);
      continue;
    }
    await openListed(page, url, match);
    warnings[url] = {
      url: await page.textContent('#url', { timeout: 5000 }),
      match: await page.textContent('#match', { timeout: 5000 }),
      why: await page.textContent('#why', { timeout: 5000 }),
    };
    expect(await page.isVisible('#back')).toBe(true);
    if (url === visits[0][0]) {
      mkdirSync(outputDir, { recursive: true });
      await page.screenshot({ path: join(outputDir, 'example-extension-warning.png'), timeout: 10000 });
    }
  }

  // Each warning page shows the blocked URL and the entry that matched, and says what kind of entry it is.
  const listed = visits.filter(([, match]) => match !== null) as [string, string][];
  expect(Object.entries(warnings).map(([url, w]) => [url, w.url, w.match])).toEqual(
    listed.map(([url, match]) => [url, url, match]),
  );
  for (const [url, match] of listed) expect(warnings[url].why).toContain(`Blocked because of ${match}, an entry`);
  expect(warnings[visits[0][0]].why).toContain('It lists everything under the folder /phish/kit/ of 127.0.0.1.');
  expect(warnings[visits[2][0]].why).toContain('It lists this one page.');
  expect(warnings[visits[4][0]].why).toContain('It lists the whole site blocked.test and its subdomains.');

  // The decision for the last page is recorded when its navigation starts; wait for it rather than assume it.
  const final = await waitForState((s) => s.decisions.length >= visits.length, `${visits.length} decisions`, 5000);
  expect(final.decisions.map(({ url, match, listed }) => [url, match, listed])).toEqual(
    visits.map(([url, match]) => [url, match, match !== null]),
  );
  expect(final.errors).toEqual([]);
  expect(problems).toEqual({ consoleErrors: [], pageErrors: [] });
  // The clean page is still the one the tab shows: nothing sent it to the warning page late.
  expect(page.url()).toBe(visits[visits.length - 1][0]);
  for (const [url, match] of visits) {
    if (match === null) expect(requests).toContain(url.replace(/^http:\/\//, ''));
  }

  console.log(
    `extension ${extensionId}: filter of ${final.items} items ready ${msToReady.toFixed(0)} ms after launch\n` +
      final.decisions.map((d) => `decision: ${d.url} => ${d.match ?? 'not listed'}`).join('\n') +
      `\nsite server saw: ${requests.join(', ')}`,
  );
}, 60000);

/** A page of the test server on `host`, which the resolver rules send to 127.0.0.1. */
const pageOn = (host: string) => `http://${host}:${port}/index.html`;

/** The stored state that stands for `m`'s version: the full file's bytes, as the store keeps them. */
function storedFor(m: Manifest): Record<string, unknown> {
  const bytes = readFileSync(join(feedDir, m.full.path)).toString('base64');
  return { name: 'blocklist', version: m.version, family: 'CuckooFilter', sha256: m.full.sha256, bytes };
}

test('the extension follows the feed by patches; a damaged patch falls back to the full filter; a manifest signed with another key is refused', async () => {
  const page = await context.newPage();
  const problems = watch(page);

  // Version 1, the bundled filter; the check at start found nothing newer.
  let state = await waitForState((s) => s.lastCheck?.version === 1, 'the update check at start');
  expect([state.version, state.source, state.updates, state.lastCheck?.error]).toEqual([1, 'bundled', [], null]);
  await openListed(page, pageOn(REMOVED_IN_V2), `${REMOVED_IN_V2}/`);
  await openClean(page, pageOn(ADDED_IN_V2));

  // Version 2: one entry removed, one added; the publisher writes a patch from version 1.
  const m2 = publish([...ADDED, ADDED_IN_V2]);
  const patch12 = m2.patches.find((p) => p.from === 1)!;
  expect(patch12.size).toBeLessThan(m2.full.size / 100);
  state = await waitForState((s) => s.version === 2, 'version 2');
  expect([state.source, state.items]).toEqual(['patch', SAMPLES + ADDED.length + 1]);
  expect(state.updates).toEqual([{ time: expect.any(Number), from: 1, to: 2, via: 'patch', bytes: expect.any(Number), patchError: null }]);
  expect(state.updates[0].bytes).toBeLessThan(patch12.size + 2000); // the manifest and the patch
  expect(feedRequests).toContain(`/feed/${patch12.path}`);
  expect(feedRequests).not.toContain(`/feed/${m2.full.path}`);
  expect(await waitForStored(2)).toEqual(storedFor(m2));
  await openListed(page, pageOn(ADDED_IN_V2), `${ADDED_IN_V2}/`);
  await openClean(page, pageOn(REMOVED_IN_V2));

  // Version 3 adds one more entry; the server serves its patch from version 2 damaged (one byte changed), which the
  // feed refuses by its SHA-256, and it downloads the full filter instead.
  const m3 = publish([...ADDED, ADDED_IN_V2, ADDED_IN_V3]);
  const patch23 = m3.patches.find((p) => p.from === 2)!;
  const bad = new Uint8Array(readFileSync(join(feedDir, patch23.path)));
  bad[bad.length >> 1] ^= 0x5a;
  damaged.set(patch23.path, bad);
  state = await waitForState((s) => s.version === 3, 'version 3');
  expect([state.source, state.items]).toEqual(['full', SAMPLES + ADDED.length + 2]);
  expect(state.updates[1]).toEqual({
    time: expect.any(Number),
    from: 2,
    to: 3,
    via: 'full',
    bytes: expect.any(Number),
    patchError: expect.stringMatching(/^FeedError \(hash-mismatch\): /),
  });
  expect(state.updates[1].bytes).toBeGreaterThan(m3.full.size + patch23.size);
  expect(feedRequests.filter((p) => p === `/feed/${patch23.path}` || p === `/feed/${m3.full.path}`).sort()).toEqual(
    [`/feed/${patch23.path}`, `/feed/${m3.full.path}`].sort(),
  );
  expect(await waitForStored(3)).toEqual(storedFor(m3));

  // Version 4 is signed with another key: refused at each check, and the extension keeps version 3.
  publish([...ADDED, ADDED_IN_V2, ADDED_IN_V3, ADDED_IN_V4], otherKeyFile);
  const checks = state.checks;
  state = await waitForState((s) => s.checks >= checks + 2 && /bad-signature/.test(s.lastCheck?.error ?? ''), 'the refused manifest');
  expect([state.version, state.updates.length]).toEqual([3, 2]);
  expect(state.lastCheck?.error).toMatch(/^FeedError \(bad-signature\): /);
  await openClean(page, pageOn(ADDED_IN_V4));

  // Version 5, signed with the feed's key again: a patch from version 3.
  const m5 = publish([...ADDED, ADDED_IN_V2, ADDED_IN_V3, ADDED_IN_V4, ADDED_IN_V5]);
  state = await waitForState((s) => s.version === 5, 'version 5');
  expect(state.updates[2]).toMatchObject({ from: 3, to: 5, via: 'patch', patchError: null });
  expect(state.lastCheck?.error).toBeNull();
  expect(await waitForStored(5)).toEqual(storedFor(m5));

  await openListed(page, pageOn(ADDED_IN_V5), `${ADDED_IN_V5}/`);
  await openListed(page, pageOn(ADDED_IN_V3), `${ADDED_IN_V3}/`);
  await openClean(page, pageOn(REMOVED_IN_V2));
  const final = await waitForState((s) => s.decisions.at(-1)?.url === pageOn(REMOVED_IN_V2), 'the last decision', 5000);
  expect(final.decisions.slice(-3).map((d) => [d.url, d.match, d.version])).toEqual([
    [pageOn(ADDED_IN_V5), `${ADDED_IN_V5}/`, 5],
    [pageOn(ADDED_IN_V3), `${ADDED_IN_V3}/`, 5],
    [pageOn(REMOVED_IN_V2), null, 5],
  ]);
  expect(final.errors).toEqual([]);
  expect(problems).toEqual({ consoleErrors: [], pageErrors: [] });
  await page.close();
  console.log(
    `extension updates: patch 1→2 ${patch12.size} bytes (full filter ${m2.full.size}); ` +
      `2→3 damaged patch refused: ${final.updates[1].patchError}; 4 refused: ${state.lastCheck?.error ?? final.lastCheck?.error}\n` +
      `feed server saw: ${feedRequests.filter((p) => !p.endsWith('manifest.json')).join(', ')} and ${feedRequests.filter((p) => p.endsWith('manifest.json')).length} manifest requests`,
  );
}, 90000);

test('a restarted extension loads its stored filter, not the bundled one', async () => {
  // Stops the worker as Chromium does when it is idle (its state goes with it) ...
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const { targetInfos } = await cdp.send('Target.getTargets');
  const target = targetInfos.find((t: { type: string; url: string }) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${extensionId}/`));
  expect(target).toBeDefined();
  await cdp.send('Target.closeTarget', { targetId: target!.targetId });
  await cdp.detach();
  // ... and the next navigation starts it again.
  await openListed(page, pageOn(ADDED_IN_V5), `${ADDED_IN_V5}/`);
  worker = context.serviceWorkers().find((w) => w.url().startsWith(`chrome-extension://${extensionId}/`))!;
  const state = await waitForState((s) => s.ready && s.decisions.length > 0 && s.lastCheck?.version != null, 'the restarted worker');
  expect(state.decisions.map((d) => [d.url, d.match, d.version])).toEqual([[pageOn(ADDED_IN_V5), `${ADDED_IN_V5}/`, 5]]);
  expect([state.version, state.source, state.updates, state.errors]).toEqual([5, 'stored', [], []]);
  await openClean(page, pageOn(REMOVED_IN_V2));
  await page.close();
}, 30000);
