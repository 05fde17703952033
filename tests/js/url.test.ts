// URL blocklists through the public API: canonicalizeUrl and urlExpressions on
// every example of Google's Safe Browsing docs ("URLs and Hashing", v4 and the v5
// reference), the rules as src/url/url_canon.h, src/url/url_expressions.h and
// docs/URLS.md state them (where the core departs from Google's Go reference
// code on purpose, the documented behaviour is tested), and addUrl / addUrls /
// hasUrl / hasAllUrls / matchUrl on both filter types: entry forms, what an
// entry blocks, typed errors, internationalized hosts (which take a second
// crossing, also inside batches), user code running inside URL batches, and
// batches past one chunk. Random inputs: url-property.test.ts; the 49,256 real
// URLs: url-real-data.test.ts; the CLI: cli-url.test.ts.
import {
  ArgumentTypeError,
  BloomFilter,
  CuckooFilter,
  FilterDisposedError,
  InvalidUrlError,
  canonicalizeUrl,
  urlExpressions,
} from 'cuckoo-wasm';
import type { InvalidUrlReason, Key } from 'cuckoo-wasm';
import { FAMILIES as ALL_FAMILIES } from './families';
import { canonVectors, expressionVectors } from './vectors';

type UrlFilter = CuckooFilter | BloomFilter;

const enc = new TextEncoder();
/** The bytes of a string taken one byte per code unit (for inputs that are not UTF-8). */
const latin1 = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'));
/** canonicalizeUrl is typed for strings; at run time it takes UTF-8 bytes too, as the filters' methods do. */
const canonicalize = (url: Key) => canonicalizeUrl(url as string);
const expressionsOf = (url: Key) => urlExpressions(url as string);
/** A canonical URL without its scheme: the entry expression it is stored as, and the first of its expressions. */
const withoutScheme = (url: string) => url.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');

/**
 * Every family of families.ts, sized so that a false positive in these tests is
 * out of the question (per-probe rate about 2e-9: 32-bit fingerprints, a Bloom
 * filter at 1e-9; a growing cuckoo filter's first sub-filter is sized for ε/2;
 * seeds are fixed, so runs repeat).
 */
const FAMILIES: [string, (capacity?: number) => Promise<UrlFilter>][] = ALL_FAMILIES.map((family) => [
  family.name,
  (capacity = 1000) =>
    family.create({ capacity, falsePositiveRate: family.kind === 'bloom' ? 1e-9 : family.grows ? 4e-9 : 2e-9 }),
]);

/** The error `fn` throws (or rejects with), to look at its fields. */
async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error, got none');
}

function expectInvalidUrl(e: unknown, reason: InvalidUrlReason, index?: number): void {
  expect(e).toBeInstanceOf(InvalidUrlError);
  expect(e).toBeInstanceOf(TypeError);
  expect(e).toMatchObject({ name: 'InvalidUrlError', code: 'ERR_INVALID_URL', reason, index });
}

// ===========================================================================
// The docs' examples

// The docs' examples and Chromium's cases: tests/vectors/safe-browsing.json,
// the list the native tests (tests/native/url_canon_test.cc,
// url_expressions_test.cc) read too.

/**
 * developers.google.com/safe-browsing/v4/urls-hashing, "Canonicalization": the
 * list of Canonicalize("…") = "…" tests, verbatim, in the docs' order (33). The
 * docs write "http://\x01\x80.com/" as bytes (0x01 0x80): it is a Uint8Array.
 */
const DOCS_V4 = canonVectors('docs-v4') as [Key, string][];
/**
 * The examples in the docs' prose: v4 (a fragment is removed; a URL gets a
 * path) and the v5 reference (safe-browsing/reference/URLs.and.Hashing) on
 * bracketed IPv6 hosts.
 */
const DOCS_PROSE = canonVectors('docs-prose') as [string, string][];
/** v4 "Suffix/Prefix Expressions": the three example URLs and what the client tries, in the docs' order. */
const DOCS_EXPRESSIONS = expressionVectors('docs-v4');

const show = (k: Key) => (typeof k === 'string' ? JSON.stringify(k) : `bytes ${JSON.stringify(Buffer.from(k).toString('latin1'))}`);

describe('Safe Browsing docs: every example', () => {
  test('the lists are whole: 33 v4 vectors, 5 prose examples, 3 expression examples (41)', () => {
    expect([DOCS_V4.length, DOCS_PROSE.length, DOCS_EXPRESSIONS.length]).toEqual([33, 5, 3]);
  });

  test.each(DOCS_V4.map(([input, want]) => [show(input), input, want] as const))(
    'v4 Canonicalize(%s)',
    async (_, input, want) => {
      expect(await canonicalize(input)).toBe(want);
      expect(await canonicalize(want)).toBe(want); // idempotent
    },
  );

  test.each(DOCS_PROSE)('prose: %j', async (input, want) => {
    expect(await canonicalizeUrl(input)).toBe(want);
    expect(await canonicalizeUrl(want)).toBe(want);
  });

  test.each(DOCS_EXPRESSIONS)('expressions of %j, in order', async (url, want) => {
    expect(await urlExpressions(url)).toEqual(want);
  });

  test('the docs\' "\\x01\\x80" host as a JS string is U+0080, a control character no IDNA mapping takes: bad-host', async () => {
    // As text, U+0080 is UTF-8 C2 80: valid UTF-8, so a non-ASCII host for the
    // platform's Punycode step, which refuses it (src/url/url_canon.h kUrlNonAsciiHost).
    expectInvalidUrl(await caught(() => canonicalizeUrl('http://\x01\x80.com/')), 'bad-host');
  });

  test.each(FAMILIES)('%s: each docs input as an entry blocks its canonical URL, matched as that URL without its scheme', async (_, make) => {
    const f = await make();
    const inputs = [...DOCS_V4, ...DOCS_PROSE];
    for (const [input] of inputs) f.addUrl(input);
    for (const [input, want] of inputs) {
      expect([show(input), f.matchUrl(want)]).toEqual([show(input), withoutScheme(want)]);
      expect(f.hasUrl(input)).toBe(true);
    }
    expect(f.hasAllUrls(inputs.map(([, want]) => want)).every(Boolean)).toBe(true);
    f.dispose();
  });

  test.each(FAMILIES)('%s: an entry for each expression of the docs\' URLs is found by that URL and matched as itself', async (_, make) => {
    for (const [url, expressions] of DOCS_EXPRESSIONS) {
      for (const e of expressions) {
        const f = await make();
        f.addUrl(e);
        expect([url, e, f.matchUrl(url)]).toEqual([url, e, e]);
        f.dispose();
      }
    }
  });
});

