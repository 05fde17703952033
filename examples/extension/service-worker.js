// Service worker of the cuckoo-wasm example extension (Manifest V3).
// Checks the whole URL of each top-level navigation against a URL blocklist the way Google Safe Browsing does
// (matchUrl: its host and up to 4 parent domains, each with its exact path, with and without the query, and up to 4
// parent folders). On a match the tab goes to warning.html, which says which entry matched: a bare host
// (`evil.example/`, the whole site and its subdomains), a folder (`shared.example/~phisher/`) or one page.
//
// The list comes from blocklist.cuckoo, which build.mjs packaged. Built with --update-url (feed.json holds the
// settings), the extension follows a feed (docs/FEED.md) with FilterFeed: blocklist.cuckoo is then a version of that
// feed, the one current when the extension was built (feed.json's `bundled` names it), and the feed's store is
// chrome.storage.local (ChromeStorageFeedStore below). The feed starts from whichever is newer, the stored version or
// the bundled one, so the bundled filter answers until the feed is first reached, and a patch from the bundled
// version is the first update. FilterFeed.open updates once; then a chrome.alarms alarm runs feed.update() (a
// service worker is stopped when idle, and its timers with it; an alarm wakes it). An update that fails changes
// nothing: lookups answer from the filter held, which a new one replaces only once it is downloaded, checked and
// stored.
//
// What it decided is readable at self.__cuckooExtension (see README.md):
//   { ready, items, name, version, source, error, errors: [string], decisions: [{ url, match, listed, time, version }],
//     checks, lastCheck: { time, version, error }, updates: [{ time, from, to, via, bytes, patchError }] }
// The package's read-only entry (cuckoo-wasm/reader, copied by build.mjs): the worker loads, checks and patches
// filters and never builds one, so it takes the smaller module that has no writers.
import { CuckooFilter, FilterFeed, InvalidUrlError } from './lib/cuckoo-reader.mjs';

const FILTER_FILE = 'blocklist.cuckoo';
const CONFIG_FILE = 'feed.json';
const ALARM = 'cuckoo-blocklist-update';
const STORAGE_KEY = 'feed';
const MAX_DECISIONS = 100;
const MAX_UPDATES = 20;

const state = {
  ready: false,    // true once a filter is loaded
  items: 0,        // entries in the filter
  name: null,      // the feed's name (the manifest's), null without a feed
  version: null,   // the filter's version in the feed, null without a feed
  source: null,    // where the filter came from: 'bundled', 'stored', 'patch' or 'full'
  error: null,     // why no filter could be loaded, if none could
  errors: [],      // anything else that went wrong in this worker
  decisions: [],   // the last MAX_DECISIONS checks, oldest first
  checks: 0,       // manifests fetched (or tried) by this worker
  lastCheck: null, // { time, version: the version held after it, or null; error: why it failed, or null }
  updates: [],     // the last MAX_UPDATES updates that changed the filter, oldest first
};
self.__cuckooExtension = state;

self.addEventListener('error', (e) => state.errors.push(`error: ${e.message}`));
self.addEventListener('unhandledrejection', (e) => state.errors.push(`unhandled rejection: ${e.reason}`));
self.addEventListener('securitypolicyviolation', (e) =>
  state.errors.push(`CSP violation: ${e.effectiveDirective} blocked ${e.blockedURI}`));

/**
 * A FeedStore (cuckoo-wasm's interface: load and save a { name, version, family, sha256, bytes }) over
 * chrome.storage.local: the extension's own storage, kept until the extension is removed. The state is one key,
 * so a save replaces it whole; its bytes are base64, since chrome.storage keeps JSON.
 */
class ChromeStorageFeedStore {
  constructor(key) {
    this.key = key;
  }

  async load() {
    const { [this.key]: saved } = await chrome.storage.local.get(this.key);
    return saved === undefined ? undefined : { ...saved, bytes: fromBase64(saved.bytes) };
  }

  async save({ name, version, family, sha256, bytes }) {
    await chrome.storage.local.set({ [this.key]: { name, version, family, sha256, bytes: toBase64(bytes) } });
  }
}

/**
 * The store the feed opens with: it loads the stored state, or the bundled one when that is of another feed or
 * newer (a new release of the extension) or nothing is stored, and saves to `stored`. `state.source` says which.
 */
class BundledFirstStore {
  constructor(stored, bundled) {
    this.stored = stored;
    this.bundled = bundled; // { name, version, family, sha256 } of blocklist.cuckoo
  }

  async load() {
    const saved = await this.stored.load().catch((e) => {
      state.errors.push(`the stored filter cannot be read: ${errorText(e)}`);
      return undefined;
    });
    const b = this.bundled;
    if (saved !== undefined && saved.name === b.name && saved.version >= b.version) {
      state.source = 'stored';
      return saved;
    }
    state.source = 'bundled';
    return { ...b, bytes: await bundledBytes() };
  }

