// Builds the loadable (unpacked) extension folder:
//   node examples/extension/build.mjs [OUTDIR] [--list FILE]... [--add HOSTNAME]... [--fpr 0.001]
// OUTDIR (default examples/extension/dist) gets the extension's source files, the built
// library dist/index.mjs as lib/cuckoo-wasm.mjs, and blocklist.cuckoo: a filter built by the
// package's CLI from the lists (one hostname per line; default examples/data/blocklist-sample.txt)
// plus each --add hostname. Files of the same names in OUTDIR are overwritten; nothing else
// there is touched. Needs the built package (dist/index.mjs, dist/cli.cjs).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const sampleList = join(root, 'examples/data/blocklist-sample.txt');
const SOURCE_FILES = ['manifest.json', 'service-worker.js', 'warning.html', 'warning.js'];

function fail(message) {
  console.error(`build.mjs: ${message}`);
  process.exit(1);
}

// The form the service worker looks hostnames up in (see hostnameOf there): lowercase,
// internationalized names in punycode, no trailing dot.
function canonicalHostname(name) {
  if (name === '' || /[\s/?#@:\\]/.test(name)) fail(`--add "${name}": not a hostname`);
  try {
    return new URL(`http://${name}/`).hostname.replace(/\.$/, '');
  } catch {
    fail(`--add "${name}": not a hostname`);
  }
}

function readList(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    fail(`cannot read list ${path}: ${e.code ?? e.message}`);
  }
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    list: { type: 'string', multiple: true },
    add: { type: 'string', multiple: true, default: [] },
    fpr: { type: 'string', default: '0.001' },
  },
});
if (positionals.length > 1) fail(`one OUTDIR at most, got: ${positionals.join(' ')}`);
const outDir = resolve(positionals[0] ?? join(here, 'dist'));
const listPaths = (values.list ?? [sampleList]).map((p) => resolve(p));
const lists = listPaths.map(readList);
const added = values.add.map(canonicalHostname);
const library = join(root, 'dist/index.mjs');
const cli = join(root, 'dist/cli.cjs');
for (const file of [library, cli]) {
  if (!existsSync(file)) fail(`${relative(root, file)} is missing: build the package first (npm run build)`);
}

// The filter, built by the CLI from one list file: the lists as they are, then the added hostnames.
mkdirSync(join(outDir, 'lib'), { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), 'cuckoo-extension-'));
let buildError;
try {
  const combined = join(tmp, 'list.txt');
  writeFileSync(combined, [...lists, ...added].join('\n') + '\n');
  const args = [cli, 'build', combined, '-o', join(outDir, 'blocklist.cuckoo'), '--fpr', values.fpr];
  process.stdout.write(execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
} catch (e) {
  buildError = e;
} finally {
  rmSync(tmp, { recursive: true, force: true }); // before fail(): process.exit skips pending finally blocks
}
if (buildError) fail(`building the filter failed: ${buildError.stderr?.trim() || buildError.message}`);

for (const file of SOURCE_FILES) copyFileSync(join(here, file), join(outDir, file));
copyFileSync(library, join(outDir, 'lib/cuckoo-wasm.mjs'));
copyFileSync(join(root, 'LICENSE'), join(outDir, 'lib/LICENSE'));
if (listPaths.includes(sampleList)) copyFileSync(join(root, 'examples/data/SOURCES.md'), join(outDir, 'DATA-SOURCES.md'));

const from = listPaths.map((p) => relative(process.cwd(), p)).join(', ') + (added.length ? ` + ${added.join(', ')}` : '');
console.log(`extension ready to load unpacked from ${outDir} (filter from ${from})`);