// ===========================================================================
// Beyond the docs

describe('other implementations\' vectors', () => {
  // Chromium, components/safe_browsing/core/common/v4_protocol_manager_util_unittest.cc (CanonicalizeUrl, UrlParsing).
  test.each(canonVectors('chromium').map(([input, want]) => [show(input), input, want] as const))(
    'Chromium: %s',
    async (_, input, want) => {
      if (typeof want === 'string') expect(await canonicalize(input)).toBe(want);
      else expectInvalidUrl(await caught(() => canonicalize(input)), want.refused as InvalidUrlReason);
    },
  );

  test.each(expressionVectors('chromium'))('Chromium: a path ending in "/" is not tried twice: %j', async (url, want) => {
    expect(await urlExpressions(url)).toEqual(want);
  });

  // github.com/google/safebrowsing urls_test.go TestCanonicalURL, with the divergences docs/URLS.md lists.
  test.each([
    ['http://www.\u00fcmlat.com/', 'http://www.xn--mlat-zra.com/'],
    ['http%3A%2F%2Fwackyurl.com:80/', 'http://wackyurl.com/'],
    ['http://W!eird<>Ho$^.com/', 'http://w!eird<>ho$^.com/'],
    ['ftp://ftp.myfiles.com/', 'ftp://ftp.myfiles.com/'],
    ['http://i.have.way.too.many.dots.com/', 'http://i.have.way.too.many.dots.com/'],
    ['http://[2001:470:1:18::114]/', 'http://[2001:470:1:18::114]/'],
    ['http://some%1bhost.com/%1b', 'http://some%1Bhost.com/%1B'], // divergence 1: uppercase hex, as the docs say
    ['http://www.google.com/q?r?s%3F', 'http://www.google.com/q?r?s?'], // divergence 2: the query is kept
    ['http://1.2.3.256/', 'http://1.2.3.256/'], // divergence 5: an out-of-range part makes a name, not 1.2.3.0
    ['HTTP://a.example/', 'http://a.example/'], // divergence 10: the scheme lowercased
    ['http://a.example/b/..', 'http://a.example/'], // divergence 12: ".." names a directory
    ['http://[::192.9.5.5]/ipng', 'http://[::c009:505]/ipng'], // divergence 7: RFC 5952 form
  ])('Go reference: %j', async (input, want) => {
    expect(await canonicalizeUrl(input)).toBe(want);
  });

  test.each([
    '', ':', '/blah', '#ref', '/blah#ref', '?query#ref', '/blah?query#ref', '/blah;param', 'http://#ref', 'http:///blah#ref',
    'http://?query#ref', 'http:///blah?query#ref', 'http:///blah;param', 'http:///blah;param?query#ref', 'mailto:bryner@google.com',
  ])('Go reference: %j has no host', async (input) => {
    expectInvalidUrl(await caught(() => canonicalizeUrl(input)), input === '' ? 'empty' : 'no-host');
  });

  test('Go reference: host suffixes from the last 5 labels (divergence 3), paths up to 4 prefixes', async () => {
    expect(await urlExpressions('a.b.c.d.e.f.g.h.i/')).toEqual(['a.b.c.d.e.f.g.h.i/', 'e.f.g.h.i/', 'f.g.h.i/', 'g.h.i/', 'h.i/']);
    expect(await urlExpressions('http://a.b.c/1/2/3/4/5/')).toEqual([
      'a.b.c/1/2/3/4/5/', 'a.b.c/', 'a.b.c/1/', 'a.b.c/1/2/', 'a.b.c/1/2/3/',
      'b.c/1/2/3/4/5/', 'b.c/', 'b.c/1/', 'b.c/1/2/', 'b.c/1/2/3/',
    ]);
    expect(await urlExpressions('http://a.b/?')).toEqual(['a.b/?', 'a.b/']); // divergence 13
    expect(await urlExpressions('[2001:470:1:18::114]/a/b')).toEqual(['[2001:470:1:18::114]/a/b', '[2001:470:1:18::114]/', '[2001:470:1:18::114]/a/']);
  });
});

