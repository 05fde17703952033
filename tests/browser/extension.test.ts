// The Manifest V3 example extension (examples/extension/) in Chromium: built by its
// own build.mjs, on the package's read-only entry cuckoo-wasm/reader (dist/reader.mjs,
// checked by the module id it embeds), from its default URL lists (the domain sample
// and the phishing URL sample) plus entries for the test server (`--add blocked.test`, a bare host;
// `--add 127.0.0.1/phish/kit/`, a folder; `--add 127.0.0.1/account/verify.php`, a page;
// `--add gone.test`, which version 2 of the list removes), with an update URL on the
// test server, loaded unpacked into a fresh profile, and exercised as a user would, by
// opening URLs in a tab. Every URL goes to one local server on 127.0.0.1: the test's
// entries name it by its address, and the other hosts resolve to it
// (--host-resolver-rules), so nothing leaves the machine. The same server serves the
// update manifest, the patches and the full filters, made here with the package's own
// diff(). The service worker runs its own module under the manifest's CSP, checks for
// updates on its own alarm (every 1.5 s in this build), and publishes what it decided
// in self.__cuckooExtension; the test only reads that and chrome.storage (harness.ts
// says why), and stops the worker once through CDP, as Chromium stops an idle worker.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CuckooFilter, FilterFormatError } from 'cuckoo-wasm';
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
/** Listed from version 2 on, and from version 3 on. */
const ADDED_IN_V2 = 'fresh.test';
const ADDED_IN_V3 = 'third.test';
/** The worker's alarm period in this build: 1.5 s (Chromium allows 1 s for an unpacked extension). */
const UPDATE_MINUTES = 0.025;

interface ExtensionState {
  ready: boolean;
  items: number;
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
    error: string | null;
  }[];
}

const temps: string[] = [];
let extensionDir: string;
let server: Server;
let port: number;
/** Host and path of every request the site server answered (but those for updates). */
const requests: string[] = [];
/** What the server answers under /updates/: the update manifest, patches and full filters, by path. */
const updateFiles = new Map<string, Uint8Array | string>();
/** The path of every request under /updates/, in order. */
const updateRequests: string[] = [];
/** The bundled filter's bytes (version 1). */
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

/** The filter version and bytes (base64) the worker keeps in chrome.storage.local. */
function readStored(): Promise<{ version: unknown; bytes: unknown }> {
  type StorageArea = { get(keys: string[]): Promise<Record<string, unknown>> };
  return worker.evaluate(async () => {
    const { storage } = (globalThis as unknown as { chrome: { storage: { local: StorageArea } } }).chrome;
    const saved = await storage.local.get(['filterVersion', 'filterBytes']);
    return { version: saved.filterVersion, bytes: saved.filterBytes };
  });
}

/** Reads chrome.storage.local every 50 ms until it holds `version` (the worker stores after it switches filters). */
async function waitForStored(version: number): Promise<{ version: unknown; bytes: unknown }> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const stored = await readStored();
    if (stored.version === version || Date.now() > deadline) return stored;
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

/** Serves `manifest` as the update manifest, and `files` beside it. */
function publish(manifest: { version: number; full: string; patches?: Record<string, string> }, files: Record<string, Uint8Array>): void {
  for (const [name, bytes] of Object.entries(files)) updateFiles.set(`/updates/${name}`, bytes);
  updateFiles.set('/updates/manifest.json', JSON.stringify(manifest));
}

