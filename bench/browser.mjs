// The browser benchmark: this package's filters and the JS baselines (bloomfilter,
// a JS Set) looked up inside headless Chromium, on a page served from 127.0.0.1
// under the strict CSP a page using cuckoo-wasm sets (script-src 'self'
// 'wasm-unsafe-eval'), and the same measurements in Node.js for the table beside.
//
//   npm run bench -- --browser                 # via bench/run.mjs (Node.js: the newest LTS by default)
//   node bench/browser.mjs --runs 3 --keys domains --impl cuckoo-wasm,bloomfilter --no-write
//
// Options: --runs R (rounds; 5), --n N (domain members; 100,000; URLs: all 49,256), --eps (0.01), --keys
// domains,urls, --impl (cuckoo-wasm, cuckoo-wasm-bloom, cuckoo-wasm-redis-cf, cuckoo-wasm-redis-bf,
// bloomfilter, set: the adapters of bench/adapters.mjs that run in a page), --passes (3), --data DIR,
// --out DIR, --no-write.
//
// Chromium: Debian's /usr/bin/chromium through playwright-core, launched and
// watched by the browser tests' own harness (tests/browser/harness.ts, compiled
// for this script with esbuild): its server, its CSP, its flags. Each run is a
// fresh browser context and page (bench/browser/index.html) whose own script
// (bench/browser/page.mjs) loads the keys this runner wrote, warms up, measures
// (bench/lookups.mjs) and publishes window.__benchResult; the runner only waits
// for that object and reads it, so the library never runs from `evaluate`
// (which the CSP does not apply to). A page with a console error, an uncaught
// error or a CSP violation fails its run. The Node.js side runs bench/lookups.mjs
// on the same keys, one process per implementation and run (this script with
// --node-side). Rounds: one run of each implementation per round, in an order
// that rotates, Chromium and Node.js alternating. Writes bench/results/browser.md.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { ADAPTERS } from './adapters.mjs';
import { ROOT, loadKeys, urlCount } from './data.mjs';
import { runLookups } from './lookups.mjs';
import { epsLabel, fmtInt, fmtNum, helpText, machine, madeBy, markdownTable, opsCell } from './report.mjs';
import { rotate } from './rounds.mjs';
import { nowMs, stats } from './stats.mjs';

const { values: opt } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    n: { type: 'string', default: '100000' },
    eps: { type: 'string', default: '0.01' },
    keys: { type: 'string', default: 'domains,urls' },
    impl: { type: 'string', default: 'cuckoo-wasm,cuckoo-wasm-bloom,cuckoo-wasm-redis-cf,cuckoo-wasm-redis-bf,bloomfilter,set' },
    passes: { type: 'string', default: '3' },
    data: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'bench', 'results') },
    'no-write': { type: 'boolean', default: false },
    'node-side': { type: 'string' }, // worker mode: IMPL:KEYFILE
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opt.help) {
  console.log(helpText(import.meta.url, '\n\nChromium:'));
  process.exit(0);
}
const EPS = Number(opt.eps);
const PASSES = Number(opt.passes);
const WARMUP_KEYS = 20000; // as the page

/** Node.js side: one run of one implementation, warmed up as the page is; JSON on stdout. */
async function nodeSide() {
  const [impl, file, kind] = opt['node-side'].split(':');
  const adapter = ADAPTERS[impl];
  await adapter.init();
  const { members, nonMembers } = JSON.parse(readFileSync(file, 'utf8'));
  const urls = kind === 'urls';
  const warm = await runLookups(adapter, members.slice(0, WARMUP_KEYS), nonMembers.slice(0, WARMUP_KEYS), { eps: EPS, passes: PASSES, urls });
  const r = await runLookups(adapter, members, nonMembers, { eps: EPS, passes: PASSES, urls });
  process.stdout.write(JSON.stringify({ ok: true, impl, name: adapter.name, version: adapter.version, warmupError: warm.error, ...r }));
}

