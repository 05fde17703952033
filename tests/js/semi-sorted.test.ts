// What only the semi-sorted table (semiSort: true, Fan et al. 2014 §5.2) has:
// its option's checks, its golden file, its encoding in info(), its size
// against the bit-packed table and the Bloom filter, and its false-positive
// rate on the real lists. Everything else a filter does (the model-based
// harness, arguments, adversarial bytes, lifecycle, URLs, growth) runs for it
// through tests/js/families.ts like for every other family.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArgumentRangeError, ArgumentTypeError, BloomFilter, CuckooFilter } from 'cuckoo-wasm';
import { loadLists } from './data';

const golden = readFileSync(join(__dirname, '..', 'golden', 'cuckoo-semisorted.bin'));
const goldenV4 = readFileSync(join(__dirname, '..', 'golden', 'cuckoo-semisorted-v4.bin'));

describe('the semiSort option', () => {
  test.each([[1], ['true'], [null], [{}]])('semiSort %p (not a boolean) is an ArgumentTypeError', async (semiSort) => {
    await expect(CuckooFilter.create({ capacity: 10, semiSort } as never)).rejects.toThrow(ArgumentTypeError);
    await expect(CuckooFilter.create({ capacity: 10, semiSort } as never)).rejects.toThrow(/^semiSort must be true or false, got /);
  });

  test.each([[2], [8]])('semiSort: true with bucketSize %p is an ArgumentRangeError naming bucketSize 4', async (bucketSize) => {
    const made = CuckooFilter.create({ capacity: 10, semiSort: true, bucketSize: bucketSize as 2 | 8 });
    await expect(made).rejects.toThrow(ArgumentRangeError);
    await expect(CuckooFilter.create({ capacity: 10, semiSort: true, bucketSize: bucketSize as 2 | 8 })).rejects.toThrow(
      `semiSort needs bucketSize 4, got bucketSize ${bucketSize}`,
    );
  });

  test('the default: semi-sorted for bucketSize 4, bit-packed for 2 and 8; semiSort: false is bit-packed at every size', async () => {
    for (const bucketSize of [2, 4, 8] as const) {
      const f = await CuckooFilter.create({ capacity: 100, bucketSize });
      const want = bucketSize === 4 ? 'semi-sorted' : 'packed';
      expect([f.encoding, f.info().encoding]).toEqual([want, want]);
      const p = await CuckooFilter.create({ capacity: 100, bucketSize, semiSort: false });
      expect([p.encoding, p.info().encoding]).toEqual(['packed', 'packed']);
      for (const x of [f, p]) x.dispose();
    }
    const d = await CuckooFilter.create({ capacity: 100 });
    expect(d.encoding).toBe('semi-sorted');
    d.dispose();
  });
});

describe('info() names the encoding', () => {
  test('on the filter and on every sub-filter of a grown one', async () => {
    const f = await CuckooFilter.create({ capacity: 50, semiSort: true, expansion: 2, seed: 7 });
    for (let i = 0; i < 400; ++i) f.add(`k${i}`);
    const info = f.info();
    expect(f.encoding).toBe('semi-sorted');
    expect(info.encoding).toBe('semi-sorted');
    expect(info.subFilters.length).toBeGreaterThan(2);
    expect(info.subFilters.map((s) => s.encoding)).toEqual(info.subFilters.map(() => 'semi-sorted'));
    f.dispose();
    const p = await CuckooFilter.create({ capacity: 50, expansion: 2, semiSort: false });
    expect(p.info().subFilters.map((s) => s.encoding)).toEqual(['packed']);
    p.dispose();
  });
});

