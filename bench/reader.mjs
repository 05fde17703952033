// The read-only entry against the full one (issue 34 point 3): its lookups and URL checks within noise of the full
// entry's, and its first fromBytes in Chromium against WebAssembly.compileStreaming of the same .wasm.
//
//   node bench/reader.mjs [--full dist/node.mjs] [--reader dist/reader-node.mjs] [--rounds 15] [--n 100000]
//                         [--loads 20] [--chromium /usr/bin/chromium] [--pages 9] [--fresh-browser]
//                         [--only-lookups | --only-load]
//
// Lookups (Node.js, one process, interleaved as bench/ab.mjs): the full entry builds the filters (CuckooFilter,
// defaults, ε = 0.1%, of n blocklisted domains; BloomFilter, ε = 1%, of the same; CuckooFilter given the phishing
// URLs), and both entries load the same bytes with fromBytes, each its own module and wasm instance. Before any
// timing both must answer every query alike. Each round times every row once for the full entry and once for the
// reader, the order alternating round by round; a measurement is the fastest of 3 passes. Rows (ns per key; lower
// is better):
//   has, hasAll              the cuckoo filter of domains, queried with n members and n benign domains
//   bloom has, bloom hasAll  the Bloom filter, the same queries
//   hasUrl, hasAllUrls       the URL filter, queried with the listed URLs and as many benign ones
// First fromBytes (Node.js): a new process imports the entry and awaits CuckooFilter.fromBytes of a 1,000-key
// filter (ms from before the import), full and reader alternating, --loads times each.
// Chromium (--chromium): each load a new browser context and page, served from 127.0.0.1 under the strict CSP
// (script-src 'self' 'wasm-unsafe-eval'), the filter's bytes fetched before the clock starts; ms from before the
// import (or the fetch) in the page, the variants in rotating order, --pages times each (medians of 9 by default).
// One browser serves every load unless --fresh-browser launches one per load: a renderer process the browser
// reuses may keep V8's compiled module of an earlier load, so that a load is not a first one.
//   reader fromBytes       import dist/reader.mjs (wasm embedded, deflated) + the first CuckooFilter.fromBytes
//   reader initWasm        import dist/reader.mjs, initWasm(fetch(cuckoo-reader.wasm)), the first fromBytes
//   compile reader .wasm   WebAssembly.compileStreaming(fetch(cuckoo-reader.wasm)) alone
//   full fromBytes         import dist/index.mjs + the first CuckooFilter.fromBytes
//   compile full .wasm     WebAssembly.compileStreaming(fetch(cuckoo-core.wasm)) alone
//   empty module           import of an empty module (what any import costs in this setup)
// Prints per row the full entry's and the reader's min and median, and reader/full: the median of the per-round
// ratios with their min–max; for Chromium, each variant's median, min and max.
// Data: ../shared/data (blocklist_domains.txt, benign_domains.txt, phishing_urls.txt).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { abWorkload, fixed, median, ratioLine, time } from './ab-common.mjs';
import { loadavg } from 'node:os';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const { values: opt } = parseArgs({
  options: {
    full: { type: 'string', default: join(root, 'dist', 'node.mjs') },
    reader: { type: 'string', default: join(root, 'dist', 'reader-node.mjs') },
    rounds: { type: 'string', default: '15' },
    n: { type: 'string', default: '100000' },
    loads: { type: 'string', default: '20' },
    pages: { type: 'string', default: '9' },
    data: { type: 'string', default: join(root, '..', 'shared', 'data') },
    chromium: { type: 'string' },
    'fresh-browser': { type: 'boolean', default: false },
    'only-lookups': { type: 'boolean', default: false },
    'only-load': { type: 'boolean', default: false },
  },
});
const paths = [resolve(opt.full), resolve(opt.reader)];
const rounds = Number(opt.rounds);
const n = Number(opt.n);
const { members, benign, queries, urls, urlQueries } = abWorkload(opt.data, n);


const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

console.log(`full = ${paths[0]}\nreader = ${paths[1]}\nNode ${process.version}; load average at start ${load()}`);

