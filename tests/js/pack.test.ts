// The package as a user gets it: npm pack, install the tarball into an empty
// folder, run an ES-module script, a CommonJS script, the bin, and TypeScript
// against it (types resolved through package.json "exports").
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packInto, root } from './packed';

let dir: string;
let tarball: string;

const sh = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cuckoo-pack-'));
  const packed = packInto(dir);
  tarball = packed.tarball;
  const files = packed.files;
  expect(files).toEqual(expect.arrayContaining(['dist/index.mjs', 'dist/index.cjs', 'dist/node.mjs', 'dist/node.cjs', 'dist/cli.cjs', 'dist/types/index.d.ts', 'docs/FORMAT.md', 'docs/URLS.md', 'docs/redis.md', 'docs/url-blocklists.md', 'THIRD_PARTY_NOTICES.md', 'package.json', 'README.md']));
  expect(files.filter((f) => /^(src|js|tests|build|node_modules)\//.test(f))).toEqual([]);
  const app = join(dir, 'app');
  sh('mkdir', ['-p', app], dir);
  writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true }\n');
  sh('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], app);
}, 120000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the installed package carries the notices of the code compiled into it: xxHash\'s BSD 2-Clause text, word for word', () => {
  const notices = readFileSync(join(dir, 'app', 'node_modules', 'cuckoo-wasm', 'THIRD_PARTY_NOTICES.md'), 'utf8');
  expect(notices).toContain(readFileSync(join(root, 'third_party', 'xxhash', 'LICENSE'), 'utf8').trimEnd());
  for (const name of ['## Emscripten', '## musl libc']) expect(notices).toContain(name);
});

test('tarball size', () => {
  expect(readdirSync(dir).some((f) => f.endsWith('.tgz'))).toBe(true);
});

test('ES module import', () => {
  const app = join(dir, 'app');
  writeFileSync(join(app, 'esm.mjs'), `
import { CuckooFilter, FilterFormatError } from 'cuckoo-wasm';
const f = await CuckooFilter.create({ capacity: 1000 });
f.add('esm.example');
const g = await CuckooFilter.fromBytes(f.toBytes());
let format = false;
try { await CuckooFilter.fromBytes(new Uint8Array(3)); } catch (e) { format = e instanceof FilterFormatError; }
console.log(JSON.stringify([g.has('esm.example'), g.has('nope.example'), format]));
`);
  expect(sh(process.execPath, ['esm.mjs'], app).trim()).toBe('[true,false,true]');
});

test('Node.js resolves the package to dist/node.* (the .wasm as is); other tools to dist/index.* (the .wasm deflated)', () => {
  const app = join(dir, 'app');
  writeFileSync(join(app, 'resolve.mjs'), `
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
console.log(JSON.stringify([import.meta.resolve('cuckoo-wasm'), require.resolve('cuckoo-wasm')].map((p) => p.split('/').slice(-2).join('/'))));
`);
  expect(sh(process.execPath, ['resolve.mjs'], app).trim()).toBe('["dist/node.mjs","dist/node.cjs"]');
  // A bundler for the browser does not set "node": the "import" and "require" conditions.
  const exportsMap = JSON.parse(sh('cat', [join(app, 'node_modules', 'cuckoo-wasm', 'package.json')], app)).exports['.'];
  expect([exportsMap.import.default, exportsMap.require.default]).toEqual(['./dist/index.mjs', './dist/index.cjs']);
});

test('CommonJS require', () => {
  const app = join(dir, 'app');
  writeFileSync(join(app, 'cjs.cjs'), `
const { CuckooFilter, FilterFullError } = require('cuckoo-wasm');
CuckooFilter.create({ capacity: 1000 }).then((f) => {
  f.addAll(['cjs.example', 'b.example']);
  console.log(JSON.stringify([f.has('cjs.example'), f.size, typeof FilterFullError]));
});
`);
  expect(sh(process.execPath, ['cjs.cjs'], app).trim()).toBe('[true,2,"function"]');
});

