// npm run demo: the main job end to end on a real blocklist sample.
// Builds a cuckoo filter from examples/data/blocklist-sample.txt, writes it to a
// file, loads it back from the file, then measures false negatives (must be 0),
// the false-positive rate on benign domains against the expected one, and
// lookups per second.
//   node examples/demo.mjs [BLOCKLIST] [BENIGN] [--fpr 0.001]
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CuckooFilter } from 'cuckoo-wasm';

const here = dirname(fileURLToPath(import.meta.url));
const { values, positionals } = parseArgs({ allowPositionals: true, options: { fpr: { type: 'string', default: '0.001' } } });
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
if (falseNegatives !== 0 || sink < 0) {
  console.error('FAIL: false negatives');
  process.exit(1);
}
