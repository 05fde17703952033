// FilterFeed (js/feed/filter-feed.ts, docs/FEED.md §4) following real feeds over HTTP on 127.0.0.1: versions of a
// cuckoo filter of the blocklist sample (seeded adds and removals at a fixed capacity) and of a Bloom filter, by
// patch, by full download, across skipped versions, with and without a signing key, in both entries; and every
// fault a server or a store can make, after each of which the feed still holds and answers from its previous
// filter, its store unchanged, with a typed FeedError.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as full from 'cuckoo-wasm';
import { BloomFilter, CuckooFilter, FeedError, FileFeedStore, FilterFeed, MemoryFeedStore, type FeedStore, type StoredFeed } from 'cuckoo-wasm';
import { FeedPublisher, FeedServer, envelopeOf, feedKey, seeded, type FeedKey } from './feed-fixture';

const root = join(__dirname, '..', '..');
const reader = require(join(root, 'dist', 'reader-node.cjs')) as typeof import('cuckoo-wasm/reader');
const LIST = readFileSync(join(root, 'examples/data/blocklist-sample.txt'), 'utf8').split('\n').filter((s) => s.length > 0);

/** Versions 1..VERSIONS of a cuckoo filter: each its entries and bytes. */
const VERSIONS = 7;
const cuckooVersions: { entries: string[]; bytes: Uint8Array }[] = [];
const bloomVersions: { entries: string[]; bytes: Uint8Array }[] = [];

beforeAll(async () => {
  const rand = seeded(2026);
  const f = await CuckooFilter.create({ capacity: 30000, seed: 7 });
  let entries = LIST.slice(0, 20000);
  let next = 20000;
  f.addAll(entries);
  cuckooVersions[1] = { entries, bytes: f.toBytes() };
  for (let v = 2; v <= VERSIONS; ++v) {
    const gone = new Set<string>();
    while (gone.size < 300) gone.add(entries[rand() % entries.length]);
    for (const e of gone) f.delete(e);
    const added = LIST.slice(next, next + 300);
    next += 300;
    f.addAll(added);
    entries = [...entries.filter((e) => !gone.has(e)), ...added];
    cuckooVersions[v] = { entries, bytes: f.toBytes() };
  }
  f.dispose();
  const b = await BloomFilter.create({ capacity: 30000, seed: 3 });
  for (let v = 1; v <= 3; ++v) {
    const added = LIST.slice(40000 + (v - 1) * 2000, 40000 + v * 2000);
    b.addAll(added);
    bloomVersions[v] = { entries: [...(bloomVersions[v - 1]?.entries ?? []), ...added], bytes: b.toBytes() };
  }
  b.dispose();
});

/** A store that counts its saves and can be made to fail. */
class CountingStore extends MemoryFeedStore {
  saves = 0;
  failWith: unknown;
  async save(s: StoredFeed): Promise<void> {
    if (this.failWith !== undefined) throw this.failWith;
    this.saves++;
    return super.save(s);
  }
}

interface Setup {
  dir: string;
  pub: FeedPublisher;
  server: FeedServer;
}
const setups: Setup[] = [];
const feeds: { dispose(): void }[] = [];

async function setup(family = 'CuckooFilter', key?: FeedKey): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'feed-'));
  const s = { dir, pub: new FeedPublisher(dir, 'blocklist', family, key), server: await FeedServer.start(dir) };
  setups.push(s);
  return s;
}

async function open(s: Setup, options: Partial<Parameters<typeof FilterFeed.open>[0]> = {}): Promise<FilterFeed> {
  const feed = await FilterFeed.open({ manifestUrl: s.server.manifestUrl, ...options });
  feeds.push(feed);
  return feed;
}

afterEach(async () => {
  for (const f of feeds.splice(0)) f.dispose();
  for (const s of setups.splice(0)) {
    await s.server.close();
    rmSync(s.dir, { recursive: true, force: true });
  }
});

