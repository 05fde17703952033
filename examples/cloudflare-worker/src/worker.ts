// A Cloudflare Worker that checks URLs against a URL blocklist, the way Google Safe Browsing does
// (filter.matchUrl: the URL's host and up to 4 parent domains, each with its exact path, with and without
// the query, and up to 4 parent folders):
//
//   GET /check?url=https://www.evil.example/login  ->  { "url": …, "match": "evil.example/", "version": 2 }
//   GET /check?url=https://example.org/            ->  { "url": …, "match": null, "version": 2 }
//   GET /check?url=nonsense                        ->  400 { "error": "InvalidUrlError", "reason": "no-host", … }
//   GET /status                                    ->  { version, items, source, lastCheck, updates }
//
// The filter is the static asset blocklist.cuckoo (build.mjs makes it with `cuckoo-wasm build --urls`),
// read through the ASSETS binding and loaded once per isolate with CuckooFilter.fromBytes. Wrangler bundles
// the package's "workerd" entry, which imports its .wasm as a module: nothing to set up here.
//
// Updates (when UPDATE_URL is set): the protocol of the extension example (examples/extension). At most
// every UPDATE_SECONDS, on a request (after answering it, with ctx.waitUntil) and on the cron trigger, the
// isolate fetches the update manifest
//   { "version": 3, "full": "blocklist-3.cuckoo", "patches": { "2": "2-to-3.ckpt" } }
// (URLs relative to the manifest's). When its version is newer than the filter's, it applies the patch from
// the filter's version with filter.applyPatch (in place; on any error it throws and changes nothing), or, when
// there is none or it fails, loads the full filter instead. Checks meanwhile answer from the current filter.
// Each isolate follows the list on its own; a new isolate starts from the asset and catches up at its first
// request.
import { CuckooFilter, InvalidUrlError } from 'cuckoo-wasm';

/** The bindings of wrangler.toml. */
interface Env {
  ASSETS: { fetch(request: Request | string): Promise<Response> };
  FILTER_VERSION?: string;
  UPDATE_URL?: string;
  UPDATE_SECONDS?: string;
}

/** What the Workers runtime passes to fetch and scheduled (from @cloudflare/workers-types, the part used). */
interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

interface Manifest {
  version: number;
  full: string;
  patches: Map<string, string>;
}

interface Update {
  time: number;
  from: number;
  to: number;
  via: 'patch' | 'full' | null;
  bytes: number;
  patchError: string | null;
  error: string | null;
}

const FILTER_ASSET = 'https://assets.local/blocklist.cuckoo';
const MAX_UPDATES = 20;

/** A loaded filter, its version and where it came from. */
interface Loaded {
  filter: CuckooFilter;
  version: number;
  source: 'asset' | 'patch' | 'full';
}

/** The filter checks use; replaced only by a complete, loaded filter. */
let current: Loaded | null = null;
let loading: Promise<Loaded> | null = null;
let updating: Promise<void> | null = null;
let lastCheck: { time: number; version: number | null; error: string | null } | null = null;
const updates: Update[] = [];

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== 'GET') return Response.json({ error: 'only GET' }, { status: 405 });
    if (url.pathname !== '/check' && url.pathname !== '/status') return Response.json({ error: 'not found' }, { status: 404 });
    let state: Loaded;
    try {
      state = await filterFor(env);
    } catch (e) {
      return Response.json({ error: `no filter: ${errorText(e)}` }, { status: 503 });
    }
    if (updateDue(env)) ctx.waitUntil(update(env));
    if (url.pathname === '/status') {
      return Response.json({ version: state.version, items: state.filter.size, source: state.source, lastCheck, updates });
    }
    const target = url.searchParams.get('url');
    if (target === null) return Response.json({ error: 'missing ?url=' }, { status: 400 });
    try {
      return Response.json({ url: target, match: state.filter.matchUrl(target), version: state.version });
    } catch (e) {
      if (!(e instanceof InvalidUrlError)) throw e;
      return Response.json({ url: target, error: e.name, reason: e.reason, message: e.message }, { status: 400 });
    }
  },

  async scheduled(_controller: unknown, env: Env, ctx: ExecutionContext): Promise<void> {
    if (!env.UPDATE_URL) return;
    await filterFor(env);
    ctx.waitUntil(update(env));
  },
};

