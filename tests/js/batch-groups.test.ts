// Batch lookups of filters too large for the caches: from 5 MiB
// (src/common/batch.h, kGroupFromBytes) hasAll probes its keys in groups of
// 128 and hasAllUrls its URLs in groups of 32, a path the small filters of
// the other suites never take. Every family's batches answer there as its
// one-key lookups do, key for key: one sub-filter and several, keys and URL
// expressions, groups cut short by the end of a chunk or of the batch, URLs
// refused, with a non-ASCII host, or longer than a group's slot.
import { BinaryFuseFilter, BloomFilter, CuckooFilter, RedisBloomFilter } from 'cuckoo-wasm';
import type { Key } from 'cuckoo-wasm';
import { KeyFilter, KEY_FAMILY_ROWS } from './families';

/** The size from which batches go in groups (src/common/batch.h kGroupFromBytes). */
const GROUP_FROM_BYTES = 5 * 2 ** 20;
const keysOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}.example`);

type Lookups = Pick<KeyFilter, 'has' | 'hasAll' | 'hasUrl' | 'hasAllUrls' | 'toBytes'>;

/** Keys: members spread over the `members`, non-members between them, and a tail that is no multiple of 128. */
function queriesOf(members: string[], n: number): Key[] {
  const q: Key[] = [];
  for (let i = 0; i < n; i++) q.push(members[(i * 7919) % members.length], `other${i}.test`);
  return [...q, 'x', new Uint8Array([0, 1, 2]), members[0]];
}

/** URLs on the hosts given and on others, with paths, queries and subdomains; some longer than a slot; some non-ASCII. */
function urlsOf(hosts: string[], n: number): string[] {
  const tails = ['', 'index.html', 'a/b/c.php?x=1', 'login#top', 'x/y/z/w/v/u/t'];
  const urls: string[] = [];
  for (let i = 0; i < n; i++) {
    const host = i % 3 === 0 ? `other${i}.test` : hosts[(i * 13) % hosts.length];
    urls.push(`https://${i % 5 === 0 ? 'www.' : ''}${host}/${tails[i % 5]}`);
    if (i % 97 === 0) urls.push(`http://${host}/${'p'.repeat(300)}`);
    if (i % 307 === 0) urls.push(`https://bücher.example/${i}`);
  }
  return urls;
}

/** The first index where a and b differ (-1 if none), with both answers there. */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): [number, number?, number?] {
  if (a.length !== b.length) return [Math.min(a.length, b.length)];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return [i, a[i], b[i]];
  return [-1];
}

/** hasAll and hasAllUrls (into a fresh array and into `out`) answer as has and hasUrl, key for key. */
function expectBatchesAsOneByOne(f: Lookups, keys: Key[], urls: string[], members: number, urlMembers: number) {
  expect(f.toBytes().length).toBeGreaterThanOrEqual(GROUP_FROM_BYTES);
  const one = Uint8Array.from(keys, (k) => (f.has(k) ? 1 : 0));
  expect(firstDifference(Uint8Array.from(f.hasAll(keys), Number), one)).toEqual([-1]);
  expect(firstDifference(f.hasAll(keys, new Uint8Array(keys.length)), one)).toEqual([-1]);
  expect(one.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(members);
  const oneUrl = Uint8Array.from(urls, (u) => (f.hasUrl(u) ? 1 : 0));
  expect(firstDifference(f.hasAllUrls(urls, new Uint8Array(urls.length)), oneUrl)).toEqual([-1]);
  expect(firstDifference(Uint8Array.from(f.hasAllUrls(urls), Number), oneUrl)).toEqual([-1]);
  expect(oneUrl.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(urlMembers);
}

describe.each(KEY_FAMILY_ROWS)('%s, 5 MiB or more: batches answer as one-key lookups', (_, family) => {
  test('one sub-filter', async () => {
    const f = await family.create({ capacity: 4_500_000, falsePositiveRate: 0.001 });
    try {
      const members = keysOf('m', 40_000);
      f.addAll(members);
      const hosts = keysOf('h', 5_000);
      f.addUrls(hosts);
      const keys = queriesOf(members, 20_000);
      const urls = urlsOf(hosts, 9_000);
      expectBatchesAsOneByOne(f, keys, urls, 20_001, 5_000);
      expect(() => f.hasAllUrls(['https://a.example/', 'http://[zz]/'])).toThrow(/index 1/);
    } finally {
      f.dispose();
    }
  });
});

test('growing cuckoo of several sub-filters (the first ones small, the last large)', async () => {
  const f = await CuckooFilter.create({ capacity: 60_000, expansion: 2 });
  expectGrownBatchesAsOneByOne(f, () => f.info().subFilters.length);
});

// The deepest grouped calls: a URL group's expressions asked of every
// sub-filter in turn, each testing its bits in rounds of pairs.
test('growing BloomFilter of several sub-filters', async () => {
  const f = await BloomFilter.create({ capacity: 60_000, falsePositiveRate: 0.001, expansion: 2 });
  expectGrownBatchesAsOneByOne(f, () => f.info().subFilters.length);
});

test('growing RedisBloomFilter of several links', async () => {
  const f = await RedisBloomFilter.create({ capacity: 60_000, errorRate: 0.001, expansion: 2 });
  expectGrownBatchesAsOneByOne(f, () => f.info().numberOfFilters);
});

/** Adds 2.6 million keys and 3,000 hosts to f (from a small first sub-filter), then compares its batches. */
function expectGrownBatchesAsOneByOne(f: Lookups & Pick<KeyFilter, 'addAll' | 'addUrls' | 'dispose'>, subs: () => number) {
  try {
    const members = keysOf('m', 2_600_000);
    f.addAll(members);
    expect(subs()).toBeGreaterThanOrEqual(4);
    // Members alone: every key of a group stays for every round of pairs.
    const some = members.filter((_, i) => i % 97 === 0);
    expect(firstDifference(f.hasAll(some, new Uint8Array(some.length)), new Uint8Array(some.length).fill(1))).toEqual([-1]);
    const hosts = keysOf('h', 3_000);
    f.addUrls(hosts);
    expectBatchesAsOneByOne(f, queriesOf(members, 20_000), urlsOf(hosts, 6_000), 20_001, 3_000);
  } finally {
    f.dispose();
  }
}

test.each([3, 4] as const)('binary fuse filter, arity %i', async (arity) => {
  const hosts = keysOf('h', 2_600_000);
  const f = await BinaryFuseFilter.build(hosts, { urls: true, fingerprintBits: 16, arity });
  try {
    // URL entries are stored as expressions: host "h1.example" as "h1.example/".
    const members = hosts.map((h) => `${h}/`);
    expectBatchesAsOneByOne(f, queriesOf(members, 20_000), urlsOf(hosts, 9_000), 20_001, 6_000);
  } finally {
    f.dispose();
  }
});
