// Space: the bucket count tracks the capacity (no power-of-two rounding).
import { CuckooFilter } from 'cuckoo-wasm';

test.each([1_000_003, 600_000, 100_000, 334_082])(
  'capacity %i at eps 0.001, b = 4: bitsPerItem <= f / 0.92, bucket count not a power of two',
  async (capacity) => {
    const f = await CuckooFilter.create({ capacity, falsePositiveRate: 0.001, bucketSize: 4 });
    expect(f.fingerprintBits).toBe(13);
    expect(f.bitsPerItem).toBeLessThanOrEqual(f.fingerprintBits / 0.92);
    expect(f.bitsPerItem).toBeCloseTo((f.byteLength * 8) / capacity, 10);
    expect(Number.isInteger(Math.log2(f.bucketCount))).toBe(false);
    f.dispose();
  },
);

test('a filter created for 1,000,003 keys takes all of them', async () => {
  const n = 1_000_003;
  const f = await CuckooFilter.create({ capacity: n, falsePositiveRate: 0.001 });
  const keys = Array.from({ length: n }, (_, i) => `item-${i}.example`);
  expect(f.addAll(keys)).toBe(n);
  expect(f.loadFactor).toBeGreaterThan(0.95);
  expect(f.hasAll(keys).every(Boolean)).toBe(true);
  f.dispose();
});

test.each([2, 4, 8] as const)('b = %i: every capacity 1..300 takes `capacity` keys', async (b) => {
  for (let capacity = 1; capacity <= 300; capacity++) {
    const f = await CuckooFilter.create({ capacity, bucketSize: b, falsePositiveRate: 0.01 });
    const keys = Array.from({ length: capacity }, (_, i) => `c${capacity}-${i}`);
    expect([capacity, f.addAll(keys)]).toEqual([capacity, capacity]);
    f.dispose();
  }
});
