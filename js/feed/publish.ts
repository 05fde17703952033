/**
 * Publishing a feed (docs/FEED.md §5) in Node.js, Deno or Bun: `publish` reads a list (streamed) or a RedisBloom
 * key, makes the next version's filter from the last one, and writes the full filter, patches from recent versions
 * and a signed manifest into the served folder.
 *
 * Memory stays bounded whatever the list's length: the list is read line by line; entries are sorted in runs
 * written to the state folder, merged (k-way, deduplicated) into one sorted stream (js/sources/sorted-entries.ts, as
 * `cuckoo-wasm build` reads its list), and that is merged against the last version's sorted entries (a file of the state folder) to find what was added and removed.
 * Only the filters and one run are ever in memory.
 *
 * Crash safety (kill -9 at any point): every file is written to a temporary name, flushed (fsync) and renamed;
 * the next state is written as `pending.json` before `manifest.json` is renamed into `out`, the commit point; a run
 * starts by finishing the last one: `pending.json` becomes `meta.json` if `out` serves its manifest, and is dropped if
 * not. A version number is never published with two different filters: a version is only ever numbered above every
 * version `out` or the state has seen.
 *
 * State folder: `meta.json` (the state, {@link StateMeta}), `filter-<V>.bin` (version V's filter bytes, the last
 * keep + 1 versions), `entries-<V>.txt` (version V's distinct entries, sorted by UTF-16 code units, one per line,
 * `\` `\n` `\r` escaped), `lock` (the running publisher's process id), and temporary files of a run.
 */
import type * as NodeFs from 'node:fs';
import type * as NodeCrypto from 'node:crypto';
import type * as NodeBuffer from 'node:buffer';
import type * as NodePath from 'node:path';
import type { KeyObject } from 'node:crypto';
import { CuckooFilter } from '../filters/cuckoo-filter.js';
import { BloomFilter } from '../filters/bloom-filter.js';
import { BinaryFuseFilter } from '../filters/binary-fuse-filter.js';
import { FilterFormatError, FilterFullError, PublishError } from '../common/errors.js';
import { diffBytes } from '../patch/patch.js';
import { MAX_URL_EXPRESSIONS } from '../url/url.js';
import { ListReadError, ListRuns, LineReader, LineWriter, addAllFrom, arraySource, fileSource, mergeSorted, readRuns as readListRuns, unescapeEntry } from '../sources/sorted-entries.js';
import { pullFilter } from '../sources/redis.js';
import { familyOfFilter } from '../filters/classes.js';
import { FEED_FORMAT, FeedFile, FeedManifest, FeedPatch, encodeEnvelope, keyId, parseEnvelope, parseManifest, preAuthEncoding, toBase64 } from './manifest.js';
import type { PublishOptions, PublishResult } from './publish-options.js';

export type { PublishOptions, PublishResult, PublishRedisSource, SigningKeyObject } from './publish-options.js';

/**
 * Node.js's modules publish uses, taken when it is first called (`process.getBuiltinModule`: Node.js, Deno, Bun), not
 * imported: the package's Node.js bundle then loads them only in a process that publishes, and imports in a realm
 * whose Node.js globals are gone (as Deno's and Bun's tests check).
 */
let fs: typeof NodeFs;
let crypto: typeof NodeCrypto;
let buffer: typeof NodeBuffer;
let nodePath: typeof NodePath;

function nodeModules(): void {
  if (fs !== undefined) return;
  const get = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process?.getBuiltinModule;
  if (typeof get !== 'function') {
    throw new PublishError('publish needs process.getBuiltinModule (Node.js 20.16 or later, Deno, Bun) to reach the file system', 'unsupported-runtime');
  }
  fs = get('node:fs') as typeof NodeFs;
  crypto = get('node:crypto') as typeof NodeCrypto;
  buffer = get('node:buffer') as typeof NodeBuffer;
  nodePath = get('node:path') as typeof NodePath;
}

