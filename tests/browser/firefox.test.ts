// cuckoo-wasm in Firefox: Debian's firefox-esr, headless, driven over WebDriver
// BiDi by puppeteer-core, on the pages of the Chromium tests (pages.test.ts) served
// the same way under the same CSPs, and on the end-to-end scenario every runtime
// runs (tests/runtimes/scenario.mjs). Each page runs its own script and publishes a
// result that the test only reads (harness.ts says why).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenarioInputFile } from '../runtimes/input';
import { FirefoxBrowser, StaticServer, launchFirefox, openPage } from './harness';
import {
  JobResult,
  NoWasmResult,
  Reference,
  ScenarioResult,
  expectClean,
  expectScenarioAsNode,
  expectWasmBlocked,
  nodeScenario,
  referenceJob,
  scenarioMounts,
  scenarioPage,
  servePages,
  writePageData,
} from './page-jobs';

let tmp: string;
let browser: FirefoxBrowser | undefined;
let server: StaticServer | undefined;
/** The pages' job run in Node.js: what each page must publish. */
let reference: Reference;
/** The scenario's input, as tests/runtimes/input.ts made it (build/runtimes/input.json). */
let scenarioInput: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cuckoo-firefox-'));
  reference = await referenceJob(writePageData(tmp));
  scenarioInput = scenarioInputFile();
  server = await servePages(tmp, scenarioMounts(scenarioInput));
  browser = await launchFirefox();
  console.log(`firefox: ${await browser.version()}`);
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
    `firefox esm page: ${result.added} added, ${result.falseNegatives} false negatives, ${result.falsePositives}/${result.benign} ` +
      `false positives, ${result.byteLength} bytes, round trip identical ${result.roundTripIdentical}, ${result.ms} ms`,
  );
  expectClean(result, problems, reference);
});

test("page under script-src 'self' (no wasm): create() and fromBytes(), and create() after initWasm(fetch(...)), reject promptly with WasmLoadError, reason csp-blocked", async () => {
  const { result } = await open<NoWasmResult>('/pages/no-wasm.html');
  console.log(`firefox no-wasm page: create ${result.create.settled} (${result.create.reason}): ${result.create.message}`);
  expectWasmBlocked(result);
});

test('the runtime scenario on the browsers\' build under the strict CSP: ok, and the result Node.js gets on the same input', async () => {
  const { result, problems } = await open<ScenarioResult>(scenarioPage('cuckoo-wasm'));
  console.log(`firefox scenario page: ${JSON.stringify(result)}`);
  expectScenarioAsNode(result, problems, nodeScenario(scenarioInput, 'cuckoo-wasm'));
});
