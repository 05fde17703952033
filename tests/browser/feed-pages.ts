// What the browser tests of feed following share (feed.test.ts for Chromium, feed-firefox.test.ts,
// feed-webkit.test.ts): the files the feed server serves to a page (tests/browser/pages/feed.html and feed.js, the
// browsers' builds, the scenario), and a page that follows the server's plan, reloaded each time the plan says
// 'reload', with what the test expects of its reports.
import { join } from 'node:path';
import { FeedTestServer, failuresOf, scenarioFile, summaryOf } from '../feed/feed-server';
import { AnyPage, readResult, root } from './harness';

/** The pages' files on the feed server: URL path → file. */
export const PAGE_FILES: Record<string, string> = {
  '/pages/feed.html': join(__dirname, 'pages', 'feed.html'),
  '/pages/feed.js': join(__dirname, 'pages', 'feed.js'),
  '/pages/job.js': join(__dirname, 'pages', 'job.js'),
  '/lib/cuckoo-wasm.mjs': join(root, 'dist', 'index.mjs'),
  '/lib/cuckoo-reader.mjs': join(root, 'dist', 'reader.mjs'),
  '/feed-scenario/follow-scenario.mjs': scenarioFile,
};

/** What a page publishes on window.__feedResult (follow-scenario.mjs's summary). */
export interface PageResult {
  ok: boolean;
  message?: string;
  last: 'end' | 'reload';
  ed25519: boolean;
  steps: number;
  failed: number;
  violations: string[];
}

/**
 * Opens feed.html (query `query`) in `page` and reads its result; opens it again (a reload: the same origin, so the
 * same IndexedDB) while the result says the plan asked for one. Returns each load's result.
 */
export async function followInPage(page: AnyPage, origin: string, query: string, timeoutMs = 60000): Promise<PageResult[]> {
  const results: PageResult[] = [];
  for (let load = 0; load < 5; ++load) {
    await page.goto(`${origin}/pages/feed.html?${query}`, { timeout: 15000 });
    const result = await readResult<PageResult>(page, '__feedResult', timeoutMs);
    results.push(result);
    if (!result.ok || result.last !== 'reload') break;
  }
  return results;
}

/**
 * Expects the standard plan followed (standardPlan of feed-server.ts): each step's report clean,
 * the counts of each way, no CSP violation, and `loads` runs of the client (page loads, worker starts) ending with the
 * plan's end.
 */
export function expectFollowed(name: string, server: FeedTestServer, results: PageResult[], { loads, ms }: { loads: number; ms: number }): void {
  const s = summaryOf(server.reports);
  console.log(`${name}: ${JSON.stringify(s)}, ${loads} run(s) of the client (page loads, worker starts), ${ms} ms in all`);
  expect(results.map((r) => r.message ?? '')).toEqual(results.map(() => ''));
  expect(failuresOf(server.reports)).toEqual([]);
  expect(results.map((r) => r.last)).toEqual([...Array(loads - 1).fill('reload'), 'end']);
  expect(results.every((r) => r.ok && r.failed === 0 && r.violations.length === 0)).toBe(true);
  expect(s.ed25519).toBe(true);
  // Feed A: 20 steps to version 20, 6 faults, 3 skips; feed B: 30 versions by the full file; A opened again (twice more after a reload).
  expect(s).toMatchObject({ steps: 60 + (loads - 1) * 2, patch: 20, full: 34, stored: 1 + (loads - 1) * 2, refused: 5 + (loads - 1), falseNegatives: 0 });
}
