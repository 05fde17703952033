/**
 * cuckoo-wasm browser example: the app. On page load it fetches the URL
 * blocklist filter written by build.mjs, loads it with CuckooFilter.fromBytes,
 * shows its statistics, marks the blocked links of the sample section
 * (hasAllUrls, one crossing into WebAssembly for all of them) and answers the
 * URL field on every `input` event with the list entry that matched (matchUrl).
 * The field starts with the page's `?url=` parameter, if any, and a click on a
 * sample link puts that link in the field instead of following it.
 *
 * The page only reads the filter, so it imports cuckoo-wasm/reader, the
 * read-only entry: the same answers from a module without the writers
 * (creation, insertion, diff, Redis dumps), which is what keeps the bundle small.
 *
 * For automated tests, which only read it, the outcome is published as
 *   window.__cuckooExample = { ready, filterUrl, stats, links, marked, lookup, error }
 *     links:  [{ url, listed, match }] for the sample links, in page order
 *     marked: the URLs of the links marked blocked
 *     lookup: the field's last answer, { input, verdict, match, reason, message }, where
 *             verdict is 'empty' | 'listed' | 'not-listed' | 'invalid', match the matched
 *             expression (or null), and reason and message the InvalidUrlError's (or null)
 *   document.body.dataset.state = 'loading' | 'ready' | 'error'
 * (and document.body.dataset.error = the message on failure).
 */
import { CuckooFilter, InvalidUrlError } from 'cuckoo-wasm/reader';

/** Where build.mjs writes the filter, relative to this page. */
const FILTER_PATH = 'filters/url-blocklist.cuckoo';

const state = { ready: false, filterUrl: null, stats: null, links: [], marked: [], lookup: null, error: null };
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
function lookUp(filter, input) {
  if (input.trim() === '') return { input, verdict: 'empty', match: null, reason: null, message: null };
  try {
    const match = filter.matchUrl(input);
    return { input, verdict: match === null ? 'not-listed' : 'listed', match, reason: null, message: null };
  } catch (err) {
    if (!(err instanceof InvalidUrlError)) throw err;
    return { input, verdict: 'invalid', match: null, reason: err.reason, message: err.message };
  }
}

function connectLookup(filter) {
  const input = document.getElementById('url');
  const verdict = document.getElementById('verdict');
  const update = () => {
    const answer = lookUp(filter, input.value);
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

function markLinks(filter, field) {
  const anchors = [...document.querySelectorAll('#links a')];
  // a.href is the URL as the browser resolved it, as a click would open it.
  const urls = anchors.map((a) => a.href);
  const listed = filter.hasAllUrls(urls);
  state.links = urls.map((url, i) => ({ url, listed: listed[i], match: listed[i] ? filter.matchUrl(url) : null }));
  state.marked = urls.filter((_, i) => listed[i]);
  anchors.forEach((a, i) => {
    const { match } = state.links[i];
    a.dataset.listed = String(listed[i]);
    a.classList.toggle('listed', listed[i]);
    if (match !== null) a.title = `matches the list entry ${match}`;
    const badge = document.createElement('span');
    badge.className = listed[i] ? 'badge badge-listed' : 'badge badge-clean';
    badge.textContent = listed[i] ? 'blocked' : 'not listed';
    a.parentElement.append(badge);
  });
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

async function main() {
  const status = document.getElementById('status');
  try {
    const url = new URL(FILTER_PATH, document.baseURI);
    state.filterUrl = url.href;
    const response = await fetch(url);
    if (!response.ok) throw new Error(`fetching ${FILTER_PATH} failed: HTTP ${response.status}`);
    const filter = await CuckooFilter.fromBytes(await response.arrayBuffer());

    state.stats = {
      items: filter.size,
      bytes: filter.byteLength,
      bitsPerItem: filter.bitsPerItem,
      expectedFalsePositiveRate: filter.expectedFalsePositiveRate,
      urlFalsePositiveRate: filter.urlFalsePositiveRate,
      loadFactor: filter.loadFactor,
      fingerprintBits: filter.fingerprintBits,
      bucketSize: filter.bucketSize,
    };
    showStats(state.stats);
    const field = connectLookup(filter);
    markLinks(filter, field);
    status.textContent =
      `Loaded ${FILTER_PATH}: ${filter.fingerprintBits}-bit fingerprints, ${filter.bucketSize} slots per bucket.`;
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
