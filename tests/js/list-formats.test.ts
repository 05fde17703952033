// The list formats of `cuckoo-wasm build --format` (js/sources/list-formats.ts): each format on the real
// samples of tests/lists (README.md there) and on rules written here, detection, and the CLI.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SkipKind, readList } from '../../js/sources/list-formats';

const lists = join(__dirname, '..', 'lists');
const sample = (name: string) => readFileSync(join(lists, name), 'utf8');
const SPAM404 = 'spam404-adblock.txt';
const HOSTS = 'blocklistproject-hosts.txt';
const keys = (text: string, format?: string, urls = false) => readList(text, format, { urls }).entries.map((e) => e.entry);
const counts = (text: string, format?: string, urls = false) =>
  Object.fromEntries(readList(text, format, { urls }).skipped.map((s) => [s.kind, s.count]));

describe('Adblock: the Spam404 sample', () => {
  const text = sample(SPAM404);

  test('auto: detected from its [Adblock Plus 2.0] header; every ||host^ and ||host rule gives its host, cosmetic rules counted', () => {
    const read = readList(text);
    expect(read.format).toBe('adblock');
    expect(read.detected).toBe('the first line is the header [Adblock Plus 2.0]');
    // The hosts, found line by line apart from the module: ||host^ or ||host.
    const expected = text.split('\n').flatMap((l) => /^\|\|([a-z0-9.-]+)\^?$/.exec(l)?.[1] ?? []);
    expect(expected).toHaveLength(256);
    expect(read.entries.map((e) => e.entry)).toEqual(expected);
    expect(read.entries.map((e) => e.entry)).toContain('moviefox.us'); // the rule without ^
    const lines = text.split('\n');
    for (const { entry, line } of read.entries) expect(lines[line - 1]).toMatch(new RegExp(`^\\|\\|${entry.replace(/\./g, '\\.')}\\^?$`));
    // 37 cosmetic rules: one with $ in its selector counts as cosmetic, not as options.
    expect(read.skipped).toEqual([{ kind: 'cosmetic', count: 37, example: '##[href^="http://cleanfiles.net/"]', line: 16 }]);
    expect(text).toContain(`##[onclick="$(this).hide(); $('#offerlst').show('slow');"]`);
    expect(read.report).toEqual([
      'format:              adblock (detected: the first line is the header [Adblock Plus 2.0])',
      'skipped:             37 cosmetic rules (element hiding, scriptlets: ##, #@#, #?#, #$#, #%#, $$), e.g. line 16: ##[href^="http://cleanfiles.net/"]',
    ]);
    // Every line is an entry, a skipped rule, a ! comment or the header: none is lost unreported.
    const comments = lines.filter((l) => l.startsWith('!') || l.startsWith('[')).length;
    expect(read.entries.length + 37 + comments).toBe(lines.filter((l) => l.trim() !== '').length);
  });

  test('also detected without its header, from its rules and comments', () => {
    expect(readList(text.slice(text.indexOf('\n') + 1)).format).toBe('adblock');
  });
});

