// The boundary (house style: every raw wasm access in one file): only js/wasm-core.ts
// touches the WebAssembly module. Every other file in js/ goes through its
// filter-level operations, so none of them may mention the module's memory views,
// its allocator, its `_`-prefixed exports, the cf_* exports, the module object or
// the build-time modules that provide it; js/load.ts, which instantiates the
// module, may name the glue and the instance, and nothing else; so may the
// module's default sources it instantiates (js/wasm-embedded.ts: the embedded
// bytes; js/wasm-workerd.ts: the .wasm imported as a module).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const jsDir = join(__dirname, '..', '..', 'js');
const BOUNDARY = 'wasm-core.ts';
/**
 * The boundary, and files of declarations only: the build-time modules' types
 * (glue.d.ts), the module's shape and export names (core-types.ts), and the
 * test-only entry, whose docs name the raw exports it hands out (testing.ts).
 */
const ALLOWED = [BOUNDARY, 'glue.d.ts', 'core-types.ts', 'testing.ts'];
/** Files allowed some kinds of access only: what each may name. */
const PARTLY: Record<string, string[]> = {
  'load.ts': ['the Emscripten glue or the .wasm bytes', 'the wasm instance'],
  'wasm-embedded.ts': ['the Emscripten glue or the .wasm bytes', 'the wasm instance'],
  'wasm-workerd.ts': ['the wasm instance'],
};

/** Names only the boundary may use, each with what it is. */
const RAW: [RegExp, string][] = [
  [/\bHEAP(U?8|U?16|U?32|F32|F64|64|U64)\b/, 'a view of wasm memory'],
  [/\b_malloc\b|\b_free\b/, 'the module allocator'],
  [/\b_[a-z]\w*\s*\(/, 'a `_`-prefixed module export'],
  [/\bcf_\w+/, 'a cf_* wasm export'],
  [/\bcore\.m\b|\.m\.\w+\(/, 'the module object'],
  [/\.hot\b/, 'the raw hot exports'],
  [/cuckoo-core-(glue|wasm)/, 'the Emscripten glue or the .wasm bytes'],
  [/\b(instance\.exports|WebAssembly\.(instantiate|Memory|Module|Instance))\b/, 'the wasm instance'],
];

function offences(source: string, allowed: string[] = []): string[] {
  const found: string[] = [];
  source.split('\n').forEach((line, i) => {
    for (const [pattern, what] of RAW) {
      if (pattern.test(line) && !allowed.includes(what)) found.push(`line ${i + 1}: ${what}: ${line.trim()}`);
    }
  });
  return found;
}

const files = readdirSync(jsDir).filter((f) => f.endsWith('.ts'));

test('js/ holds the boundary file and others, all of them scanned', () => {
  for (const f of ALLOWED) expect(files).toContain(f);
  for (const f of Object.keys(PARTLY)) expect(files).toContain(f);
  expect(files).toEqual(expect.arrayContaining(['cuckoo-filter.ts', 'wasm-filter.ts', 'status.ts', 'errors.ts', 'index.ts']));
});

test.each(files.filter((f) => !ALLOWED.includes(f)))('js/%s does not touch the WebAssembly module', (file) => {
  expect(offences(readFileSync(join(jsDir, file), 'utf8'), PARTLY[file])).toEqual([]);
});

test('a file of declarations only holds no function that could touch the module', () => {
  for (const file of ['core-types.ts', 'glue.d.ts']) {
    expect([file, /\bfunction\b|=>\s*\{|\bclass\b/.test(readFileSync(join(jsDir, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''))]).toEqual([file, false]);
  }
});

test('no file in js/ is over 500 lines', () => {
  for (const file of files) {
    const lines = readFileSync(join(jsDir, file), 'utf8').split('\n').length - 1;
    expect([file, lines <= 500]).toEqual([file, true]);
  }
});

test('the scan finds each kind of raw access (it is not vacuous)', () => {
  const boundary = readFileSync(join(jsDir, BOUNDARY), 'utf8') + readFileSync(join(jsDir, 'load.ts'), 'utf8');
  for (const [pattern, what] of RAW) {
    expect([what, pattern.test(boundary)]).toEqual([what, true]);
  }
  expect(offences('const x = core.m.create(1, 2, 3);')).not.toEqual([]);
  expect(offences('this.core.m.statusMessage(s)')).not.toEqual([]);
  expect(offences('core._cf_contain(h, p, n)')).not.toEqual([]);
  expect(offences('return this.core.contain(this.live(), key);')).toEqual([]);
});
