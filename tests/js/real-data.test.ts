// The main job on real input: a blocklist in, no false negatives, the promised
// false-positive rate, the same after a toBytes -> fromBytes round trip.
import { CuckooFilter } from 'cuckoo-wasm';
import { loadLists } from './data';

const lists = loadLists();
const EPS = 0.001;

describe(`real blocklist (${lists.source === 'shared' ? '../shared/data full lists' : 'in-repo sample'})`, () => {
  let filter: CuckooFilter;
  const blockSet = new Set(lists.blocklist);
  const benign = lists.benign.filter((d) => !blockSet.has(d));

  beforeAll(async () => {
    // eslint-disable-next-line no-console
    console.log(`real-data tests use ${lists.source}: ${lists.blocklist.length} blocklist, ${benign.length} benign domains`);
    if (lists.source === 'shared') {
      expect(lists.blocklist.length).toBe(334082);
      expect(lists.benign.length).toBe(204889);
    }
    filter = await CuckooFilter.create({ capacity: lists.blocklist.length, falsePositiveRate: EPS });
    expect(filter.addAll(lists.blocklist)).toBe(lists.blocklist.length);
  });
  afterAll(() => filter.dispose());

  function falseNegatives(f: CuckooFilter, keys: string[]): number {
    let n = 0;
    for (const k of keys) if (!f.has(k)) n++;
    return n;
  }
  function falsePositiveRate(f: CuckooFilter): number {
    let n = 0;
    for (const k of benign) if (f.has(k)) n++;
    return n / benign.length;
  }

  test('every blocklisted domain is found: 0 false negatives', () => {
    expect(filter.size).toBe(lists.blocklist.length);
    expect(falseNegatives(filter, lists.blocklist)).toBe(0);
    expect(filter.hasAll(lists.blocklist).every(Boolean)).toBe(true);
  });

  test('measured false-positive rate on benign domains is <= 1.5 x the configured rate', () => {
    const rate = falsePositiveRate(filter);
    expect(rate).toBeLessThanOrEqual(1.5 * EPS);
    expect(rate).toBeGreaterThan(0); // a rate of exactly 0 over 200k probes would mean has() is broken
  });

  test('the same after toBytes -> fromBytes', async () => {
    const bytes = filter.toBytes();
    const loaded = await CuckooFilter.fromBytes(bytes);
    try {
      expect(loaded.size).toBe(filter.size);
      expect(falseNegatives(loaded, lists.blocklist)).toBe(0);
      expect(falsePositiveRate(loaded)).toBe(falsePositiveRate(filter));
      expect(Buffer.compare(loaded.toBytes(), bytes)).toBe(0);
    } finally {
      loaded.dispose();
    }
  });

  test('deleting half of the domains leaves every other one present', async () => {
    const g = await CuckooFilter.fromBytes(filter.toBytes());
    try {
      const deleted = lists.blocklist.filter((_, i) => i % 2 === 0);
      const kept = lists.blocklist.filter((_, i) => i % 2 === 1);
      for (const d of deleted) expect(g.delete(d)).toBe(true);
      expect(g.size).toBe(kept.length);
      expect(falseNegatives(g, kept)).toBe(0);
      // Deleted keys are now mostly absent (present only as false positives).
      const stillThere = deleted.filter((d) => g.has(d)).length;
      expect(stillThere / deleted.length).toBeLessThan(3 * EPS);
    } finally {
      g.dispose();
    }
  });
});
