// Shared pieces of the browser tests: a static server on 127.0.0.1 that sets a
// Content-Security-Policy per response, Debian's Chromium launched through
// playwright-core, Debian's Firefox ESR launched through puppeteer-core (over
// WebDriver BiDi), and a watcher for console errors and CSP violations.
//
// Pages under test run their own scripts and publish results (on `window` or
// in the DOM); tests only read them with `evaluate`, because Playwright's and
// Puppeteer's `evaluate` are exempt from the page's CSP and would hide exactly
// the failures these tests look for.
import { spawnSync } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { chromium, Browser, BrowserContext, Page } from 'playwright-core';
import { launch, Browser as FirefoxBrowser, Page as FirefoxPage } from 'puppeteer-core';

export const root = join(__dirname, '..', '..');
/** Where tests leave screenshots and logs (build/ is not committed). */
export const outputDir = process.env.CUCKOO_TEST_RESULTS ?? join(root, 'build', 'test-results');

/** The CSP a page that uses cuckoo-wasm needs, and no more. */
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
/** A CSP that allows no WebAssembly compilation. */
export const NO_WASM_CSP = "default-src 'self'; script-src 'self'; style-src 'self'";

export const CHROMIUM = '/usr/bin/chromium';
/** Flags for Chromium on a machine with no network but loopback (see the developers' guide). */
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
};

/** A URL prefix served from a folder or a single file. */
export interface Mount {
  prefix: string; // e.g. '/lib/'; a file mount matches the prefix exactly
  path: string; // a folder, or a file
}

export interface StaticServer {
  origin: string; // http://127.0.0.1:PORT
  /** Every path requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves `mounts` on 127.0.0.1 (a free port) with `csp(path)` as each
 * response's Content-Security-Policy header (none when it returns undefined).
 * Paths outside a mount, or escaping it with `..`, get 404.
 */
export async function serve(mounts: Mount[], csp: (path: string) => string | undefined): Promise<StaticServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    if (path === '/favicon.ico') {
      res.writeHead(204).end(); // browsers ask for it unprompted
      return;
    }
    const file = resolveMount(mounts, path);
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${path}`);
      return;
    }
    const headers: Record<string, string> = {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    };
    const policy = csp(path);
    if (policy) headers['content-security-policy'] = policy;
    res.writeHead(200, headers).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function resolveMount(mounts: Mount[], path: string): string | undefined {
  for (const { prefix, path: target } of mounts) {
    if (!existsSync(target)) continue;
    if (statSync(target).isFile()) {
      if (path === prefix) return target;
      continue;
    }
    if (!path.startsWith(prefix)) continue;
    let rel = path.slice(prefix.length);
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    const file = normalize(join(target, rel));
    if (!file.startsWith(normalize(target) + sep)) return undefined;
    if (existsSync(file) && statSync(file).isFile()) return file;
  }
  return undefined;
}

/** Launches Debian's Chromium headless (scripts/setup.sh installs it). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30000 });
}

export const FIREFOX = '/usr/bin/firefox-esr';

/**
 * Launches Debian's Firefox ESR headless, driven over WebDriver BiDi by
 * puppeteer-core in a fresh profile (scripts/setup.sh --browser installs it).
 */
export function launchFirefox(): Promise<FirefoxBrowser> {
  return launch({ browser: 'firefox', executablePath: FIREFOX, headless: true, timeout: 30000 });
}

/** A page of either browser: Playwright's (Chromium) or Puppeteer's (Firefox). */
export type AnyPage = Page | FirefoxPage;

/** Console errors, uncaught page errors and CSP violations seen by a page or context. */
export interface Problems {
  consoleErrors: string[];
  pageErrors: string[];
}

/** The events `watch` listens to, as Playwright's and Puppeteer's pages both emit them. */
interface PageEvents {
  on(event: 'console', listener: (m: { type(): string; text(): string; location(): { url?: string } }) => void): unknown;
  on(event: 'pageerror', listener: (e: Error) => void): unknown;
}

/** Starts recording a page's console errors and uncaught errors. */
export function watch(page: AnyPage, problems: Problems = { consoleErrors: [], pageErrors: [] }): Problems {
  const events = page as unknown as PageEvents;
  events.on('console', (m) => {
    if (m.type() === 'error') problems.consoleErrors.push(`${m.text()} (${m.location().url})`);
  });
  events.on('pageerror', (e) => problems.pageErrors.push(`${e.name}: ${e.message}`));
  return problems;
}

/** `evaluate` with one argument, as Playwright's and Puppeteer's pages both have it. */
interface Evaluates {
  evaluate<R>(fn: (arg: string) => R, arg: string): Promise<R>;
}

/**
 * Waits until the page's own script has published `window[name]` (or the time
 * limit passes) and returns it. Only reads: the page computes the value itself.
 *
 * @throws Error if nothing is published within `timeoutMs`.
 */
export async function readResult<T>(page: AnyPage, name: string, timeoutMs = 30000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await (page as Evaluates).evaluate((n) => (window as unknown as Record<string, unknown>)[n], name);
    if (value !== undefined) return value as T;
    if (Date.now() > deadline) throw new Error(`the page published no window.${name} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Opens `url` in a new page of `browser`, waits for the result its own script
 * publishes on `window.__result`, and returns it with the page's console
 * problems. The page is closed either way.
 */
export async function openPage<T>(browser: Browser | FirefoxBrowser, url: string): Promise<{ result: T; problems: Problems }> {
  const page: AnyPage = await browser.newPage();
  const problems = watch(page);
  try {
    await page.goto(url, { timeout: 15000 });
    const result = await readResult<T>(page, '__result', 30000);
    return { result, problems };
  } finally {
    await page.close();
  }
}

/**
 * Runs `node SCRIPT ARGS...` from the repository root (a build script such as
 * examples/browser/build.mjs) and returns its standard output. Throws, with the
 * script's output, when it fails or runs past `timeoutMs`.
 */
export function runNodeScript(script: string, args: string[], timeoutMs = 60000): string {
  const r = spawnSync(process.execPath, [join(root, script), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  if (r.status !== 0) {
    const why = r.error ? r.error.message : `exit status ${r.status}, signal ${r.signal}`;
    throw new Error(`node ${script} ${args.join(' ')} failed (${why}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

/**
 * Records every `securitypolicyviolation` of the pages `page` opens from now on,
 * in the page's `window.__cspViolations`, read with `readCspViolations`.
 *
 * `watch` is not enough: Chromium logs blocked inline scripts, styles and loads
 * as console errors, but an `eval` or a WebAssembly compile that the CSP refuses
 * and the page catches leaves only this event. The listener is installed by an
 * init script (which the CSP does not apply to) and only listens.
 */
export async function recordCspViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`),
    );
  });
}

/** The violations `recordCspViolations` has seen in the page's current document. */
export function readCspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const seen = (window as unknown as { __cspViolations?: string[] }).__cspViolations;
    return seen ? [...seen] : ['(not recording: call recordCspViolations before opening the page)'];
  });
}

