// The shipped module's size: dist/index.mjs gzipped (level 9) stays at most
// the limit committed in tests/size-budget.json, so that the size cannot creep
// back unnoticed (a change that needs more says why in the commit that raises
// it). And README.md states the size of the module as built.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = join(__dirname, '..', '..');
const budget = JSON.parse(readFileSync(join(root, 'tests', 'size-budget.json'), 'utf8')) as {
  'dist/index.mjs': { gzipBytes: number };
};
const mjs = readFileSync(join(root, 'dist', 'index.mjs'));
const gzipped = gzipSync(mjs, { level: 9 }).length;

test(`dist/index.mjs is at most ${budget['dist/index.mjs'].gzipBytes} bytes gzipped`, () => {
  expect(gzipped).toBeLessThanOrEqual(budget['dist/index.mjs'].gzipBytes);
});

test("README.md's size figures are the built module's", () => {
  const figures = `${(mjs.length / 1000).toFixed(1)} KB, ${(gzipped / 1000).toFixed(1)} KB gzipped`;
  const stated = [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/<!-- size:begin -->([^]*?)<!-- size:end -->/g)];
  expect(stated.length).toBeGreaterThan(0);
  for (const [, text] of stated) expect(text).toBe(figures);
});