/** The feed holds version `v` of `versions`: every entry answers true, and its bytes are the published file's. */
function holds(feed: { version: number; filter: { has(k: string): boolean; toBytes(): Uint8Array } }, v: number, versions = cuckooVersions): void {
  expect(feed.version).toBe(v);
  const missing = versions[v].entries.filter((e) => !feed.filter.has(e));
  expect(missing).toEqual([]);
  expect(Buffer.from(feed.filter.toBytes()).equals(Buffer.from(versions[v].bytes))).toBe(true);
}

/** The update's rejection, which must be a FeedError. */
async function refusal(p: Promise<unknown>): Promise<FeedError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(FeedError);
  return e as FeedError;
}

describe('following a feed', () => {
  test('every version by patch: each answers for all its entries, and its bytes are the published full file', async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const updates: unknown[] = [];
    const feed = await open(s, { onUpdate: (u) => updates.push(u) });
    holds(feed, 1);
    expect(feed.name).toBe('blocklist');
    expect(feed.filter).toBeInstanceOf(full.CuckooFilter);
    expect(updates).toEqual([{ from: 0, to: 1, via: 'full', bytes: expect.any(Number) }]);
    for (let v = 2; v <= VERSIONS; ++v) {
      await s.pub.publish(v, cuckooVersions[v].bytes);
      const u = await feed.update();
      expect(u).toEqual({ from: v - 1, to: v, via: 'patch', bytes: expect.any(Number) });
      const patch = s.pub.manifests.get(v)!.patches.find((p: { from: number }) => p.from === v - 1);
      expect(u.bytes).toBe(Buffer.byteLength(s.pub.envelopes.get(v)!) + patch.size);
      holds(feed, v);
    }
    expect(s.server.requests.filter((p) => p.startsWith('full-'))).toHaveLength(1);
    expect(await feed.update()).toEqual({ from: VERSIONS, to: VERSIONS, via: 'none', bytes: Buffer.byteLength(s.pub.envelopes.get(VERSIONS)!) });
    expect(updates).toHaveLength(VERSIONS);
  });

  test('by the full file when no patch leads from the version held (none offered, or fullOnly)', async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const feed = await open(s);
    await s.pub.publish(2, cuckooVersions[2].bytes, { from: [] });
    expect(await feed.update()).toMatchObject({ from: 1, to: 2, via: 'full', bytes: expect.any(Number) });
    holds(feed, 2);
    await s.pub.publish(3, cuckooVersions[3].bytes, { fullOnly: true });
    expect((await feed.update()).via).toBe('full');
    holds(feed, 3);
  });

  test('after skipped versions: by a patch from the version held when one is offered, else by the full file', async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const feed = await open(s);
    for (const v of [2, 3, 4]) await s.pub.publish(v, cuckooVersions[v].bytes);
    expect(await feed.update()).toMatchObject({ from: 1, to: 4, via: 'patch' });
    holds(feed, 4);
    await s.pub.publish(5, cuckooVersions[5].bytes);
    await s.pub.publish(6, cuckooVersions[6].bytes, { from: [5] });
    expect(await feed.update()).toMatchObject({ from: 4, to: 6, via: 'full' });
    holds(feed, 6);
  });

  test("the reader entry's FilterFeed makes the reader's classes, and follows patches as the full entry's", async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const feed = await reader.FilterFeed.open({ manifestUrl: s.server.manifestUrl });
    feeds.push(feed);
    expect(feed.filter.constructor).toBe(reader.CuckooFilter);
    expect(feed.filter).not.toBeInstanceOf(full.CuckooFilter);
    await s.pub.publish(2, cuckooVersions[2].bytes);
    expect((await feed.update()).via).toBe('patch');
    holds(feed, 2);
    expect(reader.FilterFeed).not.toBe(FilterFeed);
  });

  test('a Bloom filter feed, by patch', async () => {
    const s = await setup('BloomFilter');
    await s.pub.publish(1, bloomVersions[1].bytes);
    const feed = await open(s);
    expect(feed.filter).toBeInstanceOf(full.BloomFilter);
    holds(feed, 1, bloomVersions);
    for (const v of [2, 3]) {
      await s.pub.publish(v, bloomVersions[v].bytes);
      expect((await feed.update()).via).toBe('patch');
      holds(feed, v, bloomVersions);
    }
  });

  test("has, hasUrl and matchUrl ask the current filter; the filter an update replaced is disposed", async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const feed = await open(s);
    const first = feed.filter;
    const entry = cuckooVersions[1].entries[0];
    expect(feed.has(entry)).toBe(true);
    // The list holds host names as keys, not URL expressions: the URL methods answer as the filter's own.
    for (const url of [`https://${entry}/x`, 'https://example.com/']) {
      expect([feed.hasUrl(url), feed.matchUrl(url)]).toEqual([feed.filter.hasUrl(url), feed.filter.matchUrl(url)]);
    }
    await s.pub.publish(2, cuckooVersions[2].bytes);
    await feed.update();
    expect(() => first.has(entry)).toThrow(full.FilterDisposedError);
    const added = cuckooVersions[2].entries[cuckooVersions[2].entries.length - 1];
    expect(feed.has(added)).toBe(true);
  });

  test('an older manifest served again is refused (replay), the same one is nothing to do', async () => {
    const s = await setup();
    for (const v of [1, 2, 3]) await s.pub.publish(v, cuckooVersions[v].bytes);
    const store = new CountingStore();
    const feed = await open(s, { store });
    holds(feed, 3);
    s.pub.writeManifest(s.pub.envelopes.get(2)!);
    const e = await refusal(feed.update());
    expect([e.reason, e.url]).toEqual(['replay', s.server.manifestUrl]);
    holds(feed, 3);
    expect([store.saves, feed.lastError]).toEqual([1, e]);
    s.pub.writeManifest(s.pub.envelopes.get(3)!);
    expect((await feed.update()).via).toBe('none');
    expect(feed.lastError).toBeUndefined();
  });

  test('a manifest of another list is refused (wrong-feed)', async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const feed = await open(s);
    const other = new FeedPublisher(s.dir, 'other-list', 'CuckooFilter');
    await other.publish(2, cuckooVersions[2].bytes);
    expect((await refusal(feed.update())).reason).toBe('wrong-feed');
    holds(feed, 1);
  });
});

