// The Vite browser example (examples/browser/) in Chromium, as a user meets it:
// built by its own build.mjs into a fresh folder, served from 127.0.0.1 with
// `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'` on
// every response, and used by typing into the domain field. The app fetches its
// filter, loads it and publishes what it did (window.__cuckooExample and
// body[data-state]); the test only reads that, the DOM and the console
// (harness.ts says why nothing is driven through `evaluate`).
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
  launchChromium,
  outputDir,
  readCspViolations,
  recordCspViolations,
  runNodeScript,
  serve,
  watch,
} from './harness';

/** Hostnames of the page's sample links that are on examples/data/blocklist-sample.txt, in page order. */
const LISTED = [
  'googleads.g.doubleclick.net',
  'beacon-2.newrelic.com',
  'cat.criteo.com',
  'ads.roku.com',
  'analytics-api.webflow.com',
];
/** The sample links' hostnames that are not on it. */
const NOT_LISTED = ['developer.mozilla.org', 'en.wikipedia.org', 'webassembly.org', 'www.w3.org', 'example.org'];
const FILTER_PATH = '/filters/blocklist-sample.cuckoo';

interface ExampleState {
  ready: boolean;
  filterUrl: string | null;
  stats: {
    items: number;
    bytes: number;
    bitsPerItem: number;
    expectedFalsePositiveRate: number;
    loadFactor: number;
    fingerprintBits: number;
    bucketSize: number;
  } | null;
  links: { hostname: string; listed: boolean }[];
  marked: string[];
  error: string | null;
}

let outDir: string;
let server: StaticServer;
let browser: Browser;
let page: Page;
let problems: Problems;
let jsAsset: string;

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'cuckoo-example-app-'));
  runNodeScript('examples/browser/build.mjs', [outDir], 60000);
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
});

/** Replaces the domain field's text as a user would and returns the verdict the app then shows. */
async function verdictFor(text: string, how: 'fill' | 'type' = 'fill'): Promise<string | null> {
  if (how === 'fill') {
    await page.fill('#domain', text, { timeout: 5000 });
  } else {
    await page.fill('#domain', '', { timeout: 5000 });
    await page.locator('#domain').pressSequentially(text, { timeout: 5000 });
  }
  // The app answers on each `input` event, synchronously, so the verdict is there once typing returns.
  return page.getAttribute('#verdict', 'data-verdict', { timeout: 5000 });
}

test("the example app loads its filter under script-src 'self' 'wasm-unsafe-eval', answers typed domains", async () => {
  const jsBytes = readFileSync(jsAsset);
  const js = jsBytes.toString('utf8');
  expect(js).not.toContain('new Function');
  expect(js).not.toMatch(/\beval\(/);

  const started = performance.now();
  await page.goto(server.origin + '/', { timeout: 10000 });
  await page.waitForSelector('body:not([data-state="loading"])', { timeout: 15000 });
  const msToReady = performance.now() - started;

  const state = await page.evaluate(
    () => JSON.parse(JSON.stringify((window as unknown as { __cuckooExample: unknown }).__cuckooExample)) as unknown,
  ) as ExampleState;
  const body = await page.evaluate(() => ({ ...document.body.dataset }));
  expect({ state: body.state, error: body.error, published: state.error }).toEqual({
    state: 'ready',
    error: undefined,
    published: null,
  });
  expect(state.ready).toBe(true);

  // The filter the app reports on is the file that was served.
  const fileBytes = statSync(join(outDir, FILTER_PATH)).size;
  expect(state.filterUrl).toBe(server.origin + FILTER_PATH);
  expect(server.requests).toContain(FILTER_PATH);
  const stats = state.stats!;
  expect(stats.items).toBe(50114);
  expect(stats.bytes).toBe(fileBytes);
  expect(stats.bytes).toBe(85640);
  expect(stats.bitsPerItem).toBeCloseTo(13.67, 2);
  expect(stats.loadFactor).toBeGreaterThan(0.94);
  expect(stats.loadFactor).toBeLessThan(0.96);
  expect(stats).toMatchObject({ fingerprintBits: 13, bucketSize: 4 });
  expect(stats.expectedFalsePositiveRate).toBeGreaterThan(0);
  expect(stats.expectedFalsePositiveRate).toBeLessThanOrEqual(0.001);
  // The statistics are on screen too, formatted.
  expect(await page.textContent('[data-stat="items"]')).toMatch(/^50,114/);

  // The sample links: exactly the listed hosts are marked, in the page's state and in the DOM.
  expect([...state.marked].sort()).toEqual([...LISTED].sort());
  expect(state.links.filter((l) => !l.listed).map((l) => l.hostname).sort()).toEqual([...NOT_LISTED].sort());
  const markedInDom = await page.$$eval('#links a.listed', (as) => as.map((a) => a.textContent));
  expect(markedInDom.sort()).toEqual([...LISTED].sort());

  // Typing: every listed host is listed, every other one is not; a URL and capitals are reduced to the hostname.
  const verdicts: Record<string, string | null> = {};
  for (const host of [...LISTED, ...NOT_LISTED]) verdicts[host] = await verdictFor(host);
  expect(verdicts).toEqual({
    ...Object.fromEntries(LISTED.map((h) => [h, 'listed'])),
    ...Object.fromEntries(NOT_LISTED.map((h) => [h, 'not-listed'])),
  });
  expect(await verdictFor('https://Ads.Roku.com/some/path?q=1')).toBe('listed');
  expect(await verdictFor('')).toBe('empty');
  // Last, key by key, so the screenshot shows a listed verdict.
  expect(await verdictFor('cat.criteo.com', 'type')).toBe('listed');
  expect(await page.textContent('#verdict')).toContain('Listed: cat.criteo.com');

  mkdirSync(outputDir, { recursive: true });
  await page.screenshot({ path: join(outputDir, 'example-browser.png'), fullPage: true, timeout: 10000 });

  expect(await readCspViolations(page)).toEqual([]);
  expect(problems).toEqual({ consoleErrors: [], pageErrors: [] });

  const gzipped = gzipSync(jsBytes).length;
  console.log(
    `example app: ready in ${msToReady.toFixed(0)} ms; ${stats.items} items, ${stats.bytes} bytes ` +
      `(file ${fileBytes}), ${stats.bitsPerItem.toFixed(2)} bits/item, load factor ${stats.loadFactor.toFixed(4)}, ` +
      `expected FP rate ${stats.expectedFalsePositiveRate.toFixed(6)}; ` +
      `marked ${state.marked.length}/${state.links.length} links; ` +
      `JS asset ${jsBytes.length} bytes, ${gzipped} gzipped\n` +
      `verdicts: ${Object.entries(verdicts).map(([h, v]) => `${h}=${v}`).join(', ')}`,
  );
}, 45000);