/** The browser tests' harness (TypeScript), compiled to CommonJS beside build/ and loaded. */
async function loadHarness() {
  const { transformSync } = await import('esbuild');
  const src = readFileSync(join(ROOT, 'tests', 'browser', 'harness.ts'), 'utf8');
  // At build/bench-browser/ its `root` (two folders up) is the repository's, as from tests/browser/.
  const dir = join(ROOT, 'build', 'bench-browser');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'harness.cjs');
  writeFileSync(file, transformSync(src, { loader: 'ts', format: 'cjs', target: 'node20' }).code);
  return createRequire(import.meta.url)(file);
}

/** One page run of `impl` on `kind`: its published result, or a failure with the page's problems. */
async function pageRun(h, browser, origin, impl, kind) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const problems = h.watch(page);
    await h.recordCspViolations(page);
    await page.goto(`${origin}/bench/browser/index.html?impl=${impl}&keys=${kind}&eps=${EPS}&passes=${PASSES}`, { timeout: 30000 });
    const r = await h.readResult(page, '__benchResult', 600000);
    const violations = await h.readCspViolations(page);
    const bad = [...problems.consoleErrors, ...problems.pageErrors, ...violations];
    if (bad.length) return { ok: false, error: { phase: 'page', name: 'PageProblems', message: bad.join('; ').slice(0, 300) } };
    return r;
  } finally {
    await context.close();
  }
}

function nodeRun(impl, file, kind) {
  const p = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--node-side', `${impl}:${file}:${kind}`, '--eps', String(EPS), '--passes', String(PASSES)], {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (p.status !== 0) return { ok: false, error: { phase: 'process', name: 'Error', message: `exit ${p.status}` } };
  return JSON.parse(p.stdout);
}

const COLUMNS = [
  ['add/s', 'addOps'],
  ['has/s members', 'hasOps'],
  ['has/s non-members', 'hasNonOps'],
  ['hasAll/s members', 'hasAllOps'],
  ['hasAll/s non-members', 'hasAllNonOps'],
];
const URL_COLUMNS = [
  ['hasUrl/s', 'hasUrlOps'],
  ['hasAllUrls/s', 'hasAllUrlsOps'],
];

function table(runsByImpl, impls, kind) {
  const cols = kind === 'urls' ? [...COLUMNS, ...URL_COLUMNS] : COLUMNS;
  const rows = impls.map((impl) => {
    const runs = runsByImpl[impl];
    const ok = runs.filter((r) => r.ok && !r.error);
    const failed = runs.find((r) => !r.ok || r.error);
    const name = (ok[0]?.name ?? impl) + (kind === 'urls' && ok[0]?.jsRules ? ' (URLs: JS rules)' : '') + (failed ? ' ⚠' : '');
    const fn = Math.max(0, ...ok.map((r) => r.falseNegatives + (r.urlFalseNegatives ?? 0)));
    const fpr = stats(ok.map((r) => r.falsePositives / r.nonMembers)).median;
    return [name, String(ok.length), ...cols.map(([, k]) => opsCell(stats(ok.map((r) => r[k])))), fpr == null ? '—' : `${+(fpr * 100).toPrecision(3)}%`, fn ? `**${fmtInt(fn)}**` : '0'];
  });
  const notes = impls.flatMap((impl) => runsByImpl[impl].filter((r) => !r.ok || r.error).slice(0, 1).map((r) => `- ${impl}: **${r.error.name} in ${r.error.phase}: ${r.error.message}**`));
  return [markdownTable(['implementation', 'runs', ...cols.map(([h]) => h), 'measured ε', 'false neg.'], rows), ...(notes.length ? ['', ...notes] : [])].join('\n');
}