test('runs under node --disallow-code-generation-from-strings (ESM and CommonJS): no eval or new Function', () => {
  const app = join(dir, 'app');
  // Every public call path: create, add, addAll, has, hasAll, toBytes, fromBytes, dispose.
  const body = `
  const f = await CuckooFilter.create({ capacity: 1000 });
  f.add('one.example').add(new Uint8Array([1, 2, 3]));
  const added = f.addAll(['two.example', 'three.example']);
  const g = await CuckooFilter.fromBytes(f.toBytes());
  const out = [added, g.has('one.example'), g.has(new Uint8Array([1, 2, 3])), g.hasAll(['two.example', 'three.example', 'no.example'])];
  let codegen = 'allowed';
  try { new Function('return 1'); } catch (e) { codegen = e.name; }
  f.dispose(); g.dispose();
  console.log(JSON.stringify([...out, g.disposed, codegen]));`;
  writeFileSync(join(app, 'strict.mjs'), `import { CuckooFilter } from 'cuckoo-wasm';\n${body}\n`);
  writeFileSync(join(app, 'strict.cjs'), `const { CuckooFilter } = require('cuckoo-wasm');\n(async () => {${body}\n})();\n`);
  const expected = '[2,true,true,[true,true,false],true,"EvalError"]';
  for (const script of ['strict.mjs', 'strict.cjs']) {
    expect([script, sh(process.execPath, ['--disallow-code-generation-from-strings', script], app).trim()]).toEqual([script, expected]);
  }
});

test('the cuckoo-wasm bin', () => {
  const app = join(dir, 'app');
  writeFileSync(join(app, 'list.txt'), 'a.example\nb.example\n');
  const bin = join(app, 'node_modules', '.bin', 'cuckoo-wasm');
  sh(bin, ['build', 'list.txt', '-o', 'f.cuckoo'], app);
  expect(sh(bin, ['query', 'f.cuckoo', 'a.example', 'c.example'], app)).toBe('a.example\tyes\nc.example\tno\n');
});

test('TypeScript resolves the types for ESM and CommonJS consumers', () => {
  const app = join(dir, 'app');
  const code = `import { CuckooFilter, FilterFullError, type CuckooFilterOptions } from 'cuckoo-wasm';
const options: CuckooFilterOptions = { capacity: 10, bucketSize: 4 };
export async function f(): Promise<boolean> {
  const filter = await CuckooFilter.create(options);
  const e: FilterFullError | undefined = undefined;
  return filter.add('x').has(new Uint8Array([1])) && e === undefined;
}
`;
  writeFileSync(join(app, 'check.mts'), code);
  writeFileSync(join(app, 'check.cts'), code);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const opts = ['--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022', '--lib', 'es2022,dom,esnext.disposable', '--types', 'node', '--typeRoots', join(root, 'node_modules', '@types')];
  sh(process.execPath, [tsc, ...opts, 'check.mts', 'check.cts'], app);
});

test('every entry resolves under TypeScript node10 (module commonjs, which ignores "exports"), bundler and nodenext', () => {
  const app = join(dir, 'app');
  const code = `import { CuckooFilter, ArgumentTypeError } from 'cuckoo-wasm';
import { CuckooFilter as Reader } from 'cuckoo-wasm/reader';
export async function f(bytes: Uint8Array): Promise<boolean> {
  const full = await CuckooFilter.create({ capacity: 10 });
  const read = await Reader.fromBytes(bytes);
  return full.has('x') === read.has('x') && ArgumentTypeError.name.length > 0;
}
`;
  writeFileSync(join(app, 'node10.ts'), code);
  writeFileSync(join(app, 'bundler.ts'), code);
  writeFileSync(join(app, 'next.mts'), code);
  writeFileSync(join(app, 'next.cts'), code);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const common = ['--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022,dom', '--types', 'node', '--typeRoots', join(root, 'node_modules', '@types')];
  sh(process.execPath, [tsc, ...common, '--module', 'commonjs', '--moduleResolution', 'node10', '--ignoreDeprecations', '5.0', 'node10.ts'], app);
  sh(process.execPath, [tsc, ...common, '--module', 'esnext', '--moduleResolution', 'bundler', 'bundler.ts'], app);
  sh(process.execPath, [tsc, ...common, '--module', 'nodenext', '--moduleResolution', 'nodenext', 'next.mts', 'next.cts'], app);
});

test('cuckoo-wasm/reader as a folder, for resolvers that ignore "exports" (Parcel\'s default, older bundlers): its package.json names the reader\'s files', () => {
  const folder = join(dir, 'app', 'node_modules', 'cuckoo-wasm', 'reader');
  const proxy = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  const exportsOf = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).exports['./reader'];
  expect(join('reader', proxy.main)).toBe(join(exportsOf.require.default));
  expect(join('reader', proxy.module)).toBe(join(exportsOf.import.default));
  expect(join('reader', proxy.types)).toBe(join(exportsOf.require.types));
  for (const file of [proxy.main, proxy.module, proxy.types]) expect(existsSync(join(folder, file))).toBe(true);
  // Node.js given the folder's path (no "exports" in the way) loads the reader's CommonJS bundle: fromBytes, no create.
  const script = `const r = require(${JSON.stringify(folder)}); console.log(typeof r.CuckooFilter.fromBytes, typeof r.CuckooFilter.create);`;
  expect(sh(process.execPath, ['-e', script], join(dir, 'app')).trim()).toBe('function undefined');
});

