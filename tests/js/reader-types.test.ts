// The reader's types: tests/types/reader-api.ts, which uses every member of 'cuckoo-wasm/reader',
// compiles against it and, with only its import's module name changed, against 'cuckoo-wasm'; and the writers
// (add, delete, create, diff, ...) are type errors against the reader while the same lines compile against the
// full entry. Compiled here with the typescript package over the built declarations (dist/types), strict, with
// the declarations themselves checked (no skipLibCheck) and no Node.js or Jest types: what a page's code sees.
// When package.json exports "./reader", the same file is also compiled as a bundler resolves the package
// ('bundler' resolution over the "exports" map's "types" conditions), without any path mapping.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

const root = join(__dirname, '..', '..');
const API = join(root, 'tests', 'types', 'reader-api.ts');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
const built = existsSync(join(root, 'dist', 'types', 'reader.d.ts'));
if (!built) console.log('reader-types.test: dist/types/reader.d.ts is not built; skipped (scripts/build.sh builds it)');
const maybe = built ? describe : describe.skip;

/** The reader's import in the files below, and the full entry's that replaces it. */
const READER = "from 'cuckoo-wasm/reader';";
const FULL = "from 'cuckoo-wasm';";

/** One statement per line, each using a writer: each must be an error against the reader, none against the full entry. */
const WRITER_LINES = [
  "c.add('x');",
  "c.addAll(['x']);",
  "c.delete('x');",
  "c.addUnique('x');",
  "c.addUrl('http://x.example/');",
  "c.addUrls(['http://x.example/']);",
  'c.diff(c);',
  'b.union(b);',
  'b.isCompatible(b);',
  'rc.compact();',
  "rb.addNew('x');",
  'rc.toScanDump();',
  'void CuckooFilter.create({ capacity: 1 });',
  'void BloomFilter.create({ capacity: 1 });',
  'void RedisCuckooFilter.create({ capacity: 4 });',
  'void RedisBloomFilter.create({ capacity: 4, errorRate: 0.01 });',
  'void RedisCuckooFilter.fromScanDump([]);',
  'void RedisBloomFilter.scanDumpLoader();',
  'void entry.diffBytes(new Uint8Array(0), new Uint8Array(0));',
];

function writersFile(from: string): string {
  return [
    `import { BloomFilter, CuckooFilter, RedisBloomFilter, RedisCuckooFilter } ${from}`,
    `import * as entry ${from}`,
    'export function writers(c: CuckooFilter, b: BloomFilter, rc: RedisCuckooFilter, rb: RedisBloomFilter): void {',
    ...WRITER_LINES.map((l) => `  ${l}`),
    '}',
    '',
  ].join('\n');
}

/** The options of tests/tsconfig.json, for a page's code: no emit, no Node.js or Jest types, declarations checked. */
function options(overrides: ts.CompilerOptions): ts.CompilerOptions {
  const file = join(root, 'tests', 'tsconfig.json');
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(file, ts.sys.readFile).config, ts.sys, join(root, 'tests'), undefined, file);
  return { ...parsed.options, noEmit: true, types: [], skipLibCheck: false, declaration: false, isolatedModules: false, ...overrides };
}

const PATHS: ts.CompilerOptions = {
  baseUrl: root,
  paths: { 'cuckoo-wasm': ['dist/types/index.d.ts'], 'cuckoo-wasm/reader': ['dist/types/reader.d.ts'] },
};

/**
 * Compiles the files `sources` (path -> text; they need not exist on disk) as one program and returns each
 * file's diagnostics as "line: message", plus those of no file (options) under '*'.
 */
function compile(sources: Record<string, string>, overrides: ts.CompilerOptions): Record<string, string[]> {
  const opts = options(overrides);
  const host = ts.createCompilerHost(opts);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) =>
    name in sources ? ts.createSourceFile(name, sources[name], lang) : getSourceFile(name, lang, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name in sources || fileExists(name);
  const program = ts.createProgram(Object.keys(sources), opts, host);
  const out: Record<string, string[]> = { '*': [] };
  for (const name of Object.keys(sources)) out[name] = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file) {
      out['*'].push(text);
      continue;
    }
    const line = d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1;
    (out[d.file.fileName] ??= []).push(`${line}: ${text}`);
  }
  return out;
}

maybe("the reader's types", () => {
  const source = readFileSync(API, 'utf8');
  const asFull = source.replace(READER, FULL);
  /** Virtual files beside the real one, so that their paths resolve the same way. */
  const files = {
    [API]: source,
    [join(root, 'tests', 'types', 'reader-api.as-full.ts')]: asFull,
    [join(root, 'tests', 'types', 'writers.reader.ts')]: writersFile(READER),
    [join(root, 'tests', 'types', 'writers.full.ts')]: writersFile(FULL),
  };
  const [api, apiFull, writersReader, writersFull] = Object.keys(files);
  let result: Record<string, string[]> = {};

  beforeAll(() => {
    result = compile(files, PATHS);
  });

  test('tests/types/reader-api.ts imports the reader once, and only the module name changes for the full entry', () => {
    expect(source.split(READER).length - 1).toBe(1);
    expect(source.includes(FULL)).toBe(false);
    expect(asFull).not.toBe(source);
  });

  test("it compiles against 'cuckoo-wasm/reader' (strict, declarations checked, no Node.js types)", () => {
    expect(result['*']).toEqual([]);
    expect(result[api]).toEqual([]);
  });

  test("it compiles unchanged against 'cuckoo-wasm'", () => {
    expect(result[apiFull]).toEqual([]);
  });

  test('every writer is a type error against the reader, and compiles against the full entry', () => {
    expect(result[writersFull]).toEqual([]);
    const lines = new Set(result[writersReader].map((d) => Number(d.split(':')[0])));
    const firstWriterLine = 4;
    WRITER_LINES.forEach((l, i) => expect([l, lines.has(firstWriterLine + i)]).toEqual([l, true]));
    // Only those lines: the imports and the signature compile.
    expect([...lines].filter((n) => n < firstWriterLine)).toEqual([]);
  });

  const exported = pkg.exports['./reader'] !== undefined;
  (exported ? test : test.skip)('as a bundler resolves the package: "exports" ./reader and . give the types, without path mappings', () => {
    // A self-reference: a file inside the package importing it by name resolves through its own "exports".
    const bundler = compile(
      { [api]: source, [apiFull]: asFull },
      { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, baseUrl: undefined, paths: undefined },
    );
    expect(bundler['*']).toEqual([]);
    expect(bundler[api]).toEqual([]);
    expect(bundler[apiFull]).toEqual([]);
  });
});
