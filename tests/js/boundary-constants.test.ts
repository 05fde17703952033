// What the two sides of the boundary must agree on. The URL region's layout and
// workspace come from the core at load (bindings/embind.cc, its constants);
// every constant the TS side still keeps a copy of is checked here against the
// core's. The core is reached through the test-only entry, dist/testing.mjs,
// run in a child process (Jest runs CommonJS; the entry is an ES module).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreConstants } from '../../js/boundary/core-types';
import { ENCODINGS, FAMILIES, checkRegistry } from '../../js/registry';

const root = join(__dirname, '..', '..');

/** Runs an ES-module script in a fresh Node process; returns its parsed last line. */
function run(script: string): Record<string, any> {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30000,
    env: { ...process.env, LIB: join(root, 'dist', 'index.mjs'), TESTING: join(root, 'dist', 'testing.mjs') },
  });
  if (r.error) throw r.error;
  const last = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !last.startsWith('{')) throw new Error(`child exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(last);
}

const core = run(`
const { CuckooFilter, BloomFilter } = await import(process.env.LIB);
const { rawBoundary } = await import(process.env.TESTING);
const raw = await rawBoundary();
const f = await CuckooFilter.create({ capacity: 100 });
const b = await BloomFilter.create({ capacity: 100 });
f.add('abc');
b.add('abc');
// A key written into the scratch region, looked up with the raw hot exports on each family's handle.
const lookup = (name, filter, key) => {
  const { ptr } = raw.scratch();
  raw.heapU8().set(new TextEncoder().encode(key), ptr);
  return raw.exports[name](raw.handleOf(filter), ptr, key.length);
};
const answers = [lookup('cf_contain', f, 'abc'), lookup('cf_contain', f, 'abd'), lookup('bf_contain', b, 'abc'), lookup('bf_contain', b, 'abd')];
const ptr = raw.malloc(16);
const heapIsLive = raw.heapU32().buffer === raw.heapU8().buffer && ptr > 0;
raw.free(ptr);
f.dispose();
let disposed;
try { raw.handleOf(f); } catch (e) { disposed = e.name; }
const direct = Object.values(raw.exports).every((fn) => /^\\d+$/.test(fn.name));
console.log(JSON.stringify({ constants: raw.constants, answers, heapIsLive, disposed, direct, exports: Object.keys(raw.exports).sort() }));
`);

/** A numeric constant of a js/ file, as its source writes it (`export const NAME = 1_000;`, or a bigint). */
function tsConstant(file: string, name: string): number | bigint {
  const source = readFileSync(join(root, 'js', file), 'utf8');
  const m = new RegExp(`const ${name}(?::[^=]+)? = (0x[0-9a-f]+n|[0-9_]+);`).exec(source);
  if (!m) throw new Error(`js/${file}: no constant ${name}`);
  const text = m[1].replace(/_/g, '');
  return text.endsWith('n') ? BigInt(text.slice(0, -1)) : Number(text);
}

test('the test-only entry reaches the same module as the package: handles, scratch, hot exports', () => {
  expect(core.answers).toEqual([1, 0, 1, 0]);
  expect(core.heapIsLive).toBe(true);
  expect(core.disposed).toBe('FilterDisposedError');
  expect(core.exports).toEqual(
    expect.arrayContaining([
      'cf_contain', 'cf_contain_batch', 'bf_contain', 'bf_contain_batch', 'url_match',
      'rc_contain', 'rc_contain_batch', 'rb_contain', 'rb_contain_batch',
      'rc_delete', 'rc_count', 'rc_add_unique', 'rb_add_new',
    ]),
  );
  expect(core.direct).toBe(true); // every hot function is the wasm instance's own export

});

test('the core reports the URL region it expects (src/url/url_canon.h, src/url/url_expressions.h)', () => {
  const c = core.constants;
  // CanonicalUrl is ten u32, a UrlSpan two, and there are 30 of them before the workspace.
  expect([c.urlCanonicalAt, c.urlSpanAt, c.urlSpansAt, c.urlBufferAt]).toEqual([0, 40, 48, 48 + 8 * 30]);
  expect([c.urlWorkspaceFixed, c.urlWorkspacePerByte]).toEqual([32, 4]); // CanonicalBufferSize(n) = 4n + 32
  expect(c.maxUrlBytes).toBe(2 << 20);
});

test('every constant the TS side keeps a copy of is the one the core reports', () => {
  const c = core.constants;
  expect(tsConstant('url/url.ts', 'MAX_URL_EXPRESSIONS')).toBe(c.maxUrlExpressions);
  expect(tsConstant('filters/cuckoo-filter.ts', 'MAX_MAX_KICKS')).toBe(c.maxMaxKicks);
  expect(tsConstant('common/options.ts', 'MAX_EXPANSION')).toBe(c.maxExpansion);
  expect(tsConstant('common/options.ts', 'DEFAULT_SEED')).toBe((BigInt(c.defaultSeedHigh) << 32n) | BigInt(c.defaultSeedLow));
  // The registry's family and encoding numbers (js/registry.ts; src/common/family.h, src/cuckoo/cuckoo_params.h), which the
  // library also checks when the module loads.
  expect(() => checkRegistry(c as CoreConstants)).not.toThrow();
  for (const f of FAMILIES) expect([f.className, c[f.constant]]).toEqual([f.className, f.id]);
  for (const [name, e] of Object.entries(ENCODINGS)) expect([name, c[e.constant]]).toEqual([name, e.id]);
  expect(FAMILIES.map((f) => f.constant).sort()).toEqual(Object.keys(c).filter((k) => /^family[A-Z]/.test(k)).sort());
  expect(Object.values(ENCODINGS).map((e) => e.constant).sort()).toEqual(Object.keys(c).filter((k) => /^encoding[A-Z]/.test(k)).sort());
  expect(() => checkRegistry({ ...c, familyBloom: 7 } as CoreConstants)).toThrow(/familyBloom 7, this build 2/);
  // The growth limit the error messages name (js/common/status.ts, "at most 32 sub-filters").
  expect(readFileSync(join(root, 'js', 'common', 'status.ts'), 'utf8')).toContain(`at most ${c.maxSubFilters} `);
});

test('the test-only entry is not in the package exports map', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  expect(JSON.stringify(pkg.exports)).not.toContain('testing');
});