describe('the rules as documented (src/url/url_canon.h, src/url/url_expressions.h, docs/URLS.md)', () => {
  test('every port is dropped, :80 and :443 included; userinfo too', async () => {
    expect(await canonicalizeUrl('http://evil.example:80/a')).toBe('http://evil.example/a');
    expect(await canonicalizeUrl('https://evil.example:443/a')).toBe('https://evil.example/a');
    expect(await canonicalizeUrl('https://evil.example:8443/a')).toBe('https://evil.example/a');
    expect(await canonicalizeUrl('http://u:p@evil.example:/a?q')).toBe('http://evil.example/a?q');
    expect(await canonicalizeUrl('evil.example:8080')).toBe('http://evil.example/');
  });

  test('a backslash is an ordinary byte, not a "/"; the query is decoded but never resolved', async () => {
    expect(await canonicalizeUrl('http://h.example/a\\b/..')).toBe('http://h.example/');
    expect(await canonicalizeUrl('http://h.example/p?a=%2F..%2F&b=a b')).toBe('http://h.example/p?a=/../&b=a%20b');
  });

  test('IPv4 in any inet_aton form and IPv6 in RFC 5952 form; only the exact host is tried for them', async () => {
    expect(await canonicalizeUrl('http://0x7f.1/')).toBe('http://127.0.0.1/');
    expect(await canonicalizeUrl('http://0300.0250.0.1/')).toBe('http://192.168.0.1/');
    expect(await canonicalizeUrl('http://[0:0:0:0:0:FFFF:192.168.0.1]/')).toBe('http://192.168.0.1/');
    expect(await urlExpressions('http://10.1.2.3/a/b?c')).toEqual(['10.1.2.3/a/b?c', '10.1.2.3/a/b', '10.1.2.3/', '10.1.2.3/a/']);
    expect(await urlExpressions('http://[2001:DB8::1]/a')).toEqual(['[2001:db8::1]/a', '[2001:db8::1]/']);
  });

  test('internationalized hosts become Punycode, in Unicode, percent-encoded UTF-8 and UTF-8 bytes alike', async () => {
    const want = 'http://www.xn--bcher-kva.example/a?q=%C3%BC';
    for (const input of [
      'http://www.bücher.example/a?q=ü',
      'http://WWW.BÜCHER.example./a?q=%C3%BC',
      'http://www.b%C3%BCcher.example/a?q=ü',
      'http://www.b%25C3%25BCcher.example/a?q=ü', // decoded twice
      'http://www.xn--bcher-kva.example/a?q=ü',
      'www.bücher.example:8080/x/../a?q=ü#frag',
    ]) {
      expect([input, await canonicalizeUrl(input)]).toEqual([input, want]);
    }
    expect(await canonicalize(enc.encode('http://www.bücher.example/a?q=ü'))).toBe(want);
    expect(await urlExpressions('http://a.bücher.example/x')).toEqual([
      'a.xn--bcher-kva.example/x', 'a.xn--bcher-kva.example/', 'xn--bcher-kva.example/x', 'xn--bcher-kva.example/',
    ]);
    // UTS #46 mappings by the platform's URL parser: full-width letters and digits, the ideographic full stop.
    expect(await canonicalizeUrl('http://ｅｘａｍｐｌｅ。com/')).toBe('http://example.com/');
    expect(await canonicalizeUrl('http://１２７.０.０.１/')).toBe('http://127.0.0.1/');
  });

  test('an internationalized host is not cut short or changed where the platform\'s URL parser would end a host or drop a character', async () => {
    // The core decodes %23 to '#' and %09 to a tab inside the host and keeps them (docs' "host%23.com");
    // the Punycode step must convert the whole host or refuse it, never a prefix or an altered host.
    expect(await canonicalizeUrl('http://x%23u.evil.example/login')).toBe('http://x%23u.evil.example/login');
    expect(await canonicalizeUrl('http://x%09u.evil.example/')).toBe('http://x%09u.evil.example/');
    for (const input of [
      'http://x%23ü.evil.example/login', // was http://x/login
      'http://x%5Cü.evil.example/login', // was http://x/login
      'http://ü\\x.evil.example/', // was http://xn--tda/
      'http://ü%23/', // was http://xn--tda/
      'http://x%09ü.evil.example/', // was http://xn--x-eha.evil.example/ (the tab dropped)
      'http://x%0Aü.evil.example/',
    ]) {
      const e = await caught(() => canonicalizeUrl(input)).catch((x) => x);
      expect([input, e instanceof InvalidUrlError ? (e as InvalidUrlError).reason : String(e)]).toEqual([input, 'bad-host']);
    }
  });

  test('expressions: at most 30, distinct, host-major, exact URL first', async () => {
    const e = await urlExpressions('http://a.b.c.d.e.f.g/1/2/3/4/5.html?q=1');
    expect(e).toHaveLength(30);
    expect(new Set(e).size).toBe(30);
    expect(e[0]).toBe('a.b.c.d.e.f.g/1/2/3/4/5.html?q=1');
    expect(e[6]).toBe('c.d.e.f.g/1/2/3/4/5.html?q=1');
    expect(e[29]).toBe('f.g/1/2/3/');
  });

  test('canonicalizeUrl and urlExpressions take UTF-8 bytes, also a view into a larger buffer', async () => {
    const backing = enc.encode('xxxhttp://WWW.Evil.example/a/./b#fyyy');
    const view = backing.subarray(3, backing.length - 3);
    expect(await canonicalize(view)).toBe('http://www.evil.example/a/b');
    expect(await expressionsOf(view)).toEqual(['www.evil.example/a/b', 'www.evil.example/', 'www.evil.example/a/', 'evil.example/a/b', 'evil.example/', 'evil.example/a/']);
  });
});

// ===========================================================================
// The filters' URL methods

