// Filters that grow (the `expansion` option): what the model-based harness
// (harness.ts, run over the growing families by property.test.ts) cannot see:
// the option's checks, the byte versions, the sub-filter geometry and
// statistics, the rate of a full filter, deletes of every key across many
// sub-filters, the growth limit, and addUnique. The growing Bloom filter's
// own tests: bloom.test.ts; the byte format of growing filters:
// growth-format.test.ts.
import { CuckooFilter, FilterDisposedError, FilterFullError, ArgumentTypeError, ArgumentRangeError } from 'cuckoo-wasm';

const enc = new TextEncoder();

// ---------------------------------------------------------------------------
// Deterministic tests of growing cuckoo filters.

const keysOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}.example`);

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('growing cuckoo filters', () => {
  test('expansion: an integer 2..1024, checked like every option', async () => {
    for (const v of [0, 1, -2, 2.5, 1025, NaN, Infinity]) {
      const p = CuckooFilter.create({ capacity: 10, expansion: v });
      await expect(p).rejects.toBeInstanceOf(ArgumentRangeError);
      await expect(p).rejects.toThrow(/^expansion must be an integer from 2 to 1024, got /);
    }
    for (const v of ['2', null, 2n]) {
      const p = CuckooFilter.create({ capacity: 10, expansion: v as never });
      await expect(p).rejects.toBeInstanceOf(ArgumentTypeError);
      await expect(p).rejects.toThrow(/^expansion must be a number, got /);
    }
    for (const e of [2, 1024]) {
      const f = await CuckooFilter.create({ capacity: 10, expansion: e });
      expect([f.expansion, f.subFilterCount]).toEqual([e, 1]);
      f.dispose();
    }
  });

  test('bytes: version 4 with growth 0 without growth, growth 1 with it, grown or not (docs/FORMAT.md §14)', async () => {
    const plain = await CuckooFilter.create({ capacity: 100 });
    const growing = await CuckooFilter.create({ capacity: 100, expansion: 2 });
    for (const f of [plain, growing]) f.addAll(keysOf('v', 50));
    const v4plain = plain.toBytes();
    const v4 = growing.toBytes();
    // version 4, family cuckoo, encoding 1 (semi-sorted, the default for b = 4), scheme 1, growth, hash id 1, one sub-filter
    expect([...v4plain.subarray(4, 12), plain.expansion]).toEqual([4, 0, 1, 1, 1, 0, 1, 1, 0]);
    expect([...v4.subarray(4, 12)]).toEqual([4, 0, 1, 1, 1, 1, 1, 1]);
    expect(new DataView(v4.buffer).getUint32(12, true)).toBe(2); // expansion
    // Sub-filter 0 is a version-1 file inside the stack, 32 bytes in.
    for (const [f, b] of [[plain, v4plain], [growing, v4]] as const) {
      expect(b.length).toBe(32 + f.info().subFilters[0].byteLength + 8);
      expect(Buffer.from(b.subarray(32, 38))).toEqual(Buffer.from([0x43, 0x4b, 0x4f, 0x4f, 1, 0]));
    }
  });

  test('sub-filter j: e^j times the buckets and capacity, f + j bits; f sized for ε/2 and the bound is twice the first', async () => {
    const f = await CuckooFilter.create({ capacity: 200, falsePositiveRate: 0.01, expansion: 3 });
    // Without growth ε = 1% gives f = 10 (8/1024); with growth the first sub-filter gets ε/2: f = 11.
    expect(f.fingerprintBits).toBe(11);
    expect(f.falsePositiveRate).toBe((2 * 8) / 2 ** 11);
    expect(f.falsePositiveRate).toBeLessThanOrEqual(0.01);
    const plain = await CuckooFilter.create({ capacity: 200, falsePositiveRate: 0.01 });
    expect(plain.fingerprintBits).toBe(10);
    plain.dispose();
    const keys = keysOf('geo', 3000);
    expect(f.addAll(keys)).toBe(3000);
    const subs = f.info().subFilters;
    expect(subs.length).toBe(3);
    subs.forEach((s, j) => {
      expect([s.capacity, s.bucketCount, s.fingerprintBits]).toEqual([200 * 3 ** j, f.bucketCount * 3 ** j, 11 + j]);
    });
    // Growth happens only when an insert fails: the older sub-filters are (nearly) full.
    expect(subs[0].loadFactor).toBeGreaterThan(0.9);
    expect(subs[1].loadFactor).toBeGreaterThan(0.9);
    expect(f.hasAll(keys).every(Boolean)).toBe(true);
    // The rate measured over all sub-filters stays under the bound.
    const measured = f.hasAll(keysOf('absent', 100_000)).filter(Boolean).length / 100_000;
    expect(measured).toBeLessThan(f.falsePositiveRate);
    expect(f.expectedFalsePositiveRate).toBeLessThan(f.falsePositiveRate);
    f.dispose();
  });

  test('info(): the statistics add up over the sub-filters', async () => {
    const f = await CuckooFilter.create({ capacity: 30, fingerprintBits: 8, bucketSize: 2, maxKicks: 20, seed: 5, expansion: 2 });
    f.addAll(keysOf('info', 400));
    for (let i = 0; i < 400; i += 5) f.delete(`info-${i}.example`);
    const info = f.info();
    const subs = info.subFilters;
    expect(subs.length).toBeGreaterThanOrEqual(3);
    expect(info).toMatchObject({
      type: 'cuckoo',
      capacity: 30,
      size: 320,
      bucketSize: 2,
      maxKicks: 20,
      seed: 5n,
      expansion: 2,
      byteLength: f.byteLength,
      loadFactor: f.loadFactor,
      falsePositiveRate: (2 * 2) / 2 ** 8 * 2,
    });
    expect(subs.reduce((t, s) => t + s.size, 0)).toBe(320);
    const slots = subs.reduce((t, s) => t + s.bucketCount * 2, 0);
    const stored = subs.reduce((t, s) => t + s.size - (s.victim ? 1 : 0), 0);
    expect(info.loadFactor).toBeCloseTo(stored / slots, 12);
    expect(info.bitsPerItem).toBeCloseTo((info.byteLength * 8) / subs.reduce((t, s) => t + s.capacity, 0), 10);
    expect(info.byteLength).toBe(32 + subs.reduce((t, s) => t + s.byteLength, 0) + 8); // version 4's header and checksum
    subs.forEach((s) => expect(s.byteLength).toBe(80 + Math.ceil((s.bucketCount * 2 * s.fingerprintBits) / 8)));
    // The victim is compared only when its bucket is one of the lookup's two (FORMAT.md §5.3).
    const none = subs.reduce(
      (p, s) => p * (1 - 1 / (2 ** s.fingerprintBits - 1)) ** (4 * s.loadFactor + (s.victim ? Math.min(1, 2 / s.bucketCount) : 0)),
      1,
    );
    expect(info.expectedFalsePositiveRate).toBeCloseTo(1 - none, 12);
    f.dispose();
  });

  test('expectedFalsePositiveRate is the measured rate of a full filter (victims in use), with and without growth', async () => {
    // b = 2: a victim in use counted as always compared would overstate the rate by 1/(2bα + 1), ~25%.
    for (const expansion of [undefined, 2]) {
      const f = await CuckooFilter.create({ capacity: 20_000, fingerprintBits: 8, bucketSize: 2, expansion, seed: 1 });
      const keys = keysOf('full', 60_000);
      if (expansion === undefined) {
        expect(() => f.addAll(keys)).toThrow(FilterFullError);
      } else {
        f.addAll(keys);
        expect(f.subFilterCount).toBe(2);
      }
      const subs = f.info().subFilters;
      expect(subs[0].victim).toBe(true);
      const probes = keysOf('probe', 300_000);
      const measured = f.hasAll(probes).filter(Boolean).length / probes.length;
      const expected = f.expectedFalsePositiveRate;
      // 4σ of the binomial, and 2% for the approximations of the formula.
      const sigma = Math.sqrt((expected * (1 - expected)) / probes.length);
      expect([expansion, Math.abs(measured - expected) <= 4 * sigma + 0.02 * expected]).toEqual([expansion, true]);
      f.dispose();
    }
  });

  test('deleting every key, in a random order, from a filter of 4-bit fingerprints and many sub-filters never loses another', async () => {
    // With 4-bit fingerprints in 1-bucket sub-filters, most keys share a fingerprint and a
    // bucket with others at the lower levels: deleting from the wrong sub-filter would take a
    // fingerprint another key needs.
    const f = await CuckooFilter.create({ capacity: 3, fingerprintBits: 4, bucketSize: 4, expansion: 2, seed: 17 });
    const keys = keysOf('del', 1500);
    const copies = new Map<string, number>();
    for (const [i, k] of keys.entries()) {
      const n = i % 10 === 0 ? 3 : 1; // some keys several times
      for (let c = 0; c < n; c++) f.add(k);
      copies.set(k, n);
    }
    expect(f.subFilterCount).toBeGreaterThanOrEqual(8);
    // A fixed shuffle: deletes reach every sub-filter, oldest and newest mixed.
    const order = [...copies.entries()].flatMap(([k, n]) => Array<string>(n).fill(k));
    let seed = 7;
    for (let i = order.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const j = seed % (i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    let lost = 0;
    for (const [i, k] of order.entries()) {
      expect(f.delete(k)).toBe(true);
      copies.set(k, copies.get(k)! - 1);
      if (copies.get(k) === 0) copies.delete(k);
      if (i % 25 === 0 || i > order.length - 50) {
        const held = [...copies.keys()];
        lost += f.hasAll(held).filter((x) => !x).length;
        for (const [key, n] of [...copies.entries()].slice(0, 40)) expect(f.count(key)).toBeGreaterThanOrEqual(n);
      }
    }
    expect(lost).toBe(0);
    // Every delete removed exactly one fingerprint: the filter is empty and finds nothing.
    expect(f.size).toBe(0);
    expect(f.hasAll(keys).some(Boolean)).toBe(false);
    f.dispose();
  });

  test('the growth limit (fingerprints would pass 32 bits): FilterFullError, nothing lost; deleting from the newest makes room', async () => {
    const f = await CuckooFilter.create({ capacity: 4, fingerprintBits: 30, expansion: 2 });
    const added: string[] = [];
    let error: unknown;
    for (let i = 0; i < 10_000 && error === undefined; i++) {
      try {
        f.add(`lim-${i}`);
        added.push(`lim-${i}`);
      } catch (e) {
        error = e;
      }
    }
    expect(error).toBeInstanceOf(FilterFullError);
    const e = error as FilterFullError;
    expect(e.code).toBe('ERR_FILTER_FULL');
    expect(e.message).toMatch(/^the filter is full and cannot grow further \(3 sub-filters, \d+ bytes; at most 32 sub-filters, 32-bit fingerprints/);
    expect(f.info().subFilters.map((s) => s.fingerprintBits)).toEqual([30, 31, 32]);
    expect(f.size).toBe(added.length);
    expect(f.hasAll(added).every(Boolean)).toBe(true);
    const before = f.toBytes();
    expect(() => f.add('still too many')).toThrow(FilterFullError);
    expect(() => f.addUnique('still too many')).toThrow(FilterFullError);
    const batch = thrown(() => f.addAll(['x1', 'x2'])) as FilterFullError;
    expect([batch instanceof FilterFullError, batch.added]).toEqual([true, 0]);
    expect(Buffer.from(f.toBytes()).equals(Buffer.from(before))).toBe(true);
    // The most recent keys went to the newest sub-filter: deleting one frees a slot there.
    const newest = () => f.info().subFilters[2].size;
    const n = newest();
    expect(f.delete(added.at(-1)!)).toBe(true);
    expect(newest()).toBe(n - 1);
    expect(f.add('room again').has('room again')).toBe(true);
    // A filter whose first sub-filter already has 32-bit fingerprints cannot grow at all.
    const g = await CuckooFilter.create({ capacity: 4, fingerprintBits: 32, expansion: 2 });
    expect(() => g.addAll(keysOf('g', 100))).toThrow(/cannot grow further \(1 sub-filters/);
    expect(g.subFilterCount).toBe(1);
    f.dispose();
    g.dispose();
  });

  test('a full filter without growth still says what to do: a larger capacity (not the growth message)', async () => {
    const f = await CuckooFilter.create({ capacity: 10, fingerprintBits: 16 });
    const e = thrown(() => f.addAll(keysOf('full', 1000))) as FilterFullError;
    expect(e).toBeInstanceOf(FilterFullError);
    expect(e.message).toMatch(/^the filter is full \(\d+ fingerprints in \d+ slots, capacity 10\)/);
    expect(e.message).not.toMatch(/grow/);
    f.dispose();
  });
});

describe('addUnique', () => {
  test('adds only when has() is false: true once, then false; count stays 1; with and without growth', async () => {
    for (const expansion of [undefined, 2]) {
      const f = await CuckooFilter.create({ capacity: 1000, expansion });
      expect(f.addUnique('once')).toBe(true);
      expect(f.addUnique('once')).toBe(false);
      expect(f.addUnique(enc.encode('once'))).toBe(false); // the same key as bytes
      expect([f.count('once'), f.size]).toEqual([1, 1]);
      f.add('twice').add('twice');
      expect(f.addUnique('twice')).toBe(false);
      expect(f.count('twice')).toBe(2);
      const keys = keysOf('u', 500);
      expect(keys.map((k) => f.addUnique(k)).filter(Boolean).length).toBeGreaterThan(490); // a few false positives at most
      expect(f.hasAll(keys).every(Boolean)).toBe(true);
      expect(keys.map((k) => f.addUnique(k)).some(Boolean)).toBe(false);
      f.dispose();
    }
  });

  test('a false positive is not added (the documented caveat): addUnique returns false for a key never added', async () => {
    const f = await CuckooFilter.create({ capacity: 4, fingerprintBits: 4 });
    f.add('A');
    let b: string | undefined;
    for (let i = 0; i < 100_000 && b === undefined; i++) if (f.has(`B${i}`)) b = `B${i}`;
    expect(b).toBeDefined();
    const before = f.toBytes();
    expect(f.addUnique(b!)).toBe(false);
    expect(Buffer.from(f.toBytes()).equals(Buffer.from(before))).toBe(true);
    expect(f.size).toBe(1);
    f.dispose();
  });

  test('errors as add: FilterFullError (nothing changes), ArgumentTypeError, FilterDisposedError', async () => {
    const f = await CuckooFilter.create({ capacity: 10, fingerprintBits: 16 });
    let added = 0;
    for (let i = 0; i < 1000; i++) {
      try {
        f.addUnique(`fill-${i}`);
        added++;
      } catch (e) {
        expect(e).toBeInstanceOf(FilterFullError);
        break;
      }
    }
    expect(f.size).toBe(added);
    const before = f.toBytes();
    expect(() => f.addUnique('fill-next')).toThrow(FilterFullError);
    expect(f.addUnique('fill-0')).toBe(false); // present: no insert is tried, so no error
    expect(Buffer.from(f.toBytes()).equals(Buffer.from(before))).toBe(true);
    for (const junk of [undefined, null, 5, {}, new Uint16Array(2)]) {
      expect(() => f.addUnique(junk as never)).toThrow(ArgumentTypeError);
      expect(() => f.addUnique(junk as never)).toThrow(/^key must be a string or a Uint8Array, got /);
    }
    f.dispose();
    expect(() => f.addUnique('x')).toThrow(FilterDisposedError);
    const g = await CuckooFilter.create({ capacity: 10, expansion: 2 });
    g.addAll(keysOf('g', 100));
    g.dispose();
    for (const call of [() => g.addUnique('x'), () => g.info(), () => g.subFilterCount, () => g.expectedFalsePositiveRate, () => g.bitsPerItem, () => g.byteLength]) {
      expect(call).toThrow(FilterDisposedError);
    }
  });
});
