// What bench/ab.mjs (two builds) and bench/reader.mjs (the reader against the full entry) share: the same
// workload, the same timing and the same per-round ratio lines, so that their figures compare.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The interleaved benchmarks' keys, from `dir` (../shared/data): the first n blocklisted domains (members), the
 * first n benign ones, the two interleaved (queries); the distinct phishing URLs, and URL queries interleaving each
 * with a benign host's URL (one of four paths).
 */
export function abWorkload(dir, n) {
  const lines = (f) => readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l.length > 0);
  const members = lines('blocklist_domains.txt').slice(0, n);
  const benign = lines('benign_domains.txt').slice(0, n);
  const queries = [];
  for (let i = 0; i < Math.max(members.length, benign.length); i++) {
    if (i < members.length) queries.push(members[i]);
    if (i < benign.length) queries.push(benign[i]);
  }
  const urls = [...new Set(lines('phishing_urls.txt'))];
  const tails = ['', 'index.html', 'a/b/c.php?x=1', 'login#top'];
  const urlQueries = [];
  for (let i = 0; i < urls.length; i++) {
    urlQueries.push(urls[i]);
    urlQueries.push(`https://${benign[i % benign.length]}/${tails[i % tails.length]}`);
  }
  return { members, benign, queries, urls, urlQueries };
}

/** ns per item of fn() over `count` items, the fastest of 3 passes. */
export function time(fn, count) {
  let best = Infinity;
  for (let p = 0; p < 3; p++) {
    const t = performance.now();
    fn();
    best = Math.min(best, performance.now() - t);
  }
  return (best * 1e6) / count;
}

export const sorted = (a) => [...a].sort((x, y) => x - y);
export const median = (a) => {
  const s = sorted(a);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const fixed = (x, d = 1) => x.toFixed(d);

/**
 * Prints a row: `k`, A's and B's min and median (columns `widths` wide), and B/A, the median of the per-round
 * ratios with their min–max, in `unit`.
 */
export function ratioLine(k, a, b, unit, d, widths = [13, 6, 6]) {
  const [kw, aw, bw] = widths;
  const ratios = a.map((x, j) => b[j] / x);
  const rs = sorted(ratios);
  console.log(
    `${k.padEnd(kw)} ${fixed(Math.min(...a), d).padStart(aw)} ${fixed(median(a), d).padStart(aw)}  ` +
      `${fixed(Math.min(...b), d).padStart(bw)} ${fixed(median(b), d).padStart(bw)}   ` +
      `${fixed(median(ratios), 3)} (${fixed(rs[0], 3)}-${fixed(rs[rs.length - 1], 3)}) ${unit}`,
  );
}
