// What a feed client pays to apply a 1%-churn patch to a 1,000,000-entry filter, in headless Chromium and in Node.js
// beside it, with the read-only entry (dist/reader.mjs) and the full one (dist/index.mjs). A benchmark, never a
// test: the target (≤ 50 ms in Chromium for the whole client path) is reported, not asserted. Two parts: the steps
// called by hand (apply), and the real client, `FilterFeed.update()` end to end over a published feed (feed).
//
//   node bench/feed-apply.mjs --chromium /usr/bin/chromium            # everything, writes bench/results/feed-apply.md
//   node bench/feed-apply.mjs --rounds 1 --runs 5 --sets cuckoo --no-write   # Node.js only, quick
//   node bench/feed-apply.mjs --chromium /usr/bin/chromium --parts feed --no-write   # FilterFeed.update() alone
//
// Options: --chromium PATH (the browser, through playwright-core; without it Node.js only), --n N (entries of
// version 1; 1,000,000), --capacity C (1,250,000), --eps (0.001), --churn (0.01: that share of the entries deleted
// and as many new ones added; a Bloom filter only adds), --sets cuckoo,cuckoo-packed,bloom, --entries reader,index,
// --parts apply,feed (both by default),
// --rounds R (4), --runs K (5 timed runs per page or process; R·K per cell), --warmup W (2 untimed runs first),
// --node PATH (the Node.js of the Node.js side; this one by default), --data DIR (../shared/data), --out DIR,
// --no-write.
//
// Data (built here in Node.js with the full entry, dist/index.mjs): the first N keys of bench/data.mjs's domains
// (the 334,082 blocklisted domains, then names derived from them: cdn.<domain>, api.<domain>, ...). Version 1 is
// a filter for C keys at ε holding the N; version 2 is the same filter object after deleting every (1/churn)-th key
// and adding the next churn·N keys; the patch is `v2.diff(v1bytes)`. Sets: cuckoo (CuckooFilter, its default
// semi-sorted buckets), cuckoo-packed (semiSort: false), bloom (BloomFilter, adds only).
//
// Steps (bench/feed-apply-steps.mjs; ms by performance.now()): the bytes path verify patch (WebCrypto SHA-256 of
// the patch against the manifest's) → apply (applyPatchBytes of the held bytes) → verify result (SHA-256 of the new
// bytes) → load (fromBytes) → swap (the old filter disposed); the in-place path verify patch → applyPatch →
// toBytes → verify result; and parts timed alone for the floor (a JS copy of the bytes, SHA-256, fromBytes,
// toBytes, fromBytes of a 1,000-key filter). Every run checks the result against version 2 byte for byte.
//
// Feed (bench/feed-update-steps.mjs; sets cuckoo and bloom: publish() has no semiSort option): publish() of
// dist/node.mjs writes version 1 from the N keys, then version 2 from the list with version 2's keys (a Bloom list
// only adds: a removal makes publish build it again, fullOnly), signed with a fresh Ed25519 key, into the data folder;
// the runner's node:http server serves it on 127.0.0.1 to the pages and to the Node.js processes (which is why those
// are spawned asynchronously). Each run: FilterFeed.open (the entry's) with the public key, a store preloaded with
// version 1 and updateOnOpen: false, not timed; then `await feed.update()` timed, split by wrappers around what the
// feed calls (see that file), checked to reach version 2 by 'patch' with version 2's full file byte for byte.
//
// Chromium: each page a new browser context, served from 127.0.0.1 under the strict CSP (script-src 'self'
// 'wasm-unsafe-eval') and cross-origin isolated (COOP/COEP, so that performance.now() has 5 µs resolution, not
// 100 µs); the page's own script (bench/browser/feed-apply-page.mjs) imports the entry, fetches the data (not
// timed), warms up, measures and publishes window.__feedApplyResult; the runner only reads it (evaluate is not
// subject to the CSP, so the library never runs from it). A console error, page error or CSP violation fails the
// page. Node.js: one process per entry, set and round (this script with --node-side), importing the same dist files.
// Rounds: every (entry, set) once per round in a rotating order, Chromium and Node.js alternating.
// Each cell: median and p90 (nearest rank) of R·K runs. Writes bench/results/feed-apply.md; text after the line
// `<!-- findings -->` in an existing file is kept.
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import { extname, join, normalize, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT, loadKeys } from './data.mjs';
import { measureFeedApply, sha256Hex } from './feed-apply-steps.mjs';
import { UPDATE_STEPS, measureFeedUpdate } from './feed-update-steps.mjs';
import { fmtInt, fmtNum, helpText, machine, madeBy, markdownTable } from './report.mjs';

