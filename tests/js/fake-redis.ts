// A fake Redis server for the client and CLI tests: no Redis server exists on the test machines. It speaks RESP2,
// and RESP3 after `HELLO 3`, over node:net, and answers what node-redis v5 and ioredis 5 send when they connect
// (HELLO, CLIENT SETINFO, SELECT, INFO for ioredis's ready check, PING, QUIT) and what pulling and pushing a
// RedisBloom filter takes: TYPE, EXISTS, DEL, CF.SCANDUMP / BF.SCANDUMP (each reply an array [iterator, blob], and
// [0, null] after the last chunk or for a filter that dumps nothing, as the server answers) and CF.LOADCHUNK /
// BF.LOADCHUNK (+OK; the chunks are kept as sent, so a key pushed is a key that can be pulled again). The chunks
// of a key come from a fixture of ../shared/redis (or its copy under tests/), recorded from a real server. It keeps
// bytes, not filters: it checks no chunk's contents, only that LOADCHUNK's iterators follow the dump's rule. Error
// texts other than WRONGTYPE are this fake's own wording (the callers under test only need an error reply), and a
// LOADCHUNK at iterator 1 onto a key that exists is refused here (what the real server does then is not pinned).
import { readFileSync } from 'node:fs';
import { AddressInfo, Server, Socket, createServer } from 'node:net';
import { join } from 'node:path';

/** A key as the fake server holds it: a RedisBloom filter's SCANDUMP chunks, or a plain string. */
export type FakeValue = { type: 'CF' | 'BF'; chunks: [number, Buffer][] } | { type: 'string'; value: Buffer };

/** A fixture of ../shared/redis: the filter's type, and its chunks as `[iterator, base64]`. */
export interface RedisFixture {
  type: 'CF' | 'BF';
  reserve: string;
  chunks: [number, string][];
  info: Record<string, number | null>;
  probes: { members: number; nonMembers: number; memberAnswers: string; nonMemberAnswers: string };
}

/** Where the recorded filters are: the shared folder, or the copies a fresh clone has under tests/fixtures/redis. */
export function fixtureDir(): string {
  for (const dir of [join(__dirname, '..', '..', '..', 'shared', 'redis'), join(__dirname, '..', 'fixtures', 'redis')]) {
    try {
      readFileSync(join(dir, 'cf-default.json'));
      return dir;
    } catch {
      // next
    }
  }
  throw new Error('no Redis fixtures: neither ../shared/redis nor tests/fixtures/redis holds cf-default.json');
}

export function readFixture(name: string): RedisFixture {
  return JSON.parse(readFileSync(join(fixtureDir(), `${name}.json`), 'utf8')) as RedisFixture;
}

/** A fixture's chunks as SCANDUMP returns them: `[iterator, bytes]`. */
export function fixtureChunks(f: RedisFixture): [number, Buffer][] {
  return f.chunks.map(([it, b64]) => [it, Buffer.from(b64, 'base64')]);
}

export interface FakeRedis {
  /** `redis://127.0.0.1:PORT` */
  url: string;
  port: number;
  /** The keys; tests may read and change them. */
  keys: Map<string, FakeValue>;
  /** Every command received, its arguments as strings (binary chunks as `<N bytes>`), in order. */
  log: string[][];
  /** When set, a LOADCHUNK it returns a message for is answered with that error (to test a failed push). */
  refuseLoadChunk?: (key: string, iterator: number) => string | undefined;
  close(): Promise<void>;
}

const CRLF = '\r\n';
const WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value';

/** Reads RESP requests (arrays of bulk strings, as clients send them) from a byte stream. */
class RequestReader {
  private buf: Buffer = Buffer.alloc(0);

  push(data: Buffer): Buffer[][] {
    this.buf = this.buf.length === 0 ? data : Buffer.concat([this.buf, data]);
    const out: Buffer[][] = [];
    for (;;) {
      const parsed = this.parse();
      if (parsed === undefined) return out;
      out.push(parsed);
    }
  }

  private line(at: number): [string, number] | undefined {
    const end = this.buf.indexOf(CRLF, at);
    return end < 0 ? undefined : [this.buf.toString('latin1', at, end), end + 2];
  }

  private parse(): Buffer[] | undefined {
    const head = this.line(0);
    if (head === undefined) return undefined;
    let [text, at] = head;
    if (text[0] !== '*') {
      // An inline command (telnet style).
      this.buf = this.buf.subarray(at);
      return text.trim().split(/\s+/).filter(Boolean).map((s) => Buffer.from(s));
    }
    const n = Number(text.slice(1));
    const args: Buffer[] = [];
    for (let i = 0; i < n; ++i) {
      const len = this.line(at);
      if (len === undefined) return undefined;
      const size = Number(len[0].slice(1));
      if (len[1] + size + 2 > this.buf.length) return undefined;
      args.push(Buffer.from(this.buf.subarray(len[1], len[1] + size)));
      at = len[1] + size + 2;
    }
    this.buf = this.buf.subarray(at);
    return args;
  }
}

type Reply = { simple: string } | { error: string } | number | Buffer | string | null | Reply[] | { map: [string, Reply][] };