  save(s) {
    return this.stored.save(s);
  }
}

/** What lookups ask: the feed, or the bundled filter when the extension was built without a feed. */
let lookup = null;
let config = null;
let feed = null;

// Resolves once the first filter is loaded (or could not be: navigations then go ahead unchecked).
const ready = start().catch((e) => {
  state.error = errorText(e);
});

async function start() {
  config = await fetchJson(chrome.runtime.getURL(CONFIG_FILE));
  if (!config.manifestUrl) {
    lookup = await CuckooFilter.fromBytes(await bundledBytes());
    Object.assign(state, { ready: true, items: lookup.size, source: 'bundled' });
    return;
  }
  feed = await FilterFeed.open({
    manifestUrl: config.manifestUrl,
    publicKey: config.publicKey ?? undefined,
    store: new BundledFirstStore(new ChromeStorageFeedStore(STORAGE_KEY), config.bundled),
    fetch: countedFetch,
    onUpdate: recordUpdate,
    onError: (e) => checked(e),
  });
  lookup = feed;
  checked(feed.lastError);
  Object.assign(state, { ready: true, items: feed.filter.size, name: feed.name, version: feed.version });
  // The alarm keeps its schedule across the worker's restarts: created once, again only when its period changed.
  const alarm = await chrome.alarms.get(ALARM);
  if (alarm?.periodInMinutes !== config.periodMinutes) await chrome.alarms.create(ALARM, { periodInMinutes: config.periodMinutes });
}

async function bundledBytes() {
  const response = await fetch(chrome.runtime.getURL(FILTER_FILE));
  if (!response.ok) throw new Error(`cannot load ${FILTER_FILE}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** fetch, counting the manifest's requests as checks. */
function countedFetch(url, init) {
  if (url === new URL(config.manifestUrl).href) {
    state.checks += 1;
    state.lastCheck = { time: Date.now(), version: null, error: null };
  }
  return fetch(url, { ...init, cache: 'no-cache' });
}

/** Notes how the last check ended: `error`, or the version held after it. */
function checked(error) {
  if (state.lastCheck === null) return;
  if (error) state.lastCheck.error = errorText(error);
  else state.lastCheck.version = feed?.version ?? null;
}

function recordUpdate({ from, to, via, bytes, patchError }) {
  state.updates.push({ time: Date.now(), from, to, via, bytes, patchError: patchError ? errorText(patchError) : null });
  if (state.updates.length > MAX_UPDATES) state.updates.shift();
  // Called once feed.filter is the new one.
  Object.assign(state, { items: feed?.filter.size ?? state.items, version: to, source: via });
}

/** An error as `Name (reason): message`, the reason being FeedError's or FilterFormatError's. */
function errorText(e) {
  return e instanceof Error ? `${e.name}${e.reason ? ` (${e.reason})` : ''}: ${e.message}` : String(e);
}

async function fetchJson(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

function toBase64(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

function fromBase64(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; ++i) bytes[i] = text.charCodeAt(i);
  return bytes;
}

// The list entry (an expression such as `evil.example/login/`) that the URL matches, or null.
// An http(s) URL the browser navigates to always has a host, so InvalidUrlError is not expected;
// if it comes, the navigation goes ahead and the error is kept.
function matchOf(url) {
  try {
    return lookup.matchUrl(url);
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

// Registered synchronously at the top level, so that an alarm or a navigation also wakes a stopped worker.
// (chrome.alarms exists only when build.mjs was given --update-url, which adds the permission.)
chrome.alarms?.onAlarm.addListener(async (alarm) => {
  if (alarm.name !== ALARM) return;
  await ready;
  if (feed === null) return;
  // update() returns the update under way, if one is: two never run at once.
  await feed.update().then(() => checked(null), (e) => checked(e));
});

chrome.webNavigation.onBeforeNavigate.addListener(async ({ tabId, frameId, url }) => {
  // frameId 0 is the top-level frame of the page a tab shows (not a subframe, not a prerender).
  if (frameId !== 0 || tabId < 0) return;
  await ready;
  if (lookup === null) return;
  const match = matchOf(url);
  record({ url, match, listed: match !== null, time: Date.now(), version: state.version });
  if (match === null) return;
  const query = new URLSearchParams({ url, match });
  const warning = chrome.runtime.getURL(`warning.html?${query}`);
  try {
    await chrome.tabs.update(tabId, { url: warning });
  } catch (e) {
    state.errors.push(`cannot show the warning in tab ${tabId}: ${e}`);
  }
}, { url: [{ schemes: ['http', 'https'] }] });