const { values: opt } = parseArgs({
  options: {
    chromium: { type: 'string' },
    n: { type: 'string', default: '1000000' },
    capacity: { type: 'string', default: '1250000' },
    eps: { type: 'string', default: '0.001' },
    churn: { type: 'string', default: '0.01' },
    sets: { type: 'string', default: 'cuckoo,cuckoo-packed,bloom' },
    entries: { type: 'string', default: 'reader,index' },
    parts: { type: 'string', default: 'apply,feed' },
    rounds: { type: 'string', default: '4' },
    runs: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    node: { type: 'string', default: process.execPath },
    data: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'bench', 'results') },
    'no-write': { type: 'boolean', default: false },
    'node-side': { type: 'string' }, // worker mode: [update:]ENTRY:SET:DIR
    origin: { type: 'string' }, // worker mode update: the runner's server
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opt.help) {
  console.log(helpText(import.meta.url, '\nimport'));
  process.exit(0);
}
const RUNS = Number(opt.runs);
const WARMUP = Number(opt.warmup);

/** The files of set `name` in `dir` as measureFeedApply takes them. */
function readSet(dir, name) {
  const manifest = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8'));
  const bin = (what) => new Uint8Array(readFileSync(join(dir, `${name}-${what}.bin`)));
  return { ...manifest, v1: bin('v1'), v2: bin('v2'), patch: bin('patch'), tiny: bin('tiny') };
}

/** The feed of set `name` in `dir` as measureFeedUpdate takes it, its manifest at `origin`. */
function readFeed(dir, name, origin) {
  const info = JSON.parse(readFileSync(join(dir, `feed-${name}.json`), 'utf8'));
  const bin = (what) => new Uint8Array(readFileSync(join(dir, `feed-${name}-${what}.bin`)));
  return { ...info, manifestUrl: new URL(info.manifestPath, origin).href, v1: bin('v1'), v2: bin('v2') };
}

/** Node.js side: one entry and set, JSON on stdout. */
async function nodeSide() {
  const args = opt['node-side'].split(':');
  const mode = args[0] === 'update' ? args.shift() : 'apply';
  const [entry, set, dir] = args;
  const lib = await import(pathToFileURL(join(ROOT, 'dist', `${entry}.mjs`)).href);
  if (mode === 'update') {
    const r = await measureFeedUpdate(lib, readFeed(dir, set, opt.origin), { runs: RUNS, warmup: WARMUP });
    process.stdout.write(JSON.stringify({ ok: true, mode, entry, set, node: process.version, ...r }));
    return;
  }
  const r = await measureFeedApply(lib, readSet(dir, set), { runs: RUNS, warmup: WARMUP });
  process.stdout.write(JSON.stringify({ ok: true, entry, set, node: process.version, ...r }));
}

const SETS = {
  cuckoo: { cls: 'CuckooFilter', options: {}, deletes: true, what: 'CuckooFilter, semi-sorted buckets (the default)' },
  'cuckoo-packed': { cls: 'CuckooFilter', options: { semiSort: false }, deletes: true, what: 'CuckooFilter, bit-packed buckets (`semiSort: false`)' },
  bloom: { cls: 'BloomFilter', options: {}, deletes: false, what: 'BloomFilter (adds only)' },
};

/** Version 1's keys, the keys version 2 adds and those it deletes (a Bloom filter's only adds). */
function versions() {
  const n = Number(opt.n);
  const churn = Number(opt.churn);
  const changed = Math.round(n * churn);
  const keys = loadKeys(n + changed, { dir: opt.data, nonMembers: 0 });
  const v1Keys = keys.members.slice(0, n);
  const added = keys.members.slice(n);
  const step = Math.round(1 / churn);
  const deleted = v1Keys.filter((_, i) => i % step === 0);
  const info = { keys: keys.members.length, derived: keys.derivedMembers, digest: keys.digest, added: added.length, deleted: deleted.length };
  return { v1Keys, added, deleted, info };
}