describe.each(FAMILIES)('%s: URL entries and lookups', (_, make) => {
  let f: UrlFilter;
  beforeEach(async () => {
    f = await make();
  });
  afterEach(() => f.dispose());

  test('addUrl returns the filter; addUrls the count; both take any iterable or array-like', () => {
    expect(f.addUrl('a.example')).toBe(f);
    expect(f.addUrl('b.example').addUrl('c.example')).toBe(f);
    expect(f.addUrls(['d.example', 'http://e.example/'])).toBe(2);
    expect(f.addUrls(new Set(['f.example']))).toBe(1);
    expect(f.addUrls((function* () { yield 'g.example'; yield enc.encode('h.example'); })())).toBe(2);
    expect(f.addUrls({ length: 1, 0: 'i.example' })).toBe(1);
    expect(f.addUrls([])).toBe(0);
    expect(f.hasAllUrls('abcdefghi'.split('').map((c) => `http://www.${c}.example/p`)).every(Boolean)).toBe(true);
    expect(f.hasAllUrls([])).toEqual([]);
    expect(f.hasAllUrls(new Set(['http://x.example/', 'http://a.example/']))).toEqual([false, true]);
  });

  test('the entry forms: a URL, host + path, a bare host, each stored as one canonical expression', () => {
    f.addUrl('http://Full.example:8080/a/./b?x=1#frag'); // full.example/a/b?x=1
    f.addUrl('hostpath.example/login/'); // a folder
    f.addUrl('bare.example'); // bare.example/
    f.addUrl('https://scheme.example/page.html'); // the scheme is not part of the entry
    expect(f.matchUrl('http://full.example/a/b?x=1')).toBe('full.example/a/b?x=1');
    expect(f.matchUrl('https://hostpath.example/login/form.php')).toBe('hostpath.example/login/');
    expect(f.matchUrl('ftp://bare.example/anything')).toBe('bare.example/');
    expect(f.matchUrl('http://scheme.example/page.html')).toBe('scheme.example/page.html');
    expect(f.hasUrl('http://full.example/a/b')).toBe(false); // the entry has a query; the URL has none
    expect(f.hasUrl('http://scheme.example/')).toBe(false);
  });

  test('a bare host blocks its subdomains and every path, and nothing else', () => {
    f.addUrl('evil.example');
    for (const url of [
      'http://evil.example/', 'https://evil.example/a/b/c/d/e/f?x=1', 'http://www.evil.example/', 'http://a.b.c.d.e.f.evil.example/p',
      'evil.example', 'http://EVIL.EXAMPLE.:81/#x', 'http://user@evil.example/a%2Fb',
    ]) {
      expect([url, f.matchUrl(url)]).toEqual([url, 'evil.example/']);
    }
    for (const url of ['http://notevil.example/', 'http://evil.example.com/', 'http://evil.examples/', 'http://example/', 'http://evil-example/']) {
      expect([url, f.hasUrl(url)]).toEqual([url, false]);
    }
  });

  test('a host entry of more than 5 labels blocks only that host: suffixes come from the last 5 labels', () => {
    f.addUrl('a.b.c.d.e.f');
    expect(f.hasUrl('http://a.b.c.d.e.f/x')).toBe(true);
    expect(f.hasUrl('http://www.a.b.c.d.e.f/x')).toBe(false);
    f.addUrl('b.c.d.e.f');
    expect(f.matchUrl('http://x.y.a.b.c.d.e.f/')).toBe('b.c.d.e.f/');
  });

  test('a www. host blocks that host and its subdomains, not the domain or its siblings', () => {
    f.addUrl('www.shop.example');
    expect(f.hasUrl('http://www.shop.example/cart')).toBe(true);
    expect(f.hasUrl('http://a.www.shop.example/')).toBe(true);
    expect(f.hasUrl('http://shop.example/cart')).toBe(false);
    expect(f.hasUrl('http://mail.shop.example/')).toBe(false);
  });

  test('a folder blocks deeper paths (up to the docs\' 3 levels of prefixes) but not its siblings or its parent', () => {
    f.addUrl('site.example/login/');
    for (const url of [
      'http://site.example/login/', 'http://site.example/login/form.php?x=1', 'http://site.example/login/a/b/c/d.html',
      'http://www.site.example/login/x', 'http://site.example/a/../login/./x', 'http://site.example//login//x',
    ]) {
      expect([url, f.matchUrl(url)]).toEqual([url, 'site.example/login/']);
    }
    for (const url of [
      'http://site.example/', 'http://site.example/login', 'http://site.example/loginx/', 'http://site.example/other/login/',
      'http://site.example/Login/', 'http://other.example/login/',
    ]) {
      expect([url, f.hasUrl(url)]).toEqual([url, false]);
    }
    f.addUrl('deep.example/1/2/3/');
    expect(f.hasUrl('http://deep.example/1/2/3/4/5.html')).toBe(true);
    f.addUrl('deep.example/1/2/3/4/'); // a 4th level is matched exactly only
    expect(f.hasUrl('http://deep.example/1/2/3/4/')).toBe(true);
    expect(f.matchUrl('http://deep.example/1/2/3/4/5.html')).toBe('deep.example/1/2/3/');
    f.addUrl('deeper.example/1/2/3/4/');
    expect(f.hasUrl('http://deeper.example/1/2/3/4/5.html')).toBe(false);
  });

  test('an exact page with a query blocks that page and query only; a page without one blocks every query', () => {
    f.addUrl('http://shop.example/item.php?id=7');
    expect(f.hasUrl('http://shop.example/item.php?id=7')).toBe(true);
    expect(f.hasUrl('https://www.shop.example/item.php?id=7#reviews')).toBe(true);
    expect(f.hasUrl('http://shop.example/item.php?id=%37')).toBe(true); // decoded
    expect(f.hasUrl('http://shop.example/item.php?id=8')).toBe(false);
    expect(f.hasUrl('http://shop.example/item.php?ID=7')).toBe(false); // the query keeps its case
    expect(f.hasUrl('http://shop.example/item.php?id=7&x')).toBe(false);
    expect(f.hasUrl('http://shop.example/item.php')).toBe(false);
    f.addUrl('shop.example/page.html');
    expect(f.matchUrl('http://shop.example/page.html?utm=1')).toBe('shop.example/page.html');
    expect(f.hasUrl('http://shop.example/page.html/')).toBe(false);
    f.addUrl('empty.example/q?');
    expect(f.hasUrl('http://empty.example/q?')).toBe(true);
    expect(f.hasUrl('http://empty.example/q')).toBe(false);
  });

  test('never the top-level label alone: an entry "example" blocks only the host "example"', () => {
    f.addUrl('example').addUrl('com');
    expect(f.hasUrl('http://evil.example/')).toBe(false);
    expect(f.hasUrl('http://a.b.example/')).toBe(false);
    expect(f.hasUrl('http://google.com/')).toBe(false);
    expect(f.matchUrl('http://example/x')).toBe('example/');
  });

  test('IPv4 hosts in any form, matched as dotted decimal and only exactly', () => {
    f.addUrl('195.127.0.11').addUrl('http://0x7f.1/admin/');
    expect(f.matchUrl('http://3279880203/blah')).toBe('195.127.0.11/');
    expect(f.matchUrl('http://0303.0177.0.013/x')).toBe('195.127.0.11/');
    expect(f.matchUrl('http://[::ffff:195.127.0.11]/x')).toBe('195.127.0.11/');
    expect(f.matchUrl('http://127.0.0.1:8080/admin/x')).toBe('127.0.0.1/admin/');
    expect(f.hasUrl('http://127.0.0.1/')).toBe(false);
    expect(f.hasUrl('http://195.127.0.12/')).toBe(false);
  });

  test('a host of five labels ending in a dotted-decimal address is a name: that address is one of its suffixes', () => {
    f.addUrl('10.0.0.1').addUrl('2.3.4.5/dir/');
    expect(f.matchUrl('http://a.10.0.0.1/')).toBe('10.0.0.1/');
    expect(f.matchUrl('http://1.2.3.4.5/dir/x')).toBe('2.3.4.5/dir/');
    expect(f.hasAllUrls(['http://a.10.0.0.1/', 'http://1.2.3.4.5/dir/x', 'http://1.2.3.4.5/other'])).toEqual([true, true, false]);
  });

  test('IPv6 hosts: any spelling of the address, and IPv4-mapped ones as IPv4', () => {
    f.addUrl('[2001:DB8:0:0::1]').addUrl('http://[::ffff:10.0.0.1]/a/');
    expect(f.matchUrl('http://[2001:db8::1]/x')).toBe('[2001:db8::1]/');
    expect(f.matchUrl('https://u@[2001:0db8:0000:0000:0000:0000:0000:0001]:8443/')).toBe('[2001:db8::1]/');
    expect(f.matchUrl('http://10.0.0.1/a/b')).toBe('10.0.0.1/a/');
    expect(f.matchUrl('http://[64:ff9b::a00:1]/a/')).toBe('10.0.0.1/a/');
    expect(f.hasUrl('http://[2001:db8::2]/')).toBe(false);
  });

  test('internationalized hosts: an entry in Unicode, Punycode, percent-encoded UTF-8 or bytes matches every spelling', async () => {
    const spellings: Key[] = ['bücher.example/shop/', 'xn--bcher-kva.example/shop/', 'b%C3%BCcher.example/shop/', enc.encode('BÜCHER.example/shop/')];
    const urls: Key[] = [
      'http://bücher.example/shop/a', 'https://www.xn--bcher-kva.example/shop/b?c', 'http://www.b%C3%BCcher.example/shop/',
      enc.encode('http://BÜCHER.example/shop/x'), 'http://b%25C3%25BCcher.example/shop/#f',
    ];
    for (const entry of spellings) {
      const g = await make();
      g.addUrl(entry);
      for (const url of urls) expect([show(entry), show(url), g.matchUrl(url)]).toEqual([show(entry), show(url), 'xn--bcher-kva.example/shop/']);
      expect(g.hasAllUrls(urls)).toEqual(urls.map(() => true));
      expect(g.hasUrl('http://bücher.example/other/')).toBe(false);
      expect(g.hasUrl('http://bucher.example/shop/')).toBe(false);
      g.dispose();
    }
  });

  test('URLs as UTF-8 bytes: the same answers as the strings, views into larger buffers included', () => {
    f.addUrl(enc.encode('evil.example/a/'));
    f.addUrl(latin1('http://\x01\x80.com/')); // not UTF-8: the bytes are escaped (docs vector)
    const backing = enc.encode('__http://www.evil.example/a/b__');
    expect(f.hasUrl(backing.subarray(2, backing.length - 2))).toBe(true);
    expect(f.matchUrl(enc.encode('http://evil.example/a/'))).toBe('evil.example/a/');
    expect(f.matchUrl('http://%01%80.com/x')).toBe('%01%80.com/');
    expect(f.hasAllUrls([enc.encode('http://evil.example/b/'), 'http://evil.example/a/x', latin1('http://\x01\x80.com/')])).toEqual([false, true, true]);
  });

  test('matchUrl gives the first expression found (exact host first, then shorter; per host path with query, path, /, /1/, ...), or null', () => {
    f.addUrls(['evil.example', 'www.evil.example/a/', 'www.evil.example/a/b?q']);
    expect(f.matchUrl('http://www.evil.example/a/b?q')).toBe('www.evil.example/a/b?q');
    expect(f.matchUrl('http://www.evil.example/a/b')).toBe('www.evil.example/a/');
    expect(f.matchUrl('http://www.evil.example/c')).toBe('evil.example/');
    expect(f.matchUrl('http://good.example/')).toBeNull();
  });

  test('urlFalsePositiveRate is 1 - (1 - ε)^30 of the per-key rate', () => {
    expect(f.urlFalsePositiveRate).toBeCloseTo(1 - (1 - f.falsePositiveRate) ** 30, 15);
    expect(f.urlFalsePositiveRate).toBeGreaterThan(29 * f.falsePositiveRate);
    expect(f.urlFalsePositiveRate).toBeLessThanOrEqual(30 * f.falsePositiveRate);
  });

  test('URL entries and plain keys share the filter: an entry is its expression as a key', () => {
    f.addUrl('HTTP://Evil.example/a/./b');
    expect(f.has('evil.example/a/b')).toBe(true);
    f.add('plain.example/');
    expect(f.hasUrl('http://www.plain.example/x')).toBe(true);
  });
});

