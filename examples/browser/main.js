/**
 * cuckoo-wasm browser example: the app. On page load it fetches the filter
 * written by build.mjs, loads it with CuckooFilter.fromBytes, shows its
 * statistics, answers the domain field on every `input` event and marks the
 * listed links of the sample section (clicks on them are not followed).
 *
 * For automated tests, which only read it, the outcome is published as
 *   window.__cuckooExample = { ready, filterUrl, stats, links, marked, error }
 *   document.body.dataset.state = 'loading' | 'ready' | 'error'
 * (and document.body.dataset.error = the message on failure).
 */
import { CuckooFilter } from 'cuckoo-wasm';

/** Where build.mjs writes the filter, relative to this page. */
const FILTER_PATH = 'filters/blocklist-sample.cuckoo';

const state = { ready: false, filterUrl: null, stats: null, links: [], marked: [], error: null };
window.__cuckooExample = state;

const integer = new Intl.NumberFormat('en');
const decimal = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
const rate = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 3 });
const share = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 1 });

/**
 * The hostname the blocklist would store for what a person typed: lowercase,
 * punycode, no port, path or trailing dot. A URL is accepted as well.
 */
function hostnameOf(text) {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  try {
    return new URL(trimmed.includes('://') ? trimmed : `http://${trimmed}`).hostname.replace(/\.$/, '');
  } catch {
    return trimmed.toLowerCase();
  }
}

function showStats(stats) {
  // [value, detail under it]
  const shown = {
    items: [integer.format(stats.items), 'domains'],
    bytes: [integer.format(stats.bytes), `${decimal.format(stats.bytes / 1024)} KiB`],
    bitsPerItem: [decimal.format(stats.bitsPerItem), 'serialized'],
    expectedFalsePositiveRate: [
      rate.format(stats.expectedFalsePositiveRate),
      `1 in ${integer.format(Math.round(1 / stats.expectedFalsePositiveRate))}`,
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

function connectLookup(filter) {
  const input = document.getElementById('domain');
  const verdict = document.getElementById('verdict');
  const update = () => {
    const host = hostnameOf(input.value);
    if (host === '') {
      verdict.dataset.verdict = 'empty';
      verdict.textContent = 'Type a domain to check it.';
    } else if (filter.has(host)) {
      verdict.dataset.verdict = 'listed';
      verdict.textContent = `Listed: ${host} is on the blocklist.`;
    } else {
      verdict.dataset.verdict = 'not-listed';
      verdict.textContent = `Not listed: ${host} is not on the blocklist.`;
    }
  };
  input.addEventListener('input', update);
  input.disabled = false;
  update();
}

function markLinks(filter) {
  const anchors = [...document.querySelectorAll('#links a')];
  const hosts = anchors.map((a) => hostnameOf(a.href));
  const listed = filter.hasAll(hosts);
  anchors.forEach((a, i) => {
    a.dataset.listed = String(listed[i]);
    a.classList.toggle('listed', listed[i]);
    const badge = document.createElement('span');
    badge.className = listed[i] ? 'badge badge-listed' : 'badge badge-clean';
    badge.textContent = listed[i] ? 'listed' : 'not listed';
    a.parentElement.append(badge);
  });
  document.getElementById('links').addEventListener('click', (event) => {
    if (event.target.closest('a.listed')) event.preventDefault();
  });
  state.links = hosts.map((hostname, i) => ({ hostname, listed: listed[i] }));
  state.marked = hosts.filter((_, i) => listed[i]);
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
      loadFactor: filter.loadFactor,
      fingerprintBits: filter.fingerprintBits,
      bucketSize: filter.bucketSize,
    };
    showStats(state.stats);
    connectLookup(filter);
    markLinks(filter);
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
