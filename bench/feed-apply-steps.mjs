// The measuring part of bench/feed-apply.mjs, the same code in Chromium (bench/browser/feed-apply-page.mjs) and in
// Node.js (feed-apply.mjs --node-side): what a feed client does with a downloaded patch, step by step, timed with
// performance.now(). Uses only what both have: WebCrypto (crypto.subtle), Uint8Array, the entry given as `lib`.
//
// Paths, each run starting from version 1 (its bytes and a filter loaded from them, not timed):
//   bytes     verify patch (SHA-256 of the patch against the manifest's) → applyPatchBytes(held bytes, patch) →
//             verify result (SHA-256 of the new bytes) → Class.fromBytes(new bytes) → swap (old filter disposed)
//   in place  verify patch → filter.applyPatch(patch) → toBytes() (the bytes a client keeps, and hashes) →
//             verify result (SHA-256 of them)
// Parts (each timed alone in the same run, for the floor): a new Uint8Array of the filter's length, not touched and
// filled (the first touch of fresh memory), a copy of the result's bytes into a buffer held across runs (set) and
// into a new one (slice), SHA-256 of the result, fromBytes of the result, toBytes of the patched filter, fromBytes of
// a filter of 1,000 keys (a call's fixed cost).
// Every run checks its result byte for byte against version 2, and that the new filter finds the sample of added
// keys; a mismatch is counted in `checks`, never hidden.

/** Lowercase hex SHA-256 of `bytes` by WebCrypto. */
export async function sha256Hex(bytes) {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  let s = '';
  for (let i = 0; i < d.length; i++) s += d[i].toString(16).padStart(2, '0');
  return s;
}

const equalBytes = (a, b) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/**
 * Runs `warmup` untimed and `runs` timed rounds of both paths and the parts.
 *
 * @param {object} lib - the entry's module (dist/reader.mjs or dist/index.mjs).
 * @param {{ family: 'cuckoo' | 'bloom', v1: Uint8Array, v2: Uint8Array, patch: Uint8Array, tiny: Uint8Array,
 *   patchSha256: string, v2Sha256: string, added: string[] }} data
 * @returns {Promise<{ bytes: Record<string, number[]>, inPlace: Record<string, number[]>, parts: Record<string, number[]>, checks: object }>}
 */
export async function measureFeedApply(lib, data, { runs = 15, warmup = 2 } = {}) {
  const Cls = data.family === 'bloom' ? lib.BloomFilter : lib.CuckooFilter;
  const bytes = { 'verify patch': [], apply: [], 'verify result': [], load: [], swap: [], total: [] };
  const inPlace = { 'verify patch': [], applyPatch: [], toBytes: [], 'verify result': [], total: [], 'total without result hash': [] };
  const parts = { 'new Uint8Array (not touched)': [], 'new Uint8Array + fill (first touch)': [], 'copy into a held buffer (set)': [], 'copy (slice)': [], 'SHA-256 of result': [], 'fromBytes of result': [], 'toBytes of result': [], 'fromBytes, 1,000 keys': [] };
  const checks = { runs: 0, resultMismatch: 0, shaMismatch: 0, addedMissing: 0, errors: [] };
  let sink = 0;
  let scratch;
  for (let r = 0; r < warmup + runs; r++) {
    const timed = r >= warmup;
    const push = (obj, k, v) => timed && obj[k].push(v);
    try {
      // Path 1: bytes → new bytes → new filter. The held bytes are a copy of version 1, as a client has them stored.
      let held = data.v1.slice();
      let heldFilter = await Cls.fromBytes(held);
      const t0 = performance.now();
      const okPatch = (await sha256Hex(data.patch)) === data.patchSha256;
      const t1 = performance.now();
      const out = await lib.applyPatchBytes(held, data.patch);
      const t2 = performance.now();
      const okResult = (await sha256Hex(out)) === data.v2Sha256;
      const t3 = performance.now();
      const next = await Cls.fromBytes(out);
      const t4 = performance.now();
      heldFilter.dispose();
      heldFilter = next;
      held = out;
      const t5 = performance.now();
      push(bytes, 'verify patch', t1 - t0);
      push(bytes, 'apply', t2 - t1);
      push(bytes, 'verify result', t3 - t2);
      push(bytes, 'load', t4 - t3);
      push(bytes, 'swap', t5 - t4);
      push(bytes, 'total', t5 - t0);
      if (!okPatch || !okResult) checks.shaMismatch++;
      if (!equalBytes(held, data.v2)) checks.resultMismatch++;
      const found = heldFilter.hasAll(data.added);
      for (const x of found) if (!x) checks.addedMissing++;
      heldFilter.dispose();

      // Path 2: in place.
      const f = await Cls.fromBytes(data.v1);
      const u0 = performance.now();
      const okPatch2 = (await sha256Hex(data.patch)) === data.patchSha256;
      const u1 = performance.now();
      f.applyPatch(data.patch);
      const u2 = performance.now();
      const kept = f.toBytes();
      const u3 = performance.now();
      const okResult2 = (await sha256Hex(kept)) === data.v2Sha256;
      const u4 = performance.now();
      push(inPlace, 'verify patch', u1 - u0);
      push(inPlace, 'applyPatch', u2 - u1);
      push(inPlace, 'toBytes', u3 - u2);
      push(inPlace, 'verify result', u4 - u3);
      push(inPlace, 'total', u4 - u0);
      push(inPlace, 'total without result hash', u2 - u0);
      if (!okPatch2 || !okResult2) checks.shaMismatch++;
      if (!equalBytes(kept, data.v2)) checks.resultMismatch++;

      // Parts, alone. The held buffer of `set` is touched before, as a buffer a client reuses would be.
      let a = performance.now();
      const fresh = new Uint8Array(data.v2.length);
      let b = performance.now();
      push(parts, 'new Uint8Array (not touched)', b - a);
      sink += fresh[0];
      a = performance.now();
      const filled = new Uint8Array(data.v2.length).fill(1);
      b = performance.now();
      push(parts, 'new Uint8Array + fill (first touch)', b - a);
      sink += filled[filled.length - 1];
      const heldBuffer = (scratch ??= new Uint8Array(data.v2.length).fill(0));
      a = performance.now();
      heldBuffer.set(data.v2);
      b = performance.now();
      push(parts, 'copy into a held buffer (set)', b - a);
      sink += heldBuffer[heldBuffer.length - 1];
      a = performance.now();
      const copy = data.v2.slice();
      b = performance.now();
      push(parts, 'copy (slice)', b - a);
      sink += copy[copy.length - 1];
      a = performance.now();
      sink += (await sha256Hex(data.v2)).length;
      b = performance.now();
      push(parts, 'SHA-256 of result', b - a);
      a = performance.now();
      const g = await Cls.fromBytes(data.v2);
      b = performance.now();
      push(parts, 'fromBytes of result', b - a);
      a = performance.now();
      sink += g.toBytes().length;
      b = performance.now();
      push(parts, 'toBytes of result', b - a);
      g.dispose();
      f.dispose();
      a = performance.now();
      const small = await Cls.fromBytes(data.tiny);
      b = performance.now();
      push(parts, 'fromBytes, 1,000 keys', b - a);
      small.dispose();
      if (timed) checks.runs++;
    } catch (e) {
      checks.errors.push(`${e?.name ?? 'Error'}: ${e?.message ?? e}`);
      if (checks.errors.length > 3) break;
    }
  }
  checks.sink = sink;
  return { bytes, inPlace, parts, checks };
}
