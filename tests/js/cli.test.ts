// The `cuckoo-wasm` command (dist/cli.cjs), run as a user runs it.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const cli = join(__dirname, '..', '..', 'dist', 'cli.cjs');
const run = (args: string[], input?: string) =>
  spawnSync(process.execPath, [cli, ...args], { input, encoding: 'utf8' });

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cuckoo-cli-'));
  writeFileSync(join(dir, 'list.txt'), '# a comment\n  evil.example  \n\nphish.example\n#skip.example\ntracker.example\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('build: skips blanks and comments, trims, prints keys, bytes, bits per item, fpr', () => {
  const r = run(['build', join(dir, 'list.txt'), '-o', join(dir, 'f.cuckoo'), '--fpr', '0.01']);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/keys added:\s+3\n/);
  const bytes = readFileSync(join(dir, 'f.cuckoo'));
  expect(r.stdout).toContain(`bytes:               ${bytes.length}`);
  expect(r.stdout).toMatch(/bits per item:\s+[\d.]+/);
  expect(r.stdout).toMatch(/false-positive rate: [\d.e-]+ expected/);
});

test('build replaces an output file whole (a new file renamed over it), never rewriting the old one in place', () => {
  const out = join(dir, 'replaced.cuckoo');
  writeFileSync(out, 'the previous filter');
  // A reader that opened the old file keeps reading the old bytes: the new ones are another file.
  const fd = openSync(out, 'r');
  try {
    const r = run(['build', join(dir, 'list.txt'), '-o', out]);
    expect(r.status).toBe(0);
    const old = Buffer.alloc(64);
    expect(old.subarray(0, readSync(fd, old, 0, 64, 0)).toString()).toBe('the previous filter');
  } finally {
    closeSync(fd);
  }
  expect(readFileSync(out).subarray(0, 4).toString()).toBe('CKOO');
  expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
});

test('query: arguments and standard input; tab-separated yes/no', () => {
  run(['build', join(dir, 'list.txt'), '-o', join(dir, 'q.cuckoo'), '--capacity', '100', '--bucket-size', '8']);
  const args = run(['query', join(dir, 'q.cuckoo'), 'evil.example', 'good.example']);
  expect(args.status).toBe(0);
  expect(args.stdout).toBe('evil.example\tyes\ngood.example\tno\n');
  const stdin = run(['query', join(dir, 'q.cuckoo')], 'phish.example\nskip.example\ntracker.example\n');
  expect(stdin.stdout).toBe('phish.example\tyes\nskip.example\tno\ntracker.example\tyes\n');
});

test('info: parameters and statistics', () => {
  run(['build', join(dir, 'list.txt'), '-o', join(dir, 'i.cuckoo'), '--capacity', '1000']);
  const r = run(['info', join(dir, 'i.cuckoo')]);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/items:\s+3\n/);
  expect(r.stdout).toMatch(/capacity:\s+1000\n/);
  expect(r.stdout).toMatch(/fingerprint bits:\s+13\n/);
});

