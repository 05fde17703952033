// cuckoo-wasm in Chromium under the CSP a security-minded page sets:
// `script-src 'self' 'wasm-unsafe-eval'` (no 'unsafe-eval'). Each page runs its
// own script and publishes a result that the test only reads (harness.ts says why)
// and compares with the same job run in Node.js (page-jobs.ts).
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Browser, StaticServer, launchChromium, openPage, root } from './harness';
import {
  JobResult,
  NoWasmResult,
  Reference,
  WorkerResult,
  expectClean,
  expectWasmBlocked,
  expectWorkerClean,
  pagesDir,
  referenceJob,
  servePages,
  writePageData,
} from './page-jobs';

let tmp: string;
let browser: Browser;
let server: StaticServer;
/** The pages' job run in Node.js: what each page must publish. */
let reference: Reference;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cuckoo-browser-'));
  reference = await referenceJob(writePageData(tmp));

  // The esbuild bundle, made as an app would: the entry imports 'cuckoo-wasm',
  // resolved through node_modules and the package's "exports" map.
  const app = join(tmp, 'app');
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  symlinkSync(root, join(app, 'node_modules', 'cuckoo-wasm'), 'dir');
  cpSync(join(pagesDir, 'bundle-entry.js'), join(app, 'entry.js'));
  cpSync(join(pagesDir, 'job.js'), join(app, 'job.js'));
  await build({
    entryPoints: [join(app, 'entry.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outfile: join(tmp, 'bundle', 'bundle.js'),
    logLevel: 'warning',
  });

  server = await servePages(tmp);
  browser = await launchChromium();
}, 60000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Opens `path` on the test server (harness.ts openPage). */
const open = <T>(path: string) => openPage<T>(browser, server.origin + path);

test("ES module page under script-src 'self' 'wasm-unsafe-eval': build, query, round trip", async () => {
  const { result, problems } = await open<JobResult & { ms: number }>('/pages/esm.html');
  console.log(
    `esm page: ${result.added} added, ${result.falseNegatives} false negatives, ${result.falsePositives}/${result.benign} ` +
      `false positives, ${result.byteLength} bytes (${result.bitsPerItem?.toFixed(2)} bits/item), round trip identical ` +
      `${result.roundTripIdentical}, ${result.ms} ms`,
  );
  expectClean(result, problems, reference);
});

test('module Worker builds the filter and transfers toBytes().buffer; the page loads and queries it', async () => {
  const { result, problems } = await open<WorkerResult>('/pages/worker.html');
  console.log(
    `worker page: ${result.transferred} bytes transferred (sender's buffer now ${result.senderLengthAfter}), ` +
      `${result.falseNegatives} false negatives, ${result.falsePositives}/${result.benign} false positives`,
  );
  expectWorkerClean(result, problems, reference);
});

test('esbuild bundle importing cuckoo-wasm by name runs under the strict CSP', async () => {
  const { result, problems } = await open<JobResult>('/pages/bundle.html');
  console.log(`esbuild bundle page: ${result.added} added, ${result.falseNegatives} false negatives`);
  expectClean(result, problems, reference);
});

test("page under script-src 'self' (no wasm): create() and fromBytes(), and create() after initWasm(fetch(...)), reject promptly with WasmLoadError", async () => {
  const { result } = await open<NoWasmResult>('/pages/no-wasm.html');
  console.log(`no-wasm page: create ${result.create.settled} in ${result.create.ms} ms (${result.create.reason}); fromBytes ${result.fromBytes.settled} in ${result.fromBytes.ms} ms`);
  expectWasmBlocked(result);
});