// ===========================================================================
// Errors

const TOO_LONG = 'http://h.example/' + 'a'.repeat(2 << 20);
/** Each refused input, the reason, and a label for test names. */
const BAD: [string, string, InvalidUrlReason][] = [
  ["''", '', 'empty'],
  ["'   '", '   ', 'empty'],
  ["'\\t\\r\\n\\x01'", '\t\r\n\x01', 'empty'],
  ["'#ref'", '#ref', 'no-host'],
  ["'/path'", '/path', 'no-host'],
  ["'http://'", 'http://', 'no-host'],
  ["'http:///x'", 'http:///x', 'no-host'],
  ["'mailto:a@b.example'", 'mailto:a@b.example', 'no-host'],
  ["'...'", '...', 'bad-host'],
  ["'http://[::1'", 'http://[::1', 'bad-host'],
  ["'http://a:b:c/'", 'http://a:b:c/', 'bad-host'],
  ["'http://ü%00.example/' (an IDN the platform refuses)", 'http://ü%00.example/', 'bad-host'],
  ['a URL of 2 MiB + 17 bytes', TOO_LONG, 'too-long'],
  ['2.2 MB of UTF-8 in 1.1 M code units', 'http://h/' + 'é'.repeat(1_100_000), 'too-long'],
];

describe('InvalidUrlError: reason, code, and nothing added', () => {
  test.each(BAD)('%s: canonicalizeUrl and urlExpressions reject', async (_, input, reason) => {
    expectInvalidUrl(await caught(() => canonicalizeUrl(input)), reason);
    expectInvalidUrl(await caught(() => urlExpressions(input)), reason);
    expectInvalidUrl(await caught(() => canonicalize(enc.encode(input))), reason);
  });

  test.each(FAMILIES)('%s: each refused input throws from addUrl, hasUrl, matchUrl; the filter is unchanged and still works', async (_, make) => {
    const f = await make();
    f.addUrl('kept.example');
    const before = Buffer.from(f.toBytes());
    for (const [label, input, reason] of BAD) {
      for (const call of [() => f.addUrl(input), () => f.hasUrl(input), () => f.matchUrl(input), () => f.addUrl(enc.encode(input))]) {
        const e = await caught(call);
        expect([label, e instanceof InvalidUrlError && (e as InvalidUrlError).reason]).toEqual([label, reason]);
        expectInvalidUrl(e, reason, undefined);
      }
      expect(Buffer.from(f.toBytes()).equals(before)).toBe(true);
    }
    expect(f.hasUrl('http://www.kept.example/')).toBe(true);
    f.dispose();
  });

  test('the message names the input (at most 200 characters of it) and says what to do', async () => {
    const e = (await caught(() => canonicalizeUrl('/just/a/path'))) as Error;
    expect(e.message).toMatch(/^"\/just\/a\/path" is not a URL: .*host/);
    const long = (await caught(() => canonicalizeUrl(TOO_LONG))) as Error;
    expect(long.message.length).toBeLessThan(600);
    expect(long.message).toMatch(/2 MiB|too long|longer/i);
  });

  test.each(FAMILIES)('%s: addUrls stops at the first refused entry with its index; the entries before it stay added, none after', async (_, make) => {
    for (const at of [0, 1, 5000, 8191, 8192, 9000]) {
      const entries = Array.from({ length: 9500 }, (_, i) => (i % 7 === 3 ? `www.bücher-${i}.example/p/` : `e${i}.example/p/`));
      entries[at] = at % 2 ? '/no/host' : '...';
      const f = await make(20000);
      const e = await caught(() => f.addUrls(entries));
      expectInvalidUrl(e, at % 2 ? 'no-host' : 'bad-host', at);
      expect((e as Error).message).toContain(`(index ${at})`);
      const loop = await make(20000);
      for (const entry of entries.slice(0, at)) loop.addUrl(entry);
      expect([at, Buffer.from(f.toBytes()).equals(Buffer.from(loop.toBytes()))]).toEqual([at, true]);
      if (at > 0) expect(f.hasUrl(`http://${entries[at - 1]}x`)).toBe(true);
      expect(f.hasUrl(`http://${entries[at + 1]}x`)).toBe(false);
      f.dispose();
      loop.dispose();
    }
  });

  test.each(FAMILIES)('%s: hasAllUrls throws at the first refused URL with its index (past chunk boundaries too)', async (_, make) => {
    const f = await make();
    for (const at of [0, 3, 8192, 10000]) {
      const urls = Array.from({ length: 10001 }, (_, i) => (i % 5 ? `http://u${i}.example/` : `http://ü${i}.example/`));
      urls[at] = at % 2 ? 'http://' : TOO_LONG;
      expectInvalidUrl(await caught(() => f.hasAllUrls(urls)), at % 2 ? 'no-host' : 'too-long', at);
    }
    f.dispose();
  });

  test.each(FAMILIES)('%s: values that are not URLs at all: ArgumentTypeError, not InvalidUrlError', async (_, make) => {
    const f = await make();
    for (const junk of [undefined, null, 42, {}, ['a.example'], new Uint16Array(2), new ArrayBuffer(2)]) {
      for (const call of [
        () => f.addUrl(junk as Key), () => f.hasUrl(junk as Key), () => f.matchUrl(junk as Key), () => canonicalizeUrl(junk as string),
        () => urlExpressions(junk as string), () => f.addUrls([junk as Key]), () => f.hasAllUrls(['a.example', junk as Key]),
      ]) {
        expect(await caught(call)).toBeInstanceOf(ArgumentTypeError);
      }
    }
    for (const notIterable of [undefined, null, 42, {}]) {
      expect(() => f.addUrls(notIterable as Key[])).toThrow(ArgumentTypeError);
      expect(() => f.hasAllUrls(notIterable as Key[])).toThrow(ArgumentTypeError);
    }
    f.dispose();
    expect(() => f.addUrl('a.example')).toThrow(FilterDisposedError);
    expect(() => f.hasUrl('a.example')).toThrow(FilterDisposedError);
    expect(() => f.matchUrl('a.example')).toThrow(FilterDisposedError);
    expect(() => f.addUrls(['a.example'])).toThrow(FilterDisposedError);
    expect(() => f.hasAllUrls(['a.example'])).toThrow(FilterDisposedError);
  });
});

