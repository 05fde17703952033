/**
 * Where a {@link FilterFeed} keeps the filter it follows between runs (docs/FEED.md §4, step 5): the
 * {@link FeedStore} interface, and three stores: {@link MemoryFeedStore} (nothing kept past the process),
 * {@link FileFeedStore} (a file, Node.js, Deno and Bun) and {@link IndexedDbFeedStore} (pages, workers, extension
 * service workers). This file is in every bundle: it imports no Node.js module (FileFeedStore asks the runtime for
 * `node:fs` when it is made).
 */
import { FeedError } from '../common/errors.js';
import { named } from '../common/named.js';

/**
 * What a feed stores: the filter it holds, as bytes, with what it needs to follow the feed from there. The feed
 * checks all of it when it loads it (types, `family`, `sha256` against `bytes`) and ignores a state that fails.
 */
export interface StoredFeed {
  /** The list's name (the manifest's `name`, docs/FEED.md §3). */
  readonly name: string;
  /** The version held, an integer ≥ 1. */
  readonly version: number;
  /** The filter's class: 'CuckooFilter', 'BloomFilter', 'RedisCuckooFilter' or 'RedisBloomFilter'. */
  readonly family: string;
  /** SHA-256 of `bytes`, 64 lowercase hex digits (the manifest's `full.sha256` of that version). */
  readonly sha256: string;
  /** The filter's bytes (docs/FORMAT.md), the feed's full file of that version. */
  readonly bytes: Uint8Array;
  /**
   * Whose state it is: the feed's manifest URL and its public key (base64; '' for a feed opened without one). A feed
   * ignores a stored state that names another (two feeds sharing a store, a feed moved to another URL or given a
   * key); a state without them (a store that keeps only the members above) is taken as the feed's.
   */
  readonly feed?: { readonly manifestUrl: string; readonly publicKey: string };
}

/**
 * A place a feed keeps its filter in, for a later run to start from. Implement it over any storage (chrome.storage,
 * Workers KV, a database): `save` is called once per update, after the new filter is downloaded and checked and
 * before the feed switches to it; `load` once, by `FilterFeed.open`. A `save` that rejects leaves the feed on its
 * previous filter (FeedError 'store'); it should leave the previous state loadable (write a copy, then replace).
 * One store per feed: a store holding another list's filter makes every update fail with 'wrong-feed'.
 *
 * @example
 * ```ts
 * const store: FeedStore = {
 *   async load() { const { feed } = await chrome.storage.local.get('feed'); return feed && { ...feed, bytes: new Uint8Array(feed.bytes) }; },
 *   async save(s) { await chrome.storage.local.set({ feed: { ...s, bytes: Array.from(s.bytes) } }); },
 * };
 * ```
 */
export interface FeedStore {
  /** The state saved last, or undefined when there is none. */
  load(): Promise<StoredFeed | undefined>;
  /** Keeps `state` in place of the one saved before. */
  save(state: StoredFeed): Promise<void>;
}

/** The store a feed uses when given none: the state in memory, gone with the process or the page. */
export class MemoryFeedStore implements FeedStore {
  static {
    named(this, 'MemoryFeedStore');
  }

  private state: StoredFeed | undefined;

  /** The state saved last, or undefined. */
  async load(): Promise<StoredFeed | undefined> {
    return this.state;
  }

  /** Keeps `state`. */
  async save(state: StoredFeed): Promise<void> {
    this.state = state;
  }
}

/** What FileFeedStore uses of `node:fs`. */
interface Fs {
  promises: {
    readFile(path: string): Promise<Uint8Array>;
    writeFile(path: string, data: Uint8Array, options: { flush: boolean }): Promise<void>;
    rename(from: string, to: string): Promise<void>;
    rm(path: string, options: { force: boolean }): Promise<void>;
  };
}

/**
 * A store in one file, for Node.js (≥ 20.16), Deno and Bun. The file is the state's other members as one line of
 * JSON, a newline (0x0A), then the filter's bytes. `save` writes a temporary file in the same folder (flushed to
 * disk) and renames it over the file, so the file is always a whole state, the old one or the new one.
 *
 * @example
 * ```ts
 * const feed = await FilterFeed.open({ manifestUrl, store: new FileFeedStore('/var/cache/blocklist.feed') });
 * ```
 */