/**
 * The id a shipped .wasm of dist/ carries in its 'cuckoo-wasm' custom section (scripts/build.mjs:
 * package version + hash of the module), which the bundles that embed that module hold as a string
 * (CUCKOO_WASM_ID). Throws when the file has no such section.
 */
export function wasmId(file: string): string {
  const bytes = readFileSync(file);
  // A section: id (1 byte), size (LEB128), contents; a custom section (id 0) starts with its name (WebAssembly core spec §5.5.3).
  const leb = (at: number): [number, number] => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[at++];
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return [value, at];
    }
  };
  for (let at = 8; at < bytes.length; ) {
    const id = bytes[at];
    const [size, contents] = leb(at + 1);
    if (id === 0) {
      const [nameLength, name] = leb(contents);
      if (bytes.toString('utf8', name, name + nameLength) === 'cuckoo-wasm') {
        return bytes.toString('utf8', name + nameLength, contents + size);
      }
    }
    at = contents + size;
  }
  throw new Error(`${file} has no 'cuckoo-wasm' custom section`);
}

/**
 * Which of the package's WebAssembly modules a built script embeds: 'reader' (dist/cuckoo-reader.wasm, the
 * `cuckoo-wasm/reader` entry's), 'full' (dist/cuckoo-core.wasm, the `cuckoo-wasm` entry's), 'both' or 'none'. Found
 * by the shipped file's id (which a bundler drops with initWasm when the app never calls it) or by the start of the
 * embedded base64 line (build/wasm/<name>.wasm.deflate, as scripts/build.mjs embeds it).
 */
export function embeddedModule(js: string): 'reader' | 'full' | 'both' | 'none' {
  const embeds = (name: string) =>
    js.includes(wasmId(join(root, 'dist', `${name}.wasm`))) ||
    js.includes(readFileSync(join(root, 'build', 'wasm', `${name}.wasm.deflate`)).toString('base64').slice(0, 400));
  const reader = embeds('cuckoo-reader');
  const full = embeds('cuckoo-core');
  return reader && full ? 'both' : reader ? 'reader' : full ? 'full' : 'none';
}

/** Real domain names for the pages: the first `n` of the full list when ../shared is there, else of the in-repo sample. */
export function realDomains(n: number): { source: string; domains: string[] } {
  const shared = join(root, '..', 'shared', 'data', 'blocklist_domains.txt');
  const sample = join(root, 'examples', 'data', 'blocklist-sample.txt');
  const path = existsSync(shared) ? shared : sample;
  const domains = readFileSync(path, 'utf8').split('\n').filter(Boolean).slice(0, n);
  return { source: path === shared ? 'shared/data/blocklist_domains.txt' : 'examples/data/blocklist-sample.txt', domains };
}

export type { Browser, BrowserContext, Page, FirefoxBrowser, FirefoxPage };
