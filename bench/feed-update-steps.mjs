// The FilterFeed part of bench/feed-apply.mjs, the same code in Chromium (bench/browser/feed-apply-page.mjs with
// ?mode=update) and in Node.js (feed-apply.mjs --node-side update:...): the real `FilterFeed.update()` of the entry
// given as `lib`, end to end, from version 1 to version 2 of a feed that `publish()` wrote and a node:http server of
// the runner serves on 127.0.0.1 (manifest signed with Ed25519, the feed opened with the public key).
//
// Each run opens a feed (not timed) with a store preloaded with version 1's StoredFeed and `updateOnOpen: false`, so
// that open makes no request (it checks the stored bytes' SHA-256 and loads them); then times `await feed.update()`,
// which must go to version 2 by 'patch'. The library is not changed: its steps are seen through what it calls,
// each wrapper taking one performance.now() on each side (their cost is in the total):
//   fetch        the feed's `fetch` option: the time each request is made (the manifest's, the patch's)
//   toBytes      the held filter's own toBytes (filter-feed.ts run() calls it before downloading the patch)
//   digest       SubtleCrypto.prototype.digest, told apart by input length: the patch's and the result's SHA-256
//   fromBytes    the family class's static fromBytes (the feed's class table holds the class itself)
//   save         the store's save
//   importKey, verify   SubtleCrypto.prototype's: the manifest's Ed25519 check
// Steps: manifest (fetch, envelope, Ed25519 verify, parse: update() called → toBytes called; of it, the request until
// fetch resolved with the headers, and importKey called → verify resolved), toBytes, patch download (toBytes returned
// → the patch's SHA-256 called: the request, the body read as a stream and joined; of it, until the headers), verify patch,
// apply (the patch's SHA-256 done → the result's called: applyPatchBytes), verify result, fromBytes, store save, rest
// (the gaps between, and save returned → update() resolved: the swap, the old filter's dispose); total. Every run
// checks the update's `via`/`to`, the saved bytes against version 2's full file byte for byte, and a sample of added
// keys in the new filter.

const equalBytes = (a, b) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

export const UPDATE_STEPS = ['manifest', 'manifest: request', 'manifest: Ed25519', 'toBytes', 'patch download', 'patch download: request', 'verify patch', 'apply', 'verify result', 'fromBytes', 'store save', 'rest', 'total', 'client work'];

/**
 * Runs `warmup` untimed and `runs` timed updates.
 *
 * @param {object} lib - the entry's module (dist/reader.mjs or dist/index.mjs).
 * @param {{ manifestUrl: string, publicKey: string, family: string, name: string, v1Sha256: string, v1: Uint8Array,
 *   v2: Uint8Array, patchSize: number, added: string[] }} data
 * @returns {Promise<{ update: Record<string, number[]>, checks: object }>}
 */
