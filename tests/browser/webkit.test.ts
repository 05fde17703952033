// cuckoo-wasm in WebKit (Safari's engine): Debian's WebKitGTK MiniBrowser under Xvfb, driven over W3C WebDriver
// (harness.ts launchWebKit), on the pages of the Chromium and Firefox tests served the same way under the same
// CSPs: the job page, the module worker, the CSP refusal, and the end-to-end scenario every runtime runs
// (tests/runtimes/scenario.mjs) on both entries, each also with its module handed over by initWasm(fetch(...)).
// Each page runs its own script and publishes a result that the test only reads (harness.ts says why).
// WebDriver reports no console, so the pages' own records (CSP violations, errors in the result) are what shows a
// problem here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenarioInputFile } from '../runtimes/input';
import { StaticServer, WebKitBrowser, launchWebKit, openPage } from './harness';
import {
  Entry,
  JobResult,
  NoWasmResult,
  Reference,
  ScenarioResult,
  WorkerResult,
  expectClean,
  expectScenarioAsNode,
  expectWasmBlocked,
  expectWorkerClean,
  nodeScenario,
  referenceJob,
  scenarioMounts,
  scenarioPage,
  servePages,
  wasmPath,
  writePageData,
} from './page-jobs';

let tmp: string;
let browser: WebKitBrowser | undefined;
let server: StaticServer | undefined;
/** The pages' job run in Node.js: what each page must publish. */
let reference: Reference;
/** The scenario's input, as tests/runtimes/input.ts made it (build/runtimes/input.json). */
let scenarioInput: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cuckoo-webkit-'));
  reference = await referenceJob(writePageData(tmp));
  scenarioInput = scenarioInputFile();
  server = await servePages(tmp, scenarioMounts(scenarioInput));
  browser = await launchWebKit();
  console.log(`webkit: ${await browser.version()}`);
}, 60000);

afterAll(async () => {
  try {
    await browser?.close();
  } finally {
    await server?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});

/** Opens `path` on the test server (harness.ts openPage). */
const open = <T>(path: string) => openPage<T>(browser!, server!.origin + path);

test("ES module page under script-src 'self' 'wasm-unsafe-eval': the same filter as Node.js builds, no false negatives, round trip identical", async () => {
  const { result, problems } = await open<JobResult & { ms: number }>('/pages/esm.html');
  console.log(
    `webkit esm page: ${result.added} added, ${result.falseNegatives} false negatives, ${result.falsePositives}/${result.benign} ` +
      `false positives, ${result.byteLength} bytes, round trip identical ${result.roundTripIdentical}, ${result.ms} ms`,
  );
  expectClean(result, problems, reference);
});

test('module Worker builds the filter and transfers toBytes().buffer; the page loads it: the same filter as Node.js builds', async () => {
  const { result, problems } = await open<WorkerResult>('/pages/worker.html');
  console.log(`webkit worker page: ${result.transferred} bytes transferred, ${result.falseNegatives} false negatives`);
  expectWorkerClean(result, problems, reference);
});

test("page under script-src 'self' (no wasm): create() and fromBytes(), and create() after initWasm(fetch(...)), reject promptly with WasmLoadError, reason csp-blocked", async () => {
  const { result } = await open<NoWasmResult>('/pages/no-wasm.html');
  console.log(`webkit no-wasm page: ${JSON.stringify(result)}`);
  // WebKit refuses to instantiate (it compiles), and fires no securitypolicyviolation event for it: its
  // message, quoted in the error, is the sign that the browser refused.
  expectWasmBlocked(result, 'Refused to create a WebAssembly object');
});

describe.each<Entry>(['cuckoo-wasm', 'cuckoo-wasm/reader'])('the runtime scenario on %s under the strict CSP', (entry) => {
  test.each([
    ['the bytes the entry embeds', false],
    ['initWasm(fetch(...)) of its .wasm', true],
  ])('its module from %s: ok, and the result Node.js gets on the same input', async (_, fetchWasm) => {
    const from = server!.requests.length;
    const { result, problems } = await open<ScenarioResult>(scenarioPage(entry, fetchWasm));
    console.log(`webkit scenario page (${entry}${fetchWasm ? ', initWasm(fetch)' : ''}): ${JSON.stringify(result)}`);
    expectScenarioAsNode(result, problems, nodeScenario(scenarioInput, entry));
    // The module came from the server exactly when the page fetched it for initWasm.
    expect(server!.requests.slice(from).includes(wasmPath(entry))).toBe(fetchWasm);
  });
});
