// The boundary (house style: every raw wasm access in one place), checked on the
// import graph of js/ rather than on spellings. Only js/boundary/ imports the
// build-time modules that provide the WebAssembly module (the build's
// instantiation, the .wasm bytes, the build's default source) and the types through which the
// module and its memory are reached (ReadModule, the export interfaces; RawBoundary also
// by the test-only entry). Everything else reaches the module through Core's
// methods, whose module is private and whose export rows are opaque (ExportRow).
// The folders form layers: common/ imports only common/; boundary/ only
// boundary/, common/ and the registry; nothing outside cli/ imports cli/; only
// cli/ and sources/ (lists and Redis keys, read in Node.js) import Node.js built-ins, other than for their
// types (js/feed/publish.ts takes the modules from process.getBuiltinModule when it runs). No file and no folder imports itself through
// others (no import cycles, type-only imports included).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import * as ts from 'typescript';
import { cycles } from './graph';

const jsDir = join(__dirname, '..', '..', 'js');

/** Every .ts file under js/, as a path relative to it ('boundary/load.ts'). */
function tsFiles(dir = jsDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [relative(jsDir, join(dir, e.name))] : [],
  );
}

interface Import {
  /** As written: './x.js', 'cuckoo-core-instance', 'node:fs'. */
  specifier: string;
  /** The js/ file a relative specifier names ('common/errors.ts'), else undefined. */
  file: string | undefined;
  /** The names it imports ({ a, type b } and export { c } from), as written. */
  names: string[];
  /** True for an import of types only (`import type`, or every name marked `type`): it leaves nothing in a bundle. */
  typeOnly: boolean;
}

/** The imports and re-exports of a js/ file (static, and dynamic `import()`), read from TypeScript's syntax tree. */
function importsOf(file: string): Import[] {
  const tree = ts.createSourceFile(file, readFileSync(join(jsDir, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (specifier: string, names: string[], typeOnly = false) =>
    found.push({
      typeOnly,
      specifier,
      file: specifier.startsWith('.') ? relative(jsDir, join(jsDir, dirname(file), specifier)).replace(/\.js$/, '.ts') : undefined,
      names,
    });
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
      const names = bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings)) ? bindings.elements.map((e) => (e.propertyName ?? e.name).text) : [];
      const elements = bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings)) ? bindings.elements : undefined;
      const clauseTypeOnly = ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly === true : node.isTypeOnly;
      const allTyped = elements !== undefined && elements.length > 0 && elements.every((e) => e.isTypeOnly) && !(ts.isImportDeclaration(node) && node.importClause?.name);
      add(node.moduleSpecifier.text, names, clauseTypeOnly || allTyped);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(node.arguments[0])) {
      add(node.arguments[0].text, []);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, node.qualifier && ts.isIdentifier(node.qualifier) ? [node.qualifier.text] : [], true);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

const files = tsFiles();
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const folderOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '');

/** The build-time modules (scripts/build.mjs aliases, and the Workers build's .wasm import). */
const BUILD_TIME = ['cuckoo-core-wasm', 'cuckoo-core-default', 'cuckoo-core-instance', 'cuckoo-core-wasm-file'];
/** The types through which the module and its memory are reached. */
const MODULE_TYPES = ['CoreModule', 'ReadModule', 'FamilyExports', 'FamilyWriteExports', 'ReadExports', 'WriteExports', 'RawBoundary'];

test('js/ is scanned: the entries, the registry and each folder, with their imports', () => {
  expect(files).toEqual(expect.arrayContaining(['index.ts', 'reader.ts', 'testing.ts', 'registry.ts', 'boundary/wasm-core.ts', 'boundary/read-core.ts', 'boundary/load.ts', 'filters/cuckoo-filter.ts', 'filters/read/cuckoo-filter.ts', 'url/url.ts', 'patch/patch.ts', 'common/errors.ts', 'cli/main.ts']));
  expect(graph.get('boundary/load.ts')!.map((i) => i.specifier)).toEqual(expect.arrayContaining(['cuckoo-core-instance', 'cuckoo-core-default']));
  expect(graph.get('boundary/full-instance.ts')!.map((i) => i.file)).toEqual(expect.arrayContaining(['boundary/wasm-core.ts', 'boundary/instance.ts']));
  expect(graph.get('filters/family-filter.ts')!.find((i) => i.file === 'boundary/read-core.ts')?.names).toEqual(['ReadCore']);
  expect(graph.get('filters/family-filter.ts')!.find((i) => i.file === 'boundary/core-types.ts')?.names).toEqual(expect.arrayContaining(['ExportRow', 'Handle']));
});

