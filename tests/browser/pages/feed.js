// The feed-following scenario (tests/feed/follow-scenario.mjs) in a page, against the feed server that serves this
// page (tests/feed/feed-server.ts: the feed at /feed/, its steps at /control/), with IndexedDbFeedStores: a page
// reloaded in the middle of the plan goes on from what its feeds stored. The query picks the build: none for
// dist/index.mjs (/lib/cuckoo-wasm.mjs), entry=reader for dist/reader.mjs (/lib/cuckoo-reader.mjs); realm= names the
// page in the reports. Publishes { ok, ...summary, violations } (or { ok: false, message }) on window.__feedResult.
import { recordViolations } from './job.js';

const violations = recordViolations();
const query = new URLSearchParams(location.search);
(async () => {
  const lib = await import(query.get('entry') === 'reader' ? '/lib/cuckoo-reader.mjs' : '/lib/cuckoo-wasm.mjs');
  const { followFeed } = await import('/feed-scenario/follow-scenario.mjs');
  return followFeed(lib, { control: `${location.origin}/control/`, makeStore: (name) => new lib.IndexedDbFeedStore(name), realm: query.get('realm') ?? 'page' });
})().then(
  (summary) => (window.__feedResult = { ok: true, ...summary, violations }),
  (e) => (window.__feedResult = { ok: false, message: String(e?.stack ?? e), violations }),
);
