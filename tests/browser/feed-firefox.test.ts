// Following a feed in Firefox (Debian's firefox-esr, headless, harness.ts launchFirefox): a page under the strict
// CSP runs tests/feed/follow-scenario.mjs unchanged against a feed server on 127.0.0.1 (tests/feed/feed-server.ts),
// the plan of feed.test.ts: every version of 30 by patch and by full, faults, skips, feeds in IndexedDB, the page
// reloaded mid-plan resuming from IndexedDB and refusing a replay. The test reads only the page's published result
// and the server's reports.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeedTestServer, publishVersions, standardPlan, type Published } from '../feed/feed-server';
import { FirefoxBrowser, launchFirefox, watch } from './harness';
import { PAGE_FILES, expectFollowed, followInPage } from './feed-pages';

let tmp: string;
let published: Published;
let browser: FirefoxBrowser | undefined;
let server: FeedTestServer | undefined;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cuckoo-feed-firefox-'));
  published = await publishVersions(tmp);
  server = await FeedTestServer.start(published, PAGE_FILES);
  browser = await launchFirefox();
}, 60000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

test('a page follows every version by patch and by full, faults, skips; reloaded, it resumes from IndexedDB and refuses a replay', async () => {
  server!.add(standardPlan({ tag: 'firefox', reload: true }));
  const page = await browser!.newPage();
  const problems = watch(page);
  const started = Date.now();
  const results = await followInPage(page, server!.origin, 'realm=firefox');
  await page.close();
  expectFollowed(`firefox ${await browser!.version()} page`, server!, results, { loads: 2, ms: Date.now() - started });
  expect(problems.pageErrors).toEqual([]);
});
