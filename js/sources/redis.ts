/**
 * RedisBloom keys as a source of filters, through node-redis (the optional peer `redis`): the connection, one command
 * at a time, a key's family found with TYPE, and {@link pullFilter}, a key's filter read with CF.SCANDUMP /
 * BF.SCANDUMP. What `cuckoo-wasm redis-pull` / `redis-push` (js/cli/redis.ts) and `publish --redis`
 * (js/feed/publish.ts) reach Redis with. Errors: Error, one line, naming what failed.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { FilterFormatError } from '../common/errors.js';
import { FAMILIES, FamilyDescriptor } from '../registry.js';
import { RedisFilter, redisClassOf } from '../filters/classes.js';

/** The few members of a node-redis v5 or v6 client these commands use (the types of the package `redis`). */
export interface NodeRedisClient {
  connect(): Promise<unknown>;
  sendCommand(args: ReadonlyArray<string | Buffer>, options?: { typeMapping?: Record<number, unknown> }): Promise<unknown>;
  on(event: 'error', listener: (e: Error) => void): unknown;
  destroy(): void;
}
interface NodeRedis {
  createClient(options: { url: string; socket: { reconnectStrategy: false; connectTimeout: number } }): NodeRedisClient;
  RESP_TYPES: { BLOB_STRING: number };
}

/** The registry's RedisBloom families, each with its SCANDUMP / LOADCHUNK names (TYPE's answer, CF or BF, ...). */
type Dumped = { family: FamilyDescriptor; type: string; command: string; name: string };
const DUMPED: Dumped[] = FAMILIES.flatMap((family) => (family.can.redisDump ? [{ family, ...family.can.redisDump }] : []));
/** The family of a Redis filter of this library. */
export function dumpedOf(family: FamilyDescriptor | undefined): Dumped | undefined {
  return DUMPED.find((d) => d.family === family);
}
/** --type's values: cf, bf. */
export const TYPE_OPTIONS = DUMPED.map((d) => d.command.toLowerCase());

/** node-redis, from where cuckoo-wasm is installed or else from the current folder. */
function requireRedis(command: string): NodeRedis {
  // __filename: the CommonJS bundles' own path (the ES module bundles have none: the current folder alone).
  for (const from of [...(typeof __filename === 'string' ? [__filename] : []), join(process.cwd(), 'package.json')]) {
    try {
      return createRequire(from)('redis') as NodeRedis;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
    }
  }
  throw new Error(
    `${command} needs the package redis (node-redis v5 or v6), an optional peer dependency of cuckoo-wasm: ` +
      'install it where cuckoo-wasm is installed or in the current folder, e.g. npm install redis@5',
  );
}

export async function connect(command: string, url: string): Promise<{ redis: NodeRedis; client: NodeRedisClient }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${url} is not a URL: give redis://host:port (or rediss:// for TLS)`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new Error(`${url} is not a redis:// or rediss:// URL`);
  }
  const redis = requireRedis(command);
  // One attempt, no reconnecting: a command line tool reports the failure instead of retrying forever.
  const client = redis.createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 10000 } });
  client.on('error', () => {
    // Reported by the command that failed (connect or sendCommand), not as an unhandled 'error' event.
  });
  try {
    await client.connect();
  } catch (e) {
    throw new Error(`cannot connect to ${parsed.host}: ${(e as Error).message}`);
  }
  return { redis, client };
}

/** Sends one command, naming it in the error when the server refuses it. */
export async function send(client: NodeRedisClient, args: (string | Buffer)[], options?: object): Promise<unknown> {
  try {
    return await client.sendCommand(args, options);
  } catch (e) {
    throw new Error(`${args[0]} ${String(args[1])}: the server answered: ${(e as Error).message}`);
  }
}

/** The family TYPE says KEY holds. */
async function keyType(client: NodeRedisClient, key: string): Promise<Dumped> {
  const type = String(await send(client, ['TYPE', key]));
  if (type === 'none') throw new Error(`the server has no key ${key}`);
  const dumped = DUMPED.find((d) => d.type === type);
  if (dumped === undefined) {
    throw new Error(`${key} holds a ${type}, not a RedisBloom cuckoo or Bloom filter (TYPE ${DUMPED.map((d) => d.type).join(' or ')})`);
  }
  return dumped;
}

/**
 * The RedisBloom filter at `key` on the server at `url`, read with CF.SCANDUMP / BF.SCANDUMP (what `redis-pull`
 * writes, and `cuckoo-wasm publish --redis` publishes). `typeOption` is one of {@link TYPE_OPTIONS} ('cf', 'bf'; the caller checks it), found with TYPE when undefined;
 * `command` names the caller in the message when the package redis is missing.
 * @returns The filter (the caller disposes it), how many chunks it came in, and its kind's name ('cuckoo filter'...).
 * @throws Error (one line) when the server cannot be reached, has no such filter, or its chunks make none.
 */
export async function pullFilter(
  url: string,
  key: string,
  typeOption: string | undefined,
  command: string,
): Promise<{ filter: RedisFilter; chunks: number; type: string }> {
  const { redis, client } = await connect(command, url);
  try {
    const type = typeOption === undefined ? await keyType(client, key) : DUMPED[TYPE_OPTIONS.indexOf(typeOption)];
    const scanDump = `${type.command}.SCANDUMP`;
    // Blob strings as Buffers: the default decodes them as UTF-8 text, which would change the bytes.
    const options = { typeMapping: { [redis.RESP_TYPES.BLOB_STRING]: Buffer } };
    const loader = await redisClassOf(type.family).scanDumpLoader();
    let chunks = 0;
    try {
      for (let iterator = 0; ; ) {
        const reply = (await send(client, [scanDump, key, String(iterator)], options)) as [number, Buffer | null];
        if (reply[0] === 0) break;
        loader.push([reply[0], reply[1] ?? Buffer.alloc(0)]);
        chunks += 1;
        iterator = reply[0];
      }
      if (chunks === 0) {
        throw new Error(
          `${key} is an empty ${type.name}: ${scanDump} returns nothing for it, not even its parameters, so there is nothing to write`,
        );
      }
      return { filter: loader.finish(), chunks, type: type.name };
    } catch (e) {
      loader.abort();
      if (!(e instanceof FilterFormatError)) throw e;
      throw new Error(`the chunks of ${key} do not make a filter (${e.message}); if the key was written to while it was read, pull it again`);
    }
  } finally {
    client.destroy();
  }
}
