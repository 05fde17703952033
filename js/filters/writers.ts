/**
 * The full entry's writers, which every family's class there has and the reader's (`cuckoo-wasm/reader`) do not:
 * add, addAll, addUrl, addUrls and diff. They are written once, as {@link WriterMethods}, and
 * {@link installWriters} puts them on each family's class of the full entry, whose interface of the same name
 * extends {@link Writers} for their types. So the reader's bundle holds none of this code, and the full entry's
 * classes extend the reader's (js/filters/read/) with it.
 */
import { Key } from '../common/checks.js';
import { Chunk } from '../common/chunk.js';
import { Status } from '../common/status.js';
import { ArgumentTypeError } from '../common/errors.js';
import { familyOf } from '../registry.js';
import { familyMismatch, patchError, patchInput } from '../patch/patch.js';
import { urlError, withAsciiHost } from '../url/url.js';
import { AddBatch, BatchOps, WasmFilter, foreignBytes, foreignFamily } from './wasm-filter.js';
import { FamilyFilter } from './family-filter.js';
import type { Core } from '../boundary/wasm-core.js';
import { rawBoundary } from '../boundary/load.js';
import type { Handle } from '../boundary/core-types.js';

/** True for a filter of this package (and its module instance); false for anything else, a revoked Proxy too. */
function isFilter(value: unknown): value is WasmFilter {
  try {
    return value instanceof WasmFilter;
  } catch {
    return false;
  }
}

/** The writers' types: each family's class of the full entry has an interface of its name that extends this. */
export interface Writers {
  /**
   * Adds a key (stores its fingerprint; adding a key twice stores it twice, as a cuckoo filter's `count` shows).
   *
   * @param key - a string (UTF-8) or Uint8Array.
   * @returns this filter, like `Set.prototype.add`.
   * @throws FilterFullError if no slot is found: the key is not added and nothing stored is lost.
   * @throws ArgumentTypeError if key is neither a string nor a Uint8Array.
   * @throws FilterDisposedError after dispose().
   * @example
   * ```ts
   * f.add('phish.example').add(new Uint8Array([1, 2, 3]));
   * ```
   */
  add(key: Key): this;

  /**
   * Adds many keys, crossing into WebAssembly once per chunk of up to 8192 keys (and 32K code units).
   * The result is that of `for (const k of keys) add(k)`, whatever the caller's getters, Proxy or
   * iterator do meanwhile (calls on this filter see the keys read before them).
   *
   * @param keys - an iterable or array-like of strings and Uint8Arrays (any realm). An array-like's
   *   `length` is read once; an iterator is read a chunk at a time, and closed once the filter is full.
   *   A Uint8Array key is copied when it is read, so a reader may reuse one buffer for every key.
   * @returns how many keys were added (all of them).
   * @throws FilterFullError when the filter fills up; its `added` says how many keys went in
   *   before (those stay added), the rest were not added.
   * @throws ArgumentTypeError if `keys` is neither, or at the first key that is neither a string nor a
   *   live Uint8Array (every key before it was added).
   * @throws FilterDisposedError after dispose(), also when the caller's code disposes it mid-batch.
   * @example
   * ```ts
   * f.addAll(text.split('\n').filter(Boolean));
   * ```
   */
  addAll(keys: Iterable<Key> | ArrayLike<Key>): number;

  /**
   * Adds a blocklist entry as its one canonical expression (Safe Browsing's
   * "URLs and Hashing"; docs/URLS.md). An entry is a URL (`http://evil.example/a/b`),
   * a host with a path (`evil.example/login/`, which then blocks that folder) or
   * a bare host (`evil.example`, meaning `evil.example/`: the whole site and its
   * subdomains).
   *
   * @returns this filter.
   * @throws InvalidUrlError if the entry cannot be a URL; nothing is added.
   * @throws FilterFullError as {@link add}; ArgumentTypeError if the entry is neither a string
   *   nor a Uint8Array; FilterDisposedError after dispose().
   * @example
   * ```ts
   * f.addUrl('evil.example').addUrl('shared-host.example/~phisher/');
   * ```
   */
  addUrl(entry: Key): this;

