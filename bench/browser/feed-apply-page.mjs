// The page of bench/feed-apply.mjs: served on 127.0.0.1 under the strict CSP (script-src 'self' 'wasm-unsafe-eval')
// with ?entry=reader|index&set=NAME&runs=R&warmup=W. This script does the work itself: imports /dist/ENTRY.mjs,
// fetches the data set the runner wrote (/data/NAME.json: family, SHA-256 of the patch and of version 2, a sample
// of added keys; /data/NAME-v1.bin, -v2.bin, -patch.bin, -tiny.bin; fetching is not timed), runs
// bench/feed-apply-steps.mjs and publishes the result as window.__feedApplyResult, which the runner only reads.
// With &mode=update it runs bench/feed-update-steps.mjs instead: FilterFeed.update() of the entry over the feed the
// runner published and serves (/data/feed-NAME.json: its manifest's URL, public key, version 1's StoredFeed fields;
// /data/feed-NAME-v1.bin and -v2.bin, the two versions' full files, fetched before anything is timed).
import { measureFeedApply } from '../feed-apply-steps.mjs';
import { measureFeedUpdate } from '../feed-update-steps.mjs';

async function main() {
  const q = new URLSearchParams(location.search);
  const entry = q.get('entry');
  const set = q.get('set');
  if (entry !== 'reader' && entry !== 'index') throw new Error(`unknown entry ${entry}`);
  const lib = await import(`/dist/${entry}.mjs`);
  const opts = { runs: Number(q.get('runs')), warmup: Number(q.get('warmup')) };
  if (q.get('mode') === 'update') {
    const info = await (await fetch(`/data/feed-${set}.json`)).json();
    const bin = async (what) => new Uint8Array(await (await fetch(`/data/feed-${set}-${what}.bin`)).arrayBuffer());
    const r = await measureFeedUpdate(lib, { ...info, manifestUrl: new URL(info.manifestPath, location.href).href, v1: await bin('v1'), v2: await bin('v2') }, opts);
    return { ok: true, mode: 'update', entry, set, userAgent: navigator.userAgent, isolated: self.crossOriginIsolated, ...r };
  }
  const manifest = await (await fetch(`/data/${set}.json`)).json();
  const bin = async (what) => new Uint8Array(await (await fetch(`/data/${set}-${what}.bin`)).arrayBuffer());
  const data = { ...manifest, v1: await bin('v1'), v2: await bin('v2'), patch: await bin('patch'), tiny: await bin('tiny') };
  const r = await measureFeedApply(lib, data, opts);
  return { ok: true, entry, set, userAgent: navigator.userAgent, isolated: self.crossOriginIsolated, ...r };
}

main().then(
  (r) => {
    window.__feedApplyResult = r;
    document.getElementById('status').textContent = 'done';
  },
  (e) => {
    window.__feedApplyResult = { ok: false, error: `${e?.name ?? 'Error'}: ${e?.message ?? e}` };
    document.getElementById('status').textContent = 'failed';
  },
);