describe('Adblock rules, one by one', () => {
  // [rule, entry without --urls, entry with --urls] or [rule, kind skipped]
  const cases: [string, string | SkipKind | null, (string | SkipKind)?][] = [
    ['||ads.example^', 'ads.example'],
    ['||ads.example^|', 'ads.example'],
    ['||ads.example', 'ads.example'],
    ['||Ads.Example^$important', 'Ads.Example'],
    ['||ads.example^$all', 'ads.example'],
    ['||xn--bcher-kva.example^', 'xn--bcher-kva.example'],
    ['||ads.example^$third-party', 'options'],
    ['||ads.example^$script,domain=news.example', 'options'],
    ['||ads.example^$important,third-party', 'options'],
    ['@@||ads.example^', 'exception'],
    ['@@||ads.example^$document', 'exception'],
    ['example.com##.ad-banner', 'cosmetic'],
    ['##.ad-banner', 'cosmetic'],
    ['example.com#@#.ad-banner', 'cosmetic'],
    ['example.com#?#div:has(> a.ad)', 'cosmetic'],
    ['example.com##+js(set-constant, ads, false)', 'cosmetic'],
    ['example.com#$#body { overflow: auto !important; }', 'cosmetic'],
    ['example.com#%#window.ads = 0;', 'cosmetic'],
    ['example.com$$script[data-src="ads"]', 'cosmetic'],
    ['/banner\\d+\\.gif/', 'regex'],
    ['/^https?:\\/\\/ads\\./$script', 'regex'],
    ['||ads.example/banner/*.gif', 'wildcard'],
    ['||ads.example^*/pixel', 'wildcard'],
    ['||*.ads.example^', 'wildcard'],
    ['/ads/banner.', 'unanchored'],
    ['&ad_type=', 'unanchored'],
    ['ads.example^', 'unanchored'],
    ['|javascript:', 'unanchored'],
    ['||bad%host.example^', 'not-a-host'],
    ['||ads.example/track', 'needs-urls', 'ads.example/track'],
    ['||ads.example:8080^', 'needs-urls', 'ads.example:8080/'],
    ['||ads.example/pixel.gif^', 'needs-urls', 'ads.example/pixel.gif'],
    ['|https://evil.example/login.php|', 'needs-urls', 'https://evil.example/login.php'],
    ['|http://evil.example/phish/', 'needs-urls', 'http://evil.example/phish/'],
    ['! a comment', null],
    ['[Adblock Plus 2.0]', null],
    ['# a uBlock comment', null],
  ];
  // One argument per case: jest.each would take a missing third value for a done callback.
  test.each(cases.map((c) => [c[0], c] as const))('%s', (_, [rule, plain, withUrls]) => {
    for (const urls of [false, true]) {
      const read = readList(`[Adblock Plus 2.0]\n${rule}\n`, 'auto', { urls });
      expect(read.format).toBe('adblock');
      const want = urls && withUrls !== undefined ? withUrls : plain;
      const isKind = want !== null && (want in { cosmetic: 1, exception: 1, regex: 1, options: 1, wildcard: 1, unanchored: 1, 'not-a-host': 1, 'needs-urls': 1 });
      if (want === null) {
        expect([read.entries, read.skipped]).toEqual([[], []]);
      } else if (isKind) {
        expect(read.entries).toEqual([]);
        expect(read.skipped).toEqual([{ kind: want, count: 1, example: rule, line: 2 }]);
        expect(read.report[1]).toMatch(new RegExp(`^skipped: +1 `));
      } else {
        expect(read.entries).toEqual([{ entry: want, line: 2 }]);
        expect(read.skipped).toEqual([]);
      }
    }
  });

  test('kinds are reported in one fixed order, each with its count and first example', () => {
    const text = ['[Adblock Plus 2.0]', '@@||a.example^', '||b.example^$popup', '##.ad', '@@||c.example^', '||d.example^', '/x/', '##.ad2'].join('\n');
    expect(readList(text).skipped).toEqual([
      { kind: 'cosmetic', count: 2, example: '##.ad', line: 4 },
      { kind: 'exception', count: 2, example: '@@||a.example^', line: 2 },
      { kind: 'regex', count: 1, example: '/x/', line: 7 },
      { kind: 'options', count: 1, example: '||b.example^$popup', line: 3 },
    ]);
    expect(keys(text)).toEqual(['d.example']);
  });
});