/** A capacity's headroom over the entries when the filter is built: versions can add a quarter and stay patches. */
const HEADROOM = 1.25;
const NAME = /^[A-Za-z0-9._-]{1,128}$/;
const STATE_FORMAT = 'cuckoo-wasm-publish-state/1';

/** The state a run goes on from (state/meta.json), and the next one while it is written (state/pending.json). */
interface StateMeta {
  format: typeof STATE_FORMAT;
  name: string;
  family: string;
  /** The options the filter was built with, as JSON: another value builds the filter again. */
  params: string;
  version: number;
  /** The version at which the current filter was last built (fullOnly): no patch leads from before it. */
  generation: number;
  /** The versions whose filter bytes are in the state folder (filter-<V>.bin), oldest first. */
  filters: number[];
  /** Whether entries-<version>.txt holds the version's entries (a list source). */
  entries: boolean;
  /** The entries' count. */
  count: number;
  /** SHA-256 of the manifest.json text of `version`: `out` serves this state if its manifest.json has it. */
  manifestSha256: string;
  /** The files this version's manifest names, and those the one before named (kept one version more, docs/FEED.md §1). */
  manifestFiles: string[];
  previousFiles: string[];
}

/**
 * Test hook: with CUCKOO_PUBLISH_CRASH_AT=K in the environment, the process kills itself (SIGKILL) at the K-th
 * point where a file was written, renamed or deleted (1-based), as a crash there would. @internal
 */
let crashPoints = 0;
function crashPoint(): void {
  const at = process.env.CUCKOO_PUBLISH_CRASH_AT;
  if (at !== undefined && ++crashPoints === Number(at)) process.kill(process.pid, 'SIGKILL');
}

function fail(message: string, reason: 'options' | 'list' | 'state' | 'signing-key', cause?: unknown): PublishError {
  return new PublishError(message, reason, { cause });
}

/** Writes `data` to `dir/name` whole or not at all: a temporary file of `dir`, flushed, renamed over `name`. */
function writeAtomic(dir: string, name: string, data: Uint8Array | string): void {
  const temp = nodePath.join(dir, `.tmp-${crypto.randomBytes(6).toString('hex')}-${name}`);
  const fd = fs.openSync(temp, 'w');
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at, bytes.length - at);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  crashPoint();
  fs.renameSync(temp, nodePath.join(dir, name));
  crashPoint();
}

