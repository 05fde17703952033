// A URL blocklist from real phishing URLs (../shared/data/phishing_urls.txt,
// 49,256 URLs; the in-repo sample examples/data/phishing-urls-sample.txt when
// the shared data is absent, and skipped when neither is there), in both
// filter types sized for about 1% per URL lookup:
//   - no false negatives: every listed URL is found as it is and changed in ways
//     that must not change its canonical form (a fragment, the scheme's default
//     port — the core drops every port, docs/URLS.md step 3 —, the host in upper
//     case, "./" segments, unreserved characters percent-escaped in the path and
//     in the host), a listed bare host is found with "www." in front and with any
//     path, a listed folder with a deeper path under it (both within the docs'
//     limits: hosts up to 5 labels, folders up to 3 levels; the URLs past them
//     are counted, and checked not to match by those rules). The list holds few
//     folders, so a second pair of filters takes the folder of every listed URL
//     as an entry and is queried with deeper paths under each;
//   - false positives on benign URLs ("https://" + each line of
//     benign_domains.txt + "/", minus those an entry truly matches): per distinct
//     expression, the rate the filter expects; per URL, below
//     urlFalsePositiveRate (the bound for 30 expressions). Per URL the rate
//     varies from seed to seed more than independent probes would make it:
//     benign hosts share suffixes ("blogspot.com/"), so one false positive on a
//     shared suffix counts for many URLs.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BloomFilter, CuckooFilter, canonicalizeUrl, urlExpressions } from 'cuckoo-wasm';

const root = join(__dirname, '..', '..');
const shared = join(root, '..', 'shared', 'data');
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter((s) => s.length > 0);

function loadData(): { source: string; phishing: string[]; benign: string[] } | undefined {
  if (existsSync(join(shared, 'phishing_urls.txt')) && existsSync(join(shared, 'benign_domains.txt'))) {
    return { source: '../shared/data', phishing: lines(join(shared, 'phishing_urls.txt')), benign: lines(join(shared, 'benign_domains.txt')) };
  }
  const sample = join(root, 'examples', 'data');
  if (existsSync(join(sample, 'phishing-urls-sample.txt')) && existsSync(join(sample, 'benign-opendns.txt'))) {
    return { source: 'in-repo sample', phishing: lines(join(sample, 'phishing-urls-sample.txt')), benign: lines(join(sample, 'benign-opendns.txt')) };
  }
  return undefined;
}

const data = loadData();
/** The per-URL rate the filters are sized for, and the per-key rate that gives it over 30 expressions. */
const URL_RATE = 0.01;
const KEY_RATE = 1 - (1 - URL_RATE) ** (1 / 30);

/** A listed URL's canonical form, in parts. */
interface Listed {
  raw: string;
  canonical: string;
  scheme: string;
  host: string;
  path: string;
  /** '' or '?' + query. */
  query: string;
  kind: 'name' | 'ipv4' | 'ipv6';
}

function parts(raw: string, canonical: string): Listed {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)([^?]*)(.*)$/.exec(canonical)!;
  const host = m[2];
  const kind = host.startsWith('[') ? 'ipv6' : /^\d+\.\d+\.\d+\.\d+$/.test(host) ? 'ipv4' : 'name';
  return { raw, canonical, scheme: m[1], host, path: m[3], query: m[4], kind };
}

/** Escapes every unreserved character (RFC 3986: ALPHA DIGIT - . _ ~) as %XX, lowercase hex. */
const escapeUnreserved = (s: string) => s.replace(/[A-Za-z0-9\-._~]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);