describe('limits', () => {
  test('a URL of exactly 2 MiB is accepted, one byte more is too-long', async () => {
    const max = 'http://h.example/' + 'a'.repeat((2 << 20) - 17);
    expect((await canonicalizeUrl(max)).length).toBe(2 << 20);
    expectInvalidUrl(await caught(() => canonicalizeUrl(max + 'a')), 'too-long');
  });

  test('every canonical URL is accepted again (idempotence up to the limit): an input whose canonical form passes 2 MiB is too-long', async () => {
    // 1.2 MB of " x" canonicalizes to 2.4 MB of "%20x" (docs/URLS.md, Limits).
    const input = 'http://h.example/' + ' x'.repeat(600_000);
    let canonical: string | undefined;
    try {
      canonical = await canonicalizeUrl(input);
    } catch (e) {
      expectInvalidUrl(e, 'too-long');
      return;
    }
    expect(canonical.length).toBeLessThanOrEqual(2 << 20);
    expect(await canonicalizeUrl(canonical)).toBe(canonical);
  });
});

// ===========================================================================
// Batches: internationalized hosts, many and long URLs

/** A mix of plain and internationalized hosts (each IDN takes a second crossing), IPs, queries and folders. */
function mixedUrls(n: number, salt = ''): string[] {
  const forms = [
    (i: number) => `http://plain-${i}${salt}.example/a/b?i=${i}`,
    (i: number) => `https://www.bücher-${i}${salt}.example/shop/`,
    (i: number) => `xn--bcher-${i}${salt}-kva.example/p`,
    (i: number) => `http://b%C3%BCcher-${i}${salt}.example/`,
    (i: number) => `http://10.${i >> 16 & 255}.${i >> 8 & 255}.${i & 255}/x/y`,
    (i: number) => `http://日本-${i}${salt}.example/a/`,
    (i: number) => `host-${i}${salt}.example`,
  ];
  return Array.from({ length: n }, (_, i) => forms[i % forms.length](i));
}

