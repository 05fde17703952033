// A/B of two builds of the package in one process, interleaved: the speed
// check of a change that should not cost any (issue 23: every row within 3%).
//
//   node bench/ab.mjs A/dist/index.mjs B/dist/index.mjs [--rounds 15] [--n 100000] [--loads 20]
//                     [--chromium /usr/bin/chromium] [--only-load]
//
// Both builds are imported into this process (each its own module instance and
// wasm instance) and fed the same keys. Each round times every row once for A
// and once for B, the order of A and B alternating round by round, so a
// disturbance of a shared machine hits both alike. A measurement is the
// fastest of 3 passes. Rows (ns per key; lower is better):
//   has, hasAll        CuckooFilter (defaults, ε = 0.1%) of n blocklisted
//                      domains, queried with n members and n benign domains
//   hasUrl, hasAllUrls CuckooFilter given the phishing URLs (addUrls), queried
//                      with them and as many benign URLs, one call each / in one batch
//   bloom has, bloom hasAll   BloomFilter (ε = 1%) of the n domains, the same queries
//   packed hasAll, redis cf hasAll, redis bf hasAll, fuse hasAll   hasAll of the same
//                      queries on CuckooFilter with semiSort: false, RedisCuckooFilter
//                      (CF.RESERVE n, bucket size 2), RedisBloomFilter (BF.RESERVE 0.1% n
//                      NONSCALING) and BinaryFuseFilter (ε = 0.1%) of the n domains
//   addAll             addAll of the n domains into a new CuckooFilter
//   bloom addAll       the same into a new BloomFilter
// and first create(): a new Node process imports the module and awaits
// CuckooFilter.create() (ms from before the import; A and B alternate); with
// --chromium, also in a new page of a new browser context (the module served
// from 127.0.0.1, timed from before its import in the page).
// --only-load skips the per-key rows.
// Prints per row A's and B's min and median, and B/A: the median of the
// per-round ratios with their min–max.
// Data: ../shared/data (blocklist_domains.txt, benign_domains.txt, phishing_urls.txt).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { abWorkload, ratioLine, time } from './ab-common.mjs';

const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '15' },
    n: { type: 'string', default: '100000' },
    loads: { type: 'string', default: '20' },
    data: { type: 'string', default: join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'data') },
    chromium: { type: 'string' },
    'only-load': { type: 'boolean', default: false },
  },
});
if (positionals.length !== 2) {
  console.error('usage: node bench/ab.mjs A/dist/index.mjs B/dist/index.mjs [--rounds R] [--n N] [--loads L]');
  process.exit(2);
}
const paths = positionals.map((p) => resolve(p));
const rounds = Number(opt.rounds);
const n = Number(opt.n);
const { members, benign, queries, urls, urlQueries } = abWorkload(opt.data, n);


async function setup(path) {
  const lib = await import(pathToFileURL(path).href);
  const cuckoo = await lib.CuckooFilter.create({ capacity: n, falsePositiveRate: 0.001 });
  cuckoo.addAll(members);
  const bloom = await lib.BloomFilter.create({ capacity: n, falsePositiveRate: 0.01 });
  bloom.addAll(members);
  const urlFilter = await lib.CuckooFilter.create({ capacity: urls.length, falsePositiveRate: 0.001 });
  urlFilter.addUrls(urls);
  const packed = await lib.CuckooFilter.create({ capacity: n, falsePositiveRate: 0.001, semiSort: false });
  packed.addAll(members);
  const redisCf = await lib.RedisCuckooFilter.create({ capacity: n, bucketSize: 2 });
  redisCf.addAll(members);
  const redisBf = await lib.RedisBloomFilter.create({ errorRate: 0.001, capacity: n, nonScaling: true });
  redisBf.addAll(members);
  const fuse = await lib.BinaryFuseFilter.build(members, { falsePositiveRate: 0.001 });
  const batches = { packed, 'redis cf': redisCf, 'redis bf': redisBf, fuse };
  let sink = 0;
  const rows = {
    has: () =>
      time(() => {
        for (const q of queries) if (cuckoo.has(q)) sink++;
      }, queries.length),
    hasAll: () => time(() => (sink += cuckoo.hasAll(queries).length), queries.length),
    hasUrl: () =>
      time(() => {
        for (const q of urlQueries) if (urlFilter.hasUrl(q)) sink++;
      }, urlQueries.length),
    hasAllUrls: () => time(() => (sink += urlFilter.hasAllUrls(urlQueries).length), urlQueries.length),
    'bloom has': () =>
      time(() => {
        for (const q of queries) if (bloom.has(q)) sink++;
      }, queries.length),
    'bloom hasAll': () => time(() => (sink += bloom.hasAll(queries).length), queries.length),
  };
  for (const [name, f] of Object.entries(batches)) {
    rows[`${name} hasAll`] = () => time(() => (sink += f.hasAll(queries).length), queries.length);
  }
  // addAll: new filters made before the timing, one per pass.
  const fresh = async (make) => {
    const fs = [await make(), await make(), await make()];
    let i = 0;
    const ns = time(() => (sink += fs[i++].addAll(members)), members.length);
    for (const f of fs) f.dispose();
    return ns;
  };
  const asyncRows = {
    addAll: () => fresh(() => lib.CuckooFilter.create({ capacity: n, falsePositiveRate: 0.001 })),
    'bloom addAll': () => fresh(() => lib.BloomFilter.create({ capacity: n, falsePositiveRate: 0.01 })),
  };
  // Same answers from both builds, or the comparison means nothing.
  const answers = [cuckoo.hasAll(queries), bloom.hasAll(queries), urlQueries.map((q) => urlFilter.hasUrl(q)), urlFilter.hasAllUrls(urlQueries)];
  const bytes = [cuckoo.toBytes(), bloom.toBytes(), urlFilter.toBytes()];
  for (const f of Object.values(batches)) {
    answers.push(f.hasAll(queries));
    bytes.push(f.toBytes());
  }
  return { rows, asyncRows, answers, bytes, sink: () => sink };
}

