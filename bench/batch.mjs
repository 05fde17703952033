// Batches against single calls, per key: `hasAll` against a loop of `has`, and
// `hasAllUrls` against a loop of `hasUrl`, for each family (CuckooFilter,
// BloomFilter, RedisCuckooFilter, RedisBloomFilter, sized as bench/adapters.mjs
// sizes them), on domains and on URLs, on fresh strings and on sliced ones,
// on each Node.js version. A batch should never cost more per key than the
// loop of single calls it replaces.
//
//   node bench/batch.mjs                          # every version of scripts/node-versions.sh (--node all)
//   node bench/batch.mjs --node 22,26 --families cf,rc --rounds 9
//   node bench/batch.mjs --dist before=/tmp/dist-a,after=dist --repeats 3 --no-write   # A/B of two builds
//
// Options: --node all|lts|MAJOR[,MAJOR...] (default all), --families cf,bf,rc,rb, --n N (domain members and
// as many non-members; default 100,000; the URL set is all 49,256 phishing URLs and as many benign
// `https://<domain>/`), --eps (0.01), --rounds R (per process; default 5), --passes P (the fastest of P
// passes within 250 ms; default 3), --repeats K (processes per version, family and build, interleaved;
// default 1), --dist [LABEL=]DIR[,...] (builds to compare; default dist), --data DIR, --out DIR, --no-write.
//
// Time is CPU time (process.cpuUsage: user + system), not wall time: on a
// shared machine the time a process waits for a CPU is not counted. Each
// single call is timed twice: a loop counting the answers, and a loop storing
// them into `new Array(n)`, the same output as the batch's. Each batch is
// timed twice too: returning its boolean[], and writing into a Uint8Array
// reused from pass to pass (`hasAll(keys, out)`, `hasAllUrls(urls, out)`),
// which allocates nothing per answer (a build without that form shows —).
//
// Queries: members and non-members alternating. Fresh strings: flat copies
// (JSON round trip). Sliced strings: the same queries as `text.split('\n')`
// gives them, V8 sliced strings of one large text (as a list read from a file
// is). One process per Node.js version, family and build (each a fork of this
// script on that version's binary, scripts/node-versions.sh), so JIT state never
// crosses; in each round every measurement runs once, in an order that rotates,
// and a ratio is the median of per-round ratios (min–max). Writes
// bench/results/batch.md. On a shared machine the spreads are wide: read them.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ADAPTERS } from './adapters.mjs';
import { ROOT, loadKeys, urlCount } from './data.mjs';
import { fmtInt, fmtNum, helpText, loadAverage, machine, madeBy, markdownTable } from './report.mjs';
import { bestOf, countTrue, cpuMs, nowMs, pairedRatio, stats } from './stats.mjs';

const { values: opt } = parseArgs({
  options: {
    node: { type: 'string', default: 'all' },
    families: { type: 'string', default: 'cf,bf,rc,rb' },
    n: { type: 'string', default: '100000' },
    eps: { type: 'string', default: '0.01' },
    rounds: { type: 'string', default: '5' },
    passes: { type: 'string', default: '3' },
    repeats: { type: 'string', default: '1' },
    dist: { type: 'string', default: join(ROOT, 'dist') },
    data: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'bench', 'results') },
    'no-write': { type: 'boolean', default: false },
    worker: { type: 'string' }, // worker mode: the family
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opt.help) {
  console.log(helpText(import.meta.url, '\n\nQueries'));
  process.exit(0);
}

/** The families, by the name of their adapter (bench/adapters.mjs). */
const FAMILIES = {
  cf: { adapter: 'cuckoo-wasm-semi', name: 'CuckooFilter' },
  bf: { adapter: 'cuckoo-wasm-bloom', name: 'BloomFilter' },
  rc: { adapter: 'cuckoo-wasm-redis-cf', name: 'RedisCuckooFilter' },
  rb: { adapter: 'cuckoo-wasm-redis-bf', name: 'RedisBloomFilter' },
};
/** The measurements, each a pair: the batch and the loop of single calls it replaces. */
const PAIRS = [
  { batch: 'hasAll', single: 'has', keys: ['domains', 'urls'] },
  { batch: 'hasAllUrls', single: 'hasUrl', keys: ['urls'] },
];
const STRINGS = ['fresh', 'sliced'];
const N = Number(opt.n);
const EPS = Number(opt.eps);
const ROUNDS = Number(opt.rounds);
const PASSES = Number(opt.passes);

