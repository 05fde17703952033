// Code a page writes against the read-only entry, using every member of its API. It must compile as it is
// against 'cuckoo-wasm/reader' and, with only the import's module name changed, against 'cuckoo-wasm' (code
// written against the reader compiles unchanged against the full entry). tests/js/reader-types.test.ts
// compiles it both ways; it is never run. Keep exactly one import from the package below.
import {
  ArgumentRangeError,
  ArgumentTypeError,
  BinaryFuseFilter,
  type BinaryFuseFilterInfo,
  BloomFilter,
  CuckooFilter,
  FeedError,
  FilterDisposedError,
  FilterFeed,
  IndexedDbFeedStore,
  MemoryFeedStore,
  FilterFormatError,
  FilterFullError,
  InvalidUrlError,
  OutOfMemoryError,
  RedisBloomFilter,
  RedisCuckooFilter,
  WasmInitError,
  WasmLoadError,
  applyPatchBytes,
  canonicalizeUrl,
  initWasm,
  patchInfo,
  urlExpressions,
  type BloomFilterInfo,
  type BloomSubFilterInfo,
  type FeedErrorReason,
  type FeedStore,
  type FeedUpdate,
  type StoredFeed,
  type CuckooFilterInfo,
  type CuckooSubFilterInfo,
  type FilterFormatReason,
  type InvalidUrlReason,
  type Key,
  type PatchInfo,
  type RedisBloomFilterInfo,
  type RedisCuckooFilterInfo,
  type TableEncoding,
  type WasmInitReason,
  type WasmLoadReason,
  type WasmSource,
} from 'cuckoo-wasm/reader';

/** Any filter a page loads. */
type Loaded = CuckooFilter | BloomFilter | RedisCuckooFilter | RedisBloomFilter | BinaryFuseFilter;

/** What every family answers, written once over the union. */
function lookups(filter: Loaded, keys: Key[], urls: string[], answers: Uint8Array): number {
  const one: boolean = filter.has(keys[0]) || filter.has(new Uint8Array([1, 2, 3]));
  const all: boolean[] = filter.hasAll(keys);
  const into: Uint8Array = filter.hasAll(new Set(keys), answers);
  const url: boolean = filter.hasUrl(urls[0]);
  const matched: string | null = filter.matchUrl(new TextEncoder().encode(urls[0]));
  const urlAnswers: boolean[] = filter.hasAllUrls(urls);
  const urlInto: Uint8Array = filter.hasAllUrls(urls, answers);
  const bytes: Uint8Array = filter.toBytes();
  const sizes: number = filter.byteLength + filter.subFilterCount + filter.size + filter.urlFalsePositiveRate;
  const gone: boolean = filter.disposed;
  return Number(one) + all.length + into.length + Number(url) + (matched?.length ?? 0) + urlAnswers.length + urlInto.length + bytes.length + sizes + Number(gone);
}

async function cuckoo(bytes: Uint8Array): Promise<number> {
  const f: CuckooFilter = await CuckooFilter.fromBytes(bytes);
  const n: number = f.count('evil.example');
  const encoding: TableEncoding = f.encoding;
  const info: CuckooFilterInfo = f.info();
  const sub: CuckooSubFilterInfo = info.subFilters[0];
  const seed: bigint = f.seed;
  const fields: number =
    f.fingerprintBits + f.bucketSize + f.bucketCount + f.maxKicks + f.capacity + f.expansion + f.loadFactor + f.bitsPerItem + f.falsePositiveRate + f.expectedFalsePositiveRate;
  const line = `${info.type} ${info.encoding} ${sub.encoding} ${sub.victim} ${encoding} ${seed} ${info.seed + 1n}`;
  f.dispose();
  return n + fields + sub.bucketCount + line.length;
}

async function bloom(bytes: ArrayBuffer): Promise<number> {
  const f: BloomFilter = await BloomFilter.fromBytes(bytes);
  const info: BloomFilterInfo = f.info();
  const sub: BloomSubFilterInfo = info.subFilters[0];
  const fields: number = f.hashCount + f.bitCount + f.bitsPerItem + f.falsePositiveRate + f.expectedFalsePositiveRate + f.estimatedCount() + f.capacity + f.expansion;
  const seed: bigint = f.seed;
  f[Symbol.dispose]();
  return fields + sub.hashCount + Number(seed) + info.subFilters.length;
}

async function redis(cf: Uint8Array, bf: Uint8Array): Promise<number> {
  const c: RedisCuckooFilter = await RedisCuckooFilter.fromBytes(cf);
  const b: RedisBloomFilter = await RedisBloomFilter.fromBytes(bf);
  const cInfo: RedisCuckooFilterInfo = c.info();
  const bInfo: RedisBloomFilterInfo = b.info();
  const fields: number = c.count('x') + c.bucketSize + c.maxIterations + c.falsePositiveRate + b.errorRate + b.falsePositiveRate + Number(b.nonScaling);
  const shown = JSON.stringify([cInfo, bInfo]);
  c.dispose();
  b.dispose();
  return fields + shown.length;
}

