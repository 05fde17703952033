// Memory: no leaks across create/dispose and fromBytes, garbage-collected filters
// are freed by the FinalizationRegistry, oversized filters are refused up front.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ArgumentRangeError, CuckooFilter, wasmMemoryUsage } from 'cuckoo-wasm';

test('creating and disposing 10,000 filters leaves wasm memory where it started', async () => {
  // Warm up: the first calls allocate the library's scratch and batch buffers once.
  const warm = await CuckooFilter.create({ capacity: 100 });
  warm.addAll(['a', 'b']);
  warm.hasAll(['a']);
  warm.dispose();
  const before = await wasmMemoryUsage();
  for (let i = 0; i < 10_000; i++) {
    const f = await CuckooFilter.create({ capacity: 1 + (i % 500), bucketSize: ([2, 4, 8] as const)[i % 3] });
    f.add(`k${i}`);
    if (i % 10 === 0) {
      const g = await CuckooFilter.fromBytes(f.toBytes());
      g.dispose();
    }
    f.dispose();
  }
  const after = await wasmMemoryUsage();
  // eslint-disable-next-line no-console
  console.log(`wasm memory before: ${JSON.stringify(before)}, after 10,000 create/dispose: ${JSON.stringify(after)}`);
  expect(after.allocatedBytes).toBe(before.allocatedBytes);
  expect(after.heapBytes).toBe(before.heapBytes);
});

test('a failed fromBytes or create frees what it allocated', async () => {
  const f = await CuckooFilter.create({ capacity: 1000 });
  const bytes = f.toBytes();
  f.dispose();
  bytes[200] ^= 1; // a table byte of the one section: the file's checksum refuses it
  const before = (await wasmMemoryUsage()).allocatedBytes;
  for (let i = 0; i < 100; i++) await expect(CuckooFilter.fromBytes(bytes)).rejects.toThrow(/checksum/);
  for (let i = 0; i < 100; i++) await expect(CuckooFilter.create({ capacity: 10, bucketSize: 3 as never })).rejects.toThrow();
  expect((await wasmMemoryUsage()).allocatedBytes).toBe(before);
});

test('a filter larger than wasm memory allows is refused up front with a RangeError naming the limit', async () => {
  const before = await wasmMemoryUsage();
  for (const options of [
    { capacity: 300_000_000, fingerprintBits: 32 }, // 1.25 GB table
    { capacity: 1e12 },
    { capacity: Number.MAX_SAFE_INTEGER },
    { capacity: 2 ** 40 },
  ]) {
    const p = CuckooFilter.create(options);
    await expect(p).rejects.toBeInstanceOf(ArgumentRangeError);
    await expect(p).rejects.toBeInstanceOf(RangeError);
    await expect(p).rejects.toThrow(/at most 1073741824 bytes/);
  }
  expect((await wasmMemoryUsage()).heapBytes).toBe(before.heapBytes);
});

test('filters dropped without dispose() are freed by the FinalizationRegistry (node --expose-gc)', () => {
  const script = `
const { CuckooFilter, wasmMemoryUsage } = require(${JSON.stringify(join(__dirname, '..', '..', 'dist', 'index.cjs'))});
(async () => {
  const warm = await CuckooFilter.create({ capacity: 10 }); warm.add('x'); warm.dispose();
  const base = (await wasmMemoryUsage()).allocatedBytes;
  // In a function of its own, so no frame of ours still references the last filter.
  const makeGarbage = async () => {
    for (let i = 0; i < 200; i++) { const f = await CuckooFilter.create({ capacity: 10000 }); f.add('k' + i); }
    return (await wasmMemoryUsage()).allocatedBytes;
  };
  const held = await makeGarbage();
  for (let i = 0; i < 20 && (await wasmMemoryUsage()).allocatedBytes > base; i++) {
    global.gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  const after = (await wasmMemoryUsage()).allocatedBytes;
  console.log(JSON.stringify({ base, held, after }));
})();`;
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  const { base, held, after } = JSON.parse(r.stdout);
  expect(held - base).toBeGreaterThan(200 * 10000); // 200 filters of ~17 KB were live
  expect(after).toBe(base);
});

test('the per-key calls go straight to the wasm instance exports, and memory growth keeps them working', async () => {
  // The core calls the instance's own exports (a wasm function's name is its index), no wrapper in between.
  const f = await CuckooFilter.create({ capacity: 1000 });
  const core = (f as unknown as { core: { x: Record<string, unknown> } }).core;
  const functions = Object.values(core.x).filter((fn) => typeof fn === 'function');
  expect(functions.length).toBeGreaterThan(40);
  expect(functions.every((fn) => /^\d+$/.test((fn as Function).name))).toBe(true);
  f.add('aaaa-before');
  // The last key in the scratch and batch regions before memory grows is another key of the same
  // length: if a view detached by the growth were still written to, the old bytes would answer.
  expect(f.has('zzzz-before')).toBe(false);
  expect(f.hasAll(['zzzz-before'])).toEqual([false]);
  // Grow wasm memory (detaching every view), then use the scratch and batch regions again.
  const big = await CuckooFilter.create({ capacity: 4_000_000 });
  expect(f.has('aaaa-before')).toBe(true);
  expect(f.has('zzzz-before')).toBe(false);
  expect(f.has('')).toBe(false);
  expect(f.hasAll(['aaaa-before', 'zzzz-before'])).toEqual([true, false]);
  f.addAll(['after-growth']);
  expect(f.has('after-growth')).toBe(true);
  big.dispose();
  f.dispose();
});
