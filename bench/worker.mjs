// One implementation, one configuration, one process: forked by bench/run.mjs
// (node --expose-gc bench/worker.mjs --impl NAME --n N --eps E --runs R ...), so
// JIT state and garbage of one implementation never reach another. Loads the
// keys (bench/data.mjs), warms up on a small filter, then does R timed runs;
// each run builds a fresh filter and times every operation the adapter has,
// checking correctness as it goes (members reported absent are counted, never
// asserted away). Under run.mjs it waits for a 'run' message per timed run and
// answers over IPC; by hand it does --runs runs and prints JSON:
//   node --expose-gc bench/worker.mjs --impl cuckoo-wasm --n 100000 --eps 0.001 --runs 5 [--keys urls]
import { parseArgs } from 'node:util';
import { loadAdapter } from './adapters.mjs';
import { loadKeys } from './data.mjs';
import { errorInfo, serve } from './rounds.mjs';
import { bestOf as best, countTrue, nowMs, sample } from './stats.mjs';

const { values: opt } = parseArgs({
  options: {
    impl: { type: 'string' },
    n: { type: 'string', default: '100000' },
    eps: { type: 'string', default: '0.001' },
    keys: { type: 'string', default: 'domains' }, // or urls (bench/data.mjs)
    runs: { type: 'string', default: '5' },
    budget: { type: 'string', default: '0' }, // seconds for the timed runs; 0: no limit
    data: { type: 'string' },
    passes: { type: 'string', default: '3' }, // lookup passes per run (the fastest is kept)
    // Filters are created for capacity-factor · N items; below 1 they overfill, to see how each
    // implementation reports a full filter (cuckoo-wasm throws FilterFullError, peers refuse or degrade).
    'capacity-factor': { type: 'string', default: '1' },
    'check-sample': { type: 'string', default: '50000' },
    // Implementations under 500k adds and lookups per second in the warm-up look up and delete this many
    // evenly spaced keys per run instead of all (0: always all).
    'sample-slow': { type: 'string', default: '100000' },
    'warmup-keys': { type: 'string', default: '50000' },
    'warmup-runs': { type: 'string', default: '2' },
    // A Bloom filter adapter's exact m and k instead of sizing from N and ε (run.mjs gives
    // bloomfilter those of this package's BloomFilter, so the two compared filters have one size).
    'bloom-bits': { type: 'string' },
    'bloom-hashes': { type: 'string' },
  },
});

const N = Number(opt.n);
const EPS = Number(opt.eps);
const RUNS = Number(opt.runs);
const BUDGET_S = Number(opt.budget);
const CHECK_SAMPLE = Number(opt['check-sample']);
const CAPACITY_FACTOR = Number(opt['capacity-factor']);
const LOOKUP_PASSES = Number(opt.passes);
const PASS_BUDGET_MS = 250;
const WARMUP_BUDGET_MS = 3000;
const SLOW_OPS = 500e3;
const SAMPLE_SLOW = Number(opt['sample-slow']);
const WARMUP_KEYS = Number(opt['warmup-keys']);
const WARMUP_RUNS = Number(opt['warmup-runs']);
const SIZING = opt['bloom-bits'] ? { bits: Number(opt['bloom-bits']), hashes: Number(opt['bloom-hashes']) } : undefined;

const gc = globalThis.gc ?? (() => {});

/** Bytes the JS heap and its array buffers hold, after a full GC. */
function heapBytes() {
  gc();
  gc();
  const u = process.memoryUsage();
  return u.heapUsed + u.external;
}

/** The fastest of up to LOOKUP_PASSES lookup passes within PASS_BUDGET_MS (stats.mjs bestOf). */
const bestOf = (pass, check) => best(pass, { passes: LOOKUP_PASSES, budgetMs: PASS_BUDGET_MS, check });

/** How many of `keys` the filter's has() reports absent (an untimed check). */
function absent(f, keys) {
  let missing = 0;
  for (let i = 0; i < keys.length; ++i) if (!f.has(keys[i])) ++missing;
  return missing;
}

/**
 * One run: build a filter of all members one key at a time, then time member
 * and non-member lookups, the batch calls, serialization, load and delete.
 * Returns the metrics; a throw in a phase ends the run with `error` set.
 */
