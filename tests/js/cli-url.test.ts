// The `cuckoo-wasm` command with URL lists (dist/cli.cjs), run as a user runs it:
// build --urls (comments, blanks, canonical duplicates, --url-fpr sizing for a
// per-URL rate, refused options and entries) and query --urls (URL<TAB>yes<TAB>
// matched-expression or URL<TAB>no; a line that is not a URL on stderr, exit
// code 1, the others answered).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BloomFilter, CuckooFilter } from 'cuckoo-wasm';

const cli = join(__dirname, '..', '..', 'dist', 'cli.cjs');
const run = (args: string[], input?: string) =>
  spawnSync(process.execPath, [cli, ...args], { input, encoding: 'utf8' });

const dir = mkdtempSync(join(tmpdir(), 'cuckoo-cli-url-'));
const at = (name: string) => join(dir, name);
beforeAll(() => {
  writeFileSync(
    at('urls.txt'),
    [
      '# phishing URLs',
      '',
      'evil.example',
      'http://EVIL.example/', // the same entry as the line above: evil.example/
      '  phish.example/login/  ',
      'https://shop.example/item.php?id=7#reviews',
      'http://bücher.example/shop/',
      'xn--bcher-kva.example/shop/', // the same entry in Punycode
      '3279880203', // 195.127.0.11/
      '[2001:DB8::1]/a/',
      '#skip.example',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('build --urls: skips comments and blanks, trims, counts canonical duplicates once', () => {
  const r = run(['build', '--urls', at('urls.txt'), '-o', at('u.cuckoo')]);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^URL entries added: {3}6\n/);
  expect(r.stdout).toMatch(/duplicates skipped: {2}2\n/);
  expect(r.stdout).toMatch(/per-URL rate: {8}at most [\d.e-]+ \(up to 30 lookups per URL\)\n/);
  expect(r.stdout).toContain(`wrote ${at('u.cuckoo')}`);
});

test('build --urls stores each entry as its canonical expression: the filter loads and matches as addUrl would', async () => {
  run(['build', '--urls', at('urls.txt'), '-o', at('m.cuckoo')]);
  const f = await CuckooFilter.fromBytes(readFileSync(at('m.cuckoo')));
  expect(f.size).toBe(6);
  for (const [url, want] of [
    ['http://www.evil.example/x', 'evil.example/'],
    ['https://phish.example/login/a.php', 'phish.example/login/'],
    ['http://shop.example/item.php?id=7', 'shop.example/item.php?id=7'],
    ['http://www.bücher.example/shop/x', 'xn--bcher-kva.example/shop/'],
    ['http://195.127.0.11/', '195.127.0.11/'],
    ['http://[2001:db8::1]/a/b', '[2001:db8::1]/a/'],
    ['http://skip.example/', null],
  ]) {
    expect([url, f.matchUrl(url as string)]).toEqual([url, want]);
  }
  f.dispose();
});

test('query --urls: URL<TAB>yes<TAB>matched expression, or URL<TAB>no; arguments and standard input', () => {
  run(['build', '--urls', at('urls.txt'), '-o', at('q.cuckoo')]);
  const args = run([
    'query', '--urls', at('q.cuckoo'),
    'http://www.evil.example/x', 'https://phish.example/login/a.php', 'https://phish.example/other', 'http://shop.example/item.php?id=8',
    'http://xn--bcher-kva.example/shop/a', 'http://0xc37f000b/x', 'http://skip.example/',
  ]);
  expect(args.stderr).toBe('');
  expect(args.status).toBe(0);
  expect(args.stdout).toBe(
    [
      'http://www.evil.example/x\tyes\tevil.example/',
      'https://phish.example/login/a.php\tyes\tphish.example/login/',
      'https://phish.example/other\tno',
      'http://shop.example/item.php?id=8\tno',
      'http://xn--bcher-kva.example/shop/a\tyes\txn--bcher-kva.example/shop/',
      'http://0xc37f000b/x\tyes\t195.127.0.11/',
      'http://skip.example/\tno',
      '',
    ].join('\n'),
  );
  const stdin = run(['query', '--urls', at('q.cuckoo')], '# comment\n\nhttps://shop.example/item.php?id=7#x\n  http://bücher.example/shop/  \nhttp://good.example/\n');
  expect(stdin.status).toBe(0);
  expect(stdin.stdout).toBe(
    'https://shop.example/item.php?id=7#x\tyes\tshop.example/item.php?id=7\nhttp://bücher.example/shop/\tyes\txn--bcher-kva.example/shop/\nhttp://good.example/\tno\n',
  );
});

test('query --urls: a line that is not a URL is reported on stderr, exit code 1, and the others are answered in order', () => {
  run(['build', '--urls', at('urls.txt'), '-o', at('e.cuckoo')]);
  const r = run(['query', '--urls', at('e.cuckoo')], 'http://evil.example/\n/no/host\nhttp://good.example/\nhttp://[::1\nhttp://a.evil.example/\n');
  expect(r.status).toBe(1);
  expect(r.stdout).toBe('http://evil.example/\tyes\tevil.example/\nhttp://good.example/\tno\nhttp://a.evil.example/\tyes\tevil.example/\n');
  const errors = r.stderr.trim().split('\n');
  expect(errors).toHaveLength(2);
  expect(errors[0]).toMatch(/^cuckoo-wasm: "\/no\/host" is not a URL: .*no host/);
  expect(errors[1]).toMatch(/^cuckoo-wasm: "http:\/\/\[::1" is not a URL: .*host/);
  const args = run(['query', '--urls', at('e.cuckoo'), '...', 'evil.example']);
  expect(args.status).toBe(1);
  expect(args.stdout).toBe('evil.example\tyes\tevil.example/\n');
  expect(args.stderr).toMatch(/^cuckoo-wasm: "\.\.\." is not a URL/);
});

test('query without --urls on a URL filter looks up keys: an entry is its expression', () => {
  run(['build', '--urls', at('urls.txt'), '-o', at('k.cuckoo')]);
  const r = run(['query', at('k.cuckoo'), 'evil.example/', 'http://evil.example/', 'phish.example/login/']);
  expect(r.stdout).toBe('evil.example/\tyes\nhttp://evil.example/\tno\nphish.example/login/\tyes\n');
});

test('--url-fpr R sizes for a per-URL rate of at most R (1 - (1 - ε)^30), cuckoo and Bloom', async () => {
  const sizes: number[] = [];
  for (const rate of [0.05, 0.01, 0.001]) {
    const r = run(['build', '--urls', at('urls.txt'), '-o', at(`r${rate}.cuckoo`), '--url-fpr', String(rate)]);
    expect(r.status).toBe(0);
    const perUrl = Number(/per-URL rate: +at most ([\d.e-]+)/.exec(r.stdout)![1]);
    expect(perUrl).toBeLessThanOrEqual(rate);
    const f = await CuckooFilter.fromBytes(readFileSync(at(`r${rate}.cuckoo`)));
    // The smallest fingerprint with 2b/2^f at most the per-key rate 1 - (1 - R)^(1/30).
    const perKey = 1 - (1 - rate) ** (1 / 30);
    expect(f.fingerprintBits).toBe(Math.max(4, Math.ceil(Math.log2(8 / perKey))));
    expect(f.urlFalsePositiveRate).toBeLessThanOrEqual(rate);
    expect(f.urlFalsePositiveRate).toBeGreaterThan(rate / 2.1); // not sized far tighter than asked
    sizes.push(f.fingerprintBits);
    f.dispose();
  }
  expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
  const b = run(['build', '--urls', '--type', 'bloom', at('urls.txt'), '-o', at('r.bloom'), '--url-fpr', '0.01']);
  expect(b.status).toBe(0);
  expect(b.stdout).toMatch(/per-URL rate: +at most 0\.0100 /);
  const bloom = await BloomFilter.fromBytes(readFileSync(at('r.bloom')));
  expect(bloom.falsePositiveRate).toBeCloseTo(1 - 0.99 ** (1 / 30), 12);
  expect(bloom.urlFalsePositiveRate).toBeCloseTo(0.01, 12);
  expect(bloom.matchUrl('https://www.evil.example/')).toBe('evil.example/');
  bloom.dispose();
  const q = run(['query', '--urls', at('r.bloom'), 'http://a.b.evil.example/x', 'http://other.example/']);
  expect(q.stdout).toBe('http://a.b.evil.example/x\tyes\tevil.example/\nhttp://other.example/\tno\n');
});

test.each([
  ['--url-fpr without --urls', ['build', at('urls.txt'), '-o', at('x1'), '--url-fpr', '0.01'], /--url-fpr is for URL lists: add --urls/],
  ['--url-fpr with --fpr', ['build', '--urls', at('urls.txt'), '-o', at('x2'), '--url-fpr', '0.01', '--fpr', '0.001'], /give --fpr or --url-fpr, not both/],
  ['--url-fpr 0', ['build', '--urls', at('urls.txt'), '-o', at('x3'), '--url-fpr', '0'], /--url-fpr must be a number between 0 and 1/],
  ['--url-fpr 1', ['build', '--urls', at('urls.txt'), '-o', at('x4'), '--url-fpr', '1'], /--url-fpr must be a number between 0 and 1/],
  ['--url-fpr abc', ['build', '--urls', at('urls.txt'), '-o', at('x5'), '--url-fpr', 'abc'], /--url-fpr must be a number/],
  ['--url-fpr 1e-300', ['build', '--urls', at('urls.txt'), '-o', at('x6'), '--url-fpr', '1e-300'], /^cuckoo-wasm: --url-fpr 1e-300 is below 5\.59e-8, the lowest per-URL rate/],
  ['--url-fpr 5e-8', ['build', '--urls', at('urls.txt'), '-o', at('x7'), '--url-fpr', '5e-8'], /^cuckoo-wasm: --url-fpr 5e-8 is below 5\.59e-8, the lowest per-URL rate .*: raise --url-fpr/],
])('%s: refused with one line on stderr, exit code 1, no file written', (_, args, message) => {
  const r = run(args as string[]);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(existsSync((args as string[])[(args as string[]).indexOf('-o') + 1])).toBe(false);
});

test('build --urls with an entry that is not a URL: the list, its line and the entry named, exit code 1, no file written', () => {
  writeFileSync(at('bad.txt'), 'ok.example\n\nhttp:///nohost\nlater.example\n');
  const r = run(['build', '--urls', at('bad.txt'), '-o', at('bad.cuckoo')]);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/bad\.txt:3: "http:\/\/\/nohost" is not a URL: .*no host/);
  expect(existsSync(at('bad.cuckoo'))).toBe(false);
});
