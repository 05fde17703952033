// How the package gets its .wasm bytes (js/boundary/wasm-embedded.ts): the Node.js
// build embeds them as they are; the browsers' build embeds a raw DEFLATE
// stream, inflated by Node.js's zlib where there is one, else by the realm's
// DecompressionStream('deflate-raw'). Each way is forced in a fresh Node process.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

// The Node.js build (dist/node.*, package.json's "node" condition) embeds the
// .wasm as is: it loads with no zlib, no DecompressionStream and no inflater.
test.each(['node.mjs', 'node.cjs'])('dist/%s loads without inflating anything', (file) => {
  const path = join(root, 'dist', file);
  expect(readFileSync(path, 'utf8')).not.toMatch(/DecompressionStream|inflateRawSync|deflate-raw/);
  const script = `const used = [];
const getBuiltinModule = process.getBuiltinModule;
process.getBuiltinModule = (id) => (used.push(id), getBuiltinModule(id));
globalThis.DecompressionStream = class { constructor() { used.push('DecompressionStream'); throw new TypeError('none'); } };
const { CuckooFilter } = await import(${JSON.stringify(path)});
const f = await CuckooFilter.create({ capacity: 100 });
f.add('a');
console.log(JSON.stringify({ a: f.has('a'), b: f.has('b'), used }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 15000 });
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout.trim())).toEqual({ a: true, b: false, used: [] });
});

// The two ways js/boundary/wasm-embedded.ts inflates the module: Node.js's zlib
// (process.getBuiltinModule), and DecompressionStream; each must load a working
// module, and by the way named. With neither, loading fails with a WasmLoadError.
describe.each([
  ['zlib', ''],
  ['DecompressionStream', 'process.getBuiltinModule = undefined;'],
  ['neither', 'process.getBuiltinModule = undefined; delete globalThis.DecompressionStream;'],
])('the package loads through %s', (way, prelude) => {
  test('and answers', () => {
    const script = `${prelude}
const used = [];
const getBuiltinModule = process.getBuiltinModule;
if (getBuiltinModule) process.getBuiltinModule = (id) => (used.push('zlib'), getBuiltinModule(id));
const Stream = globalThis.DecompressionStream;
if (Stream) globalThis.DecompressionStream = class extends Stream { constructor(f) { used.push('DecompressionStream'); super(f); } };
const { CuckooFilter } = await import(${JSON.stringify(join(root, 'dist', 'index.mjs'))});
let a;
try {
  const f = await CuckooFilter.create({ capacity: 100 });
  a = f.add('a').has('a');
} catch (e) {
  a = e.name + ' ' + e.reason;
}
console.log(JSON.stringify({ a, used: used.join() || 'neither' }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 15000 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout.trim())).toEqual({ a: way === 'neither' ? 'WasmLoadError instantiate-failed' : true, used: way });
  });
});