async function runOnce(adapter, members, nonMembers, eps, lookupSample = 0) {
  const n = members.length;
  const r = { n };
  // Slow implementations look up (and delete) an evenly spaced sample; the build is always every member.
  const probe = lookupSample && n > lookupSample ? sample(members, 0, n, lookupSample) : members;
  if (probe !== members) r.memberSample = probe.length;
  if (lookupSample && nonMembers.length > lookupSample) {
    nonMembers = sample(nonMembers, 0, nonMembers.length, lookupSample);
    r.nonMemberSample = nonMembers.length;
  }
  const np = probe.length;
  let phase = 'create';
  let f;
  try {
    const m0 = heapBytes();
    let t0 = nowMs();
    const capacity = Math.max(1, Math.ceil(n * CAPACITY_FACTOR));
    f = await adapter.create(capacity, eps, SIZING);
    r.createMs = nowMs() - t0;

    phase = 'add';
    let refused = 0;
    t0 = nowMs();
    for (let i = 0; i < n; ++i) if (!f.add(members[i])) ++refused;
    r.addMs = nowMs() - t0;
    r.addOps = n / (r.addMs / 1e3);
    r.refused = refused;
    r.heapDelta = heapBytes() - m0;
    const mem = await f.memory();
    r.memBytes = mem ? mem.bytes : null;
    r.memHow = mem ? mem.how : 'heap delta';
    r.params = f.params();
    if (typeof f.rawBits === 'function') r.rawBits = f.rawBits();

    phase = 'has (members)';
    const hasPass = bestOf(() => {
      let hits = 0;
      for (let i = 0; i < np; ++i) if (f.has(probe[i])) ++hits;
      return hits;
    });
    r.hasMs = hasPass.ms;
    r.hasPasses = hasPass.passes;
    r.hasOps = np / (r.hasMs / 1e3);
    r.falseNegatives = np - hasPass.result;
    r.fnChecked = np;

    phase = 'has (non-members)';
    const nn = nonMembers.length;
    const nonPass = bestOf(() => {
      let fp = 0;
      for (let i = 0; i < nn; ++i) if (f.has(nonMembers[i])) ++fp;
      return fp;
    });
    r.hasNonMs = nonPass.ms;
    r.hasNonOps = nn / (r.hasNonMs / 1e3);
    r.falsePositives = nonPass.result;
    r.nonMembers = nn;
    r.fpr = nonPass.result / nn;

    if (typeof f.hasAll === 'function') {
      phase = 'hasAll (members)';
      const allPass = bestOf(() => f.hasAll(members), countTrue);
      r.hasAllMs = allPass.ms;
      r.hasAllOps = n / (r.hasAllMs / 1e3);
      r.hasAllFalseNegatives = n - allPass.result;
      phase = 'hasAll (non-members)';
      const allNonPass = bestOf(() => f.hasAll(nonMembers), countTrue);
      r.hasAllNonOps = nn / (allNonPass.ms / 1e3);
      if (allNonPass.result !== r.falsePositives) throw new Error(`hasAll found ${allNonPass.result} false positives, has ${r.falsePositives}`);
    }

    if (typeof f.addAll === 'function') {
      // Like the lookups, the fastest of LOOKUP_PASSES passes within PASS_BUDGET_MS, each
      // into a new filter (only the addAll call is timed): one call of a few milliseconds
      // alone picks up a garbage collection or a tier-up as often as not.
      phase = 'addAll';
      r.addAllMs = Infinity;
      let spent = 0;
      for (let pass = 0; pass < LOOKUP_PASSES && (pass === 0 || spent < PASS_BUDGET_MS); ++pass) {
        const g = await adapter.create(capacity, eps, SIZING);
        try {
          t0 = nowMs();
          g.addAll(members);
          const ms = nowMs() - t0;
          r.addAllMs = Math.min(r.addAllMs, ms);
          spent += ms;
          phase = 'addAll check';
          const missed = typeof g.hasAll === 'function' ? n - countTrue(g.hasAll(members)) : absent(g, members);
          r.addAllFalseNegatives = Math.max(r.addAllFalseNegatives ?? 0, missed);
          phase = 'addAll';
        } finally {
          g.dispose();
        }
      }
      r.addAllOps = n / (r.addAllMs / 1e3);
    }

    phase = 'serialize';
    t0 = nowMs();
    const bytes = f.serialize();
    r.serializeMs = nowMs() - t0;
    r.serializedBytes = bytes.length;

    phase = 'load from bytes';
    t0 = nowMs();
    const h = await adapter.deserialize(bytes);
    r.loadMs = nowMs() - t0;
    try {
      phase = 'load check';
      const s = sample(members, 0, n, CHECK_SAMPLE);
      r.loadCheck = s.length;
      r.loadFalseNegatives = absent(h, s);
    } finally {
      h.dispose();
    }

    if (typeof f.delete === 'function') {
      phase = 'delete';
      const half = n >>> 1;
      const gone = lookupSample && half > lookupSample ? sample(members, 0, half, lookupSample) : members.slice(0, half);
      const nd = gone.length;
      let deleted = 0;
      t0 = nowMs();
      for (let i = 0; i < nd; ++i) if (f.delete(gone[i])) ++deleted;
      r.deleteMs = nowMs() - t0;
      r.deleteOps = nd / (r.deleteMs / 1e3);
      r.deleted = nd;
      r.deleteMissing = nd - deleted; // deletes of added keys that found nothing
      phase = 'delete check';
      const s = sample(members, half, n, CHECK_SAMPLE);
      r.deleteCheck = s.length;
      r.deleteFalseNegatives = absent(f, s); // kept keys lost by the deletes
    }
  } catch (e) {
    r.error = errorInfo(phase, e);
  } finally {
    try {
      f?.dispose();
    } catch {
      /* already reported */
    }
  }
  return r;
}

