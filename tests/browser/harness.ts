// Shared pieces of the browser tests: a static server on 127.0.0.1 that sets a
// Content-Security-Policy per response, Debian's Chromium launched through
// playwright-core, Debian's Firefox ESR launched through puppeteer-core (over
// WebDriver BiDi), Debian's WebKitGTK MiniBrowser driven over W3C WebDriver
// (plain HTTP calls to WebKitWebDriver, under Xvfb), and a watcher for console
// errors and CSP violations.
//
// Pages under test run their own scripts and publish results (on `window` or
// in the DOM); tests only read them with `evaluate`, because Playwright's and
// Puppeteer's `evaluate` (and WebDriver's Execute Script) are exempt from the
// page's CSP and would hide exactly the failures these tests look for.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

export const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';
export const XVFB = '/usr/bin/Xvfb';

/**
 * Debian's WebKitGTK MiniBrowser (package libwebkit2gtk-4.1-0, which webkit2gtk-driver depends on): it lives in
 * the architecture's library folder, /usr/lib/<triplet>/webkit2gtk-4.1/MiniBrowser. Undefined when not installed.
 */
export function miniBrowserPath(): string | undefined {
  for (const dir of readdirSync('/usr/lib')) {
    const path = join('/usr/lib', dir, 'webkit2gtk-4.1', 'MiniBrowser');
    if (existsSync(path)) return path;
  }
  return undefined;
}

/**
 * A page of WebKit: the WebDriver session's one window. `goto` navigates it, `evaluate` reads from it (WebDriver's
 * Execute Script), `close` leaves it on about:blank for the next page; one page at a time. It emits no console or
 * error events (WebDriver classic reports none), so `watch` cannot see its console: tests rely on what the page
 * records itself (its CSP violations, its errors in the published result).
 */
export interface WebKitPage {
  goto(url: string, options?: { timeout?: number }): Promise<void>;
  evaluate<R>(fn: (arg: string) => R, arg: string): Promise<R>;
  close(): Promise<void>;
}

/** WebKitGTK's MiniBrowser in a WebDriver session of its own WebKitWebDriver, on an Xvfb display of its own. */
export interface WebKitBrowser {
  newPage(): Promise<WebKitPage>;
  /** e.g. "MiniBrowser (WebKitGTK 2.50.6)" */
  version(): Promise<string>;
  /** Ends the session, then stops the driver and Xvfb (a MiniBrowser left behind exits with its display); safe to call twice. */
  close(): Promise<void>;
}

