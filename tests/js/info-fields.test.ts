// Each family's info() fields are declared once, as the X-macro lists of its <name>_info.h in src/ (listed by
// src/registry/families.h), from which
// bindings/embind.cc builds the object the core's info() returns; the TypeScript side types that object as its
// CoreInfo interfaces (js/filters/read/*.ts). This test holds the two against each other, both ways: every field
// a list declares is a property of its interface, and every property of the interface is a field of the lists.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

const root = join(__dirname, '..', '..');
// The info headers: those src/registry/families.h includes whose names end in _info.h.
const registry = readFileSync(join(root, 'src', 'registry', 'families.h'), 'utf8');
const infoHeaders = [...registry.matchAll(/#include "(\S+_info\.h)"/g)].map((m) => m[1]);
const header = infoHeaders.map((h) => readFileSync(join(root, 'src', h), 'utf8')).join('\n');

/** The field names of the X-macro list `name` in the info headers, with those of the lists it expands. */
function listFields(name: string): string[] {
  const body = new RegExp(`#define ${name}\\(X\\)((?:.*\\\\\\n)*.*)`).exec(header)?.[1];
  if (body === undefined) throw new Error(`${infoHeaders.join(', ')}: no list ${name}`);
  const nested = [...body.matchAll(/(CUCKOO_\w+)\(X\)/g)].flatMap((m) => listFields(m[1]));
  return [...nested, ...[...body.matchAll(/\bX\((\w+),/g)].map((m) => m[1])];
}

const files = ['cuckoo-filter', 'bloom-filter', 'redis-cuckoo-filter', 'redis-bloom-filter', 'binary-fuse-filter'].map((f) => join(root, 'js', 'filters', 'read', `${f}.ts`));
const program = ts.createProgram(files, { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, noEmit: true });
const checker = program.getTypeChecker();

/** The property names of interface `name` exported by js/filters/read/`file`.ts, and of its `subFilters` elements. */
function interfaceFields(file: string, name: string): { own: string[]; sub: string[] } {
  const source = program.getSourceFile(join(root, 'js', 'filters', 'read', `${file}.ts`))!;
  const declaration = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (declaration === undefined) throw new Error(`js/filters/read/${file}.ts: no interface ${name}`);
  const type = checker.getTypeAtLocation(declaration.name);
  const own = checker.getPropertiesOfType(type).map((p) => p.name);
  const subs = type.getProperty('subFilters');
  let sub: string[] = [];
  if (subs !== undefined) {
    const array = checker.getTypeOfSymbol(subs);
    const element = checker.getIndexTypeOfType(array, ts.IndexKind.Number)!;
    sub = checker.getPropertiesOfType(element).map((p) => p.name);
  }
  return { own, sub };
}

const sorted = (names: string[]) => [...new Set(names)].sort();

test.each([
  ['cuckoo-filter', 'CoreInfo', 'Cuckoo'],
  ['bloom-filter', 'CoreBloomInfo', 'Bloom'],
  ['redis-cuckoo-filter', 'CoreInfo', 'RedisCuckoo'],
  ['redis-bloom-filter', 'CoreInfo', 'RedisBloom'],
  ['binary-fuse-filter', 'CoreBinaryFuseInfo', 'BinaryFuse'],
] as const)('js/filters/read/%s.ts %s has the fields of the info lists of family %s, no more, no fewer', (file, name, family) => {
  const { own, sub } = interfaceFields(file, name);
  const declared = listFields(`CUCKOO_INFO_${family}`);
  const subs = listFields(`CUCKOO_SUB_INFO_${family}`);
  expect(declared.length).toBeGreaterThanOrEqual(5);
  expect(sorted(own)).toEqual(sorted([...declared, ...(subs.length > 0 ? ['subFilters'] : [])]));
  expect(sorted(sub)).toEqual(sorted(subs));
});

// The Redis families' info() is the core's object less the fields CF.INFO / BF.INFO do not show: what it returns at
// run time is exactly its public interface, so a field the core gains does not appear unannounced.
test.each([
  ['redis-cuckoo-filter', 'RedisCuckooFilterInfo', 'RedisCuckooFilter'],
  ['redis-bloom-filter', 'RedisBloomFilterInfo', 'RedisBloomFilter'],
] as const)('js/filters/read/%s.ts: info() returns the fields of %s, no more, no fewer', async (file, name, cls) => {
  const { own } = interfaceFields(file, name);
  const lib = await import('cuckoo-wasm');
  const f = cls === 'RedisBloomFilter' ? await lib.RedisBloomFilter.create({ capacity: 100, errorRate: 0.01 }) : await lib.RedisCuckooFilter.create({ capacity: 100 });
  expect(sorted(Object.keys(f.info()))).toEqual(sorted(own));
  f.dispose();
});
