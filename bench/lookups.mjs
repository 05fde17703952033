// One run of the browser benchmark's measurements, the same code in a page
// (bench/browser/page.mjs, inside Chromium) and in Node.js (bench/browser.mjs
// --node-side), so the two tables differ only by where they ran. Imports
// nothing of Node's: adapters.mjs loads in a page.
//
// A run: create a filter for the members (adapter.create(n, ε)), add them one
// call per key; look up every member and every non-member one `has` per key,
// and with `hasAll` where the implementation has it; each lookup pass is the
// fastest of `passes` within 250 ms. With `urls` (the URL key set): a second
// filter gets the members as URL list entries (`addUrls`, or for an
// implementation without it the JS rules of bench/url-reference.mjs: each
// entry's expression added one by one), and the queries, members and
// non-members alternating, are looked up with `hasUrl` and `hasAllUrls` (or the
// JS rules: canonicalize, expressions, one `has` per expression until the
// first hit). Members found absent are counted, never asserted away.
import { bestOf, countTrue, nowMs } from './stats.mjs';
import { canonicalize, entryExpression, expressions } from './url-reference.mjs';

const PASS_BUDGET_MS = 250;

/** Hits of a loop of one-key calls. */
function loop(call, keys) {
  let hits = 0;
  for (let i = 0; i < keys.length; ++i) if (call(keys[i])) ++hits;
  return hits;
}

/**
 * One run of `adapter` (bench/adapters.mjs, initialized) on the keys.
 * @returns ops per second of each call ({add, has, hasNon, hasAll, hasAllNon, hasUrl, hasAllUrls}Ops, the
 *   ones the implementation has), false negatives and false positives; `error` if a phase threw.
 */
export async function runLookups(adapter, members, nonMembers, { eps, passes = 3, urls = false }) {
  const r = { n: members.length, nonMembers: nonMembers.length };
  const best = (pass, check) => bestOf(pass, { passes, budgetMs: PASS_BUDGET_MS, check });
  const ops = (keys, ms) => keys.length / (ms / 1e3);
  let phase = 'create';
  const open = [];
  try {
    const f = await adapter.create(members.length, eps);
    open.push(f);
    phase = 'add';
    let t0 = nowMs();
    for (let i = 0; i < members.length; ++i) f.add(members[i]);
    r.addOps = ops(members, nowMs() - t0);
    phase = 'has';
    const has = (key) => f.has(key);
    const hit = best(() => loop(has, members));
    r.hasOps = ops(members, hit.ms);
    r.falseNegatives = members.length - hit.result;
    const non = best(() => loop(has, nonMembers));
    r.hasNonOps = ops(nonMembers, non.ms);
    r.falsePositives = non.result;
    if (f.hasAll) {
      phase = 'hasAll';
      const all = best(() => f.hasAll(members), countTrue);
      r.hasAllOps = ops(members, all.ms);
      if (all.result !== hit.result) throw new Error(`hasAll found ${all.result} members, has ${hit.result}`);
      const allNon = best(() => f.hasAll(nonMembers), countTrue);
      r.hasAllNonOps = ops(nonMembers, allNon.ms);
      if (allNon.result !== non.result) throw new Error(`hasAll found ${allNon.result} false positives, has ${non.result}`);
    }
    if (urls) {
      phase = 'URL entries';
      const queries = [];
      for (let i = 0; i < members.length; ++i) queries.push(members[i], nonMembers[i % nonMembers.length]);
      const g = await adapter.create(members.length, eps);
      open.push(g);
      let hasUrl;
      t0 = nowMs();
      if (g.hasUrl) {
        g.addUrls(members);
        hasUrl = (url) => g.hasUrl(url);
      } else {
        for (let i = 0; i < members.length; ++i) g.add(entryExpression(members[i]));
        hasUrl = (url) => {
          const e = expressions(canonicalize(url));
          for (let i = 0; i < e.length; ++i) if (g.has(e[i])) return true;
          return false;
        };
        r.jsRules = true;
      }
      r.addUrlsOps = ops(members, nowMs() - t0);
      phase = 'hasUrl';
      const u = best(() => loop(hasUrl, queries));
      r.hasUrlOps = ops(queries, u.ms);
      const found = members.reduce((n, m) => n + (hasUrl(m) ? 1 : 0), 0);
      r.urlFalseNegatives = members.length - found;
      if (g.hasAllUrls) {
        phase = 'hasAllUrls';
        const all = best(() => g.hasAllUrls(queries), countTrue);
        r.hasAllUrlsOps = ops(queries, all.ms);
        if (all.result !== u.result) throw new Error(`hasAllUrls found ${all.result}, hasUrl ${u.result}`);
      }
    }
    r.params = f.params();
  } catch (e) {
    r.error = { phase, name: e?.name ?? 'Error', message: String(e?.message ?? e).slice(0, 300) };
  } finally {
    for (const x of open) x.dispose();
  }
  return r;
}