const names = [];
const results = {};
if (!opt['only-load']) await perKey();

/** The per-key rows, interleaved: fills names and results. */
async function perKey() {
  const builds = [await setup(paths[0]), await setup(paths[1])];
  for (let i = 0; i < builds[0].answers.length; i++) {
    if (JSON.stringify(builds[0].answers[i]) !== JSON.stringify(builds[1].answers[i])) {
      throw new Error(`A and B answer differently (set ${i})`);
    }
  }
  for (let i = 0; i < builds[0].bytes.length; i++) {
    if (Buffer.compare(Buffer.from(builds[0].bytes[i]), Buffer.from(builds[1].bytes[i])) !== 0) {
      throw new Error(`A and B filter bytes differ (set ${i})`);
    }
  }
  names.push(...Object.keys(builds[0].rows), ...Object.keys(builds[0].asyncRows));
  for (const k of names) results[k] = [[], []];
  const run = (b, k) => (b.rows[k] ?? b.asyncRows[k])();
  // Warm-up: every row twice on each build, untimed.
  for (let w = 0; w < 2; w++) for (const b of builds) for (const k of names) await run(b, k);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of names) for (const i of order) results[k][i].push(await run(builds[i], k));
  }
  if (builds[0].sink() + builds[1].sink() < 0) console.log('');
}

// First create(): a fresh process per load, A and B alternating.
const loadScript = `const t = performance.now();
const lib = await import(process.env.AB_LIB);
const f = await lib.CuckooFilter.create({ capacity: 1000 });
const ms = performance.now() - t; f.dispose(); console.log(ms);`;
const loads = [[], []];
for (let l = 0; l < Number(opt.loads); l++) {
  for (const i of l % 2 === 0 ? [0, 1] : [1, 0]) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', loadScript], {
      encoding: 'utf8',
      env: { ...process.env, AB_LIB: pathToFileURL(paths[i]).href },
    });
    if (r.status !== 0) throw new Error(r.stderr);
    loads[i].push(Number(r.stdout.trim()));
  }
}

// The same in Chromium: each load a new context and page.
const pageLoads = [[], []];
if (opt.chromium) {
  const { createServer } = await import('node:http');
  const { chromium } = await import('playwright-core');
  const server = createServer((req, res) => {
    const i = req.url.startsWith('/b/') ? 1 : 0;
    if (req.url.endsWith('.mjs')) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(readFileSync(paths[i]));
    } else {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<script type="module">const t = performance.now();
const lib = await import('./index.mjs');
const f = await lib.CuckooFilter.create({ capacity: 1000 });
window.loadMs = performance.now() - t;</script>`);
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({ executablePath: opt.chromium });
  for (let l = 0; l < Number(opt.loads); l++) {
    for (const i of l % 2 === 0 ? [0, 1] : [1, 0]) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${base}/${i ? 'b' : 'a'}/index.html`);
      pageLoads[i].push(await page.waitForFunction(() => window.loadMs).then((h) => h.jsonValue()));
      await context.close();
    }
  }
  await browser.close();
  server.close();
}

console.log(`A = ${paths[0]}\nB = ${paths[1]}\n${rounds} rounds, n = ${n}, ${urls.length} URLs, Node ${process.version}`);
console.log('row               A min  A med   B min  B med   B/A med (min-max)');
const line = (k, a, b, unit, d) => ratioLine(k, a, b, unit, d, [16, 6, 6]);
for (const k of names) line(k, results[k][0], results[k][1], 'ns/key', 1);
line('first create', loads[0], loads[1], 'ms', 2);
if (opt.chromium) line('  Chromium', pageLoads[0], pageLoads[1], 'ms', 2);
