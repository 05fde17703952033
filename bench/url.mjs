// URL lookups per second: the library's hasUrl and hasAllUrls (Safe Browsing's
// canonicalization, host-suffix × path-prefix expressions, hashing and probes,
// all in the core, one crossing per URL or per chunk) against the same rules
// in JavaScript (bench/url-reference.mjs, checked against the library by
// tests/js/url-reference.test.ts) probed with bloomfilter@1.1.0's test() at
// the same per-key ε (the same m and k as this library's BloomFilter).
//
//   node bench/url.mjs                          # ε = 0.1% and 1%, 7 rounds
//   node bench/url.mjs --eps 0.001 --runs 3 --no-write
//
// Options: --eps E[,E] (default 0.001,0.01), --runs R (rounds, default 7),
// --passes P (timed passes per measurement, the fastest kept; default 3),
// --data DIR (folder with phishing_urls.txt and benign_domains.txt; default
// ../shared/data), --out DIR (default bench/results), --no-write (print only),
// --queries-out FILE (write the queries, one per line, and stop: the list
// bench/native/url_bench --queries=FILE times natively).
//
// Members: the 49,256 distinct lines of phishing_urls.txt. The library's
// filters get them with addUrls (each stored as its entry expression); the
// baseline adds each one's entry expression (url-reference.mjs entryExpression)
// with bloomfilter's add(). Queries, 50/50 and shuffled (seeded): every member
// once, as published (i % 3 = 0), with a fragment (i % 3 = 1), or one level
// deeper (i % 3 = 2: "account/verify.php?session=…" appended to a URL whose
// path is a directory, when the member's expression is then still among the
// URL's expressions; otherwise the fragment form); and as many benign URLs,
// "https://<benign domain>/<path>", every 4th line of benign_domains.txt
// with a seeded choice of realistic paths (0 to 6 segments, some with a query
// or a fragment). A query counts as listed when one of its expressions (by the
// reference) is a member's entry expression: listed queries must be found by
// every implementation (false negatives are counted and printed); on the
// others each implementation has its own false positives, and every query
// where they answer differently is printed.
//
// Implementations, each in its own process (a fork of this script): "JS rules +
// bloomfilter" (canonicalize, expressions, then test() per expression until the
// first hit), cuckoo-wasm's CuckooFilter and BloomFilter; a fourth process
// times the JS baseline's parts. Each loads the queries, builds its filter,
// warms up with two untimed runs of everything it times, then runs once per
// round; the rounds interleave the processes (the order rotates each round),
// so a disturbance on a shared machine hits all alike. Ratios are medians of
// per-round ratios (min–max), as in bench/run.mjs. Each measurement is the
// fastest of --passes passes over all queries.
//
// Also measured, to show where the time goes (ns per URL):
//   JS, in its own process: canonicalize() alone; expressions() alone (of
//   canonical URLs made beforehand); test() per expression until the first hit
//   alone (expressions made beforehand). Those inputs are kept out of the
//   process that times hasUrl: alive there, they would slow its hasUrl (V8
//   then allocates the objects of canonicalize() and expressions() in the old
//   generation).
//   cuckoo-wasm: has(url) (the URL copied into wasm memory, one crossing, one
//   hash and probe: the floor of any one-URL call); the core's canonicalization
//   alone and canonicalization + expressions (the url_canonicalize and
//   url_expressions exports through the module's internal Core, which no public
//   method exposes without building strings); hasUrl; hasAllUrls.
//   Build: addUrls of all members into a fresh filter, against
//   entryExpression + add() per member.
//
// Writes bench/results/url.md (the tables) and bench/results/tmp/url-eps*.json
// (every run's numbers; not committed). Prints the tables.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT, digest, locateData, readLines } from './data.mjs';
import { epsLabel, fmtInt, fmtNum, fmtOps, fmtPct, helpText, loadAverage, machine, madeBy, markdownTable, ratioCell as ratio } from './report.mjs';
import { bloomFilterSize } from './adapters.mjs';
import { Worker, rotate, serve } from './rounds.mjs';
import { bestOf, nowMs, pairedRatio, stats } from './stats.mjs';
import { canonicalize, entryExpression, expressions } from './url-reference.mjs';

