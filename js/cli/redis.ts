/**
 * The `cuckoo-wasm` commands that talk to a Redis server, and what `query` and `info` need for the files they write:
 *   cuckoo-wasm redis-pull URL KEY -o FILE [--type cf|bf]
 *   cuckoo-wasm redis-push FILE URL KEY [--replace]
 * A pull reads the key's chunks with CF.SCANDUMP / BF.SCANDUMP (iterator 0, then each reply's iterator, until the
 * server answers iterator 0) into a RedisCuckooFilter / RedisBloomFilter and writes its toBytes() (this library's
 * format, docs/FORMAT.md, family byte 3 or 4); a push sends such a file's toScanDump() chunks with CF.LOADCHUNK /
 * BF.LOADCHUNK. The client is node-redis v5 or v6 (the package `redis`), an optional peer dependency: only these two
 * commands load it, from where cuckoo-wasm is installed or else from the current folder.
 * Errors: thrown as Error (one line; the caller prints it and exits with code 1).
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FilterFormatError, RedisCuckooFilter } from '../index.js';
import { outputName, reporter, writeOutput } from './files.js';
import { familyOf } from '../registry.js';
import { RedisFilter, classOf, familyOfFilter, redisClassOf } from '../filters/classes.js';
import { TYPE_OPTIONS, connect, dumpedOf, pullFilter, send } from '../sources/redis.js';

export const REDIS_USAGE = `
  cuckoo-wasm redis-pull URL KEY -o FILE [--type cf|bf]
      reads the RedisBloom filter at KEY (CF.SCANDUMP / BF.SCANDUMP) from the server at URL
      (redis://[[user]:password@]host[:port][/db], or rediss:// for TLS) and writes it to FILE
      in this library's format: query and info read it, and RedisCuckooFilter.fromBytes /
      RedisBloomFilter.fromBytes load it in a page, answering exactly as CF.EXISTS / BF.EXISTS.
      Keys deleted on the server are gone from FILE as from the server (compactions included), and
      info FILE shows the cuckoo filter's delete count.
      --type is found with TYPE when omitted. Needs the package redis (node-redis v5 or v6)
  cuckoo-wasm redis-push FILE URL KEY [--replace]
      loads a RedisBloom filter FILE (from redis-pull, or toBytes() of RedisCuckooFilter /
      RedisBloomFilter) into KEY with CF.LOADCHUNK / BF.LOADCHUNK. KEY must not exist, unless
      --replace is given (it is deleted first). A cuckoo filter keeps its delete count and
      sub-filters, so the server's next CF.DEL compacts it when the filter's own would have.
      Needs the package redis (node-redis v5 or v6)`;

/** A mistake in a command's arguments: its message is followed by a pointer to --help (js/cli/main.ts). */
export class UsageError extends Error {}

export type { RedisFilter };

async function pull(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { output: { type: 'string', short: 'o' }, type: { type: 'string' } },
  });
  if (positionals.length !== 2) throw new UsageError('redis-pull takes a URL and a KEY');
  if (!values.output) throw new UsageError('redis-pull needs -o FILE');
  const [url, key] = positionals;
  if (values.type !== undefined && !TYPE_OPTIONS.includes(values.type)) {
    throw new UsageError(`--type must be ${TYPE_OPTIONS.join(' or ')}, got "${values.type}"`);
  }
  const { filter, chunks, type } = await pullFilter(url, key, values.type, 'redis-pull');
  try {
    const bytes = filter.toBytes();
    await writeOutput(values.output, bytes, 'filter');
    const say = reporter(values.output);
    const info = filter.info();
    say(`pulled:              ${key}, a RedisBloom ${type}, in ${chunks} chunks`);
    say(`items:               ${info.numberOfItemsInserted}`);
    say(`sub-filters:         ${info.numberOfFilters}`);
    say(`bytes:               ${bytes.length}`);
    say(`wrote ${outputName(values.output)}`);
  } finally {
    filter.dispose();
  }
}

