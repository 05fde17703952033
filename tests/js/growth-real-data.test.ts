// Both filter families on a real blocklist (tests/js/data.ts: ../shared/data
// when present, else the in-repo sample), at ε = 1% and 0.1%: sized for the
// list, and sized for an eighth of it with expansion 2, so that the filter
// grows to about 8 times its capacity. Every listed domain is found (0 false
// negatives); the false-positive rate measured on the benign domains is what
// the configured ε promises.
//
// The bounds. Each benign domain is a Bernoulli trial with the filter's true
// rate p, so the measured rate over N of them has standard deviation
// σ(p) = √(p(1 − p)/N) (N ≈ 205,000: σ ≈ 0.022% at p = 1%, 0.007% at 0.1%).
//   - The promise, one-sided: measured ≤ ε + 3σ(ε). A filter whose true rate is
//     at most ε fails this with probability < 0.14% (normal approximation).
//   - The model, two-sided: |measured − expected| ≤ 4σ(expected) + 2% of expected,
//     where `expected` is the filter's own expectedFalsePositiveRate (Bloom:
//     (1 − e^(−kn/m))^k per sub-filter; cuckoo: the chance that one of the 2bα
//     compared fingerprints matches). The 2% covers the approximations in those
//     formulas; 4σ, that this runs for 8 filters.
import { BloomFilter, CuckooFilter } from 'cuckoo-wasm';
import { loadLists } from './data';

const lists = loadLists();
const blockSet = new Set(lists.blocklist);
const benign = lists.benign.filter((d) => !blockSet.has(d));
const N = benign.length;
const sigma = (p: number) => Math.sqrt((p * (1 - p)) / N);

type Filter = CuckooFilter | BloomFilter;
type Family = 'bloom' | 'cuckoo';

function falseNegatives(f: Filter, keys: string[]): number {
  let n = f.hasAll(keys).filter((x) => !x).length;
  // The single-key path too, on every 16th key.
  for (let i = 0; i < keys.length; i += 16) if (!f.has(keys[i])) n++;
  return n;
}

function measuredRate(f: Filter): number {
  return f.hasAll(benign).filter(Boolean).length / N;
}

async function build(family: Family, eps: number, capacity: number, expansion?: number): Promise<Filter> {
  const f =
    family === 'bloom'
      ? await BloomFilter.create({ capacity, falsePositiveRate: eps, expansion })
      : await CuckooFilter.create({ capacity, falsePositiveRate: eps, expansion });
  expect(f.addAll(lists.blocklist)).toBe(lists.blocklist.length);
  return f;
}

const measured: string[] = [];

function record(family: Family, eps: number, grown: boolean, f: Filter, rate: number): void {
  const bits = ((f.byteLength * 8) / lists.blocklist.length).toFixed(2);
  measured.push(
    `${family.padEnd(6)} ε=${String(eps).padEnd(5)} ${grown ? `expansion 2, capacity n/8, ${f.subFilterCount} sub-filters` : 'capacity n, no growth         '}` +
      `  measured ${(rate * 100).toFixed(4)}%  expected ${(f.expectedFalsePositiveRate * 100).toFixed(4)}%` +
      `  ${f.byteLength} bytes (${bits} bits per key)`,
  );
}

/** The promise and the model, as the header explains. */
function checkRate(f: Filter, eps: number, rate: number): void {
  expect(rate).toBeLessThanOrEqual(eps + 3 * sigma(eps));
  const expected = f.expectedFalsePositiveRate;
  expect(Math.abs(rate - expected)).toBeLessThanOrEqual(4 * sigma(expected) + 0.02 * expected);
  expect(rate).toBeGreaterThan(0); // 0 of ~200,000 would mean has() answers false for everything absent
}

describe(`real blocklist, both families, with growth (${lists.source === 'shared' ? '../shared/data full lists' : 'in-repo sample'})`, () => {
  beforeAll(() => {
    console.log(`growth real-data tests use ${lists.source}: ${lists.blocklist.length} blocklist, ${N} benign domains`);
    if (lists.source === 'shared') expect([lists.blocklist.length, N]).toEqual([334082, 204889]);
  });
  afterAll(() => console.log(`measured false-positive rates on ${N} benign domains, ${lists.blocklist.length} keys:\n${measured.join('\n')}`));

  describe.each([
    ['bloom', 0.01],
    ['bloom', 0.001],
    ['cuckoo', 0.01],
    ['cuckoo', 0.001],
  ] as const)('%s filter at ε = %p', (family, eps) => {
    test('capacity = the list: 0 false negatives; the measured rate is within the bounds of ε and of the model', async () => {
      const f = await build(family, eps, lists.blocklist.length);
      try {
        expect(f.subFilterCount).toBe(1);
        expect(falseNegatives(f, lists.blocklist)).toBe(0);
        const rate = measuredRate(f);
        record(family, eps, false, f, rate);
        checkRate(f, eps, rate);
        if (f instanceof BloomFilter) {
          // At capacity a Bloom filter is at its ε (rounding k costs a little): two-sided around ε itself.
          expect(Math.abs(rate - eps)).toBeLessThanOrEqual(4 * sigma(eps) + 0.02 * eps);
        }
      } finally {
        f.dispose();
      }
    });

    test('capacity = an eighth of the list, expansion 2: it grows to 4 sub-filters; 0 false negatives; measured rate <= ε', async () => {
      const capacity = Math.ceil(lists.blocklist.length / 8);
      const f = await build(family, eps, capacity, 2);
      try {
        // Capacities n/8, n/4, n/2, n: the fourth takes what the first three (7n/8, or a cuckoo
        // filter's ~97% of it) leave.
        expect(f.subFilterCount).toBe(4);
        expect(f.size).toBe(lists.blocklist.length);
        expect(falseNegatives(f, lists.blocklist)).toBe(0);
        const rate = measuredRate(f);
        record(family, eps, true, f, rate);
        checkRate(f, eps, rate);
        expect(f.falsePositiveRate).toBeLessThanOrEqual(eps);

        // The same after a round trip through bytes: byte for byte, answer for answer.
        const bytes = f.toBytes();
        const g = family === 'bloom' ? await BloomFilter.fromBytes(bytes) : await CuckooFilter.fromBytes(bytes);
        try {
          expect(Buffer.from(g.toBytes()).equals(Buffer.from(bytes))).toBe(true);
          expect(g.subFilterCount).toBe(4);
          expect(falseNegatives(g, lists.blocklist)).toBe(0);
          expect(measuredRate(g)).toBe(rate);
        } finally {
          g.dispose();
        }

        if (f instanceof CuckooFilter) {
          // Deleting half of the keys, from every sub-filter, leaves every other one present.
          const deleted = lists.blocklist.filter((_, i) => i % 2 === 0);
          const kept = lists.blocklist.filter((_, i) => i % 2 === 1);
          let failed = 0;
          for (const d of deleted) if (!f.delete(d)) failed++;
          expect(failed).toBe(0);
          expect(f.size).toBe(kept.length);
          expect(f.subFilterCount).toBe(4);
          expect(falseNegatives(f, kept)).toBe(0);
          // The deleted keys are now absent but for false positives.
          const still = f.hasAll(deleted).filter(Boolean).length / deleted.length;
          expect(still).toBeLessThanOrEqual(eps + 3 * Math.sqrt((eps * (1 - eps)) / deleted.length));
          // And the rate on benign domains went down, not up.
          expect(measuredRate(f)).toBeLessThanOrEqual(rate);
        }
      } finally {
        f.dispose();
      }
    });
  });
});
