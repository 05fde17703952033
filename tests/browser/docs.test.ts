// The guides' page and extension snippets (tests/js/doc-snippets.ts: `<!-- snippet: chromium-page … -->`,
// `<!-- snippet: extension … -->`), run as written in Chromium. Each file of a snippet (a page, its worker, an
// extension's service worker) is bundled by esbuild as an app would bundle it (the package resolved through
// node_modules and its "exports"), with the givens defined before it. A page is served under the strict CSP, runs
// its own script and publishes its stated values' checks, which the test only reads (harness.ts); a service worker
// runs in a temporary MV3 extension, and the test watches where it sends the tab.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { generateKeyPairSync } from 'node:crypto';
import { CuckooFilter, publish } from 'cuckoo-wasm';
import { allSnippets, filesOf, toJavaScript, withChecks } from '../js/doc-snippets';
import { Browser, CHROMIUM, CHROMIUM_ARGS, STRICT_CSP, StaticServer, launchChromium, openPage, realDomains, root, serve } from './harness';

/** What a page snippet leaves to the reader, by name: JavaScript run before it in the same file. */
const GIVENS: Record<string, (domains: string[]) => string> = {
  domains: (domains) => `const domains = ${JSON.stringify(domains)};`,
  // The page's worker: the snippet's worker file, as the page starts it.
  worker: () => `const worker = new Worker('/worker.js', { type: 'module' });`,
  // The public key of the feed served at /blocklist/ (beforeAll publishes it).
  publicKey: () => `const publicKey = ${JSON.stringify(feedPublicKey)};`,
};

/** After a page file: what it publishes once its own work is done (with a given worker, the filter it sends). */
function epilogue(givens: string[], domains: string[]): string {
  if (!givens.includes('worker')) return 'window.__result = { checks: __checks };';
  return `import { CuckooFilter as __Reader } from 'cuckoo-wasm/reader';
worker.addEventListener('message', async (e) => {
  const f = await __Reader.fromBytes(e.data);
  window.__result = { checks: __checks, members: ${JSON.stringify(domains.slice(0, 200))}.filter((d) => !f.has(d)).length };
});`;
}

let tmp: string;
let browser: Browser;
let server: StaticServer;
let domains: string[];
let feedPublicKey: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cuckoo-docs-browser-'));
  mkdirSync(join(tmp, 'node_modules'), { recursive: true });
  symlinkSync(root, join(tmp, 'node_modules', 'cuckoo-wasm'), 'dir');
  domains = realDomains(2000).domains;
  // The filter README snippet 2 fetches: a URL blocklist holding the site evil.example.
  const filter = await CuckooFilter.create({ capacity: 3000, falsePositiveRate: 0.01 / 30 });
  filter.addUrls(['evil.example', ...domains]);
  mkdirSync(join(tmp, 'site'));
  writeFileSync(join(tmp, 'site', 'blocklist.cuckoo'), filter.toBytes());
  filter.dispose();
  // The feed README snippet 2 follows: the same list published with publish(), signed, at /blocklist/.
  writeFileSync(join(tmp, 'blocklist.txt'), ['evil.example', ...domains].join('\n') + '\n');
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  feedPublicKey = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64');
  await publish({ list: join(tmp, 'blocklist.txt'), urls: true, urlFalsePositiveRate: 0.01, out: join(tmp, 'site', 'blocklist'), state: join(tmp, 'feed-state'), signingKey: privateKey });
  writeFileSync(join(tmp, 'site', 'index.html'), '<!doctype html><title>a page</title>');
  server = await serve([{ prefix: '/', path: join(tmp, 'site') }], () => STRICT_CSP);
  browser = await launchChromium();
}, 60000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const pageSnippets = allSnippets().filter((s) => s.kind === 'chromium-page');

test('the guides have page snippets to run', () => {
  expect(pageSnippets.length).toBeGreaterThanOrEqual(2);
});

