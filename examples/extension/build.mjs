// Builds the loadable (unpacked) extension folder:
//   node examples/extension/build.mjs [OUTDIR] [--list FILE]... [--add ENTRY]... [--url-fpr 0.001]
// OUTDIR (default examples/extension/dist) gets the extension's source files, the built
// library dist/index.mjs as lib/cuckoo-wasm.mjs, and blocklist.cuckoo: a URL blocklist filter
// built by the package's CLI (`cuckoo-wasm build --urls`) from the lists plus each --add entry.
// A list has one URL blocklist entry per line: a bare host (`evil.example`, the whole site and
// its subdomains), a folder (`shared.example/~phisher/`) or a whole URL (that page); `#` lines
// are comments. The default lists are examples/data/blocklist-sample.txt (50,114 hosts) and
// examples/data/phishing-urls-sample.txt (4,926 URLs). --url-fpr is the false-positive rate of
// one URL lookup (up to 30 expressions) the filter is sized for. Files of the same names in
// OUTDIR are overwritten; nothing else there is touched. Needs the built package (dist/index.mjs,
// dist/cli.cjs).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const sampleLists = ['blocklist-sample.txt', 'phishing-urls-sample.txt'].map((f) => join(root, 'examples/data', f));
const SOURCE_FILES = ['manifest.json', 'service-worker.js', 'warning.html', 'warning.js'];

function fail(message) {
  console.error(`build.mjs: ${message}`);
  process.exit(1);
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
    'url-fpr': { type: 'string', default: '0.001' },
  },
});
if (positionals.length > 1) fail(`one OUTDIR at most, got: ${positionals.join(' ')}`);
const outDir = resolve(positionals[0] ?? join(here, 'dist'));
const listPaths = (values.list ?? sampleLists).map((p) => resolve(p));
const lists = listPaths.map(readList);
const library = join(root, 'dist/index.mjs');
const cli = join(root, 'dist/cli.cjs');
for (const file of [library, cli]) {
  if (!existsSync(file)) fail(`${relative(root, file)} is missing: build the package first (npm run build)`);
}

// An --add entry is checked here, so that a mistake is reported as the argument it is; the CLI
// checks the lists' entries and names the one it refuses.
const { canonicalizeUrl } = await import(pathToFileURL(library).href);
for (const entry of values.add) {
  if (entry.trim() === '' || entry.trim().startsWith('#')) fail(`--add "${entry}": not a URL blocklist entry`);
  await canonicalizeUrl(entry).catch((e) => fail(`--add: ${e.message}`));
}

// The filter, built by the CLI from one list file: the lists as they are, then the added entries.
mkdirSync(join(outDir, 'lib'), { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), 'cuckoo-extension-'));
let buildError;
try {
  const combined = join(tmp, 'list.txt');
  writeFileSync(combined, [...lists.map((text) => text.replace(/\n?$/, '')), ...values.add].join('\n') + '\n');
  const args = [cli, 'build', '--urls', combined, '-o', join(outDir, 'blocklist.cuckoo'), '--url-fpr', values['url-fpr']];
  process.stdout.write(execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
} catch (e) {
  buildError = e;
} finally {
  rmSync(tmp, { recursive: true, force: true }); // before fail(): process.exit skips pending finally blocks
}
if (buildError) {
  // The CLI names the list it read, the temporary file: name the lists given instead.
  const why = buildError.stderr?.trim().replace(/\S*cuckoo-extension-[^/\s]*\/list\.txt/g, 'the lists') || buildError.message;
  fail(`building the filter failed: ${why}`);
}

for (const file of SOURCE_FILES) copyFileSync(join(here, file), join(outDir, file));
copyFileSync(library, join(outDir, 'lib/cuckoo-wasm.mjs'));
copyFileSync(join(root, 'LICENSE'), join(outDir, 'lib/LICENSE'));
if (listPaths.some((p) => sampleLists.includes(p))) {
  copyFileSync(join(root, 'examples/data/SOURCES.md'), join(outDir, 'DATA-SOURCES.md'));
}

const from = listPaths.map((p) => relative(process.cwd(), p)).join(', ') + (values.add.length ? ` + ${values.add.join(', ')}` : '');
console.log(`extension ready to load unpacked from ${outDir} (filter from ${from})`);