export class FileFeedStore implements FeedStore {
  static {
    named(this, 'FileFeedStore');
  }

  private readonly fs: Fs;

  /**
   * @param path - the file's path; its folder must exist.
   * @throws FeedError('store') in a runtime without `process.getBuiltinModule('node:fs')` (a browser, Workers).
   */
  constructor(readonly path: string) {
    const fs = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process?.getBuiltinModule?.('node:fs') as Fs | undefined;
    if (fs === undefined) {
      throw new FeedError('FileFeedStore needs node:fs (Node.js ≥ 20.16, Deno, Bun): in pages and workers use IndexedDbFeedStore', 'store');
    }
    this.fs = fs;
  }

  /** The state in the file, or undefined when there is no file. @throws the file system's error, or SyntaxError for a file that is not a state. */
  async load(): Promise<StoredFeed | undefined> {
    let data: Uint8Array;
    try {
      data = await this.fs.promises.readFile(this.path);
    } catch (e) {
      if ((e as { code?: unknown }).code === 'ENOENT') return undefined;
      throw e;
    }
    const end = data.indexOf(10);
    const head = JSON.parse(new TextDecoder().decode(data.subarray(0, end < 0 ? data.length : end)));
    return { ...head, bytes: new Uint8Array(data.subarray(end + 1)) };
  }

  /** Replaces the file with `state`. @throws the file system's error (ENOSPC, EACCES, ...); the file is then as it was. */
  async save({ bytes, ...head }: StoredFeed): Promise<void> {
    const json = new TextEncoder().encode(JSON.stringify(head) + '\n');
    const data = new Uint8Array(json.length + bytes.length);
    data.set(json);
    data.set(bytes, json.length);
    const temp = `${this.path}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await this.fs.promises.writeFile(temp, data, { flush: true });
      await this.fs.promises.rename(temp, this.path);
    } catch (e) {
      await this.fs.promises.rm(temp, { force: true }).catch(() => undefined);
      throw e;
    }
  }
}

/** The result of an IndexedDB request, as a promise. */
function done<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/**
 * A store in IndexedDB, for pages, dedicated and shared workers and extension service workers: the state is one
 * record (key 'state') of the object store 'feed' of the database `databaseName`. IndexedDB writes a record whole or
 * not at all.
 *
 * @example
 * ```ts
 * const feed = await FilterFeed.open({ manifestUrl, store: new IndexedDbFeedStore('blocklist') });
 * ```
 */
export class IndexedDbFeedStore implements FeedStore {
  static {
    named(this, 'IndexedDbFeedStore');
  }

  /** @param databaseName - the database's name; one database per feed. */
  constructor(readonly databaseName = 'cuckoo-wasm-feed') {}

  private async run<T>(mode: IDBTransactionMode, op: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
    const indexedDB = (globalThis as { indexedDB?: IDBFactory }).indexedDB;
    if (indexedDB === undefined) throw new FeedError('IndexedDbFeedStore needs indexedDB, which this realm lacks: in Node.js use FileFeedStore', 'store');
    const open = indexedDB.open(this.databaseName, 1);
    open.onupgradeneeded = () => open.result.createObjectStore('feed');
    const db = await done(open);
    try {
      const tx = db.transaction('feed', mode);
      const result = done(op(tx.objectStore('feed')));
      // A write is kept once its transaction completes (a quota error may abort it after the request succeeded).
      await new Promise((resolve, reject) => {
        tx.oncomplete = resolve;
        tx.onerror = tx.onabort = () => reject(tx.error);
      });
      return await result;
    } finally {
      db.close();
    }
  }

  /** The state saved last, or undefined. @throws IndexedDB's error (a DOMException). */
  async load(): Promise<StoredFeed | undefined> {
    return this.run('readonly', (s) => s.get('state'));
  }

  /** Keeps `state`. @throws IndexedDB's error (QuotaExceededError, ...). */
  async save(state: StoredFeed): Promise<void> {
    await this.run('readwrite', (s) => s.put(state, 'state'));
  }
}