const full = await import(pathToFileURL(paths[0]).href);
/** The filters' bytes, built by the full entry. */
async function build() {
  const cuckoo = await full.CuckooFilter.create({ capacity: n, falsePositiveRate: 0.001 });
  cuckoo.addAll(members);
  const bloom = await full.BloomFilter.create({ capacity: n, falsePositiveRate: 0.01 });
  bloom.addAll(members);
  const urlFilter = await full.CuckooFilter.create({ capacity: urls.length, falsePositiveRate: 0.001 });
  urlFilter.addUrls(urls);
  const small = await full.CuckooFilter.create({ capacity: 1000 });
  small.addAll(members.slice(0, 1000));
  const bytes = { cuckoo: cuckoo.toBytes(), bloom: bloom.toBytes(), url: urlFilter.toBytes(), small: small.toBytes() };
  for (const x of [cuckoo, bloom, urlFilter, small]) x.dispose();
  return bytes;
}
const bytes = await build();

async function setup(lib) {
  const cuckoo = await lib.CuckooFilter.fromBytes(bytes.cuckoo);
  const bloom = await lib.BloomFilter.fromBytes(bytes.bloom);
  const urlFilter = await lib.CuckooFilter.fromBytes(bytes.url);
  let sink = 0;
  const rows = {
    has: () =>
      time(() => {
        for (const q of queries) if (cuckoo.has(q)) sink++;
      }, queries.length),
    hasAll: () => time(() => (sink += cuckoo.hasAll(queries).length), queries.length),
    'bloom has': () =>
      time(() => {
        for (const q of queries) if (bloom.has(q)) sink++;
      }, queries.length),
    'bloom hasAll': () => time(() => (sink += bloom.hasAll(queries).length), queries.length),
    hasUrl: () =>
      time(() => {
        for (const q of urlQueries) if (urlFilter.hasUrl(q)) sink++;
      }, urlQueries.length),
    hasAllUrls: () => time(() => (sink += urlFilter.hasAllUrls(urlQueries).length), urlQueries.length),
  };
  const answers = JSON.stringify([
    cuckoo.hasAll(queries),
    queries.slice(0, 20000).map((q) => cuckoo.has(q)),
    bloom.hasAll(queries),
    urlFilter.hasAllUrls(urlQueries),
    urlQueries.slice(0, 20000).map((q) => urlFilter.matchUrl(q)),
  ]);
  return { rows, answers, sink: () => sink };
}

const results = {};
const names = [];
if (!opt['only-load']) {
  const builds = [await setup(full), await setup(await import(pathToFileURL(paths[1]).href))];
  if (builds[0].answers !== builds[1].answers) throw new Error('the full entry and the reader answer differently');
  names.push(...Object.keys(builds[0].rows));
  for (const k of names) results[k] = [[], []];
  for (let w = 0; w < 2; w++) for (const b of builds) for (const k of names) b.rows[k]();
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of names) for (const i of order) results[k][i].push(builds[i].rows[k]());
  }
  if (builds[0].sink() + builds[1].sink() < 0) console.log('');
}

// First fromBytes in a new Node.js process, full and reader alternating.
const loads = [[], []];
if (!opt['only-lookups']) {
  const script = `const bytes = new Uint8Array(Buffer.from(process.env.AB_BYTES, 'base64'));
const t = performance.now();
const lib = await import(process.env.AB_LIB);
const f = await lib.CuckooFilter.fromBytes(bytes);
const ms = performance.now() - t; f.dispose(); console.log(ms);`;
  const small = Buffer.from(bytes.small).toString('base64');
  for (let l = 0; l < Number(opt.loads); l++) {
    for (const i of l % 2 === 0 ? [0, 1] : [1, 0]) {
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        env: { ...process.env, AB_LIB: pathToFileURL(paths[i]).href, AB_BYTES: small },
      });
      if (r.status !== 0) throw new Error(r.stderr);
      loads[i].push(Number(r.stdout.trim()));
    }
  }
}