async function push(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { replace: { type: 'boolean' } } });
  if (positionals.length !== 3) throw new UsageError('redis-push takes a FILE, a URL and a KEY');
  const [path, url, key] = positionals;
  const filter = await loadRedisFile(path);
  if (filter === undefined) {
    throw new Error(
      `${path} is not a RedisBloom filter of this library (family 3 or 4, docs/FORMAT.md): only files from redis-pull, or toBytes() of RedisCuckooFilter / RedisBloomFilter, can be loaded into Redis`,
    );
  }
  try {
    const type = dumpedOf(familyOfFilter(filter))!;
    // One chunk at a time: a filter of up to 1 GiB is never held twice.
    const chunks = filter.scanDumpChunks();
    const first = chunks.next();
    if (first.done) {
      throw new Error(`${path} is an empty ${type.name}: the server dumps such a filter as nothing, so there is nothing to load`);
    }
    const { client } = await connect('redis-push', url);
    try {
      const exists = Number(await send(client, ['EXISTS', key]));
      if (exists !== 0 && values.replace !== true) throw new Error(`${key} already exists on the server: give --replace to delete it first`);
      if (exists !== 0) await send(client, ['DEL', key]);
      const command = `${type.command}.LOADCHUNK`;
      let bytes = 0;
      let count = 0;
      try {
        for (let next: IteratorResult<[number, Uint8Array]> = first; !next.done; next = chunks.next()) {
          const [iterator, chunk] = next.value;
          await send(client, [command, key, String(iterator), Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)]);
          bytes += chunk.byteLength;
          count += 1;
        }
      } catch (e) {
        // A filter loaded in part would miss keys it holds: take it away again.
        if (count === 0) throw e;
        await send(client, ['DEL', key]).catch(() => undefined);
        throw new Error(`${(e as Error).message}; ${key}, loaded in part (${count} chunks), was deleted again`);
      }
      console.log(`pushed:              ${path} to ${key}, a RedisBloom ${type.name}, in ${count} chunks (${bytes} bytes)`);
      if (type.command === 'CF') {
        process.stderr.write(
          'cuckoo-wasm: note: RedisBloom up to 8.8.x does not replicate CF.LOADCHUNK\'s table chunks to replicas or the AOF (MOD-16050): after a failover or a restart from the AOF the key is an empty filter\n',
        );
      }
    } finally {
      client.destroy();
    }
  } finally {
    filter.dispose();
  }
}

/**
 * Runs `redis-pull` or `redis-push`.
 * @throws UsageError for arguments that do not fit the command; Error (one line) for anything else.
 */
export function redisCommand(command: 'redis-pull' | 'redis-push', args: string[]): Promise<void> {
  return command === 'redis-pull' ? pull(args) : push(args);
}

/** The family byte of a version-4 file of this library (docs/FORMAT.md §14.2), or undefined. */
function peekFamily(path: string): number | undefined {
  const head = Buffer.alloc(8);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined; // the caller's own read reports it
  }
  try {
    if (readSync(fd, head, 0, 8, 0) < 8) return undefined;
  } catch {
    return undefined; // a directory, say: the caller's own read reports it, naming the path
  } finally {
    closeSync(fd);
  }
  return head.toString('latin1', 0, 4) === 'CKOO' && head.readUInt16LE(4) === 4 ? head[6] : undefined;
}

/**
 * The filter in `path` when it is a RedisBloom filter of this library (family 3 or 4), else undefined.
 * @throws Error naming the file when its bytes are refused (FilterFormatError's message).
 */
export async function loadRedisFile(path: string): Promise<RedisFilter | undefined> {
  const family = peekFamily(path);
  const dumped = family === undefined ? undefined : dumpedOf(familyOf(family));
  if (dumped === undefined) return undefined;
  try {
    return await redisClassOf(dumped.family).fromBytes(readFileSync(path));
  } catch (e) {
    throw new Error(`${path}: ${(e as Error).message}`);
  }
}

/**
 * `info FILE` for a RedisBloom filter file: the fields CF.INFO / BF.INFO would show for it on the server, then
 * this library's view (its file's size); any other file goes to `otherwise` (the command's usual path).
 */
export async function redisInfo(args: string[], otherwise: (args: string[]) => Promise<void>): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const filter = positionals.length === 1 ? await loadRedisFile(positionals[0]) : undefined;
  if (filter === undefined) return otherwise(args);
  try {
    const rows: [string, string | number][] = [['type', filter instanceof RedisCuckooFilter ? 'redis-cuckoo (RedisBloom CF)' : 'redis-bloom (RedisBloom BF)']];
    // CF.INFO / BF.INFO's labels, in the server's order.
    const labels: [string, string][] =
      filter instanceof RedisCuckooFilter
        ? [['size', 'Size'], ['numberOfBuckets', 'Number of buckets'], ['numberOfFilters', 'Number of filters'],
           ['numberOfItemsInserted', 'Number of items inserted'], ['numberOfItemsDeleted', 'Number of items deleted'],
           ['bucketSize', 'Bucket size'], ['expansionRate', 'Expansion rate'], ['maxIterations', 'Max iterations']]
        : [['capacity', 'Capacity'], ['size', 'Size'], ['numberOfFilters', 'Number of filters'],
           ['numberOfItemsInserted', 'Number of items inserted'], ['expansionRate', 'Expansion rate']];
    const info = filter.info() as unknown as Record<string, number | null>;
    for (const [field, label] of labels) rows.push([label, info[field] === null ? 'none (NONSCALING)' : String(info[field])]);
    const bytes = filter.byteLength;
    const rate = filter.falsePositiveRate.toPrecision(3);
    rows.push(
      ['false-positive rate', filter instanceof RedisCuckooFilter ? `at most ${rate} (8-bit fingerprints: 2b/255 per sub-filter)` : `sized for ${rate} (BF.RESERVE's error rate)`],
      ['format version', 4],
      ['bytes (this file)', bytes],
      ['bits per item', ((bytes * 8) / Math.max(1, filter.size)).toFixed(2)],
    );
    for (const [k, v] of rows) console.log(`${`${k}:`.padEnd(26)}${v}`);
  } finally {
    filter.dispose();
  }
}
