// Service worker of the cuckoo-wasm example extension (Manifest V3).
// Loads the cuckoo filter that build.mjs packaged as blocklist.cuckoo, a URL blocklist, and
// when a tab starts a top-level navigation, looks the whole URL up the way Google Safe Browsing
// does (filter.matchUrl: its host and up to 4 parent domains, each with its exact path, with and
// without the query, and up to 4 parent folders). On a match the tab goes to warning.html, which
// says which entry matched: a bare host (`evil.example/`, the whole site and its subdomains),
// a folder (`shared.example/~phisher/`) or one page.
//
// Updates (when built with --update-url; update.json holds the settings): at start and on a
// chrome.alarms timer the worker fetches the update manifest
//   { "version": 2, "full": "blocklist-2.cuckoo", "patches": { "1": "1-to-2.ckpt" } }
// (URLs relative to the manifest's). When its version is newer than the filter's, the worker
// applies the patch from the filter's version with filter.applyPatch, or, when there is none or
// it fails (a missing file, a patch for another base, a corrupt one: FilterFormatError), loads
// the full filter instead. The new filter's bytes and version go to chrome.storage.local, so
// the next start loads them rather than the bundled filter. Lookups meanwhile answer from the
// current filter: a patch is applied in one synchronous call that changes nothing when it
// fails, and a full filter replaces the current one only once it has loaded.
//
// What it decided is readable at self.__cuckooExtension (see README.md):
//   { ready, items, version, source, error, errors: [string], decisions: [{ url, match, listed, time }],
//     checks, lastCheck: { time, version, error }, updates: [{ time, from, to, via, bytes, patchError, error }] }
// The package's read-only entry (cuckoo-wasm/reader, copied by build.mjs): the worker loads, checks and
// patches filters and never builds one, so it takes the smaller module that has no writers.
import { CuckooFilter, InvalidUrlError } from './lib/cuckoo-reader.mjs';

const FILTER_FILE = 'blocklist.cuckoo';
const CONFIG_FILE = 'update.json';
const ALARM = 'cuckoo-blocklist-update';
const MAX_DECISIONS = 100;
const MAX_UPDATES = 20;
// chrome.storage.local keys: the filter's version (a number) and its bytes (base64), and when the
// update manifest was last fetched (ms since the epoch).
const STORED_VERSION = 'filterVersion';
const STORED_BYTES = 'filterBytes';
const STORED_CHECK = 'lastCheck';

const state = {
  ready: false,    // true once a filter is loaded
  items: 0,        // fingerprints in the filter (the list's entries)
  version: null,   // the filter's version (update manifests number them)
  source: null,    // where the filter came from: 'bundled', 'stored', 'patch' or 'full'
  error: null,     // why no filter could be loaded, if none could
  errors: [],      // anything else that went wrong in this worker
  decisions: [],   // the last MAX_DECISIONS checks, oldest first
  checks: 0,       // update manifests fetched (or tried) by this worker
  lastCheck: null, // { time, version: the manifest's, or null; error }
  updates: [],     // the last MAX_UPDATES updates and failed updates, oldest first
};
self.__cuckooExtension = state;

self.addEventListener('error', (e) => state.errors.push(`error: ${e.message}`));
self.addEventListener('unhandledrejection', (e) => state.errors.push(`unhandled rejection: ${e.reason}`));
self.addEventListener('securitypolicyviolation', (e) =>
  state.errors.push(`CSP violation: ${e.effectiveDirective} blocked ${e.blockedURI}`));

/** The filter lookups use and its version; replaced only by a complete, loaded filter. */
let current = null;
/** The update settings from update.json: { updateUrl, version, periodMinutes }. */
let config = null;
/** The update under way, so that a start and an alarm never run two at once. */
let updating = null;

// Resolves once the first filter is loaded (or could not be: navigations then go ahead unchecked);
// updates start after that, and lookups never wait for them.
const filterReady = start();
filterReady.then(startUpdates).catch((e) => state.errors.push(`updates not started: ${e}`));

async function start() {
  try {
    config = await fetchJson(chrome.runtime.getURL(CONFIG_FILE));
  } catch (e) {
    state.errors.push(`cannot read ${CONFIG_FILE}: ${e}; no updates`);
    config = { updateUrl: null, version: 1, periodMinutes: 60 };
  }
  await loadFirst();
}

/** Sets the update alarm, and checks for an update now unless the last check was less than a period ago. */
async function startUpdates() {
  if (!current || !config.updateUrl) return;
  // A worker stopped when idle starts again at the next navigation: not every start checks.
  // The alarm is created once and then keeps its schedule.
  const periodMs = config.periodMinutes * 60000;
  const { [STORED_CHECK]: lastCheck = 0 } = await chrome.storage.local.get(STORED_CHECK);
  const alarm = await chrome.alarms.get(ALARM);
  if (!alarm || alarm.periodInMinutes !== config.periodMinutes) {
    await chrome.alarms.create(ALARM, { periodInMinutes: config.periodMinutes });
  }
  if (Date.now() - lastCheck >= periodMs) await update();
}

/** Loads the stored filter if it is newer than the bundled one (or the bundled one is missing), else the bundled one. */
async function loadFirst() {
  const stored = chrome.storage ? await loadStored() : null;
  if (stored && stored.version >= config.version) {
    use(stored.filter, stored.version, 'stored');
    return;
  }
  try {
    const response = await fetch(chrome.runtime.getURL(FILTER_FILE));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    use(await CuckooFilter.fromBytes(await response.arrayBuffer()), config.version, 'bundled');
    stored?.filter.dispose();
  } catch (e) {
    if (stored) use(stored.filter, stored.version, 'stored');
    else state.error = `cannot load ${FILTER_FILE}: ${e}`;
  }
}