async function main() {
  const wall = nowMs();
  const mach = machine();
  const impls = opt.impl.split(',');
  for (const i of impls) if (!ADAPTERS[i]) throw new Error(`--impl: unknown '${i}'`);
  const kinds = opt.keys.split(',');
  const runs = Number(opt.runs);
  const tmp = mkdtempSync(join(os.tmpdir(), 'browser-bench-'));
  const h = await loadHarness();
  let server;
  let browser;
  const out = {};
  try {
    const sizes = {};
    for (const kind of kinds) {
      const k = loadKeys(kind === 'urls' ? urlCount(opt.data) : Number(opt.n), { dir: opt.data, keys: kind });
      writeFileSync(join(tmp, `${kind}.json`), JSON.stringify({ members: k.members, nonMembers: k.nonMembers }));
      sizes[kind] = { members: k.members.length, nonMembers: k.nonMembers.length };
    }
    server = await h.serve(
      [
        { prefix: '/bench/', path: join(ROOT, 'bench') },
        { prefix: '/dist/', path: join(ROOT, 'dist') },
        { prefix: '/data/', path: tmp },
      ],
      () => h.STRICT_CSP,
    );
    browser = await h.launchChromium();
    const chromium = browser.version();
    process.stderr.write(`browser bench: Chromium ${chromium}, Node.js ${process.version}; ${impls.join(', ')}; ${runs} rounds\n`);
    for (const kind of kinds) {
      const file = join(tmp, `${kind}.json`);
      const res = { chromium: Object.fromEntries(impls.map((i) => [i, []])), node: Object.fromEntries(impls.map((i) => [i, []])) };
      for (let round = 0; round < runs; ++round) {
        process.stderr.write(`  ${kind} round ${round + 1}/${runs}:`);
        for (const impl of rotate(impls, round)) {
          const t0 = nowMs();
          const sides = round % 2 ? ['node', 'chromium'] : ['chromium', 'node'];
          for (const side of sides) res[side][impl].push(side === 'node' ? nodeRun(impl, file, kind) : await pageRun(h, browser, server.origin, impl, kind));
          process.stderr.write(` ${impl} ${((nowMs() - t0) / 1e3).toFixed(1)}s;`);
        }
        process.stderr.write('\n');
      }
      out[kind] = res;
    }
    const md = ['# Browser benchmark: Chromium and Node.js', ''];
    md.push(
      `Made by ${madeBy('browser.mjs')} in ${fmtNum((nowMs() - wall) / 60e3, 1)} min on ${mach.cpu} (${mach.cores} cores): headless Chromium ${chromium} (Debian's /usr/bin/chromium, playwright-core) ` +
        `and Node.js ${process.version} (V8 ${process.versions.v8}); load average ${mach.loadAverageAtStart.join(' ')} at start, ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} at end. ` +
        `Each cell: median of ${runs} runs (min–max), one fresh page (or process) per run, after a warm-up on 20,000 keys; lookups per second are the fastest of ${PASSES} passes. ` +
        "The page runs under `Content-Security-Policy: default-src 'self'; script-src 'self' 'wasm-unsafe-eval'` and does the work in its own script (bench/browser/page.mjs); the runner only reads its result. " +
        `ε = ${epsLabel(EPS)}; sizing as bench/adapters.mjs (bench/README.md). See the header of bench/browser.mjs.`,
      '',
    );
    for (const kind of kinds) {
      const s = sizes[kind];
      const what = kind === 'urls'
        ? `${fmtInt(s.members)} phishing URLs as keys (members) and ${fmtInt(s.nonMembers)} \`https://<benign domain>/\` (non-members); hasUrl / hasAllUrls: a second filter given the members with \`addUrls\` (bloomfilter and Set: the JS rules of bench/url-reference.mjs), queried with the members and as many non-members, alternating`
        : `${fmtInt(s.members)} blocklisted domains (members) and ${fmtInt(s.nonMembers)} benign domains (non-members)`;
      md.push(`## ${kind === 'urls' ? 'URLs' : 'Domains'}: ${what}`, '');
      md.push(`### Chromium ${chromium}`, '', table(out[kind].chromium, impls, kind), '');
      md.push(`### Node.js ${process.version}`, '', table(out[kind].node, impls, kind), '');
    }
    const text = md.join('\n');
    console.log(text);
    if (!opt['no-write']) {
      mkdirSync(opt.out, { recursive: true });
      writeFileSync(join(opt.out, 'browser.md'), text);
      process.stderr.write(`wrote ${relative(ROOT, join(opt.out, 'browser.md'))}\n`);
    }
  } finally {
    await browser?.close();
    await server?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

(opt['node-side'] ? nodeSide() : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
