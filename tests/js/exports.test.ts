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

/** Each entry: its export, the declarations file, the Workers bundle, the module it imports there. */
const ENTRIES = [
  { key: '.', types: 'index', workerd: 'workerd', wasm: 'cuckoo-core' },
  { key: './reader', types: 'reader', workerd: 'reader-workerd', wasm: 'cuckoo-reader' },
];

test.each(ENTRIES)('$key: every runtime condition resolves to a file that exists, with the same types as every other', ({ key, types, wasm }) => {
  const entry = pkg.exports[key];
  const all = leaves(entry);
  expect(Object.keys(entry)).toEqual(['workerd', 'deno', 'bun', 'node', 'import', 'require']);
  for (const [conditions, leaf] of all) {
    expect([conditions, existsSync(join(root, leaf.default))]).toEqual([conditions, true]);
    const cjs = conditions.includes('require');
    expect([conditions, leaf.types]).toEqual([conditions, cjs ? `./dist/types/${types}.d.ts` : `./dist/types-esm/${types}.d.ts`]);
  }
  // The ES-module and CommonJS declarations are the same files.
  expect(readFileSync(join(root, `dist/types-esm/${types}.d.ts`), 'utf8')).toBe(readFileSync(join(root, `dist/types/${types}.d.ts`), 'utf8'));
  expect(entry.deno).toEqual(entry.node);
  expect(entry.bun).toEqual(entry.node);
  // The module as a file, typed as the hosts that import a .wasm give it (js/wasm-module.d.ts).
  expect(pkg.exports[`./${wasm}.wasm`]).toEqual({ types: './dist/types-esm/wasm-module.d.ts', default: `./dist/${wasm}.wasm` });
  expect(pkg.typesVersions['*'][`${wasm}.wasm`]).toEqual(['./dist/types/wasm-module.d.ts']);
  expect(readFileSync(join(root, 'dist/types-esm/wasm-module.d.ts'), 'utf8')).toBe(readFileSync(join(root, 'js/wasm-module.d.ts'), 'utf8'));
  expect(readFileSync(join(root, 'dist/types/wasm-module.d.ts'), 'utf8')).toBe(readFileSync(join(root, 'js/wasm-module.d.ts'), 'utf8'));
});

test.each(ENTRIES)('$key: the Workers bundle imports its own .wasm and embeds no WebAssembly', ({ workerd, wasm }) => {
  const bundle = readFileSync(join(root, `dist/${workerd}.mjs`), 'utf8');
  expect(bundle).toMatch(new RegExp(`import \\w+ from ?"\\./${wasm}\\.wasm"`));
  const bytes = readFileSync(join(root, `dist/${wasm}.wasm`));
  expect(bundle.length).toBeLessThan(bytes.length);
  expect(bundle).not.toContain('AGFzbQ'); // "\0asm" in base64
});
