// Properties of the URL functions over random input (fast-check), after
// docs/URLS.md and src/url/url_expressions.h:
//   - canonicalizeUrl is idempotent: canonicalizeUrl(canonicalizeUrl(u)) === canonicalizeUrl(u);
//   - urlExpressions(u) has 1 to 30 expressions, no two alike, the first the canonical URL without its scheme;
//   - every expression e, as an entry, is found by u (matchUrl(u) === e after addUrl(e)), and
//     canonicalizeUrl('http://' + e) === 'http://' + e;
//   - hasAllUrls(xs) equals xs.map(hasUrl), and addUrls(xs) adds what a loop of addUrl adds (same bytes),
//     stopping with the same error at the same index;
//   - for any string or bytes at all (fc.string in every unit, fc.webUrl, fc.uint8Array), each function
//     returns or throws InvalidUrlError, never another error, never a hang.
// The URL generator builds URLs from the parts the rules act on (schemes, userinfo, ports, IPv4 in every
// form, IPv6, internationalized labels, percent-escapes nested up to three deep, dot segments, queries,
// fragments); each property checks that it reached the cases it is meant for.
import fc from 'fast-check';
import { BloomFilter, CuckooFilter, InvalidUrlError, canonicalizeUrl, urlExpressions } from 'cuckoo-wasm';
import type { Key } from 'cuckoo-wasm';

const RUNS = 300;
const enc = new TextEncoder();
const withoutScheme = (url: string) => url.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');

/** `s` with some characters percent-escaped, once or nested ("a" -> "%61" -> "%2561"). */
function escapeSome(s: string, mask: number[], depth: number): string {
  let out = '';
  let i = 0;
  for (const ch of s) {
    if (mask[i++ % mask.length] % 3 === 0 && ch !== '/') {
      let e = Array.from(enc.encode(ch), (b) => `%${b.toString(16).padStart(2, '0')}`).join('');
      for (let d = 1; d < depth; d++) e = e.replace(/%/g, '%25');
      out += mask[1] % 2 ? e.toUpperCase() : e;
    } else out += ch;
  }
  return out;
}

const label = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,8}$/) },
  { weight: 1, arbitrary: fc.constantFrom('WWW', 'Evil', 'xn--bcher-kva', 'ü', 'bücher', '日本', 'ｅｘａｍｐｌｅ', 'a_b', 'a%b', 'a b', '0x7f', '010') },
);
const nameHost = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 8 }), fc.array(fc.constantFrom('.', '.', '.', '..'), { minLength: 8, maxLength: 8 }), fc.constantFrom('', '', '.', '..'))
  .map(([labels, dots, ends]) => ends + labels.map((l, i) => (i ? dots[i] : '') + l).join('') + ends);
const ipv4Host = fc.oneof(
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.')),
  fc.nat(0xffffffff).map(String),
  fc.nat(0xffffffff).map((n) => `0x${n.toString(16)}`),
  fc.tuple(fc.nat(255), fc.nat(0xffffff)).map(([a, b]) => `0${a.toString(8)}.${b}`),
);
const ipv6Host = fc.oneof(
  fc.ipV6().map((a) => `[${a}]`),
  fc.ipV4().map((a) => `[::ffff:${a}]`),
  fc.ipV4().map((a) => `[64:ff9b::${a}]`),
);
const host = fc.oneof({ weight: 5, arbitrary: nameHost }, { weight: 2, arbitrary: ipv4Host }, { weight: 1, arbitrary: ipv6Host });
const segment = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.~!$&'()*+,;=:@-]{0,6}$/) },
  { weight: 2, arbitrary: fc.constantFrom('.', '..', '', '%2e', '%2E%2e', 'ü', '%', '%25', '%2525', ' ', '#', '%23', '%2F', 'a\\b', '\t', '%00') },
);
const path = fc.array(segment, { maxLength: 7 }).map((s) => (s.length ? '/' + s.join('/') : ''));
const query = fc.option(fc.stringMatching(/^[A-Za-z0-9=&/?.%+ ]{0,12}$/), { nil: undefined });

/** URLs built from the parts the canonicalization rules act on. */
const urlParts = fc.record({
  scheme: fc.constantFrom('http://', 'https://', 'HTTP://', 'ftp://', '', '', 'h%74tp://'),
  user: fc.constantFrom('', '', 'user@', 'u:p@', 'a%40b@'),
  host,
  port: fc.constantFrom('', '', '', ':80', ':443', ':8080', ':'),
  path,
  query,
  fragment: fc.constantFrom('', '', '#frag', '#a#b', '#'),
  space: fc.constantFrom('', '', ' ', '\t\n'),
  escape: fc.tuple(fc.array(fc.nat(8), { minLength: 2, maxLength: 5 }), fc.integer({ min: 0, max: 3 })),
});
const url = urlParts.map(({ scheme, user, host: h, port, path: p, query: q, fragment, space, escape: [mask, depth] }) => {
  // Escape parts of the host and path (not the scheme's "//" or an IPv6 literal's brackets).
  const hostText = depth > 0 && !h.startsWith('[') ? escapeSome(h, mask, depth) : h;
  const pathText = depth > 0 ? escapeSome(p, mask.slice().reverse(), depth) : p;
  return `${space}${scheme}${user}${hostText}${port}${pathText}${q === undefined ? '' : '?' + q}${fragment}${space}`;
});