/** Builds every set with the full entry and writes its files to `dir`; returns their sizes. */
async function build(dir, sets, { v1Keys, added, deleted }) {
  const full = await import(pathToFileURL(join(ROOT, 'dist', 'index.mjs')).href);
  const sizes = {};
  for (const name of sets) {
    const s = SETS[name];
    const t = performance.now();
    const Cls = full[s.cls];
    const f = await Cls.create({ capacity: Number(opt.capacity), falsePositiveRate: Number(opt.eps), ...s.options });
    f.addAll(v1Keys);
    const v1 = f.toBytes();
    if (s.deletes) for (const k of deleted) if (!f.delete(k)) throw new Error(`${name}: could not delete ${k}`);
    f.addAll(added);
    const v2 = f.toBytes();
    const patch = f.diff(v1);
    const fi = f.info();
    f.dispose();
    const tiny = await Cls.create({ capacity: 1000, falsePositiveRate: Number(opt.eps), ...s.options });
    tiny.addAll(v1Keys.slice(0, 1000));
    const tinyBytes = tiny.toBytes();
    tiny.dispose();
    for (const [what, b] of Object.entries({ v1, v2, patch, tiny: tinyBytes })) writeFileSync(join(dir, `${name}-${what}.bin`), b);
    const manifest = {
      family: s.cls === 'BloomFilter' ? 'bloom' : 'cuckoo',
      patchSha256: await sha256Hex(patch),
      v2Sha256: await sha256Hex(v2),
      added: added.filter((_, i) => i % 10 === 0),
    };
    writeFileSync(join(dir, `${name}.json`), JSON.stringify(manifest));
    sizes[name] = {
      v1: v1.length,
      v2: v2.length,
      patch: patch.length,
      changes: added.length + (s.deletes ? deleted.length : 0),
      bitsPerItem: fi.bitsPerItem,
      detail: s.cls === 'BloomFilter' ? `k = ${fi.hashCount ?? fi.subFilters?.[0]?.hashCount ?? '?'}` : `f = ${fi.subFilters[0].fingerprintBits} bits, ${fmtInt(fi.subFilters[0].bucketCount)} buckets of ${fi.bucketSize}, load factor ${fmtNum(fi.loadFactor, 3)}`,
      buildMs: performance.now() - t,
    };
    process.stderr.write(`  built ${name}: ${fmtInt(v1.length)} B, patch ${fmtInt(patch.length)} B (${fmtNum((performance.now() - t) / 1e3, 1)} s)\n`);
  }
  return sizes;
}

/** The sets FilterFeed.update() is measured on: publish() has no semiSort option, so not cuckoo-packed. */
const FEED_SETS = { cuckoo: 'cuckoo', bloom: 'bloom' };

/**
 * Publishes a feed of each set with publish() from dist/node.mjs into `dir`/feed-NAME/ (served as /data/feed-NAME/):
 * version 1 from v1Keys, version 2 with the deletes (not Bloom: publish builds a Bloom filter again, fullOnly, when
 * an entry goes) and the adds, the manifest signed with a fresh Ed25519 key. Writes feed-NAME.json (what the page
 * and the Node.js side need), feed-NAME-v1.bin and -v2.bin (the two full files); returns the sizes.
 */