async function fuse(bytes: Uint8Array): Promise<number> {
  const f: BinaryFuseFilter = await BinaryFuseFilter.fromBytes(bytes);
  const info: BinaryFuseFilterInfo = f.info();
  const fields: number = f.fingerprintBits + f.arity + f.bitsPerItem + f.falsePositiveRate + f.capacity + f.expansion + info.arrayLength + info.segmentCount;
  const line = `${info.type} ${info.segmentLength} ${f.seed}`;
  f.dispose();
  return fields + line.length;
}

/** Follows a list by patches: on a loaded filter, and on stored bytes. */
async function patches(filter: Loaded, stored: Uint8Array, patch: Uint8Array | ArrayBuffer): Promise<Uint8Array> {
  const about: PatchInfo = await patchInfo(patch);
  const line = `${about.version} ${about.family} ${about.baseLength} ${about.baseChecksum} ${about.resultLength} ${about.resultChecksum} ${about.changes}`;
  filter.applyPatch(patch);
  const next: Uint8Array = await applyPatchBytes(stored, patch);
  return line.length > 0 ? next : stored;
}

async function urls(url: string | Uint8Array): Promise<string[]> {
  const canonical: string = await canonicalizeUrl(url);
  const expressions: string[] = await urlExpressions(canonical);
  return expressions;
}

/** Every error class, told apart by instanceof, with its typed fields. */
function explain(e: unknown): string {
  if (e instanceof FilterFormatError) {
    const reason: FilterFormatReason = e.reason;
    return `${e.code} ${reason}`;
  }
  if (e instanceof InvalidUrlError) {
    const reason: InvalidUrlReason = e.reason;
    const index: number | undefined = e.index;
    return `${e.code} ${reason} ${index ?? ''}`;
  }
  if (e instanceof WasmLoadError) {
    const reason: WasmLoadReason = e.reason;
    return `${e.code} ${reason} ${String(e.cause)}`;
  }
  if (e instanceof WasmInitError) {
    const reason: WasmInitReason = e.reason;
    return `${e.code} ${reason}`;
  }
  if (e instanceof OutOfMemoryError) return `${e.code} ${e.requestedBytes}`;
  if (e instanceof FilterFullError) return `${e.code} ${e.added}`;
  if (e instanceof FilterDisposedError || e instanceof ArgumentTypeError || e instanceof ArgumentRangeError) return `${e.code} ${e.message}`;
  return String(e);
}

/** A feed followed, its filter typed as the entry's union of filters. */
export async function feed(manifestUrl: string, publicKey: string): Promise<string> {
  const store: FeedStore = typeof indexedDB === 'undefined' ? new MemoryFeedStore() : new IndexedDbFeedStore('blocklist');
  const saved: StoredFeed | undefined = await store.load();
  const f: FilterFeed = await FilterFeed.open({ manifestUrl, publicKey, store, timeoutMs: 10000, pollSeconds: 600, onUpdate: (u: FeedUpdate) => u.to, onError: (e: Error) => e });
  const filter: Loaded = f.filter;
  // A URL object, the realm's fetch as the feed's, pollSeconds and updateOnOpen type-check as given.
  const g = await FilterFeed.open({ manifestUrl: new URL(manifestUrl, 'https://lists.example/'), fetch, updateOnOpen: false });
  const every: number = g.pollSeconds;
  g[Symbol.dispose]();
  const u: FeedUpdate = await f.update();
  f.start();
  f.stop();
  const hit: boolean = f.has('evil.example') || f.hasUrl('https://evil.example/') || f.matchUrl('https://evil.example/') !== null;
  const reason: FeedErrorReason | undefined = f.lastError instanceof FeedError ? f.lastError.reason : undefined;
  f.dispose();
  return `${every} ${saved?.version} ${f.version} ${f.name} ${u.from} ${u.to} ${u.via} ${u.bytes} ${hit} ${reason} ${filter.byteLength}`;
}

export async function page(source: WasmSource, bytes: Uint8Array, patch: Uint8Array): Promise<string> {
  await initWasm(source);
  try {
    const filter: Loaded = await CuckooFilter.fromBytes(bytes);
    const n = lookups(filter, ['evil.example'], ['https://evil.example/login'], new Uint8Array(16));
    const next = await patches(filter, bytes, patch);
    filter.dispose();
    return `${n} ${next.length} ${await cuckoo(next)} ${await bloom(next.slice().buffer)} ${await redis(next, next)} ${await fuse(next)} ${(await urls('http://a.example/b')).length}`;
  } catch (e) {
    return explain(e);
  }
}
