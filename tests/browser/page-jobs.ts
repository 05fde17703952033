// The test pages of tests/browser/pages/ as every browser's tests use them: the
// data they fetch, the server that serves them under their CSPs, and what their
// published results must be (pages.test.ts in Chromium, firefox.test.ts in Firefox).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CuckooFilter } from 'cuckoo-wasm';
import { Mount, NO_WASM_CSP, Problems, STRICT_CSP, StaticServer, realDomains, root, serve } from './harness';

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
 * Serves the pages (/pages/), the browsers' build (/lib/cuckoo-wasm.mjs =
 * dist/index.mjs) and DIR's data (/data/) and bundle (/bundle/), plus `more`;
 * pages named /pages/no-wasm* under NO_WASM_CSP, everything else under STRICT_CSP.
 */
export function servePages(dir: string, more: Mount[] = []): Promise<StaticServer> {
  return serve(
    [
      { prefix: '/lib/cuckoo-wasm.mjs', path: join(root, 'dist', 'index.mjs') },
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
export function expectClean(r: JobResult, problems: Problems, reference: Reference): void {
  expect({ ok: r.ok, error: r.message }).toEqual({ ok: true, error: undefined });
  expect(r.falseNegatives).toBe(0);
  expect(r.batchFalseNegatives).toBe(0);
  expect(r.roundTripIdentical).toBe(true);
  expect(r.falsePositives / r.benign).toBeLessThan(0.003); // configured 0.1%
  expect({ added: r.added, byteLength: r.byteLength, falsePositives: r.falsePositives, bytesSha256: r.bytesSha256 }).toEqual(reference);
  expect(r.violations).toEqual([]);
  expect(problems).toEqual({ consoleErrors: [], pageErrors: [] });
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
  violations: string[];
}

/** Under a CSP without 'wasm-unsafe-eval', create() and fromBytes() reject promptly with a WasmLoadError that names the fix. */
export function expectWasmBlocked(result: NoWasmResult): void {
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
}