// Chromium: each variant in a new context and page, in rotating order.
const VARIANTS = {
  'reader fromBytes': `const lib = await import('./reader.mjs');
const f = await lib.CuckooFilter.fromBytes(bytes);`,
  'reader initWasm': `const lib = await import('./reader.mjs');
await lib.initWasm(fetch('./cuckoo-reader.wasm'));
const f = await lib.CuckooFilter.fromBytes(bytes);`,
  'compile reader .wasm': `await WebAssembly.compileStreaming(fetch('./cuckoo-reader.wasm'));`,
  'full fromBytes': `const lib = await import('./index.mjs');
const f = await lib.CuckooFilter.fromBytes(bytes);`,
  'compile full .wasm': `await WebAssembly.compileStreaming(fetch('./cuckoo-core.wasm'));`,
  'empty module': `await import('./empty.mjs');`,
};
const pageLoads = Object.fromEntries(Object.keys(VARIANTS).map((k) => [k, []]));
if (opt.chromium && !opt['only-lookups']) {
  const dist = dirname(paths[1]);
  const files = {
    '/reader.mjs': ['text/javascript', readFileSync(join(dist, 'reader.mjs'))],
    '/index.mjs': ['text/javascript', readFileSync(join(dist, 'index.mjs'))],
    '/cuckoo-reader.wasm': ['application/wasm', readFileSync(join(dist, 'cuckoo-reader.wasm'))],
    '/cuckoo-core.wasm': ['application/wasm', readFileSync(join(dist, 'cuckoo-core.wasm'))],
    '/empty.mjs': ['text/javascript', Buffer.from('export {};\n')],
    '/filter.bin': ['application/octet-stream', Buffer.from(bytes.small)],
  };
  const variants = Object.keys(VARIANTS);
  variants.forEach((name, i) => {
    // The filter's bytes come before the clock; then the variant; window.loadMs is the time it took.
    const script = `const bytes = new Uint8Array(await (await fetch('./filter.bin')).arrayBuffer());
const t = performance.now();
${VARIANTS[name]}
window.loadMs = performance.now() - t;`;
    files[`/v${i}.mjs`] = ['text/javascript', Buffer.from(script)];
    files[`/v${i}.html`] = ['text/html', Buffer.from(`<!doctype html><script type="module" src="./v${i}.mjs"></script>`)];
  });
  const server = createServer((req, res) => {
    const file = files[req.url];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'content-type': file[0],
      'content-security-policy': "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'",
      'cache-control': 'no-store',
    });
    res.end(file[1]);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  const { chromium } = await import('playwright-core');
  const args = ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
  const launch = () => chromium.launch({ executablePath: opt.chromium, args });
  const shared = opt['fresh-browser'] ? undefined : await launch();
  const once = async (i) => {
    const browser = shared ?? (await launch());
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/v${i}.html`);
    const ms = await page.waitForFunction(() => window.loadMs).then((h) => h.jsonValue());
    await context.close();
    if (!shared) await browser.close();
    return ms;
  };
  for (let i = 0; i < variants.length; i++) await once(i); // warm-up: the browser's processes, untimed
  for (let l = 0; l < Number(opt.pages); l++) {
    for (let j = 0; j < variants.length; j++) {
      const i = (j + l) % variants.length;
      pageLoads[variants[i]].push(await once(i));
    }
  }
  await shared?.close();
  server.close();
}

console.log(`load average at the end ${load()}`);
if (names.length > 0) console.log(`${rounds} rounds, n = ${n}, ${urls.length} URLs (${urlQueries.length} URL queries)`);
console.log('row             full min full med  reader min reader med   reader/full med (min-max)');
const line = (k, a, b, unit, d) => ratioLine(k, a, b, unit, d, [15, 8, 10]);
for (const k of names) line(k, results[k][0], results[k][1], 'ns/key', 1);
if (!opt['only-lookups']) line('first fromBytes', loads[0], loads[1], 'ms (Node.js, new process)', 2);
if (opt.chromium && !opt['only-lookups']) {
  const each = opt['fresh-browser'] ? 'a new browser, context and page each' : 'one browser, a new context and page each';
  console.log(`Chromium (${opt.chromium}), ${each}, ${opt.pages} loads per variant: median (min-max) ms`);
  for (const [k, v] of Object.entries(pageLoads)) console.log(`  ${k.padEnd(22)} ${fixed(median(v), 1).padStart(6)} (${fixed(Math.min(...v), 1)}-${fixed(Math.max(...v), 1)})`);
}
