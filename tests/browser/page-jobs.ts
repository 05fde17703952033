// The test pages of tests/browser/pages/ as every browser's tests use them: the
// data they fetch, the server that serves them under their CSPs, and what their
// published results must be (pages.test.ts in Chromium, firefox.test.ts in Firefox).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CuckooFilter } from 'cuckoo-wasm';
import { scenarioPath } from '../runtimes/input';
import { Mount, NO_WASM_CSP, Problems, STRICT_CSP, StaticServer, realDomains, root, runNodeScript, serve } from './harness';

export const pagesDir = join(__dirname, 'pages');

/** The lists the pages fetch from /data/. */
export interface PageData {
  members: string[];
  benign: string[];
}

/**
 * Writes the pages' data into DIR/data: members.txt, 20,000 real blocklisted
 * domains, and benign.txt, the public-domain OpenDNS list less any member.
 *
 * @returns Both lists, as the pages will read them.
 */
export function writePageData(dir: string): PageData {
  const real = realDomains(20000);
  const members = real.domains;
  const memberSet = new Set(members);
  const benign = readFileSync(join(root, 'examples/data/benign-opendns.txt'), 'utf8')
    .split('\n')
    .filter((d) => d && !memberSet.has(d));
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'data', 'members.txt'), members.join('\n'));
  writeFileSync(join(dir, 'data', 'benign.txt'), benign.join('\n'));
  console.log(`browser pages: ${members.length} members from ${real.source}, ${benign.length} benign (OpenDNS)`);
  return { members, benign };
}

/**
 * Serves the pages (/pages/), the browsers' builds (/lib/cuckoo-wasm.mjs =
 * dist/index.mjs, /lib/cuckoo-reader.mjs = dist/reader.mjs, and their modules
 * /lib/cuckoo-core.wasm and /lib/cuckoo-reader.wasm for initWasm) and DIR's data
 * (/data/) and bundle (/bundle/), plus `more`; pages named /pages/no-wasm* under
 * NO_WASM_CSP, everything else under STRICT_CSP.
 */
export function servePages(dir: string, more: Mount[] = []): Promise<StaticServer> {
  return serve(
    [
      { prefix: '/lib/cuckoo-wasm.mjs', path: join(root, 'dist', 'index.mjs') },
      { prefix: '/lib/cuckoo-reader.mjs', path: join(root, 'dist', 'reader.mjs') },
      { prefix: '/lib/cuckoo-core.wasm', path: join(root, 'dist', 'cuckoo-core.wasm') },
      { prefix: '/lib/cuckoo-reader.wasm', path: join(root, 'dist', 'cuckoo-reader.wasm') },
      { prefix: '/pages/', path: pagesDir },
      { prefix: '/data/', path: join(dir, 'data') },
      { prefix: '/bundle/', path: join(dir, 'bundle') },
      ...more,
    ],
    (path) => (path.startsWith('/pages/no-wasm') ? NO_WASM_CSP : STRICT_CSP),
  );
}

/** What pages/job.js publishes: a filter built from the members, serialized, loaded back and queried. */
export interface JobResult {
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
  bytesSha256: string;
  violations: string[];
}

/** The job of pages/job.js (build, then query) run here in Node.js: what a page must publish. */
export interface Reference {
  added: number;
  byteLength: number;
  falsePositives: number;
  bytesSha256: string;
}

/** Runs the pages' job in Node.js on `data`, with the options pages/job.js gives create(). */
export async function referenceJob({ members, benign }: PageData): Promise<Reference> {
  const filter = await CuckooFilter.create({ capacity: members.length, falsePositiveRate: 0.001 });
  try {
    const added = filter.addAll(members);
    const falsePositives = benign.filter((d) => filter.has(d)).length;
    const bytes = filter.toBytes();
    return { added, byteLength: filter.byteLength, falsePositives, bytesSha256: createHash('sha256').update(bytes).digest('hex') };
  } finally {
    filter.dispose();
  }
}

/**
 * A job that ran as it must: every member added and found, the bytes round-trip,
 * ε near 0.1%, nothing refused or logged; and the filter is the one Node.js builds
 * from the same lists, byte for byte, with the same false positives.
 */
export function expectClean(r: JobResult, problems: Problems | undefined, reference: Reference): void {
  expect({ ok: r.ok, error: r.message }).toEqual({ ok: true, error: undefined });
  expect(r.falseNegatives).toBe(0);
  expect(r.batchFalseNegatives).toBe(0);
  expect(r.roundTripIdentical).toBe(true);
  expect(r.falsePositives / r.benign).toBeLessThan(0.003); // configured 0.1%
  expect({ added: r.added, byteLength: r.byteLength, falsePositives: r.falsePositives, bytesSha256: r.bytesSha256 }).toEqual(reference);
  expect(r.violations).toEqual([]);
  expectNoProblems(problems);
}

/** No console errors or uncaught errors, where the browser's driver reports them (undefined: it does not, see harness.ts). */
export function expectNoProblems(problems: Problems | undefined): void {
  if (problems) expect(problems).toEqual<Problems>({ consoleErrors: [], pageErrors: [] });
}

