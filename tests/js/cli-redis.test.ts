// `cuckoo-wasm redis-pull` and `redis-push` (dist/cli.cjs, js/cli/redis.ts), run as a user runs them, against
// tests/js/fake-redis.ts serving chunks recorded from a real RedisBloom server; and `query` / `info` on the files.
// The CLI runs in a child process while the fake server answers in this one, so it is spawned asynchronously.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisBloomFilter, RedisCuckooFilter } from 'cuckoo-wasm';
import { FakeRedis, fixtureChunks, readFixture, startFakeRedis } from './fake-redis';

const cli = join(__dirname, '..', '..', 'dist', 'cli.cjs');

function run(args: string[], options: { cwd?: string; script?: string; input?: string } = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const env = { ...process.env };
    delete env.NODE_PATH; // resolution of `redis` as a user's shell has it
    const child = spawn(process.execPath, [options.script ?? cli, ...args], { cwd: options.cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end(options.input ?? '');
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The fixtures' items (tests/fixtures/redis: members and non-members in the order the probes used them). */
const items = (file: 'members.txt' | 'nonmembers.txt', n: number) =>
  readFileSync(join(__dirname, '..', 'fixtures', 'redis', file), 'utf8').split('\n').filter(Boolean).slice(0, n);

const same = (a: [number, Uint8Array][], b: [number, Uint8Array][]) =>
  a.length === b.length && a.every(([i, c], j) => i === b[j][0] && Buffer.compare(Buffer.from(c), Buffer.from(b[j][1])) === 0);

let dir: string;
let fake: FakeRedis;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cuckoo-cli-redis-'));
  const keys: Record<string, { type: 'CF' | 'BF'; chunks: [number, Buffer][] }> = {};
  for (const name of ['cf-grow', 'cf-deletes', 'cf-compact', 'bf-grow', 'bf-nonscaling']) {
    const f = readFixture(name);
    keys[name] = { type: f.type, chunks: fixtureChunks(f) };
  }
  fake = await startFakeRedis({ ...keys, plain: { type: 'string', value: Buffer.from('x') }, 'empty-cf': { type: 'CF', chunks: [] } });
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

test.each([
  ['cf-grow', 'cuckoo filter (CF)', RedisCuckooFilter],
  // Grown, then deletes and compactions on the server: info shows its delete count (255).
  ['cf-compact', 'cuckoo filter (CF)', RedisCuckooFilter],
  ['bf-grow', 'Bloom filter (BF)', RedisBloomFilter],
] as const)('redis-pull %s: the file is the server\'s filter in this library\'s format; info and query read it', async (name, what, Class) => {
  const file = join(dir, `${name}.redis`);
  const r = await run(['redis-pull', fake.url, name, '-o', file]);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const fixture = readFixture(name);
  expect(r.stdout).toContain(`pulled:              ${name}, a RedisBloom ${what}, in ${fixture.chunks.length} chunks`);
  expect(r.stdout).toMatch(new RegExp(`items:\\s+${fixture.info['Number of items inserted']}\\n`));
  const bytes = readFileSync(file);
  expect(bytes.subarray(0, 4).toString()).toBe('CKOO');
  expect(bytes[6]).toBe(fixture.type === 'CF' ? 3 : 4); // family byte (docs/FORMAT.md §14.2)
  const filter = await Class.fromBytes(bytes);
  expect(same(filter.toScanDump(), fixtureChunks(fixture))).toBe(true);

  // info: CF.INFO / BF.INFO's fields, with the server's values.
  const info = await run(['info', file]);
  expect(info.stderr).toBe('');
  for (const [label, value] of Object.entries(fixture.info)) {
    expect(info.stdout).toMatch(new RegExp(`\\n${label}:\\s+${value === null ? 'none \\(NONSCALING\\)' : value}\\n`));
  }
  expect(info.stdout).toMatch(/^type:\s+redis-(cuckoo|bloom) \(RedisBloom (CF|BF)\)\n/);

  // query: the server's recorded answers (MEXISTS), false positives included.
  const members = items('members.txt', 100);
  const nonMembers = items('nonmembers.txt', 2000);
  const keys = [...members, ...nonMembers];
  const q = await run(['query', file, ...keys]);
  expect(q.status).toBe(0);
  const recorded = fixture.probes.memberAnswers.slice(0, members.length) + fixture.probes.nonMemberAnswers.slice(0, nonMembers.length);
  expect(q.stdout).toBe(keys.map((k, i) => `${k}\t${recorded[i] === '1' ? 'yes' : 'no'}`).join('\n') + '\n');
  expect(recorded.slice(members.length)).toContain('1'); // a false positive among them, answered as the server did
  const stdin = await run(['query', file], { input: keys.join('\n') + '\n' });
  expect(stdin.stdout).toBe(q.stdout);
  filter.dispose();
});

test('redis-pull --type, and the keys it cannot pull: missing, another type, an empty filter', async () => {
  const explicit = await run(['redis-pull', fake.url, 'cf-deletes', '-o', join(dir, 'd.redis'), '--type', 'cf']);
  expect(explicit.status).toBe(0);
  expect(fake.log.some((c) => c[0] === 'TYPE' && c[1] === 'cf-deletes')).toBe(false);
  const wrong = await run(['redis-pull', fake.url, 'cf-deletes', '-o', join(dir, 'w.redis'), '--type', 'bf']);
  expect(wrong.status).toBe(1);
  expect(wrong.stderr).toMatch(/^cuckoo-wasm: BF\.SCANDUMP cf-deletes: the server answered: WRONGTYPE/);
  const missing = await run(['redis-pull', fake.url, 'nope', '-o', join(dir, 'n.redis')]);
  expect(missing.stderr).toBe('cuckoo-wasm: the server has no key nope\n');
  const plain = await run(['redis-pull', fake.url, 'plain', '-o', join(dir, 'p.redis')]);
  expect(plain.stderr).toBe('cuckoo-wasm: plain holds a string, not a RedisBloom cuckoo or Bloom filter (TYPE MBbloomCF or MBbloom--)\n');
  const empty = await run(['redis-pull', fake.url, 'empty-cf', '-o', join(dir, 'e.redis')]);
  expect(empty.stderr).toMatch(/^cuckoo-wasm: empty-cf is an empty cuckoo filter \(CF\): CF\.SCANDUMP returns nothing for it/);
  expect(existsSync(join(dir, 'e.redis'))).toBe(false);
  const usage = await run(['redis-pull', fake.url, 'cf-grow']);
  expect(usage.stderr).toBe('cuckoo-wasm: redis-pull needs -o FILE (see cuckoo-wasm --help)\n');
  const type = await run(['redis-pull', fake.url, 'cf-grow', '-o', join(dir, 'x'), '--type', 'cuckoo']);
  expect(type.stderr).toBe('cuckoo-wasm: --type must be cf or bf, got "cuckoo" (see cuckoo-wasm --help)\n');
});

test('redis-pull refuses a dump whose chunks do not make a filter, and says to pull again', async () => {
  const header = fixtureChunks(readFixture('cf-deletes'))[0];
  fake.keys.set('torn', { type: 'CF', chunks: [header, ...fixtureChunks(readFixture('cf-grow')).slice(1)] });
  const r = await run(['redis-pull', fake.url, 'torn', '-o', join(dir, 't.redis')]);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/^cuckoo-wasm: the chunks of torn do not make a filter \(.+\); if the key was written to while it was read, pull it again\n$/);
  expect(existsSync(join(dir, 't.redis'))).toBe(false);
});

test('redis-push: the chunks land as LOADCHUNK takes them; an existing key needs --replace; a CF gets the MOD-16050 note', async () => {
  const cf = await RedisCuckooFilter.create({ capacity: 1000, expansion: 2 });
  const bf = await RedisBloomFilter.create({ errorRate: 0.001, capacity: 300 });
  const keys = Array.from({ length: 2500 }, (_, i) => `host-${i}.example`);
  cf.addAll(keys);
  bf.addAll(keys);
  writeFileSync(join(dir, 'cf.redis'), cf.toBytes());
  writeFileSync(join(dir, 'bf.redis'), bf.toBytes());

  const r = await run(['redis-push', join(dir, 'cf.redis'), fake.url, 'new-cf']);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^pushed:\s+.*cf\.redis to new-cf, a RedisBloom cuckoo filter \(CF\), in \d+ chunks \(\d+ bytes\)\n$/);
  expect(r.stderr).toMatch(/MOD-16050/);
  const stored = fake.keys.get('new-cf');
  expect(stored?.type).toBe('CF');
  expect(same(stored?.type === 'CF' ? stored.chunks : [], cf.toScanDump())).toBe(true);

  const b = await run(['redis-push', join(dir, 'bf.redis'), fake.url, 'new-bf']);
  expect(b.status).toBe(0);
  expect(b.stderr).toBe('');
  const storedBf = fake.keys.get('new-bf');
  expect(same(storedBf?.type === 'BF' ? storedBf.chunks : [], bf.toScanDump())).toBe(true);

  const again = await run(['redis-push', join(dir, 'bf.redis'), fake.url, 'new-cf']);
  expect(again.status).toBe(1);
  expect(again.stderr).toBe('cuckoo-wasm: new-cf already exists on the server: give --replace to delete it first\n');
  const replaced = await run(['redis-push', join(dir, 'bf.redis'), fake.url, 'new-cf', '--replace']);
  expect(replaced.status).toBe(0);
  expect(fake.keys.get('new-cf')?.type).toBe('BF');

  // Pulled back, it is the same filter.
  const back = await run(['redis-pull', fake.url, 'new-bf', '-o', join(dir, 'back.redis')]);
  expect(back.status).toBe(0);
  expect(readFileSync(join(dir, 'back.redis')).equals(readFileSync(join(dir, 'bf.redis')))).toBe(true);
  cf.dispose();
  bf.dispose();
});

test('redis-push: a chunk the server refuses leaves no filter loaded in part', async () => {
  const bf = await RedisBloomFilter.create({ errorRate: 0.01, capacity: 100 });
  bf.addAll(Array.from({ length: 1000 }, (_, i) => `k${i}`)); // 4 links: 5 chunks
  const chunks = bf.toScanDump();
  writeFileSync(join(dir, 'refused.redis'), bf.toBytes());
  bf.dispose();
  fake.refuseLoadChunk = (key, iterator) => (key === 'half' && iterator === chunks[2][0] ? 'ERR out of memory (fake)' : undefined);
  try {
    const r = await run(['redis-push', join(dir, 'refused.redis'), fake.url, 'half']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`cuckoo-wasm: BF.LOADCHUNK half: the server answered: ERR out of memory (fake); half, loaded in part (2 chunks), was deleted again\n`);
    expect(fake.keys.has('half')).toBe(false);
    expect(fake.log.at(-1)).toEqual(['DEL', 'half']);
  } finally {
    fake.refuseLoadChunk = undefined;
  }
});

test('redis-push refuses files that are not RedisBloom filters, and an empty cuckoo filter', async () => {
  writeFileSync(join(dir, 'list.txt'), 'a.example\nb.example\n');
  await run(['build', join(dir, 'list.txt'), '-o', join(dir, 'own.cuckoo')]);
  const own = await run(['redis-push', join(dir, 'own.cuckoo'), fake.url, 'k']);
  expect(own.status).toBe(1);
  expect(own.stderr).toMatch(/^cuckoo-wasm: .*own\.cuckoo is not a RedisBloom filter of this library \(family 3 or 4/);
  const empty = await RedisCuckooFilter.create({ capacity: 100 });
  writeFileSync(join(dir, 'empty.redis'), empty.toBytes());
  empty.dispose();
  const e = await run(['redis-push', join(dir, 'empty.redis'), fake.url, 'k']);
  expect(e.stderr).toMatch(/is an empty cuckoo filter \(CF\): the server dumps such a filter as nothing/);
  expect(fake.keys.has('k')).toBe(false);
});

test('connection errors and URLs are reported in one line', async () => {
  const closed = await startFakeRedis();
  const port = closed.port;
  await closed.close();
  const r = await run(['redis-pull', `redis://127.0.0.1:${port}`, 'k', '-o', join(dir, 'c.redis')]);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(new RegExp(`^cuckoo-wasm: cannot connect to 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED.*\\n$`));
  const url = await run(['redis-pull', 'localhost:6379', 'k', '-o', join(dir, 'c.redis')]);
  expect(url.stderr).toBe('cuckoo-wasm: localhost:6379 is not a redis:// or rediss:// URL\n');
});

test('without the package redis, the commands say how to get it; redis is not bundled into dist/cli.cjs', async () => {
  // A copy of the CLI where no node_modules is found from it or from the current folder.
  const lone = mkdtempSync(join(tmpdir(), 'cuckoo-cli-alone-'));
  try {
    copyFileSync(cli, join(lone, 'cli.cjs'));
    const r = await run(['redis-pull', fake.url, 'cf-grow', '-o', join(lone, 'f')], { cwd: lone, script: join(lone, 'cli.cjs') });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'cuckoo-wasm: redis-pull needs the package redis (node-redis v5 or v6), an optional peer dependency of cuckoo-wasm: ' +
        'install it where cuckoo-wasm is installed or in the current folder, e.g. npm install redis@5\n',
    );
    // The other commands need nothing more.
    writeFileSync(join(lone, 'l.txt'), 'a.example\n');
    expect((await run(['build', join(lone, 'l.txt'), '-o', join(lone, 'f')], { cwd: lone, script: join(lone, 'cli.cjs') })).status).toBe(0);
  } finally {
    rmSync(lone, { recursive: true, force: true });
  }
  const bundle = readFileSync(cli, 'utf8');
  // A string of node-redis's own code (its maintenance handshake), which a bundled copy would carry.
  const nodeRedis = join(__dirname, '..', '..', 'node_modules', '@redis', 'client', 'dist', 'lib', 'client', 'enterprise-maintenance-manager.js');
  expect(readFileSync(nodeRedis, 'utf8')).toContain('"MAINT_NOTIFICATIONS"');
  expect(bundle).not.toContain('MAINT_NOTIFICATIONS');
});

test('--help lists the two commands', async () => {
  const r = await run(['--help']);
  expect(r.stdout).toContain('cuckoo-wasm redis-pull URL KEY -o FILE [--type cf|bf]');
  expect(r.stdout).toContain('cuckoo-wasm redis-push FILE URL KEY [--replace]');
});
