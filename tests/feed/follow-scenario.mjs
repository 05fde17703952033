// The client side of the feed-following tests: one plain ES module that runs unchanged in every realm (Node.js,
// Deno, Bun, workerd, a Chromium, Firefox or WebKit page, an MV3 extension's service worker). The test server
// (tests/feed/feed-server.ts) drives it: the scenario asks `control + 'next'` for its next step, does it with the
// realm's FilterFeed, checks the version it then holds against what the server says it must hold, and POSTs what it
// saw to `control + 'report'`; until the server answers { action: 'end' } (or 'reload': the host stops here and is
// started again, a page reloaded, to go on from its IndexedDB).
//
// A step: { id, action, db?, key?, expect: { version, sha256, via?, reason?, patchReason?, entries } }
//   action 'open'    FilterFeed.open({ manifestUrl, publicKey: key, store: makeStore(db) }), the feed held before
//                    (if any) disposed first. With a stored filter, a failed first update does not reject: its error
//                    is the feed's lastError (and onError's).
//   action 'update'  feed.update() of the feed held.
//   expect           what the feed must hold afterwards: `version`, whose full file's SHA-256 is `sha256` and whose
//                    entries the server serves at `entries` (a path outside the feed's folder, one entry per line);
//                    `via` how it got there ('patch', 'full', 'none' when nothing changed, 'stored' when open found it
//                    in the store and the update changed nothing); `reason` the FeedError's reason when the update must
//                    fail; `patchReason` the reason of the patch's failure when the update fell back to the full file.
// Every entry of the version held is checked with feed.has and feed.hasUrl (the list is of host names, published
// with `urls`, so has() is asked for its expression ENTRY/ and hasUrl() for its site, https://ENTRY/), and the
// filter's toBytes() SHA-256 with `sha256`.
//
// A report: { id, action, version, via, reason, patchReason, falseNegatives, urlFalseNegatives, entries, sha256,
// bytes, ms, failures } (failures: what differed from `expect`, empty when the step passed).

/** SHA-256 of bytes, 64 lowercase hex digits, by the realm's WebCrypto. */
async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Whether the realm's WebCrypto verifies Ed25519 (what a signed feed needs; FeedError 'no-crypto' without it). */
export async function hasEd25519() {
  try {
    // RFC 8032 §7.1 test 1's public key.
    const raw = Uint8Array.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a'.match(/../g), (h) => parseInt(h, 16));
    await crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']);
    return true;
  } catch {
    return false;
  }
}

async function getJson(url, init) {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: HTTP ${response.status}`);
  return response.json();
}

/**
 * Follows the steps the server gives until it says 'end' or 'reload'.
 *
 * @param lib - the realm's cuckoo-wasm (either entry): FilterFeed, FeedError.
 * @param options.control - the server's control URL, ending in '/': its feed is at control + '../feed/manifest.json'.
 * @param options.makeStore - the store of a database name (IndexedDbFeedStore where there is IndexedDB).
 * @param options.realm - the realm's name, sent with each request.
 * @returns { realm, ed25519, steps, passed, failed, last } (last: 'end' or 'reload').
 */
export async function followFeed(lib, { control, makeStore, realm }) {
  const manifestUrl = new URL('../feed/manifest.json', control).href;
  const ed25519 = await hasEd25519();
  let feed;
  let lastUpdate;
  const summary = { realm, ed25519, steps: 0, passed: 0, failed: 0, last: undefined };
  try {
    for (;;) {
      const step = await getJson(`${control}next?realm=${encodeURIComponent(realm)}`);
      if (step.action === 'end' || step.action === 'reload') {
        summary.last = step.action;
        return summary;
      }
      const report = await runStep(step);
      summary.steps++;
      if (report.failures.length === 0) summary.passed++;
      else summary.failed++;
      await getJson(`${control}report?realm=${encodeURIComponent(realm)}`, { method: 'POST', body: JSON.stringify({ ...report, ed25519 }) });
    }
  } finally {
    feed?.dispose();
  }

  async function runStep(step) {
    const started = Date.now();
    const report = { id: step.id, action: step.action, version: null, via: null, reason: null, patchReason: null };
    let error;
    lastUpdate = undefined;
    try {
      if (step.action === 'open') {
        feed?.dispose();
        feed = undefined;
        feed = await lib.FilterFeed.open({
          manifestUrl,
          publicKey: step.key,
          store: makeStore(step.db),
          onUpdate: (u) => (lastUpdate = u),
        });
        // Open's update, when a stored filter was loaded first, fails into lastError rather than rejecting.
        error = feed.lastError;
        report.via = lastUpdate?.via ?? 'stored';
      } else if (step.action === 'update') {
        lastUpdate = await feed.update();
        report.via = lastUpdate.via;
      } else {
        throw new Error(`unknown action ${step.action}`);
      }
    } catch (e) {
      error = e;
    }
    if (error !== undefined) {
      report.reason = error instanceof lib.FeedError ? error.reason : `not a FeedError: ${error?.name}: ${error?.message}`;
      report.message = String(error?.message ?? error);
    }
    if (lastUpdate?.patchError) report.patchReason = lastUpdate.patchError.reason ?? lastUpdate.patchError.name;
    report.bytes = lastUpdate?.bytes ?? 0;
    const failures = [];
    if (feed !== undefined) {
      report.version = feed.version;
      const bytes = feed.filter.toBytes();
      report.sha256 = await sha256Hex(bytes);
      const text = await (await fetch(new URL(step.expect.entries, control).href)).text();
      const entries = text.split('\n').filter((e) => e !== '');
      report.entries = entries.length;
      // Entries are host names published with `urls`: the filter holds each as its Safe Browsing host expression, "HOST/".
      report.falseNegatives = entries.filter((e) => !feed.has(`${e}/`)).length;
      report.urlFalseNegatives = entries.filter((e) => !feed.hasUrl(`https://${e}/`)).length;
      if (entries.length === 0) failures.push('no entries served for the version held');
      if (report.falseNegatives !== 0) failures.push(`${report.falseNegatives} entries of version ${feed.version} not found by has`);
      if (report.urlFalseNegatives !== 0) failures.push(`${report.urlFalseNegatives} entries of version ${feed.version} not found by hasUrl`);
    } else {
      failures.push('no feed held');
    }
    const want = step.expect;
    if (report.version !== want.version) failures.push(`holds version ${report.version}, expected ${want.version}`);
    if (report.sha256 !== want.sha256) failures.push(`toBytes() SHA-256 ${report.sha256} is not the manifest's full.sha256 ${want.sha256}`);
    if (want.via !== undefined && report.via !== want.via && !(want.reason && report.reason === want.reason)) failures.push(`via ${report.via}, expected ${want.via}`);
    const reasons = want.reason === undefined ? [null] : [].concat(want.reason);
    if (!reasons.includes(report.reason)) failures.push(`error ${report.reason} (${report.message}), expected ${reasons.join(' or ')}`);
    const patchReasons = want.patchReason === undefined ? [null] : [].concat(want.patchReason);
    if (!patchReasons.includes(report.patchReason)) failures.push(`patch error ${report.patchReason}, expected ${patchReasons.join(' or ')}`);
    report.failures = failures;
    report.ms = Date.now() - started;
    return report;
  }
}
