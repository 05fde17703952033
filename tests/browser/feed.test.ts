// Following a feed in Chromium: a page under the strict CSP (dist/index.mjs) and an MV3 extension's service worker
// (dist/reader.mjs, loaded unpacked), each running tests/feed/follow-scenario.mjs unchanged against a feed server on
// 127.0.0.1 (tests/feed/feed-server.ts) that serves 30 versions of a real list published by publish(): every
// version by patch, faults (a download cut short, a flipped byte in a patch, an unsigned manifest and one signed by
// another key, a replay, patches gone), skipped versions, every version by the full file, and a feed opened again on
// its IndexedDbFeedStore that resumes at its stored version and refuses a replay; the page is also reloaded and
// resumes from IndexedDB. The page and the worker run their own scripts; the test reads only their published result
// (harness.ts says why) and the reports the server received.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { FeedTestServer, publishVersions, scenarioFile, standardPlan, type Published } from '../feed/feed-server';
import { Browser, BrowserContext, CHROMIUM, CHROMIUM_ARGS, launchChromium, root, watch } from './harness';
import { PAGE_FILES, expectFollowed, followInPage } from './feed-pages';

let tmp: string;
let published: Published;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
const servers: FeedTestServer[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cuckoo-feed-chromium-'));
  published = await publishVersions(tmp);
  console.log(`published 30 versions in ${published.ms} ms`);
}, 60000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  for (const s of servers) await s.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function feedServer(): Promise<FeedTestServer> {
  const server = await FeedTestServer.start(published, PAGE_FILES);
  servers.push(server);
  return server;
}

test('a page follows every version by patch and by full, faults, skips; reloaded, it resumes from IndexedDB and refuses a replay', async () => {
  const server = await feedServer();
  server.add(standardPlan({ tag: 'chromium', reload: true }));
  browser = await launchChromium();
  const page = await browser.newPage();
  const problems = watch(page);
  const started = Date.now();
  const results = await followInPage(page, server.origin, 'realm=chromium');
  await page.close();
  expectFollowed('chromium page', server, results, { loads: 2, ms: Date.now() - started });
  expect(problems.pageErrors).toEqual([]);
});

test("an MV3 extension's service worker (cuckoo-wasm/reader) follows the same plan, its feeds in IndexedDB", async () => {
  const server = await feedServer();
  server.add(standardPlan({ tag: 'extension' }));
  const dir = join(tmp, 'extension');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      manifest_version: 3,
      name: 'cuckoo-wasm feed test',
      version: '1.0.0',
      background: { service_worker: 'sw.js', type: 'module' },
      host_permissions: ['http://127.0.0.1/*'],
      content_security_policy: { extension_pages: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'" },
    }),
  );
  cpSync(join(root, 'dist', 'reader.mjs'), join(dir, 'cuckoo-reader.mjs'));
  cpSync(scenarioFile, join(dir, 'follow-scenario.mjs'));
  writeFileSync(join(dir, 'config.js'), `export const control = ${JSON.stringify(server.control)};\n`);
  writeFileSync(
    join(dir, 'sw.js'),
    [
      "import * as lib from './cuckoo-reader.mjs';",
      "import { followFeed } from './follow-scenario.mjs';",
      "import { control } from './config.js';",
      'self.__feedResult = null;',
      "followFeed(lib, { control, makeStore: (name) => new lib.IndexedDbFeedStore(name), realm: 'extension' }).then(",
      '  (summary) => (self.__feedResult = { ok: true, ...summary, violations: [] }),',
      '  (e) => (self.__feedResult = { ok: false, message: String(e?.stack ?? e), violations: [] }),',
      ');',
      '',
    ].join('\n'),
  );
  const started = Date.now();
  context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath: CHROMIUM,
    headless: false, // --headless=new in CHROMIUM_ARGS: the headless mode that runs extensions
    ignoreDefaultArgs: ['--disable-extensions'],
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${dir}`, `--load-extension=${dir}`],
    timeout: 20000,
  });
  const worker =
    context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://')) ??
    (await context.waitForEvent('serviceworker', { predicate: (w) => w.url().startsWith('chrome-extension://'), timeout: 10000 }));
  await server.finished(60000);
  let result: any = null;
  for (const deadline = Date.now() + 10000; result === null && Date.now() < deadline; ) {
    result = await worker.evaluate(() => (self as unknown as { __feedResult: unknown }).__feedResult);
    if (result === null) await new Promise((r) => setTimeout(r, 100));
  }
  expectFollowed('chromium extension service worker', server, [result], { loads: 1, ms: Date.now() - started });
});