/** Stops a process the harness started: SIGTERM, then SIGKILL if it is still there after `graceMs`. */
async function stopProcess(child: ChildProcess | undefined, graceMs = 3000): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Starts Xvfb on a free display (it writes the number to fd 3: -displayfd) and returns it with the display. */
async function startXvfb(): Promise<{ xvfb: ChildProcess; display: string }> {
  const xvfb = spawn(XVFB, ['-displayfd', '3', '-nolisten', 'tcp', '-screen', '0', '1280x1024x24'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let log = '';
  xvfb.stderr!.on('data', (d) => (log += d));
  try {
    const display = await new Promise<string>((resolve, reject) => {
      let text = '';
      xvfb.stdio[3]!.on('data', (d) => {
        text += d;
        if (text.includes('\n')) resolve(`:${text.trim()}`);
      });
      xvfb.once('error', reject);
      xvfb.once('exit', (code, signal) => reject(new Error(`Xvfb exited (${code ?? signal}) before it had a display:\n${log}`)));
      setTimeout(() => reject(new Error(`Xvfb gave no display within 10 s:\n${log}`)), 10000).unref();
    });
    return { xvfb, display };
  } catch (e) {
    await stopProcess(xvfb);
    throw e;
  }
}

/** A port that was free a moment ago on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Launches Debian's WebKitGTK MiniBrowser (scripts/setup.sh --browser installs webkit2gtk-driver and xvfb):
 * Xvfb on a free display (MiniBrowser has no headless mode), WebKitWebDriver on a free port of 127.0.0.1, and a
 * session (capabilities `browserName: 'MiniBrowser'`, `webkitgtk:browserOptions` with the binary and
 * `--automation`), all driven by W3C WebDriver HTTP calls. Whatever fails, what was started is stopped again; the
 * processes are also killed if this Node.js exits without `close()`.
 */
export async function launchWebKit(): Promise<WebKitBrowser> {
  const binary = miniBrowserPath();
  if (!binary) throw new Error('no /usr/lib/*/webkit2gtk-4.1/MiniBrowser: run scripts/setup.sh --browser (Debian package webkit2gtk-driver)');
  let xvfb: ChildProcess | undefined;
  let driver: ChildProcess | undefined;
  let sessionUrl: string | undefined;
  const killAtExit = () => {
    for (const child of [driver, xvfb]) if (child?.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killAtExit);
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      try {
        if (sessionUrl) await fetch(sessionUrl, { method: 'DELETE', signal: AbortSignal.timeout(10000) }).catch(() => undefined);
      } finally {
        await stopProcess(driver);
        await stopProcess(xvfb); // a MiniBrowser left without a session exits with its display
        process.removeListener('exit', killAtExit);
      }
    })());
  try {
    const started = await startXvfb();
    xvfb = started.xvfb;
    const port = await freePort();
    driver = spawn(WEBKIT_DRIVER, [`--port=${port}`, '--host=local'], {
      env: { ...process.env, DISPLAY: started.display },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    driver.stdout!.on('data', (d) => (log += d));
    driver.stderr!.on('data', (d) => (log += d));
    const base = `http://127.0.0.1:${port}`;

    /** One WebDriver command; its `value`, or an Error with WebDriver's error and message (or the driver's output). */
    const command = async <T>(method: string, url: string, body?: unknown, timeoutMs = 30000): Promise<T> => {
      const what = `WebDriver ${method} ${url.slice(base.length)}`;
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers: body === undefined ? undefined : { 'content-type': 'application/json; charset=utf-8' },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (e) {
        throw new Error(`${what}: no answer within ${timeoutMs} ms (${e}); WebKitWebDriver's output:\n${log}`);
      }
      const { value } = (await response.json()) as { value: T & { error?: string; message?: string } };
      if (!response.ok) throw new Error(`${what}: ${value?.error}: ${value?.message}`);
      return value;
    };

    for (const deadline = Date.now() + 15000; ; ) {
      if (driver.exitCode !== null) throw new Error(`WebKitWebDriver exited (${driver.exitCode}):\n${log}`);
      const ready = await command<{ ready: boolean }>('GET', `${base}/status`, undefined, 2000).catch(() => undefined);
      if (ready?.ready) break;
      if (Date.now() > deadline) throw new Error(`WebKitWebDriver was not ready within 15 s:\n${log}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const session = await command<{ sessionId: string; capabilities: { browserVersion: string } }>('POST', `${base}/session`, {
      capabilities: {
        alwaysMatch: {
          browserName: 'MiniBrowser',
          'webkitgtk:browserOptions': { binary, args: ['--automation'] },
          timeouts: { pageLoad: 15000, script: 30000 },
        },
      },
    });
    sessionUrl = `${base}/session/${session.sessionId}`;
    const page: WebKitPage = {
      async goto(url, { timeout = 15000 } = {}) {
        await command('POST', `${sessionUrl}/timeouts`, { pageLoad: timeout });
        await command('POST', `${sessionUrl}/url`, { url }, timeout + 5000);
      },
      evaluate: (fn, arg) => command('POST', `${sessionUrl}/execute/sync`, { script: `return (${fn})(arguments[0]);`, args: [arg] }),
      close: () => command('POST', `${sessionUrl}/url`, { url: 'about:blank' }),
    };
    return {
      newPage: async () => page,
      version: async () => `MiniBrowser (WebKitGTK ${session.capabilities.browserVersion})`,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/** A page of any browser: Playwright's (Chromium), Puppeteer's (Firefox) or a WebKitPage. */
export type AnyPage = Page | FirefoxPage | WebKitPage;

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
export function watch(page: Page | FirefoxPage, problems: Problems = { consoleErrors: [], pageErrors: [] }): Problems {
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
    // null too: WebDriver's Execute Script answers null for undefined.
    if (value !== undefined && value !== null) return value as T;
    if (Date.now() > deadline) throw new Error(`the page published no window.${name} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Opens `url` in a new page of `browser`, waits for the result its own script
 * publishes on `window.__result`, and returns it with the page's console
 * problems (undefined for WebKit, whose WebDriver reports no console: see
 * WebKitPage). The page is closed either way.
 */
export async function openPage<T>(
  browser: Browser | FirefoxBrowser | WebKitBrowser,
  url: string,
): Promise<{ result: T; problems: Problems | undefined }> {
  const page: AnyPage = await browser.newPage();
  const problems = 'on' in page ? watch(page) : undefined;
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