/** Flushes a folder's entries (its renames) to disk. */
function syncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function readOptional(path: string): Buffer | undefined {
  try {
    return fs.readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

const sha256 = (bytes: Uint8Array | string) => crypto.createHash('sha256').update(bytes).digest('hex');

/**
 * Reads the list at `path` into sorted runs without repeats (js/sources/sorted-entries.ts): files `run-<i>.tmp` of
 * `dir`, and the last run in memory; its errors as PublishError.
 */
async function readRuns(path: string, options: PublishOptions, dir: string): Promise<ListRuns> {
  try {
    return await readListRuns({ fs, buffer, path: nodePath }, path, { format: options.format, urls: options.urls, dir });
  } catch (e) {
    if (!(e instanceof ListReadError)) throw e;
    switch (e.kind) {
      case 'format':
        throw fail(e.message.replace(/^--format/, 'format'), 'options', e);
      case 'read': {
        const code = (e.cause as NodeJS.ErrnoException).code;
        throw fail(`cannot read the list ${path}: ${code ?? (e.cause as Error).message}`, 'list', e.cause);
      }
      case 'parse':
        throw fail(`${path}: ${e.message}`, 'list', e);
      default:
        throw fail(e.message, 'list', e);
    }
  }
}

type Filter = CuckooFilter | BloomFilter | BinaryFuseFilter;

/** A state file's lines, one at a time (for addAllFrom). */
function linesOf(path: string): () => string | undefined {
  const reader = new LineReader(fs, path);
  return () => reader.next();
}

/** The entries of an entries file, unescaped, one at a time. */
function* entriesOf(path: string): Generator<string> {
  const next = linesOf(path);
  for (let line = next(); line !== undefined; line = next()) yield unescapeEntry(line);
}

/** The list's name from its path: the file name without its extension, other characters than the NAME rule's as `-`. */
function defaultName(from: string): string {
  const base = nodePath.basename(from, nodePath.extname(from)) || nodePath.basename(from);
  const name = base.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 128);
  return name === '' ? 'list' : name;
}

/** The Ed25519 private key of `signingKey`, and its raw 32-byte public key. */
function signingKeyOf(signingKey: NonNullable<PublishOptions['signingKey']>): { key: KeyObject; publicKey: Uint8Array } {
  let key: KeyObject;
  try {
    key = typeof signingKey === 'string' ? crypto.createPrivateKey(fs.readFileSync(signingKey)) : (signingKey as KeyObject);
  } catch (e) {
    throw fail(`cannot read the signing key ${String(signingKey)}: ${(e as Error).message}`, 'signing-key', e);
  }
  if (key.type !== 'private' || key.asymmetricKeyType !== 'ed25519') {
    throw fail(`the signing key is a ${key.asymmetricKeyType ?? 'secret'} ${key.type} key, not an Ed25519 private key: make one with cuckoo-wasm keygen`, 'signing-key');
  }
  const x = crypto.createPublicKey(key).export({ format: 'jwk' }).x!;
  return { key, publicKey: new Uint8Array(Buffer.from(x, 'base64url')) };
}

/** The state folders this process publishes into now (resolved paths): a second run on one of them is refused. */
const lockedHere = new Set<string>();

/**
 * Takes the state folder's lock, or throws if a live process (this one included) holds it; returns its release,
 * which removes the lock only while it is still this run's. A lock left by a publisher that was killed is moved
 * aside under a name of its own before it is removed, so that of two runs that both found it stale, one takes the
 * lock and the other finds the new one.
 */
function lock(state: string): () => void {
  const path = nodePath.join(state, 'lock');
  const here = nodePath.resolve(state);
  if (lockedHere.has(here)) {
    throw fail(`another publish of this process is running on the state folder ${state}: wait for it to end`, 'state');
  }
  const mine = `${process.pid} ${crypto.randomBytes(8).toString('hex')}`;
  for (let attempt = 0; attempt < 3; ++attempt) {
    try {
      const fd = fs.openSync(path, 'wx');
      fs.writeSync(fd, mine);
      fs.closeSync(fd);
      lockedHere.add(here);
      return () => {
        lockedHere.delete(here);
        if (readOptional(path)?.toString() === mine) fs.rmSync(path, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const held = readOptional(path)?.toString() ?? '';
      const pid = Number(held.split(' ')[0]);
      let alive = pid === process.pid;
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid) {
        try {
          process.kill(pid, 0);
          alive = true;
        } catch (k) {
          alive = (k as NodeJS.ErrnoException).code === 'EPERM';
        }
      }
      if (alive) throw fail(`another publish (process ${pid}) is running on the state folder ${state}: wait for it to end (if none is, delete ${path})`, 'state');
      // Left by a publisher that was killed: moved aside only if it is still the lock read above.
      const aside = `${path}.stale-${crypto.randomBytes(8).toString('hex')}`;
      try {
        fs.renameSync(path, aside);
      } catch (r) {
        if ((r as NodeJS.ErrnoException).code !== 'ENOENT') throw r;
        continue;
      }
      if (readOptional(aside)?.toString() !== held) {
        // Another run took the lock between the read and the rename: give it back.
        try {
          fs.linkSync(aside, path);
        } catch {
          // it took the lock again meanwhile
        }
      }
      fs.rmSync(aside, { force: true });
    }
  }
  throw fail(`cannot take the lock ${path}`, 'state');
}

function readMeta(path: string): StateMeta | undefined {
  const bytes = readOptional(path);
  if (bytes === undefined) return undefined;
  const meta = JSON.parse(bytes.toString()) as StateMeta;
  if (meta.format !== STATE_FORMAT) throw fail(`${path} is not a state file of this publisher (format ${String(meta.format)})`, 'state');
  return meta;
}

/** What `out` serves: its manifest.json's text, SHA-256 and manifest (undefined when it has none). */
function served(out: string): { sha256: string; manifest: FeedManifest } | undefined {
  const bytes = readOptional(nodePath.join(out, 'manifest.json'));
  if (bytes === undefined) return undefined;
  try {
    return { sha256: sha256(bytes), manifest: parseManifest(parseEnvelope(bytes.toString()).payload) };
  } catch (e) {
    throw fail(`${nodePath.join(out, 'manifest.json')} is not a feed's manifest (${(e as Error).message}): this folder is not a feed; give another --out`, 'state', e);
  }
}

/** Deletes what neither `meta`, its version before, nor what `out` serves names: `out`'s old filters and patches, the state's old files. */
function cleanUp(out: string, state: string, meta: StateMeta): void {
  const serving = served(out)?.manifest;
  const named = new Set([...meta.manifestFiles, ...meta.previousFiles, 'manifest.json']);
  if (serving !== undefined) for (const f of [serving.full, ...serving.patches]) named.add(f.path);
  for (const file of fs.readdirSync(out)) {
    if (named.has(file) || !/^(full-|patch-|\.tmp-)/.test(file)) continue;
    fs.rmSync(nodePath.join(out, file), { force: true });
    crashPoint();
  }
  const kept = new Set(['meta.json', 'lock', ...meta.filters.map((v) => `filter-${v}.bin`)]);
  if (meta.entries) kept.add(`entries-${meta.version}.txt`);
  for (const file of fs.readdirSync(state)) {
    if (kept.has(file) || !/^(filter-\d+\.bin|entries-\d+\.txt|pending\.json|run-\d+\.tmp|\.tmp-|added\.tmp|entries\.tmp)/.test(file)) continue;
    fs.rmSync(nodePath.join(state, file), { force: true });
    crashPoint();
  }
}

/**
 * Finishes a run that stopped: its pending state is committed when `out` serves its manifest, dropped when not.
 * @returns The state to go on from.
 */
function recover(out: string, state: string): StateMeta | undefined {
  const pending = readMeta(nodePath.join(state, 'pending.json'));
  if (pending !== undefined) {
    if (served(out)?.sha256 === pending.manifestSha256) {
      fs.renameSync(nodePath.join(state, 'pending.json'), nodePath.join(state, 'meta.json'));
      syncDir(state);
      crashPoint();
    } else {
      // Its manifest may have reached clients before a power cut undid the rename: its number is never used again.
      fs.writeFileSync(nodePath.join(state, 'dropped.json'), JSON.stringify({ version: pending.version }));
      fs.rmSync(nodePath.join(state, 'pending.json'));
      crashPoint();
    }
  }
  const meta = readMeta(nodePath.join(state, 'meta.json'));
  if (meta !== undefined) cleanUp(out, state, meta);
  return meta;
}

function checkOptions(o: PublishOptions): void {
  if (typeof o !== 'object' || o === null) throw fail('publish needs an options object: { list or redis, out, state }', 'options');
  if ((o.list === undefined) === (o.redis === undefined)) throw fail('publish needs one source: list (a file) or redis ({ url, key })', 'options');
  if (typeof o.out !== 'string' || o.out === '') throw fail('publish needs out: the served folder', 'options');
  if (typeof o.state !== 'string' || o.state === '') throw fail('publish needs state: the publisher\'s own folder (not served)', 'options');
  const inside = nodePath.relative(nodePath.resolve(o.out), nodePath.resolve(o.state));
  if (inside === '' || (!inside.startsWith('..') && !nodePath.isAbsolute(inside))) {
    throw fail(`state (${o.state}) is out (${o.out}) or inside it: the state holds the list's entries, which must never be served; give a folder outside out`, 'options');
  }
  if (o.name !== undefined && (typeof o.name !== 'string' || !NAME.test(o.name))) throw fail(`name must be 1 to 128 characters of A-Z a-z 0-9 . _ -, got ${JSON.stringify(o.name)}`, 'options');
  if (o.type !== undefined && o.type !== 'cuckoo' && o.type !== 'bloom' && o.type !== 'fuse') throw fail(`type must be 'cuckoo', 'bloom' or 'fuse', got ${JSON.stringify(o.type)}`, 'options');
  if (o.type === 'fuse' && (o.capacity !== undefined || o.expansion !== undefined)) {
    throw fail('capacity and expansion are not for a binary fuse filter (type fuse), which is built for exactly each version\'s entries', 'options');
  }
  const integer = (v: number | undefined, what: string, min: number, max: number) => {
    if (v !== undefined && !(Number.isInteger(v) && v >= min && v <= max)) throw fail(`${what} must be an integer from ${min} to ${max}, got ${String(v)}`, 'options');
  };
  integer(o.keep, 'keep', 0, 1000);
  integer(o.pollSeconds, 'pollSeconds', 1, 2 ** 31 - 1);
  integer(o.capacity, 'capacity', 1, Number.MAX_SAFE_INTEGER);
  integer(o.expansion, 'expansion', 2, 1024);
  for (const [v, what] of [[o.falsePositiveRate, 'falsePositiveRate'], [o.urlFalsePositiveRate, 'urlFalsePositiveRate']] as const) {
    if (v !== undefined && !(typeof v === 'number' && v > 0 && v < 1)) throw fail(`${what} must be a number between 0 and 1, got ${String(v)}`, 'options');
  }
  if (o.urlFalsePositiveRate !== undefined && (!o.urls || o.falsePositiveRate !== undefined)) {
    throw fail(o.urls ? 'give falsePositiveRate or urlFalsePositiveRate, not both' : 'urlFalsePositiveRate is for URL lists: add urls: true', 'options');
  }
  if (o.type === 'fuse') {
    // A binary fuse filter's rate is 2^-f for f up to 16: checked here, before the list is read.
    const perKey = o.urlFalsePositiveRate !== undefined ? 1 - (1 - o.urlFalsePositiveRate) ** (1 / MAX_URL_EXPRESSIONS) : o.falsePositiveRate;
    if (perKey !== undefined && perKey < 2 ** -16) {
      const given = o.urlFalsePositiveRate !== undefined ? `urlFalsePositiveRate ${o.urlFalsePositiveRate} needs a per-key rate of ${perKey.toPrecision(3)}, which is` : `falsePositiveRate ${perKey} is`;
      throw fail(`${given} below 2^-16, the rate of 16-bit fingerprints, the most a binary fuse filter (type fuse) takes`, 'options');
    }
  }
  if (o.redis !== undefined && (o.type !== undefined || o.falsePositiveRate !== undefined || o.capacity !== undefined || o.expansion !== undefined || o.urls || o.format !== undefined)) {
    throw fail('a Redis source is published as the server holds it: type, falsePositiveRate, capacity, expansion, urls and format are for lists', 'options');
  }
}

/**
 * Publishes the next version of a feed (docs/FEED.md §5): reads the list (or the Redis key), and when it changed
 * writes into `out` the new full filter, a patch from each of the last `keep` versions built with the same
 * parameters, and `manifest.json` last (signed with `signingKey` if given). A cuckoo filter is the last version's
 * with the entries removed deleted and the new ones added (patches stay small); when it fills up it is built again
 * for entries × 1.25 and published `fullOnly`. A Bloom filter only gains entries: a removal builds it again (`fullOnly`).
 * A binary fuse filter (type 'fuse') is static: every version is built again and published `fullOnly` (a rebuild
 * moves most values of its table, so a patch would be nearly as large as the filter: bench/results/fuse.md).
 * A Redis filter is published as the server holds it; a version whose parameters differ is `fullOnly`.
 * An unchanged list publishes nothing (`published: false`; nothing in `out` is written).
 *
 * A crash at any point (kill -9, a power cut) leaves `out` serving the previous version or the new one, complete, and
 * the next run goes on correctly; two runs on one state folder at once are refused.
 *
 * @returns What was published (see {@link PublishResult}).
 * @throws PublishError with reason 'options', 'list' (the message names the line), 'state' (another feed's
 *   folders, a publish already running) or 'signing-key'; ArgumentRangeError for a capacity or rate no filter can
 *   have; FilterFullError when `capacity` is given, too small for the list, and the filter does not grow; the
 *   file system's errors (ENOSPC...), after which `out` still serves the previous version.
 * @example
 * ```ts
 * const r = await publish({ list: 'blocklist.txt', out: 'public/feed', state: '.feed-state', signingKey: 'feed.key' });
 * console.log(r.published ? `version ${r.version}: +${r.added} −${r.removed}` : 'unchanged');
 * ```
 */
export async function publish(options: PublishOptions): Promise<PublishResult> {
  nodeModules();
  checkOptions(options);
  const { out, state } = options;
  const name = options.name ?? defaultName(options.list ?? options.redis!.key);
  const signer = options.signingKey === undefined ? undefined : signingKeyOf(options.signingKey);
  fs.mkdirSync(out, { recursive: true });
  fs.mkdirSync(state, { recursive: true });
  const release = lock(state);
  try {
    return await publishLocked(options, name, signer);
  } finally {
    release();
  }
}

async function publishLocked(options: PublishOptions, name: string, signer: ReturnType<typeof signingKeyOf> | undefined): Promise<PublishResult> {
  const { out, state } = options;
  const keep = options.keep ?? 10;
  const type = options.type ?? 'cuckoo';
  const fpr =
    options.urlFalsePositiveRate !== undefined ? 1 - (1 - options.urlFalsePositiveRate) ** (1 / MAX_URL_EXPRESSIONS) : (options.falsePositiveRate ?? 0.001);
  const params = JSON.stringify(
    options.redis !== undefined
      ? { source: 'redis' }
      : { source: 'list', type, fpr, capacity: options.capacity ?? null, expansion: options.expansion ?? 0, urls: options.urls === true },
  );

  const previous = recover(out, state);
  const now = served(out);
  if (now !== undefined && now.manifest.name !== name) {
    throw fail(`${out} serves the feed "${now.manifest.name}", not "${name}": a folder holds one feed; give its name, or another --out`, 'state');
  }
  if (previous !== undefined && previous.name !== name) {
    throw fail(`${state} holds the state of the feed "${previous.name}", not "${name}": give its name, or another --state`, 'state');
  }
  // The state goes on from what `out` serves only when `out` serves its manifest; else the next version is built
  // anew, numbered above both.
  const base = previous !== undefined && now?.sha256 === previous.manifestSha256 ? previous : undefined;
  const sameParams = base !== undefined && base.params === params;
  const dropped = Number(JSON.parse(readOptional(nodePath.join(state, 'dropped.json'))?.toString() ?? '{}').version ?? 0);
  const lastVersion = Math.max(previous?.version ?? 0, now?.manifest.version ?? 0, Number.isSafeInteger(dropped) ? dropped : 0);
  const version = lastVersion + 1;
  for (const file of fs.readdirSync(state)) if (/^(run-\d+\.tmp|added\.tmp|entries\.tmp|\.tmp-)/.test(file)) fs.rmSync(nodePath.join(state, file), { force: true });

  let bytes: Uint8Array;
  let family: string;
  let fullOnly: boolean;
  let added = 0;
  let removed = 0;
  let count = 0;
  let report: string[] = [];
  const entriesTemp = nodePath.join(state, 'entries.tmp');

  if (options.redis !== undefined) {
    const { filter } = await pullFilter(options.redis.url, options.redis.key, options.redis.type, 'publish --redis');
    try {
      bytes = filter.toBytes();
      family = familyOfFilter(filter).className;
      count = filter.size;
    } finally {
      filter.dispose();
    }
    const old = sameParams ? readOptional(nodePath.join(state, `filter-${base.version}.bin`)) : undefined;
    if (old !== undefined && base !== undefined && base.family === family && Buffer.from(bytes).equals(old)) return unchanged(base, now!);
    const delta = count - (base?.count ?? 0);
    added = Math.max(0, delta);
    removed = Math.max(0, -delta);
    fullOnly = old === undefined || base?.family !== family;
    if (!fullOnly) {
      try {
        await diffBytes(old!, bytes);
      } catch (e) {
        if (!(e instanceof FilterFormatError && e.reason === 'patch-family')) throw e;
        fullOnly = true;
      }
    }
  } else {
    const { runs, last, report: listReport } = await readRuns(options.list!, options, state);
    report = listReport;
    const next = mergeSorted([...runs.map((run) => fileSource(fs, run)), arraySource(last)]);
    const writer = new LineWriter(fs, entriesTemp);
    const oldEntries = sameParams && base.entries ? nodePath.join(state, `entries-${base.version}.txt`) : undefined;
    const oldFilter = oldEntries !== undefined ? readOptional(nodePath.join(state, `filter-${base!.version}.bin`)) : undefined;
    // The last version's filter, changed in place: entries removed are deleted as the merge finds them, entries
    // added are kept in a file and added after (so that the deletes make room first).
    // A binary fuse filter is static: every version is built again from its entries.
    let filter: Filter | undefined;
    let rebuild = oldFilter === undefined || type === 'fuse';
    if (oldFilter !== undefined && type !== 'fuse') filter = type === 'bloom' ? await BloomFilter.fromBytes(oldFilter) : await CuckooFilter.fromBytes(oldFilter);
    try {
      if (oldFilter === undefined) {
        for (let line = next(); line !== undefined; line = next()) {
          writer.write(line);
          count += 1;
        }
        added = count;
      } else {
        const addedWriter = new LineWriter(fs, nodePath.join(state, 'added.tmp'));
        const old = fileSource(fs, oldEntries!);
        let line = next();
        while (line !== undefined || old.head !== undefined) {
          if (old.head === undefined || (line !== undefined && line < old.head)) {
            addedWriter.write(line!);
            writer.write(line!);
            added += 1;
            count += 1;
            line = next();
          } else if (line === undefined || old.head < line) {
            removed += 1;
            if (filter instanceof CuckooFilter) filter.delete(unescapeEntry(old.head));
            else rebuild = true;
            old.advance();
          } else {
            writer.write(line);
            count += 1;
            line = next();
            old.advance();
          }
        }
        addedWriter.close(false);
      }
      writer.close(true);
      for (const run of runs) fs.rmSync(run, { force: true });
      if (count === 0 && options.allowEmpty !== true) {
        fs.rmSync(entriesTemp, { force: true });
        fs.rmSync(nodePath.join(state, 'added.tmp'), { force: true });
        throw fail(
          `${options.list} has no entries, so nothing was published (a list that failed to download would empty every client's filter): give allowEmpty (--allow-empty) to publish an empty filter`,
          'list',
        );
      }
      if (base !== undefined && sameParams && added === 0 && removed === 0) {
        fs.rmSync(entriesTemp, { force: true });
        fs.rmSync(nodePath.join(state, 'added.tmp'), { force: true });
        return unchanged(base, now!, report);
      }
      if (!rebuild && filter !== undefined && !(filter instanceof BinaryFuseFilter)) {
        // A Bloom filter that does not grow is built again rather than filled past its capacity.
        if (filter instanceof BloomFilter && filter.expansion === 0 && filter.size + added > filter.capacity) rebuild = true;
        else {
          try {
            addAllFrom(filter, linesOf(nodePath.join(state, 'added.tmp')));
          } catch (e) {
            if (!(e instanceof FilterFullError)) throw e;
            rebuild = true;
          }
        }
      }
      fs.rmSync(nodePath.join(state, 'added.tmp'), { force: true });
      if (rebuild) {
        filter?.dispose();
        filter = undefined;
        // The capacity given, unless the list has outgrown it (the filter is built again because it filled up).
        const wanted = Math.max(1, Math.ceil(count * HEADROOM));
        const capacity = options.capacity !== undefined && (base === undefined || !sameParams || options.capacity >= count) ? options.capacity : wanted;
        if (type === 'fuse') {
          filter = await BinaryFuseFilter.build(entriesOf(entriesTemp), { falsePositiveRate: fpr });
        } else {
          filter =
            type === 'bloom'
              ? await BloomFilter.create({ capacity, falsePositiveRate: fpr, expansion: options.expansion })
              : await CuckooFilter.create({ capacity, falsePositiveRate: fpr, expansion: options.expansion });
          addAllFrom(filter, linesOf(entriesTemp));
        }
      }
      bytes = filter!.toBytes();
      family = familyOfFilter(filter!).className;
      fullOnly = rebuild;
    } finally {
      filter?.dispose();
    }
  }

  // The new version's state files, under its number (nothing names them until pending.json does).
  writeAtomic(state, `filter-${version}.bin`, bytes);
  if (options.list !== undefined) {
    fs.renameSync(entriesTemp, nodePath.join(state, `entries-${version}.txt`));
    crashPoint();
  }
  // The served files, then the manifest.
  const fileOf = (prefix: string, data: Uint8Array): FeedFile => {
    const hash = sha256(data);
    const path = `${prefix}-${hash}.bin`;
    writeAtomic(out, path, data);
    return { path, size: data.length, sha256: hash };
  };
  const full = fileOf('full', bytes);
  const generation = fullOnly ? version : base!.generation;
  const patches: FeedPatch[] = [];
  if (!fullOnly) {
    const froms = base!.filters.filter((v) => v >= generation && v >= version - keep).sort((a, b) => b - a);
    for (const from of froms) {
      const older = readOptional(nodePath.join(state, `filter-${from}.bin`));
      if (older === undefined) continue;
      let patch: Uint8Array;
      try {
        patch = await diffBytes(older, bytes);
      } catch (e) {
        if (e instanceof FilterFormatError && e.reason === 'patch-family') continue;
        throw e;
      }
      patches.push({ from, ...fileOf(`patch-${from}`, patch) });
    }
  }
  // No patch leads here (keep 0, or none of the kept versions has this filter's parameters): clients download full.
  if (patches.length === 0) fullOnly = true;
  const manifest: FeedManifest = {
    format: FEED_FORMAT,
    name,
    version,
    family,
    published: (options.now ?? new Date()).toISOString(),
    pollSeconds: options.pollSeconds ?? 300,
    full,
    fullOnly,
    patches,
  };
  const payload = new TextEncoder().encode(JSON.stringify(manifest));
  const signatures = signer === undefined ? [] : [{ keyid: await keyId(signer.publicKey), sig: toBase64(crypto.sign(null, preAuthEncoding(payload), signer.key)) }];
  const envelope = encodeEnvelope(payload, signatures);
  const kept = [...(base?.filters ?? []).filter((v) => v >= generation && v >= version - keep), version];
  const next: StateMeta = {
    format: STATE_FORMAT,
    name,
    family,
    params,
    version,
    generation,
    filters: kept,
    entries: options.list !== undefined,
    count,
    manifestSha256: sha256(envelope),
    manifestFiles: [full.path, ...patches.map((p) => p.path)],
    previousFiles: now === undefined ? [] : [now.manifest.full.path, ...now.manifest.patches.map((p) => p.path)],
  };
  syncDir(state);
  syncDir(out);
  writeAtomic(state, 'pending.json', JSON.stringify(next));
  syncDir(state);
  // The commit point: from this rename on, `out` serves the new version.
  writeAtomic(out, 'manifest.json', envelope);
  syncDir(out);
  fs.renameSync(nodePath.join(state, 'pending.json'), nodePath.join(state, 'meta.json'));
  crashPoint();
  syncDir(state);
  cleanUp(out, state, next);
  return { published: true, name, version, family, fullOnly, added, removed, entries: count, full, patches, report };
}

/** The result of a run that found nothing new: what `out` serves. */
function unchanged(base: StateMeta, now: { manifest: FeedManifest }, report: string[] = []): PublishResult {
  const m = now.manifest;
  return { published: false, name: m.name, version: m.version, family: m.family, fullOnly: m.fullOnly, added: 0, removed: 0, entries: base.count, full: m.full, patches: m.patches, report };
}