describe('golden file tests/golden/cuckoo-semisorted.bin', () => {
  test('loads as a semi-sorted filter, finds its keys, and gives its bytes back byte for byte', async () => {
    const f = await CuckooFilter.fromBytes(golden);
    expect(f.encoding).toBe('semi-sorted');
    expect(f.info().subFilters.map((s) => [s.encoding, s.fingerprintBits])).toEqual([
      ['semi-sorted', 10],
      ['semi-sorted', 11],
      ['semi-sorted', 12],
    ]);
    expect(Buffer.from(f.toBytes()).equals(golden)).toBe(true);
    const kept = Array.from({ length: 350 }, (_, i) => `key-${i + 50}`);
    expect(f.hasAll(kept).every(Boolean)).toBe(true);
    expect(f.size).toBe(350);
    f.dispose();
  });

  test('its recipe (tests/golden/README.md) through the public API makes the same bytes', async () => {
    const f = await CuckooFilter.create({ capacity: 100, fingerprintBits: 10, bucketSize: 4, maxKicks: 500, seed: 42, expansion: 2, semiSort: true });
    for (let i = 0; i < 400; ++i) f.add(`key-${i}`);
    for (let i = 0; i < 50; ++i) expect(f.delete(`key-${i}`)).toBe(true);
    // A new filter is version 4 (docs/FORMAT.md §14): the same sections as the legacy golden file.
    expect(Buffer.from(f.toBytes()).equals(goldenV4)).toBe(true);
    f.dispose();
  });
});

describe('size', () => {
  test.each([[0.01], [0.005], [0.001]])(
    'at ε = %p: the same buckets as the bit-packed table, 4 bits fewer each, and fewer bytes than a Bloom filter',
    async (eps) => {
      const capacity = 100_000;
      const semi = await CuckooFilter.create({ capacity, falsePositiveRate: eps, semiSort: true });
      const packed = await CuckooFilter.create({ capacity, falsePositiveRate: eps, semiSort: false });
      const bloom = await BloomFilter.create({ capacity, falsePositiveRate: eps });
      const { bucketCount: m, fingerprintBits: f } = semi;
      expect([m, f]).toEqual([packed.bucketCount, packed.fingerprintBits]);
      expect(packed.byteLength - semi.byteLength).toBe(Math.ceil((m * 4 * f) / 8) - Math.ceil((m * (4 * f - 4)) / 8));
      expect(semi.byteLength).toBeLessThan(bloom.byteLength);
      expect(semi.info().byteLength).toBe(semi.byteLength);
      for (const x of [semi, packed, bloom]) x.dispose();
    },
  );

  test('at ε = 0.1%: at most 12.7 bits per item (Fan et al. Table 3: 12.6)', async () => {
    const f = await CuckooFilter.create({ capacity: 1_000_000, falsePositiveRate: 0.001, semiSort: true });
    expect(f.bitsPerItem).toBeLessThanOrEqual(12.7);
    f.dispose();
  });
});

const lists = loadLists();

describe(`real blocklist, semi-sorted (${lists.source === 'shared' ? '../shared/data full lists' : 'in-repo sample'})`, () => {
  const EPS = 0.001;
  const blocked = new Set(lists.blocklist);
  const benign = lists.benign.filter((d) => !blocked.has(d));

  test('no false negatives, measured rate ≤ ε, the same answers after a toBytes → fromBytes round trip', async () => {
    const f = await CuckooFilter.create({ capacity: lists.blocklist.length, falsePositiveRate: EPS, semiSort: true });
    expect(f.addAll(lists.blocklist)).toBe(lists.blocklist.length);
    expect(f.hasAll(lists.blocklist).every(Boolean)).toBe(true);
    const answers = f.hasAll(benign);
    const rate = answers.filter(Boolean).length / benign.length;
    // eslint-disable-next-line no-console
    console.log(`semi-sorted, ${lists.source} lists: ${f.bitsPerItem.toFixed(2)} bits per item, measured rate ${rate} over ${benign.length} non-members`);
    expect(rate).toBeLessThanOrEqual(EPS);
    const g = await CuckooFilter.fromBytes(f.toBytes());
    expect(g.hasAll(benign)).toEqual(answers);
    expect(Buffer.from(g.toBytes()).equals(Buffer.from(f.toBytes()))).toBe(true);
    f.dispose();
    g.dispose();
  });
});
