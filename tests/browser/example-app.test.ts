// The Vite browser example (examples/browser/) in Chromium, as a user meets it:
// built by its own build.mjs into a fresh folder, on the package's read-only entry
// cuckoo-wasm/reader as dist/ has it (checked by the module id it embeds), served
// from 127.0.0.1 with
// `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'` on
// every response, and used by opening it with ?url=, typing into the URL field and
// clicking sample links. The app follows the feed build.mjs published beside it
// (feed/manifest.json) with FilterFeed, sees a version published later arrive by
// patch, and publishes what it did (window.__cuckooExample and body[data-state]); the test
// only reads that, the DOM and the console (harness.ts says why nothing is driven
// through `evaluate`).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  Browser,
  Page,
  Problems,
  STRICT_CSP,
  StaticServer,
  embeddedModule,
  launchChromium,
  outputDir,
  readCspViolations,
  recordCspViolations,
  root,
  runNodeScript,
  serve,
  watch,
} from './harness';

/**
 * The page's sample links that are blocked, in page order, with the entry each matches: a page of
 * examples/data/phishing-urls-sample.txt (as listed, and on www. with a query), a site listed whole
 * there (no path), the folder of examples/browser/demo-entries.txt, and two hosts of
 * examples/data/blocklist-sample.txt (a path on one, a subdomain of the other).
 */
const BLOCKED: Record<string, string> = {
  'http://aasp-apple-portal-online.com/loading.html': 'aasp-apple-portal-online.com/loading.html',
  'http://www.aasp-apple-portal-online.com/loading.html?session=42': 'aasp-apple-portal-online.com/loading.html',
  'http://account-verification-id3.appspot.com/j3bwlc/rs0mta?pp=11':
    'account-verification-id3.appspot.com/j3bwlc/rs0mta?pp=11',
  'https://0000-1t8.pages.dev/signin/verify.html': '0000-1t8.pages.dev/',
  'http://shared-host.example/~phisher/paypal/login.html': 'shared-host.example/~phisher/',
  'https://googleads.g.doubleclick.net/pagead/ads?client=ca-pub-1': 'googleads.g.doubleclick.net/',
  'https://www.1netflixsupports.com/account/login': '1netflixsupports.com/',
};
/** The sample links that are not: the front page of a site only one page of which is listed, a neighbour of the listed folder, benign sites. */
const NOT_BLOCKED = [
  'http://aasp-apple-portal-online.com/',
  'http://shared-host.example/~student/notes.html',
  'https://developer.mozilla.org/en-US/docs/Web/API/URL',
  'https://en.wikipedia.org/wiki/Cuckoo_filter',
  'https://webassembly.org/docs/security/',
  'https://example.org/',
];
const FEED_PATH = '/feed/manifest.json';
/** 50,114 hosts + 4,926 phishing URLs + 1 demo folder + 3 rotating hosts of examples/feed, none the same expression as another. */
const ENTRIES = 55044;

interface Lookup {
  input: string;
  verdict: 'empty' | 'listed' | 'not-listed' | 'invalid';
  match: string | null;
  reason: string | null;
  message: string | null;
}

interface ExampleState {
  ready: boolean;
  manifestUrl: string | null;
  feed: { name: string; version: number; updates: { from: number; to: number; via: string; bytes: number }[]; lastError: string | null } | null;
  stats: {
    items: number;
    bytes: number;
    bitsPerItem: number;
    expectedFalsePositiveRate: number;
    urlFalsePositiveRate: number;
    loadFactor: number;
    fingerprintBits: number;
    bucketSize: number;
  } | null;
  links: { url: string; listed: boolean; match: string | null }[];
  marked: string[];
  lookup: Lookup | null;
  error: string | null;
}

let outDir: string;
let server: StaticServer;
let browser: Browser;
let page: Page;
let problems: Problems;
let jsAsset: string;
let feedState: string;

