// js/inflate.ts, the raw DEFLATE decoder js/load.ts falls back on where the
// realm has no DecompressionStream('deflate-raw'): it decodes what zlib writes
// in every block type, the module's own embedded .wasm, and refuses a broken
// stream with an Error; and the package loads through it.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, deflateRawSync } from 'node:zlib';
import { inflateRaw } from '../../js/inflate';

const root = join(__dirname, '..', '..');

/** Bytes that compress somewhat: words from a small vocabulary with random bytes between. */
function sample(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8;
  const words = ['cuckoo', 'bloom', 'filter', 'bucket', 'https://example.com/', '\0\0\0\0'];
  for (let i = 0; i < length; ) {
    if (next() % 3 === 0) out[i++] = next() & 255;
    else for (const c of words[next() % words.length]) if (i < length) out[i++] = c.charCodeAt(0);
  }
  return out;
}

describe('inflateRaw', () => {
  const cases: [string, object][] = [
    ['stored blocks (level 0)', { level: 0 }],
    ['fixed Huffman blocks', { level: 6, strategy: constants.Z_FIXED }],
    ['dynamic Huffman blocks', { level: 9 }],
    ['Huffman only', { level: 9, strategy: constants.Z_HUFFMAN_ONLY }],
    ['run lengths', { level: 9, strategy: constants.Z_RLE }],
  ];
  test.each(cases)('decodes %s', (_, options) => {
    for (const length of [0, 1, 100, 70000, 300000]) {
      const data = sample(length, length + 1);
      const packed = deflateRawSync(data, options);
      expect(Buffer.from(inflateRaw(packed))).toEqual(Buffer.from(data));
      expect(Buffer.from(inflateRaw(packed, 1))).toEqual(Buffer.from(data)); // grows its output
    }
  });

  test("decodes the module's embedded .wasm (zopfli's DEFLATE) to the .wasm", () => {
    const wasm = readFileSync(join(root, 'build', 'wasm', 'cuckoo-core.wasm'));
    const deflated = readFileSync(join(root, 'build', 'wasm', 'cuckoo-core.wasm.deflate'));
    expect(deflated.length).toBeLessThan(wasm.length / 2);
    expect(Buffer.from(inflateRaw(deflated))).toEqual(wasm);
  });

  test('throws on a broken stream', () => {
    expect(() => inflateRaw(Uint8Array.of(0xff, 0xff, 0xff, 0xff))).toThrow(/malformed/);
    const packed = deflateRawSync(sample(5000, 7), { level: 9 });
    expect(() => inflateRaw(packed.subarray(0, 100))).toThrow(/malformed|truncated/);
    expect(() => inflateRaw(Uint8Array.of(0x00, 0x10, 0x00))).toThrow(/truncated/); // a stored block cut short
  });
});

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

// The three ways js/load.ts inflates the module, each forced in a fresh Node
// process: Node.js's zlib (process.getBuiltinModule), DecompressionStream, and
// js/inflate.ts; each must load a working module, and by the way named.
describe.each([
  ['zlib', ''],
  ['DecompressionStream', 'process.getBuiltinModule = undefined;'],
  ['inflateRaw', 'process.getBuiltinModule = undefined; delete globalThis.DecompressionStream;'],
])('the package loads through %s', (way, prelude) => {
  test('and answers', () => {
    const script = `${prelude}
const used = [];
const getBuiltinModule = process.getBuiltinModule;
if (getBuiltinModule) process.getBuiltinModule = (id) => (used.push('zlib'), getBuiltinModule(id));
const Stream = globalThis.DecompressionStream;
if (Stream) globalThis.DecompressionStream = class extends Stream { constructor(f) { used.push('DecompressionStream'); super(f); } };
const { CuckooFilter } = await import(${JSON.stringify(join(root, 'dist', 'index.mjs'))});
const f = await CuckooFilter.create({ capacity: 100 });
f.add('a');
console.log(JSON.stringify({ a: f.has('a'), used: used.join() || 'inflateRaw' }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 15000 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout.trim())).toEqual({ a: true, used: way });
  });
});
