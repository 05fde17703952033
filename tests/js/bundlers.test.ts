// The packed package (npm pack) in the resolvers apps use: each bundler builds, with its defaults, a small app that
// imports `cuckoo-wasm` and `cuckoo-wasm/reader` from the tarball installed in a fresh project, and the bundle then
// runs in Chromium under the strict CSP (script-src 'self' 'wasm-unsafe-eval'), where it creates a filter, adds keys,
// and reads its bytes back with the reader; Deno and Bun run the same calls on the installed tarball; and
// @arethetypeswrong/cli and publint check the tarball itself.
//
// The tools are the npm registry's, at the versions pinned in TOOLS, installed once into
// ~/.cache/cuckoo-wasm/bundlers/<hash of TOOLS> ($XDG_CACHE_HOME respected) and reused by later runs; raise the
// versions as new releases come out. Deno and Bun are the binaries of scripts/runtime-versions.sh (as
// tests/runtimes/ uses them).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, STRICT_CSP, embeddedModule, launchChromium, openPage, serve } from '../browser/harness';
import { packInto, root } from './packed';

/** The tools, pinned (exact versions: a test that builds with them must build the same way next time). */
const TOOLS: Record<string, string> = {
  vite: '8.4.1',
  webpack: '5.113.0',
  'webpack-cli': '7.3.1',
  rollup: '4.69.3',
  '@rollup/plugin-node-resolve': '16.0.3',
  esbuild: '0.28.2',
  '@rspack/core': '2.3.4',
  '@rspack/cli': '2.2.8',
  parcel: '2.16.4',
  '@arethetypeswrong/cli': '0.18.5',
  publint: '0.3.25',
};

const cacheRoot = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'cuckoo-wasm', 'bundlers');

let tmp: string;
let tarball: string;
/** The tools' folder (its node_modules/.bin holds each tool's command). */
let tools: string;
/** A fresh project with the tarball installed, copied for each bundler. */
let app: string;
let browser: Browser;

/** Runs a command; its stdout. Throws, with both outputs, when it fails or runs past `timeout` ms. */
function run(command: string, args: string[], cwd: string, timeout = 120_000, env: Record<string, string> = {}): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env } });
  if (r.status !== 0) {
    const why = r.error ? r.error.message : `exit status ${r.status}, signal ${r.signal}`;
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed (${why}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

/** The tools of TOOLS, installed from the npm registry into the cache unless a finished install is there. */
function installTools(): string {
  const key = createHash('sha256').update(JSON.stringify(TOOLS)).digest('hex').slice(0, 16);
  const dir = join(cacheRoot, key);
  // Written last: a folder without it is an install that did not finish, started again from nothing.
  const done = join(dir, 'installed.json');
  if (existsSync(done)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'cuckoo-wasm-bundlers', private: true, dependencies: TOOLS }, null, 2) + '\n');
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], dir, 540_000);
  writeFileSync(done, JSON.stringify(TOOLS) + '\n');
  return dir;
}

/** A runtime's binary from scripts/runtime-versions.sh (fetched into its cache if missing). */
function runtimeBinary(name: string): string {
  return run('bash', [join(root, 'scripts', 'runtime-versions.sh'), name], root, 300_000).trim();
}

const bin = (name: string) => join(tools, 'node_modules', '.bin', name);

/** The app's code: both entries, the calls a page that builds a filter and one that reads it make. */
const APP_CODE = `import { CuckooFilter } from 'cuckoo-wasm';
import { CuckooFilter as ReadFilter } from 'cuckoo-wasm/reader';

const keys = ['a.example', 'b.example', 'https://c.example/login'];
async function run() {
  const filter = await CuckooFilter.create({ capacity: 1000 });
  const added = filter.addAll(keys);
  const bytes = filter.toBytes();
  const read = await ReadFilter.fromBytes(bytes);
  const result = {
    added,
    size: filter.size,
    members: keys.map((k) => filter.has(k)),
    readMembers: keys.map((k) => read.has(k)),
    readAbsent: read.has('absent.example'),
    readerCreates: typeof ReadFilter.create,
    sameBytes: read.toBytes().join() === bytes.join(),
  };
  filter.dispose();
  read.dispose();
  return result;
}
run().then(
  (result) => { globalThis.__result = result; },
  (e) => { globalThis.__result = { error: String((e && e.stack) || e) }; },
);
`;

/** What APP_CODE publishes: every key found by both entries, the reader without create(), the bytes unchanged. */
const EXPECTED = {
  added: 3,
  size: 3,
  members: [true, true, true],
  readMembers: [true, true, true],
  readAbsent: false,
  readerCreates: 'undefined',
  sameBytes: true,
};

