// Following a feed in Chromium: a page under the strict CSP (dist/index.mjs) and an MV3 extension's service worker
// (dist/reader.mjs, loaded unpacked), each running tests/feed/follow-scenario.mjs unchanged against a feed server on
// 127.0.0.1 (tests/feed/feed-server.ts) that serves 30 versions of a real list published by publish(): every
// version by patch, faults (a download cut short, a flipped byte in a patch, an unsigned manifest and one signed by
// another key, a replay, patches gone), skipped versions, every version by the full file, and a feed opened again on
// its IndexedDbFeedStore that resumes at its stored version and refuses a replay; the page is also reloaded, and the
// worker stopped and started again, and each resumes from IndexedDB. The page and the worker run their own scripts; the test reads only their published result
// (harness.ts says why) and the reports the server received.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Worker } from 'playwright-core';
import { FeedTestServer, publishVersions, scenarioFile, standardPlan, type Published } from '../feed/feed-server';
import { Browser, BrowserContext, CHROMIUM, CHROMIUM_ARGS, launchChromium, root, watch } from './harness';
import { PAGE_FILES, expectFollowed, followInPage, type PageResult } from './feed-pages';

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

test("an MV3 extension's service worker (cuckoo-wasm/reader) follows the same plan; stopped and started again, it resumes from IndexedDB", async () => {
  const server = await feedServer();
  server.add(standardPlan({ tag: 'extension', reload: true }));
  const dir = join(tmp, 'extension');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      manifest_version: 3,
      name: 'cuckoo-wasm feed test',
      version: '1.0.0',
      background: { service_worker: 'sw.js', type: 'module' },
      permissions: ['webNavigation'],
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
      '// An event to be started for again once stopped: any navigation.',
      'chrome.webNavigation.onCommitted.addListener(() => undefined);',
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
  const isOurs = (w: Worker) => w.url().startsWith('chrome-extension://');
  const worker = context.serviceWorkers().find(isOurs) ?? (await context.waitForEvent('serviceworker', { predicate: isOurs, timeout: 10000 }));
  const results: PageResult[] = [await workerResult(() => worker, 'reload')];
  expect(results[0]).toMatchObject({ ok: true, last: 'reload' });
  // Stops the worker as Chromium stops an idle one (its feeds and memory stores go with it) ...
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const { targetInfos } = await cdp.send('Target.getTargets');
  const target = targetInfos.find((t: { type: string; url: string }) => t.type === 'service_worker' && t.url === worker.url());
  expect(target).toBeDefined();
  await cdp.send('Target.closeTarget', { targetId: target!.targetId });
  await cdp.detach();
  // ... and a navigation (its webNavigation listener) starts it again: its module runs anew and goes on with the plan.
  await page.goto(`${server.origin}/entries/1.txt`);
  results.push(await workerResult(() => context!.serviceWorkers().find(isOurs), 'end'));
  await page.close();
  expectFollowed('chromium extension service worker', server, results, { loads: 2, ms: Date.now() - started });
});

/** What the worker's module published on self.__feedResult once its run stopped at `last` (the worker as `find` gives it now). */
async function workerResult(find: () => Worker | undefined, last: PageResult['last']): Promise<PageResult> {
  let result: PageResult | undefined;
  for (const deadline = Date.now() + 60000; ; ) {
    // A worker stopped meanwhile rejects: read again.
    result = (await find()?.evaluate(() => (self as unknown as { __feedResult: unknown }).__feedResult).catch(() => undefined)) as PageResult | undefined;
    if (result != null && (!result.ok || result.last === last)) return result;
    if (Date.now() > deadline) throw new Error(`the service worker published no __feedResult ending in '${last}' within 60 s: ${JSON.stringify(result)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