describe.each(FAMILIES)('%s: batches agree with loops of single calls', (_, make) => {
  test('addUrls of plain and internationalized entries gives the bytes of the loop of addUrl', async () => {
    const entries = mixedUrls(9000);
    const batched = await make(20000);
    const looped = await make(20000);
    expect(batched.addUrls(entries)).toBe(9000);
    for (const e of entries) looped.addUrl(e);
    expect(Buffer.from(batched.toBytes()).equals(Buffer.from(looped.toBytes()))).toBe(true);
    batched.dispose();
    looped.dispose();
  });

  test('hasAllUrls over mixed hosts equals the map of hasUrl, and matchUrl agrees', async () => {
    const f = await make(20000);
    const listed = mixedUrls(3000);
    f.addUrls(listed.filter((_, i) => i % 2 === 0));
    const queries = [
      ...listed,
      ...mixedUrls(3000, '-other'),
      ...listed.map((u) => u.replace('/shop/', '/shop/deeper.html').replace('bücher', 'BÜCHER')),
    ];
    const answers = f.hasAllUrls(queries);
    expect(answers).toEqual(queries.map((u) => f.hasUrl(u)));
    expect(answers).toEqual(queries.map((u) => f.matchUrl(u) !== null));
    expect(answers.slice(0, 3000)).toEqual(listed.map((_, i) => i % 2 === 0 || f.hasUrl(listed[i])));
    expect(answers.filter(Boolean).length).toBeGreaterThanOrEqual(1500);
    f.dispose();
  });

  test('a huge batch: 20,000 URLs, some longer than 64K code units (twice a chunk\'s size), all answered', async () => {
    const f = await make(40000);
    const long = (i: number) => `http://long-${i}.example/${'seg/'.repeat(17_000 + i)}page?${'q'.repeat(1000)}`;
    const urls = Array.from({ length: 20000 }, (_, i) => (i % 2500 === 7 ? long(i) : i % 11 === 0 ? `http://ü-${i}.example/x` : `http://u-${i}.example/x`));
    expect(urls.some((u) => u.length > 65536)).toBe(true);
    expect(f.addUrls(urls.filter((_, i) => i % 3 === 0))).toBe(Math.ceil(20000 / 3));
    const answers = f.hasAllUrls(urls);
    expect(answers).toHaveLength(20000);
    expect(answers).toEqual(urls.map((_, i) => i % 3 === 0));
    const bytes = urls.map((u) => enc.encode(u));
    expect(f.hasAllUrls(bytes)).toEqual(answers);
    f.dispose();
  });
});

// ===========================================================================
// User code inside URL batches (getters, Proxies, iterators): as a loop of single calls, or a typed error.

/** An array whose element `at` runs `effect` when read. */
function withGetter<T>(items: T[], at: number, effect: () => void): T[] {
  const copy = items.slice();
  Object.defineProperty(copy, at, {
    get() {
      effect();
      return items[at];
    },
  });
  return copy;
}

