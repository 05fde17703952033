// wasmMemoryUsage().allocatedBytes counts the bytes asked for by the heap
// blocks in use (bindings/allocator.cc), exactly: each malloc adds its size,
// each free takes it back, whatever the allocator rounds, splits or merges.
// The leak checks of the other tests compare it before and after; a count
// that moved with the allocator's bookkeeping would fail them without a leak,
// or hide one. The module's malloc is reached through the test-only entry,
// dist/testing.mjs, run in a child process (Jest runs CommonJS; the entry is
// an ES module).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/** Runs an ES-module script in a fresh Node process; returns its parsed last line. */
function run(script: string): Record<string, any> {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60000,
    env: { ...process.env, LIB: join(root, 'dist', 'index.mjs'), TESTING: join(root, 'dist', 'testing.mjs') },
  });
  if (r.error) throw r.error;
  const last = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !last.startsWith('{')) throw new Error(`child exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(last);
}

const result = run(`
const { CuckooFilter, wasmMemoryUsage } = await import(process.env.LIB);
const { rawBoundary } = await import(process.env.TESTING);
const raw = await rawBoundary();
const allocated = async () => (await wasmMemoryUsage()).allocatedBytes;
(await CuckooFilter.create({ capacity: 10 })).dispose(); // the module's one-time buffers
// One block at a time: the count rises by exactly the bytes asked for.
const sizes = [1, 3, 4, 5, 8, 13, 100, 4095, 65537];
const rises = [];
for (const n of sizes) {
  const before = await allocated();
  const p = raw.malloc(n);
  rises.push((await allocated()) - before);
  raw.free(p);
}
// Blocks of odd sizes made and freed in a scrambled order, with filters
// created and disposed among them (so free regions are split, merged and
// realigned): the count is the sum of the live blocks' sizes at every step,
// and back where it started at the end.
const start = await allocated();
const live = new Map();
let seed = 12345;
const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
const mismatches = [];
for (let i = 0; i < 3000; i++) {
  if (live.size > 0 && next() % 3 === 0) {
    const keys = [...live.keys()];
    const p = keys[next() % keys.length];
    raw.free(p);
    live.delete(p);
  } else {
    const n = 1 + (next() % 700);
    const p = raw.malloc(n);
    if (p === 0) throw new Error('malloc failed');
    live.set(p, n);
  }
  if (i % 500 === 250) (await CuckooFilter.create({ capacity: 1 + (i % 97) })).dispose();
  let sum = 0;
  for (const n of live.values()) sum += n;
  if ((await allocated()) - start !== sum && mismatches.length < 5) mismatches.push([i, (await allocated()) - start, sum]);
}
for (const p of live.keys()) raw.free(p);
console.log(JSON.stringify({ sizes, rises, mismatches, end: (await allocated()) - start }));
`);

test('a malloc of n bytes raises allocatedBytes by exactly n', () => {
  expect(result.rises).toEqual(result.sizes);
});

test('allocatedBytes is the sum of the live blocks at every step of scrambled mallocs and frees, and back at the start at the end', () => {
  expect(result.mismatches).toEqual([]);
  expect(result.end).toBe(0);
});