async function publishFeeds(dir, sets, { v1Keys, added, deleted }) {
  const { publish } = await import(pathToFileURL(join(ROOT, 'dist', 'node.mjs')).href);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url').toString('base64');
  const sizes = {};
  for (const name of sets) {
    const t = performance.now();
    const type = FEED_SETS[name];
    const base = { out: join(dir, `feed-${name}`), state: join(dir, `feed-${name}-state`), list: join(dir, `feed-${name}.txt`), name: `bench-${name}`, format: 'lines', type, falsePositiveRate: Number(opt.eps), capacity: Number(opt.capacity), signingKey: privateKey };
    writeFileSync(base.list, v1Keys.join('\n') + '\n');
    const r1 = await publish({ ...base, now: new Date(Date.UTC(2026, 11, 7, 0)) });
    copyFileSync(join(base.out, r1.full.path), join(dir, `feed-${name}-v1.bin`));
    const gone = new Set(type === 'bloom' ? [] : deleted);
    writeFileSync(base.list, v1Keys.filter((k) => !gone.has(k)).concat(added).join('\n') + '\n');
    const r2 = await publish({ ...base, now: new Date(Date.UTC(2026, 11, 7, 1)) });
    const patch = r2.patches.find((p) => p.from === 1);
    if (r2.version !== 2 || r2.fullOnly || !patch) throw new Error(`publish ${name}: version ${r2.version}, fullOnly ${r2.fullOnly}, no patch from 1`);
    copyFileSync(join(base.out, r2.full.path), join(dir, `feed-${name}-v2.bin`));
    writeFileSync(join(dir, `feed-${name}.json`), JSON.stringify({
      manifestPath: `/data/feed-${name}/manifest.json`, publicKey: pub, name: base.name, family: r1.family, v1Sha256: r1.full.sha256,
      v2Sha256: r2.full.sha256, patchSize: patch.size, added: added.filter((_, i) => i % 10 === 0),
    }));
    sizes[name] = { family: r1.family, v1: r1.full.size, v2: r2.full.size, patch: patch.size, changes: r2.added + r2.removed, added: r2.added, removed: r2.removed, entries: r2.entries };
    process.stderr.write(`  published ${name}: ${fmtInt(r2.full.size)} B, patch ${fmtInt(patch.size)} B (${fmtNum((performance.now() - t) / 1e3, 1)} s)\n`);
  }
  return sizes;
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm' };
/** Cross-origin isolation, so that performance.now() in the page has 5 µs resolution rather than 100 µs. */
const ISOLATED = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
/** Chromium's flags as the browser tests launch it (tests/browser/harness.ts CHROMIUM_ARGS). */
const CHROMIUM_ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Serves /bench/ and /dist/ of the repository and /data/ from `dataDir` on 127.0.0.1, every response under the strict CSP. */
async function serve(dataDir) {
  const mounts = [['/bench/', join(ROOT, 'bench')], ['/dist/', join(ROOT, 'dist')], ['/data/', dataDir]];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    for (const [prefix, folder] of mounts) {
      if (!path.startsWith(prefix)) continue;
      const file = normalize(join(folder, path.slice(prefix.length)));
      if (!file.startsWith(normalize(folder) + sep) || !existsSync(file)) break;
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store', 'content-security-policy': STRICT_CSP, ...ISOLATED });
      res.end(readFileSync(file));
      return;
    }
    res.writeHead(path === '/favicon.ico' ? 204 : 404).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** One page: a new context, the page's own script does the work, the runner only reads window.__feedApplyResult. */
async function pageRun(browser, origin, entry, set, mode) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`${e.name}: ${e.message}`));
    await page.addInitScript(() => {
      window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'}`));
    });
    await page.goto(`${origin}/bench/browser/feed-apply.html?mode=${mode}&entry=${entry}&set=${set}&runs=${RUNS}&warmup=${WARMUP}`, { timeout: 30000 });
    const h = await page.waitForFunction(() => window.__feedApplyResult, undefined, { timeout: 600000, polling: 100 });
    const r = await h.jsonValue();
    problems.push(...(await page.evaluate(() => window.__cspViolations)));
    if (problems.length) return { ok: false, error: problems.join('; ').slice(0, 300) };
    return r;
  } finally {
    await context.close();
  }
}