interface Bundler {
  name: string;
  /** The command, run in the app's folder. */
  command: () => string[];
  /** Files the bundler needs besides the app (Rollup's config). */
  files?: () => Record<string, string>;
  /** The bundler's own output folder (its default), which the page is served from. */
  out: string;
  /** A bundler given index.html writes the page itself; otherwise a page loads this script (`module`: as an ES module). */
  script?: { file: string; module: boolean };
}

/** An index.html as Vite and Parcel take it for their entry: the app as a module script. */
const INDEX_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>cuckoo-wasm app</title></head>
<body><script type="module" src="./src/index.js"></script></body></html>
`;

const BUNDLERS: Bundler[] = [
  // index.html as the entry, built into dist/.
  { name: 'Vite', command: () => [bin('vite'), 'build'], out: 'dist' },
  // No config: ./src/index.js into dist/main.js, mode production, target web.
  { name: 'webpack', command: () => [bin('webpack')], out: 'dist', script: { file: 'main.js', module: false } },
  { name: 'Rspack', command: () => [bin('rspack'), 'build'], out: 'dist', script: { file: 'main.js', module: false } },
  // Rollup resolves no package from node_modules by itself: its defaults plus @rollup/plugin-node-resolve's.
  {
    name: 'Rollup',
    command: () => [bin('rollup'), '-c'],
    files: () => ({
      'rollup.config.mjs': `import { createRequire } from 'node:module';
const { nodeResolve } = createRequire(${JSON.stringify(join(tools, 'package.json'))})('@rollup/plugin-node-resolve');
export default { input: 'src/index.js', output: { dir: 'dist' }, plugins: [nodeResolve()] };
`,
    }),
    out: 'dist',
    script: { file: 'index.js', module: true },
  },
  // --bundle (without it esbuild resolves no import) and the file to write: platform browser, format iife.
  { name: 'esbuild', command: () => [bin('esbuild'), 'src/index.js', '--bundle', '--outfile=dist/main.js'], out: 'dist', script: { file: 'main.js', module: false } },
  // index.html as the entry, built into dist/; Parcel's resolver reads no "exports" by default (reader/package.json).
  { name: 'Parcel', command: () => [bin('parcel'), 'build', 'index.html'], out: 'dist' },
  // Bun's bundler: target browser, format esm.
  { name: 'Bun (bun build)', command: () => [runtimeBinary('bun'), 'build', 'src/index.js', '--outdir', 'dist'], out: 'dist', script: { file: 'index.js', module: true } },
];

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cuckoo-bundlers-'));
  const started = Date.now();
  tools = installTools();
  process.stderr.write(`(bundlers: tools in ${tools}, ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  tarball = packInto(tmp).tarball;
  app = join(tmp, 'app');
  mkdirSync(join(app, 'src'), { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'bundled-app', private: true }) + '\n');
  run('npm', ['install', '--no-audit', '--no-fund', '--offline', '--loglevel=error', tarball], app);
  writeFileSync(join(app, 'src', 'index.js'), APP_CODE);
  writeFileSync(join(app, 'index.html'), INDEX_HTML);
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

test.each(BUNDLERS.map((b) => [b.name, b] as const))(
  '%s builds the app with its defaults; the bundle holds the browsers\' build of both entries and runs in Chromium under the strict CSP',
  async (name, bundler) => {
    const project = join(tmp, name.replace(/\W+/g, '-'));
    cpSync(app, project, { recursive: true });
    for (const [file, text] of Object.entries(bundler.files?.() ?? {})) writeFileSync(join(project, file), text);
    const [command, ...args] = bundler.command();
    run(command, args, project, 180_000);

    const out = join(project, bundler.out);
    if (bundler.script) {
      const { file, module } = bundler.script;
      writeFileSync(join(out, 'index.html'), INDEX_HTML.replace(' type="module" src="./src/index.js"', `${module ? ' type="module"' : ''} src="./${file}"`));
    }
    // The browsers' build (dist/index.*, dist/reader.*: the .wasm deflated), not Node.js's, of both entries.
    const scripts = readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) => /\.m?js$/.test(f));
    const code = scripts.map((f) => readFileSync(join(out, f), 'utf8')).join('\n');
    expect(embeddedModule(code)).toBe('both');

    const server = await serve([{ prefix: '/', path: out }], () => STRICT_CSP);
    try {
      const { result, problems } = await openPage<Record<string, unknown>>(browser, `${server.origin}/`);
      expect(result).toEqual(EXPECTED);
      expect(problems).toEqual({ consoleErrors: [], pageErrors: [] });
    } finally {
      await server.close();
    }
  },
  240_000,
);