function encode(r: Reply, resp3: boolean): Buffer {
  if (r === null) return Buffer.from(resp3 ? `_${CRLF}` : `$-1${CRLF}`);
  if (typeof r === 'number') return Buffer.from(`:${r}${CRLF}`);
  if (typeof r === 'string') r = Buffer.from(r);
  if (Buffer.isBuffer(r)) return Buffer.concat([Buffer.from(`$${r.length}${CRLF}`), r, Buffer.from(CRLF)]);
  if (Array.isArray(r)) return Buffer.concat([Buffer.from(`*${r.length}${CRLF}`), ...r.map((x) => encode(x, resp3))]);
  if ('simple' in r) return Buffer.from(`+${r.simple}${CRLF}`);
  if ('error' in r) return Buffer.from(`-${r.error}${CRLF}`);
  const pairs = r.map.flatMap(([k, v]) => [k, v] as Reply[]);
  if (!resp3) return encode(pairs, false);
  return Buffer.concat([Buffer.from(`%${r.map.length}${CRLF}`), ...pairs.map((x) => encode(x, true))]);
}

const OK: Reply = { simple: 'OK' };

/**
 * Starts the fake server on 127.0.0.1 at a free port.
 * @param keys the keys it starts with (e.g. `{ blocklist: { type: 'CF', chunks: fixtureChunks(readFixture('cf-b4')) } }`).
 */
export async function startFakeRedis(keys: Record<string, FakeValue> = {}): Promise<FakeRedis> {
  const store = new Map(Object.entries(keys));
  const log: string[][] = [];
  const sockets = new Set<Socket>();
  const fake: FakeRedis = {
    url: '',
    port: 0,
    keys: store,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  const scanDump = (type: 'CF' | 'BF', key: string, iterator: string): Reply => {
    const v = store.get(key);
    if (v === undefined) return { error: 'ERR not found' };
    if (v.type !== type) return { error: WRONGTYPE };
    const it = Number(iterator);
    if (!Number.isInteger(it) || it < 0) return { error: 'ERR Invalid iterator' };
    // Iterator 0 starts the dump; any other is the one the previous reply gave, and gets the chunk after it.
    const next = it === 0 ? 0 : v.chunks.findIndex(([i]) => i === it) + 1;
    if (it !== 0 && next === 0) return { error: 'ERR Invalid iterator' };
    return next < v.chunks.length ? [v.chunks[next][0], v.chunks[next][1]] : [0, null];
  };

  const loadChunk = (type: 'CF' | 'BF', key: string, iterator: string, data: Buffer): Reply => {
    const it = Number(iterator);
    const refused = fake.refuseLoadChunk?.(key, it);
    if (refused !== undefined) return { error: refused };
    const v = store.get(key);
    if (v !== undefined && v.type !== type) return { error: WRONGTYPE };
    if (it === 1) {
      if (v !== undefined) return { error: 'ERR item exists' };
      store.set(key, { type, chunks: [[1, data]] });
      return OK;
    }
    if (v === undefined) return { error: 'ERR not found' };
    // A table chunk's iterator is 1 + the table bytes loaded so far, itself included.
    const tableBytes = v.chunks.slice(1).reduce((s, [, c]) => s + c.length, 0);
    if (it !== 1 + tableBytes + data.length) return { error: 'ERR fake server: chunk iterator out of order' };
    v.chunks.push([it, data]);
    return OK;
  };

  const answer = (args: Buffer[], conn: { resp3: boolean }): Reply => {
    const name = args[0].toString().toUpperCase();
    const s = (i: number) => (args[i] ?? Buffer.alloc(0)).toString();
    switch (name) {
      case 'HELLO': {
        if (args.length > 1) {
          if (s(1) !== '2' && s(1) !== '3') return { error: 'NOPROTO unsupported protocol version' };
          conn.resp3 = s(1) === '3';
        }
        return {
          map: [
            ['server', 'redis'],
            ['version', '7.4.0'],
            ['proto', conn.resp3 ? 3 : 2],
            ['id', 1],
            ['mode', 'standalone'],
            ['role', 'master'],
            ['modules', []],
          ],
        };
      }
      case 'PING':
        return { simple: 'PONG' };
      case 'CLIENT':
      case 'SELECT':
      case 'AUTH':
      case 'QUIT':
        return OK;
      case 'INFO':
        return '# Server\r\nredis_version:7.4.0\r\nredis_mode:standalone\r\n# Persistence\r\nloading:0\r\n';
      case 'TYPE': {
        const v = store.get(s(1));
        return { simple: v === undefined ? 'none' : v.type === 'CF' ? 'MBbloomCF' : v.type === 'BF' ? 'MBbloom--' : 'string' };
      }
      case 'EXISTS':
        return args.slice(1).filter((k) => store.has(k.toString())).length;
      case 'DEL':
        return args.slice(1).filter((k) => store.delete(k.toString())).length;
      case 'CF.SCANDUMP':
      case 'BF.SCANDUMP':
        if (args.length !== 3) return { error: `ERR wrong number of arguments for '${name.toLowerCase()}' command` };
        return scanDump(name.startsWith('CF') ? 'CF' : 'BF', s(1), s(2));
      case 'CF.LOADCHUNK':
      case 'BF.LOADCHUNK':
        if (args.length !== 4) return { error: `ERR wrong number of arguments for '${name.toLowerCase()}' command` };
        return loadChunk(name.startsWith('CF') ? 'CF' : 'BF', s(1), s(2), args[3]);
      default:
        return { error: `ERR unknown command '${args[0].toString()}'` };
    }
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const reader = new RequestReader();
    const conn = { resp3: false };
    socket.on('data', (data) => {
      for (const args of reader.push(data)) {
        if (args.length === 0) continue;
        log.push(args.map((a) => (a.length > 64 || a.some((c) => c < 0x20 || c > 0x7e) ? `<${a.length} bytes>` : a.toString())));
        socket.write(encode(answer(args, conn), conn.resp3));
        if (args[0].toString().toUpperCase() === 'QUIT') socket.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `redis://127.0.0.1:${port}`;
  fake.port = port;
  return fake;
}