/** The isolate's filter: the current one, else the asset loaded once (a failed load is tried again next time). */
function filterFor(env: Env): Promise<Loaded> {
  if (current) return Promise.resolve(current);
  loading ??= (async (): Promise<Loaded> => {
    const response = await env.ASSETS.fetch(FILTER_ASSET);
    if (!response.ok) throw new Error(`blocklist.cuckoo: HTTP ${response.status}`);
    const filter = await CuckooFilter.fromBytes(await response.arrayBuffer());
    const loaded: Loaded = { filter, version: Number(env.FILTER_VERSION ?? '1'), source: 'asset' };
    current = loaded;
    return loaded;
  })().finally(() => {
    loading = null;
  });
  return loading;
}

function updateDue(env: Env): boolean {
  if (!env.UPDATE_URL || updating) return false;
  const period = Number(env.UPDATE_SECONDS ?? '300') * 1000;
  return lastCheck === null || Date.now() - lastCheck.time >= period;
}

/** Checks the manifest and updates, unless an update is already under way. */
function update(env: Env): Promise<void> {
  updating ??= checkForUpdate(env.UPDATE_URL!).finally(() => {
    updating = null;
  });
  return updating;
}

async function checkForUpdate(updateUrl: string): Promise<void> {
  const check: NonNullable<typeof lastCheck> = { time: Date.now(), version: null, error: null };
  lastCheck = check;
  let manifest: Manifest;
  try {
    manifest = readManifest(await (await fetchOk(updateUrl)).json(), updateUrl);
    check.version = manifest.version;
  } catch (e) {
    check.error = errorText(e);
    return;
  }
  const state = current;
  if (!state || manifest.version <= state.version) return;
  const record: Update = { time: Date.now(), from: state.version, to: manifest.version, via: null, bytes: 0, patchError: null, error: null };
  updates.push(record);
  if (updates.length > MAX_UPDATES) updates.shift();

  const patchUrl = manifest.patches.get(String(state.version));
  if (patchUrl) {
    try {
      const patch = new Uint8Array(await (await fetchOk(patchUrl)).arrayBuffer());
      state.filter.applyPatch(patch); // in place; on any error it throws and the filter is as it was
      current = { filter: state.filter, version: manifest.version, source: 'patch' };
      Object.assign(record, { via: 'patch', bytes: patch.byteLength });
      return;
    } catch (e) {
      record.patchError = errorText(e);
    }
  } else {
    record.patchError = `no patch from version ${state.version}`;
  }
  try {
    const bytes = await (await fetchOk(manifest.full)).arrayBuffer();
    const filter = await CuckooFilter.fromBytes(bytes);
    current = { filter, version: manifest.version, source: 'full' };
    state.filter.dispose();
    Object.assign(record, { via: 'full', bytes: bytes.byteLength });
  } catch (e) {
    record.error = `cannot load the full filter ${manifest.full}: ${errorText(e)}`;
  }
}

/** The manifest with its URLs resolved against the manifest's own; throws if it is not one. */
function readManifest(m: unknown, base: string): Manifest {
  const isUrl = (u: unknown): u is string => typeof u === 'string' && u !== '';
  if (typeof m !== 'object' || m === null) throw new Error('the update manifest is not a JSON object');
  const { version, full, patches } = m as { version?: unknown; full?: unknown; patches?: Record<string, unknown> };
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) throw new Error(`version ${version} is not an integer >= 0`);
  if (!isUrl(full)) throw new Error('no "full" URL');
  const byVersion = new Map<string, string>();
  for (const [from, url] of Object.entries(patches ?? {})) if (isUrl(url)) byVersion.set(from, new URL(url, base).href);
  return { version, full: new URL(full, base).href, patches: byVersion };
}

async function fetchOk(url: string): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}

/** An error as `Name (reason): message`, the reason being FilterFormatError's. */
function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const reason = (e as { reason?: string }).reason;
  return `${e.name}${reason ? ` (${reason})` : ''}: ${e.message}`;
}