test("the patch applies to the bytes the feed loaded, not to the filter's: a key a user added to feed.filter (full entry) is dropped at the swap", async () => {
  const s = await setup();
  await s.pub.publish(1, cuckooVersions[1].bytes);
  const feed = await open(s);
  (feed.filter as CuckooFilter).add('added-by-the-user.example');
  await s.pub.publish(2, cuckooVersions[2].bytes);
  expect((await feed.update()).via).toBe('patch');
  holds(feed, 2);
});

describe('signatures', () => {
  test('a signed feed opened with its key is followed', async () => {
    const key = feedKey();
    const s = await setup('CuckooFilter', key);
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const feed = await open(s, { publicKey: key.publicKey });
    holds(feed, 1);
    await s.pub.publish(2, cuckooVersions[2].bytes);
    expect((await feed.update()).via).toBe('patch');
    const raw = await open(s, { publicKey: key.raw });
    holds(raw, 2);
  });

  test("refused: an unsigned manifest ('unsigned'), another key's, a tampered payload ('bad-signature'); open with nothing stored rejects", async () => {
    const key = feedKey();
    const s = await setup('CuckooFilter', key);
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const feed = await open(s, { publicKey: key.publicKey });
    await s.pub.publish(2, cuckooVersions[2].bytes);
    const m2 = s.pub.manifests.get(2)!;

    s.pub.writeManifest(await envelopeOf(m2, []));
    expect((await refusal(feed.update())).reason).toBe('unsigned');
    expect((await refusal(FilterFeed.open({ manifestUrl: s.server.manifestUrl, publicKey: key.publicKey }))).reason).toBe('unsigned');

    s.pub.writeManifest(await envelopeOf(m2, [feedKey()]));
    expect((await refusal(feed.update())).reason).toBe('bad-signature');
    expect((await refusal(open(s, { publicKey: feedKey().publicKey }))).reason).toBe('bad-signature');

    const signed = JSON.parse(s.pub.envelopes.get(2)!);
    const tampered = { ...m2, version: 9 };
    s.pub.writeManifest(JSON.stringify({ ...signed, payload: Buffer.from(JSON.stringify(tampered)).toString('base64') }));
    expect((await refusal(feed.update())).reason).toBe('bad-signature');
    holds(feed, 1);

    s.pub.writeManifest(s.pub.envelopes.get(2)!);
    expect((await feed.update()).to).toBe(2);
  });

  test('a publicKey that is not 32 bytes is an ArgumentTypeError', async () => {
    const s = await setup();
    await expect(FilterFeed.open({ manifestUrl: s.server.manifestUrl, publicKey: 'AAAA' })).rejects.toThrow(full.ArgumentTypeError);
    await expect(FilterFeed.open({ manifestUrl: 'not a url' })).rejects.toThrow(full.ArgumentTypeError);
  });
});

