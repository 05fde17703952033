// A Cloudflare Worker that checks URLs against a URL blocklist the way Google Safe Browsing does (matchUrl: the
// URL's host and up to 4 parent domains, each with its exact path, with and without the query, and up to 4 parent
// folders), following the list as a feed (docs/FEED.md) that `cuckoo-wasm publish` writes to any static host:
//
//   GET /check?url=https://www.evil.example/login  ->  { "url": …, "match": "evil.example/", "version": 2 }
//   GET /check?url=https://example.org/            ->  { "url": …, "match": null, "version": 2 }
//   GET /check?url=nonsense                        ->  400 { "error": "InvalidUrlError", "reason": "no-host", … }
//   GET /status                                    ->  { name, version, items, source, lastCheck, updates }
//
// FilterFeed (the package's "workerd" entry, which wrangler bundles with its .wasm as a module) holds the filter.
// Its store is the isolate's memory (MemoryFeedStore): an isolate's first request opens the feed (the manifest and
// the full filter), and later ones are answered from memory. A store is what a feed keeps between runs: bound to a
// KV namespace as FEED_KV, the Worker uses KvFeedStore below instead, so that a new isolate starts from the version
// KV holds and catches up by a patch. At most every UPDATE_SECONDS, after answering a request (ctx.waitUntil), and
// on the cron trigger, the isolate runs feed.update(): a patch from its version, or the full filter when no patch
// applies. An update that fails changes nothing, and checks answer from the filter held throughout.
import { FilterFeed, MemoryFeedStore, InvalidUrlError, type FeedStore, type FeedUpdate, type StoredFeed } from 'cuckoo-wasm';

/** The part of a Workers KV namespace (@cloudflare/workers-types' KVNamespace) that KvFeedStore uses. */
interface KvNamespace {
  getWithMetadata<M>(key: string, type: 'arrayBuffer'): Promise<{ value: ArrayBuffer | null; metadata: M | null }>;
  put(key: string, value: Uint8Array, options: { metadata: unknown }): Promise<void>;
}

/** The bindings of wrangler.toml. */
interface Env {
  /** The feed's manifest.json (an http(s) URL). */
  FEED_URL: string;
  /** The publisher's Ed25519 public key (base64, as `cuckoo-wasm keygen` prints it): manifests not signed with it are refused. */
  FEED_PUBLIC_KEY?: string;
  /** The least seconds between two updates of an isolate (300 by default). */
  UPDATE_SECONDS?: string;
  /** A KV namespace to keep the filter in, shared by the isolates; none: each isolate's memory. */
  FEED_KV?: KvNamespace;
}

/** What the Workers runtime passes to fetch and scheduled (from @cloudflare/workers-types, the part used). */
interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * A FeedStore in Workers KV: the filter's bytes as the value of `key`, the rest of the state as its metadata, so
 * that one put() writes the whole state. KV is eventually consistent: another location may load an older version
 * for a while, and the feed then updates from it as from any other.
 */
export class KvFeedStore implements FeedStore {
  constructor(
    private readonly kv: KvNamespace,
    private readonly key = 'feed',
  ) {}

  async load(): Promise<StoredFeed | undefined> {
    const { value, metadata } = await this.kv.getWithMetadata<Omit<StoredFeed, 'bytes'>>(this.key, 'arrayBuffer');
    return value === null || metadata === null ? undefined : { ...metadata, bytes: new Uint8Array(value) };
  }

  async save({ bytes, ...metadata }: StoredFeed): Promise<void> {
    await this.kv.put(this.key, bytes, { metadata });
  }
}

const MAX_UPDATES = 20;

let feed: FilterFeed | null = null;
let opening: Promise<FilterFeed> | null = null;
/** How the filter held came: 'stored' (KV), 'full' or 'patch'. */
let source: 'stored' | FeedUpdate['via'] = 'full';
let lastCheck: { time: number; version: number | null; error: string | null } | null = null;
const updates: { time: number; from: number; to: number; via: FeedUpdate['via']; bytes: number; patchError: string | null }[] = [];

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== 'GET') return Response.json({ error: 'only GET' }, { status: 405 });
    if (url.pathname !== '/check' && url.pathname !== '/status') return Response.json({ error: 'not found' }, { status: 404 });
    let current: FilterFeed;
    try {
      current = await feedFor(env);
    } catch (e) {
      return Response.json({ error: `no filter: ${errorText(e)}` }, { status: 503 });
    }
    if (updateDue(env)) ctx.waitUntil(update(current));
    if (url.pathname === '/status') {
      return Response.json({ name: current.name, version: current.version, items: current.filter.size, source, lastCheck, updates });
    }
    const target = url.searchParams.get('url');
    if (target === null) return Response.json({ error: 'missing ?url=' }, { status: 400 });
    try {
      return Response.json({ url: target, match: current.matchUrl(target), version: current.version });
    } catch (e) {
      if (!(e instanceof InvalidUrlError)) throw e;
      return Response.json({ url: target, error: e.name, reason: e.reason, message: e.message }, { status: 400 });
    }
  },

  async scheduled(_controller: unknown, env: Env, ctx: ExecutionContext): Promise<void> {
    ctx.waitUntil(feedFor(env).then(update));
  },
};

/** The isolate's feed, opened once (a failed open, with nothing stored, is tried again at the next request). */
function feedFor(env: Env): Promise<FilterFeed> {
  if (feed) return Promise.resolve(feed);
  opening ??= (async () => {
    const store = env.FEED_KV ? new KvFeedStore(env.FEED_KV) : new MemoryFeedStore();
    const check = startCheck();
    const opened = await FilterFeed.open({
      manifestUrl: env.FEED_URL,
      publicKey: env.FEED_PUBLIC_KEY || undefined,
      store,
      onUpdate: recordUpdate,
      onError: (e) => (check.error = errorText(e)),
    });
    if (updates.length === 0) source = 'stored';
    if (opened.lastError === undefined) check.version = opened.version;
    feed = opened;
    return opened;
  })().finally(() => {
    opening = null;
  });
  return opening;
}

function startCheck(): NonNullable<typeof lastCheck> {
  lastCheck = { time: Date.now(), version: null, error: null };
  return lastCheck;
}

function updateDue(env: Env): boolean {
  const period = Number(env.UPDATE_SECONDS ?? '300') * 1000;
  return lastCheck === null || Date.now() - lastCheck.time >= period;
}

/** One update; update() returns the one under way, if any, so two never run at once. */
async function update(current: FilterFeed): Promise<void> {
  const check = startCheck();
  try {
    await current.update();
    check.version = current.version;
  } catch (e) {
    check.error = errorText(e);
  }
}

function recordUpdate({ from, to, via, bytes, patchError }: FeedUpdate): void {
  source = via;
  updates.push({ time: Date.now(), from, to, via, bytes, patchError: patchError ? errorText(patchError) : null });
  if (updates.length > MAX_UPDATES) updates.shift();
}

/** An error as `Name (reason): message`, the reason being FeedError's or InvalidUrlError's. */
function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const reason = (e as { reason?: string }).reason;
  return `${e.name}${reason ? ` (${reason})` : ''}: ${e.message}`;
}
