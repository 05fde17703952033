// npm run demo: the main job end to end on real blocklist samples.
// 1. Domains: builds a cuckoo filter from examples/data/blocklist-sample.txt,
//    writes it to a file, loads it back from the file, then measures false
//    negatives (must be 0), the false-positive rate on benign domains against
//    the expected one, and lookups per second.
// 2. URLs: builds a URL blocklist (addUrls) from the phishing URLs of
//    examples/data/phishing-urls-sample.txt, round-trips it through bytes, and
//    checks whole URLs against it: every listed URL and variants of it (a
//    fragment, an upper-case host, a deeper path, a subdomain of a listed bare
//    host) must be found, benign URLs give the per-URL false-positive rate.
//   node examples/demo.mjs [BLOCKLIST] [BENIGN] [--fpr 0.001] [--urls URLS] [--url-fpr 0.01]
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CuckooFilter, FilterFeed } from 'cuckoo-wasm';
import { publishVersion, serveFeed } from './feed/feed.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    fpr: { type: 'string', default: '0.001' },
    urls: { type: 'string' },
    'url-fpr': { type: 'string', default: '0.01' },
  },
});
const blockPath = positionals[0] ?? join(here, 'data/blocklist-sample.txt');
const benignPath = positionals[1] ?? join(here, 'data/benign-opendns.txt');
const fpr = Number(values.fpr);

const lines = (path) => readFileSync(path, 'utf8').split('\n').map((s) => s.trim()).filter((s) => s && !s.startsWith('#'));
const blocked = lines(blockPath);
const blockedSet = new Set(blocked);
const benign = lines(benignPath).filter((d) => !blockedSet.has(d));

const built = await CuckooFilter.create({ capacity: blocked.length, falsePositiveRate: fpr });
const added = built.addAll(blocked);
const dir = mkdtempSync(join(tmpdir(), 'cuckoo-demo-'));
const file = join(dir, 'blocklist.cuckoo');
writeFileSync(file, built.toBytes());
built.dispose();

const filter = await CuckooFilter.fromBytes(readFileSync(file));
rmSync(dir, { recursive: true });

let falseNegatives = 0;
for (const d of blocked) if (!filter.has(d)) falseNegatives++;
let falsePositives = 0;
for (const d of benign) if (filter.has(d)) falsePositives++;

// Lookups per second: single-key has() over members and non-members, best of 5 rounds.
const probe = blocked.slice(0, 20000).concat(benign.slice(0, 20000));
let best = 0;
let sink = 0;
for (let round = 0; round < 5; round++) {
  const t0 = process.hrtime.bigint();
  for (let rep = 0; rep < 5; rep++) for (const d of probe) sink += filter.has(d) ? 1 : 0;
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  best = Math.max(best, (probe.length * 5) / seconds);
}
// The same keys through hasAll (one crossing into wasm per batch), best of 5 rounds.
let batchRate = 0;
for (let round = 0; round < 5; round++) {
  const t0 = process.hrtime.bigint();
  for (let rep = 0; rep < 5; rep++) sink += filter.hasAll(probe).length;
  batchRate = Math.max(batchRate, (probe.length * 5) / (Number(process.hrtime.bigint() - t0) / 1e9));
}

const measured = falsePositives / benign.length;
const rel = (p) => relative(process.cwd(), p) || p;
console.log(`cuckoo-wasm demo: ${rel(blockPath)} against ${rel(benignPath)}`);
console.log(`keys:                     ${added.toLocaleString('en-US')}`);
console.log(`bytes:                    ${filter.byteLength.toLocaleString('en-US')} (written to a file and loaded back)`);
console.log(`bits per item:            ${filter.bitsPerItem.toFixed(2)} (f = ${filter.fingerprintBits}, b = ${filter.bucketSize}, load factor ${filter.loadFactor.toFixed(3)})`);
console.log(`false negatives:          ${falseNegatives} of ${blocked.length.toLocaleString('en-US')}`);
console.log(`false-positive rate:      ${(measured * 100).toFixed(3)}% measured (${falsePositives} of ${benign.length.toLocaleString('en-US')} benign domains); ` +
  `${(filter.expectedFalsePositiveRate * 100).toFixed(3)}% expected, ${(fpr * 100).toFixed(3)}% configured`);
console.log(`lookups per second:       ${(best / 1e6).toFixed(2)} M (has), ${(batchRate / 1e6).toFixed(2)} M (hasAll)`);
filter.dispose();

// --- 2. A URL blocklist -----------------------------------------------------
const urlPath = values.urls ?? join(here, 'data/phishing-urls-sample.txt');
const urlFpr = Number(values['url-fpr']);
const listed = lines(urlPath);
// A URL is looked up by up to 30 expressions: size each key for 1 - (1 - R)^(1/30).
const keyFpr = 1 - (1 - urlFpr) ** (1 / 30);
const urlBuilt = await CuckooFilter.create({ capacity: listed.length, falsePositiveRate: keyFpr });
urlBuilt.addUrls(listed);
const urlFilter = await CuckooFilter.fromBytes(urlBuilt.toBytes());
urlBuilt.dispose();

