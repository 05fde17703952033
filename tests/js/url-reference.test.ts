// The URL benchmark's JavaScript baseline (bench/url-reference.mjs, Safe
// Browsing's "URLs and Hashing" written again in JS) against the library's
// canonicalizeUrl and urlExpressions: the docs' examples (each side must give
// the docs' answer), the rules' edge cases of the native tests
// (tests/native/url_canon_test.cc, url_expressions_test.cc), 20,000 seeded
// random strings made of URL pieces, and every line of
// ../shared/data/phishing_urls.txt. For each input both sides must give the
// same canonical URL and the same expressions in the same order, or refuse it
// for the same reason. Every disagreement is listed in the failure.
//
// The reference is an ES module and Jest runs these tests as CommonJS, so it
// runs in a child Node process over a file of inputs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalizeUrl, urlExpressions } from 'cuckoo-wasm';
import { canonVectors, expressionVectors } from './vectors';

const root = join(__dirname, '..', '..');
const referencePath = join(root, 'bench', 'url-reference.mjs');
const phishingUrls = join(root, '..', 'shared', 'data', 'phishing_urls.txt');

/** A URL as a string, or as bytes (for inputs that are not UTF-8, as the docs' "\x01\x80"). */
type Input = string | Uint8Array;
type Outcome = { url: string; expressions: string[] } | { reason: string };