test('build --semi-sort (the default at bucket size 4): one bit per key less than --no-semi-sort; info and query read it', () => {
  const keys = Array.from({ length: 2000 }, (_, i) => `host-${i}.example`);
  writeFileSync(join(dir, 'many.txt'), keys.join('\n'));
  const semi = run(['build', join(dir, 'many.txt'), '-o', join(dir, 's.cuckoo'), '--semi-sort']);
  expect(semi.stderr).toBe('');
  expect(semi.stdout).toMatch(/fingerprint bits:\s+13 \(bucket size 4, semi-sorted, load factor/);
  const packed = run(['build', join(dir, 'many.txt'), '-o', join(dir, 'p.cuckoo'), '--no-semi-sort']);
  expect(packed.stdout).toMatch(/fingerprint bits:\s+13 \(bucket size 4, load factor/);
  run(['build', join(dir, 'many.txt'), '-o', join(dir, 'd.cuckoo')]);
  expect(readFileSync(join(dir, 'd.cuckoo')).equals(readFileSync(join(dir, 's.cuckoo')))).toBe(true);
  run(['build', join(dir, 'many.txt'), '-o', join(dir, 'b8.cuckoo'), '--bucket-size', '8']);
  expect(run(['info', join(dir, 'b8.cuckoo')]).stdout).toMatch(/table encoding:\s+packed\n/);
  const info = run(['info', join(dir, 's.cuckoo')]);
  expect(info.status).toBe(0);
  expect(info.stdout).toMatch(/bucket size:\s+4\ntable encoding:\s+semi-sorted\n/);
  // The same buckets m, each 4f - 4 = 48 bits instead of 4f = 52.
  const m = Number(/buckets:\s+(\d+)\n/.exec(info.stdout)![1]);
  const saved = readFileSync(join(dir, 'p.cuckoo')).length - readFileSync(join(dir, 's.cuckoo')).length;
  expect(saved).toBe(Math.ceil((m * 52) / 8) - Math.ceil((m * 48) / 8));
  expect(run(['info', join(dir, 'p.cuckoo')]).stdout).toMatch(/table encoding:\s+packed\n/);
  const q = run(['query', join(dir, 's.cuckoo'), keys[0], keys[1999], 'not-listed.example']);
  expect(q.stdout).toMatch(/^host-0\.example\tyes\nhost-1999\.example\tyes\nnot-listed\.example\t(yes|no)\n$/);
});

test.each([
  [['info', '/nonexistent/file'], /cannot read filter \/nonexistent\/file: ENOENT/],
  [['query'], /query takes a FILE/],
  [['build', 'x'], /build needs -o FILE/],
  [['build', '/nonexistent', '-o', '/tmp/x'], /cannot read list/],
  [['frobnicate'], /unknown command "frobnicate"/],
  [['build', 'list', '-o', 'x', '--fpr', 'abc'], /--fpr must be a number/],
  [[], /missing command/],
])('%p: one line on stderr, exit code 1', (args, message) => {
  const r = run(args as string[]);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
});

test('a corrupt filter file: one-line FilterFormatError message, exit code 1', () => {
  writeFileSync(join(dir, 'bad.cuckoo'), 'not a filter at all, just text');
  const r = run(['info', join(dir, 'bad.cuckoo')]);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/bad\.cuckoo: not a valid cuckoo-wasm filter/);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  const bad = run(['build', join(dir, 'list.txt'), '-o', join(dir, 'z'), '--bucket-size', '3']);
  expect(bad.status).toBe(1);
  expect(bad.stderr).toMatch(/bucketSize must be 2, 4 or 8/);
});

describe('lists as real blocklists are written', () => {
  const keys = Array.from({ length: 100 }, (_, i) => `key-${i}.example`);
  beforeAll(() => {
    writeFileSync(join(dir, 'ten.txt'), 'dup.example\n'.repeat(10));
    writeFileSync(join(dir, 'hundred.txt'), keys.join('\n') + '\n');
    writeFileSync(join(dir, 'thousands.txt'), Array.from({ length: 5000 }, (_, i) => `k${i}.example`).join('\n'));
  });

  test('build: a key on 10 lines is added once and the 9 repeats are reported', () => {
    const r = run(['build', join(dir, 'ten.txt'), '-o', join(dir, 'ten.cuckoo')]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/keys added:\s+1\n/);
    expect(r.stdout).toMatch(/duplicates skipped:\s+9\n/);
    expect(run(['query', join(dir, 'ten.cuckoo'), 'dup.example']).stdout).toBe('dup.example\tyes\n');
    // The capacity is the number of distinct keys.
    expect(run(['info', join(dir, 'ten.cuckoo')]).stdout).toMatch(/items:\s+1\ncapacity:\s+1\n/);
    // Also when the list has no repeats, the line says 0.
    expect(run(['build', join(dir, 'hundred.txt'), '-o', join(dir, 'h.cuckoo')]).stdout).toMatch(/duplicates skipped:\s+0\n/);
  });

  test('build --keep-duplicates: every copy is added and counted in the capacity; past 2b copies the message says why', () => {
    writeFileSync(join(dir, 'some-dups.txt'), [...keys, 'key-1.example', 'key-1.example', 'key-2.example'].join('\n'));
    const r = run(['build', join(dir, 'some-dups.txt'), '-o', join(dir, 'kd.cuckoo'), '--keep-duplicates']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/keys added:\s+103\n/);
    expect(r.stdout).toMatch(/duplicates kept:\s+3\n/);
    expect(run(['info', join(dir, 'kd.cuckoo')]).stdout).toMatch(/items:\s+103\ncapacity:\s+103\n/);

    const full = run(['build', join(dir, 'ten.txt'), '-o', join(dir, 'tk.cuckoo'), '--keep-duplicates']);
    expect(full.status).toBe(1);
    expect(full.stderr).toMatch(/"dup\.example" occurs 10 times, and a cuckoo filter stores a key at most 2b \+ 1 = 9 times/);
    expect(full.stderr).toMatch(/Omit --keep-duplicates/);
    expect(full.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('a repeated key of 100,000 characters: the message quotes its start and length, on one short line', () => {
    writeFileSync(join(dir, 'long-dups.txt'), `${'x'.repeat(100_000)}\n`.repeat(10));
    const r = run(['build', join(dir, 'long-dups.txt'), '-o', join(dir, 'ld.cuckoo'), '--keep-duplicates']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/"x{40}\.\.\." \(100000 characters\) occurs 10 times/);
    expect(r.stderr.length).toBeLessThan(500);
  });

  test('a BOM, CRLF, lone CR, spaces, tabs, blank and comment lines: query of the very list on stdin answers yes for every key', () => {
    const list =
      '\uFEFF  first.example  \r\n' +
      '# a comment\r\n' +
      '\r\n' +
      '\tsecond.example\t\r\n' +
      '   \r\n' +
      '   # an indented comment\r\n' +
      'third.example\r' +
      'fourth.example\n' +
      'fifth.example';
    writeFileSync(join(dir, 'messy.txt'), list);
    const b = run(['build', join(dir, 'messy.txt'), '-o', join(dir, 'messy.cuckoo')]);
    expect(b.stderr).toBe('');
    expect(b.stdout).toMatch(/keys added:\s+5\n/);
    const q = run(['query', join(dir, 'messy.cuckoo')], list);
    expect(q.status).toBe(0);
    // One output line per key, none for blank or comment lines, keys as build stored them.
    expect(q.stdout).toBe(
      ['first', 'second', 'third', 'fourth', 'fifth'].map((k) => `${k}.example\tyes\n`).join(''),
    );
    const args = run(['query', join(dir, 'messy.cuckoo'), 'first.example', 'fifth.example', 'sixth.example']);
    expect(args.stdout).toBe('first.example\tyes\nfifth.example\tyes\nsixth.example\tno\n');
  });

  test('--max-kicks is passed to the filter; with 0 a list that needs evictions fails with a message saying so', () => {
    const ok = run(['build', join(dir, 'list.txt'), '-o', join(dir, 'mk.cuckoo'), '--max-kicks', '0']);
    expect(ok.stderr).toBe('');
    expect(run(['info', join(dir, 'mk.cuckoo')]).stdout).toMatch(/max kicks:\s+0\n/);
    run(['build', join(dir, 'list.txt'), '-o', join(dir, 'mk.cuckoo'), '--max-kicks', '1000000']);
    expect(run(['info', join(dir, 'mk.cuckoo')]).stdout).toMatch(/max kicks:\s+1000000\n/);

    const full = run(['build', join(dir, 'thousands.txt'), '-o', join(dir, 'mk0.cuckoo'), '--max-kicks', '0']);
    expect(full.status).toBe(1);
    expect(full.stderr).toMatch(/--max-kicks 0 allows no evictions.*Raise --max-kicks/);
    expect(full.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('a capacity below the number of keys: the message says to raise it or omit it', () => {
    const r = run(['build', join(dir, 'hundred.txt'), '-o', join(dir, 'small.cuckoo'), '--capacity', '10']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/capacity 10 is below the 100 keys of .*hundred\.txt: raise --capacity or omit it/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  test.each([
    [['--capacity', '1e12'], /--capacity 1e12 is too large at --fpr 0\.001: .*Lower --capacity, or raise --fpr/],
    [['--capacity', '1e300'], /--capacity 1e300 is too large: a filter may use at most 1 GiB of memory\. Lower --capacity/],
    [['--capacity', '-5'], /--capacity must be at least 1, got -5: omit it to size the filter to the list/],
    [['--capacity', '0'], /--capacity must be at least 1, got 0: omit it/],
    [['--capacity', '1.5'], /--capacity must be a whole number of keys, got 1\.5/],
    [['--fpr', '2'], /--fpr must be a number between 0 and 1 \(a false-positive rate such as 0\.001 for 0\.1%\), got 2/],
    [['--fpr', '0'], /--fpr must be a number between 0 and 1 .*, got 0/],
    [['--fpr', '1'], /--fpr must be a number between 0 and 1 .*, got 1/],
    [['--fpr', '-0.1'], /--fpr must be a number between 0 and 1 .*, got -0\.1/],
    [['--fpr', '1e-12'], /--fpr 1e-12 is below 1\.86e-9, the lowest rate 32-bit fingerprints give with bucket size 4 \(2b\/2\^32\): raise --fpr/],
    [['--fpr', '3e-9', '--expansion', '2'], /--fpr 3e-9 is below 3\.73e-9, the lowest rate 32-bit fingerprints give with bucket size 4 \(2b\/2\^32\) in a filter that grows \(twice that\): raise --fpr/],
    [['--max-kicks', '-1'], /--max-kicks must be at least 0, got -1/],
    [['--max-kicks', '2000000'], /--max-kicks must be at most 1000000, got 2000000: omit it for the default, 500/],
    [['--max-kicks', '2.5'], /--max-kicks must be a whole number of evictions, got 2\.5/],
  ])('build %p: a one-line message saying what to give, exit code 1', (options, message) => {
    const r = run(['build', join(dir, 'list.txt'), '-o', join(dir, 'never.cuckoo'), ...(options as string[])]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('missing files: what could not be read or written, and why', () => {
    const list = run(['build', '/nonexistent/list.txt', '-o', join(dir, 'm.cuckoo')]);
    expect(list.status).toBe(1);
    expect(list.stderr).toBe('cuckoo-wasm: cannot read list /nonexistent/list.txt: ENOENT (no such file or directory)\n');
    const filter = run(['query', join(dir, 'missing.cuckoo'), 'a']);
    expect(filter.status).toBe(1);
    expect(filter.stderr).toMatch(/cannot read filter .*missing\.cuckoo: ENOENT \(no such file or directory\)\n$/);
    const out = run(['build', join(dir, 'list.txt'), '-o', '/nonexistent/dir/f.cuckoo']);
    expect(out.status).toBe(1);
    expect(out.stderr).toBe('cuckoo-wasm: cannot write filter /nonexistent/dir/f.cuckoo: ENOENT (no such file or directory)\n');
  });
});

describe('filter types and growth: --type, --expansion; query and info read either type', () => {
  const keys = Array.from({ length: 200 }, (_, i) => `grow-${i}.example`);
  beforeAll(() => {
    writeFileSync(join(dir, 'two-hundred.txt'), keys.join('\n') + '\n');
    writeFileSync(join(dir, 'three-hundred.txt'), Array.from({ length: 300 }, (_, i) => `k${i}.example`).join('\n'));
  });
  const oneLine = (r: ReturnType<typeof run>) => {
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    return r.stderr;
  };

  test('build --type bloom: m and k from the formula, version-4 bytes of family Bloom; info and query read it', () => {
    const file = join(dir, 'f.bloom');
    const r = run(['build', join(dir, 'list.txt'), '-o', file, '--type', 'bloom']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // 3 keys at the default --fpr 0.001: m = ⌈3·ln(1000)/(ln 2)²⌉ = 44 bits, k = round(44/3·ln 2) = 10.
    expect(r.stdout).toMatch(/keys added:\s+3\n/);
    expect(r.stdout).toMatch(/bits, hash count:\s+44 bits, k = 10 \(sub-filters 1\)\n/);
    expect(r.stdout).toMatch(/false-positive rate: [\d.e-]+ expected \(sized for 0\.001\)\n/);
    const bytes = readFileSync(file);
    expect(r.stdout).toContain(`bytes:               ${bytes.length}\n`);
    expect(bytes.length).toBe(32 + 48 + 8 + 8);
    // version 4, family Bloom, encoding 0, scheme 2 (independent positions), growth 0, hash id 1, one sub-filter
    expect([...bytes.subarray(4, 12)]).toEqual([4, 0, 2, 0, 2, 0, 1, 1]);

    const info = run(['info', file]);
    expect(info.stderr).toBe('');
    expect(info.stdout).toMatch(/^type:\s+bloom\nitems:\s+3\nestimated items:\s+3\ncapacity:\s+3\nbits:\s+44\nhash functions:\s+10\n/);
    expect(info.stdout).toMatch(/expansion:\s+none \(does not grow\)\n/);
    expect(info.stdout).toMatch(/false-positive rate: [\d.e-]+ expected, sized for 0\.00100\n/);
    expect(info.stdout).toMatch(/sub-filters:\s+1\n$/); // and no sub-filter lines
    expect(info.stdout).toMatch(/\nformat version:\s+4\n/);

    expect(run(['query', file, 'evil.example', 'good.example']).stdout).toBe('evil.example\tyes\ngood.example\tno\n');
    const stdin = run(['query', file], 'phish.example\n# comment\ntracker.example\n');
    expect(stdin.stdout).toBe('phish.example\tyes\ntracker.example\tyes\n');
  });

  test('info of a version-2 Bloom filter (from an earlier release) says so and how to get version 4; query reads it', () => {
    const file = join(__dirname, '..', 'golden', 'bloom-v2.bin');
    const info = run(['info', file]);
    expect(info.stderr).toBe('');
    expect(info.stdout).toMatch(/\nformat version:\s+2 \(an earlier release's bit positions: build it again from the keys for version 4, docs\/FORMAT\.md §11\.6\)\n/);
    expect(info.stdout).toMatch(/^type:\s+bloom\nitems:\s+15\n/);
    expect(run(['query', file, 'b0', 'b14']).stdout).toBe('b0\tyes\nb14\tyes\n');
  });

  test('build --type bloom --expansion 2: the filter grows; info lists each sub-filter; query finds every key', () => {
    const file = join(dir, 'g.bloom');
    const r = run(['build', join(dir, 'two-hundred.txt'), '-o', file, '--type', 'bloom', '--fpr', '0.01', '--capacity', '20', '--expansion', '2']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/keys added:\s+200\n/);
    expect(r.stdout).toMatch(/\(sub-filters 4\)\n/);
    const info = run(['info', file]).stdout;
    expect(info).toMatch(/^type:\s+bloom\nitems:\s+200\n/);
    expect(info).toMatch(/expansion:\s+2\n/);
    expect(info).toMatch(/sub-filters:\s+4\n/);
    const subs = [...info.matchAll(/^ {2}sub-filter (\d): (\d+) items, capacity (\d+), (\d+) bits, k = (\d+), sized for ([\d.e-]+), (\d+) bytes$/gm)];
    expect(subs.map((m) => [Number(m[1]), Number(m[2]), Number(m[3])])).toEqual([
      [0, 20, 20],
      [1, 40, 40],
      [2, 80, 80],
      [3, 60, 160],
    ]);
    subs.forEach((m, j) => {
      const eps = 0.01 / 2 ** (j + 1);
      const bits = Math.ceil((-Number(m[3]) * Math.log(eps)) / Math.LN2 ** 2);
      expect([j, Number(m[4]), Number(m[5]), Number(m[6])]).toEqual([j, bits, Math.round((bits / Number(m[3])) * Math.LN2), Number(eps.toPrecision(3))]);
    });
    expect(subs.reduce((t, m) => t + Number(m[7]), 0)).toBe(readFileSync(file).length - 40); // version 4's header and checksum
    const q = run(['query', file], keys.join('\n'));
    expect(q.stdout).toBe(keys.map((k) => `${k}\tyes\n`).join(''));
  });

  test('build --expansion 3 (cuckoo): version-4 bytes, sub-filters of 3× the buckets and one more fingerprint bit; without it, version 4 without growth', () => {
    const file = join(dir, 'g.cuckoo');
    const r = run(['build', join(dir, 'two-hundred.txt'), '-o', file, '--capacity', '20', '--expansion', '3']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/fingerprint bits:\s+14 \(bucket size 4, semi-sorted, load factor [\d.]+, sub-filters 3\)\n/);
    const bytes = readFileSync(file);
    expect([bytes[4], bytes[6], bytes[9], bytes[11]]).toEqual([4, 1, 1, 3]); // version 4, cuckoo, growth 1, 3 sub-filters
    const info = run(['info', file]).stdout;
    expect(info).toMatch(/^type:\s+cuckoo\nitems:\s+200\ncapacity:\s+20\n/);
    expect(info).toMatch(/expansion:\s+3\n/);
    expect(info).toMatch(/sub-filters:\s+3\n/);
    const subs = [...info.matchAll(/^ {2}sub-filter (\d): (\d+) items, capacity (\d+), (\d+) buckets, f = (\d+), load factor ([\d.]+), (\d+) bytes$/gm)];
    expect(subs.map((m) => [Number(m[3]), Number(m[5])])).toEqual([
      [20, 14],
      [60, 15],
      [180, 16],
    ]);
    expect(subs.map((m) => Number(m[4]))).toEqual([1, 3, 9].map((x) => x * Number(subs[0][4])));
    expect(subs.reduce((t, m) => t + Number(m[2]), 0)).toBe(200);
    expect(run(['query', file], keys.join('\n')).stdout).toBe(keys.map((k) => `${k}\tyes\n`).join(''));

    // --type cuckoo is the default; without --expansion the file is version 4 with growth 0.
    run(['build', join(dir, 'two-hundred.txt'), '-o', join(dir, 'a.cuckoo')]);
    run(['build', join(dir, 'two-hundred.txt'), '-o', join(dir, 'b.cuckoo'), '--type', 'cuckoo']);
    const a = readFileSync(join(dir, 'a.cuckoo'));
    expect(a.equals(readFileSync(join(dir, 'b.cuckoo')))).toBe(true);
    expect([a[4], a[9], a[11]]).toEqual([4, 0, 1]);
    expect(run(['info', join(dir, 'a.cuckoo')]).stdout).toMatch(/expansion:\s+none \(does not grow\)\nbytes:.*\n.*\n.*\nsub-filters:\s+1\n$/);
  });

  test('--type bloom takes rates below what 32-bit fingerprints give, and repeated keys (no 2b limit)', () => {
    const r = run(['build', join(dir, 'list.txt'), '-o', join(dir, 'tiny-rate.bloom'), '--type', 'bloom', '--fpr', '1e-12']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/k = 40 \(sub-filters 1\)/);
    writeFileSync(join(dir, 'dups.txt'), 'dup.example\n'.repeat(10));
    const d = run(['build', join(dir, 'dups.txt'), '-o', join(dir, 'dups.bloom'), '--type', 'bloom', '--keep-duplicates']);
    expect(d.stderr).toBe('');
    expect(d.stdout).toMatch(/keys added:\s+10\n/);
    expect(run(['info', join(dir, 'dups.bloom')]).stdout).toMatch(/items:\s+10\nestimated items:\s+1\ncapacity:\s+10\n/);
  });

  test('a Bloom filter at its growth limit: one line saying how far it got and why, exit 1, no file written', () => {
    const out = join(dir, 'limit.bloom');
    const r = run(['build', join(dir, 'three-hundred.txt'), '-o', out, '--type', 'bloom', '--fpr', '1e-17', '--capacity', '1', '--expansion', '2']);
    expect(oneLine(r)).toMatch(/^cuckoo-wasm: the filter is full after 255 of the 300 keys of .*three-hundred\.txt: the filter is full and cannot grow further \(8 sub-filters/);
    expect(() => readFileSync(out)).toThrow(/ENOENT/);
  });

  test('corrupt or truncated files of either type: one line naming the file, exit 1', () => {
    for (const name of ['g.bloom', 'g.cuckoo']) {
      const bytes = readFileSync(join(dir, name));
      writeFileSync(join(dir, `cut-${name}`), bytes.subarray(0, 60));
      for (const args of [['info', join(dir, `cut-${name}`)], ['query', join(dir, `cut-${name}`), 'a']]) {
        const r = run(args);
        expect(oneLine(r)).toMatch(new RegExp(`cut-${name.replace('.', '\\.')}: not a valid cuckoo-wasm filter: the bytes are truncated`));
      }
      const flipped = Buffer.from(bytes);
      flipped[100] ^= 4;
      writeFileSync(join(dir, `flip-${name}`), flipped);
      expect(oneLine(run(['info', join(dir, `flip-${name}`)]))).toMatch(/not a valid cuckoo-wasm filter/);
    }
  });

  test.each([
    [['--type', 'bloom', '--bucket-size', '4'], /^cuckoo-wasm: --bucket-size is for cuckoo filters; omit it with --type bloom/],
    [['--type', 'bloom', '--max-kicks', '10'], /^cuckoo-wasm: --max-kicks is for cuckoo filters; omit it with --type bloom/],
    [['--type', 'bloom', '--semi-sort'], /^cuckoo-wasm: --semi-sort is for cuckoo filters; omit it with --type bloom/],
    [['--semi-sort', '--bucket-size', '2'], /^cuckoo-wasm: --semi-sort needs --bucket-size 4 \(semi-sorted buckets hold four fingerprints\), got --bucket-size 2 \(see cuckoo-wasm --help\)$/m],
    [['--semi-sort', '--bucket-size', '8'], /--semi-sort needs --bucket-size 4 .*got --bucket-size 8/],
    [['--semi-sort', '--no-semi-sort'], /^cuckoo-wasm: give --semi-sort or --no-semi-sort, not both/],
    [['--type', 'bloom', '--no-semi-sort'], /^cuckoo-wasm: --no-semi-sort is for cuckoo filters; omit it with --type bloom/],
    [['--type', 'xor'], /^cuckoo-wasm: --type must be cuckoo, bloom or fuse, got "xor"/],
    [['--type', 'Bloom'], /^cuckoo-wasm: --type must be cuckoo, bloom or fuse, got "Bloom"/],
    [['--type='], /^cuckoo-wasm: --type must be cuckoo, bloom or fuse, got ""/],
    [['--expansion', '1'], /^cuckoo-wasm: --expansion must be at least 2, got 1: omit it for a filter that does not grow/],
    [['--expansion', '0'], /--expansion must be at least 2, got 0/],
    [['--expansion', '-3'], /--expansion must be at least 2, got -3/],
    [['--expansion', '1025'], /^cuckoo-wasm: --expansion must be at most 1024, got 1025: omit it for a filter that does not grow/],
    [['--expansion', 'Infinity'], /--expansion must be at most 1024, got Infinity/],
    [['--expansion', '2.5'], /^cuckoo-wasm: --expansion must be a whole number of times \(the growth factor\), got 2\.5/],
    [['--expansion', 'abc'], /^cuckoo-wasm: --expansion must be a number, got "abc"/],
    [['--type', 'bloom', '--expansion', '1'], /--expansion must be at least 2, got 1/],
    [['--type', 'bloom', '--fpr', '1e-30'], /need too large a filter at --fpr 1e-30: a Bloom filter for 3 keys .*more than 64 hash functions.*raise --fpr for fewer bits and hash functions per key$/m],
    [['--type', 'bloom', '--capacity', '1e12'], /--capacity 1e12 is too large at --fpr 0\.001: a Bloom filter .*Lower --capacity, or raise --fpr for fewer bits and hash functions per key$/m],
  ])('build %p: a one-line message, exit code 1, no file', (options, message) => {
    const out = join(dir, 'refused.out');
    const r = run(['build', join(dir, 'list.txt'), '-o', out, ...(options as string[])]);
    expect(oneLine(r)).toMatch(message);
    expect(() => readFileSync(out)).toThrow(/ENOENT/);
  });
});

test('build: a list that is not UTF-8 is refused, naming the line, and no file is written', () => {
  // Latin-1 "café" and "cafè": decoded as UTF-8 both would become "caf\uFFFD", one key.
  writeFileSync(join(dir, 'latin1.txt'), Buffer.from('ok.example\ncaf\xe9\ncaf\xe8\n', 'latin1'));
  const r = run(['build', join(dir, 'latin1.txt'), '-o', join(dir, 'latin1.cuckoo')]);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/latin1\.txt is not UTF-8 text \(line 2\)/);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(() => readFileSync(join(dir, 'latin1.cuckoo'))).toThrow();
});

test('query: a reader that stops early (| head -1) ends it quietly, exit code 0', () => {
  run(['build', join(dir, 'list.txt'), '-o', join(dir, 'pipe.cuckoo')]);
  const keys = join(dir, 'many-keys.txt');
  writeFileSync(keys, Array.from({ length: 300_000 }, (_, i) => `key-${i}.example`).join('\n'));
  const r = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${cli}" query "${join(dir, 'pipe.cuckoo')}" < "${keys}" | head -1`], {
    encoding: 'utf8',
  });
  expect(r.stdout).toBe('key-0.example\tno\n');
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
});

test('build streams a list longer than one sorted run (js/sources/sorted-entries.ts): repeats across runs counted, the keys found, the same filter from the list in another order, and its temporary folder removed, also on an error', () => {
  // 700,000 keys (more than one run of 524,288 entries), each tenth listed again 1,000 keys later.
  const keys = Array.from({ length: 700_000 }, (_, i) => `key-${i}.example`);
  const listed = keys.flatMap((k, i) => (i % 10 === 0 && i >= 1000 ? [k, keys[i - 1000]] : [k]));
  writeFileSync(join(dir, 'long.txt'), listed.join('\n'));
  writeFileSync(join(dir, 'long-reversed.txt'), [...listed].reverse().join('\n'));
  const temp = mkdtempSync(join(tmpdir(), 'cuckoo-cli-temp-'));
  const withTemp = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, TMPDIR: temp } });
  try {
    const r = withTemp(['build', join(dir, 'long.txt'), '-o', join(dir, 'long.cuckoo')]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/keys added:\s+700000\n/);
    expect(r.stdout).toMatch(/duplicates skipped:\s+69900\n/);
    expect(withTemp(['build', join(dir, 'long-reversed.txt'), '-o', join(dir, 'long-reversed.cuckoo')]).status).toBe(0);
    expect(readFileSync(join(dir, 'long-reversed.cuckoo')).equals(readFileSync(join(dir, 'long.cuckoo')))).toBe(true);
    const sample = keys.filter((_, i) => i % 7001 === 0);
    expect(run(['query', join(dir, 'long.cuckoo'), ...sample]).stdout).toBe(sample.map((k) => `${k}\tyes\n`).join(''));
    // An error after the first run was written: a line that is not a URL, near the end.
    writeFileSync(join(dir, 'long-urls.txt'), `${listed.join('\n')}\nnot a url\n`);
    const bad = withTemp(['build', '--urls', join(dir, 'long-urls.txt'), '-o', join(dir, 'long-urls.cuckoo')]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(new RegExp(`long-urls\\.txt:${listed.length + 1}: `));
    expect(readdirSync(temp)).toEqual([]);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
});