/** The raw URL split where it is plain (scheme, a host without escapes, userinfo or port, the rest). */
const PLAIN = /^(https?):\/\/([^/?#:@%\\[\]]+)(?::\d*)?([/?#].*)?$/;

const maybe = data ? describe : describe.skip;

maybe(`URL blocklist of real phishing URLs (${data?.source ?? 'no data'})`, () => {
  const phishing = data?.phishing ?? [];
  let listed: Listed[] = [];
  /** The entries' expressions, exactly: what a URL truly matches. */
  let entries = new Set<string>();
  const filters: [string, CuckooFilter | BloomFilter][] = [];

  beforeAll(async () => {
    if (data!.source === '../shared/data') {
      expect(phishing.length).toBe(49256);
      expect(data!.benign.length).toBe(204889);
    }
    listed = [];
    for (const raw of phishing) listed.push(parts(raw, await canonicalizeUrl(raw)));
    entries = new Set(listed.map((l) => l.canonical.slice(l.scheme.length + 3)));
    const cuckoo = await CuckooFilter.create({ capacity: phishing.length, falsePositiveRate: KEY_RATE });
    const bloom = await BloomFilter.create({ capacity: phishing.length, falsePositiveRate: KEY_RATE });
    for (const f of [cuckoo, bloom]) expect(f.addUrls(phishing)).toBe(phishing.length);
    filters.push(['CuckooFilter', cuckoo], ['BloomFilter', bloom]);
    console.log(
      `${phishing.length} URLs (${entries.size} distinct entries) from ${data!.source}; per-key rate ${KEY_RATE.toPrecision(3)}: ` +
        filters.map(([n, f]) => `${n} urlFalsePositiveRate ${f.urlFalsePositiveRate.toPrecision(3)}, ${f.toBytes().length} bytes`).join('; '),
    );
  });
  afterAll(() => {
    for (const [, f] of filters) f.dispose();
  });

  /** Variants of the listed URLs, each a list of [listed URL, query]: every one must be found. */
  function variants(): Record<string, string[]> {
    const v: Record<string, string[]> = {
      'as listed': [], '#fragment added': [], 'default port': [], 'host upper-cased': [], './ segments': [],
      'path unreserved %-escaped': [], 'host %-escaped': [], 'www. + listed bare host': [], 'listed bare host, any path': [],
      'deeper path under a listed folder': [],
    };
    for (const l of listed) {
      const plain = PLAIN.exec(l.raw);
      const rest = l.path + l.query;
      v['as listed'].push(l.raw);
      v['#fragment added'].push(`${l.raw}#fragment`);
      const port = l.scheme === 'https' ? 443 : 80;
      v['default port'].push(plain ? `${plain[1]}://${plain[2]}:${port}${plain[3] ?? ''}` : `${l.scheme}://${l.host}:${port}${rest}`);
      v['host upper-cased'].push(plain ? `${plain[1]}://${plain[2].toUpperCase()}${plain[3] ?? ''}` : `${l.scheme}://${l.host.toUpperCase()}${rest}`);
      v['./ segments'].push(`${l.scheme}://${l.host}${l.path.replace(/\//g, '/./')}${l.query}`);
      v['path unreserved %-escaped'].push(`${l.scheme}://${l.host}${escapeUnreserved(l.path)}${l.query}`);
      if (l.kind !== 'ipv6') v['host %-escaped'].push(`${l.scheme}://${escapeUnreserved(l.host)}${rest}`);
    }
    for (const l of bareHosts().within) {
      v['www. + listed bare host'].push(`${l.scheme}://www.${l.host}/`);
      v['listed bare host, any path'].push(`${l.scheme}://www.${l.host}/deeper/path/page.php?q=1`, `${l.scheme}://${l.host}/a/b/c/d/e`);
    }
    for (const l of folders().within) v['deeper path under a listed folder'].push(`${l.scheme}://${l.host}${l.path}deeper/page.html?x=1`);
    return v;
  }
  /** Listed bare hosts (path "/", no query; names), split by the docs' rule: suffixes come from the last 5 labels. */
  function bareHosts() {
    const bare = listed.filter((l) => l.path === '/' && l.query === '' && l.kind === 'name');
    return { within: bare.filter((l) => l.host.split('.').length <= 5), beyond: bare.filter((l) => l.host.split('.').length > 5) };
  }
  /** Listed folders (path ending in "/", not "/", no query), split by the docs' rule: prefixes go 3 levels deep. */
  function folders() {
    const all = listed.filter((l) => l.path !== '/' && l.path.endsWith('/') && l.query === '');
    const depth = (l: Listed) => l.path.split('/').length - 2;
    return { within: all.filter((l) => depth(l) <= 3), beyond: all.filter((l) => depth(l) > 3) };
  }

  test('0 false negatives: every listed URL is found as listed and under every harmless change, in both filters', () => {
    const all = variants();
    const rows: string[] = [];
    for (const [name, urls] of Object.entries(all)) {
      const misses: Record<string, number> = {};
      for (const [family, f] of filters) {
        const answers = f.hasAllUrls(urls);
        misses[family] = answers.filter((a) => !a).length;
        if (misses[family] > 0) {
          const first = urls.filter((_, i) => !answers[i]).slice(0, 5);
          throw new Error(`${family}, ${name}: ${misses[family]} of ${urls.length} not found, e.g. ${JSON.stringify(first)}`);
        }
      }
      rows.push(`${name.padEnd(36)} ${String(urls.length).padStart(6)} URLs, false negatives: ${JSON.stringify(misses)}`);
    }
    console.log(`false negatives per variant:\n${rows.join('\n')}`);
    expect(all['as listed'].length).toBe(phishing.length);
    expect(all['www. + listed bare host'].length).toBeGreaterThan(phishing.length / 10);
    expect(all['deeper path under a listed folder'].length).toBe(folders().within.length);
  });

  test('single calls agree: hasUrl finds each listed URL, and matchUrl names an entry it truly matches', () => {
    const [, cuckoo] = filters[0];
    const [, bloom] = filters[1];
    let checked = 0;
    for (let i = 0; i < listed.length; i += 7) {
      const l = listed[i];
      expect(cuckoo.hasUrl(l.raw)).toBe(true);
      const m = bloom.matchUrl(`${l.raw}#x`);
      expect([l.raw, m !== null && entries.has(m)]).toEqual([l.raw, true]);
      checked++;
    }
    expect(checked).toBeGreaterThan(phishing.length / 8);
  });

  test('past the docs\' limits (hosts of more than 5 labels, folders more than 3 deep), the entry is not among the expressions', async () => {
    const { beyond: deepHosts } = bareHosts();
    const { beyond: deepFolders } = folders();
    const [, cuckoo] = filters[0];
    const rows: string[] = [];
    for (const [name, cases] of [
      ['www. + a listed bare host of more than 5 labels', deepHosts.map((l) => [`${l.scheme}://www.${l.host}/`, `${l.host}/`])],
      ['a page under a listed folder more than 3 levels deep', deepFolders.map((l) => [`${l.scheme}://${l.host}${l.path}deeper/page.html`, l.host + l.path])],
    ] as const) {
      for (const [url, entry] of cases) expect([url, (await urlExpressions(url)).includes(entry)]).toEqual([url, false]);
      // Found only where another entry (a listed parent folder or host) or a false positive matches.
      const found = cuckoo.hasAllUrls(cases.map(([url]) => url)).filter(Boolean).length;
      rows.push(`${name}: ${cases.length}, of which ${found} found through other entries or false positives`);
    }
    console.log(`beyond the docs' rules:\n${rows.join('\n')}`);
  });

  test('folders of the listed URLs as entries: every deeper path under each is found, siblings are not', async () => {
    // The folder of each listed URL with one (its first 1 to 3 directory levels): "host/a/b/" for ".../a/b/c.php".
    const folderOf = (l: Listed) => {
      const dirs = l.path.split('/').slice(1, -1).slice(0, 3);
      return dirs.length ? `${l.host}/${dirs.join('/')}/` : undefined;
    };
    const withFolder = listed.filter((l) => folderOf(l) !== undefined);
    const folderEntries = [...new Set(withFolder.map(folderOf) as string[])]; // a cuckoo filter keeps duplicates: 2b at most
    // A www. subdomain where the host suffix rule reaches the host (a name of at most 5 labels), else the host upper-cased.
    const www = (l: Listed) =>
      (l.kind === 'name' && l.host.split('.').length <= 5 ? `WWW.${l.host}` : l.host.toUpperCase()) + folderOf(l)!.slice(l.host.length);
    const queries = withFolder.flatMap((l) => [l.raw, `${l.scheme}://${folderOf(l)}deeper/page.html?x=1`, `${l.scheme}://${www(l)}./x/../y/`]);
    // A sibling folder's page ("host/a/b-sibling/page.html"): no entry unless a parent folder (or the host) is one.
    const folderSet = new Set(folderEntries);
    const siblings: string[] = [];
    for (const l of withFolder) {
      const url = `${l.scheme}://${folderOf(l)!.replace(/\/$/, '-sibling/')}page.html`;
      if (!(await urlExpressions(url)).some((x) => folderSet.has(x))) siblings.push(url);
    }
    const rows: string[] = [];
    for (const f of [
      await CuckooFilter.create({ capacity: folderEntries.length, falsePositiveRate: KEY_RATE }),
      await BloomFilter.create({ capacity: folderEntries.length, falsePositiveRate: KEY_RATE }),
    ]) {
      expect(f.addUrls(folderEntries)).toBe(folderEntries.length);
      const answers = f.hasAllUrls(queries);
      const misses = answers.filter((a) => !a).length;
      const siblingHits = f.hasAllUrls(siblings).filter(Boolean).length;
      rows.push(
        `${f.constructor.name.replace(/^_/, '')}: ${queries.length} URLs under ${folderEntries.length} folders, ${misses} false negatives; ` +
          `${siblingHits} of ${siblings.length} sibling pages no entry matches found (false positives; bound ${f.urlFalsePositiveRate.toPrecision(3)})`,
      );
      expect([misses, queries.filter((_, i) => !answers[i]).slice(0, 5)]).toEqual([0, []]);
      expect(siblingHits / siblings.length).toBeLessThan(f.urlFalsePositiveRate);
      f.dispose();
    }
    console.log(`folder entries:\n${rows.join('\n')}`);
    expect(withFolder.length).toBeGreaterThan(phishing.length / 4);
  });

  test('false positives on benign URLs: per expression as the filter expects, per URL below urlFalsePositiveRate', async () => {
    const benign = data!.benign.map((d) => `https://${d}/`);
    let truly = 0;
    let refused = 0;
    const kept: string[] = [];
    const probes: number[] = [];
    const distinct = new Set<string>();
    for (const u of benign) {
      let e: string[];
      try {
        e = await urlExpressions(u);
      } catch {
        refused++;
        continue;
      }
      if (e.some((x) => entries.has(x))) {
        truly++; // a benign host under a listed bare host: a true match
        continue;
      }
      kept.push(u);
      probes.push(e.length);
      for (const x of e) distinct.add(x);
    }
    const meanProbes = probes.reduce((a, b) => a + b, 0) / probes.length;
    const rows: string[] = [];
    for (const [family, f] of filters) {
      // Per key: each distinct expression once (an entry is stored as its expression, a key like any other).
      let keyHits = 0;
      for (const x of distinct) if (f.has(x)) keyHits++;
      const eps = f.expectedFalsePositiveRate;
      const perKey = keyHits / distinct.size;
      // Per URL.
      const fp = f.hasAllUrls(kept).filter(Boolean).length;
      const perUrl = fp / kept.length;
      const independent = probes.reduce((a, n) => a + (1 - (1 - eps) ** n), 0) / probes.length;
      rows.push(
        `${family}: per expression ${keyHits} of ${distinct.size} = ${perKey.toPrecision(3)}, expected ${eps.toPrecision(3)}; ` +
          `per URL ${fp} of ${kept.length} = ${perUrl.toPrecision(3)} (${independent.toPrecision(3)} if the ${meanProbes.toFixed(2)} ` +
          `expressions per URL were independent), urlFalsePositiveRate ${f.urlFalsePositiveRate.toPrecision(3)}`,
      );
      expect(Math.abs(perKey - eps)).toBeLessThan(5 * Math.sqrt(eps / distinct.size));
      expect(perUrl).toBeLessThan(f.urlFalsePositiveRate);
    }
    console.log(`benign: ${benign.length} URLs, ${truly} truly matched by an entry, ${refused} refused\n${rows.join('\n')}`);
    expect(refused).toBe(0);
    expect(kept.length).toBeGreaterThan(benign.length * 0.9);
  });
});
