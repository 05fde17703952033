// The benchmark runner, three parts, all by default: cuckoo-wasm side by side
// with the approximate-membership filters on npm, on real domain lists and real
// phishing URLs (--only main); the Bloom-or-cuckoo comparison of this package's
// two filters (--only compare: sizes and measured rates across ε by
// bench/compare.mjs, fill curves, speed against each other, against bloomfilter
// at the same m and k, and grown 8× past capacity); and the URL benchmark
// (--only url: bench/url.mjs, which writes bench/results/url.md); and the patch
// sizes of blocklist updates (--only patch: bench/patch.mjs, which writes
// bench/results/patch.md).
//
//   npm run bench                          # every part, every config
//   node bench/run.mjs --only compare      # the comparison alone (about 3 minutes)
//   node bench/run.mjs --impl cuckoo-wasm,bloomfilter --eps 0.001 --native --only main
//
// Every implementation runs in its own process (bench/worker.mjs, one adapter of
// bench/adapters.mjs), in rounds (bench/rounds.mjs); ratios are medians of
// per-round ratios (bench/stats.mjs). Writes bench/results/results.md (one part
// run alone keeps the other's section), chart.svg, bloom-vs-cuckoo.svg and
// fill.svg; raw per-run numbers in bench/results/tmp/*.json (not committed).
// Options, method and columns: bench/README.md; --help prints its "Run it" section.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync, constants as zc } from 'node:zlib';
import { ADAPTERS, DEFAULT_IMPLS, bloomFilterSize } from './adapters.mjs';
import { KEY_KINDS, ROOT, locateData, urlCount } from './data.mjs';
import { renderChart, renderFillChart, renderTradeoffChart } from './chart.mjs';
import { CUCKOOS, SWEEP_EPS, fillMarkdown, markdown as sweepMarkdown } from './compare.mjs';
import { MAIN_COLUMNS, cpuBusy, epsLabel, fmtNum, fmtPct, fmtInt, loadAverage, machine, madeBy, markdownTable, notesFor, opsCell, ratioCell, resultsTable } from './report.mjs';
import { Worker, rotate } from './rounds.mjs';
import { nowMs, pairedRatio, stats, summarize } from './stats.mjs';