describe('faults: the previous filter answers, the store is unchanged, the error is typed', () => {
  /** A feed holding version 1, and version 2 published (by patch unless `fullOnly`). */
  async function atOne(fullOnly = false, options: Partial<Parameters<typeof FilterFeed.open>[0]> = {}) {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const store = new CountingStore();
    const feed = await open(s, { store, ...options });
    await s.pub.publish(2, cuckooVersions[2].bytes, { fullOnly });
    const m = s.pub.manifests.get(2)!;
    return { s, store, feed, m, patch: m.patches[0], fullFile: m.full };
  }

  /** After the update failed: version 1 held and answering, nothing stored since open, lastError the error. */
  async function unchanged(feed: FilterFeed, store: CountingStore, e: FeedError): Promise<void> {
    holds(feed, 1);
    expect(store.saves).toBe(1);
    expect((await store.load())!.version).toBe(1);
    expect(feed.lastError).toBe(e);
  }

  /** Serves `bytes` for `path` with `head`'s headers. */
  const serve = (path: string, bytes: Uint8Array, headers: Record<string, string | number> = { 'content-length': bytes.length }) =>
    ((req, res, p) => {
      if (p !== path) return false;
      res.writeHead(200, headers);
      res.end(Buffer.from(bytes));
      return true;
    }) as FeedServer['fault'];

  test('the server closes the socket halfway through the full file: network', async () => {
    const { s, store, feed, fullFile } = await atOne(true);
    s.server.fault = (req, res, p) => {
      if (p !== fullFile.path) return false;
      const bytes = s.pub.read(p);
      res.writeHead(200, { 'content-length': bytes.length });
      res.write(bytes.subarray(0, bytes.length >> 1), () => res.destroy());
      return true;
    };
    const e = await refusal(feed.update());
    expect([e.reason, e.url]).toEqual(['network', s.server.base + fullFile.path]);
    await unchanged(feed, store, e);
  });

  test.each([
    ['with a Content-Length of what is sent', true],
    ['with no Content-Length (chunked)', false],
  ])('a truncated full file, %s: size-mismatch', async (_, withLength) => {
    const { s, store, feed, fullFile } = await atOne(true);
    const short = s.pub.read(fullFile.path).subarray(0, fullFile.size - 100);
    s.server.fault = serve(fullFile.path, short, withLength ? { 'content-length': short.length } : {});
    const e = await refusal(feed.update());
    expect(e.reason).toBe('size-mismatch');
    await unchanged(feed, store, e);
  });

  test('a full file longer than the manifest says: size-mismatch', async () => {
    const { s, store, feed, fullFile } = await atOne(true);
    s.server.fault = serve(fullFile.path, Buffer.concat([s.pub.read(fullFile.path), Buffer.alloc(10)]), {});
    const e = await refusal(feed.update());
    expect(e.reason).toBe('size-mismatch');
    await unchanged(feed, store, e);
  });

  test('one flipped byte in the patch: its hash is refused, and the full file is downloaded instead', async () => {
    const { s, store, feed, patch } = await atOne();
    const bad = new Uint8Array(s.pub.read(patch.path));
    bad[bad.length >> 1] ^= 1;
    s.server.fault = serve(patch.path, bad);
    const u = await feed.update();
    expect(u).toMatchObject({ from: 1, to: 2, via: 'full' });
    expect((u.patchError as FeedError).reason).toBe('hash-mismatch');
    expect(store.saves).toBe(2);
    holds(feed, 2);
  });

  test('a patch that is not there (404): the full file is downloaded instead', async () => {
    const { s, feed, patch } = await atOne();
    rmSync(join(s.dir, patch.path));
    const u = await feed.update();
    expect([u.via, (u.patchError as FeedError).reason, (u.patchError as FeedError).status]).toEqual(['full', 'http-status', 404]);
    holds(feed, 2);
  });

  test("a patched filter that does not load as the manifest's family: the full file is tried too, then bad-filter", async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const store = new CountingStore();
    const feed = await open(s, { store });
    (s.pub as unknown as { family: string }).family = 'RedisCuckooFilter';
    await s.pub.publish(2, cuckooVersions[2].bytes);
    const before = s.server.requests.length;
    const e = await refusal(feed.update());
    expect(e.reason).toBe('bad-filter');
    expect(s.server.requests.slice(before).map((p) => p.replace(/-[0-9a-f]{64}/, ''))).toEqual(['manifest.json', 'patch-1.bin', 'full.bin']);
    await unchanged(feed, store, e);
  });

  test('timeoutMs and pollSeconds out of range are refused when the feed is opened (NaN would poll in a tight loop)', async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    for (const bad of [{ timeoutMs: NaN }, { timeoutMs: 0 }, { timeoutMs: 2 ** 31 }, { timeoutMs: 1.5 }, { pollSeconds: NaN }, { pollSeconds: -1 }, { pollSeconds: Infinity }]) {
      await expect(FilterFeed.open({ manifestUrl: s.server.manifestUrl, ...bad })).rejects.toBeInstanceOf(full.ArgumentRangeError);
    }
    expect(s.server.requests).toEqual([]);
  });

  test('one flipped byte in the full file: hash-mismatch', async () => {
    const { s, store, feed, fullFile } = await atOne(true);
    const bad = new Uint8Array(s.pub.read(fullFile.path));
    bad[100] ^= 0x80;
    s.server.fault = serve(fullFile.path, bad);
    const e = await refusal(feed.update());
    expect([e.reason, e.url]).toEqual(['hash-mismatch', s.server.base + fullFile.path]);
    await unchanged(feed, store, e);
  });

  test("a full file of the right size whose hash is not the manifest's (another version's bytes): hash-mismatch", async () => {
    const { s, store, feed, fullFile } = await atOne(true);
    const other = new Uint8Array(fullFile.size);
    other.set(cuckooVersions[1].bytes.subarray(0, fullFile.size));
    s.server.fault = serve(fullFile.path, other);
    const e = await refusal(feed.update());
    expect(e.reason).toBe('hash-mismatch');
    await unchanged(feed, store, e);
  });

  test('a manifest naming a file that is not there: http-status 404', async () => {
    const { s, store, feed, fullFile } = await atOne(true);
    rmSync(join(s.dir, fullFile.path));
    const e = await refusal(feed.update());
    expect([e.reason, e.status, e.url]).toEqual(['http-status', 404, s.server.base + fullFile.path]);
    await unchanged(feed, store, e);
  });

  test('500 on the manifest: http-status 500', async () => {
    const { s, store, feed } = await atOne();
    s.server.fault = (req, res, p) => p === 'manifest.json' && (res.writeHead(500).end(), true);
    const e = await refusal(feed.update());
    expect([e.reason, e.status, e.url]).toEqual(['http-status', 500, s.server.manifestUrl]);
    await unchanged(feed, store, e);
  });

  test.each(['before its headers', 'after half its body'])('a response that hangs %s: timeout after timeoutMs', async (when) => {
    const { s, store, feed, fullFile } = await atOne(true, { timeoutMs: 300 });
    s.server.fault = (req, res, p) => {
      if (p !== fullFile.path) return false;
      if (when !== 'before its headers') {
        res.writeHead(200, { 'content-length': fullFile.size });
        res.write(s.pub.read(p).subarray(0, fullFile.size >> 1));
      }
      return true; // and never ends
    };
    const started = Date.now();
    const e = await refusal(feed.update());
    expect([e.reason, e.url]).toEqual(['timeout', s.server.base + fullFile.path]);
    expect(Date.now() - started).toBeLessThan(10000);
    await unchanged(feed, store, e);
  });

  test('a manifest over 1 MiB: size-mismatch, without reading all of it', async () => {
    const { s, store, feed } = await atOne();
    s.server.fault = serve('manifest.json', Buffer.alloc(8 * 2 ** 20, 0x20), {});
    const e = await refusal(feed.update());
    expect(e.reason).toBe('size-mismatch');
    await unchanged(feed, store, e);
  });

  test('a manifest that is not a feed manifest: manifest-invalid', async () => {
    const { s, store, feed } = await atOne();
    const m = { ...s.pub.manifests.get(2)!, full: { ...s.pub.manifests.get(2)!.full, path: '../secret.bin' } };
    s.pub.writeManifest(await envelopeOf(m, []));
    const e = await refusal(feed.update());
    expect(e.reason).toBe('manifest-invalid');
    await unchanged(feed, store, e);
  });

  test('verified bytes that are not a filter of the family: bad-filter', async () => {
    const { s, store, feed } = await atOne(true);
    await s.pub.publish(3, new TextEncoder().encode('not a filter at all'), { fullOnly: true });
    const e = await refusal(feed.update());
    expect([e.reason, (e.cause as Error).constructor.name]).toEqual(['bad-filter', 'FilterFormatError']);
    await unchanged(feed, store, e);
  });

  test('a fetch that gives garbage: a typed error, never a crash', async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const manifest = s.pub.envelopes.get(1)!;
    const cases: [unknown, string][] = [
      [42, 'network'],
      [null, 'network'],
      [{ status: 200, body: null }, 'manifest-invalid'],
      [{ status: 200, body: {} }, 'network'],
      [{ status: 200, body: new Response('x').body, get ok() { throw new Error('no'); } }, 'manifest-invalid'],
      [new Response(new ReadableStream({ start: (c) => (c.enqueue('text, not bytes' as never), c.close()) })), 'network'],
      [new Response(manifest, { status: 201 }), 'http-status'],
    ];
    for (const [answer, reason] of cases) {
      const e = await refusal(FilterFeed.open({ manifestUrl: s.server.manifestUrl, fetch: async () => answer }));
      expect([answer, e.reason]).toEqual([answer, reason]);
    }
    expect((await refusal(FilterFeed.open({ manifestUrl: s.server.manifestUrl, fetch: () => { throw new Error('sync'); } }))).reason).toBe('network');
  });

  test('a fetch that ignores its signal and never answers: timeout; disposed when dispose() comes first', async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const never = () => new Promise<never>(() => undefined);
    const e = await refusal(FilterFeed.open({ manifestUrl: s.server.manifestUrl, fetch: never, timeoutMs: 50 }));
    expect([e.reason, e.url]).toEqual(['timeout', s.server.manifestUrl]);
    let hang = false;
    const feed = await open(s, { fetch: (u, init) => (hang ? never() : fetch(u, init)) });
    hang = true;
    const update = feed.update();
    await new Promise((resolve) => setImmediate(resolve));
    feed.dispose();
    expect((await refusal(update)).reason).toBe('disposed');
  });

  test('a store whose save fails (ENOSPC): store; the new filter is not kept', async () => {
    const { store, feed } = await atOne();
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    store.failWith = enospc;
    const e = await refusal(feed.update());
    expect([e.reason, e.cause]).toEqual(['store', enospc]);
    await unchanged(feed, store, e);
    store.failWith = undefined;
    expect((await feed.update()).to).toBe(2);
  });

  test.each([
    ['in a folder that does not exist (ENOENT)', (dir: string) => join(dir, 'no-such-folder', 'feed.bin'), 'ENOENT'],
    ['whose path is a folder (EISDIR)', (dir: string) => dir, 'EISDIR'],
  ])('a FileFeedStore %s: store, and open rejects when nothing was stored', async (_, path, code) => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const e = await refusal(FilterFeed.open({ manifestUrl: s.server.manifestUrl, store: new FileFeedStore(path(s.dir)) }));
    expect([e.reason, (e.cause as { code?: string }).code]).toEqual(['store', code]);
  });
});

