// The browser benchmark's page: bench/browser.mjs serves it on 127.0.0.1 under
// the strict CSP (script-src 'self' 'wasm-unsafe-eval') with one implementation
// and key set in its query string (?impl=cuckoo-wasm&keys=domains&eps=0.01&passes=3).
// This script does the work itself: loads the keys the runner wrote
// (/data/KEYS.json), the implementation's adapter (bench/adapters.mjs), warms up
// on 20,000 keys, then one timed run (bench/lookups.mjs), and publishes the
// result as window.__benchResult, which the runner only reads.
import { ADAPTERS } from '../adapters.mjs';
import { runLookups } from '../lookups.mjs';

const WARMUP_KEYS = 20000;

async function main() {
  const q = new URLSearchParams(location.search);
  const impl = q.get('impl');
  const keys = q.get('keys');
  const eps = Number(q.get('eps'));
  const passes = Number(q.get('passes') ?? '3');
  const adapter = ADAPTERS[impl];
  if (!adapter) throw new Error(`unknown implementation ${impl}`);
  await adapter.init();
  const { members, nonMembers } = await (await fetch(`/data/${keys}.json`)).json();
  const urls = keys === 'urls';
  const warm = await runLookups(adapter, members.slice(0, WARMUP_KEYS), nonMembers.slice(0, WARMUP_KEYS), { eps, passes, urls });
  const r = await runLookups(adapter, members, nonMembers, { eps, passes, urls });
  return { ok: true, impl, name: adapter.name, version: adapter.version, warmupError: warm.error, ...r };
}

main().then(
  (r) => {
    window.__benchResult = r;
    document.getElementById('status').textContent = r.error ? `error in ${r.error.phase}` : 'done';
  },
  (e) => {
    window.__benchResult = { ok: false, error: { phase: 'page', name: e?.name ?? 'Error', message: String(e?.message ?? e) } };
    document.getElementById('status').textContent = 'failed';
  },
);
