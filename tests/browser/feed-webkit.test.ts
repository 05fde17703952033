// Following a feed in WebKit (Debian's WebKitGTK MiniBrowser under Xvfb, harness.ts launchWebKit): a page under the
// strict CSP runs tests/feed/follow-scenario.mjs unchanged against a feed server on 127.0.0.1
// (tests/feed/feed-server.ts), the plan of feed.test.ts: every version of 30 by patch and by full, faults, skips,
// feeds in IndexedDB, the page reloaded mid-plan resuming from IndexedDB and refusing a replay. WebDriver reports no
// console: the page's result (its errors, its CSP violations) and the server's reports are what the test reads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeedTestServer, publishVersions, standardPlan, type Published } from '../feed/feed-server';
import { WebKitBrowser, launchWebKit } from './harness';
import { PAGE_FILES, expectFollowed, followInPage } from './feed-pages';

let tmp: string;
let published: Published;
let browser: WebKitBrowser | undefined;
let server: FeedTestServer | undefined;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cuckoo-feed-webkit-'));
  published = await publishVersions(tmp);
  server = await FeedTestServer.start(published, PAGE_FILES);
  browser = await launchWebKit();
}, 60000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

test('a page follows every version by patch and by full, faults, skips; reloaded, it resumes from IndexedDB and refuses a replay', async () => {
  server!.add(standardPlan({ tag: 'webkit', reload: true }));
  const page = await browser!.newPage();
  const started = Date.now();
  const results = await followInPage(page, server!.origin, 'realm=webkit');
  await page.close();
  expectFollowed(`${await browser!.version()} page`, server!, results, { loads: 2, ms: Date.now() - started });
});