// ---------------------------------------------------------------------------
// Worker: one family, one build, on the Node.js running it; JSON on stdout.

async function workerMain() {
  const family = FAMILIES[opt.worker];
  const adapter = ADAPTERS[family.adapter];
  await adapter.init();
  const sets = {};
  for (const kind of ['domains', 'urls']) {
    const all = loadKeys(kind === 'domains' ? N : urlCount(opt.data), { dir: opt.data, keys: kind });
    const members = all.members;
    const non = all.nonMembers.slice(0, members.length);
    const queries = [];
    for (let i = 0; i < members.length; ++i) queries.push(members[i], non[i]);
    const fresh = JSON.parse(JSON.stringify(queries));
    const sliced = queries.join('\n').split('\n');
    const keyed = await adapter.create(members.length, EPS);
    keyed.addAll(members);
    const urled = kind === 'urls' ? await adapter.create(members.length, EPS) : null;
    urled?.addUrls(members);
    sets[kind] = { strings: { fresh, sliced }, keyed: keyed.filter, urled: urled?.filter };
  }
  /** Every measurement of a round: [name, keys, pass]. */
  const loops = {
    has: (f, keys) => {
      let hits = 0;
      for (let i = 0; i < keys.length; ++i) if (f.has(keys[i])) ++hits;
      return hits;
    },
    hasAll: (f, keys) => countTrue(f.hasAll(keys)),
    'has[]': (f, keys) => {
      const out = new Array(keys.length);
      for (let i = 0; i < keys.length; ++i) out[i] = f.has(keys[i]);
      return countTrue(out);
    },
    'hasUrl[]': (f, keys) => {
      const out = new Array(keys.length);
      for (let i = 0; i < keys.length; ++i) out[i] = f.hasUrl(keys[i]);
      return countTrue(out);
    },
    hasUrl: (f, keys) => {
      let hits = 0;
      for (let i = 0; i < keys.length; ++i) if (f.hasUrl(keys[i])) ++hits;
      return hits;
    },
    hasAllUrls: (f, keys) => countTrue(f.hasAllUrls(keys)),
    'hasAll(out)': (f, keys) => countTrue(f.hasAll(keys, reused(keys.length))),
    'hasAllUrls(out)': (f, keys) => countTrue(f.hasAllUrls(keys, reused(keys.length))),
  };
  /** The Uint8Array a batch writes into, one per length, made before the first pass. */
  const outs = new Map();
  const reused = (n) => outs.get(n) ?? outs.set(n, new Uint8Array(n)).get(n);
  const probe = new Uint8Array(1);
  const into = sets.domains.keyed.hasAll(['x'], probe) === probe; // false for a build before `out`
  const jobs = [];
  for (const pair of PAIRS) {
    for (const kind of pair.keys) {
      for (const strings of STRINGS) {
        const s = sets[kind];
        const f = pair.batch === 'hasAll' ? s.keyed : s.urled;
        const keys = s.strings[strings];
        const ops = [pair.single, `${pair.single}[]`, pair.batch, ...(into ? [`${pair.batch}(out)`] : [])];
        for (const op of ops) jobs.push({ id: `${kind}/${strings}/${op}`, n: keys.length, run: () => loops[op](f, keys) });
      }
    }
  }
  const answers = {};
  const rounds = [];
  for (let round = -1; round < ROUNDS; ++round) {
    const r = {};
    for (let j = 0; j < jobs.length; ++j) {
      const job = jobs[(j + Math.max(round, 0)) % jobs.length];
      const p = bestOf(job.run, { passes: PASSES, budgetMs: 250, clock: cpuMs });
      r[job.id] = (p.ms * 1e6) / job.n;
      const key = job.id.replace(/\/[^/]*$/, '') + (job.id.includes('Url') ? '/url' : '/key');
      if (answers[key] !== undefined && answers[key] !== p.result) throw new Error(`${job.id} found ${p.result} where the other call found ${answers[key]}`);
      answers[key] = p.result;
    }
    if (round >= 0) rounds.push(r); // round -1 warms up
  }
  for (const s of Object.values(sets)) {
    s.keyed.dispose();
    s.urled?.dispose();
  }
  process.stdout.write(JSON.stringify({ node: process.version, v8: process.versions.v8, family: opt.worker, rounds }));
}