test.each(pageSnippets.map((s) => [`${s.file}:${s.line}`, s] as const))('%s runs in a page under the strict CSP as written', async (at, s) => {
  const site = join(tmp, 'site');
  const { code, checks } = withChecks(s);
  for (const part of filesOf({ ...s, code })) {
    const name = part.name === 'worker' ? 'worker' : 'page';
    const givens = s.given.filter((g) => name === 'page' || g !== 'worker').map((g) => GIVENS[g](domains)).join('\n');
    const text = [
      'const __checks = [];',
      `const __check = (got, want, at) => { __checks.push({ at, got: JSON.stringify(got), want: JSON.stringify(want) }); };`,
      `addEventListener('error', (e) => { self.__result = { error: String(e.message) }; });`,
      `addEventListener('unhandledrejection', (e) => { self.__result = { error: String(e.reason) }; });`,
      toJavaScript(`${givens}\n${part.code}`),
      name === 'page' ? epilogue(s.given, domains) : '',
    ].join('\n');
    writeFileSync(join(tmp, `${name}-src.js`), text);
    await build({
      entryPoints: [join(tmp, `${name}-src.js`)],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      outfile: join(site, `${name}.js`),
      logLevel: 'warning',
    });
  }
  writeFileSync(
    join(site, 'index.html'),
    '<!doctype html><a href="https://www.evil.example/a">one</a> <a href="https://example.org/">two</a>' +
      '<script type="module" src="/page.js"></script>',
  );
  const { result, problems } = await openPage<{ checks: { at: string; got: string; want: string }[]; error?: string; members?: number }>(
    browser,
    `${server.origin}/index.html`,
  );
  expect([at, result.error]).toEqual([at, undefined]);
  for (const c of result.checks) expect([c.at, c.got]).toEqual([c.at, c.want]);
  // Every stated value was checked in the page (a worker's would not reach it: the page publishes the result).
  expect([at, result.checks.length]).toEqual([at, checks]);
  if (result.members !== undefined) expect(result.members).toBe(0); // the worker's filter, read in the page: every member found
  expect(problems).toEqual({ consoleErrors: [], pageErrors: [] });
  console.log(`${at}: ran in Chromium, ${result.checks.length} stated values checked`);
});

const extensionSnippets = allSnippets().filter((s) => s.kind === 'extension');

test.each(extensionSnippets.map((s) => [`${s.file}:${s.line}`, s] as const))(
  '%s runs as an MV3 extension\'s service worker as written: a listed site\'s tab goes to the warning page naming the entry; others load',
  async (at, s) => {
    const dir = join(tmp, 'extension');
    mkdirSync(dir, { recursive: true });
    // The snippet alone is the worker (its givens: the chrome.* API, which the browser gives it).
    writeFileSync(join(tmp, 'sw-src.js'), toJavaScript(s.code));
    await build({ entryPoints: [join(tmp, 'sw-src.js')], bundle: true, format: 'esm', platform: 'browser', outfile: join(dir, 'sw.js'), logLevel: 'warning' });
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({
        manifest_version: 3,
        name: 'docs snippet',
        version: '1',
        background: { service_worker: 'sw.js', type: 'module' },
        permissions: ['webNavigation', 'tabs'],
        content_security_policy: { extension_pages: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'" },
      }),
    );
    writeFileSync(join(dir, 'warning.html'), '<!doctype html><title>blocked</title>');
    const filter = await CuckooFilter.create({ capacity: 100 });
    filter.addUrls(['blocked.test']);
    writeFileSync(join(dir, 'blocklist.cuckoo'), filter.toBytes());
    filter.dispose();
    const context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
      executablePath: CHROMIUM,
      headless: false, // --headless=new in CHROMIUM_ARGS: the headless mode that runs extensions
      ignoreDefaultArgs: ['--disable-extensions'],
      args: [...CHROMIUM_ARGS, `--disable-extensions-except=${dir}`, `--load-extension=${dir}`, '--host-resolver-rules=MAP blocked.test 127.0.0.1, MAP clean.test 127.0.0.1'],
      timeout: 20000,
    });
    try {
      const worker =
        context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://')) ??
        (await context.waitForEvent('serviceworker', { predicate: (w) => w.url().startsWith('chrome-extension://'), timeout: 10000 }));
      const id = new URL(worker.url()).host;
      const port = new URL(server.origin).port;
      const page = await context.newPage();
      const warned = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame() && f.url().startsWith(`chrome-extension://${id}/warning.html`), timeout: 10000 });
      await page.goto(`http://www.blocked.test:${port}/index.html`, { timeout: 10000 }).catch(() => {}); // the extension sends the tab elsewhere
      await warned;
      expect([at, page.url()]).toEqual([at, `chrome-extension://${id}/warning.html#${encodeURIComponent('blocked.test/')}`]);
      // about:blank has no host: matchUrl throws InvalidUrlError, which the snippet lets pass.
      await page.goto('about:blank');
      const clean = await page.goto(`http://clean.test:${port}/index.html`, { timeout: 10000 });
      expect([at, clean?.status(), page.url()]).toEqual([at, 200, `http://clean.test:${port}/index.html`]);
      console.log(`${at}: ran as an extension's service worker; a listed site went to its warning page`);
    } finally {
      await context.close();
    }
  },
);