describe('Deno and Bun run the tarball as npm installs it', () => {
  const script = `${APP_CODE}
while (globalThis.__result === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
const entries = [import.meta.resolve('cuckoo-wasm'), import.meta.resolve('cuckoo-wasm/reader')];
console.log(JSON.stringify({ ...globalThis.__result, entries: entries.map((u) => u.split('/').slice(-2).join('/')) }));
`;
  const expected = { ...EXPECTED, entries: ['dist/node.mjs', 'dist/reader-node.mjs'] };
  const lastLine = (out: string) => JSON.parse(out.trim().split('\n').pop() ?? '');

  beforeAll(() => writeFileSync(join(app, 'run.mjs'), script));

  test('Deno (its "deno" condition, node_modules beside package.json)', () => {
    const out = run(runtimeBinary('deno'), ['run', '--no-prompt', 'run.mjs'], app, 120_000, {
      DENO_DIR: join(tmp, 'deno-dir'),
      DENO_NO_UPDATE_CHECK: '1',
    });
    expect(lastLine(out)).toEqual(expected);
  });

  test('Bun (its "bun" condition)', () => {
    const out = run(runtimeBinary('bun'), ['--no-install', 'run.mjs'], app, 120_000, { BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0' });
    expect(lastLine(out)).toEqual(expected);
  });
});

/** Runs a tool of TOOLS on the tarball; [exit status, output without colours]. */
function check(tool: string, args: string[]): [number | null, string] {
  const r = spawnSync(bin(tool), args, { cwd: tmp, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  return [r.status, (r.stdout + r.stderr).replace(/\x1b\[[0-9;]*m/g, '')];
}

// The .wasm subpaths are not JavaScript modules: the hosts that take a .wasm import (wrangler, Vercel Edge) give an
// ES-module default export, a compiled WebAssembly.Module, and nothing require()s one. Their declarations
// (js/wasm-module.d.ts) are an ES module for that reason, which attw's rule cjs-resolves-to-esm reports for
// node16 from CommonJS. So attw runs twice: every JavaScript entry under all its rules, the .wasm subpaths left out
// (--exclude-entrypoints); then the .wasm subpaths alone under all rules but that one, where their declarations must
// resolve under each of the four resolutions.
test('@arethetypeswrong/cli finds no problem in the tarball: its JavaScript entries, every rule and resolution', () => {
  const [status, out] = check('attw', [tarball, '--format', 'table-flipped', '--exclude-entrypoints', './cuckoo-core.wasm', './cuckoo-reader.wasm']);
  expect([status, out]).toEqual([0, expect.stringContaining('No problems found')]);
  for (const entry of ['"cuckoo-wasm"', '"cuckoo-wasm/reader"']) expect(out).toContain(entry);
});

test('@arethetypeswrong/cli: the .wasm subpaths resolve to their declarations under every resolution', () => {
  const [status, out] = check('attw', [tarball, '--format', 'table-flipped', '--ignore-rules', 'cjs-resolves-to-esm', '--entrypoints', './cuckoo-core.wasm', './cuckoo-reader.wasm']);
  expect([status, out]).toEqual([0, expect.stringContaining('No problems found')]);
  for (const entry of ['"cuckoo-wasm/cuckoo-core.wasm"', '"cuckoo-wasm/cuckoo-reader.wasm"']) {
    expect(out).toMatch(new RegExp(`${entry}\\s*│ 🟢\\s*│ 🟢 \\(ESM\\)\\s*│ 🟢 \\(ESM\\)\\s*│ 🟢\\s*│`));
  }
});

// publint's one warning, which the test lets through: it takes dist/cli.cjs (the bin) for an ES module because an
// error message in it quotes `import wasm from 'cuckoo-wasm/cuckoo-core.wasm'`; the file is CommonJS.
test('publint finds no error in the tarball, and warns of nothing but that quoted import', () => {
  const [status, out] = check('publint', ['run', tarball]);
  expect([status, out]).toEqual([0, expect.not.stringContaining('Errors:')]);
  const warnings = /Warnings:\n((?:\d+\. .*\n?)*)/.exec(out)?.[1].trim().split('\n') ?? [];
  expect(warnings.filter((w) => !/^\d+\. pkg\.bin\["cuckoo-wasm"\] is dist\/cli\.cjs .* written in ESM/.test(w))).toEqual([]);
});