test('every relative import names a file of js/', () => {
  for (const [file, imports] of graph) {
    for (const i of imports) if (i.file !== undefined && !BUILD_TIME.includes(i.specifier)) expect([file, i.specifier, files.includes(i.file)]).toEqual([file, i.specifier, true]);
  }
});

test('only js/boundary/ imports the build-time modules that provide the WebAssembly module', () => {
  for (const [file, imports] of graph) {
    const found = imports.filter((i) => BUILD_TIME.includes(i.specifier)).map((i) => i.specifier);
    if (folderOf(file) !== 'boundary') expect([file, found]).toEqual([file, []]);
  }
});

test("only js/boundary/ imports the module's types (the test-only entry: its raw boundary)", () => {
  for (const [file, imports] of graph) {
    if (folderOf(file) === 'boundary') continue;
    const allowed = file === 'testing.ts' ? ['RawBoundary'] : [];
    const found = imports.flatMap((i) => i.names).filter((n) => MODULE_TYPES.includes(n) && !allowed.includes(n));
    expect([file, found]).toEqual([file, []]);
  }
});

test('the folders are layers: common/ and boundary/ import nothing above them (registry.ts, which imports nothing, is below both); only cli/ imports cli/; only cli/ and sources/ import Node.js', () => {
  const may: Record<string, (target: string) => boolean> = {
    common: (t) => folderOf(t) === 'common' || t === 'registry.ts',
    boundary: (t) => ['boundary', 'common'].includes(folderOf(t)) || t === 'registry.ts',
  };
  for (const [file, imports] of graph) {
    const folder = folderOf(file);
    for (const i of imports) {
      if (i.file === undefined) {
        if (i.specifier.startsWith('node:') && !i.typeOnly) expect([file, i.specifier, ['cli', 'sources'].includes(folder)]).toEqual([file, i.specifier, true]);
        continue;
      }
      if (BUILD_TIME.includes(i.specifier)) continue;
      if (folderOf(i.file) === 'cli') expect([file, i.file, folder]).toEqual([file, i.file, 'cli']);
      if (may[folder]) expect([file, i.file, may[folder](i.file)]).toEqual([file, i.file, true]);
    }
  }
});

test('a file of declarations only holds no function that could touch the module', () => {
  for (const file of ['boundary/core-types.ts', 'boundary/glue.d.ts']) {
    expect([file, /\bfunction\b|=>\s*\{|\bclass\b/.test(readFileSync(join(jsDir, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''))]).toEqual([file, false]);
  }
});

/** The js/ files `entry` reaches through its relative value imports (what a bundle of it holds), itself included. */
function reached(entry: string): Set<string> {
  const seen = new Set<string>([entry]);
  for (const file of seen) for (const i of graph.get(file) ?? []) if (i.file !== undefined && !i.typeOnly && files.includes(i.file)) seen.add(i.file);
  return seen;
}

test("the reader's entry reaches none of the writers: no full core, its instantiation, writer methods, full family classes or CLI", () => {
  const fromReader = [...reached('reader.ts')];
  const writers = ['boundary/wasm-core.ts', 'boundary/full-instance.ts', 'filters/writers.ts', 'filters/cuckoo-filter.ts', 'filters/bloom-filter.ts', 'filters/redis-cuckoo-filter.ts', 'filters/redis-bloom-filter.ts', 'filters/redis-filter.ts', 'index.ts'];
  expect(fromReader.filter((f) => writers.includes(f) || folderOf(f) === 'cli')).toEqual([]);
  // And the full entry reaches the reader's classes, which its own extend.
  expect([...reached('index.ts')]).toEqual(expect.arrayContaining(['filters/read/cuckoo-filter.ts', 'filters/writers.ts']));
});

/** The js/ files `file` imports, type-only imports included: a cycle through `import type` is one in the design too. */
const importedFiles = (file: string) => [...new Set(graph.get(file)!.flatMap((i) => (i.file !== undefined && files.includes(i.file) ? [i.file] : [])))];

test('no import cycles among the files of js/ (type-only imports included)', () => {
  expect(cycles(files, importedFiles)).toEqual([]);
});

test('no import cycles among the folders of js/ (each top-level file is a node of its own)', () => {
  // A folder is the first path segment under js/ ('filters' for filters/read/cuckoo-filter.ts); the top-level files
  // (index.ts, reader.ts, testing.ts, registry.ts) are not grouped: the entries are above every folder, the
  // registry below them all.
  const node = (file: string) => folderOf(file) || file;
  const nodes = [...new Set(files.map(node))];
  const edges = new Map(nodes.map((n) => [n, new Set<string>()]));
  for (const file of files) for (const target of importedFiles(file)) if (node(target) !== node(file)) edges.get(node(file))!.add(node(target));
  expect(cycles(nodes, (n) => [...edges.get(n)!])).toEqual([]);
});