/** One Node.js process (not spawnSync: the feed's server runs in this process). */
function nodeRun(entry, set, dir, mode, origin) {
  const args = [new URL(import.meta.url).pathname, '--node-side', `${mode === 'update' ? 'update:' : ''}${entry}:${set}:${dir}`, '--runs', String(RUNS), '--warmup', String(WARMUP)];
  if (origin) args.push('--origin', origin);
  const p = spawn(opt.node, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  p.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  return new Promise((resolve) => p.on('close', (code) => resolve(code === 0 ? JSON.parse(out) : { ok: false, error: `exit ${code}` })));
}

const sorted = (a) => [...a].sort((x, y) => x - y);
const median = (a) => {
  const s = sorted(a);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const p90 = (a) => sorted(a)[Math.max(0, Math.ceil(0.9 * a.length) - 1)];
const ms = (v) => (v < 1 ? fmtNum(v, 2) : fmtNum(v, 1));
/** "median · p90" of a list of ms. */
const cell = (a) => (a?.length ? `${ms(median(a))} · ${ms(p90(a))}` : '—');
const spread = (a) => (a?.length ? `${ms(Math.min(...a))}–${ms(Math.max(...a))}` : '—');

async function main() {
  const wall = performance.now();
  const mach = machine();
  const sets = opt.sets.split(',');
  for (const s of sets) if (!SETS[s]) throw new Error(`--sets: unknown '${s}'`);
  const entries = opt.entries.split(',');
  for (const e of entries) if (e !== 'reader' && e !== 'index') throw new Error(`--entries: unknown '${e}'`);
  const parts = opt.parts.split(',');
  for (const p of parts) if (p !== 'apply' && p !== 'feed') throw new Error(`--parts: unknown '${p}'`);
  const applySets = parts.includes('apply') ? sets : [];
  const feedSets = parts.includes('feed') ? sets.filter((s) => FEED_SETS[s]) : [];
  const rounds = Number(opt.rounds);
  const dir = mkdtempSync(join(os.tmpdir(), 'feed-apply-'));
  let server;
  let browser;
  try {
    process.stderr.write(`feed-apply: building ${applySets.join(', ')}, publishing ${feedSets.join(', ')} (n = ${fmtInt(Number(opt.n))})\n`);
    const keys = versions();
    const { info } = keys;
    const sizes = await build(dir, applySets, keys);
    const feedSizes = await publishFeeds(dir, feedSets, keys);
    const nodeVersion = spawnSync(opt.node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    let chromiumVersion;
    if (opt.chromium || feedSets.length) server = await serve(dir);
    if (opt.chromium) {
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({ executablePath: opt.chromium, args: CHROMIUM_ARGS, timeout: 30000 });
      chromiumVersion = browser.version();
    }
    const sides = opt.chromium ? ['chromium', 'node'] : ['node'];
    const combos = [
      ...applySets.flatMap((set) => entries.map((entry) => ({ mode: 'apply', set, entry }))),
      ...feedSets.flatMap((set) => entries.map((entry) => ({ mode: 'update', set, entry }))),
    ];
    // res[side][set][entry] = results of each page/process of the hand-made steps, upd the same of FilterFeed.update()
    const res = {};
    const upd = {};
    for (const side of sides) res[side] = Object.fromEntries(applySets.map((s) => [s, Object.fromEntries(entries.map((e) => [e, []]))]));
    for (const side of sides) upd[side] = Object.fromEntries(feedSets.map((s) => [s, Object.fromEntries(entries.map((e) => [e, []]))]));
    for (let round = 0; round < rounds; round++) {
      process.stderr.write(`  round ${round + 1}/${rounds}:`);
      for (let j = 0; j < combos.length; j++) {
        const { mode, set, entry } = combos[(j + round) % combos.length];
        const order = (round + j) % 2 ? [...sides].reverse() : sides;
        for (const side of order) {
          const t = performance.now();
          const r = side === 'node' ? await nodeRun(entry, set, dir, mode, server?.origin) : await pageRun(browser, server.origin, entry, set, mode);
          if (!r.ok || r.checks.errors.length) process.stderr.write(`\n    ${side} ${mode} ${entry} ${set}: ${r.error ?? r.checks.errors.join('; ')}\n`);
          (mode === 'update' ? upd : res)[side][set][entry].push(r);
          process.stderr.write(` ${side[0]}:${mode === 'update' ? 'feed:' : ''}${entry}/${set} ${fmtNum((performance.now() - t) / 1e3, 1)}s`);
        }
      }
      process.stderr.write('\n');
    }
    const text = report({ res, upd, sides, sets: applySets, feedSets, entries, sizes, feedSizes, info, mach, nodeVersion, chromiumVersion, rounds, wall });
    console.log(text);
    if (!opt['no-write']) {
      const file = join(opt.out, 'feed-apply.md');
      const marker = '<!-- findings -->';
      const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
      const kept = old.includes(marker) ? old.slice(old.indexOf(marker)) : `${marker}\n`;
      writeFileSync(file, `${text}\n${kept}`);
      process.stderr.write(`wrote ${relative(ROOT, file)}\n`);
    }
  } finally {
    await browser?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** All runs of one cell joined: { path: { step: [ms...] } }, plus the checks and the per-page medians of the totals. */
function joined(list) {
  const ok = list.filter((r) => r.ok);
  const out = { bytes: {}, inPlace: {}, parts: {}, pages: ok.length, failed: list.length - ok.length, checks: { runs: 0, resultMismatch: 0, shaMismatch: 0, addedMissing: 0, errors: 0 }, pageTotals: [] };
  for (const r of ok) {
    for (const path of ['bytes', 'inPlace', 'parts']) for (const [k, v] of Object.entries(r[path])) (out[path][k] ??= []).push(...v);
    for (const k of ['runs', 'resultMismatch', 'shaMismatch', 'addedMissing']) out.checks[k] += r.checks[k];
    out.checks.errors += r.checks.errors.length;
    if (r.bytes.total.length) out.pageTotals.push(median(r.bytes.total));
  }
  return out;
}

/** All runs of one FilterFeed.update() cell joined: { step: [ms...] } with the estimated variants, checks, page medians. */
function joinedUpdate(list) {
  const ok = list.filter((r) => r.ok);
  const out = { steps: {}, pages: ok.length, failed: list.length - ok.length, checks: { runs: 0, resultMismatch: 0, shaMismatch: 0, addedMissing: 0, errors: 0 }, pageTotals: [] };
  for (const r of ok) {
    for (const [k, v] of Object.entries(r.update)) (out.steps[k] ??= []).push(...v);
    const u = r.update;
    (out.steps[VARIANT_A] ??= []).push(...u.total.map((t, i) => t - u.toBytes[i]));
    (out.steps[VARIANT_B] ??= []).push(...u.total.map((t, i) => t - u.toBytes[i] - u['verify result'][i]));
    for (const k of ['runs', 'resultMismatch', 'shaMismatch', 'addedMissing']) out.checks[k] += r.checks[k];
    out.checks.errors += r.checks.errors.length;
    if (u.total.length) out.pageTotals.push(median(u.total));
  }
  return out;
}
const VARIANT_A = 'total − toBytes (estimate: the held bytes kept)';
const VARIANT_B = 'total − toBytes − verify result (estimate: bytes kept, no result SHA-256)';
const UPDATE_TITLE = { manifest: 'manifest (fetch, Ed25519 verify, parse)', 'manifest: request': '… of it: the request, to the headers', 'manifest: Ed25519': '… of it: Ed25519 (importKey + verify)', 'patch download: request': '… of it: the request, to the headers', toBytes: 'toBytes of the held filter', 'verify patch': "verify patch (SHA-256)", apply: 'apply (applyPatchBytes)', 'verify result': 'verify result (SHA-256)', fromBytes: 'fromBytes', rest: 'rest (gaps, swap, dispose)', total: '**total**', 'client work': 'client work (total − manifest − patch download)' };

function report({ res, upd, sides, sets, feedSets, entries, sizes, feedSizes, info, mach, nodeVersion, chromiumVersion, rounds, wall }) {
  const sideName = { chromium: `Chromium ${chromiumVersion}`, node: `Node.js ${nodeVersion}` };
  const cols = sides.flatMap((side) => entries.map((e) => ({ side, entry: e, head: `${side === 'chromium' ? 'Chromium' : 'Node.js'} ${e}` })));
  const md = ['# Applying a feed patch: 1% churn on a 1,000,000-entry filter', ''];
  md.push(
    `Made by ${madeBy('feed-apply.mjs')} in ${fmtNum((performance.now() - wall) / 60e3, 1)} min on ${mach.cpu} (${mach.cores} cores, ${mach.memoryGiB} GiB, ${mach.os}), ` +
      `shared with other engineers' builds and tests: load average ${mach.loadAverageAtStart.join(' ')} at start, ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} at end. ` +
      (chromiumVersion ? `Headless Chromium ${chromiumVersion} (${opt.chromium}, playwright-core), pages served from 127.0.0.1 under \`${STRICT_CSP}\`, the work done by the page's own script; ` : '') +
      `Node.js ${nodeVersion} beside it (one process per entry, set and round), both importing dist/reader.mjs and dist/index.mjs. ` +
      (chromiumVersion ? `Pages cross-origin isolated (performance.now() to 5 µs): ${[...sets.flatMap((s) => entries.flatMap((e) => res.chromium[s][e])), ...feedSets.flatMap((s) => entries.flatMap((e) => upd.chromium[s][e]))].filter((r) => r.isolated).length} of ${(sets.length + feedSets.length) * entries.length * rounds}. ` : '') +
      `${rounds} rounds × ${RUNS} timed runs (after ${WARMUP} untimed) per cell: ${rounds * RUNS} runs. Cells: **median · p90** in ms (p90 by nearest rank). See the header of bench/feed-apply.mjs.`,
    '',
    `Keys: ${fmtInt(Number(opt.n))} of bench/data.mjs's domains (${fmtInt(info.keys - info.derived)} real blocklisted domains, the rest derived from them as cdn.<domain>, api.<domain>, …; digest ${info.digest}); ` +
      `version 2 deletes every ${Math.round(1 / Number(opt.churn))}th (${fmtInt(info.deleted)}; not for the Bloom filter) and adds the next ${fmtInt(info.added)}. Capacity ${fmtInt(Number(opt.capacity))}, ε = ${opt.eps}.`,
    '',
  );
  if (feedSets.length) md.push(...feedReport({ upd, sides, feedSets, entries, feedSizes, cols }));
  if (!sets.length) return md.join('\n');
  md.push(
    '## Sizes',
    '',
    markdownTable(
      ['set', 'filter v1 bytes', 'v2 bytes', 'bits/item', 'patch bytes', 'bytes per changed key', 'patch / filter', 'parameters'],
      sets.map((s) => {
        const z = sizes[s];
        return [SETS[s].what, fmtInt(z.v1), fmtInt(z.v2), fmtNum(z.bitsPerItem, 2), fmtInt(z.patch), fmtNum(z.patch / z.changes, 2), `${fmtNum((100 * z.patch) / z.v2, 2)}%`, z.detail];
      }),
    ),
    '',
  );
  const j = {};
  for (const side of sides) for (const s of sets) for (const e of entries) ((j[side] ??= {})[s] ??= {})[e] = joined(res[side][s][e]);

  md.push('## The target: the bytes path in total (≤ 50 ms in Chromium)', '');
  md.push(
    markdownTable(
      ['set', ...cols.map((c) => c.head)],
      sets.map((s) => [SETS[s].what, ...cols.map((c) => {
        const t = j[c.side][s][c.entry].bytes.total;
        if (!t?.length) return '—';
        return `${cell(t)} ${c.side === 'chromium' ? (p90(t) <= 50 ? '(meets)' : median(t) <= 50 ? '(median meets, p90 not)' : '**(misses)**') : ''}`.trim();
      })]),
    ),
    '',
  );
  const titles = {
    bytes: 'The bytes path: verify patch → applyPatchBytes → verify result → fromBytes → swap',
    inPlace: 'In place: verify patch → filter.applyPatch → toBytes → verify result',
    parts: 'Parts, each timed alone (the floor)',
  };
  for (const s of sets) {
    md.push(`## ${SETS[s].what}`, '');
    for (const path of ['bytes', 'inPlace', 'parts']) {
      const steps = Object.keys(j[sides[0]][s][entries[0]][path]);
      md.push(`### ${titles[path]}`, '');
      md.push(markdownTable(['step', ...cols.map((c) => c.head)], steps.map((k) => [k === 'total' ? '**total**' : k, ...cols.map((c) => cell(j[c.side][s][c.entry][path][k]))])), '');
    }
  }
  md.push('## Variance', '');
  md.push(
    'The bytes path\'s total: min–max over all runs, and the median of each page (or process) in run order, which shows a disturbance by the other work on the machine. Checks: runs whose result was not version 2 byte for byte, SHA-256 mismatches, sampled added keys not found, errors (all must be 0).',
    '',
  );
  md.push(
    markdownTable(
      ['set', 'side, entry', 'runs', 'total min–max', 'page medians', 'checks (mismatch / sha / missing / errors)'],
      sets.flatMap((s) => cols.map((c) => {
        const x = j[c.side][s][c.entry];
        const ck = x.checks;
        return [SETS[s].what, c.head, String(ck.runs) + (x.failed ? ` (${x.failed} pages failed)` : ''), spread(x.bytes.total), x.pageTotals.map(ms).join(', '), `${ck.resultMismatch} / ${ck.shaMismatch} / ${ck.addedMissing} / ${ck.errors}`];
      })),
    ),
    '',
  );
  return md.join('\n');
}

/** The section of FilterFeed.update(): lines of Markdown. */
function feedReport({ upd, sides, feedSets, entries, feedSizes, cols }) {
  const what = { cuckoo: 'CuckooFilter (default, semi-sorted buckets)', bloom: 'BloomFilter (adds only)' };
  const j = {};
  for (const side of sides) for (const s of feedSets) for (const e of entries) ((j[side] ??= {})[s] ??= {})[e] = joinedUpdate(upd[side][s][e]);
  const md = ['## FilterFeed.update() end to end: version 1 → 2 by patch', ''];
  md.push(
    'The real client: a feed published by `publish()` (dist/node.mjs) from the same keys (version 1; version 2 deletes every ' +
      `${Math.round(1 / Number(opt.churn))}th key, not for the Bloom filter, whose publish would build it again fullOnly, and adds the next ones), its manifest signed with Ed25519, ` +
      'served by a node:http server of the runner on 127.0.0.1 (the page\'s own origin, under the strict CSP); the page\'s own script (or a Node.js process) opens `FilterFeed` of the entry with ' +
      'the public key, a store preloaded with version 1 and `updateOnOpen: false` (open makes no request), then times `await feed.update()`, which must go to version 2 by `patch`. ' +
      'Steps are seen through what the feed calls (its `fetch` option, the held filter\'s `toBytes`, `SubtleCrypto.prototype.digest`, `importKey` and `verify`, the class\'s `fromBytes`, the store\'s `save`); see bench/feed-update-steps.mjs. ' +
      'The two estimates subtract, run by run, the steps a design change would drop.',
    '',
    markdownTable(
      ['set', 'full v1 bytes', 'v2 bytes', 'patch bytes', 'entries v2', 'added / removed', 'bytes per changed key'],
      feedSets.map((s) => {
        const z = feedSizes[s];
        return [what[s], fmtInt(z.v1), fmtInt(z.v2), fmtInt(z.patch), fmtInt(z.entries), `${fmtInt(z.added)} / ${fmtInt(z.removed)}`, fmtNum(z.patch / z.changes, 2)];
      }),
    ),
    '',
    '### The target: `await feed.update()` in total (≤ 50 ms in Chromium)',
    '',
    markdownTable(
      ['set', ...cols.map((c) => c.head)],
      feedSets.map((s) => [what[s], ...cols.map((c) => {
        const t = j[c.side][s][c.entry].steps.total;
        if (!t?.length) return '—';
        return `${cell(t)} ${c.side === 'chromium' ? (p90(t) <= 50 ? '(meets)' : median(t) <= 50 ? '(median meets, p90 not)' : '**(misses)**') : ''}`.trim();
      })]),
    ),
    '',
  );
  for (const s of feedSets) {
    md.push(`### ${what[s]}: the steps of update()`, '');
    md.push(markdownTable(['step', ...cols.map((c) => c.head)], [...UPDATE_STEPS, VARIANT_A, VARIANT_B].map((k) => [UPDATE_TITLE[k] ?? k, ...cols.map((c) => cell(j[c.side][s][c.entry].steps[k]))])), '');
  }
  md.push('### update(): variance and checks', '');
  md.push('Checks: runs whose saved bytes were not version 2\'s full file byte for byte, whose saved SHA-256 was not the manifest\'s, sampled added keys not found, errors (all must be 0).', '');
  md.push(
    markdownTable(
      ['set', 'side, entry', 'runs', 'total min–max', 'page medians', 'checks (mismatch / sha / missing / errors)'],
      feedSets.flatMap((s) => cols.map((c) => {
        const x = j[c.side][s][c.entry];
        const ck = x.checks;
        return [what[s], c.head, String(ck.runs) + (x.failed ? ` (${x.failed} pages failed)` : ''), spread(x.steps.total), x.pageTotals.map(ms).join(', '), `${ck.resultMismatch} / ${ck.shaMismatch} / ${ck.addedMissing} / ${ck.errors}`];
      })),
    ),
    '',
  );
  return md;
}

(opt['node-side'] ? nodeSide() : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
