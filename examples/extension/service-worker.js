// Service worker of the cuckoo-wasm example extension (Manifest V3).
// Loads the cuckoo filter that build.mjs packaged as blocklist.cuckoo, a URL blocklist, and
// when a tab starts a top-level navigation, looks the whole URL up the way Google Safe Browsing
// does (filter.matchUrl: its host and up to 4 parent domains, each with its exact path, with and
// without the query, and up to 4 parent folders). On a match the tab goes to warning.html, which
// says which entry matched: a bare host (`evil.example/`, the whole site and its subdomains),
// a folder (`shared.example/~phisher/`) or one page.
//
// What it decided is readable at self.__cuckooExtension (see README.md):
//   { ready, items, error, errors: [string], decisions: [{ url, match, listed, time }] }
import { CuckooFilter, InvalidUrlError } from './lib/cuckoo-wasm.mjs';

const FILTER_FILE = 'blocklist.cuckoo';
const MAX_DECISIONS = 100;

const state = {
  ready: false,    // true once the filter is loaded
  items: 0,        // fingerprints in the filter (the list's entries)
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

// The list entry (an expression such as `evil.example/login/`) that the URL matches, or null.
// An http(s) URL the browser navigates to always has a host, so InvalidUrlError is not expected;
// if it comes, the navigation goes ahead and the error is kept.
function matchOf(filter, url) {
  try {
    return filter.matchUrl(url);
  } catch (e) {
    if (!(e instanceof InvalidUrlError)) throw e;
    state.errors.push(`not checked: ${e.message}`);
    return null;
  }
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
  const match = matchOf(filter, url);
  record({ url, match, listed: match !== null, time: Date.now() });
  if (match === null) return;
  const query = new URLSearchParams({ url, match });
  const warning = chrome.runtime.getURL(`warning.html?${query}`);
  try {
    await chrome.tabs.update(tabId, { url: warning });
  } catch (e) {
    state.errors.push(`cannot show the warning in tab ${tabId}: ${e}`);
  }
}, { url: [{ schemes: ['http', 'https'] }] });
