// The CLI's outputs and inputs as the Unix tools beside it treat theirs: `-o -` is standard output (the report then on
// standard error), a symbolic link is followed and the file it names replaced, a device or FIFO is opened and written
// (never replaced by a regular file), a regular file is replaced whole; every message names the path; a list with no
// entries is an error (exit code 2, nothing written) unless --allow-empty; `query --urls` reports a line that is no
// URL; `--version` prints the package's.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.cjs');
const run = (args: string[], input?: string) =>
  spawnSync(process.execPath, [cli, ...args], { input: input === undefined ? undefined : Buffer.from(input), encoding: 'buffer' });

let dir: string;
let list: string;
/** The bytes `build` writes for `list` to a regular file. */
let expected: Buffer;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cuckoo-cli-output-'));
  list = join(dir, 'list.txt');
  writeFileSync(list, 'evil.example\nbad.test\nphish.example\n');
  const r = run(['build', list, '-o', join(dir, 'plain.cf')]);
  expect(r.status).toBe(0);
  expected = readFileSync(join(dir, 'plain.cf'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('-o - writes the filter to standard output and the report to standard error', () => {
  const r = run(['build', list, '-o', '-']);
  expect(r.status).toBe(0);
  expect(Buffer.compare(r.stdout, expected)).toBe(0);
  expect(r.stderr.toString()).toMatch(/keys added: +3[\s\S]*wrote standard output/);
  expect(existsSync(join(process.cwd(), '-'))).toBe(false);
  // diff and patch too: the patch to standard output, applied from a file.
  const next = join(dir, 'next.txt');
  writeFileSync(next, 'evil.example\nbad.test\nphish.example\nnew.example\n');
  expect(run(['build', list, '-o', join(dir, 'a.cf'), '--capacity', '100']).status).toBe(0);
  expect(run(['build', next, '-o', join(dir, 'b.cf'), '--capacity', '100']).status).toBe(0);
  const d = run(['diff', join(dir, 'a.cf'), join(dir, 'b.cf'), '-o', '-']);
  expect(d.status).toBe(0);
  expect(d.stderr.toString()).toContain('wrote standard output');
  writeFileSync(join(dir, 'ab.patch'), d.stdout);
  const p = run(['patch', join(dir, 'a.cf'), join(dir, 'ab.patch'), '-o', '-']);
  expect(p.status).toBe(0);
  expect(Buffer.compare(p.stdout, readFileSync(join(dir, 'b.cf')))).toBe(0);
});

test('a symbolic link is followed: the file it names is replaced, the link stays a link (also when it dangles)', () => {
  const target = join(dir, 'target.cf');
  writeFileSync(target, 'old');
  const link = join(dir, 'link.cf');
  symlinkSync(target, link);
  expect(run(['build', list, '-o', link]).status).toBe(0);
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(readlinkSync(link)).toBe(target);
  expect(Buffer.compare(readFileSync(target), expected)).toBe(0);
  const dangling = join(dir, 'dangling.cf');
  symlinkSync(join(dir, 'new-target.cf'), dangling);
  expect(run(['build', list, '-o', dangling]).status).toBe(0);
  expect(lstatSync(dangling).isSymbolicLink()).toBe(true);
  expect(Buffer.compare(readFileSync(join(dir, 'new-target.cf')), expected)).toBe(0);
});

test('a device is written, not replaced: -o of the null device leaves the device', () => {
  // As root, a null device of the test's own (mknod), so that a CLI that replaced it could not replace the
  // machine's /dev/null; as another user, /dev/null itself, which the CLI could not replace.
  let device = '/dev/null';
  if (process.getuid?.() === 0) {
    device = join(dir, 'null');
    expect(spawnSync('mknod', ['-m', '666', device, 'c', '1', '3']).status).toBe(0);
  }
  expect(lstatSync(device).isCharacterDevice()).toBe(true);
  const r = run(['build', list, '-o', device]);
  expect(r.stderr.toString()).toBe('');
  expect(r.status).toBe(0);
  expect(lstatSync(device).isCharacterDevice()).toBe(true);
});

test('a FIFO is opened and written: its reader gets the filter, and it stays a FIFO', async () => {
  const fifo = join(dir, 'fifo');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const reader = spawn('cat', [fifo]);
  const chunks: Buffer[] = [];
  reader.stdout.on('data', (c: Buffer) => chunks.push(c));
  const closed = new Promise<boolean>((done) => reader.on('close', () => done(true)));
  const r = run(['build', list, '-o', fifo]);
  // The CLI has exited: a reader of the FIFO has had its bytes and end of file by now, or never will (were the FIFO
  // replaced by a file, its reader would wait for a writer forever).
  const ended = await Promise.race([closed, new Promise<boolean>((done) => setTimeout(() => done(false), 10_000))]);
  if (!ended) reader.kill();
  expect(ended).toBe(true);
  expect(r.status).toBe(0);
  expect(Buffer.compare(Buffer.concat(chunks), expected)).toBe(0);
  expect(lstatSync(fifo).isFIFO()).toBe(true);
});

test('messages name the path: a directory to read or to write', () => {
  const sub = join(dir, 'sub');
  mkdirSync(sub);
  for (const args of [['info', sub], ['query', sub, 'x'], ['build', list, '-o', sub], ['build', sub, '-o', join(dir, 'x.cf')]]) {
    const r = run(args);
    expect([args[0], r.status]).toEqual([args[0], 1]);
    expect(r.stderr.toString()).toContain(sub);
    expect(r.stderr.toString()).toContain('EISDIR (it is a directory)');
  }
});

test('a list with no entries is an error (exit code 2, nothing written) unless --allow-empty', () => {
  const empty = join(dir, 'empty.txt');
  writeFileSync(empty, '# only a comment\n\n');
  const out = join(dir, 'empty.cf');
  const r = run(['build', empty, '-o', out]);
  expect(r.status).toBe(2);
  expect(r.stderr.toString()).toContain(`${empty} has no entries`);
  expect(r.stderr.toString()).toContain('--allow-empty');
  expect(existsSync(out)).toBe(false);
  expect(run(['build', empty, '-o', out, '--allow-empty']).status).toBe(0);
  expect(existsSync(out)).toBe(true);
});

test('query --urls reports a line that is no URL on standard error (exit code 1) and answers the others', () => {
  const urls = join(dir, 'urls.txt');
  writeFileSync(urls, 'evil.example\n');
  const filter = join(dir, 'urls.cf');
  expect(run(['build', urls, '--urls', '-o', filter]).status).toBe(0);
  const r = run(['query', '--urls', filter], 'not a url\nhttps://www.evil.example/login\nhttps://fine.example/\n');
  expect(r.status).toBe(1);
  expect(r.stdout.toString()).toBe('https://www.evil.example/login\tyes\tevil.example/\nhttps://fine.example/\tno\n');
  expect(r.stderr.toString()).toContain('"not a url" is not a URL');
  // And build --urls refuses such an entry, naming its line.
  writeFileSync(urls, 'evil.example\nnot a url\n');
  const b = run(['build', urls, '--urls', '-o', join(dir, 'bad.cf')]);
  expect(b.status).toBe(1);
  expect(b.stderr.toString()).toContain(`${urls}:2: "not a url" is not a URL`);
});

test('--version prints the package version', () => {
  const r = run(['--version']);
  expect(r.status).toBe(0);
  expect(r.stdout.toString().trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
});

test('-o - cut short by a reader that stops early is an error (exit code 1, a message), not a quiet success', () => {
  const big = join(dir, 'big.txt');
  writeFileSync(big, Array.from({ length: 200_000 }, (_, i) => `host-${i}.example`).join('\n'));
  const r = spawnSync('bash', ['-c', `"${process.execPath}" "${cli}" build "${big}" -o - 2>"${join(dir, 'err.txt')}" | head -c 100 >/dev/null; echo "\${PIPESTATUS[0]}"`], {
    encoding: 'utf8',
  });
  expect(r.stdout.trim()).toBe('1');
  expect(readFileSync(join(dir, 'err.txt'), 'utf8')).toMatch(/cannot write .*EPIPE/);
});

test('-o /dev/stdout is standard output: the filter alone there, the report on standard error', () => {
  const r = run(['build', list, '-o', '/dev/stdout']);
  expect(r.status).toBe(0);
  expect(Buffer.compare(r.stdout, expected)).toBe(0);
  expect(r.stderr.toString()).toContain('wrote /dev/stdout');
});

test('a dangling relative symbolic link is followed from its folder\'s real path, as the kernel does', () => {
  const real = join(dir, 'real');
  mkdirSync(join(real, 'sub'), { recursive: true });
  symlinkSync(join(real, 'sub'), join(dir, 'a'));
  symlinkSync('../z.cf', join(real, 'sub', 'link.cf'));
  expect(run(['build', list, '-o', join(dir, 'a', 'link.cf')]).status).toBe(0);
  expect(Buffer.compare(readFileSync(join(real, 'z.cf')), expected)).toBe(0);
  expect(existsSync(join(dir, 'z.cf'))).toBe(false);
  // A link that names a folder (its text ends in /) is refused, as a shell's > refuses it.
  symlinkSync('nothing-yet/', join(dir, 'to-folder'));
  const r = run(['build', list, '-o', join(dir, 'to-folder')]);
  expect(r.status).toBe(1);
  expect(r.stderr.toString()).toContain('EISDIR');
});

test('build --urls and query --urls refuse hosts with characters no host name has (<, |, spaces)', () => {
  const urls = join(dir, 'odd-urls.txt');
  writeFileSync(urls, 'http://ex<a>mple.com/\n');
  expect(run(['build', urls, '--urls', '-o', join(dir, 'odd.cf')]).status).toBe(1);
  writeFileSync(urls, 'evil.example\nexa_mple.com\nhttp://[::1]/x\nhttp://1.2.3.4:8080/\n');
  expect(run(['build', urls, '--urls', '-o', join(dir, 'odd.cf')]).status).toBe(0);
  const q = run(['query', '--urls', join(dir, 'odd.cf')], 'http://a|b.com/\nhttp://exa_mple.com/a\n');
  expect(q.status).toBe(1);
  expect(q.stdout.toString()).toBe('http://exa_mple.com/a\tyes\texa_mple.com/\n');
  expect(q.stderr.toString()).toContain('"http://a|b.com/" is not a URL');
});