// ---------------------------------------------------------------------------
// Driver.

/** [release, binary] for each version asked for (scripts/node-versions.sh). */
function nodeBinaries(spec) {
  const script = join(ROOT, 'scripts', 'node-versions.sh');
  const run = (...args) => execFileSync('bash', [script, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  const wanted = spec === 'all' ? run('--list').split('\n') : spec.split(',');
  return wanted.map((w) => {
    const release = run('--release', w);
    return [release, process.version === `v${release}` ? process.execPath : run(w)];
  });
}

function driverMain() {
  const wall = nowMs();
  const mach = machine();
  const families = opt.families.split(',');
  for (const f of families) if (!FAMILIES[f]) throw new Error(`--families: '${f}' is not one of ${Object.keys(FAMILIES).join(', ')}`);
  const dists = opt.dist.split(',').map((d, i) => {
    const [label, dir] = d.includes('=') ? d.split('=') : [opt.dist.includes(',') ? `build ${i + 1}` : 'dist', d];
    return { label, url: pathToFileURL(join(resolve(dir), 'index.mjs')).href };
  });
  const nodes = nodeBinaries(opt.node);
  const repeats = Number(opt.repeats);
  const results = []; // { release, family, dist, rounds }
  const common = ['--n', String(N), '--eps', String(EPS), '--rounds', String(ROUNDS), '--passes', String(PASSES), ...(opt.data ? ['--data', opt.data] : [])];
  for (let rep = 0; rep < repeats; ++rep) {
    for (const [release, bin] of nodes) {
      for (const family of families) {
        for (let d = 0; d < dists.length; ++d) {
          const dist = dists[(d + rep) % dists.length];
          const t0 = nowMs();
          const p = spawnSync(bin, [new URL(import.meta.url).pathname, '--worker', family, ...common], {
            encoding: 'utf8',
            maxBuffer: 16 << 20,
            env: { ...process.env, CUCKOO_BENCH_DIST: dist.url },
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          if (p.status !== 0) throw new Error(`batch worker ${family} on node v${release} (${dist.label}) failed (exit ${p.status})`);
          const out = JSON.parse(p.stdout);
          results.push({ release, family, dist: dist.label, rounds: out.rounds });
          process.stderr.write(`batch: node v${release} ${FAMILIES[family].name} ${dist.label}: ${((nowMs() - t0) / 1e3).toFixed(1)} s\n`);
        }
      }
    }
  }
  const md = report(results, nodes, families, dists, mach, (nowMs() - wall) / 1e3);
  console.log(md);
  if (!opt['no-write']) {
    mkdirSync(opt.out, { recursive: true });
    writeFileSync(join(opt.out, 'batch.md'), md);
    process.stderr.write(`wrote ${relative(ROOT, join(opt.out, 'batch.md'))}\n`);
  }
}

/** 'ok' when each batch costs at most the loop that gives the same output (medians). */
const verdict = (ratioArray, ratioInto) =>
  ratioArray.median == null ? '—' : ratioArray.median <= 1 && (ratioInto.median == null || ratioInto.median <= 1) ? 'ok' : '**slower**';
const nsCell = (s) => (s.median == null ? '—' : s.count > 1 ? `${fmtNum(s.median, 1)} (${fmtNum(s.min, 1)}–${fmtNum(s.max, 1)})` : fmtNum(s.median, 1));
const ratioCell = (s) => (s.median == null ? '—' : `${fmtNum(s.median, 2)} (${fmtNum(s.min, 2)}–${fmtNum(s.max, 2)})`);

function report(results, nodes, families, dists, mach, totalS) {
  const md = ['# Batches against single calls, per key', ''];
  md.push(
    `Made by ${madeBy('batch.mjs')} in ${fmtNum(totalS / 60, 1)} min on ${mach.cpu} (${mach.cores} cores); load average ${mach.loadAverageAtStart.join(' ')} at start, ${loadAverage().join(' ')} at end. ` +
      `ns per key of CPU time (user + system: time spent waiting for a CPU on a shared machine is not counted), median over ${ROUNDS} rounds × ${opt.repeats} process(es) (min–max); each value the fastest of ${PASSES} passes. ` +
      '"loop": `for` over the keys, one single call each, counting the answers; "loop into boolean[]": the same storing each answer into `new Array(n)`, the array the batch returns. ' +
      '"batch into Uint8Array": `hasAll(keys, out)` / `hasAllUrls(urls, out)`, the answers written into one Uint8Array reused from pass to pass. ' +
      'batch / loop is the median of per-round ratios (min–max): at most 1 means the batch is never slower. ' +
      `Domains: ${fmtInt(N)} members of blocklist_domains.txt and as many benign domains, alternating; URLs: the phishing URLs and as many \`https://<benign domain>/\`, alternating. ` +
      'Fresh: flat strings; sliced: `text.split("\\n")` of one text. See the header of bench/batch.mjs.',
    '',
  );
  const rows = [];
  for (const [release] of nodes) {
    for (const family of families) {
      for (const dist of dists) {
        const runs = results.filter((r) => r.release === release && r.family === family && r.dist === dist.label).flatMap((r) => r.rounds);
        for (const pair of PAIRS) {
          for (const kind of pair.keys) {
            for (const strings of STRINGS) {
              const id = (op) => `${kind}/${strings}/${op}`;
              const single = stats(runs.map((r) => r[id(pair.single)]));
              const batch = stats(runs.map((r) => r[id(pair.batch)]));
              const array = stats(runs.map((r) => r[id(`${pair.single}[]`)]));
              const into = stats(runs.map((r) => r[id(`${pair.batch}(out)`)]));
              const ratio = pairedRatio(runs, runs, id(pair.batch), id(pair.single));
              const ratioArray = pairedRatio(runs, runs, id(pair.batch), id(`${pair.single}[]`));
              const ratioInto = pairedRatio(runs, runs, id(`${pair.batch}(out)`), id(pair.single));
              rows.push([`v${release}`, FAMILIES[family].name, ...(dists.length > 1 ? [dist.label] : []), `${pair.batch} / ${pair.single}`, kind, strings,
                nsCell(single), nsCell(array), nsCell(batch), nsCell(into), ratioCell(ratio), ratioCell(ratioArray), ratioCell(ratioInto),
                verdict(ratioArray, ratioInto)]);
            }
          }
        }
      }
    }
  }
  md.push(markdownTable(['Node.js', 'family', ...(dists.length > 1 ? ['build'] : []), 'calls', 'keys', 'strings', 'loop ns/key', 'loop into boolean[] ns/key', 'batch ns/key', 'batch into Uint8Array ns/key',
    'batch / loop', 'batch / loop into boolean[]', 'batch into Uint8Array / loop', ''], rows), '');
  const over = (column) => rows.filter((r) => Number.parseFloat(r.at(column)) > 1).length;
  const slower = rows.filter((r) => r.at(-1) !== 'ok');
  md.push(
    '**Like for like** (the last column): the batch that returns a boolean[] against the loop that stores the same boolean[], ' +
      'and the batch into a Uint8Array against the loop that only counts (neither allocates per answer). ' +
      (slower.length ? `**${slower.length} of ${rows.length} rows have a batch slower than the single calls (median).**` : `In all ${rows.length} rows both batches cost at most the single calls (median).`) +
      ` Batch into Uint8Array slower than the counting loop: ${over(-2)} of ${rows.length} rows; boolean[] batch slower than the boolean[] loop: ${over(-3)}; ` +
      `boolean[] batch slower than the counting loop, which allocates nothing: ${over(-4)} (the answer array's own cost).`,
    '',
  );
  return md.join('\n');
}

if (opt.worker) {
  workerMain().catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else driverMain();