/** Loads the adapter and keys, measures the keys' heap, warms up. */
async function prepare() {
  const adapter = await loadAdapter(opt.impl);
  const h0 = heapBytes();
  const keys = loadKeys(N, { dir: opt.data, keys: opt.keys });
  const keyHeap = heapBytes() - h0;
  const { members, nonMembers, files, ...counts } = keys; // counts: derived and excluded keys, digest
  const info = {
    impl: opt.impl, name: adapter.name, kind: adapter.kind, version: adapter.version, n: N, eps: EPS,
    keys: { kind: opt.keys, members: members.length, nonMembers: nonMembers.length, ...counts, sample: files.sample, files, heapBytes: keyHeap },
  };
  if (adapter.keepsKeys) {
    // Heap of the key strings alone: a copy of the array with fresh strings,
    // minus a copy of the array that shares them.
    let a = heapBytes();
    let copy = JSON.parse(JSON.stringify(members));
    const withStrings = heapBytes() - a;
    copy = null;
    a = heapBytes();
    copy = members.slice();
    const arrayOnly = heapBytes() - a;
    copy = null;
    info.keyStringBytes = withStrings - arrayOnly;
  }
  const t0 = nowMs();
  const wn = Math.min(N, WARMUP_KEYS);
  let warm;
  for (let i = 0; i < WARMUP_RUNS && (i === 0 || nowMs() - t0 < WARMUP_BUDGET_MS); ++i) {
    warm = await runOnce(adapter, members.slice(0, wn), nonMembers.slice(0, WARMUP_KEYS), EPS);
    if (warm.error) info.warmupError = warm.error;
  }
  info.warmupMs = nowMs() - t0;
  // An implementation whose adds and lookups both ran under SLOW_OPS per second in the
  // last warm-up run gets sampled lookups (the fast ones run at millions per second,
  // the slow ones at about 100k, so the line is not close to either).
  info.lookupSample = 0;
  if (SAMPLE_SLOW > 0 && warm && !warm.error && Math.max(warm.addOps, warm.hasOps) < SLOW_OPS) info.lookupSample = SAMPLE_SLOW;
  info.warmupOps = warm ? { add: warm.addOps, has: warm.hasOps } : null;
  return { adapter, keys, info };
}

/** One timed run over all keys. */
async function timedRun({ adapter, keys, info }) {
  const runStart = nowMs();
  const r = await runOnce(adapter, keys.members, keys.nonMembers, EPS, info.lookupSample);
  r.runMs = nowMs() - runStart;
  if (adapter.keepsKeys && r.heapDelta != null) r.heapDelta += info.keyStringBytes;
  return r;
}

if (process.send) {
  // Driven by bench/run.mjs: 'ready' once warmed up, then one timed run per 'run' message,
  // so the parent can interleave implementations round by round.
  serve(prepare, timedRun);
} else {
  // By hand: R runs (stopping early past --budget seconds), JSON on stdout.
  prepare().then(async (ctx) => {
    const out = { ...ctx.info, runs: [] };
    const start = nowMs();
    for (let i = 0; i < RUNS; ++i) {
      const r = await timedRun(ctx);
      out.runs.push(r);
      if (r.error) break;
      const elapsed = (nowMs() - start) / 1e3;
      if (BUDGET_S > 0 && i + 1 < RUNS && elapsed + r.runMs / 1e3 > BUDGET_S) break;
    }
    process.stdout.write(JSON.stringify(out, null, 1) + '\n');
  }).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