describe.each(FAMILIES)('%s: user code inside addUrls / hasAllUrls', (_, make) => {
  test('a getter that disposes the filter: FilterDisposedError, and other filters still answer', async () => {
    const f = await make();
    const other = await make();
    other.addUrl('other.example');
    const entries = mixedUrls(200);
    expect(() => f.addUrls(withGetter(entries, 120, () => f.dispose()))).toThrow(FilterDisposedError);
    const g = await make();
    g.addUrls(entries);
    expect(() => g.hasAllUrls(withGetter(entries, 50, () => g.dispose()))).toThrow(FilterDisposedError);
    expect(other.hasUrl('http://www.other.example/')).toBe(true);
    expect(other.hasAllUrls(['http://other.example/', 'http://bücher.example/'])).toEqual([true, false]);
    other.dispose();
  });

  test('a generator that disposes the filter after yielding internationalized hosts: FilterDisposedError', async () => {
    const f = await make();
    function* gen() {
      yield 'http://bücher.example/';
      yield 'plain.example';
      f.dispose();
      yield 'http://日本.example/';
    }
    expect(() => f.addUrls(gen())).toThrow(FilterDisposedError);
    expect(f.disposed).toBe(true);
  });

  test('a getter that calls addUrl / hasUrl / matchUrl on the same filter sees the entries read before it, as a loop would', async () => {
    const f = await make();
    const entries = mixedUrls(300);
    const seen: unknown[] = [];
    const list = withGetter(entries, 200, () => {
      // Entries 0..199 were read: found, in the plain and the second-crossing (IDN) paths alike.
      seen.push(f.hasUrl(entries[1]), f.hasUrl(entries[199]), f.hasUrl(entries[201]));
      seen.push(f.matchUrl(entries[196].replace('plain', 'www.plain')));
      f.addUrl('http://bücher-mid.example/');
    });
    expect(f.addUrls(list)).toBe(300);
    expect([entries[1], entries[196], entries[199]]).toEqual([
      'https://www.bücher-1.example/shop/', 'http://plain-196.example/a/b?i=196', 'http://b%C3%BCcher-199.example/',
    ]);
    expect(seen).toEqual([true, true, false, 'plain-196.example/a/b?i=196']);
    expect(f.hasAllUrls(entries).every(Boolean)).toBe(true);
    expect(f.hasUrl('http://www.bücher-mid.example/x')).toBe(true);
    f.dispose();
  });

  test('a Proxy whose get trap adds URLs (internationalized too) during hasAllUrls: answers as the loop gives them', async () => {
    const f = await make();
    const urls = mixedUrls(100);
    const proxy = new Proxy(urls, {
      get(target, prop, receiver) {
        if (prop === '40') f.addUrl(urls[80]); // before urls[80] is asked: found
        if (prop === '41') f.addUrl('http://ü-late.example/');
        return Reflect.get(target, prop, receiver);
      },
    });
    const answers = f.hasAllUrls(proxy);
    expect(answers[80]).toBe(true);
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(f.hasUrl('http://ü-late.example/a')).toBe(true);
    f.dispose();
  });

  test('nested addUrls / hasAllUrls of the same filter from a getter of its own batch', async () => {
    const f = await make(5000);
    const outer = mixedUrls(400, '-outer');
    const inner = mixedUrls(100, '-inner');
    let innerAnswers: boolean[] = [];
    expect(f.addUrls(withGetter(outer, 300, () => {
      f.addUrls(withGetter(inner, 50, () => { innerAnswers = f.hasAllUrls(outer.slice(0, 300)); }));
    }))).toBe(400);
    expect(innerAnswers).toEqual(outer.slice(0, 300).map(() => true));
    expect(f.hasAllUrls([...outer, ...inner]).every(Boolean)).toBe(true);
    f.dispose();
  });

  test('an iterator that throws: the entries before it are added, the error is the user\'s', async () => {
    const f = await make();
    const entries = mixedUrls(50);
    function* gen() {
      for (let i = 0; i < 50; i++) {
        if (i === 30) throw new Error('user error');
        yield entries[i];
      }
    }
    expect(() => f.addUrls(gen())).toThrow('user error');
    expect(f.hasAllUrls(entries)).toEqual(entries.map((_, i) => i < 30));
    f.dispose();
  });

  test('a getter that throws an InvalidUrlError of its own (from a nested hasUrl): that error, not a batch index', async () => {
    const f = await make();
    const entries = mixedUrls(40);
    const e = await caught(() => f.addUrls(withGetter(entries, 20, () => f.hasUrl('#nothing'))));
    expectInvalidUrl(e, 'no-host', undefined);
    expect(f.hasAllUrls(entries)).toEqual(entries.map((_, i) => i < 20));
    f.dispose();
  });

  test('a non-key in the middle: ArgumentTypeError naming its index, the entries before it added', async () => {
    const f = await make();
    const entries: unknown[] = mixedUrls(30);
    entries[12] = 12;
    expect(() => f.addUrls(entries as Key[])).toThrow(/keys\[12\]/);
    expect(f.hasAllUrls(mixedUrls(30))).toEqual(mixedUrls(30).map((_, i) => i < 12));
    f.dispose();
  });

  test('a getter that grows wasm memory (a 2 MiB URL elsewhere): every answer still right', async () => {
    const f = await make(20000);
    const other = await make();
    const urls = mixedUrls(10000);
    f.addUrls(urls.filter((_, i) => i % 2 === 0));
    const answers = f.hasAllUrls(withGetter(urls, 5000, () => {
      other.hasUrl('http://big.example/' + 'a'.repeat(2_000_000)); // the URL region grows to 8 MB
      other.addUrl('http://bücher.example/' + '\u0001'.repeat(600_000)); // escaped to 1.8 MB, under the 2 MiB limit
    }));
    expect(answers).toEqual(urls.map((_, i) => i % 2 === 0));
    other.dispose();
    f.dispose();
  });
});
