// cuckoo-wasm in Chromium under the CSP a security-minded page sets:
// `script-src 'self' 'wasm-unsafe-eval'` (no 'unsafe-eval'). Each page runs its
// own script and publishes a result that the test only reads (harness.ts says why).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import {
  Browser,
  NO_WASM_CSP,
  STRICT_CSP,
  StaticServer,
  launchChromium,
  readResult,
  realDomains,
  root,
  serve,
  watch,
} from './harness';

const pages = join(__dirname, 'pages');
let tmp: string;
let browser: Browser;
let server: StaticServer;
let members: string[];

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cuckoo-browser-'));
  // 20,000 real blocklisted domains as members; the public-domain OpenDNS list as non-members.
  const real = realDomains(20000);
  members = real.domains;
  const memberSet = new Set(members);
  const benign = readFileSync(join(root, 'examples/data/benign-opendns.txt'), 'utf8')
    .split('\n')
    .filter((d) => d && !memberSet.has(d));
  mkdirSync(join(tmp, 'data'));
  writeFileSync(join(tmp, 'data', 'members.txt'), members.join('\n'));
  writeFileSync(join(tmp, 'data', 'benign.txt'), benign.join('\n'));
  console.log(`browser pages: ${members.length} members from ${real.source}, ${benign.length} benign (OpenDNS)`);

  // The esbuild bundle, made as an app would: the entry imports 'cuckoo-wasm',
  // resolved through node_modules and the package's "exports" map.
  const app = join(tmp, 'app');
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  symlinkSync(root, join(app, 'node_modules', 'cuckoo-wasm'), 'dir');
  cpSync(join(pages, 'bundle-entry.js'), join(app, 'entry.js'));
  cpSync(join(pages, 'job.js'), join(app, 'job.js'));
  await build({
    entryPoints: [join(app, 'entry.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outfile: join(tmp, 'bundle', 'bundle.js'),
    logLevel: 'warning',
  });

  server = await serve(
    [
      { prefix: '/lib/cuckoo-wasm.mjs', path: join(root, 'dist', 'index.mjs') },
      { prefix: '/pages/', path: pages },
      { prefix: '/data/', path: join(tmp, 'data') },
      { prefix: '/bundle/', path: join(tmp, 'bundle') },
    ],
    (path) => (path.startsWith('/pages/no-wasm') ? NO_WASM_CSP : STRICT_CSP),
  );
  browser = await launchChromium();
}, 60000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

interface JobResult {
  ok: boolean;
  name?: string;
  message?: string;
  members: number;
  benign: number;
  added: number;
  falseNegatives: number;
  batchFalseNegatives: number;
  falsePositives: number;
  byteLength: number;
  bitsPerItem: number;
  roundTripIdentical: boolean;
  violations: string[];
}

/** Opens `path`, waits for its published result, and returns it with the page's console problems. */
async function open<T>(path: string) {
  const page = await browser.newPage();
  const problems = watch(page);
  try {
    await page.goto(server.origin + path, { timeout: 15000 });
    const result = await readResult<T>(page, '__result', 30000);
    return { result, problems };
  } finally {
    await page.close();
  }
}

function expectClean(r: JobResult, problems: { consoleErrors: string[]; pageErrors: string[] }) {
  expect({ ok: r.ok, error: r.message }).toEqual({ ok: true, error: undefined });
  expect(r.added).toBe(members.length);
  expect(r.falseNegatives).toBe(0);
  expect(r.batchFalseNegatives).toBe(0);
  expect(r.roundTripIdentical).toBe(true);
  expect(r.falsePositives / r.benign).toBeLessThan(0.003); // configured 0.1%
  expect(r.violations).toEqual([]);
  expect(problems).toEqual({ consoleErrors: [], pageErrors: [] });
}

test("ES module page under script-src 'self' 'wasm-unsafe-eval': build, query, round trip", async () => {
  const { result, problems } = await open<JobResult & { ms: number }>('/pages/esm.html');
  console.log(
    `esm page: ${result.added} added, ${result.falseNegatives} false negatives, ${result.falsePositives}/${result.benign} ` +
      `false positives, ${result.byteLength} bytes (${result.bitsPerItem?.toFixed(2)} bits/item), round trip identical ` +
      `${result.roundTripIdentical}, ${result.ms} ms`,
  );
  expectClean(result, problems);
});

test('module Worker builds the filter and transfers toBytes().buffer; the page loads and queries it', async () => {
  const { result, problems } = await open<JobResult & { transferred: number; senderLengthAfter: number }>(
    '/pages/worker.html',
  );
  console.log(
    `worker page: ${result.transferred} bytes transferred (sender's buffer now ${result.senderLengthAfter}), ` +
      `${result.falseNegatives} false negatives, ${result.falsePositives}/${result.benign} false positives`,
  );
  expectClean(result, problems);
  expect(result.transferred).toBe(result.byteLength);
  expect(result.senderLengthAfter).toBe(0); // transferred, not copied
});

test('esbuild bundle importing cuckoo-wasm by name runs under the strict CSP', async () => {
  const { result, problems } = await open<JobResult>('/pages/bundle.html');
  console.log(`esbuild bundle page: ${result.added} added, ${result.falseNegatives} false negatives`);
  expectClean(result, problems);
});

test("page under script-src 'self' (no wasm): create() and fromBytes() reject promptly with WasmLoadError", async () => {
  type Settled = { settled: string; name: string; code: string; reason: string; message: string; isWasmLoadError: boolean; ms: number };
  const { result } = await open<{ create: Settled; fromBytes: Settled; violations: string[] }>('/pages/no-wasm.html');
  console.log(`no-wasm page: create ${result.create.settled} in ${result.create.ms} ms (${result.create.reason}); fromBytes ${result.fromBytes.settled} in ${result.fromBytes.ms} ms`);
  for (const r of [result.create, result.fromBytes]) {
    expect(r).toMatchObject({
      settled: 'rejected',
      isWasmLoadError: true,
      name: 'WasmLoadError',
      code: 'ERR_WASM_LOAD',
      reason: 'csp-blocked',
    });
    expect(r.message).toContain("'wasm-unsafe-eval'");
    expect(r.ms).toBeLessThan(5000);
  }
  expect(result.violations.length).toBeGreaterThan(0); // the browser did refuse the compile
});
