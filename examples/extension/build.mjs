// Builds the loadable (unpacked) extension folder:
//   node examples/extension/build.mjs [OUTDIR] [--list FILE]... [--add ENTRY]... [--url-fpr 0.001]
//     [--update-url URL [--filter-version 1] [--update-minutes 60]]
// OUTDIR (default examples/extension/dist) gets the extension's source files, the package's
// read-only entry dist/reader.mjs (`cuckoo-wasm/reader`: loads, checks and patches filters, builds
// none) as lib/cuckoo-reader.mjs, and blocklist.cuckoo: a URL blocklist filter built by the
// package's CLI (`cuckoo-wasm build --urls`) from the lists plus each --add entry.
// A list has one URL blocklist entry per line: a bare host (`evil.example`, the whole site and
// its subdomains), a folder (`shared.example/~phisher/`) or a whole URL (that page); `#` lines
// are comments. The default lists are examples/data/blocklist-sample.txt (50,114 hosts) and
// examples/data/phishing-urls-sample.txt (4,926 URLs). --url-fpr is the false-positive rate of
// one URL lookup (up to 30 expressions) the filter is sized for. Files of the same names in
// OUTDIR are overwritten, and lib/cuckoo-wasm.mjs, which earlier builds wrote, is removed; nothing
// else there is touched. Needs the built package (dist/reader.mjs,
// dist/cli.cjs).
// Updates: with --update-url (the update manifest's http(s) URL), the service worker fetches that
// manifest at start and every --update-minutes, and follows the list by patches (see README.md);
// the manifest.json written then also asks for the `storage` and `alarms` permissions and host
// access to the update URL's host. --filter-version is the version number of the bundled filter in
// the update manifests' numbering. Without --update-url the extension never goes online: it uses
// the bundled filter. The settings go to OUTDIR/update.json, which the worker reads.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const sampleLists = ['blocklist-sample.txt', 'phishing-urls-sample.txt'].map((f) => join(root, 'examples/data', f));
const SOURCE_FILES = ['service-worker.js', 'warning.html', 'warning.js'];

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
    'update-url': { type: 'string' },
    'filter-version': { type: 'string', default: '1' },
    'update-minutes': { type: 'string', default: '60' },
  },
});
if (positionals.length > 1) fail(`one OUTDIR at most, got: ${positionals.join(' ')}`);
const update = updateSettings(values);
const outDir = resolve(positionals[0] ?? join(here, 'dist'));
const listPaths = (values.list ?? sampleLists).map((p) => resolve(p));
const lists = listPaths.map(readList);
const library = join(root, 'dist/reader.mjs');
const cli = join(root, 'dist/cli.cjs');
for (const file of [library, cli]) {
  if (!existsSync(file)) fail(`${relative(root, file)} is missing: build the package first (npm run build)`);
}

// An --add entry is checked here, by the library the extension ships, so that a mistake is reported
// as the argument it is; the CLI checks the lists' entries and names the one it refuses.
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
writeFileSync(join(outDir, 'manifest.json'), JSON.stringify(extensionManifest(update), null, 2) + '\n');
writeFileSync(join(outDir, 'update.json'), JSON.stringify(update, null, 2) + '\n');
copyFileSync(library, join(outDir, 'lib/cuckoo-reader.mjs'));
// What earlier builds shipped there (the full entry, dist/index.mjs): nothing imports it now.
rmSync(join(outDir, 'lib/cuckoo-wasm.mjs'), { force: true });
copyFileSync(join(root, 'LICENSE'), join(outDir, 'lib/LICENSE'));
if (listPaths.some((p) => sampleLists.includes(p))) {
  copyFileSync(join(root, 'examples/data/SOURCES.md'), join(outDir, 'DATA-SOURCES.md'));
}

const from = listPaths.map((p) => relative(process.cwd(), p)).join(', ') + (values.add.length ? ` + ${values.add.join(', ')}` : '');
const updates = update.updateUrl ? `; version ${update.version}, updates from ${update.updateUrl} every ${update.periodMinutes} min` : '';
console.log(`extension ready to load unpacked from ${outDir} (filter from ${from}${updates})`);

/** The worker's update settings (update.json) from the arguments: { updateUrl (or null), version, periodMinutes }. */
function updateSettings(args) {
  const version = Number(args['filter-version']);
  if (!Number.isSafeInteger(version) || version < 0) fail(`--filter-version ${args['filter-version']}: not an integer >= 0`);
  const periodMinutes = Number(args['update-minutes']);
  // Chromium runs alarms at most every 30 s in a packed extension (every second when loaded unpacked).
  if (!(periodMinutes >= 1 / 60)) fail(`--update-minutes ${args['update-minutes']}: not a number of minutes >= 1/60`);
  let updateUrl = null;
  if (args['update-url'] !== undefined) {
    let url;
    try {
      url = new URL(args['update-url']);
    } catch {
      fail(`--update-url ${args['update-url']}: not an absolute URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`--update-url ${url}: not an http(s) URL`);
    updateUrl = url.href;
  }
  return { updateUrl, version, periodMinutes };
}

/** manifest.json: the source's, plus what updates need when there is an update URL. */
function extensionManifest({ updateUrl }) {
  const manifest = JSON.parse(readFileSync(join(here, 'manifest.json'), 'utf8'));
  if (!updateUrl) return manifest;
  const { protocol, hostname } = new URL(updateUrl);
  manifest.permissions = [...manifest.permissions, 'storage', 'alarms'];
  // A match pattern without a port matches every port of the host. Host access lets the worker
  // fetch the manifest, patches and full filters from it without CORS headers.
  manifest.host_permissions = [`${protocol}//${hostname}/*`];
  return manifest;
}
