// `cuckoo-wasm publish` at scale: wall time and peak memory of the CLI (dist/cli.cjs) publishing a large list's
// first version, then a next version with 1% churn, each in its own process, as a publisher's cron job runs it.
//
//   node bench/publish.mjs                          # 3,000,000 and 10,000,000 entries, writes bench/results/publish.md
//   node bench/publish.mjs --sizes 3000000 --no-write
//
// Options: --sizes N,N (list lengths; default 3000000,10000000), --churn C (share of the list removed and as many
// new entries added for the second version; default 0.01), --data DIR (blocklist_domains.txt and
// benign_domains.txt; default ../shared/data), --tmp DIR (where lists, state and served folders go; default the OS's
// temporary folder), --repeats R (runs of each version for lists of up to 3,000,000 entries, from the same folders,
// the fastest kept: other work on the machine only slows a run; default 3), --no-write (print only).
//
// The list: every domain of blocklist_domains.txt and benign_domains.txt (about 540,000), then generated names
// (`<word>-<i>.<tld>`, words from the real domains' first labels) up to N, shuffled (seeded) so that the list is in
// no order, one per line. Version 2: a seeded C·N of them removed and C·N new generated names added.
//
// Columns: entries; run (first version, or the churn version); wall s (the CLI process from start to exit); CPU s
// (user + system, from /usr/bin/time -v); load (the 1-minute load average after the run: other work slows it); peak
// RSS MB (VmHWM of /proc/<pid>/status, read every 20 ms while it runs, and /usr/bin/time -v's maximum resident set
// when available); full MB (the full filter); patch KB (the patch from the version before); checked: the manifest
// parses, the full filter's SHA-256 matches, the patch applied to version 1's filter gives version 2's, and 20,000
// sampled entries of the version are found (0 false negatives).
import { spawn } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '3000000,10000000' },
    churn: { type: 'string', default: '0.01' },
    data: { type: 'string', default: join(root, '..', 'shared', 'data') },
    tmp: { type: 'string', default: tmpdir() },
    repeats: { type: 'string', default: '3' },
    'no-write': { type: 'boolean', default: false },
  },
});
/** Runs of each version: --repeats for lists up to 3,000,000 entries, one above (each takes half a minute). */
const repeats = (n) => (n <= 3000000 ? Number(values.repeats) : 1);
const sizes = values.sizes.split(',').map(Number);
const churn = Number(values.churn);
const cli = join(root, 'dist', 'cli.cjs');
const lib = await import(join(root, 'dist', 'node.mjs'));

// A seeded 32-bit generator (mulberry32).
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const real = ['blocklist_domains.txt', 'benign_domains.txt'].flatMap((f) => readFileSync(join(values.data, f), 'utf8').split('\n').filter(Boolean));
const words = [...new Set(real.map((d) => d.split('.')[0]).filter((w) => /^[a-z0-9-]{3,20}$/.test(w)))];
const TLDS = ['com', 'net', 'org', 'io', 'info', 'xyz', 'de', 'ru', 'top', 'site'];
const generated = (i, tag) => `${words[i % words.length]}-${tag}${i}.${TLDS[i % TLDS.length]}`;

async function writeList(path, entries) {
  const out = createWriteStream(path);
  for (let i = 0; i < entries.length; i += 65536) {
    if (!out.write(entries.slice(i, i + 65536).join('\n') + '\n')) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r) => out.end(r));
}

/** Runs the CLI, sampling its VmHWM; under /usr/bin/time -v when present. */
function runCli(args) {
  const timed = existsSync('/usr/bin/time');
  const start = process.hrtime.bigint();
  const child = timed ? spawn('/usr/bin/time', ['-v', process.execPath, cli, ...args]) : spawn(process.execPath, [cli, ...args]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  let hwm = 0;
  const sample = setInterval(() => {
    // Under time(1), the node process is its child: read every process of the group we know.
    for (const pid of [child.pid, ...childrenOf(child.pid)]) {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (m) hwm = Math.max(hwm, Number(m[1]) * 1024);
      } catch {
        // gone
      }
    }
  }, 20);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearInterval(sample);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const max = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
      const system = /System time \(seconds\): ([\d.]+)/.exec(stderr);
      const cpu = user && system ? Number(user[1]) + Number(system[1]) : undefined;
      resolve({ code, stdout, stderr, seconds, cpu, rss: Math.max(hwm, max ? Number(max[1]) * 1024 : 0) });
    });
  });
}

function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const sha = (b) => createHash('sha256').update(b).digest('hex');
function servedManifest(out) {
  const env = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  return JSON.parse(Buffer.from(env.payload, 'base64').toString());
}

