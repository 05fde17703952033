// Object lifetime, for every family of families.ts: dispose() frees the
// filter's memory (every sub-filter of a grown one), a second dispose() does
// nothing, every other method and getter afterwards throws FilterDisposedError
// (fixed parameters stay readable), [Symbol.dispose] disposes, and `using`
// disposes at the end of its block, also when the block throws.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import * as ts from 'typescript';
import { BloomFilter, CuckooFilter, FilterDisposedError, wasmMemoryUsage } from 'cuckoo-wasm';
import { AnyFilter, FAMILY_ROWS } from './families';

const dist = join(__dirname, '..', '..', 'dist', 'index.cjs');
const keysOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}.example`);

// The library's scratch and batch regions, and each family's embind class (a few bytes), are
// allocated on first use and kept: allocate them first, so that what a filter frees shows in the
// allocated bytes.
beforeAll(async () => {
  const f = await CuckooFilter.create({ capacity: 1000 });
  f.addAll(keysOf('warm', 100));
  f.hasAll(keysOf('warm', 100));
  f.dispose();
  for (const [, family] of FAMILY_ROWS) (await family.create({ capacity: 10 })).dispose();
});

describe.each(FAMILY_ROWS)('%s', (_, family) => {
  test('every method and getter after dispose throws FilterDisposedError; dispose again does not; the memory is freed', async () => {
    const before = (await wasmMemoryUsage()).allocatedBytes;
    const f = await family.create({ capacity: 10, expansion: 2 });
    f.addAll(keysOf('d', family.grows ? 100 : 5)); // a growing filter grows: several sub-filters to free
    const other = await family.create({ capacity: 10, expansion: 2 });
    expect((await wasmMemoryUsage()).allocatedBytes).toBeGreaterThan(before);
    if (family.grows) expect(f.subFilterCount).toBeGreaterThan(1);
    const fixed = [f.capacity, f.falsePositiveRate, f.expansion, f.seed];
    f.dispose();
    other.dispose();
    expect((await wasmMemoryUsage()).allocatedBytes).toBe(before);
    expect(() => f.dispose()).not.toThrow();
    expect(f.disposed).toBe(true);
    const live = await family.create({ capacity: 10 });
    const calls: (() => unknown)[] = [
      () => f.add('a'),
      () => f.has('a'),
      () => f.addAll(['a']),
      () => f.hasAll(['a']),
      () => f.addUrl('a.example'),
      () => f.hasUrl('a.example'),
      () => f.toBytes(),
      () => f.info(),
      () => f.size,
      () => f.byteLength,
      () => f.bitsPerItem,
      () => f.subFilterCount,
    ];
    if (f instanceof CuckooFilter) {
      calls.push(() => f.delete('a'), () => f.count('a'), () => f.addUnique('a'), () => f.loadFactor);
    }
    if (f instanceof BloomFilter) {
      const b = live as BloomFilter;
      calls.push(
        () => f.union(b),
        () => b.union(f),
        () => f.isCompatible(b),
        () => b.isCompatible(f),
        () => f.estimatedCount(),
        () => f.bitCount,
        () => f.expectedFalsePositiveRate,
      );
    }
    for (const call of calls) {
      expect(call).toThrow(FilterDisposedError);
      expect(call).toThrow(expect.objectContaining({ code: 'ERR_FILTER_DISPOSED' }));
    }
    // Fixed parameters stay readable; other filters are untouched.
    expect([f.capacity, f.falsePositiveRate, f.expansion, f.seed]).toEqual(fixed);
    expect(live.add('x').has('x')).toBe(true);
    live.dispose();
  });

  test("[Symbol.dispose] disposes (under Symbol.for('Symbol.dispose') in a realm without Symbol.dispose, as Jest's)", async () => {
    const f: AnyFilter = await family.create({ capacity: 10 });
    f[(Symbol.dispose ?? Symbol.for('Symbol.dispose')) as typeof Symbol.dispose]();
    expect(f.disposed).toBe(true);
    expect(() => f.has('x')).toThrow(FilterDisposedError);
  });

  test('`using` (compiled by TypeScript) disposes at the end of the block, also when it throws', () => {
    // A child Node process, whose realm has Symbol.dispose, which TypeScript's `using` helper requires.
    const cls = family.kind === 'bloom' ? 'BloomFilter' : 'CuckooFilter';
    const options = JSON.stringify({ capacity: 10, ...family.fixed, ...(family.grows ? { expansion: 2 } : {}) });
    const source = `
const { ${cls} } = require(${JSON.stringify(dist)});
(async () => {
  let kept: InstanceType<typeof ${cls}> | undefined;
  {
    using g = await ${cls}.create(${options});
    g.addAll(['x', 'y']);
    kept = g;
    console.log(JSON.stringify({ inside: g.has('x') && !g.disposed }));
  }
  console.log(JSON.stringify({ after: kept.disposed }));
  try {
    using h = await ${cls}.create(${options});
    kept = h;
    throw new Error('boom');
  } catch (e) {
    console.log(JSON.stringify({ thrown: (e as Error).message, disposed: kept.disposed }));
  }
})();`;
    const js = ts.transpileModule(source, {
      compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS, lib: ['lib.esnext.d.ts'] },
    }).outputText;
    const r = spawnSync(process.execPath, ['-e', js], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([{ inside: true }, { after: true }, { thrown: 'boom', disposed: true }]);
  });
});
