// The real clients, node-redis v5 (`redis`) and ioredis 5, pulling a RedisBloom filter's SCANDUMP chunks into
// RedisCuckooFilter / RedisBloomFilter and pushing a filter's chunks with LOADCHUNK, as docs/redis.md's "Redis on
// the server, the same filter in the browser" shows: the functions below make the calls of its snippets. No Redis
// server exists on the test machines, so they talk to tests/js/fake-redis.ts, which serves chunks recorded from a real
// server (../shared/redis). The last suite runs the same against a real server when one with the Bloom module can
// be started, and says why it is skipped otherwise.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import Redis from 'ioredis';
import { RESP_TYPES, createClient } from 'redis';
import { RedisBloomFilter, RedisCuckooFilter } from 'cuckoo-wasm';
import { FakeRedis, fixtureChunks, readFixture, startFakeRedis } from './fake-redis';

type NodeRedis = ReturnType<typeof createClient>;
type Pair = [number, Buffer];

// ---- docs/redis.md snippets ------------------------------------------------------------------------------------------

/** node-redis v5: a key's chunks, iterator 0 first, each reply's iterator next, until the server answers 0. */
async function* scanDump(client: NodeRedis, type: 'cf' | 'bf', key: string): AsyncGenerator<Pair> {
  const redis = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }); // chunks as bytes, not text
  for (let it = 0; ; ) {
    const { iterator, chunk } = await redis[type].scanDump(key, it);
    if (iterator === 0) return;
    yield [iterator, chunk as Buffer];
    it = iterator;
  }
}

