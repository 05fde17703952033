// The guides' page snippets (tests/js/doc-snippets.ts: `<!-- snippet: chromium-page … -->`), run as written in
// Chromium: each file of a snippet (a page, its worker) is bundled by esbuild as an app would bundle it (the package
// resolved through node_modules and its "exports"), with the givens defined before it, and served under the strict
// CSP; the page runs its own script and publishes its stated values' checks, which the test only reads (harness.ts).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { CuckooFilter } from 'cuckoo-wasm';
import { allSnippets, filesOf, toJavaScript, withChecks } from '../js/doc-snippets';
import { Browser, STRICT_CSP, StaticServer, launchChromium, openPage, realDomains, root, serve } from './harness';

/** What a page snippet leaves to the reader, by name: JavaScript run before it in the same file. */
const GIVENS: Record<string, (domains: string[]) => string> = {
  domains: (domains) => `const domains = ${JSON.stringify(domains)};`,
  // The page's worker: the snippet's worker file, as the page starts it.
  worker: () => `const worker = new Worker('/worker.js', { type: 'module' });`,
};

/** After a page file: what it publishes once its own work is done (the worker's filter, for the worker snippet). */
function epilogue(code: string, domains: string[]): string {
  if (!code.includes('worker.onmessage')) return 'window.__result = { checks: __checks };';
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
  const { code } = withChecks(s);
  for (const part of filesOf({ ...s, code })) {
    const name = part.name === 'worker' ? 'worker' : 'page';
    const givens = s.given.filter((g) => name === 'page' || g !== 'worker').map((g) => GIVENS[g](domains)).join('\n');
    const text = [
      'const __checks = [];',
      `const __check = (got, want, at) => { __checks.push({ at, got: JSON.stringify(got), want: JSON.stringify(want) }); };`,
      `addEventListener('error', (e) => { self.__result = { error: String(e.message) }; });`,
      `addEventListener('unhandledrejection', (e) => { self.__result = { error: String(e.reason) }; });`,
      toJavaScript(`${givens}\n${part.code}`),
      name === 'page' ? epilogue(part.code, domains) : '',
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
  if (result.members !== undefined) expect(result.members).toBe(0); // the worker's filter, read in the page: every member found
  expect(problems).toEqual({ consoleErrors: [], pageErrors: [] });
  console.log(`${at}: ran in Chromium, ${result.checks.length} stated values checked`);
});
