/**
 * cuckoo-wasm browser example: the app. On page load it opens the feed that build.mjs published
 * (feed/manifest.json, docs/FEED.md) with FilterFeed, keeping the filter in IndexedDB (IndexedDbFeedStore, so a
 * reload starts from the version it held), shows the filter's statistics, marks the blocked links of the sample
 * section (hasAllUrls, one crossing into WebAssembly for all of them) and answers the URL field on every `input`
 * event with the list entry that matched (matchUrl). Then it follows the feed (feed.start(): a poll every
 * pollSeconds of the manifest), and each new version, by patch or in full, updates the statistics, the marks and
 * the field's answer. The field starts with the page's `?url=` parameter, if any, and a click on a sample link puts
 * that link in the field instead of following it.
 *
 * The page only reads filters, so it imports cuckoo-wasm/reader, the read-only entry: the same answers from a
 * module without the writers (creation, insertion, diff, Redis dumps), which is what keeps the bundle small.
 *
 * For automated tests, which only read it, the outcome is published as
 *   window.__cuckooExample = { ready, manifestUrl, feed, stats, links, marked, lookup, error }
 *     feed:   { name, version, updates: [{ from, to, via, bytes }], lastError }
 *     links:  [{ url, listed, match }] for the sample links, in page order
 *     marked: the URLs of the links marked blocked
 *     lookup: the field's last answer, { input, verdict, match, reason, message }, where
 *             verdict is 'empty' | 'listed' | 'not-listed' | 'invalid', match the matched
 *             expression (or null), and reason and message the InvalidUrlError's (or null)
 *   document.body.dataset.state = 'loading' | 'ready' | 'error'
 * (and document.body.dataset.error = the message on failure).
 */
import { FilterFeed, IndexedDbFeedStore, InvalidUrlError } from 'cuckoo-wasm/reader';

/** Where build.mjs publishes the feed, relative to this page. */
const FEED_PATH = 'feed/manifest.json';

const state = { ready: false, manifestUrl: null, feed: null, stats: null, links: [], marked: [], lookup: null, error: null };
window.__cuckooExample = state;

const integer = new Intl.NumberFormat('en');
const decimal = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
const rate = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 3 });
const share = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 1 });

function showStats(stats) {
  // [value, detail under it]
  const shown = {
    items: [integer.format(stats.items), 'hosts, pages, folders'],
    bytes: [integer.format(stats.bytes), `${decimal.format(stats.bytes / 1024)} KiB`],
    bitsPerItem: [decimal.format(stats.bitsPerItem), 'serialized'],
    urlFalsePositiveRate: [
      rate.format(stats.urlFalsePositiveRate),
      `at most, 1 in ${integer.format(Math.floor(1 / stats.urlFalsePositiveRate))}`,
    ],
    loadFactor: [share.format(stats.loadFactor), 'of slots in use'],
  };
  for (const [name, [value, detail]] of Object.entries(shown)) {
    const dd = document.querySelector(`[data-stat="${name}"]`);
    const small = document.createElement('small');
    small.textContent = detail;
    dd.replaceChildren(value, small);
  }
}

/** `<code>text</code>`, built as nodes: nothing typed by a user is parsed as HTML. */
function code(text) {
  const element = document.createElement('code');
  element.textContent = text;
  return element;
}

/** The answer for what is in the field: a lookup of the whole URL, path and query included. */
function lookUp(feed, input) {
  if (input.trim() === '') return { input, verdict: 'empty', match: null, reason: null, message: null };
  try {
    const match = feed.matchUrl(input);
    return { input, verdict: match === null ? 'not-listed' : 'listed', match, reason: null, message: null };
  } catch (err) {
    if (!(err instanceof InvalidUrlError)) throw err;
    return { input, verdict: 'invalid', match: null, reason: err.reason, message: err.message };
  }
}

function connectLookup(feed) {
  const input = document.getElementById('url');
  const verdict = document.getElementById('verdict');
  const update = () => {
    const answer = lookUp(feed, input.value);
    state.lookup = answer;
    verdict.dataset.verdict = answer.verdict;
    verdict.dataset.match = answer.match ?? '';
    verdict.dataset.reason = answer.reason ?? '';
    switch (answer.verdict) {
      case 'empty':
        verdict.replaceChildren('Type a URL to check it.');
        break;
      case 'listed':
        verdict.replaceChildren('Blocked: it matches the list entry ', code(answer.match), '.');
        break;
      case 'not-listed':
        verdict.replaceChildren('Not listed: none of its host and path expressions is on the list.');
        break;
      case 'invalid':
        verdict.replaceChildren(answer.message); // e.g. "/login" is not a URL: the URL has no host: give a host …
        break;
    }
  };
  input.addEventListener('input', update);
  // A link to this page can carry the URL to check: ?url=https://evil.example/login/
  const fromQuery = new URLSearchParams(location.search).get('url');
  if (fromQuery !== null) input.value = fromQuery;
  input.disabled = false;
  update();
  return { input, update };
}