/** The feed's manifest as build.mjs (or feed.mjs) published it: the envelope's payload. */
function feedManifest(): { version: number; full: { path: string; size: number }; patches: { from: number; path: string; size: number }[] } {
  const envelope = JSON.parse(readFileSync(join(outDir, FEED_PATH), 'utf8'));
  return JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8'));
}

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'cuckoo-example-app-'));
  feedState = mkdtempSync(join(tmpdir(), 'cuckoo-example-app-feed-'));
  // pollSeconds 1: the page polls the feed every second, so the version the last test publishes arrives at once.
  runNodeScript('examples/browser/build.mjs', [outDir, '--feed-state', feedState, '--poll-seconds', '1'], 60000);
  const scripts = readdirSync(join(outDir, 'assets')).filter((f) => /^index-[\w-]+\.js$/.test(f));
  expect(scripts).toHaveLength(1);
  jsAsset = join(outDir, 'assets', scripts[0]);

  server = await serve([{ prefix: '/', path: outDir }], () => STRICT_CSP);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1000, height: 1400 } });
  problems = watch(page);
  await recordCspViolations(page);
}, 60000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
  if (feedState) rmSync(feedState, { recursive: true, force: true });
});

/** The app's published state, copied out as plain data (a read: the app computed it). */
function readState(): Promise<ExampleState> {
  return page.evaluate(
    () => JSON.parse(JSON.stringify((window as unknown as { __cuckooExample: unknown }).__cuckooExample)) as unknown,
  ) as Promise<ExampleState>;
}

/** Opens the app (with `?url=` when given) and waits until it is no longer loading. */
async function open(url?: string): Promise<ExampleState> {
  const query = url === undefined ? '' : `?url=${encodeURIComponent(url)}`;
  await page.goto(`${server.origin}/${query}`, { timeout: 10000 });
  await page.waitForSelector('body:not([data-state="loading"])', { timeout: 15000 });
  return readState();
}

/** Replaces the URL field's text as a user would and returns the answer the app then published. */
async function lookUp(text: string, how: 'fill' | 'type' = 'fill'): Promise<Lookup> {
  if (how === 'fill') {
    await page.fill('#url', text, { timeout: 5000 });
  } else {
    await page.fill('#url', '', { timeout: 5000 });
    await page.locator('#url').pressSequentially(text, { timeout: 5000 });
  }
  // The app answers on each `input` event, synchronously, so the answer is there once typing returns.
  const { lookup } = await readState();
  expect(lookup?.input).toBe(text);
  // The verdict on screen is the published one.
  expect(await page.getAttribute('#verdict', 'data-verdict', { timeout: 5000 })).toBe(lookup!.verdict);
  expect(await page.getAttribute('#verdict', 'data-match', { timeout: 5000 })).toBe(lookup!.match ?? '');
  return lookup!;
}