test('what ships is what is exported: no test-only entry', () => {
  const listed = sh('tar', ['-tzf', tarball], dir).split('\n');
  expect(listed.filter((f) => /testing/.test(f))).toEqual([]);
});

test('the types need no DOM or esnext.disposable lib, pass skipLibCheck false, and take exactOptionalPropertyTypes', () => {
  const app = join(dir, 'app');
  // Options left undefined mean their defaults, as at run time.
  const code = `import { BloomFilter, CuckooFilter } from 'cuckoo-wasm';
declare const rate: number | undefined;
declare const seed: bigint | undefined;
export async function f(): Promise<boolean> {
  const filter = await CuckooFilter.create({ capacity: 10, falsePositiveRate: rate, seed, expansion: undefined });
  const bloom = await BloomFilter.create({ capacity: 10, falsePositiveRate: rate, seed });
  const found = filter.add('x').has('x') && !bloom.has('x');
  filter[Symbol.dispose]();
  bloom.dispose();
  return found;
}
`;
  writeFileSync(join(app, 'strict.mts'), code);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const common = ['--noEmit', '--strict', '--skipLibCheck', 'false', '--exactOptionalPropertyTypes', '--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022'];
  // A Node project (as @tsconfig/node20: no DOM lib), and a browser project (no @types/node).
  sh(process.execPath, [tsc, ...common, '--lib', 'es2022', '--types', 'node', '--typeRoots', join(root, 'node_modules', '@types'), 'strict.mts'], app);
  sh(process.execPath, [tsc, ...common, '--lib', 'es2022,dom', 'strict.mts'], app);
});

test('an uncaught error prints its own line of the bundle, not the whole minified bundle', () => {
  const app = join(dir, 'app');
  writeFileSync(join(app, 'uncaught.mjs'), "import { CuckooFilter } from 'cuckoo-wasm';\nawait CuckooFilter.create({ capacity: 0 });\n");
  let stderr = '';
  try {
    sh(process.execPath, ['uncaught.mjs'], app);
  } catch (e) {
    stderr = String((e as { stderr: string }).stderr);
  }
  expect(stderr).toMatch(/ArgumentRangeError: capacity must be an integer from 1/);
  expect(stderr.length).toBeLessThan(4000);
});

test('the .wasm subpaths have types (no DOM lib needed): imported as a module and handed to initWasm; with ?module, through the line a project declares', () => {
  const app = join(dir, 'app');
  // As Workers' and Vercel Edge's bundlers give a .wasm import: its default export, for initWasm.
  const edge = `import wasm from 'cuckoo-wasm/cuckoo-core.wasm';
import readerWasm from 'cuckoo-wasm/cuckoo-reader.wasm';
import { initWasm } from 'cuckoo-wasm';
import { initWasm as initReader } from 'cuckoo-wasm/reader';
export const ready: Promise<void[]> = Promise.all([initWasm(wasm), initReader(readerWasm)]);
`;
  writeFileSync(join(app, 'edge.mts'), edge);
  writeFileSync(join(app, 'edge-node10.ts'), edge);
  // Vercel Edge's form: the suffix is part of the subpath TypeScript looks up, so a project declares it
  // (js/wasm-module.d.ts, docs/browsers-and-extensions.md).
  writeFileSync(join(app, 'vercel.mts'), `import wasm from 'cuckoo-wasm/cuckoo-core.wasm?module';
import { initWasm } from 'cuckoo-wasm';
await initWasm(wasm);
`);
  writeFileSync(join(app, 'wasm-modules.d.ts'), `declare module 'cuckoo-wasm/cuckoo-core.wasm?module' {
  export { default } from 'cuckoo-wasm/cuckoo-core.wasm';
}
`);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  // No @types and no DOM lib: the declarations need neither.
  const common = ['--noEmit', '--strict', '--skipLibCheck', 'false', '--target', 'es2022', '--lib', 'es2022'];
  const runs = [
    ['--module', 'esnext', '--moduleResolution', 'bundler', 'edge.mts', 'vercel.mts', 'wasm-modules.d.ts'],
    ['--module', 'nodenext', '--moduleResolution', 'nodenext', 'edge.mts', 'vercel.mts', 'wasm-modules.d.ts'],
    // node10 reads no "exports": package.json "typesVersions" names the same declarations.
    ['--module', 'commonjs', '--moduleResolution', 'node10', '--ignoreDeprecations', '5.0', 'edge-node10.ts'],
  ];
  for (const run of runs) {
    const r = spawnSync(process.execPath, [tsc, ...common, ...run], { cwd: app, encoding: 'utf8' });
    expect([run, r.status, r.stdout + r.stderr]).toEqual([run, 0, '']);
  }
});