const rows = [];
let failures = 0;
for (const n of sizes) {
  const dir = mkdtempSync(join(values.tmp, 'cuckoo-publish-bench-'));
  try {
    const random = rng(n);
    const entries = real.slice(0, n);
    for (let i = 0; entries.length < n; ++i) entries.push(generated(i, 'g'));
    for (let i = entries.length - 1; i > 0; --i) {
      const j = Math.floor(random() * (i + 1));
      [entries[i], entries[j]] = [entries[j], entries[i]];
    }
    const list = join(dir, 'list.txt');
    const out = join(dir, 'out');
    const state = join(dir, 'state');
    await writeList(list, entries);
    const versions = [];
    for (const run of ['first version', `${churn * 100}% churn`]) {
      if (versions.length === 1) {
        const c = Math.round(churn * n);
        for (let k = 0; k < c; ++k) entries[Math.floor(random() * entries.length)] = generated(k, 'new');
        await writeList(list, entries);
      }
      // The same run `repeats` times from the same folders (restored from a copy before each): the fastest kept.
      const saved = join(dir, 'saved');
      rmSync(saved, { recursive: true, force: true });
      if (versions.length === 1) for (const d of ['out', 'state']) cpSync(join(dir, d), join(saved, d), { recursive: true });
      let r;
      for (let rep = 0; rep < repeats(n); ++rep) {
        for (const d of ['out', 'state']) rmSync(join(dir, d), { recursive: true, force: true });
        if (versions.length === 1) for (const d of ['out', 'state']) cpSync(join(saved, d), join(dir, d), { recursive: true });
        const one = await runCli(['publish', list, '--out', out, '--state', state]);
        if (one.code !== 0) {
          console.error(one.stdout, one.stderr);
          throw new Error(`publish exited with ${one.code}`);
        }
        const load = (await import('node:os')).loadavg()[0];
        if (r === undefined || one.seconds < r.seconds) r = { ...one, load };
      }
      const m = servedManifest(out);
      const full = readFileSync(join(out, m.full.path));
      const checks = [];
      if (sha(full) !== m.full.sha256) checks.push('full sha256');
      const patch = m.patches[0];
      if (versions.length === 1) {
        const p = readFileSync(join(out, patch.path));
        if (sha(p) !== patch.sha256) checks.push('patch sha256');
        const applied = await lib.applyPatchBytes(versions[0], p);
        if (!Buffer.from(applied).equals(full)) checks.push('patch result');
      }
      const filter = await lib.CuckooFilter.fromBytes(full);
      let misses = 0;
      for (let k = 0; k < 20000; ++k) if (!filter.has(entries[Math.floor(random() * entries.length)])) misses++;
      filter.dispose();
      if (misses > 0) checks.push(`${misses} false negatives`);
      failures += checks.length;
      versions.push(full);
      const row = {
        entries: n,
        run,
        wall: r.seconds.toFixed(2),
        cpu: r.cpu === undefined ? '–' : r.cpu.toFixed(2),
        load: r.load.toFixed(1),
        rss: (r.rss / 2 ** 20).toFixed(0),
        full: (full.length / 2 ** 20).toFixed(2),
        patch: patch ? (patch.size / 1024).toFixed(1) : '–',
        checked: checks.length === 0 ? 'ok' : checks.join(', '),
      };
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const cores = (await import('node:os')).cpus();
const table = [
  '# `cuckoo-wasm publish` at scale',
  '',
  `Made by \`node bench/publish.mjs\` on Node.js ${process.version}, ${cores.length} × ${cores[0]?.model ?? 'CPU'}. ` +
    'Each row is a CLI process (`cuckoo-wasm publish LIST --out DIR --state DIR`, cuckoo filter, ε = 0.1%, capacity the entries × 1.25), ' +
    `the fastest of ${values.repeats} runs from the same folders for 3,000,000 entries, one run for more. ` +
    'Peak RSS is the process\'s VmHWM; CPU s is /usr/bin/time\'s user + system time, which other load on the machine ' +
    'changes less than the wall time (the load column: the 1-minute load average after the run). Targets: 3,000,000 entries in ≤ 10 s and ≤ 400 MB, first version and 1% churn.',
  '',
  '| entries | run | wall s | CPU s (user + sys) | load (1 min) | peak RSS MB | full MB | patch KB | checked |',
  '|---:|---|---:|---:|---:|---:|---:|---:|---|',
  ...rows.map((r) => `| ${r.entries.toLocaleString('en')} | ${r.run} | ${r.wall} | ${r.cpu} | ${r.load} | ${r.rss} | ${r.full} | ${r.patch} | ${r.checked} |`),
  '',
];
if (!values['no-write']) writeFileSync(join(root, 'bench', 'results', 'publish.md'), table.join('\n'));
console.log(table.join('\n'));
process.exitCode = failures > 0 ? 1 : 0;