describe('hosts', () => {
  test('the blocklistproject sample: its 256 hosts, none of the local names or addresses', () => {
    const text = sample(HOSTS);
    const read = readList(text);
    expect(read.format).toBe('hosts');
    expect(read.detected).toMatch(/^97 of the first 97 lines that are not # comments are ADDRESS HOST$/);
    // After the 3 comment lines, 7 local-name lines, "0.0.0.0 0.0.0.0" and a blank line: one "0.0.0.0 HOST" per line.
    const expected = text.trimEnd().split('\n').slice(12).map((l) => l.replace(/^0\.0\.0\.0 /, ''));
    expect(expected).toHaveLength(256);
    expect(read.entries.map((e) => e.entry)).toEqual(expected);
    expect(read.skipped).toEqual([
      { kind: 'local-name', count: 9, example: 'localhost', line: 4 },
      { kind: 'address', count: 1, example: '0.0.0.0', line: 11 },
    ]);
    for (const local of ['localhost', 'localhost.localdomain', 'broadcasthost', 'ip6-localhost', 'ip6-loopback', 'ip6-allnodes', 'ip6-allrouters', '0.0.0.0']) {
      expect(read.entries.map((e) => e.entry)).not.toContain(local);
    }
  });

  test('several hosts per line, inline # comments, tabs, IPv6 addresses; a line without an address is counted', () => {
    const text = [
      '# ad servers',
      '0.0.0.0 ads.example tracker.example   # both ad servers',
      '127.0.0.1\tlocalhost\tmetrics.example',
      ':: ipv6.ads.example',
      '0.0.0.0 pixel.example#no space before the comment',
      '   ',
      'bare.example',
      '0.0.0.0 192.168.1.1',
      '0.0.0.0 LOCAL',
    ].join('\r\n');
    const read = readList(text);
    expect(read.format).toBe('hosts');
    expect(read.entries).toEqual([
      { entry: 'ads.example', line: 2 },
      { entry: 'tracker.example', line: 2 },
      { entry: 'metrics.example', line: 3 },
      { entry: 'ipv6.ads.example', line: 4 },
      { entry: 'pixel.example', line: 5 },
    ]);
    expect(read.skipped).toEqual([
      { kind: 'local-name', count: 2, example: 'localhost', line: 3 },
      { kind: 'address', count: 1, example: '192.168.1.1', line: 8 },
      { kind: 'no-address', count: 1, example: 'bare.example', line: 7 },
    ]);
  });

  test('an address where the host goes is skipped as an address, not as a local name, and reported as one', () => {
    const text = ['0.0.0.0 ads.example', '0.0.0.0 203.0.113.7', '127.0.0.1 ::1', ':: fe80::1%lo0 2001:db8::7', '127.0.0.1 localhost'].join('\n');
    const read = readList(text, 'hosts');
    expect(read.entries).toEqual([{ entry: 'ads.example', line: 1 }]);
    expect(read.skipped).toEqual([
      { kind: 'local-name', count: 1, example: 'localhost', line: 5 },
      { kind: 'address', count: 4, example: '203.0.113.7', line: 2 },
    ]);
    expect(read.report.slice(1)).toEqual([
      'skipped:             1 local names (localhost, broadcasthost, ip6-*, local), e.g. line 5: localhost',
      'skipped:             4 addresses in place of a host name (0.0.0.0 0.0.0.0, 127.0.0.1 ::1), e.g. line 2: 203.0.113.7',
    ]);
  });

  test('--format lines keeps hosts lines whole: the format is the user\'s to override', () => {
    expect(keys('0.0.0.0 ads.example\n', 'lines')).toEqual(['0.0.0.0 ads.example']);
    expect(keys('0.0.0.0 ads.example\n', 'hosts')).toEqual(['ads.example']);
  });
});

describe('CSV', () => {
  // URLhaus's layout: # comment lines, the last naming the columns; every field quoted.
  const urlhaus = [
    '################################################################',
    '# abuse.ch URLhaus Database Dump (CSV - recent URLs only)        #',
    '################################################################',
    '#',
    '# id,dateadded,url,url_status,last_online,threat,tags,urlhaus_link,reporter',
    '"101","2026-11-01 10:00:00","http://192.0.2.7:8080/bins/x86","online","2026-11-01 10:00:00","malware_download","elf,mirai","https://urlhaus.example/url/101/","someone"',
    '"102","2026-11-01 10:05:00","https://evil.example/a,b?q=""x""","offline","","malware_download","","https://urlhaus.example/url/102/","other"',
    '"103","2026-11-01 10:06:00","https://evil.example/line',
    'break","offline","","malware_download","","https://urlhaus.example/url/103/","other"',
    '"104","2026-11-01 10:07:00","","offline","","malware_download","","https://urlhaus.example/url/104/","other"',
    '',
  ].join('\r\n');

  test('URLhaus: the header in the last comment line, quoted fields (commas, "" quotes, line breaks), the url column by default with --urls', () => {
    const read = readList(urlhaus, 'auto', { urls: true });
    expect(read.format).toBe('csv');
    expect(read.column).toBe('url');
    expect(read.entries).toEqual([
      { entry: 'http://192.0.2.7:8080/bins/x86', line: 6 },
      { entry: 'https://evil.example/a,b?q="x"', line: 7 },
      { entry: 'https://evil.example/line\nbreak', line: 8 },
    ]);
    expect(read.skipped.map((s) => [s.kind, s.count, s.line])).toEqual([['no-value', 1, 10]]);
    expect(read.report[0]).toMatch(/^format: +csv \(column "url"\) \(detected: a header row of 9 column names \(id, dateadded, url, /);
  });

  test('a URL column is no domain key: without --urls the default column is refused, naming the fix', () => {
    expect(() => readList(urlhaus)).toThrow(
      'the CSV list\'s column "url" holds URLs: add --urls to take them as URL entries, or give --format csv:url to take them as keys',
    );
    expect(keys(urlhaus, 'csv:url')).toHaveLength(3);
  });

  test('the column by name (any case) or 1-based number; an unknown column lists the columns', () => {
    expect(keys(urlhaus, 'csv:reporter')).toEqual(['someone', 'other', 'other', 'other']);
    expect(keys(urlhaus, 'csv:URL_STATUS')).toEqual(['online', 'offline', 'offline', 'offline']);
    expect(keys(urlhaus, 'csv:1')).toEqual(['101', '102', '103', '104']);
    expect(() => readList(urlhaus, 'csv:host')).toThrow(/^the CSV list has no column "host": its columns are "id", "dateadded", "url", /);
  });

  test('a first-row header: the domain column by default; a one-column CSV is that column', () => {
    const text = 'first_seen,domain,source\n2026-01-01,ads.example,"feed, a"\n2026-01-02,"tracker.example",b\n';
    expect(readList(text).format).toBe('csv');
    expect(keys(text)).toEqual(['ads.example', 'tracker.example']);
    expect(keys('domain\nads.example\n', 'csv')).toEqual(['ads.example']);
    expect(() => readList('a,b\n1,2\n', 'csv')).toThrow(/none is named domain, host, hostname: give the column as --format csv:NAME/);
  });
});

describe('detection and --format', () => {
  test('domain and URL lists stay one entry per line, commas and # fragments included', () => {
    const domains = '# blocklist\nads.example\ntracker.example\n';
    const urls = 'http://evil.example/a,b\nhttps://phish.example/#/login\nhttp://192.0.2.1/x\nevil.example/path\n';
    expect(readList(domains).format).toBe('lines');
    expect(keys(domains)).toEqual(['ads.example', 'tracker.example']);
    expect(readList(urls).format).toBe('lines');
    expect(keys(urls)).toEqual(urls.trim().split('\n'));
    expect(readList(domains).report).toEqual(['format:              lines (detected: no other format fits: one entry per line)']);
    expect(readList(domains, 'lines').report).toEqual(['format:              lines']);
  });

  test('an unknown format, or a column for a format other than csv, is refused', () => {
    for (const bad of ['json', 'hosts:1', 'csv:', 'auto:url', '']) {
      expect(() => readList('a\n', bad)).toThrow(`--format must be auto, lines, hosts, adblock, csv or csv:COLUMN, got "${bad}"`);
    }
  });

  test('a byte order mark before a hosts or Adblock list does not hide its format', () => {
    expect(readList('\uFEFF[Adblock Plus 2.0]\n||a.example^\n').format).toBe('adblock');
    expect(keys('\uFEFF0.0.0.0 a.example\n')).toEqual(['a.example']);
  });
});

describe('cuckoo-wasm build --format, run as a user runs it', () => {
  const cli = join(__dirname, '..', '..', 'dist', 'cli.cjs');
  const run = (args: string[], input?: string) => spawnSync(process.execPath, [cli, ...args], { input, encoding: 'utf8' });
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cuckoo-formats-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the Spam404 Adblock list: format detected, 256 hosts added, 37 cosmetic rules reported; query finds the hosts', () => {
    const out = join(dir, 'spam404.cuckoo');
    const r = run(['build', join(lists, SPAM404), '-o', out]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^keys added: +256\nformat: +adblock \(detected: the first line is the header \[Adblock Plus 2\.0\]\)\nskipped: +37 cosmetic rules .*, e\.g\. line 16: ##\[href\^="http:\/\/cleanfiles\.net\/"\]\nduplicates skipped: +0\n/);
    const q = run(['query', out, 'gta5gratuit.com', 'moviefox.us', 'cleanfiles.net']);
    expect(q.stdout).toBe('gta5gratuit.com\tyes\nmoviefox.us\tyes\ncleanfiles.net\tno\n');
  });

  test('the hosts list: 256 hosts, local names and addresses reported; localhost is not in the filter', () => {
    const out = join(dir, 'hosts.cuckoo');
    const r = run(['build', join(lists, HOSTS), '-o', out, '--fpr', '0.0001']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^keys added: +256\nformat: +hosts \(detected: .*\)\nskipped: +9 local names .*\nskipped: +1 addresses .*e\.g\. line 11: 0\.0\.0\.0\n/);
    expect(run(['query', out, 'localhost', 'ip6-allnodes', '31383452.com']).stdout).toBe('localhost\tno\nip6-allnodes\tno\n31383452.com\tyes\n');
  });

  test('--urls: Adblock host rules block their whole site, URL rules their URL; without --urls the URL rules are reported', () => {
    const list = join(dir, 'rules.txt');
    writeFileSync(list, '[Adblock Plus 2.0]\n||ads.example^\n||cdn.example/ads/\n|https://phish.example/login.php|\n@@||ads.example/ok^\n');
    const plain = run(['build', list, '-o', join(dir, 'p.cuckoo')]);
    expect(plain.stdout).toMatch(/keys added: +1\n.*\nskipped: +1 exception rules \(@@\).*\nskipped: +2 URL rules .*add --urls to take them, e\.g\. line 3: \|\|cdn\.example\/ads\/\n/);
    const out = join(dir, 'u.cuckoo');
    const r = run(['build', list, '-o', out, '--urls']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^URL entries added: +3\nformat: +adblock .*\nskipped: +1 exception rules/);
    const q = run(['query', '--urls', out, 'http://sub.ads.example/x.js', 'http://cdn.example/ads/banner.gif', 'https://phish.example/login.php', 'https://phish.example/']);
    expect(q.stdout).toBe(
      'http://sub.ads.example/x.js\tyes\tads.example/\nhttp://cdn.example/ads/banner.gif\tyes\tcdn.example/ads/\n' +
        'https://phish.example/login.php\tyes\tphish.example/login.php\nhttps://phish.example/\tno\n',
    );
  });

  test('--format csv:url --urls on a URLhaus-style export; a bad --format is one line on stderr, exit 1', () => {
    const list = join(dir, 'urlhaus.csv');
    writeFileSync(list, '# id,dateadded,url,url_status\n"1","2026-11-01","http://evil.example/x.sh","online"\n"2","2026-11-01","http://192.0.2.9/bins/arm","online"\n');
    const out = join(dir, 'c.cuckoo');
    const r = run(['build', list, '-o', out, '--urls', '--format', 'csv:url']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^URL entries added: +2\nformat: +csv \(column "url"\)\n/);
    expect(run(['query', '--urls', out, 'http://evil.example/x.sh']).stdout).toBe('http://evil.example/x.sh\tyes\tevil.example/x.sh\n');
    const bad = run(['build', list, '-o', out, '--format', 'tsv']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe('cuckoo-wasm: --format must be auto, lines, hosts, adblock, csv or csv:COLUMN, got "tsv"\n');
  });
});