/** The filter in chrome.storage.local and its version, or null (none, or not loadable: then noted in errors). */
async function loadStored() {
  const saved = await chrome.storage.local.get([STORED_VERSION, STORED_BYTES]);
  if (typeof saved[STORED_BYTES] !== 'string') return null;
  try {
    return { filter: await CuckooFilter.fromBytes(fromBase64(saved[STORED_BYTES])), version: saved[STORED_VERSION] };
  } catch (e) {
    state.errors.push(`stored filter version ${saved[STORED_VERSION]} not loaded: ${e}`);
    return null;
  }
}

/** Makes `filter` the one lookups use; the one it replaces is freed. */
function use(filter, version, source) {
  const old = current?.filter;
  current = { filter, version };
  if (old && old !== filter) old.dispose();
  Object.assign(state, { ready: true, items: filter.size, version, source });
}

/** Checks the update manifest and updates, unless an update is already under way. */
function update() {
  updating ??= checkForUpdate().finally(() => {
    updating = null;
  });
  return updating;
}

async function checkForUpdate() {
  const check = { time: Date.now(), version: null, error: null };
  state.checks += 1;
  state.lastCheck = check;
  let manifest;
  try {
    manifest = readManifest(await fetchJson(config.updateUrl));
    check.version = manifest.version;
    await chrome.storage.local.set({ [STORED_CHECK]: check.time });
  } catch (e) {
    check.error = `${e}`;
    return;
  }
  if (manifest.version <= current.version) return;
  const record = { time: Date.now(), from: current.version, to: manifest.version, via: null, bytes: 0, patchError: null, error: null };
  state.updates.push(record);
  if (state.updates.length > MAX_UPDATES) state.updates.shift();

  const patchUrl = manifest.patches.get(String(current.version));
  if (patchUrl) {
    try {
      const patch = await fetchBytes(patchUrl);
      // In place and atomic: on any error it throws and the filter is exactly as it was.
      current.filter.applyPatch(patch);
      use(current.filter, manifest.version, 'patch');
      Object.assign(record, { via: 'patch', bytes: patch.byteLength });
    } catch (e) {
      record.patchError = errorText(e);
    }
  } else {
    record.patchError = `no patch from version ${current.version}`;
  }
  if (record.via === null) {
    try {
      const bytes = await fetchBytes(manifest.full);
      use(await CuckooFilter.fromBytes(bytes), manifest.version, 'full');
      Object.assign(record, { via: 'full', bytes: bytes.byteLength });
    } catch (e) {
      record.error = `cannot load the full filter ${manifest.full}: ${errorText(e)}`;
      return;
    }
  }
  try {
    const bytes = current.filter.toBytes();
    await chrome.storage.local.set({ [STORED_VERSION]: current.version, [STORED_BYTES]: toBase64(bytes) });
  } catch (e) {
    record.error = `updated, but not stored: ${errorText(e)}`;
  }
}

/** The manifest with its URLs resolved against the manifest's own; throws if it is not one. */
function readManifest(m) {
  const isUrl = (u) => typeof u === 'string' && u !== '';
  if (typeof m !== 'object' || m === null) throw new Error('the update manifest is not a JSON object');
  if (!Number.isSafeInteger(m.version) || m.version < 0) throw new Error(`version ${m.version} is not an integer >= 0`);
  if (!isUrl(m.full)) throw new Error('no "full" URL');
  const patches = new Map(); // from version (a string, as JSON keys are) → URL
  for (const [from, url] of Object.entries(m.patches ?? {})) {
    if (isUrl(url)) patches.set(from, new URL(url, config.updateUrl).href);
  }
  return { version: m.version, full: new URL(m.full, config.updateUrl).href, patches };
}

async function fetchJson(url) {
  const response = await fetch(url, { cache: 'no-store' });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

async function fetchBytes(url) {
  const response = await fetch(url, { cache: 'no-store' });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** An error as `Name (reason): message`, the reason being FilterFormatError's. */
function errorText(e) {
  return e instanceof Error ? `${e.name}${e.reason ? ` (${e.reason})` : ''}: ${e.message}` : String(e);
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

// Registered synchronously at the top level, so that an alarm or a navigation also wakes a stopped worker.
// (chrome.alarms exists only when build.mjs was given --update-url, which adds the permission.)
chrome.alarms?.onAlarm.addListener(async (alarm) => {
  if (alarm.name !== ALARM) return;
  await filterReady;
  if (current && config.updateUrl) await update();
});

chrome.webNavigation.onBeforeNavigate.addListener(async ({ tabId, frameId, url }) => {
  // frameId 0 is the top-level frame of the page a tab shows (not a subframe, not a prerender).
  if (frameId !== 0 || tabId < 0) return;
  await filterReady;
  if (!current) return;
  const match = matchOf(current.filter, url);
  record({ url, match, listed: match !== null, time: Date.now(), version: current.version });
  if (match === null) return;
  const query = new URLSearchParams({ url, match });
  const warning = chrome.runtime.getURL(`warning.html?${query}`);
  try {
    await chrome.tabs.update(tabId, { url: warning });
  } catch (e) {
    state.errors.push(`cannot show the warning in tab ${tabId}: ${e}`);
  }
}, { url: [{ schemes: ['http', 'https'] }] });
