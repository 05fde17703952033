// Messages that must name the real cause and what to do about it.
import { ArgumentRangeError, CuckooFilter, FilterFullError } from 'cuckoo-wasm';

const GIB = 2 ** 30;

async function rangeError(options: Parameters<typeof CuckooFilter.create>[0]): Promise<ArgumentRangeError> {
  const e = await CuckooFilter.create(options).then(
    (f) => {
      f.dispose();
      throw new Error('created');
    },
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(ArgumentRangeError);
  return e as ArgumentRangeError;
}

describe('a capacity too large for any filter', () => {
  test('2^53 - 1: says the capacity is too large, the bytes it needs, the 1 GiB limit and the largest capacity that fits', async () => {
    const e = await rangeError({ capacity: 2 ** 53 - 1 });
    expect(e.message).not.toMatch(/buckets of bytes/);
    expect(e.message).toMatch(
      /^capacity 9007199254740991 is too large: with 13-bit fingerprints and bucketSize 4 it needs about \d+ bytes \(more than 2\^32 buckets\), and a filter may use at most 1073741824 bytes .* which holds at most (\d+) keys\. Give a capacity of at most \1, a larger falsePositiveRate/,
    );
    const most = Number(/at most (\d+) keys/.exec(e.message)![1]);
    // Semi-sorted buckets (the default) store 13-bit fingerprints in 12 bits per slot, at a
    // load factor near 0.96: about 1 GiB * 8 / 12 * 0.96 keys.
    expect(most).toBeGreaterThan(((GIB * 8) / 12) * 0.9);
    expect(most).toBeLessThan((GIB * 8) / 12);
    const needed = Number(/needs about (\d+) bytes/.exec(e.message)![1]);
    expect(needed / (((2 ** 53 - 1) * 12) / 8 / 0.96)).toBeCloseTo(1, 1);
    // One more key than the largest that fits is refused, naming the same largest capacity.
    const next = await rangeError({ capacity: most + 1 });
    expect(next.message).toMatch(new RegExp(`^capacity ${most + 1} is too large: with 13-bit fingerprints and bucketSize 4 it needs \\d+ bytes, .* at most ${most} keys\\.`));
  });

  test('the largest capacity named follows the fingerprint size and the bucket size', async () => {
    const at = async (options: Parameters<typeof CuckooFilter.create>[0]) =>
      Number(/which holds at most (\d+) keys/.exec((await rangeError(options)).message)![1]);
    const f32 = await at({ capacity: 1e12, fingerprintBits: 32, bucketSize: 8 });
    const f8 = await at({ capacity: 1e12, fingerprintBits: 8, bucketSize: 8 });
    expect(f8 / f32).toBeCloseTo(4, 1);
  });
});

describe('a filter full below its capacity because maxKicks is low', () => {
  const fill = (f: CuckooFilter): FilterFullError => {
    for (let i = 0; i < 100_000; ++i) {
      try {
        f.add(`key-${i}`);
      } catch (e) {
        expect(e).toBeInstanceOf(FilterFullError);
        return e as FilterFullError;
      }
    }
    throw new Error('never full');
  };

  test('maxKicks 0: names maxKicks 0 as the cause and a larger maxKicks as the fix, not a larger capacity', async () => {
    const f = await CuckooFilter.create({ capacity: 10_000, maxKicks: 0 });
    const e = fill(f);
    expect(f.size).toBeLessThan(f.capacity * 0.8);
    expect(e.message).toMatch(
      new RegExp(
        `^the filter is full below its capacity \\(${f.size} fingerprints in ${f.bucketCount * 4} slots, load factor 0\\.\\d\\d, capacity 10000\\) because maxKicks is 0: no stored fingerprint may move`,
      ),
    );
    expect(e.message).toMatch(/Create the filter with a larger maxKicks/);
    expect(e.message).not.toMatch(/Create a filter with a larger capacity/);
    expect(e.code).toBe('ERR_FILTER_FULL');
    f.dispose();
  });

  test('a low maxKicks (3): the same cause, with its number', async () => {
    const f = await CuckooFilter.create({ capacity: 10_000, maxKicks: 3 });
    const e = fill(f);
    expect(f.size).toBeLessThan(f.capacity);
    expect(e.message).toMatch(/because maxKicks is 3: at most 3 stored fingerprints may move to make room/);
    expect(e.message).toMatch(/larger maxKicks/);
    f.dispose();
  });

  test('the default maxKicks, or more keys than the capacity: still a larger capacity', async () => {
    // Capacity 1 in a bucket of 8 slots: full only after more keys than the capacity, whatever maxKicks.
    const f = await CuckooFilter.create({ capacity: 1, maxKicks: 0, bucketSize: 8, fingerprintBits: 16 });
    const e = fill(f);
    expect(f.size).toBeGreaterThan(f.capacity);
    expect(e.message).toMatch(/Create a filter with a larger capacity/);
    f.dispose();
    const g = await CuckooFilter.create({ capacity: 64, fingerprintBits: 16 });
    const full = fill(g);
    expect(g.size).toBeGreaterThanOrEqual(64);
    expect(full.message).toMatch(/Create a filter with a larger capacity/);
    expect(full.message).not.toMatch(/maxKicks/);
    g.dispose();
  });
});