const { values: opt } = parseArgs({
  options: {
    n: { type: 'string', default: '100000,1000000' },
    eps: { type: 'string', default: '0.01,0.001' },
    keys: { type: 'string', default: KEY_KINDS.join(',') },
    runs: { type: 'string', default: '5' },
    impl: { type: 'string', default: DEFAULT_IMPLS.join(',') },
    budget: { type: 'string', default: '15' },
    native: { type: 'boolean', default: false },
    data: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'bench', 'results') },
    'no-write': { type: 'boolean', default: false },
    'no-floor': { type: 'boolean', default: false },

    'sample-slow': { type: 'string', default: '100000' },
    'capacity-factor': { type: 'string', default: '1' },
    timeout: { type: 'string', default: '900' }, // seconds per worker message before it is killed
    only: { type: 'string' },
    'compare-n': { type: 'string', default: '100000' },
    'compare-eps': { type: 'string', default: SWEEP_EPS.join(',') },
    'non-members': { type: 'string', default: '10000000' },
    'fill-capacity': { type: 'string', default: '50000' },
    'fill-eps': { type: 'string', default: '0.01' },
    'speed-eps': { type: 'string', default: '0.01,0.001' },
    'growth-capacity': { type: 'string', default: '40000' },
    'compare-runs': { type: 'string', default: '9' },
    node: { type: 'string' }, // the Node.js major the whole run uses (scripts/node-versions.sh); default lts
    browser: { type: 'boolean', default: false }, // the browser benchmark alone (bench/browser.mjs)
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (opt.help) {
  const readme = readFileSync(join(ROOT, 'bench', 'README.md'), 'utf8');
  console.log(readme.slice(readme.indexOf('## Run it'), readme.indexOf('## Files')).trim());
  process.exit(0);
}

// --node: this runner, and so every worker and script it starts (process.execPath), run on that Node.js
// release: the one running already, or else the runner starts itself again on it (fetched into the cache once).
{
  const versions = join(ROOT, 'scripts', 'node-versions.sh');
  const release = spawnSync('bash', [versions, '--release', opt.node ?? 'lts'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (release.status !== 0) process.exit(2);
  if (process.version !== `v${release.stdout.trim()}`) {
    const bin = spawnSync('bash', [versions, opt.node ?? 'lts'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (bin.status !== 0) process.exit(1);
    process.stderr.write(`bench: on Node.js v${release.stdout.trim()} (--node ${opt.node ?? 'lts'}): ${bin.stdout.trim()}\n`);
    const child = spawnSync(bin.stdout.trim(), [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
    process.exit(child.status ?? 1);
  }
}

const NS = opt.n.split(',').map((s) => Number(s.replace(/_/g, '')));
const EPSS = opt.eps.split(',').map(Number);
const KINDS = opt.keys.split(',').map((s) => s.trim()).filter(Boolean);
for (const k of KINDS) if (!KEY_KINDS.includes(k)) throw new Error(`--keys: unknown '${k}'; known: ${KEY_KINDS.join(', ')}`);
const RUNS = Number(opt.runs);
const IMPLS = opt.impl.split(',').map((s) => s.trim()).filter(Boolean);
const BUDGET_S = Number(opt.budget);
const TIMEOUT_MS = Number(opt.timeout) * 1e3;
for (const n of NS) if (!Number.isInteger(n) || n < 1) throw new Error(`--n: bad value ${n}`);
for (const e of EPSS) if (!(e > 0 && e < 1)) throw new Error(`--eps: bad value ${e}`);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs: bad value ${opt.runs}`);
for (const i of IMPLS) if (!ADAPTERS[i]) throw new Error(`--impl: unknown '${i}'; known: ${Object.keys(ADAPTERS).join(', ')}`);
if (opt.only && !['main', 'compare', 'url', 'patch', 'batch'].includes(opt.only)) throw new Error(`--only: '${opt.only}' is not main, compare, url, patch or batch`);
const RUN_MAIN = opt.only === undefined || opt.only === 'main';
const RUN_COMPARE = opt.only === undefined || opt.only === 'compare';
const RUN_URL = opt.only === undefined || opt.only === 'url';
const RUN_PATCH = opt.only === undefined || opt.only === 'patch';
const RUN_BATCH = opt.only === undefined || opt.only === 'batch';
const SPEED_EPSS = opt['speed-eps'].split(',').map(Number);
const COMPARE_RUNS = Number(opt['compare-runs']);
if (!Number.isInteger(COMPARE_RUNS) || COMPARE_RUNS < 1) throw new Error(`--compare-runs: bad value ${opt['compare-runs']}`);
for (const e of [...SPEED_EPSS, Number(opt['fill-eps']), ...opt['compare-eps'].split(',').map(Number)]) if (!(e > 0 && e < 1)) throw new Error(`bad ε ${e}`);
if (!existsSync(join(ROOT, 'dist', 'index.mjs')) && (RUN_COMPARE || IMPLS.some((i) => i.startsWith('cuckoo-wasm')))) {
  throw new Error('dist/index.mjs is missing: run `bash scripts/build.sh` (or `npm run bench`, which builds first)');
}

const WORKER = join(ROOT, 'bench', 'worker.mjs');
const configName = (cfg) => `${cfg.keys === 'urls' ? 'urls-' : ''}n${cfg.n}-eps${cfg.eps}`;
const keysLabel = (keys) => (keys === 'urls' ? ' URLs' : '');

/** A worker.mjs process for one implementation at (n, ε, keys). */
function startWorker(impl, n, eps, keys, extraArgs = []) {
  const args = ['--impl', impl, '--n', String(n), '--eps', String(eps), '--keys', keys, ...extraArgs];
  if (opt.data) args.push('--data', opt.data);
  args.push('--sample-slow', opt['sample-slow'], '--capacity-factor', opt['capacity-factor']);
  return new Worker(impl, WORKER, args, { execArgv: ['--expose-gc', '--max-old-space-size=8192'], timeoutMs: TIMEOUT_MS });
}

/**
 * Runs implementations `impls` at one (n, ε): warm-ups in parallel, then timed rounds.
 * `workerArgs[impl]`: extra worker.mjs arguments for that implementation.
 */
async function runConfig(n, eps, keys, impls = IMPLS, workerArgs = {}, runs = RUNS, budgetS = BUDGET_S) {
  const label = `N = ${fmtInt(n)}${keysLabel(keys)}, ε = ${epsLabel(eps)}`;
  process.stderr.write(`\n${label}: starting ${impls.length} workers (load keys, warm up)\n`);
  const t0 = nowMs();
  const workers = impls.map((impl) => startWorker(impl, n, eps, keys, workerArgs[impl]));
  const results = {};
  await Promise.all(
    workers.map(async (w) => {
      const res = { impl: w.impl, runs: [], spentMs: 0 };
      results[w.impl] = res;
      try {
        Object.assign(res, (await w.ready).info);
      } catch (e) {
        res.workerError = e.info ?? { phase: 'start', message: e.message };
        process.stderr.write(`  ${w.impl}: FAILED to start: ${res.workerError.message}\n`);
        w.kill();
      }
    }),
  );
  const first = Object.values(results).find((r) => r.keys);
  if (first) {
    const k = first.keys;
    const digests = new Set(Object.values(results).filter((r) => r.keys).map((r) => r.keys.digest));
    if (digests.size > 1) throw new Error(`workers loaded different key sets: ${[...digests].join(', ')}`);
    const src = k.sample ? 'in-repo SAMPLE data (examples/data)' : 'full lists';
    process.stderr.write(
      `keys (${src}): ${fmtInt(k.members)} members` +
        (k.derivedMembers ? ` (${fmtInt(k.members - k.derivedMembers)} real + ${fmtInt(k.derivedMembers)} DERIVED by prefixing labels cdn., api., ... to real domains)` : '') +
        `, ${fmtInt(k.nonMembers)} non-members` +
        (k.excludedNonMembers ? ` (${fmtInt(k.excludedNonMembers)} benign lines excluded as exact members)` : '') +
        (k.derivedNonMembers ? ` (${fmtInt(k.derivedNonMembers)} DERIVED)` : '') +
        `; warm-up ${((nowMs() - t0) / 1e3).toFixed(1)} s\n`,
    );
  }
  let active = workers.filter((w) => !results[w.impl].workerError);
  for (let round = 0; round < runs && active.length; ++round) {
    process.stderr.write(`  round ${round + 1}/${runs}:`);
    for (const w of rotate(active, round)) {
      const res = results[w.impl];
      const rs = nowMs();
      try {
        const r = await w.run();
        res.runs.push(r);
        if (r.error) res.stopped = `error in ${r.error.phase}`;
      } catch (e) {
        res.workerError = e.info ?? { phase: `run ${round + 1}`, message: e.message };
        res.stopped = 'worker failed';
      }
      const ms = nowMs() - rs;
      res.spentMs += ms;
      process.stderr.write(` ${w.impl} ${(ms / 1e3).toFixed(1)}s${res.runs.at(-1)?.error ? ' (ERROR)' : ''};`);
      if (!res.stopped && budgetS > 0 && round + 1 < runs && res.spentMs + ms > budgetS * 1e3) {
        res.stopped = `time budget (${budgetS} s)`;
      }
      if (res.stopped) w.close(); // frees its memory before the next runs of the others
    }
    process.stderr.write('\n');
    active = active.filter((w) => !results[w.impl].stopped);
  }
  for (const w of workers) w.close();
  const elapsed = (nowMs() - t0) / 1e3;
  process.stderr.write(`${label}: ${elapsed.toFixed(1)} s\n`);
  return { n, eps, keys, label, impls, elapsedS: +elapsed.toFixed(1), results };
}

/** A config's table, with the native core's row when it ran. */
function tableFor(rows, native) {
  if (!native || native.error) return resultsTable(rows, MAIN_COLUMNS);
  const { metrics: m, counters: c } = native;
  return resultsTable(rows, MAIN_COLUMNS, [
    ['cuckoo core, native g++ -O3', String(native.repetitions), ...[m.Add, m.ContainMembers, m.ContainNonMembers, m.AddBatch, m.ContainBatch, m.Delete].map(opsCell),
      fmtPct(c.fpr), String(c.false_negatives), fmtNum(c.bits_per_item, 1), fmtNum(c.bits_per_item, 1), fmtInt(c.serialized_bytes), fmtNum(m.Deserialize?.medianMs, 2)],
  ]);
}

function gzipSizes() {
  const path = join(ROOT, 'dist', 'index.mjs');
  if (!existsSync(path)) return null;
  const src = readFileSync(path);
  return {
    file: 'dist/index.mjs',
    bytes: src.length,
    gzipDefault: gzipSync(src).length,
    gzip9: gzipSync(src, { level: zc.Z_BEST_COMPRESSION }).length,
  };
}

/**
 * cuckoo-wasm against bloomfilter, the fastest peer: medians (min–max) of the
 * per-round ratios of each config (run i of one against run i of the other).
 */
function ratios(configs) {
  const out = [];
  for (const cfg of configs) {
    const cw = cfg.results['cuckoo-wasm'];
    const bf = cfg.results.bloomfilter;
    if (!cw?.runs.length || !bf?.runs.length) continue;
    const rows = [
      ['has / has (members)', pairedRatio(cw.runs, bf.runs, 'hasOps', 'hasOps')],
      ['has / has (non-members)', pairedRatio(cw.runs, bf.runs, 'hasNonOps', 'hasNonOps')],
      ['hasAll / has', pairedRatio(cw.runs, bf.runs, 'hasAllOps', 'hasOps')],
      ['add / add', pairedRatio(cw.runs, bf.runs, 'addOps', 'addOps')],
      ['addAll / add', pairedRatio(cw.runs, bf.runs, 'addAllOps', 'addOps')],
    ];
    const cells = rows.map(([, r]) => ratioCell(r));
    out.push({ config: `N = ${fmtInt(cfg.n)}${keysLabel(cfg.keys)}, ε = ${epsLabel(cfg.eps)}`, cells, heads: rows.map(([h]) => h) });
  }
  return out;
}

/** Runs bench/`script` in its own node process (`node` flags first), said on stderr as "label: node bench/script args". */
function runScript(label, script, args, { node = [], ...options } = {}) {
  process.stderr.write(`${label}: node ${[`bench/${script}`, ...args].map((a) => (a.startsWith(ROOT) ? relative(ROOT, a) : a)).join(' ')}\n`);
  return spawnSync(process.execPath, [...node, join(ROOT, 'bench', script), ...args], options);
}

/** Runs bench/floor.mjs for one key set in its own process and returns its Markdown (or an error line). */
function runFloor(n, keys, extra = ['--part', 'cuckoo']) {
  const args = ['--n', String(n), '--keys', keys, ...extra, ...(opt.data ? ['--data', opt.data] : [])];
  const p = runScript('floor', 'floor.mjs', args, { node: ['--expose-gc'], encoding: 'utf8', maxBuffer: 16 << 20 });
  if (p.status !== 0) return `floor.mjs failed (exit ${p.status}): ${(p.stderr || '').trim().split('\n').slice(-2).join(' | ')}`;
  return p.stdout.trim();
}

/** Builds (bench/native/build.sh) and runs the native core benchmark for one config. */
function runNative(n, eps, binary) {
  const f = (() => {
    for (let b = 4; b <= 32; ++b) if (8 / 2 ** b <= eps) return b;
    return 32;
  })();
  const args = [`--n=${n}`, `--f=${f}`, '--b=4', '--benchmark_format=json', `--benchmark_repetitions=${RUNS}`];
  if (opt.data) args.push(`--data=${opt.data}`);
  process.stderr.write(`native: ${relative(ROOT, binary)} ${args.join(' ')}\n`);
  const p = spawnSync(binary, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (p.status !== 0) return { error: `exit ${p.status}: ${(p.stderr || '').trim().split('\n').slice(-3).join(' | ')}` };
  // Google Benchmark writes NaN (e.g. the cv of a counter that is always 0), which JSON lacks.
  const json = JSON.parse(p.stdout.replace(/:\s*-?nan\b/gi, ': null'));
  const metrics = {};
  const counters = {};
  for (const b of json.benchmarks) {
    if (b.run_type !== 'iteration') continue;
    const name = b.run_name.split('/')[0].replace(/^BM_/, '');
    const m = (metrics[name] ??= { values: [], ms: [] });
    if (b.items_per_second) m.values.push(b.items_per_second);
    m.ms.push(b.real_time * (b.time_unit === 'ns' ? 1e-6 : b.time_unit === 'us' ? 1e-3 : b.time_unit === 's' ? 1e3 : 1));
    if (name === 'ContainMembers') for (const k of ['fpr', 'expected_fpr', 'bits_per_item', 'serialized_bytes', 'load_factor']) counters[k] = b[k];
    // Every row checks that members are found (after Add, AddBatch, Delete of other keys, Deserialize).
    if (b.false_negatives != null) counters.false_negatives = Math.max(counters.false_negatives ?? 0, b.false_negatives);
  }
  const out = {};
  for (const [k, m] of Object.entries(metrics)) out[k] = { ...stats(m.values), medianMs: stats(m.ms).median };
  const keysLine = p.stderr.split('\n').find((l) => l.startsWith('keys:')) ?? '';
  return { f, b: 4, repetitions: RUNS, context: json.context, metrics: out, counters, keys: keysLine, digest: keysLine.match(/digest (\S+)/)?.[1] };
}

async function main() {
  if (opt.browser) {
    // The browser benchmark alone: its own runner (Chromium, a page under the strict CSP); writes results/browser.md.
    const args = ['--out', opt.out, '--runs', opt.runs, ...(opt.data ? ['--data', opt.data] : []), ...(opt['no-write'] ? ['--no-write'] : [])];
    process.exit(runScript('browser', 'browser.mjs', args, { stdio: 'inherit' }).status ?? 1);
  }
  const wall = nowMs();
  const mach = machine();
  const data = locateData(opt.data);
  process.stderr.write(
    `bench: ${IMPLS.join(', ')}; keys: ${KINDS.join(', ')}; N (domains) = ${NS.map(fmtInt).join(', ')}; ε = ${EPSS.map(epsLabel).join(', ')}; ${RUNS} runs; ` +
      `budget ${BUDGET_S || '∞'} s per implementation and config\n` +
      `machine: ${mach.cpu}, ${mach.cores} cores, ${mach.memoryGiB} GiB, node ${mach.node}, load average ${mach.loadAverageAtStart.join(' ')}\n` +
      `data: ${relative(ROOT, data.blocklist)}, ${relative(ROOT, data.benign)}${KINDS.includes('urls') && data.urls ? `, ${relative(ROOT, data.urls)}` : ''}${data.sample ? ' (IN-REPO SAMPLE: the full lists were not found)' : ''}\n` +
      `parts: ${[RUN_MAIN && 'main', RUN_COMPARE && 'compare', RUN_URL && 'url', RUN_PATCH && 'patch', RUN_BATCH && 'batch'].filter(Boolean).join(', ')}\n`,
  );
  mach.cpuBusyAtStart = await cpuBusy(1000);
  const busy = mach.cpuBusyAtStart > 0.25;
  if (busy) {
    process.stderr.write(
      `WARNING: the machine is busy (${fmtNum(mach.cpuBusyAtStart * 100, 0)}% of ${mach.cores} cores in use by other processes in the second before the start): they ` +
        'compete for the CPUs and caches, and they slow memory-bound lookups (Bloom filters probe k cache lines) more than others, so ratios shift. Rerun when it is idle.\n',
    );
  }
  const parts = {};
  if (RUN_MAIN) parts.main = await runMain(mach, busy, data);
  if (RUN_COMPARE) parts.compare = await runCompare(mach, busy, data);
  // The URL benchmark (bench/url.mjs, its own processes; it writes results/url.md), after the others so they do not compete.
  if (RUN_URL && data.urls) {
    const args = ['--out', opt.out];
    if (opt.data) args.push('--data', opt.data);
    if (opt['no-write']) args.push('--no-write');
    const p = runScript('\nurl', 'url.mjs', args, { stdio: 'inherit' });
    if (p.status !== 0) process.stderr.write(`bench/url.mjs failed (exit ${p.status})\n`);
  }
  // Patch sizes of blocklist updates (bench/patch.mjs, its own process; it writes results/patch.md).
  if (RUN_PATCH) {
    const args = [...(opt.data ? ['--data', opt.data] : []), ...(opt.out !== join(ROOT, 'bench', 'results') ? ['--out', opt.out] : []), ...(opt['no-write'] ? ['--no-write'] : [])];
    const p = runScript('\npatch', 'patch.mjs', args, { stdio: 'inherit' });
    if (p.status !== 0) process.stderr.write(`bench/patch.mjs failed (exit ${p.status})\n`);
  }
  // Batches against single calls on every Node.js version (bench/batch.mjs; it writes results/batch.md).
  if (RUN_BATCH) {
    const args = ['--out', opt.out, '--node', opt.node ?? 'all', ...(opt.data ? ['--data', opt.data] : []), ...(opt['no-write'] ? ['--no-write'] : [])];
    const p = runScript('\nbatch', 'batch.mjs', args, { stdio: 'inherit' });
    if (p.status !== 0) process.stderr.write(`bench/batch.mjs failed (exit ${p.status})\n`);
  }
  const totalS = (nowMs() - wall) / 1e3;
  console.log(`\ntotal wall time: ${fmtNum(totalS, 1)} s (${fmtNum(totalS / 60, 1)} min)`);
  if (opt['no-write'] || (!RUN_MAIN && !RUN_COMPARE)) return;
  // results.md: the main part, then the comparison's section; a part not run keeps its text from the file.
  const file = join(opt.out, 'results.md');
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const at = old.indexOf(COMPARE_START);
  const oldMain = (at >= 0 ? old.slice(0, at) : old).trimEnd();
  const oldCompare = at >= 0 ? old.slice(at).trimEnd() : '';
  const mainMd = parts.main?.md ?? (oldMain || '# Benchmark results\n\n(The side-by-side benchmark has not been run: `node bench/run.mjs --only main`.)');
  const compareMd = parts.compare?.md ?? oldCompare;
  mkdirSync(opt.out, { recursive: true });
  writeFileSync(file, `${mainMd.trimEnd()}\n${compareMd ? `\n${compareMd.trimEnd()}\n` : ''}`);
  process.stderr.write(`wrote ${relative(ROOT, file)}\n`);
}

/** The side-by-side benchmark of every implementation: runs it, writes chart.svg and raw JSON, returns its Markdown. */
async function runMain(mach, busy, data) {
  const wall = nowMs();
  let nativeBinary;
  if (opt.native) {
    process.stderr.write('native: bash bench/native/build.sh\n');
    nativeBinary = execFileSync('bash', [join(ROOT, 'bench', 'native', 'build.sh')], { encoding: 'utf8' }).trim().split('\n').at(-1);
  }
  const configs = [];
  for (const keys of KINDS) {
    if (keys === 'domains') for (const n of NS) for (const eps of EPSS) configs.push(await runConfig(n, eps, keys));
    if (keys !== 'urls') continue;
    const urls = urlCount(opt.data);
    if (urls === 0) process.stderr.write('\nURL keys skipped: no phishing_urls.txt beside the domain lists\n');
    else for (const eps of EPSS) configs.push(await runConfig(urls, eps, keys));
  }
  const summaries = new Map(configs.map((c) => [c, summarize(c)]));
  // core_bench implements the domain key rule only.
  if (opt.native) for (const c of configs) if (c.keys === 'domains') c.native = runNative(c.n, c.eps, nativeBinary);
  const ratioRows = ratios(configs);
  const floors = [];
  if (!opt['no-floor']) {
    const sets = [...new Map(configs.map((c) => [`${c.keys}:${c.n}`, c])).values()];
    for (const c of sets) floors.push(runFloor(c.n, c.keys));
  }
  const totalS = (nowMs() - wall) / 1e3;
  mach.loadAverageAtEnd = loadAverage();

  // Markdown: tables, notes, native ratios, ratios against bloomfilter, floors.
  const md = [];
  md.push('# Benchmark results', '');
  // Only the start counts: during the run the benchmark itself keeps one core busy.
  if (busy) {
    md.push(
      `> **Busy machine**: other processes used ${fmtNum(mach.cpuBusyAtStart * 100, 0)}% of the ${mach.cores} cores in the second before the start. ` +
        'Other processes competed for the CPUs and caches; memory-bound lookups suffer most. Treat the ratios with care.',
      '',
    );
  }
  if (Number(opt['capacity-factor']) !== 1) {
    md.push(`> Filters were created for ${opt['capacity-factor']} × N items (\`--capacity-factor\`), so they are overfilled.`, '');
  }
  md.push(
    `Made by ${madeBy('run.mjs')} in ${fmtNum(totalS / 60, 1)} min on ${mach.cpu} (${mach.cores} cores, ${mach.memoryGiB} GiB), ` +
      `node ${mach.node} (V8 ${mach.v8}), ${mach.os}; CPU busy with other work in the second before the start: ${fmtNum(mach.cpuBusyAtStart * 100, 0)}% (load average ${mach.loadAverageAtStart.join(' ')} at start, ${mach.loadAverageAtEnd.join(' ')} at end, this benchmark included)` +
      `${mach.nice ? `; run at nice ${mach.nice}` : ''}. ` +
      `Data: ${data.sample ? 'the in-repo SAMPLE (examples/data)' : 'blocklist_domains.txt (members) and benign_domains.txt (non-members); for the URL configs phishing_urls.txt (members) and `https://<benign domain>/` (non-members); see ../shared/data/SOURCES.md'}. ` +
      'Cells: median of the runs (min–max); ops/s per single call unless the column says addAll/hasAll; memory cells with ~ are measured heap growth, not a structure size. See bench/README.md for what each column means.',
    '',
  );
  const text = [];
  for (const cfg of configs) {
    const rows = summaries.get(cfg);
    const k = Object.values(cfg.results).find((r) => r.keys)?.keys;
    const opt1 = Math.log2(1 / cfg.eps);
    const head = `## ${cfg.label}`;
    const sub =
      `Node.js ${mach.node}. Optimum for this ε: log2(1/ε) = ${fmtNum(opt1, 2)} bits per item (any filter); a Bloom filter needs 1.44·log2(1/ε) = ${fmtNum(opt1 / Math.LN2, 2)}. ` +
      (k
        ? `Keys: ${fmtInt(k.members)} members` +
          (k.derivedMembers ? ` (${fmtInt(k.members - k.derivedMembers)} real + ${fmtInt(k.derivedMembers)} derived by prefixing cdn., api., … to real domains)` : ' (real)') +
          `, ${fmtInt(k.nonMembers)} non-members${k.excludedNonMembers ? ` (${fmtInt(k.excludedNonMembers)} benign lines excluded: exact members)` : ''}.`
        : '') +
      ` Wall time for this config: ${fmtNum(cfg.elapsedS, 0)} s.`;
    const table = tableFor(rows, cfg.native);
    let nativeLine = '';
    if (cfg.native && !cfg.native.error) {
      const cw = rows.find((r) => r.impl === 'cuckoo-wasm');
      const m = cfg.native.metrics;
      const r = (a, b) => (a?.median && b?.median ? `${fmtNum(a.median / b.median, 2)}` : '—');
      const jsDigest = Object.values(cfg.results).find((x) => x.keys)?.keys.digest;
      const same = cfg.native.digest && cfg.native.digest === jsDigest;
      nativeLine =
        (same ? '' : `\n**native key set differs from the JS workers' (${cfg.native.digest} vs ${jsDigest})**`) +
        `\nwasm / native (same C++ core, f=${cfg.native.f}, b=4; medians): add ${r(cw?.addOps, m.Add)}, has members ${r(cw?.hasOps, m.ContainMembers)}, ` +
        `has non-members ${r(cw?.hasNonOps, m.ContainNonMembers)}, addAll/AddBatch ${r(cw?.addAllOps, m.AddBatch)}, hasAll/ContainBatch ${r(cw?.hasAllOps, m.ContainBatch)}, delete ${r(cw?.deleteOps, m.Delete)}.`;
    } else if (cfg.native?.error) nativeLine = `\nnative benchmark failed: ${cfg.native.error}`;
    md.push(head, '', sub, '', table, '', notesFor(rows), nativeLine, '');
    text.push(`\n${head}\n${sub}\n\n${table}\n\n${notesFor(rows)}${nativeLine}`);
  }
  md.push('* stopped early by the time budget (`--budget`); `--budget 0` runs every implementation `--runs` times.', '');
  md.push('## cuckoo-wasm against bloomfilter', '');
  md.push('Medians of per-round ratios (cuckoo-wasm run i against bloomfilter run i, same round), min–max over the rounds.', '');
  const ratioTable = ratioRows.length
    ? markdownTable(['config', ...ratioRows[0].heads], ratioRows.map((r) => [r.config, ...r.cells]))
    : '(needs both cuckoo-wasm and bloomfilter)';
  md.push(ratioTable, '');
  const gz = gzipSizes();
  if (gz) md.push(`Package size: ${gz.file} (the JS and the embedded wasm) is ${fmtInt(gz.bytes)} bytes, ${fmtInt(gz.gzipDefault)} gzipped (zlib default level).`, '');
  if (floors.length) {
    md.push('## Where the time of a lookup goes (floor.mjs)', '');
    for (const f of floors) md.push(f.replace(/^floor: /, '### '), '');
  }
  md.push('![member lookups per second and serialized bits per item](chart.svg)', '');
  const mdText = md.join('\n');

  console.log(text.join('\n'));
  console.log('\n## cuckoo-wasm against bloomfilter\n');
  console.log(ratioTable);
  for (const f of floors) console.log(`\n${f}`);

  if (!opt['no-write']) {
    const raw = join(opt.out, 'tmp');
    mkdirSync(raw, { recursive: true });
    for (const cfg of configs) {
      const config = { keys: cfg.keys, n: cfg.n, eps: cfg.eps, runs: RUNS, budgetS: BUDGET_S, implementations: IMPLS };
      const json = { config, machine: mach, elapsedS: cfg.elapsedS, summary: summaries.get(cfg), native: cfg.native, results: cfg.results };
      writeFileSync(join(raw, `${configName(cfg)}.json`), JSON.stringify(json, null, 1) + '\n');
    }
    writeFileSync(join(opt.out, 'chart.svg'), renderChart(configs.map((c) => ({ label: `N=${fmtInt(c.n)}${keysLabel(c.keys)}, ε=${epsLabel(c.eps)}`, eps: c.eps, rows: summaries.get(c) }))));
    process.stderr.write(`wrote ${relative(ROOT, opt.out)}/chart.svg; raw numbers: ${relative(ROOT, raw)}/*.json (not committed)\n`);
  }
  return { md: mdText };
}

/** First line of the comparison's section of results.md: a run of the main part alone keeps what follows it. */
const COMPARE_START = '<!-- bloom-or-cuckoo: written by node bench/run.mjs --only compare -->';
const COMPARE_IMPLS = ['cuckoo-wasm', 'cuckoo-wasm-semi', 'cuckoo-wasm-bloom', 'bloomfilter'];
const GROWTH_IMPLS = ['cuckoo-wasm', 'cuckoo-wasm-grown', 'cuckoo-wasm-bloom', 'cuckoo-wasm-bloom-grown'];
/** Lookup passes per run in the comparison's workers (the fastest within 250 ms is kept): more than the main part's 3, for the targets' ratios on a shared machine. */
const COMPARE_PASSES = ['--passes', '7'];
const SPEED_TARGET = 1.5; // BloomFilter.has ≥ 1.5× bloomfilter test()
const GROWTH_TARGET = 1.5; // lookups of a filter grown 8× cost at most 1.5× those of one sized for it

/** Runs bench/compare.mjs (sizes, measured rates, fill curves) in its own process; returns its result. */
function runSweep(rawDir) {
  mkdirSync(rawDir, { recursive: true });
  const json = join(rawDir, 'compare-sweep.json');
  const args = ['--n', opt['compare-n'], '--eps', opt['compare-eps'], '--non-members', opt['non-members'], '--fill-capacity', opt['fill-capacity'], '--fill-eps', opt['fill-eps'], '--json', json];
  if (opt.data) args.push('--data', opt.data);
  const p = runScript('\ncompare', 'compare.mjs', args, { node: ['--max-old-space-size=8192'], encoding: 'utf8', stdio: ['ignore', 'inherit', 'inherit'] });
  if (p.status !== 0) throw new Error(`bench/compare.mjs failed (exit ${p.status})`);
  return JSON.parse(readFileSync(json, 'utf8'));
}

const passCell = (ok) => (ok == null ? '—' : ok ? '**PASS**' : '**FAIL**');

/** A compact table of one comparison config: the four calls, both lookups, rate, size. */
function compareTable(cfg) {
  const rows = summarize(cfg);
  const columns = ['add/s', 'addAll/s', 'has/s members', 'has/s non-members', 'hasAll/s members', 'hasAll/s non-members', 'measured ε', 'false neg.', 'bits/item memory [2 decimals]', 'parameters'];
  return { rows, table: resultsTable(rows, columns) };
}

/** The Bloom-or-cuckoo comparison: sweep and fill (compare.mjs), then the timed configs; returns its Markdown section. */
async function runCompare(mach, busy, data) {
  const wall = nowMs();
  const rawDir = join(opt.out, 'tmp');
  const sweep = runSweep(rawDir);
  const speed = [];
  const kinds = [['domains', Number(opt['compare-n'])]];
  const urls = urlCount(opt.data);
  if (urls) kinds.push(['urls', urls]);
  else process.stderr.write('\ncompare: URL configs skipped: no phishing_urls.txt beside the domain lists\n');
  for (const [keys, n] of kinds) {
    for (const eps of SPEED_EPSS) {
      const size = { ...(await bloomFilterSize(n, eps)), optimal: (-n * Math.log(eps)) / (Math.LN2 * Math.LN2) };
      const args = Object.fromEntries(COMPARE_IMPLS.map((i) => [i, COMPARE_PASSES]));
      args.bloomfilter = [...COMPARE_PASSES, '--bloom-bits', String(size.bits), '--bloom-hashes', String(size.hashes)];
      const cfg = await runConfig(n, eps, keys, COMPARE_IMPLS, args, COMPARE_RUNS, 0);
      cfg.bloomSize = size;
      speed.push(cfg);
    }
  }
  const growthC = Number(opt['growth-capacity']);
  const growth = await runConfig(8 * growthC, SPEED_EPSS[0], 'domains', GROWTH_IMPLS, Object.fromEntries(GROWTH_IMPLS.map((i) => [i, COMPARE_PASSES])), COMPARE_RUNS, 0);
  const floors = opt['no-floor'] ? [] : kinds.map(([keys, n]) => runFloor(n, keys, ['--part', 'bloom', '--eps', String(SPEED_EPSS[0]), '--passes', '11', '--summary', 'min']));
  const totalS = (nowMs() - wall) / 1e3;
  const loadEnd = loadAverage();

  const md = [COMPARE_START, '', '## Bloom or cuckoo? (measured)', ''];
  if (busy) md.push(`> **Busy machine**: other processes used ${fmtNum(mach.cpuBusyAtStart * 100, 0)}% of the ${mach.cores} cores in the second before the start. Treat the speed ratios with care.`, '');
  md.push(
    `Made by ${madeBy('run.mjs')} (this section: ${fmtNum(totalS / 60, 1)} min) on ${mach.cpu} (${mach.cores} cores), node ${mach.node}; ` +
      `CPU busy with other work in the second before the start: ${fmtNum(mach.cpuBusyAtStart * 100, 0)}%; load average ${mach.loadAverageAtStart.join(' ')} at start, ${loadEnd.join(' ')} at end` +
      `${mach.nice ? `; run at nice ${mach.nice} (${mach.nice < 0 ? 'ahead of' : 'behind'} the other processes)` : ''}. ` +
      "This package's CuckooFilter and BloomFilter (dist/index.mjs) on the real lists; bench/README.md says how each number is made.",
    '',
  );

  // 1. Size and measured rate across ε.
  const sw = sweep.sweep;
  const rowsOf = (id) => sw.rows.filter((r) => r.id === id);
  const bloomRows = rowsOf('bloom');
  const bestCuckoo = (eps) => CUCKOOS.map(({ id }) => id).map((id) => sw.rows.find((r) => r.id === id && r.eps === eps)).reduce((a, b) => (b.bitsPerItem < a.bitsPerItem ? b : a));
  const below3 = bloomRows.filter((r) => r.eps < 0.03);
  const cuckooSmaller = below3.filter((r) => bestCuckoo(r.eps).bitsPerItem < r.bitsPerItem);
  const claimHolds = cuckooSmaller.length === below3.length;
  const maxNon = Math.max(...sw.rows.map((r) => r.nonMembers));
  const cross = sweep.sizes.crossover;
  const lfl = sw.likeForLike;
  md.push(
    '### Size and false-positive rate across ε',
    '',
    `Each filter is created for N = ${fmtInt(sw.n)} keys at ε and given the first ${fmtInt(sw.members)} domains of blocklist_domains.txt (\`addAll\`); bits per item = \`byteLength\` · 8 / keys added. ` +
      `The cuckoo filter's f is the smallest with 2b/2^f ≤ ε, so its bound 2b/2^f is at most ε (down to ε/2). ` +
      `The measured rate is false positives / non-members: all ${fmtInt(sw.realNonMembers)} real benign domains that are not members, and below ε = ${epsLabel(200 / sw.realNonMembers)} also derived ones ` +
      `(a label such as \`cdn.\` prefixed to a benign domain; never a member or a real benign domain) up to 200/ε keys, at most ${fmtInt(maxNon)}: ` +
      `at ε = 0.001% that is about ${fmtInt(maxNon * 1e-5)} expected false positives, a resolution of about ±${fmtNum(196 / Math.sqrt(maxNon * 1e-5), 0)}% (95%). Members looked up again: false negatives in every filter are counted (last column).`,
    '',
    sweepMarkdown(sweep),
    '',
    `- **The claim "the cuckoo filter is smaller than a Bloom filter when ε < 3%"** ${claimHolds ? '**holds** on this grid' : `**does not hold** here: at the configured ε the smallest cuckoo filter (b = 2, 4 or 8) is smaller only at ε = ${cuckooSmaller.map((r) => epsLabel(r.eps)).join(', ') || 'none'} of the ε < 3% measured`}. ` +
      `On a fine grid of ε (60 per decade, sizes only), the cuckoo filter with b = 4 is smaller for every ε ≤ ${cross['cuckoo-b4'].alwaysBelow ? epsLabel(cross['cuckoo-b4'].alwaysBelow) : '—'} ` +
      `(b = 2: ≤ ${cross['cuckoo-b2'].alwaysBelow ? epsLabel(cross['cuckoo-b2'].alwaysBelow) : '—'}, b = 8: ≤ ${cross['cuckoo-b8'].alwaysBelow ? epsLabel(cross['cuckoo-b8'].alwaysBelow) : '—'}); ` +
      `above that it is smaller at ${cross['cuckoo-b4'].smallerAbove} of ${cross['cuckoo-b4'].pointsAbove} grid points (just below a power of two of 2b/ε, where its integer f fits ε closely). ` +
      `Semi-sorted (b = 4): smaller for every ε ≤ ${cross['cuckoo-b4-semi'].alwaysBelow ? epsLabel(cross['cuckoo-b4-semi'].alwaysBelow) : '—'}, and at ${cross['cuckoo-b4-semi'].smallerAbove} of ${cross['cuckoo-b4-semi'].pointsAbove} grid points above that.`,
    `- **Like for like** (bits per item against the rate each filter measured, since the cuckoo filter's measured rate is below ε): against a Bloom filter for the same rate (−ln p/(ln 2)² bits per item, which BloomFilter's measured rates match), ` +
      `the cuckoo filter is smaller below a measured rate of ${CUCKOOS.map(({ id, b, semiSort }) => `${lfl[id].crossover ? epsLabel(lfl[id].crossover) : 'never'} (b = ${b}${semiSort ? ' semi-sorted' : ''})`).join(', ')}.`,
    `- Why not 3%: a cuckoo filter with b = 4 at load α ≈ 0.955 stores (log2(1/ε) + 3)/α bits per item, a Bloom filter 1.44·log2(1/ε); they are equal at log2(1/ε) = 8, ε ≈ 0.4%. ` +
      "Fan et al.'s 3% figure is for the semi-sorted cuckoo filter, which saves one bit per item ((log2(1/ε) + 2)/α: equal at ε ≈ 2.5%): the `cuckoo b = 4 semi-sorted` column (`semiSort: true`, the default for b = 4).",
    '',
    '![bits per item and measured false-positive rate across ε, cuckoo b = 2, 4, 8, b = 4 semi-sorted, and Bloom](bloom-vs-cuckoo.svg)',
    '',
  );

  // 2. Fill curves.
  const fill = sweep.fill;
  const at4 = (id) => fill.curves.find((c) => c.id === id).points.at(-1);
  const cuckooPlain = fill.curves.find((c) => c.id === 'cuckoo');
  md.push(
    '### Filling past capacity',
    '',
    `Capacity C = ${fmtInt(fill.capacity)} at ε = ${epsLabel(fill.eps)}; keys: the first ${fmtInt(fill.members)} blocklisted domains, added by \`addAll\` a quarter of C at a time; ` +
      `after each step the rate is measured over ${fmtInt(fill.nonMembers)} real benign domains. Cells: measured rate · serialized bits per key added · sub-filters (when more than one).`,
    '',
    fillMarkdown(fill),
    '',
    `At 4C: Bloom without growth ${fmtPct(at4('bloom').measured)}; Bloom with expansion 2 ${fmtPct(at4('bloom-x2').measured)} (${at4('bloom-x2').subFilters} sub-filters, ${fmtNum(at4('bloom-x2').bitsPerKey, 1)} bits per key); ` +
      `cuckoo with expansion 2 ${fmtPct(at4('cuckoo-x2').measured)} (${at4('cuckoo-x2').subFilters} sub-filters, ${fmtNum(at4('cuckoo-x2').bitsPerKey, 1)} bits per key). ` +
      `The cuckoo filter without growth held ${fmtInt(cuckooPlain.fullAt ?? cuckooPlain.points.at(-1).added)} keys (${fmtNum((cuckooPlain.fullAt ?? cuckooPlain.points.at(-1).added) / fill.capacity, 3)}C)` +
      `${cuckooPlain.fullAt != null ? `, then \`addAll\` threw FilterFullError; its rate when full: ${fmtPct(cuckooPlain.points.at(-1).measured)}` : ''}. ` +
      `False negatives in any curve: ${fill.curves.reduce((a, c) => a + c.points.reduce((b, p) => b + p.falseNegatives, 0), 0)}.`,
    '',
    '![false-positive rate and bits per key as filters fill to 4× capacity, without and with growth](fill.svg)',
    '',
  );

  // 3. Speed.
  md.push(
    '### Speed',
    '',
    `Each config runs the implementations in their own processes, ${COMPARE_RUNS} rounds, one run of each per round (bench/README.md); each lookup rate is the fastest of up to ${COMPARE_PASSES[1]} passes within 250 ms; ` +
      'ratios are medians of per-round ratios (min–max over the rounds).',
    '',
  );
  const target1 = [];
  const versus = [];
  const semiVersus = [];
  for (const cfg of speed) {
    const { table, rows } = compareTable(cfg);
    const bf = rows.find((r) => r.impl === 'bloomfilter');
    const bfM = /m=(\d+)/.exec(bf?.params ?? '')?.[1];
    const sz = cfg.bloomSize;
    md.push(`#### ${cfg.label}`, '', table, '');
    md.push(
      `BloomFilter: m = ${fmtInt(sz.bits)} bits, k = ${sz.hashes}; optimal m = −N ln ε / (ln 2)² = ${fmtNum(sz.optimal, 1)}, so m is ${fmtNum(((sz.bits - sz.optimal) / sz.optimal) * 100, 5)}% above it (target: within 1%: ${passCell(Math.abs(sz.bits - sz.optimal) / sz.optimal <= 0.01)}). ` +
        `bloomfilter was given the same m and k (\`new BloomFilter(${sz.bits}, ${sz.hashes})\`; it rounds m up to a multiple of 32: ${bfM ? fmtInt(Number(bfM)) : '?'} bits).`,
      '',
    );
    const R = cfg.results;
    const bw = R['cuckoo-wasm-bloom'];
    const bfr = R.bloomfilter;
    const cw = R['cuckoo-wasm'];
    const mem = pairedRatio(bw.runs, bfr.runs, 'hasOps', 'hasOps');
    const non = pairedRatio(bw.runs, bfr.runs, 'hasNonOps', 'hasNonOps');
    const all = pairedRatio(bw.runs, bfr.runs, 'hasAllOps', 'hasOps');
    const ok = mem.median != null && non.median != null ? mem.median >= SPEED_TARGET && non.median >= SPEED_TARGET : null;
    target1.push([cfg.label, ratioCell(mem), ratioCell(non), ratioCell(all), passCell(ok)]);
    cfg.target1 = { members: mem, nonMembers: non, hasAll: all, pass: ok };
    const v = ['hasOps', 'hasNonOps', 'hasAllOps', 'hasAllNonOps', 'addOps', 'addAllOps'].map((k) => pairedRatio(cw.runs, bw.runs, k));
    versus.push([cfg.label, ...v.map((r) => ratioCell(r))]);
    cfg.versus = v;
    const semi = R['cuckoo-wasm-semi'];
    if (semi) {
      cfg.semiVersus = ['hasOps', 'hasNonOps', 'hasAllOps', 'hasAllNonOps', 'addOps', 'addAllOps'].map((k) => pairedRatio(semi.runs, cw.runs, k));
      semiVersus.push([cfg.label, ...cfg.semiVersus.map((r) => ratioCell(r))]);
    }
  }
  md.push(
    `**Target: BloomFilter.has ≥ ${SPEED_TARGET}× bloomfilter's \`test\`** at the same ε, m and k (lookups per second, one key per call; PASS needs both members and non-members):`,
    '',
    markdownTable(['config', 'has / test, members', 'has / test, non-members', 'hasAll / test (members; not the target)', 'target'], target1),
    '',
    "**CuckooFilter (b = 4) against BloomFilter**, this package's two filters at the same N and ε (above 1: the cuckoo filter is faster):",
    '',
    markdownTable(['config', 'has, members', 'has, non-members', 'hasAll, members', 'hasAll, non-members', 'add', 'addAll'], versus),
    '',
  );
  if (semiVersus.length) {
    md.push(
      '**Semi-sorted against bit-packed CuckooFilter (b = 4)**, same N and ε (ops/s of semi-sorted / bit-packed; the default is semi-sorted while its lookups stay within 15%):',
      '',
      markdownTable(['config', 'has, members', 'has, non-members', 'hasAll, members', 'hasAll, non-members', 'add', 'addAll'], semiVersus),
      '',
    );
  }
  const g = compareTable(growth);
  md.push(
    `#### Grown 8× past capacity: ${growth.label}`,
    '',
    `"grown 8×": created for C = ${fmtInt(growthC)} keys with expansion 2, then given all ${fmtInt(8 * growthC)} keys (the first ${fmtInt(8 * growthC)} blocklisted domains), so it holds sub-filters for C, 2C, 4C and 8C keys; ` +
      `the others are created for all ${fmtInt(8 * growthC)} keys. Lookups of a non-member check every sub-filter.`,
    '',
    g.table,
    '',
  );
  const target2 = [];
  const GR = growth.results;
  const gPass = {};
  for (const [type, plain, grown] of [['CuckooFilter', 'cuckoo-wasm', 'cuckoo-wasm-grown'], ['BloomFilter', 'cuckoo-wasm-bloom', 'cuckoo-wasm-bloom-grown']]) {
    for (const [what, key] of [['has, members', 'hasOps'], ['has, non-members', 'hasNonOps'], ['hasAll, members', 'hasAllOps'], ['hasAll, non-members', 'hasAllNonOps'], ['add (not a target)', 'addOps'], ['addAll (not a target)', 'addAllOps']]) {
      const r = pairedRatio(GR[plain].runs, GR[grown].runs, key, key);
      const target = !what.includes('not a target');
      const ok = target && r.median != null ? r.median <= GROWTH_TARGET : null;
      if (target) gPass[`${type} ${what}`] = { cost: r, pass: ok };
      target2.push([type, what, opsCell(stats(GR[plain].runs.map((x) => x[key]))), opsCell(stats(GR[grown].runs.map((x) => x[key]))), ratioCell(r), target ? passCell(ok) : '']);
    }
  }
  md.push(
    `**Target: growth costs lookups at most ${GROWTH_TARGET}×** once a filter has grown 8× past its capacity (cost = ops/s of the filter sized for all keys / ops/s of the grown one, median of per-round ratios):`,
    '',
    markdownTable(['filter', 'call', 'sized for 8C', 'grown 8×', 'cost', 'target'], target2),
    '',
  );
  if (floors.length) {
    md.push(
      '### Where the time of a Bloom lookup goes (floor.mjs --part bloom)',
      '',
      'Per key, in one process, the boundary layers and the wasm side alone (bench/floor.mjs; bench/README.md), on the members of each key set (and as many non-members), ' +
        `at ε = ${epsLabel(SPEED_EPSS[0])}; the last rows time bloomfilter at the same m and k. The grown rows are filters of capacity N/8 with expansion 2 given all N keys. ` +
        'The lines under each table add up the fastest of the 11 passes of each row (on a shared machine the least disturbed).',
      '',
    );
    for (const f of floors) md.push(f.replace(/^floor: /, '#### '), '');
  }
  const mdText = md.join('\n');
  console.log(`\n${mdText}`);
  if (!opt['no-write']) {
    mkdirSync(rawDir, { recursive: true });
    writeFileSync(
      join(rawDir, 'compare.json'),
      JSON.stringify({ machine: mach, sweep, speed: speed.map((c) => ({ ...c, summary: summarize(c) })), growth: { ...growth, summary: g.rows, targets: gPass } }, null, 1) + '\n',
    );
    writeFileSync(join(opt.out, 'bloom-vs-cuckoo.svg'), renderTradeoffChart(sweep));
    writeFileSync(join(opt.out, 'fill.svg'), renderFillChart(sweep.fill));
    process.stderr.write(`wrote ${relative(ROOT, opt.out)}/bloom-vs-cuckoo.svg and fill.svg; raw numbers: ${relative(ROOT, rawDir)}/compare*.json (not committed)\n`);
  }
  return { md: mdText };
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