/** The bytes of a string of code units 0..255, one byte each ("\xC3\xBC" -> C3 BC). */
const bytes = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** Runs bench/url-reference.mjs over the inputs in a child process. */
function reference(inputs: Input[]): Outcome[] {
  const dir = mkdtempSync(join(tmpdir(), 'url-reference-'));
  try {
    const inFile = join(dir, 'in.json');
    const outFile = join(dir, 'out.json');
    writeFileSync(inFile, JSON.stringify(inputs.map((x) => (typeof x === 'string' ? x : { bytes: [...x] }))));
    const script = `
import { readFileSync, writeFileSync } from 'node:fs';
import { canonicalize, expressions } from ${JSON.stringify(referencePath)};
const inputs = JSON.parse(readFileSync(process.env.IN, 'utf8'));
const out = inputs.map((x) => {
  try {
    const c = canonicalize(typeof x === 'string' ? x : Uint8Array.from(x.bytes));
    return { url: c.url, expressions: expressions(c) };
  } catch (e) {
    if (typeof e.reason !== 'string') throw e;
    return { reason: e.reason };
  }
});
writeFileSync(process.env.OUT, JSON.stringify(out));
`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 120000,
      env: { ...process.env, IN: inFile, OUT: outFile },
    });
    if (r.error) throw r.error;
    if (r.status !== 0) throw new Error(`reference exited ${r.status} (${r.signal}):\n${r.stderr}`);
    return JSON.parse(readFileSync(outFile, 'utf8')) as Outcome[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The library's answer for one input. */
async function library(input: Input): Promise<Outcome> {
  const url = input as string; // the URL functions take a string or its UTF-8 bytes
  try {
    return { url: await canonicalizeUrl(url), expressions: await urlExpressions(url) };
  } catch (e) {
    const reason = (e as { reason?: unknown }).reason;
    if (typeof reason !== 'string') throw e;
    return { reason };
  }
}

const shown = (x: Input) => (typeof x === 'string' ? JSON.stringify(x) : `bytes ${Buffer.from(x).toString('hex')}`);

/** Inputs where the two sides disagree, each with both answers. */
async function disagreements(inputs: Input[]): Promise<string[]> {
  const ref = reference(inputs);
  const out: string[] = [];
  for (let i = 0; i < inputs.length; ++i) {
    const lib = await library(inputs[i]);
    if (JSON.stringify(lib) !== JSON.stringify(ref[i])) {
      out.push(`${shown(inputs[i])}\n  library:   ${JSON.stringify(lib)}\n  reference: ${JSON.stringify(ref[i])}`);
    }
  }
  return out;
}

// The docs' examples (tests/vectors/safe-browsing.json, read by the native tests too):
// v4 "Canonicalization" (33 vectors), the v4 prose and v5 reference on IPv6 hosts,
// v4 "Suffix/Prefix Expressions" and Chromium's trailing-slash case.
const DOCS_V4 = canonVectors('docs-v4') as [Input, string][];
const DOCS_PROSE = canonVectors('docs-prose') as [Input, string][];
const DOCS_EXPRESSIONS = [...expressionVectors('docs-v4'), ...expressionVectors('chromium')];

// The rules one at a time (inputs of the native tests, and a few more): both sides must agree.
const RULES: Input[] = [
  // Chromium's further cases.
  ...canonVectors('chromium').map(([input]) => input),
  // Tab, CR, LF; fragment; trimming; repeated decoding.
  'ht\ttp://ex\rample.com/a\n/b?c\td', 'http://example.com/%09%0a%0D', 'http://example.com/%0\t9',
  'http://example.com/a?b#c#d', 'http://example.com#x', 'http://example.com/a%23b', 'http://example.com/a?%2523',
  'http://example.com/a #b', '\x01\x02 http://example.com/ \x1f\x7f', ' \thttp://example.com/a b \n', 'http://example.com/a%20',
  'http://example.com/\0a', 'http://h/%2541', 'http://h/%252541', 'http://h/%%34%31', 'http://h/%%%34%31%31', 'http://h/%2%35%35',
  'http://h/%2%35%35%35', 'http://h/%4', 'http://h/%g1%', 'http://h/%e2%82%ac', `http://h/%${'25'.repeat(2000)}41`,
  // Hosts.
  'http://..a..B...c../', 'http://EXAMPLE.com./', 'http://a%2eb%2Ec/', 'http://a%20b%25c%23d%7f/', "http://a_b-c~d!$&'()*+,;=/", 'http://%41%42.com/',
  // IPv4 in every form, and names that only look like addresses.
  'http://1.2.3.4/', 'http://0x7f.1/', 'http://0X7F.0.0.1/', 'http://0300.0250.0.1/', 'http://192.168.1/', 'http://192.11010049/',
  'http://0xc0a80001/', 'http://3232235521/', 'http://030052000001/', 'http://0/', 'http://4294967295/', 'http://0x000000001.00002.3.4/',
  'http://1.2.3.4./', 'http://1..2.3.4/', 'http://1.2.3.4:8080/', 'http://4294967296/', 'http://1.2.3.256/', 'http://256.1.1.1/',
  'http://1.2.65536/', 'http://1.2.3.4.5/', 'http://08.1.1.1/', 'http://0x.1.1.1/', 'http://0xg.1.1.1/', 'http://1.2.3.4a/',
  'http://1.2.3.4%20/', 'http://-1.2.3.4/', 'http://0x100000000/', 'http://1.0xffffff/', 'http://1.0x1000000/', 'http://00000000000000000001/',
  // IPv6.
  'http://[::1]/', 'http://[::]/', 'http://[0:0:0:0:0:0:0:1]/', 'http://[1::]/', 'http://[ABCD:EF01::0001]/', 'http://[1:0:0:2::3:0]/',
  'http://[1:0:0:2:0:0:3:4]/', 'http://[2001:db8:0:1:1:1:1:1]/', 'http://[2001:db8::1:1:1:1:1]/', 'http://[::192.168.0.1]/',
  'http://[::ffff:c0a8:1]/', 'http://[0:0:0:0:0:FFFF:192.168.0.1]/', 'http://[64:ff9b::c0a8:1]/', 'http://[64:ff9b:1::1.2.3.4]/',
  'http://[::1]:8080/x', 'http://[::1]:/x', 'http://u:p@[::1]/', 'http://%5B::1%5D/', 'http://[::1/', 'http://[]/', 'http://[:]/',
  'http://[:::]/', 'http://[1::2::3]/', 'http://[1:2:3:4:5:6:7:8:9]/', 'http://[1:2:3:4:5:6:7]/', 'http://[1:2:3:4:5:6:7:8::]/',
  'http://[12345::]/', 'http://[::1.2.3]/', 'http://[::01.2.3.4]/', 'http://[::1.2.3.256]/', 'http://[1:2:3:4:5:6:7:1.2.3.4]/',
  'http://[fe80::1%25en0]/', 'http://[::1]x/', 'http://[::1]:8a/', 'http://[::g]/', 'http://[:1]/', 'http://[1:]/', 'http://[::1]]/',
  'http://[0:0:1:0:0:1:0:0]/', 'http://[1:0:0:0:1:0:0:0]/', 'http://[1:2:3:4:5:6::]/', 'http://[1:2:3:4:5:6:7::]/',
  // Paths and queries.
  'http://h', 'http://h?q', 'http://h/a/b/..', 'http://h/a/b/../', 'http://h/a/b/.', 'http://h/a/./b', 'http://h/./././a', 'http://h/../../a',
  'http://h/a/../../../b/', 'http://h/..', 'http://h/.', 'http://h/a/..b/.c/...', 'http://h/a/%2e%2E/b', 'http://h/a%2fb%2F%2f/c',
  'http://h//a//b//', 'http://h/a/b//..', 'http://h/a b/c%20d', 'http://h/a?b/../c//d/./e', 'http://h/a/..?x', 'http://h/a\\b/..',
  'http://h/p?a=1&b=%32&c=%2F&d=a b', 'http://h/p?Q=UPPER&x=%7e', 'http://h/p??', 'http://h/p?', 'http://h/a/b/c/d/e/f',
  // Schemes, userinfo, ports.
  'HTTPS://Example.com/', 'Ftp://h/', 'git+ssh://h/x', 'evil.example/a', 'evil.example', 'evil.example?x', 'localhost:8080/x',
  'localhost:8080', 'localhost:8080?x', '1.2.3.4:80/x', 'user@evil.example/x', 'h%3A%2F%2Fevil.example/x', 'localhost:/x', 'a1+b.c-d:80x',
  'http://user:pass@evil.example:8080/a', 'http://a@b@evil.example/', 'http://evil.example:80/', 'https://evil.example:443/',
  'http://evil.example:/', 'http://evil.example:0080?x', 'http://evil.example%3A80/', 'http://us%40er@evil.example/',
  // Non-ASCII hosts (Punycode through the URL parser), and bytes that are not UTF-8.
  'http://Bücher.DE./a?b', 'https://user@..%E4%BD%A0%E5%A5%BD..com:443/x', '😀.example/', 'http://B%C3%BCcher.de:80/a%2523b/%2e%2e/c?d%09#frag',
  'http://ü/', 'http://ü.1.2/', 'http://xn--bcher-kva.de/', 'http://ü\ud800.com/', 'http://a.com/ü?€',
  bytes('http://\x80\xff.com/'), bytes('http://a%C0%AF.com/'), bytes('http://%ED%A0%80.com/'), bytes('http://%F4%90%80%80.com/'),
  bytes('http://%E4%BD.com/'), bytes('http://\xC3\xBC\x80.com/'), bytes('http://\xC3\xBC.\x80.com/'), bytes('http://\xC3\xBC@a.com/'),
  bytes('http://a.com/\xC3\xBC?\xE2\x82\xAC'),
  // Refusals.
  '', ' ', '\t\r\n', '\x01\x02\x1f ', '\0\0\0', '/path', '/', '//host/x', '?q', '#ref', '  #ref', 'http://', 'http:///x', 'http://?x',
  'http:', 'http:/x', 'http:x', 'http://user@/', 'http://user@:80/', 'http://:80/', 'mailto:a@b.c', 'a:b', '%2Fpath', 'http://.../',
  'http://./', 'http://a:b/', 'http://a:1:2/', 'http://1:2::3/', 'http://a[b/', 'http://a]b/', 'http://.[::1]/', 'http://%2E%2E/',
  'http://a%3Ab/', bytes('http://\xC3\xBC\xFF/'),
  // Expressions: label counts, path variants, the 30 limit, IP hosts, suffixes that parse as IPv4.
  'http://a/', 'http://a.b/', 'http://a.b.c.d/', 'http://a.b.c.d.e/', 'http://a.b.c.d.e.f/', 'http://a.b.c.d.e.f.g.h/', 'http://h/a/b/c/',
  'http://h/a/b/c/d/', 'http://h/a?x=1/2', 'http://h/a/?x', 'http://h/?x', 'http://h/q?', 'http://h?', 'http://a.b.c.d.e.f.g/1/2/3/4/5.html?q=1',
  'http://1.2.3.4/a/b?c', 'http://[2001:db8::1]/a', 'http://[::ffff:10.0.0.1]/', 'http://a.1.2.3/', 'http://a.b.0x10.7/', 'http://a.1.2.com/',
  'http://a%20b.c%23d.e/%25/x y?%', 'http://www.evil.example/deeper/path', 'http://a.10.0.0.1/', 'http://1.2.3.4.5/dir/x',
  'http://a.010.0.0.1/',
];

/** Seeded random strings of URL pieces: the rules' corners in combinations no table lists. */
function randomInputs(count: number): string[] {
  const pieces = [
    'a', 'B', '.', '..', '/', '//', '?', '#', '%', '%2', '%25', '%2e', '%2E', '%2f', '%23', '%3A', '%5B', '%5D', '%41', '%C3%BC',
    'ü', '€', '😀', '\ud800', ':', ':80', '@', '[', ']', '::', '1', '0x', '0', '255', '256', '08', '07', 'ff', 'ffff', '64:ff9b',
    '\t', '\n', ' ', '\x01', '\x7f', '\\', './', '../', '1.2.3.4', '0x7f.1', '[::1]', '[::ffff:1.2.3.4]', 'http://', 'https://',
    'HTTP://', 'ftp:', 'x:', 'www.', '.com', 'xn--bcher-kva', '%%', '%g1', '%252', '5', '3279880203', '~', '&', '=',
  ];
  let state = 0x9e3779b9;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const out: string[] = [];
  for (let i = 0; i < count; ++i) {
    let s = '';
    const n = 1 + Math.floor(next() * 10);
    for (let j = 0; j < n; ++j) s += pieces[Math.floor(next() * pieces.length)];
    out.push(s);
  }
  return out;
}

describe('bench/url-reference.mjs agrees with the library', () => {
  test("the docs' canonicalization vectors: both give the docs' answer", async () => {
    const inputs = [...DOCS_V4, ...DOCS_PROSE].map(([input]) => input);
    expect(DOCS_V4).toHaveLength(33);
    const ref = reference(inputs);
    for (let i = 0; i < inputs.length; ++i) {
      const want = [...DOCS_V4, ...DOCS_PROSE][i][1];
      expect({ input: shown(inputs[i]), url: (ref[i] as { url?: string }).url }).toEqual({ input: shown(inputs[i]), url: want });
      expect({ input: shown(inputs[i]), url: await canonicalizeUrl(inputs[i] as string) }).toEqual({ input: shown(inputs[i]), url: want });
    }
    expect(await disagreements(inputs)).toEqual([]);
  });

  test("the docs' expression examples: both give the docs' expressions, in order", async () => {
    const ref = reference(DOCS_EXPRESSIONS.map(([url]) => url));
    for (let i = 0; i < DOCS_EXPRESSIONS.length; ++i) {
      const [url, want] = DOCS_EXPRESSIONS[i];
      expect((ref[i] as { expressions: string[] }).expressions).toEqual(want);
      expect(await urlExpressions(url)).toEqual(want);
    }
  });

  test('the rules one at a time: the same canonical URL, expressions and refusals', async () => {
    expect(await disagreements(RULES)).toEqual([]);
  });

  test('20,000 seeded random strings of URL pieces', async () => {
    expect(await disagreements(randomInputs(20000))).toEqual([]);
  });

  const real = existsSync(phishingUrls);
  (real ? test : test.skip)('every line of ../shared/data/phishing_urls.txt (49,256 real URLs)', async () => {
    const urls = readFileSync(phishingUrls, 'utf8').split('\n').filter((s) => s.length > 0);
    expect(urls).toHaveLength(49256);
    const found = await disagreements(urls);
    expect({ disagreements: found.length, first: found.slice(0, 20) }).toEqual({ disagreements: 0, first: [] });
  });
});