describe('concurrency and callbacks', () => {
  test('[Symbol.dispose] disposes the feed, as for `using feed = await FilterFeed.open(...)`', async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const feed = await open(s);
    const key = (Symbol as { dispose?: symbol }).dispose ?? Symbol.for('Symbol.dispose');
    (feed as unknown as Record<symbol, () => void>)[key]();
    expect((await refusal(feed.update())).reason).toBe('disposed');
    expect(() => feed.has('x')).toThrow(full.FilterDisposedError);
  });

  test('two update() at once share one update: one manifest request, the same promise', async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const feed = await open(s);
    await s.pub.publish(2, cuckooVersions[2].bytes);
    const before = s.server.requests.length;
    const [a, b] = [feed.update(), feed.update()];
    expect(a).toBe(b);
    await a;
    expect(s.server.requests.slice(before).filter((p) => p === 'manifest.json')).toHaveLength(1);
    holds(feed, 2);
  });

  test('dispose() during an update: it rejects with disposed, nothing is stored, the new filter is not kept', async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const store = new CountingStore();
    const feed = await open(s, { store });
    await s.pub.publish(2, cuckooVersions[2].bytes, { fullOnly: true });
    let seen!: () => void;
    const asked = new Promise<void>((resolve) => (seen = resolve));
    s.server.fault = (req, res, p) => (p.startsWith('full-') ? (seen(), true) : false);
    const update = feed.update();
    await asked;
    feed.dispose();
    expect((await refusal(update)).reason).toBe('disposed');
    expect(store.saves).toBe(1);
    expect((await refusal(feed.update())).reason).toBe('disposed');
    expect(() => feed.filter.has('x')).toThrow(full.FilterDisposedError);
    feed.dispose();
  });

  test('dispose() while the new filter is being stored: disposed, the new filter is disposed', async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    let release!: () => void;
    let saving!: () => void;
    const inSave = new Promise<void>((resolve) => (saving = resolve));
    const store: FeedStore & { state?: StoredFeed } = {
      load: async () => undefined,
      save: async (st) => {
        if (st.version === 2) {
          saving();
          await new Promise<void>((resolve) => (release = resolve));
        }
      },
    };
    const feed = await open(s, { store });
    await s.pub.publish(2, cuckooVersions[2].bytes);
    const update = feed.update();
    await inSave;
    feed.dispose();
    release();
    expect((await refusal(update)).reason).toBe('disposed');
    expect(feed.version).toBe(1);
  });

  test('callbacks that throw, or call update() and dispose(), do not break the feed', async () => {
    const s = await setup();
    await s.pub.publish(1, cuckooVersions[1].bytes);
    const nested: Promise<unknown>[] = [];
    let feed!: FilterFeed;
    feed = await open(s, {
      onUpdate: (u) => {
        if (u.to === 2) nested.push(feed.update());
        if (u.to === 3) throw new Error('a bug in the user code');
        if (u.to === 4) return Promise.reject(new Error('an async bug')) as never;
        if (u.to === 5) feed.dispose();
      },
      onError: () => {
        throw new Error('another bug');
      },
    });
    for (const v of [2, 3, 4]) {
      await s.pub.publish(v, cuckooVersions[v].bytes);
      expect((await feed.update()).to).toBe(v);
      holds(feed, v);
    }
    expect(await Promise.all(nested)).toEqual([{ from: 2, to: 2, via: 'none', bytes: expect.any(Number) }]);
    s.server.fault = (req, res) => (res.writeHead(503).end(), true);
    expect((await refusal(feed.update())).status).toBe(503);
    s.server.fault = undefined;
    await s.pub.publish(5, cuckooVersions[5].bytes);
    expect((await feed.update()).to).toBe(5);
    expect((await refusal(feed.update())).reason).toBe('disposed');
  });
});
