// Builds the loadable (unpacked) extension folder:
//   node examples/extension/build.mjs [OUTDIR] [--list FILE]... [--add ENTRY]... [--url-fpr 0.001]
//   node examples/extension/build.mjs [OUTDIR] --update-url MANIFEST_URL [--public-key KEY] [--update-minutes 60]
// OUTDIR (default examples/extension/dist) gets the extension's source files, the package's read-only entry
// dist/reader.mjs (`cuckoo-wasm/reader`: loads, checks and patches filters, builds none) as lib/cuckoo-reader.mjs,
// blocklist.cuckoo (the URL blocklist filter) and feed.json (the worker's settings).
// Without --update-url the extension never goes online: blocklist.cuckoo is built by the package's CLI
// (`cuckoo-wasm build --urls`) from the lists plus each --add entry. A list has one URL blocklist entry per line: a
// bare host (`evil.example`, the whole site and its subdomains), a folder (`shared.example/~phisher/`) or a whole
// URL (that page); `#` lines are comments. The default lists are examples/data/blocklist-sample.txt (50,114 hosts)
// and examples/data/phishing-urls-sample.txt (4,926 URLs). --url-fpr is the false-positive rate of one URL lookup
// (up to 30 expressions) the filter is sized for.
// With --update-url (the http(s) URL of a feed's manifest.json, docs/FEED.md) the extension follows that feed:
// blocklist.cuckoo is the feed's current version, downloaded now with FilterFeed (and, given --public-key, the
// base64 Ed25519 key `cuckoo-wasm keygen` printed, only from a manifest signed with it), so the extension answers
// from it until it first reaches the feed and then updates from it by patch; the worker checks the feed at start and
// every --update-minutes. The manifest.json written then also asks for the `storage` and `alarms` permissions and
// host access to the feed's host.
// Files of the same names in OUTDIR are overwritten, and lib/cuckoo-wasm.mjs and update.json, which earlier builds
// wrote, are removed; nothing else there is touched. Needs the built package (dist/reader.mjs, dist/cli.cjs).
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
    'url-fpr': { type: 'string' },
    'update-url': { type: 'string' },
    'public-key': { type: 'string' },
    'update-minutes': { type: 'string', default: '60' },
  },
});
if (positionals.length > 1) fail(`one OUTDIR at most, got: ${positionals.join(' ')}`);
const settings = feedSettings(values);
const outDir = resolve(positionals[0] ?? join(here, 'dist'));
const library = join(root, 'dist/reader.mjs');
const cli = join(root, 'dist/cli.cjs');
for (const file of [library, cli]) {
  if (!existsSync(file)) fail(`${relative(root, file)} is missing: build the package first (npm run build)`);
}
const reader = await import(pathToFileURL(library).href);
mkdirSync(join(outDir, 'lib'), { recursive: true });

let from;
if (settings.manifestUrl) {
  // The feed's current version, as the extension's own FilterFeed checks it (signature, sizes, SHA-256s).
  const store = new reader.MemoryFeedStore();
  const feed = await reader.FilterFeed.open({ manifestUrl: settings.manifestUrl, publicKey: settings.publicKey ?? undefined, store }).catch((e) =>
    fail(`cannot read the feed ${settings.manifestUrl}: ${e.name}${e.reason ? ` (${e.reason})` : ''}: ${e.message}`),
  );
  feed.dispose();
  const { bytes, name, version, family, sha256 } = await store.load();
  writeFileSync(join(outDir, 'blocklist.cuckoo'), bytes);
  const bundled = { name, version, family, sha256 };
  settings.bundled = bundled;
  from = `the feed ${settings.manifestUrl}: ${bundled.name} version ${bundled.version}${settings.publicKey ? ', signature checked' : ''}; updates every ${settings.periodMinutes} min`;
} else {
  await buildFromLists();
  from = `${(values.list ?? sampleLists).map((p) => relative(process.cwd(), resolve(p))).join(', ')}${values.add.length ? ` + ${values.add.join(', ')}` : ''}`;
}

