// Statistics of the benchmarks: medians of runs, per-round ratios, the fastest
// of a few passes, samples and counts. Used by every entry point (run.mjs,
// worker.mjs, compare.mjs, floor.mjs, url.mjs, batch.mjs; and the browser
// benchmark's page, bench/browser/page.mjs, where the clock is performance.now()).

export const nowMs =
  typeof process !== 'undefined' && process.hrtime ? () => Number(process.hrtime.bigint()) / 1e6 : () => performance.now();

/**
 * CPU time of this process (user + system, all its threads), in ms: on a
 * shared machine, time spent waiting for a CPU is not counted (Node.js only).
 */
export const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e3;
};

/** count, median, min, max of finite numbers (nulls when there are none). */
export function stats(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return { count: 0, median: null, min: null, max: null };
  const mid = v.length >> 1;
  const median = v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  return { count: v.length, median, min: v[0], max: v[v.length - 1] };
}

/**
 * Median (min–max) over rounds of the per-round ratios a[i][aKey] / b[i][bKey]:
 * run i of one implementation against run i of the other, made in the same
 * round. Rounds where either run failed or lacks the metric are left out.
 */
export function pairedRatio(a, b, aKey, bKey = aKey) {
  const ratios = [];
  for (let i = 0; i < Math.min(a.length, b.length); ++i) {
    const x = a[i][aKey];
    const y = b[i][bKey];
    if (x && y && !a[i].error && !b[i].error) ratios.push(x / y);
  }
  return stats(ratios);
}

/**
 * Times `pass` (a lookup pass, which changes nothing) up to `passes` times,
 * stopping once `budgetMs` have been spent, and keeps the fastest pass: on a
 * shared machine the fastest pass is the one least disturbed by other
 * processes. Every pass's result must agree; `check` (untimed) turns a pass's
 * output into the value compared; `clock` (ms) is wall time unless given.
 */
export function bestOf(pass, { passes = 3, budgetMs = Infinity, check = (x) => x, clock = nowMs } = {}) {
  let best = Infinity;
  let result;
  let spent = 0;
  let done = 0;
  while (done < passes && (done === 0 || spent < budgetMs)) {
    const t0 = clock();
    const out = pass();
    const ms = clock() - t0;
    const res = check(out);
    if (done > 0 && res !== result) throw new Error(`lookup pass ${done + 1} answered ${res} where pass 1 answered ${result}`);
    result = res;
    best = Math.min(best, ms);
    spent += ms;
    ++done;
  }
  return { ms: best, result, passes: done };
}

/** Up to `max` evenly spaced elements of keys[from..to). */
export function sample(keys, from, to, max) {
  const len = to - from;
  if (len <= max) return keys.slice(from, to);
  const out = new Array(max);
  const step = len / max;
  for (let i = 0; i < max; ++i) out[i] = keys[from + Math.floor(i * step)];
  return out;
}

/** How many elements are truthy (hasAll's answers). */
export function countTrue(a) {
  let c = 0;
  for (let i = 0; i < a.length; ++i) if (a[i]) ++c;
  return c;
}

/** 95% Wilson score interval of k successes in n trials. */
export function wilson(k, n) {
  if (n === 0) return [0, 1];
  const z = 1.959964;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = (p + (z * z) / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [Math.max(0, c - h), Math.min(1, c + h)];
}

/** Bits per item of a Bloom filter with the standard m for false-positive rate p: −ln p / (ln 2)². */
export const bloomBitsFor = (p) => -Math.log(p) / (Math.LN2 * Math.LN2);

/** m and k of the standard Bloom filter for n items at ε: m = ⌈−n ln ε / (ln 2)²⌉, k = round(m/n · ln 2). */
export function bloomSizing(n, eps) {
  const bits = Math.ceil((-n * Math.log(eps)) / (Math.LN2 * Math.LN2));
  return { bits, hashes: Math.max(1, Math.round((bits / n) * Math.LN2)) };
}

/** The metrics of a run summarized as median, min, max over the runs that did not fail. */
const METRICS = ['addOps', 'hasOps', 'hasNonOps', 'addAllOps', 'hasAllOps', 'hasAllNonOps', 'deleteOps', 'fpr', 'falseNegatives', 'refused', 'serializedBytes', 'loadMs', 'rawBits'];
/** The correctness checks of a run, summarized as their worst value. */
const CHECKS = ['hasAllFalseNegatives', 'addAllFalseNegatives', 'loadFalseNegatives', 'deleteFalseNegatives', 'deleteMissing'];

/** Per-implementation summary of a config's runs: median, min, max of each metric. */
export function summarize(cfg) {
  return cfg.impls.map((impl) => {
    const res = cfg.results[impl];
    const ok = res.runs.filter((r) => !r.error);
    const pick = (f) => stats(ok.map(f).filter((v) => v != null && Number.isFinite(v)));
    const first = ok[0] ?? {};
    const row = {
      impl,
      name: res.name ?? impl,
      version: res.version,
      runs: ok.length,
      stopped: res.stopped,
      error: res.workerError ?? res.runs.find((r) => r.error)?.error,
      params: first.params ?? res.runs[0]?.params,
      lookupSample: res.lookupSample,
      memberSample: first.memberSample,
      nonMemberSample: first.nonMemberSample,
      fnChecked: first.fnChecked,
      memBits: pick((r) => ((r.memBytes ?? r.heapDelta) * 8) / cfg.n),
      memMeasured: ok.length > 0 && first.memBytes == null,
      memHow: first.memHow,
      heapBits: pick((r) => (r.heapDelta * 8) / cfg.n),
      serBits: pick((r) => (r.serializedBytes * 8) / cfg.n),
      checks: { loadCheck: first.loadCheck, deleteCheck: first.deleteCheck },
    };
    for (const k of METRICS) row[k] = pick((r) => r[k]);
    for (const k of CHECKS) row.checks[k] = pick((r) => r[k]).max;
    return row;
  });
}