beforeAll(async () => {
  // Every host and path gets the same small page with status 200: it stands for every site,
  // listed or not. (A listed site does see the request: the extension redirects the tab
  // while it is under way, see its README, so an error status here could reach the console.)
  // Paths under /updates/ are the update server's files, or 404.
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path.startsWith('/updates/')) {
      updateRequests.push(path);
      const body = updateFiles.get(path);
      if (body === undefined) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      else res.writeHead(200, { 'content-type': typeof body === 'string' ? 'application/json' : 'application/octet-stream', 'cache-control': 'no-store' }).end(body);
      return;
    }
    requests.push(`${req.headers.host}${path}`);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end('<!doctype html><title>clean page</title><p>a page that is not listed</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;

  extensionDir = tempDir('build');
  const updateArgs = ['--update-url', `http://127.0.0.1:${port}/updates/manifest.json`, '--filter-version', '1', '--update-minutes', String(UPDATE_MINUTES)];
  const adds = [...ADDED, REMOVED_IN_V2].flatMap((e) => ['--add', e]);
  runNodeScript('examples/extension/build.mjs', [extensionDir, ...adds, ...updateArgs], 30000);
  bundled = new Uint8Array(readFileSync(join(extensionDir, 'blocklist.cuckoo')));
  // The update server's first state: version 1 is the newest.
  publish({ version: 1, full: 'full-1.cuckoo' }, { 'full-1.cuckoo': bundled });

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
        ['www.blocked.test', 'clean.test', REAL_LISTED, REAL_PHISH_HOST, REMOVED_IN_V2, ADDED_IN_V2, ADDED_IN_V3]
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
  expect({ ready: state.ready, items: state.items, error: state.error, version: state.version, source: state.source }).toEqual({
    ready: true,
    items: 50114 + 4926 + ADDED.length + 1, // + REMOVED_IN_V2
    error: null,
    version: 1,
    source: 'bundled',
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

test('the extension follows the list by patches: a newly listed URL is warned about, a removed one loads; a bad or missing patch falls back to the full filter', async () => {
  const page = await context.newPage();
  const problems = watch(page);

  // Version 1, the bundled filter; the check at start found nothing newer.
  let state = await waitForState((s) => s.lastCheck?.version === 1, 'the update check at start');
  expect([state.version, state.source, state.updates, state.lastCheck?.error]).toEqual([1, 'bundled', [], null]);
  await openListed(page, pageOn(REMOVED_IN_V2), `${REMOVED_IN_V2}/`);
  await openClean(page, pageOn(ADDED_IN_V2));

  // Version 2: version 1 less one entry (an entry is stored as its expression, `host/` for a
  // bare host) plus one, served as a patch from version 1 and as a full filter.
  const v1 = await CuckooFilter.fromBytes(bundled);
  const v2 = await CuckooFilter.fromBytes(bundled);
  expect(v2.delete(`${REMOVED_IN_V2}/`)).toBe(true);
  v2.addUrl(ADDED_IN_V2);
  expect([v2.matchUrl(pageOn(REMOVED_IN_V2)), v2.matchUrl(pageOn(ADDED_IN_V2))]).toEqual([null, `${ADDED_IN_V2}/`]);
  const patch12 = v2.diff(v1);
  expect(patch12.length).toBeLessThan(bundled.length / 100);
  publish({ version: 2, full: 'full-2.cuckoo', patches: { '1': '1-to-2.ckpt' } }, { '1-to-2.ckpt': patch12, 'full-2.cuckoo': v2.toBytes() });

  state = await waitForState((s) => s.version === 2, 'version 2');
  expect([state.source, state.items]).toEqual(['patch', v2.size]);
  expect(state.updates).toEqual([{ time: expect.any(Number), from: 1, to: 2, via: 'patch', bytes: patch12.length, patchError: null, error: null }]);
  expect(updateRequests).toContain('/updates/1-to-2.ckpt');
  expect(updateRequests).not.toContain('/updates/full-2.cuckoo');
  expect(await waitForStored(2)).toEqual({ version: 2, bytes: Buffer.from(v2.toBytes()).toString('base64') });
  await openListed(page, pageOn(ADDED_IN_V2), `${ADDED_IN_V2}/`);
  await openClean(page, pageOn(REMOVED_IN_V2));

  // Version 3 adds one more entry; its patch from version 2 is served corrupted (one byte
  // changed), which applyPatch refuses with FilterFormatError and no change (checked here first).
  const v3 = await CuckooFilter.fromBytes(v2.toBytes());
  v3.addUrl(ADDED_IN_V3);
  const corrupt = v3.diff(v2);
  corrupt[corrupt.length >> 1] ^= 0x5a;
  const probe = await CuckooFilter.fromBytes(v2.toBytes());
  expect(() => probe.applyPatch(corrupt)).toThrow(FilterFormatError);
  expect(probe.toBytes()).toEqual(v2.toBytes());
  publish({ version: 3, full: 'full-3.cuckoo', patches: { '2': '2-to-3.ckpt' } }, { '2-to-3.ckpt': corrupt, 'full-3.cuckoo': v3.toBytes() });

  state = await waitForState((s) => s.version === 3, 'version 3');
  expect([state.source, state.items]).toEqual(['full', v3.size]);
  expect(state.updates[1]).toEqual({
    time: expect.any(Number),
    from: 2,
    to: 3,
    via: 'full',
    bytes: v3.byteLength,
    patchError: expect.stringMatching(/^FilterFormatError \(patch-[a-z-]+\): /),
    error: null,
  });
  expect(updateRequests.filter((p) => p === '/updates/2-to-3.ckpt' || p === '/updates/full-3.cuckoo').sort()).toEqual([
    '/updates/2-to-3.ckpt',
    '/updates/full-3.cuckoo',
  ]);
  expect(await waitForStored(3)).toEqual({ version: 3, bytes: Buffer.from(v3.toBytes()).toString('base64') });

  // Version 4 (the same entries) names a patch from version 3 that the server does not have (404).
  publish({ version: 4, full: 'full-3.cuckoo', patches: { '3': '3-to-4.ckpt' } }, {});
  state = await waitForState((s) => s.version === 4, 'version 4');
  expect(state.updates[2]).toMatchObject({ from: 3, to: 4, via: 'full', bytes: v3.byteLength, error: null });
  expect(state.updates[2].patchError).toMatch(/3-to-4\.ckpt: HTTP 404/);

  await openListed(page, pageOn(ADDED_IN_V3), `${ADDED_IN_V3}/`);
  await openListed(page, pageOn(ADDED_IN_V2), `${ADDED_IN_V2}/`);
  await openClean(page, pageOn(REMOVED_IN_V2));
  const final = await waitForState((s) => s.decisions.at(-1)?.url === pageOn(REMOVED_IN_V2), 'the last decision', 5000);
  expect(final.decisions.slice(-3).map((d) => [d.url, d.match, d.version])).toEqual([
    [pageOn(ADDED_IN_V3), `${ADDED_IN_V3}/`, 4],
    [pageOn(ADDED_IN_V2), `${ADDED_IN_V2}/`, 4],
    [pageOn(REMOVED_IN_V2), null, 4],
  ]);
  expect(final.errors).toEqual([]);
  expect(problems).toEqual({ consoleErrors: [], pageErrors: [] });
  for (const f of [v1, v2, v3, probe]) f.dispose();
  await page.close();
  console.log(
    `extension updates: patch 1→2 ${patch12.length} bytes (full filter ${bundled.length}); ` +
      `2→3 corrupt patch refused: ${final.updates[1].patchError}; 3→4: ${final.updates[2].patchError}\n` +
      `update server saw: ${updateRequests.filter((p) => !p.endsWith('manifest.json')).join(', ')} and ${updateRequests.filter((p) => p.endsWith('manifest.json')).length} manifest requests`,
  );
}, 60000);

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
  await openListed(page, pageOn(ADDED_IN_V3), `${ADDED_IN_V3}/`);
  worker = context.serviceWorkers().find((w) => w.url().startsWith(`chrome-extension://${extensionId}/`))!;
  const state = await waitForState((s) => s.ready && s.decisions.length > 0, 'the restarted worker');
  expect(state.decisions.map((d) => [d.url, d.match, d.version])).toEqual([[pageOn(ADDED_IN_V3), `${ADDED_IN_V3}/`, 4]]);
  expect([state.version, state.source, state.updates, state.errors]).toEqual([4, 'stored', [], []]);
  await openClean(page, pageOn(REMOVED_IN_V2));
  await page.close();
}, 30000);