for (const file of SOURCE_FILES) copyFileSync(join(here, file), join(outDir, file));
writeFileSync(join(outDir, 'manifest.json'), JSON.stringify(extensionManifest(settings), null, 2) + '\n');
writeFileSync(join(outDir, 'feed.json'), JSON.stringify(settings, null, 2) + '\n');
copyFileSync(library, join(outDir, 'lib/cuckoo-reader.mjs'));
// What earlier builds wrote there: nothing reads them now.
rmSync(join(outDir, 'lib/cuckoo-wasm.mjs'), { force: true });
rmSync(join(outDir, 'update.json'), { force: true });
copyFileSync(join(root, 'LICENSE'), join(outDir, 'lib/LICENSE'));
copyFileSync(join(root, 'examples/data/SOURCES.md'), join(outDir, 'DATA-SOURCES.md'));
console.log(`extension ready to load unpacked from ${outDir} (filter from ${from})`);

/** blocklist.cuckoo from the lists and --add entries, built by the CLI. */
async function buildFromLists() {
  const listPaths = (values.list ?? sampleLists).map((p) => resolve(p));
  const lists = listPaths.map(readList);
  // An --add entry is checked here, by the library the extension ships, so that a mistake is reported
  // as the argument it is; the CLI checks the lists' entries and names the one it refuses.
  for (const entry of values.add) {
    if (entry.trim() === '' || entry.trim().startsWith('#')) fail(`--add "${entry}": not a URL blocklist entry`);
    await reader.canonicalizeUrl(entry).catch((e) => fail(`--add: ${e.message}`));
  }
  const tmp = mkdtempSync(join(tmpdir(), 'cuckoo-extension-'));
  let buildError;
  try {
    const combined = join(tmp, 'list.txt');
    writeFileSync(combined, [...lists.map((text) => text.replace(/\n?$/, '')), ...values.add].join('\n') + '\n');
    const args = [cli, 'build', '--urls', combined, '-o', join(outDir, 'blocklist.cuckoo'), '--url-fpr', values['url-fpr'] ?? '0.001'];
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
}

/**
 * The worker's settings (feed.json) from the arguments: { manifestUrl (or null), publicKey (or null), periodMinutes },
 * and `bundled` ({ name, version, family, sha256 } of blocklist.cuckoo) once the feed was read.
 */
function feedSettings(args) {
  const periodMinutes = Number(args['update-minutes']);
  // Chromium runs alarms at most every 30 s in a packed extension (every second when loaded unpacked).
  if (!(periodMinutes >= 1 / 60)) fail(`--update-minutes ${args['update-minutes']}: not a number of minutes >= 1/60`);
  if (args['update-url'] === undefined) {
    if (args['public-key'] !== undefined) fail('--public-key is the key of a feed: give --update-url too');
    return { manifestUrl: null, publicKey: null, periodMinutes };
  }
  if (args.list !== undefined || args.add.length > 0 || args['url-fpr'] !== undefined) {
    fail('--list, --add and --url-fpr build a filter; with --update-url the filter is the feed\'s: publish the list with `cuckoo-wasm publish` instead');
  }
  let url;
  try {
    url = new URL(args['update-url']);
  } catch {
    fail(`--update-url ${args['update-url']}: not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`--update-url ${url}: not an http(s) URL`);
  return { manifestUrl: url.href, publicKey: args['public-key'] ?? null, periodMinutes };
}

/** manifest.json: the source's, plus what updates need when there is a feed. */
function extensionManifest({ manifestUrl }) {
  const manifest = JSON.parse(readFileSync(join(here, 'manifest.json'), 'utf8'));
  if (!manifestUrl) return manifest;
  const { protocol, hostname } = new URL(manifestUrl);
  manifest.permissions = [...manifest.permissions, 'storage', 'alarms'];
  // A match pattern without a port matches every port of the host. Host access lets the worker
  // fetch the manifest, patches and full filters from it without CORS headers.
  manifest.host_permissions = [`${protocol}//${hostname}/*`];
  return manifest;
}