export async function measureFeedUpdate(lib, data, { runs = 15, warmup = 2 } = {}) {
  const update = Object.fromEntries(UPDATE_STEPS.map((k) => [k, []]));
  const checks = { runs: 0, resultMismatch: 0, shaMismatch: 0, addedMissing: 0, errors: [] };
  const Cls = lib[data.family];
  let trace; // the events of the update being timed: [what, start, end]
  const mark = (what, a, b) => trace?.push([what, a, b ?? a]);
  const proto = globalThis.SubtleCrypto.prototype;
  const digest = proto.digest;
  proto.digest = function (alg, bytes) {
    const a = performance.now();
    const n = bytes.byteLength;
    return digest.call(this, alg, bytes).then((d) => {
      mark(n === data.patchSize ? 'digest patch' : n === data.v2.length ? 'digest result' : `digest ${n}`, a, performance.now());
      return d;
    });
  };
  const importKey = proto.importKey;
  const verify = proto.verify;
  proto.importKey = function (...args) {
    mark('importKey', performance.now());
    return importKey.apply(this, args);
  };
  proto.verify = function (...args) {
    return verify.apply(this, args).then((ok) => {
      mark('verified', performance.now());
      return ok;
    });
  };
  const fromBytes = Object.getOwnPropertyDescriptor(Cls, 'fromBytes');
  Cls.fromBytes = async function (bytes) {
    const a = performance.now();
    const f = await fromBytes.value.call(this, bytes);
    mark('fromBytes', a, performance.now());
    return f;
  };
  const fetcher = (url, init) => {
    const what = url.endsWith('manifest.json') ? 'manifest' : 'file';
    const a = performance.now();
    return fetch(url, init).then((res) => {
      mark(`fetch ${what}`, a, performance.now());
      return res;
    });
  };
  try {
    for (let r = 0; r < warmup + runs; r++) {
      const timed = r >= warmup;
      let feed;
      try {
        let saved;
        const store = {
          load: async () => ({ name: data.name, version: 1, family: data.family, sha256: data.v1Sha256, bytes: data.v1 }),
          save: async (s) => {
            const a = performance.now();
            saved = s;
            mark('save', a, performance.now());
          },
        };
        trace = undefined;
        feed = await lib.FilterFeed.open({ manifestUrl: data.manifestUrl, publicKey: data.publicKey, store, fetch: fetcher, updateOnOpen: false });
        const held = feed.filter;
        const toBytes = held.toBytes;
        held.toBytes = function () {
          const a = performance.now();
          const b = toBytes.call(this);
          mark('toBytes', a, performance.now());
          return b;
        };
        trace = [];
        const t0 = performance.now();
        const u = await feed.update();
        const t1 = performance.now();
        const ev = trace;
        trace = undefined;
        const at = (what) => ev.find((e) => e[0] === what);
        // toBytes and the result's SHA-256 are steps of clients that copy the held filter out and hash the result; the
        // feed does neither (it keeps the bytes it loaded, and the patch's checksum pins the result): 0 when absent.
        const need = ['fetch manifest', 'importKey', 'verified', 'fetch file', 'digest patch', 'fromBytes', 'save'];
        const missing = need.filter((w) => !at(w));
        if (u.via !== 'patch' || u.to !== 2 || missing.length) {
          throw new Error(`update went ${u.from}→${u.to} via ${u.via}${u.patchError ? ` (${u.patchError.message})` : ''}; events missing: ${missing.join(', ') || 'none'}`);
        }
        const [fm, ik, vf, ff, dp, fb, sv] = need.map(at);
        const tb = at('toBytes');
        const dr = at('digest result');
        const downloadStart = tb ? tb[2] : ff[1];
        const steps = {
          manifest: (tb ? tb[1] : ff[1]) - t0,
          toBytes: tb ? tb[2] - tb[1] : 0,
          'patch download': dp[1] - downloadStart,
          'verify patch': dp[2] - dp[1],
          apply: (dr ? dr[1] : fb[1]) - dp[2],
          'verify result': dr ? dr[2] - dr[1] : 0,
          fromBytes: fb[2] - fb[1],
          'store save': sv[2] - sv[1],
        };
        steps.rest = t1 - t0 - Object.values(steps).reduce((x, y) => x + y, 0);
        steps['manifest: request'] = fm[2] - t0;
        steps['manifest: Ed25519'] = vf[2] - ik[1];
        steps['patch download: request'] = ff[2] - downloadStart;
        steps.total = t1 - t0;
        steps['client work'] = steps.total - steps.manifest - steps['patch download'];
        if (timed) for (const [k, v] of Object.entries(steps)) update[k].push(v);
        if (!equalBytes(saved.bytes, data.v2)) checks.resultMismatch++;
        if (saved.sha256 !== data.v2Sha256) checks.shaMismatch++;
        for (const x of feed.filter.hasAll(data.added)) if (!x) checks.addedMissing++;
        if (timed) checks.runs++;
      } catch (e) {
        checks.errors.push(`${e?.name ?? 'Error'}: ${e?.message ?? e}`);
        if (checks.errors.length > 3) break;
      } finally {
        feed?.dispose();
      }
    }
  } finally {
    proto.digest = digest;
    proto.importKey = importKey;
    proto.verify = verify;
    Object.defineProperty(Cls, 'fromBytes', fromBytes);
  }
  return { update, checks };
}
