// Service worker of the cuckoo-wasm example extension (Manifest V3).
// Loads the cuckoo filter that build.mjs packaged as blocklist.cuckoo, and when a tab
// starts a top-level navigation to a listed hostname, sends the tab to warning.html
// instead. A hostname is checked exactly as it is, like the list's entries (one
// hostname per line, no wildcards): a listed example.com does not cover www.example.com.
//
// What it decided is readable at self.__cuckooExtension (see README.md):
//   { ready, items, error, errors: [string], decisions: [{ url, hostname, listed, time }] }
import { CuckooFilter } from './lib/cuckoo-wasm.mjs';

const FILTER_FILE = 'blocklist.cuckoo';
const MAX_DECISIONS = 100;

const state = {
  ready: false,    // true once the filter is loaded
  items: 0,        // fingerprints in the filter (the list's hostnames)
  error: null,     // why the filter could not be loaded, if it could not
  errors: [],      // anything else that went wrong in this worker
  decisions: [],   // the last MAX_DECISIONS checks, oldest first
};
self.__cuckooExtension = state;

self.addEventListener('error', (e) => state.errors.push(`error: ${e.message}`));
self.addEventListener('unhandledrejection', (e) => state.errors.push(`unhandled rejection: ${e.reason}`));
self.addEventListener('securitypolicyviolation', (e) =>
  state.errors.push(`CSP violation: ${e.effectiveDirective} blocked ${e.blockedURI}`));

// Resolves to the filter, or to null when it cannot be loaded (navigations then go ahead unchecked).
const filterReady = loadFilter();

async function loadFilter() {
  try {
    const response = await fetch(chrome.runtime.getURL(FILTER_FILE));
    if (!response.ok) throw new Error(`${FILTER_FILE}: HTTP ${response.status}`);
    const filter = await CuckooFilter.fromBytes(await response.arrayBuffer());
    state.items = filter.size;
    state.ready = true;
    return filter;
  } catch (e) {
    state.error = `cannot load ${FILTER_FILE}: ${e}`;
    return null;
  }
}

// The key a URL is looked up by: its hostname as the URL parser gives it (lowercase,
// internationalized names in punycode), without a trailing dot.
function hostnameOf(url) {
  return new URL(url).hostname.replace(/\.$/, '');
}

function record(decision) {
  state.decisions.push(decision);
  if (state.decisions.length > MAX_DECISIONS) state.decisions.shift();
}

// Registered synchronously at the top level, so that a navigation also wakes a stopped worker.
chrome.webNavigation.onBeforeNavigate.addListener(async ({ tabId, frameId, url }) => {
  // frameId 0 is the top-level frame of the page a tab shows (not a subframe, not a prerender).
  if (frameId !== 0 || tabId < 0) return;
  const filter = await filterReady;
  if (!filter) return;
  const hostname = hostnameOf(url);
  const listed = filter.has(hostname);
  record({ url, hostname, listed, time: Date.now() });
  if (!listed) return;
  const warning = chrome.runtime.getURL(`warning.html?url=${encodeURIComponent(url)}`);
  try {
    await chrome.tabs.update(tabId, { url: warning });
  } catch (e) {
    state.errors.push(`cannot show the warning in tab ${tabId}: ${e}`);
  }
}, { url: [{ schemes: ['http', 'https'] }] });