// Every listed URL, and URLs the rules say its entry covers.
const variants = [];
for (const u of listed) {
  variants.push(u, `${u}#section-2`);
  const m = /^(https?:\/\/)([^/?#]+)(.*)$/i.exec(u);
  if (!m) continue;
  const [, scheme, host, rest] = m;
  variants.push(`${scheme}${host.toUpperCase()}${rest}`);
  // A subdomain of a listed bare host. An IP address has none, and a URL is looked up
  // by host suffixes of its last 5 labels only, so the listed host may have at most 5.
  const name = !/^[\d.]+(:\d+)?$/.test(host) && host.split('.').length <= 5;
  if ((rest === '' || rest === '/') && name) variants.push(`${scheme}www.${host}/any/page.html?x=1`);
  else if (rest.endsWith('/')) variants.push(`${u}deeper/page.php`);
}
let urlMisses = 0;
const answers = urlFilter.hasAllUrls(variants);
answers.forEach((hit, i) => {
  if (!hit || !urlFilter.hasUrl(variants[i])) urlMisses++;
});
const benignUrls = benign.map((d, i) => `https://${d}/${i % 3 === 0 ? '' : `news/${i}.html`}`);
const urlFalsePositives = urlFilter.hasAllUrls(benignUrls).filter(Boolean).length;

let urlRate = 0;
let urlBatchRate = 0;
for (let round = 0; round < 3; round++) {
  let t0 = process.hrtime.bigint();
  for (const u of variants) sink += urlFilter.hasUrl(u) ? 1 : 0;
  urlRate = Math.max(urlRate, variants.length / (Number(process.hrtime.bigint() - t0) / 1e9));
  t0 = process.hrtime.bigint();
  sink += urlFilter.hasAllUrls(variants).length;
  urlBatchRate = Math.max(urlBatchRate, variants.length / (Number(process.hrtime.bigint() - t0) / 1e9));
}
const example = variants.find((u) => /^https?:\/\/[a-z0-9.-]+\/[^@#]+\/[^@#]+$/i.test(u)) ?? variants[0];

console.log('');
console.log(`URL blocklist: ${rel(urlPath)} (whole URLs, Safe Browsing canonicalization and expressions)`);
console.log(`entries:                  ${listed.length.toLocaleString('en-US')} (${urlFilter.byteLength.toLocaleString('en-US')} bytes, ${urlFilter.bitsPerItem.toFixed(2)} bits per entry)`);
console.log(`false negatives:          ${urlMisses} of ${variants.length.toLocaleString('en-US')} listed URLs and variants (fragment, upper-case host, deeper path, www. subdomain)`);
console.log(`false-positive rate:      ${((urlFalsePositives / benignUrls.length) * 100).toFixed(3)}% per URL measured (${urlFalsePositives} of ${benignUrls.length.toLocaleString('en-US')} benign URLs); ` +
  `at most ${(urlFilter.urlFalsePositiveRate * 100).toFixed(3)}% expected`);
console.log(`URLs per second:          ${(urlRate / 1e6).toFixed(2)} M (hasUrl), ${(urlBatchRate / 1e6).toFixed(2)} M (hasAllUrls)`);
console.log(`for example:              ${example}\n                          blocked because of "${urlFilter.matchUrl(example)}"`);
urlFilter.dispose();

// --- 3. Publish, then follow ---------------------------------------------------
const feedRoot = mkdtempSync(join(tmpdir(), 'cuckoo-demo-feed-'));
let feedOk = false;
try {
  const out = join(feedRoot, 'public');
  const state = join(feedRoot, 'state');
  const v1 = await publishVersion({ out, state, pollSeconds: 1 });
  const server = await serveFeed(out, 0);
  const manifestUrl = `http://127.0.0.1:${server.address().port}/manifest.json`;
  try {
    const feed = await FilterFeed.open({ manifestUrl });
    const before = [feed.matchUrl('http://feed-demo-1.example/a'), feed.matchUrl('http://feed-demo-4.example/a')];
    const v2 = await publishVersion({ out, state, pollSeconds: 1 });
    const update = await feed.update();
    const after = [feed.matchUrl('http://feed-demo-1.example/a'), feed.matchUrl('http://feed-demo-4.example/a')];
    console.log('');
    console.log(`Publish, then follow: a feed served at ${manifestUrl}`);
    console.log(`version 1:                ${v1.entries.toLocaleString('en-US')} entries, full filter ${v1.full.size.toLocaleString('en-US')} bytes; FilterFeed.open downloaded it`);
    console.log(`version 2:                +${v2.added} -${v2.removed}; feed.update() went ${update.from} -> ${update.to} by ${update.via}, ${update.bytes.toLocaleString('en-US')} bytes read (manifest and patch)`);
    console.log(`feed-demo-1 / feed-demo-4: ${before.map((m) => m ?? 'not listed').join(' / ')} before, ${after.map((m) => m ?? 'not listed').join(' / ')} after`);
    feedOk = update.via === 'patch' && before[0] !== null && before[1] === null && after[0] === null && after[1] !== null;
    feed.dispose();
  } finally {
    server.close();
  }
} finally {
  rmSync(feedRoot, { recursive: true, force: true });
}

if (!feedOk) {
  console.error('FAIL: the feed was not followed by a patch');
  process.exit(1);
}
if (falseNegatives !== 0 || urlMisses !== 0 || sink < 0) {
  console.error('FAIL: false negatives');
  process.exit(1);
}