test("the example app loads its URL filter under script-src 'self' 'wasm-unsafe-eval', marks and answers whole URLs", async () => {
  const jsBytes = readFileSync(jsAsset);
  const js = jsBytes.toString('utf8');
  expect(js).not.toContain('new Function');
  expect(js).not.toMatch(/\beval\(/);
  // The page only reads its filter, so it bundles cuckoo-wasm/reader: the reader's module, embedded (no .wasm
  // asset), and less to download than the full entry alone.
  expect(embeddedModule(js)).toBe('reader');
  expect(readdirSync(join(outDir, 'assets')).filter((f) => f.endsWith('.wasm'))).toEqual([]);
  const fullEntry = readFileSync(join(root, 'dist', 'index.mjs'));
  expect(gzipSync(jsBytes, { level: 9 }).length).toBeLessThan(gzipSync(fullEntry, { level: 9 }).length);

  const started = performance.now();
  const state = await open();
  const msToReady = performance.now() - started;

  const body = await page.evaluate(() => ({ ...document.body.dataset }));
  expect({ state: body.state, error: body.error, published: state.error }).toEqual({
    state: 'ready',
    error: undefined,
    published: null,
  });
  expect(state.ready).toBe(true);

  // The filter the app reports on is the feed's version 1 as served, published from the lists by publish().
  const { full } = feedManifest();
  const fileBytes = statSync(join(outDir, 'feed', full.path)).size;
  expect(state.manifestUrl).toBe(server.origin + FEED_PATH);
  expect(state.feed).toEqual({ name: 'blocklist', version: 1, updates: [{ from: 0, to: 1, via: 'full', bytes: expect.any(Number) }], lastError: null });
  expect(server.requests).toEqual(expect.arrayContaining([FEED_PATH, `/feed/${full.path}`]));
  const stats = state.stats!;
  expect(stats.items).toBe(ENTRIES);
  expect(stats.bytes).toBe(fileBytes);
  // publish() sizes a filter for 1.25 times its entries (room for later versions to stay patches).
  expect(stats.loadFactor).toBeGreaterThan(0.7);
  expect(stats.loadFactor).toBeLessThan(0.85);
  expect(stats).toMatchObject({ fingerprintBits: 18, bucketSize: 4 });
  // Sized with --url-fpr 0.001: one URL lookup, up to 30 expressions, is a false positive at most 0.1% of the time.
  expect(stats.urlFalsePositiveRate).toBeGreaterThan(0.0005);
  expect(stats.urlFalsePositiveRate).toBeLessThanOrEqual(0.001);
  expect(stats.expectedFalsePositiveRate).toBeLessThanOrEqual(0.001 / 30);
  // The statistics are on screen too, formatted.
  expect(await page.textContent('[data-stat="items"]')).toMatch(/^55,044/);
  expect(await page.textContent('[data-stat="urlFalsePositiveRate"]')).toMatch(/^0\.09\d%/);

  // The sample links: exactly the blocked whole URLs are marked, each with the entry it matched,
  // in the page's state and in the DOM.
  const links = Object.fromEntries(state.links.map((l) => [l.url, l.match]));
  expect(links).toEqual({ ...BLOCKED, ...Object.fromEntries(NOT_BLOCKED.map((u) => [u, null])) });
  expect(state.links.map((l) => l.listed)).toEqual(state.links.map((l) => l.match !== null));
  expect([...state.marked].sort()).toEqual(Object.keys(BLOCKED).sort());
  const markedInDom = await page.$$eval('#links a.listed', (as) => as.map((a) => a.textContent));
  expect(markedInDom.sort()).toEqual(Object.keys(BLOCKED).sort());

  // Typing whole URLs: each of the kinds the filter must block, with the entry that matched.
  const typed: Record<string, Lookup> = {};
  const cases: [string, Lookup['verdict'], string | null][] = [
    // a listed whole URL, as the list has it (examples/data/phishing-urls-sample.txt)
    ['http://3pattipro.com/citi/login.php', 'listed', '3pattipro.com/citi/login.php'],
    // a fragment, capitals, a port and an escaped letter do not change which page it is
    ['HTTPS://3PattiPro.com:8443/citi/%6Cogin.php#top', 'listed', '3pattipro.com/citi/login.php'],
    // another page beside it is not listed: a page entry is that page only
    ['http://3pattipro.com/citi/index.php', 'not-listed', null],
    // deeper under the listed folder (demo-entries.txt), and its neighbour folder
    ['shared-host.example/~phisher/kit/v2/verify.php?id=7', 'listed', 'shared-host.example/~phisher/'],
    ['http://shared-host.example/~student/', 'not-listed', null],
    // a subdomain of a listed bare host (examples/data/blocklist-sample.txt), with a path
    ['https://eu.ads.roku.com/v1/track?e=1', 'listed', 'ads.roku.com/'],
    // benign
    ['https://developer.mozilla.org/en-US/docs/Web/API/URL/URL', 'not-listed', null],
  ];
  for (const [url] of cases) typed[url] = await lookUp(url);
  expect(Object.entries(typed).map(([url, l]) => [url, l.verdict, l.match])).toEqual(cases);

  // Not a URL: the InvalidUrlError's reason, and its message on screen.
  const invalid = await lookUp('/login.php');
  expect(invalid).toMatchObject({ verdict: 'invalid', match: null, reason: 'no-host' });
  expect(await page.getAttribute('#verdict', 'data-reason')).toBe('no-host');
  expect(await page.textContent('#verdict')).toContain('"/login.php" is not a URL: the URL has no host');
  expect((await lookUp('http://[::1/')).reason).toBe('bad-host');
  expect((await lookUp('')).verdict).toBe('empty');

  // A click on a sample link is not followed: the app checks the link in the field instead.
  const [linkUrl, linkMatch] = Object.entries(BLOCKED)[4];
  await page.click(`#links a[href="${linkUrl}"]`, { timeout: 5000 });
  expect(page.url()).toBe(`${server.origin}/`);
  expect(await page.inputValue('#url')).toBe(linkUrl);
  expect((await readState()).lookup).toMatchObject({ input: linkUrl, verdict: 'listed', match: linkMatch });

  // Last, key by key, so the screenshot shows a blocked verdict.
  expect(await lookUp('https://www.0000-1t8.pages.dev/signin/verify.html', 'type')).toMatchObject({
    verdict: 'listed',
    match: '0000-1t8.pages.dev/',
  });
  expect(await page.textContent('#verdict')).toBe('Blocked: it matches the list entry 0000-1t8.pages.dev/.');

  mkdirSync(outputDir, { recursive: true });
  await page.screenshot({ path: join(outputDir, 'example-browser.png'), fullPage: true, timeout: 10000 });

  expect(await readCspViolations(page)).toEqual([]);
  expect(problems).toEqual({ consoleErrors: [], pageErrors: [] });

  const gzipped = gzipSync(jsBytes).length;
  console.log(
    `example app: ready in ${msToReady.toFixed(0)} ms; ${stats.items} entries, ${stats.bytes} bytes ` +
      `(file ${fileBytes}), ${stats.bitsPerItem.toFixed(2)} bits/entry, load factor ${stats.loadFactor.toFixed(4)}, ` +
      `FP rate per URL at most ${stats.urlFalsePositiveRate.toFixed(6)}; ` +
      `marked ${state.marked.length}/${state.links.length} links; ` +
      `JS asset ${jsBytes.length} bytes, ${gzipped} gzipped\n` +
      `typed: ${Object.entries(typed).map(([u, l]) => `${u} => ${l.match ?? l.verdict}`).join(', ')}`,
  );
}, 45000);

test('the app answers the URL it is opened with (?url=), before anyone types', async () => {
  const answers: Record<string, Lookup | null> = {};
  for (const url of [
    'https://www.aasp-apple-portal-online.com/loading.html', // a listed page's www. variant
    'http://shared-host.example/~phisher/a/b/c.html', // deeper under a listed folder
    'https://cat.criteo.com.', // a listed bare host, with a trailing dot and no path
    'https://en.wikipedia.org/wiki/Bloom_filter', // benign
    'mailto:someone', // not a URL with a host
  ]) {
    const state = await open(url);
    expect(state.ready).toBe(true);
    expect(await page.inputValue('#url')).toBe(url);
    answers[url] = state.lookup;
  }
  expect(Object.values(answers).map((a) => [a?.input, a?.verdict, a?.match, a?.reason])).toEqual([
    ['https://www.aasp-apple-portal-online.com/loading.html', 'listed', 'aasp-apple-portal-online.com/loading.html', null],
    ['http://shared-host.example/~phisher/a/b/c.html', 'listed', 'shared-host.example/~phisher/', null],
    ['https://cat.criteo.com.', 'listed', 'cat.criteo.com/', null],
    ['https://en.wikipedia.org/wiki/Bloom_filter', 'not-listed', null, null],
    ['mailto:someone', 'invalid', null, 'no-host'],
  ]);
  expect(await readCspViolations(page)).toEqual([]);
  expect(problems).toEqual({ consoleErrors: [], pageErrors: [] });
}, 45000);

test('the app follows its feed: a version published later arrives by patch, and the answers change with it', async () => {
  const url = 'http://feed-demo-4.example/start';
  let state = await open(url);
  // Version 1 lists feed-demo-1.example to feed-demo-3.example; version 2 replaces the first with feed-demo-4.example.
  expect([state.feed?.version, state.lookup?.verdict]).toEqual([1, 'not-listed']);
  expect((await lookUp('http://feed-demo-1.example/')).match).toBe('feed-demo-1.example/');
  const published = runNodeScript('examples/feed/feed.mjs', ['--out', join(outDir, 'feed'), '--state', feedState, '--once']);
  expect(published).toMatch(/^published version 2: 55044 entries \(\+1 -1\)/);
  const patch = feedManifest().patches.find((p) => p.from === 1)!;

  const deadline = Date.now() + 15000;
  while ((state = await readState()).feed?.version !== 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(state.feed?.version).toBe(2);
  expect(state.feed?.updates.at(-1)).toEqual({ from: 1, to: 2, via: 'patch', bytes: expect.any(Number) });
  expect(server.requests).toContain(`/feed/${patch.path}`);
  expect(server.requests).not.toContain(`/feed/${feedManifest().full.path}`);
  // The field's answer was computed again with version 2 (the field still holds what was typed last).
  expect(state.lookup).toMatchObject({ input: 'http://feed-demo-1.example/', verdict: 'not-listed' });
  expect((await lookUp(url)).match).toBe('feed-demo-4.example/');
  expect(state.stats?.items).toBe(ENTRIES);
  expect(await page.textContent('#status')).toContain('version 2, reached by a patch from version 1');
  expect(await readCspViolations(page)).toEqual([]);
  expect(problems).toEqual({ consoleErrors: [], pageErrors: [] });
  console.log(`example app: feed version 2 by a ${patch.size}-byte patch (${state.feed?.updates.at(-1)?.bytes} bytes read with the manifest)`);
}, 45000);