/** Marks the sample links by the feed's current filter (again after each update). */
function markLinks(feed) {
  const anchors = [...document.querySelectorAll('#links a')];
  // a.href is the URL as the browser resolved it, as a click would open it.
  const urls = anchors.map((a) => a.href);
  const listed = feed.filter.hasAllUrls(urls);
  state.links = urls.map((url, i) => ({ url, listed: listed[i], match: listed[i] ? feed.matchUrl(url) : null }));
  state.marked = urls.filter((_, i) => listed[i]);
  anchors.forEach((a, i) => {
    const { match } = state.links[i];
    a.dataset.listed = String(listed[i]);
    a.classList.toggle('listed', listed[i]);
    a.title = match === null ? '' : `matches the list entry ${match}`;
    const badge = a.parentElement.querySelector('.badge') ?? document.createElement('span');
    badge.className = listed[i] ? 'badge badge-listed' : 'badge badge-clean';
    badge.textContent = listed[i] ? 'blocked' : 'not listed';
    a.parentElement.append(badge);
  });
}

function followClicks(field) {
  // Some unlisted links are on phishing sites too (another page of a listed page's site):
  // no sample link is followed; a click checks it in the field above instead.
  document.getElementById('links').addEventListener('click', (event) => {
    const a = event.target.closest('a');
    if (!a) return;
    event.preventDefault();
    field.input.value = a.href;
    field.update();
    field.input.scrollIntoView({ block: 'center' });
  });
}

/** The statistics of the feed's current filter. */
function statsOf(filter) {
  return {
    items: filter.size,
    bytes: filter.byteLength,
    bitsPerItem: filter.bitsPerItem,
    expectedFalsePositiveRate: filter.expectedFalsePositiveRate,
    urlFalsePositiveRate: filter.urlFalsePositiveRate,
    loadFactor: filter.loadFactor,
    fingerprintBits: filter.fingerprintBits,
    bucketSize: filter.bucketSize,
  };
}

function showFeed(feed, status) {
  state.stats = statsOf(feed.filter);
  showStats(state.stats);
  state.feed.version = feed.version;
  state.feed.name = feed.name;
  const last = state.feed.updates.at(-1);
  const how = last === undefined ? 'from this browser\'s IndexedDB' : last.via === 'patch' ? `by a patch from version ${last.from}` : 'in full';
  status.textContent =
    `Following ${FEED_PATH}: "${feed.name}" version ${feed.version}, reached ${how} (${last ? `${last.bytes} bytes downloaded` : 'nothing downloaded'}); ` +
    `${feed.filter.fingerprintBits}-bit fingerprints, ${feed.filter.bucketSize} slots per bucket.`;
}

async function main() {
  const status = document.getElementById('status');
  try {
    const manifestUrl = new URL(FEED_PATH, document.baseURI);
    state.manifestUrl = manifestUrl.href;
    state.feed = { name: null, version: null, updates: [], lastError: null };
    let field = null;
    const feed = await FilterFeed.open({
      manifestUrl,
      store: new IndexedDbFeedStore('cuckoo-wasm-example'),
      onUpdate: ({ from, to, via, bytes }) => {
        state.feed.updates.push({ from, to, via, bytes });
        // Open's own update comes before the page is set up; later ones refresh what the page shows.
        if (field === null) return;
        showFeed(feed, status);
        markLinks(feed);
        field.update();
      },
      onError: (e) => {
        state.feed.lastError = `${e.name}${e.reason ? ` (${e.reason})` : ''}: ${e.message}`;
      },
    });
    showFeed(feed, status);
    field = connectLookup(feed);
    markLinks(feed);
    followClicks(field);
    feed.start();
    state.ready = true;
    document.body.dataset.state = 'ready';
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    state.error = message;
    status.textContent = `Could not load the filter: ${message}`;
    status.classList.add('status-error');
    document.body.dataset.error = message;
    document.body.dataset.state = 'error';
  }
}

main();