  /**
   * Adds many entries as {@link addUrl} does, crossing into WebAssembly once per
   * chunk of entries (read as `addAll` reads keys: any iterable or array-like).
   * @returns how many entries were added (all of them).
   * @throws InvalidUrlError at the first entry that cannot be a URL: its `index` names it, and
   *   the entries before it stay added. FilterFullError, ArgumentTypeError, FilterDisposedError
   *   as for `addAll`.
   */
  addUrls(entries: Iterable<Key> | ArrayLike<Key>): number;

  /**
   * The patch that turns `older`, an earlier (or any other) version of this filter, into this one
   * (docs/FORMAT.md §17): `older.applyPatch(patch)` then makes `older.toBytes()` byte for byte this
   * filter's. Patches chain (day 1 → 2, then 2 → 3), and one diff may span several versions. The
   * patch holds what changed (for 1% of the keys changed, a few percent of {@link byteLength}).
   *
   * @param older - a filter of this class with the same parameters (a growing filter may have
   *   fewer sub-filters), or its `toBytes()` (a Uint8Array of any realm, at any offset, or an ArrayBuffer).
   * @returns the patch, a new Uint8Array the caller owns.
   * @throws FilterFormatError with reason 'patch-family' if `older` is of another family, or differs in
   *   a parameter (the message names it and both values); a format reason if its bytes are not a filter.
   * @throws ArgumentTypeError if `older` is neither a filter of this package nor bytes, or is detached.
   * @throws FilterDisposedError if this filter or `older` was disposed. OutOfMemoryError.
   * @example
   * ```ts
   * const patch = today.diff(yesterdayBytes); // serve it to clients that hold yesterday's filter
   * ```
   */
  diff(older: this | Uint8Array | ArrayBuffer): Uint8Array;
}

/** Where js/testing.ts finds the raw boundary (see {@link installWriters}). @internal */
export const RAW_BOUNDARY: symbol = Symbol.for('cuckoo-wasm.rawBoundary');

/** The writers' code, on the classes' common base; never instantiated. */
abstract class WriterMethods extends FamilyFilter implements Writers {
  /** The raw boundary of this bundle's module, with a filter's handle and export prefix: js/testing.ts's hook. */
  static readonly rawBoundary = () =>
    rawBoundary(
      (filter: WriterMethods) => filter.live(),
      (filter: WriterMethods) => {
        const row = familyOf(filter.familyId);
        if (row === undefined) throw new TypeError(`no family has the id ${filter.familyId}`);
        return row.prefix;
      },
    );

  /** The error of an add that failed with `status` after `added` keys of its batch went in: each family's class gives its own. */
  protected abstract fullError(status: number, added: number): Error;

  /** The error of an add batch that stopped: its refused key's, or the family's full filter's. */
  private static stopped(f: WasmFilter, batch: AddBatch): Error {
    return batch.refused ?? WriterMethods.refusal(f as WriterMethods, batch.status, batch.added);
  }

  /**
   * The error of an add the core refused with `status`: the family's {@link fullError}. A filter of a static family
   * (the registry's `can.add` false) has none: another class's writer called on it (`CuckooFilter.prototype.add.call`)
   * was refused by the core, which adds no key to a built filter.
   */
  private static refusal(f: WriterMethods, status: number, added: number): Error {
    if (typeof f.fullError !== 'function') {
      return new ArgumentTypeError(`a writer was called on a ${familyOf(f.familyId)?.className ?? 'filter'}, which is static: no key is ever added to it`);
    }
    return f.fullError(status, added);
  }

  /** How the family's keys are added: a chunk per crossing, stopping at the first that does not fit. */
  private static readonly keyAddOps: BatchOps = {
    ...WriterMethods.keyOps,
    add: (f, h, chunk, continues, batch) => {
      const w = f as WriterMethods;
      const n = chunk.count; // the crossing empties the chunk
      const added = w.writer.addBatch(w.fx, h, chunk, continues);
      if (added < n) batch.status = w.writer.batchStatus();
      return added;
    },
    stopped: WriterMethods.stopped,
  };

  /** How list entries are added as URLs (urlOps' refusal of a URL too long, and the adds). */
  private static readonly urlAddOps: BatchOps = {
    ...WriterMethods.urlOps,
    add: (f, h, chunk, _continues, batch) => WriterMethods.addUrlChunk(f as WriterMethods, h, chunk, batch),
    stopped: WriterMethods.stopped,
  };

  /** The full module's core, which the full entry's filters hold. */
  private get writer(): Core {
    return this.core as Core;
  }

