// package.json "exports": every entry a runtime may resolve ("workerd", "deno", "bun", "node", "import",
// "require") has the same types, each file named exists, and the Workers build embeds no .wasm but imports it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const dot = pkg.exports['.'];

/** Each [conditions, { types, default }] leaf of the "." export. */
function leaves(node: Record<string, unknown>, path: string[] = []): [string[], { types: string; default: string }][] {
  if (typeof node.default === 'string') return [[path, node as { types: string; default: string }]];
  return Object.entries(node).flatMap(([k, v]) => leaves(v as Record<string, unknown>, [...path, k]));
}

test('every runtime condition resolves to a file that exists, with the same types as every other', () => {
  const all = leaves(dot);
  expect(Object.keys(dot)).toEqual(['workerd', 'deno', 'bun', 'node', 'import', 'require']);
  for (const [conditions, leaf] of all) {
    expect([conditions, existsSync(join(root, leaf.default))]).toEqual([conditions, true]);
    const cjs = conditions.includes('require');
    expect([conditions, leaf.types]).toEqual([conditions, cjs ? './dist/types/index.d.ts' : './dist/types-esm/index.d.ts']);
  }
  // The ES-module and CommonJS declarations are the same files.
  expect(readFileSync(join(root, 'dist/types-esm/index.d.ts'), 'utf8')).toBe(readFileSync(join(root, 'dist/types/index.d.ts'), 'utf8'));
  expect(dot.deno).toEqual(dot.node);
  expect(dot.bun).toEqual(dot.node);
  expect(pkg.exports['./cuckoo-core.wasm']).toBe('./dist/cuckoo-core.wasm');
});

test('dist/workerd.mjs imports ./cuckoo-core.wasm and embeds no WebAssembly', () => {
  const workerd = readFileSync(join(root, 'dist/workerd.mjs'), 'utf8');
  expect(workerd).toMatch(/import \w+ from ?"\.\/cuckoo-core\.wasm"/);
  const wasm = readFileSync(join(root, 'dist/cuckoo-core.wasm'));
  expect(workerd.length).toBeLessThan(wasm.length);
  expect(workerd).not.toContain('AGFzbQ'); // "\0asm" in base64
});