const { values: opt } = parseArgs({
  options: {
    eps: { type: 'string', default: '0.001,0.01' },
    runs: { type: 'string', default: '7' },
    passes: { type: 'string', default: '3' },
    data: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'bench', 'results') },
    'no-write': { type: 'boolean', default: false },
    'queries-out': { type: 'string' },
    // Worker mode (set by the driver).
    worker: { type: 'string' },
    queries: { type: 'string' },
    m: { type: 'string' },
    k: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (opt.help) {
  console.log(helpText(import.meta.url, '\n\nMembers'));
  process.exit(0);
}

const PASSES = Number(opt.passes);

/** The worker processes: the three implementations, and the JS baseline's parts timed one by one. */
const WORKERS = ['js', 'js-parts', 'cuckoo', 'bloom'];
/** The implementations, in table order. */
const IMPLS = [
  { id: 'js', name: 'JS rules + bloomfilter', version: 'bench/url-reference.mjs + bloomfilter@1.1.0' },
  { id: 'cuckoo', name: 'cuckoo-wasm CuckooFilter', version: 'dist/index.mjs' },
  { id: 'bloom', name: 'cuckoo-wasm BloomFilter', version: 'dist/index.mjs' },
];

// ---------------------------------------------------------------------------
// The workload (driver).

/** xorshift32 from a fixed seed: the same queries on every run and machine. */
function random(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/** Paths of benign URLs: what pages link to (segments, files, queries, fragments). */
const BENIGN_PATHS = [
  '',
  'index.html',
  'about/',
  'contact',
  'login',
  'wiki/Main_Page',
  'images/logo.png',
  'static/js/app.3f9a1c.min.js',
  'news/2024/05/17/city-council-votes-on-budget.html',
  'search?q=weather+tomorrow&hl=en',
  'products/shoes/running/item-48213?color=blue&size=42',
  'user/settings/profile',
  'blog/how-to-bake-bread/#comments',
  'api/v2/items/12345/reviews?page=3&sort=recent',
  'docs/guide/getting-started/install/linux/',
  'en-us/support/article/12345',
  'watch?v=dQw4w9WgXcQ',
  'a/b/c/d/e/f.html',
  'category/sports/football/',
  'assets/fonts/roboto-regular.woff2',
];

/**
 * Members, queries and which queries are listed, as described at the top.
 * Every query canonicalizes (the reference checks; one that would not is left out and counted).
 */
function workload(dir) {
  const files = locateData(dir);
  if (!files.urls || files.sample) throw new Error('the URL benchmark needs phishing_urls.txt and benign_domains.txt (../shared/data or --data DIR)');
  const members = [...new Set(readLines(files.urls))];
  const entries = new Set(members.map(entryExpression));
  const isListed = (url) => {
    for (const e of expressions(canonicalize(url))) if (entries.has(e)) return true;
    return false;
  };
  const listedQueries = [];
  const variants = { published: 0, fragment: 0, deeper: 0 };
  for (let i = 0; i < members.length; ++i) {
    const u = members[i];
    let q = u;
    if (i % 3 === 1) q = `${u}#main`;
    if (i % 3 === 2) {
      const c = canonicalize(u);
      const directory = !c.hasQuery && c.url.charCodeAt(c.pathEnd - 1) === 0x2f && !u.includes('#') && !u.includes('?');
      const deeper = `${u}${u.endsWith('/') ? '' : '/'}account/verify.php?session=4f2a9c17`;
      q = directory && isListed(deeper) ? deeper : `${u}#main`;
    }
    variants[q === u ? 'published' : q.endsWith('#main') ? 'fragment' : 'deeper'] += 1;
    listedQueries.push(q);
  }
  const next = random(0x5eed);
  const benign = readLines(files.benign);
  const benignQueries = [];
  let refused = 0;
  for (let i = 0; i < benign.length && benignQueries.length < members.length; i += 4) {
    const q = `https://${benign[i]}/${BENIGN_PATHS[Math.floor(next() * BENIGN_PATHS.length)]}`;
    try {
      canonicalize(q);
      benignQueries.push(q);
    } catch {
      ++refused;
    }
  }
  // Shuffle the two halves together (Fisher–Yates, seeded).
  const queries = [...listedQueries, ...benignQueries];
  for (let i = queries.length - 1; i > 0; --i) {
    const j = Math.floor(next() * (i + 1));
    [queries[i], queries[j]] = [queries[j], queries[i]];
  }
  const listed = queries.map((q) => (isListed(q) ? 1 : 0));
  const benignListed = benignQueries.filter(isListed).length;
  let expressionCount = 0;
  let probes = 0; // expressions tried until the first that is an entry (all of them when none is)
  for (const q of queries) {
    const e = expressions(canonicalize(q));
    expressionCount += e.length;
    const hit = e.findIndex((x) => entries.has(x));
    probes += hit < 0 ? e.length : hit + 1;
  }
  return {
    members,
    queries,
    listed,
    stats: {
      members: members.length,
      queries: queries.length,
      listedQueries: listedQueries.length,
      benignQueries: benignQueries.length,
      benignRefused: refused,
      benignListed,
      listed: listed.reduce((a, b) => a + b, 0),
      variants,
      expressionsPerQuery: expressionCount / queries.length,
      probesPerQuery: probes / queries.length,
      bytesPerQuery: queries.reduce((n, q) => n + Buffer.byteLength(q), 0) / queries.length,
    },
    digest: `${digest(members)}/${digest(queries)}`,
  };
}

// ---------------------------------------------------------------------------
// Workers: one implementation per process.

/** The timed parts of one implementation: name -> () => number, and the answers of its lookup. */
async function setUp(impl, members, queries, m, k) {
  if (impl === 'js' || impl === 'js-parts') {
    const { BloomFilter } = await import('bloomfilter');
    const build = () => {
      const b = new BloomFilter(m, k);
      for (let i = 0; i < members.length; ++i) b.add(entryExpression(members[i]));
      return b;
    };
    const bloom = build();
    const has = (url) => {
      const e = expressions(canonicalize(url));
      for (let i = 0; i < e.length; ++i) if (bloom.test(e[i])) return true;
      return false;
    };
    const params = `m=${bloom.m} bits k=${bloom.k}`;
    if (impl === 'js') {
      return {
        params,
        answers: Uint8Array.from(queries, (q) => (has(q) ? 1 : 0)),
        parts: {
          hasUrl: () => {
            let hits = 0;
            for (let i = 0; i < queries.length; ++i) if (has(queries[i])) ++hits;
            return hits;
          },
        },
        async build() {
          const t0 = nowMs();
          build();
          return { ms: nowMs() - t0, n: members.length };
        },
      };
    }
    // The inputs of the expressions and probes passes are copies of what
    // canonicalize() and expressions() return, so that those functions' own
    // objects still die young: V8 allocates straight in the old generation at
    // an allocation site whose objects survive (pretenuring), which would
    // slow both functions for the rest of the process.
    const canons = queries.map((q) => ({ ...canonicalize(q) }));
    const exprs = canons.map((c) => expressions(c).slice());
    return {
      params,
      parts: {
        canonicalize: () => {
          let n = 0;
          for (let i = 0; i < queries.length; ++i) n += canonicalize(queries[i]).url.length;
          return n;
        },
        expressions: () => {
          let n = 0;
          for (let i = 0; i < canons.length; ++i) n += expressions(canons[i]).length;
          return n;
        },
        probes: () => {
          let hits = 0;
          for (let i = 0; i < exprs.length; ++i) {
            const e = exprs[i];
            for (let j = 0; j < e.length; ++j) {
              if (bloom.test(e[j])) {
                ++hits;
                break;
              }
            }
          }
          return hits;
        },
      },
    };
  }
  const lib = await import(pathToFileURL(join(ROOT, 'dist', 'index.mjs')).href);
  const Filter = impl === 'cuckoo' ? lib.CuckooFilter : lib.BloomFilter;
  const eps = Number(opt.eps);
  const make = async () => Filter.create({ capacity: members.length, falsePositiveRate: eps });
  const f = await make();
  f.addUrls(members);
  // Internal: the module's Core (js/boundary/wasm-core.ts) for the two split rows of the core's canonicalization and
  // expressions, which no public method and no test-only entry gives without building strings; without it
  // those rows are left empty.
  const core = typeof f.core?.urlCanonicalize === 'function' && typeof f.core.urlExpressions === 'function' ? f.core : null;
  if (!core) process.stderr.write(`url bench (${impl}): no internal Core with urlCanonicalize/urlExpressions: those two rows are left empty\n`);
  const answers = Uint8Array.from(queries, (q) => (f.hasUrl(q) ? 1 : 0));
  const batch = f.hasAllUrls(queries);
  const batchMismatches = batch.reduce((n, b, i) => n + (b !== (answers[i] === 1) ? 1 : 0), 0);
  return {
    params: impl === 'cuckoo' ? `f=${f.fingerprintBits} b=${f.bucketSize} m=${f.bucketCount}` : `m=${f.bitCount} bits k=${f.hashCount}`,
    answers,
    batchMismatches,
    parts: {
      hasUrl: () => {
        let hits = 0;
        for (let i = 0; i < queries.length; ++i) if (f.hasUrl(queries[i])) ++hits;
        return hits;
      },
      hasAllUrls: () => {
        const r = f.hasAllUrls(queries);
        let hits = 0;
        for (let i = 0; i < r.length; ++i) if (r[i]) ++hits;
        return hits;
      },
      has: () => {
        let hits = 0;
        for (let i = 0; i < queries.length; ++i) if (f.has(queries[i])) ++hits;
        return hits;
      },
      ...(core && {
        coreCanonicalize: () => {
          let s = 0;
          for (let i = 0; i < queries.length; ++i) s += core.urlCanonicalize(queries[i], undefined);
          return s;
        },
        coreExpressions: () => {
          let n = 0;
          for (let i = 0; i < queries.length; ++i) n += core.urlExpressions(queries[i], undefined);
          return n;
        },
      }),
    },
    /** addUrls of every member into a fresh filter (created outside the timed part). */
    async build() {
      const g = await make();
      const t0 = nowMs();
      const n = g.addUrls(members);
      const ms = nowMs() - t0;
      g.dispose();
      return { ms, n };
    },
  };
}

/** Worker mode: sets up one implementation, warms it up; run() is one round's measurements. */
async function workerSetUp() {
  const impl = opt.worker;
  const { members, queries, digest: keysDigest } = JSON.parse(readFileSync(opt.queries, 'utf8'));
  const s = await setUp(impl, members, queries, Number(opt.m), Number(opt.k));
  const run = async () => {
    const r = {};
    for (const [name, pass] of Object.entries(s.parts)) r[name] = queries.length / (bestOf(pass, { passes: PASSES }).ms / 1e3);
    if (!s.build) return r;
    // Build: every member into a fresh filter, the fastest of PASSES builds.
    let best = Infinity;
    for (let i = 0; i < PASSES; ++i) {
      const { ms, n } = await s.build();
      if (n !== members.length) throw new Error(`the build added ${n} of ${members.length} members`);
      best = Math.min(best, ms);
    }
    r.build = members.length / (best / 1e3);
    return r;
  };
  // Warm-up: two untimed rounds of everything.
  for (let i = 0; i < 2; ++i) await run();
  return {
    run,
    info: { digest: keysDigest, params: s.params, batchMismatches: s.batchMismatches ?? 0, answers: s.answers ? Buffer.from(s.answers).toString('base64') : null },
  };
}

// ---------------------------------------------------------------------------
// Driver.

const nsPerUrl = (opsPerS) => (opsPerS ? 1e9 / opsPerS : null);

const ratioCell = (r) => ratio(r, { bold: true });
const opsCell = (values) => {
  const s = stats(values);
  if (s.median == null) return '—';
  return `${fmtOps(s.median)} (${fmtOps(s.min)}–${fmtOps(s.max)})`;
};
const nsCell = (values) => {
  const s = stats(values.map(nsPerUrl));
  if (s.median == null) return '—';
  return `${fmtNum(s.median, 0)} (${fmtNum(s.min, 0)}–${fmtNum(s.max, 0)})`;
};

/** Compares the implementations' answers with the listed flags and with each other. */
function checkAnswers(work, answers) {
  const out = { perImpl: {}, disagreements: [] };
  for (const [impl, a] of Object.entries(answers)) {
    let falseNegatives = 0;
    let falsePositives = 0;
    const missed = [];
    for (let i = 0; i < a.length; ++i) {
      if (work.listed[i] && !a[i]) {
        ++falseNegatives;
        if (missed.length < 10) missed.push(work.queries[i]);
      }
      if (!work.listed[i] && a[i]) ++falsePositives;
    }
    out.perImpl[impl] = { falseNegatives, falsePositives, missed, urlFpr: falsePositives / (a.length - work.stats.listed) };
  }
  const ids = Object.keys(answers);
  for (let i = 0; i < work.queries.length; ++i) {
    const said = ids.map((id) => answers[id][i]);
    if (said.some((x) => x !== said[0])) {
      out.disagreements.push({ query: work.queries[i], listed: !!work.listed[i], ...Object.fromEntries(ids.map((id, j) => [id, !!said[j]])) });
    }
  }
  return out;
}

async function runEps(eps, work, queryFile, runs, m, k) {
  process.stderr.write(`\nε = ${epsLabel(eps)}: starting ${WORKERS.length} workers (load, build, warm up)\n`);
  const t0 = nowMs();
  const args = ['--queries', queryFile, '--eps', String(eps), '--passes', String(PASSES), '--m', String(m), '--k', String(k)];
  const script = new URL(import.meta.url).pathname;
  const workers = WORKERS.map((id) => new Worker(id, script, ['--worker', id, ...args], { execArgv: ['--max-old-space-size=4096'] }));
  const ready = {};
  // One at a time: on a shared 2-core machine parallel warm-ups would disturb each other's JIT.
  for (const w of workers) ready[w.impl] = (await w.ready).info;
  for (const w of workers) if (ready[w.impl].digest !== work.digest) throw new Error(`${w.impl} loaded other queries`);
  process.stderr.write(`  warm-up ${((nowMs() - t0) / 1e3).toFixed(1)} s\n`);
  const results = Object.fromEntries(WORKERS.map((id) => [id, []]));
  for (let round = 0; round < runs; ++round) {
    process.stderr.write(`  round ${round + 1}/${runs}:`);
    for (const w of rotate(workers, round)) {
      const rs = nowMs();
      results[w.impl].push(await w.run());
      process.stderr.write(` ${w.impl} ${((nowMs() - rs) / 1e3).toFixed(1)}s;`);
    }
    process.stderr.write('\n');
  }
  for (const w of workers) w.close();
  const answers = Object.fromEntries(IMPLS.map((i) => [i.id, Buffer.from(ready[i.id].answers, 'base64')]));
  const check = checkAnswers(work, answers);
  return { eps, results, params: Object.fromEntries(IMPLS.map((i) => [i.id, ready[i.id].params])), batchMismatches: Object.fromEntries(IMPLS.map((i) => [i.id, ready[i.id].batchMismatches])), check, elapsedS: (nowMs() - t0) / 1e3 };
}

/** Disagreements listed in url.md (the console gets all). */
const SHOWN_DISAGREEMENTS = 20;
const disagreementLine = (d) => `${IMPLS.map((i) => `${i.id}=${d[i.id] ? 1 : 0}`).join(' ')} ${d.listed ? 'listed' : 'benign'} ${d.query}`;

function report(cfg, work) {
  const { results: R, check } = cfg;
  const js = R.js;
  const lines = [];
  lines.push(`## ε = ${epsLabel(cfg.eps)} per key`, '');
  lines.push(
    `Parameters: bloomfilter ${cfg.params.js}; CuckooFilter ${cfg.params.cuckoo}; BloomFilter ${cfg.params.bloom}. ` +
      `A URL is looked up by up to 30 expressions, so its false-positive rate is up to 1 − (1 − ε)^30 ≈ ${fmtPct(1 - (1 - cfg.eps) ** 30)}; ` +
      `these queries have ${fmtNum(work.stats.expressionsPerQuery, 1)} expressions on average. Wall time ${fmtNum(cfg.elapsedS, 0)} s.`,
    '',
  );
  const rows = [];
  for (const impl of IMPLS) {
    const r = R[impl.id];
    const c = check.perImpl[impl.id];
    const ours = impl.id !== 'js';
    rows.push([
      impl.name,
      String(r.length),
      opsCell(r.map((x) => x.hasUrl)),
      ours ? opsCell(r.map((x) => x.hasAllUrls)) : '—',
      ours ? ratioCell(pairedRatio(r, js, 'hasUrl')) : '1',
      ours ? ratioCell(pairedRatio(r, js, 'hasAllUrls', 'hasUrl')) : '1',
      opsCell(r.map((x) => x.build)),
      ours ? ratioCell(pairedRatio(r, js, 'build')) : '1',
      fmtPct(c.urlFpr),
      c.falseNegatives === 0 ? '0' : `**${fmtInt(c.falseNegatives)}**`,
    ]);
  }
  lines.push(
    markdownTable(
      ['implementation', 'rounds', 'hasUrl URLs/s', 'hasAllUrls URLs/s', 'hasUrl / JS', 'hasAllUrls / JS', 'build URLs/s', 'build / JS', 'URL false positives', 'false neg.'],
      rows,
    ),
    '',
  );
  // Where the time goes.
  const split = [
    ['JS: canonicalize()', nsCell(R['js-parts'].map((x) => x.canonicalize))],
    ['JS: expressions() of canonical URLs', nsCell(R['js-parts'].map((x) => x.expressions))],
    ['JS: bloomfilter test() per expression until the first hit', nsCell(R['js-parts'].map((x) => x.probes))],
    ['JS: the three together (hasUrl)', nsCell(js.map((x) => x.hasUrl))],
  ];
  for (const impl of IMPLS.slice(1)) {
    const r = R[impl.id];
    split.push(
      [`${impl.name}: has(url) (copy, crossing, 1 hash + probe)`, nsCell(r.map((x) => x.has))],
      [`${impl.name}: canonicalization in the core (copy, crossing)`, nsCell(r.map((x) => x.coreCanonicalize))],
      [`${impl.name}: + expressions in the core`, nsCell(r.map((x) => x.coreExpressions))],
      [`${impl.name}: hasUrl (+ hashes and probes)`, nsCell(r.map((x) => x.hasUrl))],
      [`${impl.name}: hasAllUrls, per URL`, nsCell(r.map((x) => x.hasAllUrls))],
    );
  }
  lines.push('Where the time goes, ns per URL, median (min–max) over the rounds:', '');
  lines.push(markdownTable(['step', 'ns/URL'], split), '');
  const bm = Object.entries(cfg.batchMismatches).filter(([, n]) => n > 0);
  const dis = check.disagreements;
  const fn = Object.entries(check.perImpl).filter(([, c]) => c.falseNegatives > 0);
  lines.push(
    `Correctness: ${fn.length === 0 ? `every implementation found all ${fmtInt(work.stats.listed)} listed queries` : `**false negatives: ${fn.map(([id, c]) => `${id} ${c.falseNegatives} (e.g. ${c.missed.slice(0, 3).join(', ')})`).join('; ')}**`}; ` +
      `${bm.length ? `**hasAllUrls differed from hasUrl: ${bm.map(([id, n]) => `${id} ${n}`).join(', ')}**` : 'hasAllUrls gave hasUrl’s answer for every query'}; ` +
      `the implementations answered ${dis.length === 0 ? 'alike on every query' : `differently on ${fmtInt(dis.length)} queries, ${fmtInt(dis.filter((d) => d.listed).length)} of them listed (each one's own false positives on the others)`}.`,
    '',
  );
  if (dis.length) {
    const patterns = new Map();
    for (const d of dis) {
      const key = IMPLS.filter((i) => d[i.id]).map((i) => i.id).join(' + ');
      patterns.set(key, (patterns.get(key) ?? 0) + 1);
    }
    lines.push(
      `Queries answered differently, by who said "listed": ${[...patterns].map(([k, n]) => `${k} ${fmtInt(n)}`).join(', ')}. ` +
        `The first ${Math.min(SHOWN_DISAGREEMENTS, dis.length)} (all of them are printed by the run and kept in tmp/url-eps${cfg.eps}.json):`,
      '',
      '```',
      ...dis.slice(0, SHOWN_DISAGREEMENTS).map(disagreementLine),
      '```',
      '',
    );
  }
  return lines.join('\n');
}

async function driverMain() {
  if (!existsSync(join(ROOT, 'dist', 'index.mjs'))) {
    throw new Error('dist/index.mjs is missing: run `bash scripts/build.sh` (or `npm run bench`, which builds first)');
  }
  const EPSS = opt.eps.split(',').map(Number);
  const RUNS = Number(opt.runs);
  for (const e of EPSS) if (!(e > 0 && e < 1)) throw new Error(`--eps: bad value ${e}`);
  if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs: bad value ${opt.runs}`);
  const wall = nowMs();
  const mach = machine();
  process.stderr.write(`url bench: ε = ${EPSS.map(epsLabel).join(', ')}; ${RUNS} rounds; best of ${PASSES} passes\n`);
  process.stderr.write(`machine: ${mach.cpu}, ${mach.cores} cores, node ${mach.node}, load average ${mach.loadAverageAtStart.join(' ')}\n`);
  const work = workload(opt.data);
  const st = work.stats;
  if (opt['queries-out']) {
    writeFileSync(opt['queries-out'], `${work.queries.join('\n')}\n`);
    process.stderr.write(`wrote ${fmtInt(st.queries)} queries to ${opt['queries-out']}\n`);
    return;
  }
  process.stderr.write(
    `queries: ${fmtInt(st.queries)} (${fmtInt(st.listedQueries)} from the list: ${st.variants.published} as published, ${st.variants.fragment} with a fragment, ${st.variants.deeper} deeper; ` +
      `${fmtInt(st.benignQueries)} benign, ${st.benignListed} of which are under a listed entry); ${fmtNum(st.expressionsPerQuery, 1)} expressions and ${fmtNum(st.bytesPerQuery, 0)} bytes per query\n`,
  );
  const tmp = mkdtempSync(join(os.tmpdir(), 'url-bench-'));
  const queryFile = join(tmp, 'queries.json');
  writeFileSync(queryFile, JSON.stringify({ members: work.members, queries: work.queries, digest: work.digest }));
  const configs = [];
  try {
    for (const eps of EPSS) {
      const { bits, hashes } = await bloomFilterSize(work.members.length, eps);
      configs.push(await runEps(eps, work, queryFile, RUNS, bits, hashes));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  mach.loadAverageAtEnd = loadAverage();
  const totalS = (nowMs() - wall) / 1e3;

  const md = [];
  md.push('# URL lookups: cuckoo-wasm against the same rules in JavaScript', '');
  md.push(
    `Made by ${madeBy('url.mjs')} in ${fmtNum(totalS / 60, 1)} min on ${mach.cpu} (${mach.cores} cores), ` +
      `node ${mach.node} (V8 ${mach.v8}), ${mach.os}; load average ${mach.loadAverageAtStart.join(' ')} at start, ${mach.loadAverageAtEnd.join(' ')} at end (this benchmark included). ` +
      `Cells: median over the rounds (min–max); each round runs every implementation once, in rotating order; ratios are medians of per-round ratios. See the header of bench/url.mjs for the method.`,
    '',
    `Members: the ${fmtInt(st.members)} distinct URLs of phishing_urls.txt. Queries: ${fmtInt(st.queries)}, shuffled: ${fmtInt(st.listedQueries)} from the list ` +
      `(${fmtInt(st.variants.published)} as published, ${fmtInt(st.variants.fragment)} with a fragment, ${fmtInt(st.variants.deeper)} one directory deeper) and ` +
      `${fmtInt(st.benignQueries)} benign \`https://<domain>/<path>\` (${st.benignListed} of them fall under a listed entry and count as listed); ` +
      `${fmtNum(st.expressionsPerQuery, 1)} expressions, ${fmtNum(st.probesPerQuery, 1)} probes until the first hit and ${fmtNum(st.bytesPerQuery, 0)} bytes per query on average. ` +
      'Baseline: bench/url-reference.mjs (canonicalize + expressions, agreeing with the library on all 49,256 URLs: tests/js/url-reference.test.ts) and bloomfilter@1.1.0 `test()` per expression until the first hit, ' +
      'with the m and k of this library’s BloomFilter at the same capacity and ε. hasUrl: one call per URL; hasAllUrls: one call for all queries (one crossing per chunk).',
    '',
  );
  for (const cfg of configs) md.push(report(cfg, work));
  const text = md.join('\n');
  console.log(text);
  for (const cfg of configs) {
    console.log(`\nε = ${epsLabel(cfg.eps)}: all ${cfg.check.disagreements.length} queries answered differently:`);
    for (const d of cfg.check.disagreements) console.log(disagreementLine(d));
  }
  console.log(`total wall time: ${fmtNum(totalS, 1)} s`);
  if (!opt['no-write']) {
    const raw = join(opt.out, 'tmp');
    mkdirSync(raw, { recursive: true });
    for (const cfg of configs) {
      writeFileSync(
        join(raw, `url-eps${cfg.eps}.json`),
        JSON.stringify({ machine: mach, workload: work.stats, passes: PASSES, ...cfg, check: { ...cfg.check, disagreements: cfg.check.disagreements } }, null, 1) + '\n',
      );
    }
    writeFileSync(join(opt.out, 'url.md'), text);
    process.stderr.write(`wrote ${relative(ROOT, join(opt.out, 'url.md'))}; raw numbers: ${relative(ROOT, raw)}/url-eps*.json (not committed)\n`);
  }
}

if (opt.worker) serve(workerSetUp, (ctx) => ctx.run());
else {
  driverMain().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