/** Any text or bytes at all. */
const anything: fc.Arbitrary<Key> = fc.oneof(
  fc.string({ maxLength: 120 }),
  fc.string({ unit: 'binary', maxLength: 120 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: fc.constantFrom(...'%25:/?#[]@.ü日 \t\x00hHtTpP1xX'.split('')), maxLength: 60 }),
  fc.webUrl({ withQueryParameters: true, withFragments: true, validSchemes: ['http', 'https', 'ftp'] }),
  fc
    .tuple(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.constantFrom('://%', ':/', '://[', '://ü.', '://..', '://a:b@'))
    .map(([u, bit]) => u.replace('://', bit)),
  fc.uint8Array({ maxLength: 120 }),
  url,
);

/** The URL's canonical form, or the InvalidUrlError's reason; any other error fails the property. */
async function outcome(u: Key): Promise<string> {
  try {
    return await canonicalizeUrl(u as string);
  } catch (e) {
    if (!(e instanceof InvalidUrlError)) throw e;
    return `<${e.reason}>`;
  }
}

let cuckoo: CuckooFilter;
let bloom: BloomFilter;
beforeAll(async () => {
  cuckoo = await CuckooFilter.create({ capacity: 1000, fingerprintBits: 32 });
  bloom = await BloomFilter.create({ capacity: 100_000, falsePositiveRate: 1e-9 });
});
afterAll(() => {
  cuckoo.dispose();
  bloom.dispose();
});

test('canonicalizeUrl is idempotent, and urlExpressions agrees with it (1 to 30, distinct, the first its canonical URL without scheme)', async () => {
  const seen = { ok: 0, idn: 0, ipv4: 0, ipv6: 0, many: 0, refused: 0 };
  await fc.assert(
    fc.asyncProperty(url, async (u) => {
      const c = await outcome(u);
      if (c.startsWith('<')) {
        seen.refused++;
        await expect(urlExpressions(u)).rejects.toBeInstanceOf(InvalidUrlError);
        return;
      }
      seen.ok++;
      if (c.includes('xn--')) seen.idn++;
      expect(await canonicalizeUrl(c)).toBe(c);
      const e = await urlExpressions(u);
      expect(e.length).toBeGreaterThanOrEqual(1);
      expect(e.length).toBeLessThanOrEqual(30);
      expect(new Set(e).size).toBe(e.length);
      expect(e[0]).toBe(withoutScheme(c));
      expect(await urlExpressions(c)).toEqual(e);
      if (/^[a-z]+:\/\/\d+\.\d+\.\d+\.\d+\//.test(c)) seen.ipv4++;
      if (/^[a-z]+:\/\/\[/.test(c)) seen.ipv6++;
      if (e.length >= 12) seen.many++;
    }),
    { numRuns: 4 * RUNS, seed: 20260514 },
  );
  console.log(`idempotence: ${JSON.stringify(seen)}`);
  expect(seen.ok).toBeGreaterThan(2 * RUNS);
  for (const k of ['idn', 'ipv4', 'ipv6', 'many', 'refused'] as const) expect([k, seen[k] > 10]).toEqual([k, true]);
});

test('every expression of a URL, as an entry, is found by that URL, and "http://" + expression is canonical', async () => {
  let expressions = 0;
  await fc.assert(
    fc.asyncProperty(url, async (u) => {
      const c = await outcome(u);
      if (c.startsWith('<')) return;
      for (const e of await urlExpressions(u)) {
        expressions++;
        expect(await canonicalizeUrl('http://' + e)).toBe('http://' + e);
        expect((await urlExpressions('http://' + e))[0]).toBe(e);
        // An entry is stored as its expression; a cuckoo filter can take it out again.
        cuckoo.addUrl(e);
        expect([u, e, cuckoo.matchUrl(u)]).toEqual([u, e, e]);
        expect(cuckoo.delete(e)).toBe(true);
        cuckoo.addUrl('http://' + e);
        expect(cuckoo.hasUrl(u)).toBe(true);
        expect(cuckoo.delete(e)).toBe(true);
        expect(cuckoo.size).toBe(0);
      }
    }),
    { numRuns: RUNS, seed: 20260515 },
  );
  expect(expressions).toBeGreaterThan(3 * RUNS);
});

test('hasAllUrls(xs) equals xs.map(hasUrl), on both filters, with entries taken from the URLs', async () => {
  const f = await CuckooFilter.create({ capacity: 20000, fingerprintBits: 32 });
  const g = await BloomFilter.create({ capacity: 20000, falsePositiveRate: 1e-9 });
  let yes = 0;
  let no = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(url, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 10 }), async (xs, picks) => {
      // Make some of them members: an expression of a URL in the list, as an entry.
      for (const p of picks) {
        if (xs.length === 0) break;
        const u = xs[p % xs.length];
        if ((await outcome(u)).startsWith('<')) continue;
        const e = await urlExpressions(u);
        f.addUrl(e[p % e.length]);
        g.addUrl(e[p % e.length]);
      }
      for (const filter of [f, g]) {
        let batch: unknown;
        try {
          batch = filter.hasAllUrls(xs);
        } catch (e) {
          batch = e;
        }
        let loop: unknown;
        try {
          loop = xs.map((x) => filter.hasUrl(x));
        } catch (e) {
          loop = e;
        }
        if (Array.isArray(batch)) {
          expect(batch).toEqual(loop);
          yes += batch.filter(Boolean).length;
          no += batch.filter((b) => !b).length;
        } else {
          // The batch names the first refused URL; the loop threw at the same one.
          expect(batch).toBeInstanceOf(InvalidUrlError);
          expect(loop).toBeInstanceOf(InvalidUrlError);
          const index = (batch as InvalidUrlError).index!;
          expect((batch as InvalidUrlError).reason).toBe((loop as InvalidUrlError).reason);
          expect((await outcome(xs[index])).startsWith('<')).toBe(true);
          for (const x of xs.slice(0, index)) expect((await outcome(x)).startsWith('<')).toBe(false);
        }
      }
    }),
    { numRuns: RUNS, seed: 20260516 },
  );
  console.log(`hasAllUrls: ${yes} found, ${no} not found`);
  expect(yes).toBeGreaterThan(RUNS);
  expect(no).toBeGreaterThan(RUNS);
  f.dispose();
  g.dispose();
});