  add(key: Key): this {
    const r = this.writer.add(this.fx, this.live(), key);
    if (r !== 0) throw WriterMethods.refusal(this, -r, 0);
    return this;
  }

  addAll(keys: Iterable<Key> | ArrayLike<Key>): number {
    const batch = WriterMethods.addKeys(this, keys, WriterMethods.keyAddOps);
    if (batch.full) throw WriterMethods.stopped(this, batch);
    return batch.added;
  }

  addUrl(entry: Key): this {
    const h = this.live();
    const status = withAsciiHost(this.core, (host) => this.writer.urlAdd(this.familyId, h, entry, host));
    if (status === Status.Ok) return this;
    if (status >= Status.UrlEmpty) throw urlError(this.core, status, entry); // no index: not a batch
    throw WriterMethods.refusal(this, status, 0);
  }

  addUrls(entries: Iterable<Key> | ArrayLike<Key>): number {
    const batch = WriterMethods.addKeys(this, entries, WriterMethods.urlAddOps);
    if (batch.full) throw WriterMethods.stopped(this, batch);
    return batch.added;
  }

  /** Adds the keys in order, as a loop of single adds would, a chunk per crossing: how many went in, and why it stopped. */
  private static addKeys(f: WriterMethods, keys: unknown, ops: BatchOps): AddBatch {
    const batch = WriterMethods.batch(ops);
    f.runBatch(keys, batch);
    return batch;
  }

  /** Adds a chunk of URL entries: resumes past an internationalized host, stops at the first refused entry. */
  private static addUrlChunk(f: WriterMethods, handle: Handle, chunk: Chunk, batch: AddBatch): number {
    const n = chunk.count;
    let added = f.writer.urlAddBatch(f.familyId, handle, chunk, 0, n);
    while (added < n) {
      let status = f.writer.batchStatus();
      if (status === Status.UrlNonAsciiHost) {
        const entry = chunk.key(added);
        status = withAsciiHost(f.core, (host) => f.writer.urlAdd(f.familyId, handle, entry, host));
        if (status === Status.Ok) {
          added += 1;
          if (added < n) added += f.writer.urlAddBatch(f.familyId, handle, undefined, added, n);
          continue;
        }
      }
      batch.status = status;
      if (status >= Status.UrlEmpty) batch.refused = urlError(f.core, status, chunk.key(added), batch.added + added);
      break;
    }
    return added;
  }

  diff(older: this | Uint8Array | ArrayBuffer): Uint8Array {
    // Once each: a Proxy's trap runs here. A filter of another copy of the package (the reader entry's) by its bytes.
    const family = isFilter(older) ? older.familyId : foreignFamily(older);
    if (family !== undefined && family !== this.familyId) throw familyMismatch(this.familyId, family);
    const base =
      family === undefined
        ? patchInput(older, 'diff: older', `a ${familyOf(this.familyId)?.className}, or its bytes`)
        : isFilter(older)
          ? older.toBytes()
          : foreignBytes(older);
    const patch = this.writer.patchDiff(base, this.toBytes());
    if (!(patch instanceof Uint8Array)) throw patchError(this.core, patch, 'cannot diff these filters', base.length);
    return patch;
  }
}

/**
 * Puts the writers on a family's class of the full entry (each method that class does not define itself).
 * @internal
 */
export function installWriters(target: { prototype: FamilyFilter }): void {
  copyMethods(target, WriterMethods);
  // The test-only entry (js/testing.ts, dist/testing.mjs) reaches the raw boundary through this symbol of the
  // full entry's classes, so that it shares that bundle's module instance; it is no part of the package's API.
  if (!Object.prototype.hasOwnProperty.call(target, RAW_BOUNDARY)) {
    Object.defineProperty(target, RAW_BOUNDARY, { value: WriterMethods.rawBoundary });
  }
}

/**
 * Copies the methods and accessors `source` itself defines (not those it inherits) onto `target`'s prototype,
 * but those `target` defines itself.
 * @internal
 */
export function copyMethods(target: { prototype: object }, source: { prototype: object }): void {
  const methods = Object.getOwnPropertyDescriptors(source.prototype);
  for (const name of Reflect.ownKeys(methods) as (string | symbol)[]) {
    if (name === 'constructor' || Object.prototype.hasOwnProperty.call(target.prototype, name)) continue;
    Object.defineProperty(target.prototype, name, methods[name as string]);
  }
}
