// The browser suite Firefox and WebKit each run (firefox.test.ts, webkit.test.ts), on the pages of the Chromium tests
// (pages.test.ts) served the same way under the same CSPs: the job page, the module worker, the CSP refusal, and the
// end-to-end scenario every runtime runs (tests/runtimes/scenario.mjs) on both entries, each also with its module
// handed over by initWasm(fetch(...)). Each page runs its own script and publishes a result that the test only reads
// (harness.ts says why); each result must equal what Node.js gets (page-jobs.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenarioInputFile } from '../runtimes/input';
import { FirefoxBrowser, StaticServer, WebKitBrowser, openPage } from './harness';
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

export interface BrowserSuite {
  /** The browser's name in the messages: firefox, webkit. */
  name: string;
  launch(): Promise<FirefoxBrowser | WebKitBrowser>;
  /**
   * How the browser's refusal of WebAssembly under a CSP without 'wasm-unsafe-eval' shows: its
   * securitypolicyviolation event (undefined), or, for a browser that fires none, its message quoted in the error.
   */
  refusal?: string;
}

/** Defines the suite's set-up and tests for one browser (in the calling test file). */
export function browserSuite({ name, launch, refusal }: BrowserSuite): void {
  let tmp: string;
  let browser: FirefoxBrowser | WebKitBrowser | undefined;
  let server: StaticServer | undefined;
  /** The pages' job run in Node.js: what each page must publish. */
  let reference: Reference;
  /** The scenario's input, as tests/runtimes/input.ts made it (build/runtimes/input.json). */
  let scenarioInput: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), `cuckoo-${name}-`));
    reference = await referenceJob(writePageData(tmp));
    scenarioInput = scenarioInputFile();
    server = await servePages(tmp, scenarioMounts(scenarioInput));
    browser = await launch();
    console.log(`${name}: ${await browser.version()}`);
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
      `${name} esm page: ${result.added} added, ${result.falseNegatives} false negatives, ${result.falsePositives}/${result.benign} ` +
        `false positives, ${result.byteLength} bytes, round trip identical ${result.roundTripIdentical}, ${result.ms} ms`,
    );
    expectClean(result, problems, reference);
  });

  test('module Worker builds the filter and transfers toBytes().buffer; the page loads it: the same filter as Node.js builds', async () => {
    const { result, problems } = await open<WorkerResult>('/pages/worker.html');
    console.log(`${name} worker page: ${result.transferred} bytes transferred, ${result.falseNegatives} false negatives`);
    expectWorkerClean(result, problems, reference);
  });

  test("page under script-src 'self' (no wasm): create() and fromBytes(), and create() after initWasm(fetch(...)), reject promptly with WasmLoadError, reason csp-blocked", async () => {
    const { result } = await open<NoWasmResult>('/pages/no-wasm.html');
    console.log(`${name} no-wasm page: ${JSON.stringify(result)}`);
    expectWasmBlocked(result, refusal);
  });

  describe.each<Entry>(['cuckoo-wasm', 'cuckoo-wasm/reader'])('the runtime scenario on %s under the strict CSP', (entry) => {
    test.each([
      ['the bytes the entry embeds', false],
      ['initWasm(fetch(...)) of its .wasm', true],
    ])('its module from %s: ok, and the result Node.js gets on the same input', async (_, fetchWasm) => {
      const from = server!.requests.length;
      const { result, problems } = await open<ScenarioResult>(scenarioPage(entry, fetchWasm));
      console.log(`${name} scenario page (${entry}${fetchWasm ? ', initWasm(fetch)' : ''}): ${JSON.stringify(result)}`);
      expectScenarioAsNode(result, problems, nodeScenario(scenarioInput, entry));
      // The module came from the server exactly when the page fetched it for initWasm.
      expect(server!.requests.slice(from).includes(wasmPath(entry))).toBe(fetchWasm);
    });
  });
}