/** What pages/worker-page.js publishes: the job's result and how the worker's bytes came. */
export type WorkerResult = JobResult & { transferred: number; senderLengthAfter: number };

/** The worker page's job ran as it must (expectClean), and the worker's bytes were transferred, not copied. */
export function expectWorkerClean(r: WorkerResult, problems: Problems | undefined, reference: Reference): void {
  expectClean(r, problems, reference);
  expect(r.transferred).toBe(r.byteLength);
  expect(r.senderLengthAfter).toBe(0); // a transfer detaches the sender's buffer
}

/** How one call of pages/no-wasm.js settled. */
export interface Settled {
  settled: string;
  name: string;
  code: string;
  reason: string;
  message: string;
  isWasmLoadError: boolean;
  ms: number;
}

/** What pages/no-wasm.js publishes. */
export interface NoWasmResult {
  create: Settled;
  fromBytes: Settled;
  /** initWasm(fetch('/lib/cuckoo-core.wasm')), then create(). */
  handed: Settled;
  violations: string[];
}

/**
 * Under a CSP without 'wasm-unsafe-eval', create() and fromBytes(), and create() after initWasm(fetch(...)), reject
 * promptly with a WasmLoadError that names the fix; and the browser did refuse: it fired a securitypolicyviolation
 * event (Chromium, Firefox), or, given `refusal`, the error quotes the browser's own refusal (WebKit, which fires
 * the event for eval but none for WebAssembly).
 */
export function expectWasmBlocked(result: NoWasmResult, refusal?: string): void {
  for (const r of [result.create, result.fromBytes, result.handed]) {
    expect(r).toMatchObject({
      settled: 'rejected',
      isWasmLoadError: true,
      name: 'WasmLoadError',
      code: 'ERR_WASM_LOAD',
      reason: 'csp-blocked',
    });
    expect(r.message).toContain("'wasm-unsafe-eval'");
    expect(r.ms).toBeLessThan(5000);
    if (refusal) expect(r.message).toContain(refusal);
  }
  if (!refusal) expect(result.violations.length).toBeGreaterThan(0);
}

/** The package's two entries, as an app imports them. */
export type Entry = 'cuckoo-wasm' | 'cuckoo-wasm/reader';

/** What the scenario page needs besides servePages' mounts: tests/runtimes/scenario.mjs, and INPUT (tests/runtimes/input.ts made it). */
export function scenarioMounts(input: string): Mount[] {
  return [
    { prefix: '/runtimes/scenario.mjs', path: scenarioPath },
    { prefix: '/runtimes/input.json', path: input },
  ];
}

/**
 * The scenario page (pages/scenario.js) on `entry`'s build (/lib/cuckoo-wasm.mjs or /lib/cuckoo-reader.mjs); with
 * `fetchWasm`, the page first hands it its module with initWasm(fetch('/lib/cuckoo-core.wasm' or
 * '/lib/cuckoo-reader.wasm')).
 */
export function scenarioPage(entry: Entry, fetchWasm = false): string {
  const query = [entry === 'cuckoo-wasm/reader' ? 'entry=reader' : '', fetchWasm ? 'init=fetch' : ''].filter(Boolean).join('&');
  return `/pages/scenario.html${query ? `?${query}` : ''}`;
}

/** The .wasm the scenario page fetches for `entry` when it calls initWasm. */
export function wasmPath(entry: Entry): string {
  return entry === 'cuckoo-wasm/reader' ? '/lib/cuckoo-reader.wasm' : '/lib/cuckoo-core.wasm';
}

/** What runScenario returns (tests/runtimes/scenario.mjs), as pages/scenario.js publishes it. */
export type ScenarioResult = { ok: boolean; failures: string[]; ms: number; violations: string[] } & Record<string, unknown>;

const nodeScenarios = new Map<string, Record<string, unknown>>();

/**
 * Node.js's result of the scenario on INPUT with `entry` (tests/runtimes/host.mjs, which imports the package by
 * that name: dist/node.mjs or dist/reader-node.mjs), run once per input and entry.
 */
export function nodeScenario(input: string, entry: Entry): Record<string, unknown> {
  const key = `${input}\n${entry}`;
  if (!nodeScenarios.has(key)) {
    nodeScenarios.set(key, JSON.parse(runNodeScript('tests/runtimes/host.mjs', [input, entry]).trim().split('\n').pop()!));
  }
  return nodeScenarios.get(key)!;
}

/**
 * A scenario page's result: ok, and the one Node.js gets (`node`, from nodeScenario) field for field but the
 * time it took; no CSP violation, no console problem.
 */
export function expectScenarioAsNode(result: ScenarioResult, problems: Problems | undefined, node: Record<string, unknown>): void {
  expect({ ok: result.ok, failures: result.failures }).toEqual({ ok: true, failures: [] });
  const { ms, violations, ...browser } = result;
  const { ms: nodeMs, runtime, resolved, ...nodeResult } = node;
  void ms, nodeMs, runtime, resolved;
  expect(browser).toEqual(nodeResult);
  expect(violations).toEqual([]);
  expectNoProblems(problems);
}