test('addUrls(xs) adds what a loop of addUrl adds, byte for byte, and stops with the same error at the same index', async () => {
  let stopped = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(url, { maxLength: 30 }), fc.boolean(), async (xs, useBloom) => {
      const make = () =>
        useBloom ? BloomFilter.create({ capacity: 100, falsePositiveRate: 1e-6 }) : CuckooFilter.create({ capacity: 100, fingerprintBits: 16 });
      const batched = await make();
      const looped = await make();
      let batchError: unknown;
      try {
        expect(batched.addUrls(xs)).toBe(xs.length);
      } catch (e) {
        batchError = e;
      }
      let loopIndex = -1;
      let loopError: unknown;
      for (let i = 0; i < xs.length && loopIndex < 0; i++) {
        try {
          looped.addUrl(xs[i]);
        } catch (e) {
          loopIndex = i;
          loopError = e;
        }
      }
      if (loopIndex >= 0) {
        stopped++;
        expect(batchError).toBeInstanceOf(InvalidUrlError);
        expect((batchError as InvalidUrlError).index).toBe(loopIndex);
        expect((batchError as InvalidUrlError).reason).toBe((loopError as InvalidUrlError).reason);
      } else expect(batchError).toBeUndefined();
      expect(Buffer.from(batched.toBytes()).equals(Buffer.from(looped.toBytes()))).toBe(true);
      batched.dispose();
      looped.dispose();
    }),
    { numRuns: RUNS, seed: 20260517 },
  );
  expect(stopped).toBeGreaterThan(10);
});

test('anything at all: each URL function returns or throws InvalidUrlError, never another error', async () => {
  const reasons: Record<string, number> = {};
  await fc.assert(
    fc.asyncProperty(anything, async (u) => {
      const c = await outcome(u);
      reasons[c.startsWith('<') ? c : 'ok'] = (reasons[c.startsWith('<') ? c : 'ok'] ?? 0) + 1;
      // Every function agrees on whether u is a URL.
      const calls: (() => unknown)[] = [
        () => urlExpressions(u as string),
        () => cuckoo.hasUrl(u),
        () => bloom.matchUrl(u),
        () => cuckoo.hasAllUrls([u, 'ok.example']),
        () => bloom.addUrl(u),
        () => bloom.addUrls(['ok.example', u]),
      ];
      for (const call of calls) {
        let error: unknown;
        try {
          await call();
        } catch (e) {
          error = e;
        }
        if (c.startsWith('<')) {
          expect(error).toBeInstanceOf(InvalidUrlError);
          expect(`<${(error as InvalidUrlError).reason}>`).toBe(c);
        } else expect(error).toBeUndefined();
      }
      if (!c.startsWith('<')) expect(await canonicalizeUrl(c)).toBe(c);
    }),
    { numRuns: 3 * RUNS, seed: 20260518 },
  );
  console.log(`anything: ${JSON.stringify(reasons)}`);
  expect(reasons.ok).toBeGreaterThan(RUNS / 2);
  expect(Object.keys(reasons).length).toBeGreaterThanOrEqual(4);
}, 60_000);