/** node-redis v5: a filter's chunks into `key` with CF.LOADCHUNK / BF.LOADCHUNK. */
async function loadChunks(client: NodeRedis, key: string, filter: RedisCuckooFilter | RedisBloomFilter): Promise<void> {
  const cmd = filter instanceof RedisCuckooFilter ? client.cf : client.bf;
  for (const [iterator, chunk] of filter.scanDumpChunks()) {
    await cmd.loadChunk(key, iterator, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
}

/** ioredis 5: callBuffer returns blob strings as Buffers (and integers as numbers). */
async function* scanDumpIoredis(redis: Redis, command: 'CF.SCANDUMP' | 'BF.SCANDUMP', key: string): AsyncGenerator<Pair> {
  for (let it = 0; ; ) {
    const [iterator, chunk] = (await redis.callBuffer(command, key, it)) as [number, Buffer | null];
    if (iterator === 0) return;
    yield [iterator, chunk as Buffer];
    it = iterator;
  }
}

async function loadChunksIoredis(redis: Redis, key: string, filter: RedisCuckooFilter | RedisBloomFilter): Promise<void> {
  const command = filter instanceof RedisCuckooFilter ? 'CF.LOADCHUNK' : 'BF.LOADCHUNK';
  for (const [iterator, chunk] of filter.scanDumpChunks()) await redis.call(command, key, iterator, Buffer.from(chunk));
}

// ---- checks ------------------------------------------------------------------------------------------------------

const FIXTURES = ['cf-default', 'cf-grow', 'cf-deletes', 'bf-basic', 'bf-grow', 'bf-nonscaling'];
const classOf = (type: 'CF' | 'BF') => (type === 'CF' ? RedisCuckooFilter : RedisBloomFilter);
const same = (a: [number, Uint8Array][], b: [number, Uint8Array][]) =>
  a.length === b.length && a.every(([i, c], j) => i === b[j][0] && Buffer.compare(Buffer.from(c), Buffer.from(b[j][1])) === 0);

/** The filter answers as the fixture's server did, and dumps the same bytes. */
function expectServersFilter(name: string, filter: RedisCuckooFilter | RedisBloomFilter): void {
  const fixture = readFixture(name);
  expect(same(filter.toScanDump(), fixtureChunks(fixture))).toBe(true);
  const info = filter.info() as unknown as Record<string, unknown>;
  expect(info.numberOfItemsInserted).toBe(fixture.info['Number of items inserted']);
  expect(info.numberOfFilters).toBe(fixture.info['Number of filters']);
}

let fake: FakeRedis;
beforeEach(async () => {
  fake = await startFakeRedis(
    Object.fromEntries(FIXTURES.map((name) => {
      const f = readFixture(name);
      return [name, { type: f.type, chunks: fixtureChunks(f) }];
    })),
  );
});
afterEach(() => fake.close());

describe.each([2, 3] as const)('node-redis v5, RESP%d', (RESP) => {
  let client: NodeRedis;
  beforeEach(async () => {
    client = createClient({ url: fake.url, RESP });
    await client.connect();
  });
  afterEach(() => client.destroy());

  test.each(FIXTURES)('pull %s: the filter answers and dumps as the server', async (name) => {
    const type = readFixture(name).type;
    const filter = await classOf(type).fromScanDump(scanDump(client, type === 'CF' ? 'cf' : 'bf', name));
    try {
      expectServersFilter(name, filter);
      // Its own bytes load in a page the same: toBytes / fromBytes keep every answer.
      const again = await classOf(type).fromBytes(filter.toBytes());
      expect(same(again.toScanDump(), filter.toScanDump())).toBe(true);
      again.dispose();
    } finally {
      filter.dispose();
    }
    const scans = fake.log.filter((c) => c[0].endsWith('.SCANDUMP'));
    const its = [0, ...fixtureChunks(readFixture(name)).map(([i]) => i)];
    expect(scans.map((c) => Number(c[2]))).toEqual(its);
  });

  test('sendCommand with { typeMapping } returns the chunk as bytes (the CLI\'s path)', async () => {
    const reply = (await client.sendCommand(['CF.SCANDUMP', 'cf-default', '1'], { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } })) as [number, Buffer];
    const [iterator, chunk] = fixtureChunks(readFixture('cf-default'))[1];
    expect(reply[0]).toBe(iterator);
    expect(Buffer.isBuffer(reply[1]) && reply[1].equals(chunk)).toBe(true);
  });

  test('without the Buffer type mapping, a chunk comes back as text and its bytes are lost', async () => {
    const { chunk } = await client.cf.scanDump('cf-default', 1);
    expect(typeof chunk).toBe('string');
    const bytes = fixtureChunks(readFixture('cf-default'))[1][1];
    expect(Buffer.from(chunk as string, 'utf8').equals(bytes)).toBe(false);
  });

  test('push: LOADCHUNK takes the chunks of a filter built in Node, which pull back byte for byte', async () => {
    const cf = await RedisCuckooFilter.create({ capacity: 1000, bucketSize: 4 });
    const bf = await RedisBloomFilter.create({ errorRate: 0.01, capacity: 500 });
    try {
      for (let i = 0; i < 3000; ++i) cf.add(`host-${i}.example`); // grows: several sub-filters
      for (let i = 0; i < 2000; ++i) bf.add(`host-${i}.example`);
      expect(cf.subFilterCount).toBeGreaterThan(1);
      expect(bf.subFilterCount).toBeGreaterThan(1);
      await loadChunks(client, 'pushed-cf', cf);
      await loadChunks(client, 'pushed-bf', bf);
      const loads = fake.log.filter((c) => c[0].endsWith('.LOADCHUNK'));
      expect(loads.map((c) => [c[0], c[1], Number(c[2])])).toEqual([
        ...cf.toScanDump().map(([i]) => ['CF.LOADCHUNK', 'pushed-cf', i]),
        ...bf.toScanDump().map(([i]) => ['BF.LOADCHUNK', 'pushed-bf', i]),
      ]);
      const cf2 = await RedisCuckooFilter.fromScanDump(scanDump(client, 'cf', 'pushed-cf'));
      const bf2 = await RedisBloomFilter.fromScanDump(scanDump(client, 'bf', 'pushed-bf'));
      expect(same(cf2.toScanDump(), cf.toScanDump())).toBe(true);
      expect(same(bf2.toScanDump(), bf.toScanDump())).toBe(true);
      expect(cf2.hasAll(['host-0.example', 'host-2999.example'])).toEqual([true, true]);
      cf2.dispose();
      bf2.dispose();
    } finally {
      cf.dispose();
      bf.dispose();
    }
  });
});

describe('ioredis 5 (RESP2)', () => {
  let redis: Redis;
  beforeEach(() => {
    redis = new Redis(fake.url, { maxRetriesPerRequest: 0 });
  });
  afterEach(() => redis.disconnect());

  test.each(FIXTURES)('pull %s with callBuffer: the filter answers and dumps as the server', async (name) => {
    const type = readFixture(name).type;
    const filter = await classOf(type).fromScanDump(scanDumpIoredis(redis, type === 'CF' ? 'CF.SCANDUMP' : 'BF.SCANDUMP', name));
    try {
      expectServersFilter(name, filter);
    } finally {
      filter.dispose();
    }
  });

  test('push with call: the chunks land in order and pull back byte for byte', async () => {
    const cf = await RedisCuckooFilter.create({ capacity: 2000 });
    try {
      cf.addAll(Array.from({ length: 1500 }, (_, i) => `k${i}`));
      await loadChunksIoredis(redis, 'pushed', cf);
      const back = await RedisCuckooFilter.fromScanDump(scanDumpIoredis(redis, 'CF.SCANDUMP', 'pushed'));
      expect(same(back.toScanDump(), cf.toScanDump())).toBe(true);
      back.dispose();
    } finally {
      cf.dispose();
    }
  });

  test('a dump that changed between two SCANDUMP calls is refused, never a wrong filter', async () => {
    // Between the calls a writer grows the filter: the header chunk says 2 sub-filters, the tables are those of 5.
    const grown = fixtureChunks(readFixture('cf-grow'));
    const header = fixtureChunks(readFixture('cf-default'))[0];
    fake.keys.set('changing', { type: 'CF', chunks: [header, ...grown.slice(1)] });
    await expect(RedisCuckooFilter.fromScanDump(scanDumpIoredis(redis, 'CF.SCANDUMP', 'changing'))).rejects.toMatchObject({
      name: 'FilterFormatError',
    });
  });
});

// ---- against a real server ---------------------------------------------------------------------------------------

/** A redis-server that loads RedisBloom (Redis 8 has it built in; else REDISBLOOM_MODULE names the module's .so). */
function realServer(): { argv: string[] } | string {
  const which = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (which.error || which.status !== 0) return 'redis-server is not installed';
  const major = Number(/v=(\d+)/.exec(which.stdout)?.[1] ?? 0);
  if (major >= 8) return { argv: [] };
  const module = process.env.REDISBLOOM_MODULE;
  if (module) return { argv: ['--loadmodule', module] };
  return `redis-server ${major} has no Bloom module built in (Redis 8 has) and REDISBLOOM_MODULE names none`;
}

const server = realServer();
const real = typeof server === 'string' ? describe.skip : describe;
if (typeof server === 'string') {
  // Jest prints skipped tests without a reason: say it once, where the run's output shows it.
  console.warn(`redis-clients.test.ts: the real-server tests are skipped: ${server}; the fake server's recorded chunks carry the byte-level checks`);
}

real(`a real Redis server with RedisBloom${typeof server === 'string' ? ` (skipped: ${server})` : ''}`, () => {
  let port = 0;
  let proc: ReturnType<typeof spawn> | undefined;
  beforeAll(async () => {
    port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const argv = typeof server === 'string' ? [] : server.argv;
    proc = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no', ...argv], { stdio: 'ignore' });
    for (let i = 0; i < 100; ++i) {
      const c = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
      c.on('error', () => undefined);
      try {
        await c.connect();
      } catch {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      const [cfReserve] = (await c.sendCommand(['COMMAND', 'INFO', 'CF.RESERVE'])) as unknown[];
      c.destroy();
      if (cfReserve == null) throw new Error('this redis-server has no CF.* commands: set REDISBLOOM_MODULE to the RedisBloom module (.so) to load');
      return;
    }
    throw new Error('redis-server did not start');
  });
  afterAll(() => proc?.kill());

  test.each(FIXTURES)('%s: LOADCHUNK of the recorded chunks, then SCANDUMP into the filter, is the same filter', async (name) => {
    const fixture = readFixture(name);
    const client = createClient({ url: `redis://127.0.0.1:${port}` });
    await client.connect();
    try {
      const filter = await classOf(fixture.type).fromScanDump(fixtureChunks(fixture));
      await client.del(name);
      await loadChunks(client, name, filter);
      const type = fixture.type === 'CF' ? 'cf' : 'bf';
      const pulled = await classOf(fixture.type).fromScanDump(scanDump(client, type, name));
      expectServersFilter(name, pulled);
      // The server's answers for keys never added agree with the filter's, false positives included.
      const probe = Array.from({ length: 2000 }, (_, i) => `probe-${i}.example`);
      const answers = (await client.sendCommand([`${fixture.type}.MEXISTS`, name, ...probe])) as number[];
      expect(pulled.hasAll(probe)).toEqual(answers.map((a) => a === 1));
      pulled.dispose();
      filter.dispose();
    } finally {
      client.destroy();
    }
  });
});
