// What a browser downloads: each file of tests/size-budget.json (the full entry's dist/index.mjs, the read-only
// entry's dist/reader.mjs, each with its WebAssembly embedded) gzipped (level 9) stays at most the limit committed
// there, so that the size cannot creep back unnoticed (a change that needs more says why in the commit that raises
// it). And README.md states the size of each as built, between <!-- NAME:begin --> and <!-- NAME:end --> for the
// entry's "readme" NAME: the full entry's markers must be there; another entry's are checked where they are.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = join(__dirname, '..', '..');
const budget = JSON.parse(readFileSync(join(root, 'tests', 'size-budget.json'), 'utf8')) as Record<string, { gzipBytes: number; readme?: string }>;
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The bytes of `file` and of it gzipped at level 9. */
function sizes(file: string): { bytes: number; gzipped: number } {
  const contents = readFileSync(join(root, file));
  return { bytes: contents.length, gzipped: gzipSync(contents, { level: 9 }).length };
}

/** What README.md says between the markers NAME (every occurrence). */
function stated(name: string): string[] {
  return [...readme.matchAll(new RegExp(`<!-- ${name}:begin -->([^]*?)<!-- ${name}:end -->`, 'g'))].map((m) => m[1]);
}

test('the budget names the full entry and the reader', () => {
  expect(Object.keys(budget)).toEqual(expect.arrayContaining(['dist/index.mjs', 'dist/reader.mjs']));
  for (const [file, { gzipBytes }] of Object.entries(budget)) expect([file, Number.isSafeInteger(gzipBytes) && gzipBytes > 0]).toEqual([file, true]);
});

describe.each(Object.entries(budget))('%s', (file, { gzipBytes, readme: marker }) => {
  test(`is built and at most ${gzipBytes} bytes gzipped`, () => {
    expect(existsSync(join(root, file))).toBe(true);
    const { gzipped } = sizes(file);
    expect(gzipped).toBeLessThanOrEqual(gzipBytes);
  });

  test(`README.md's figures for it${marker ? ` (<!-- ${marker}:begin -->)` : ''} are the built file's`, () => {
    if (!marker) return;
    const { bytes, gzipped } = sizes(file);
    const figures = `${(bytes / 1000).toFixed(1)} KB, ${(gzipped / 1000).toFixed(1)} KB gzipped`;
    const texts = stated(marker);
    if (file === 'dist/index.mjs') expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) expect(text).toBe(figures);
  });
});
