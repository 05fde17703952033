/**
 * Builds the cuckoo-wasm browser example without serving it:
 *
 *   node examples/browser/build.mjs [OUTDIR] [--feed-state DIR] [--poll-seconds 30]
 *
 * runs Vite's build() into OUTDIR (default examples/browser/dist, emptied first), then publishes the URL blocklist
 * the app follows as a feed (docs/FEED.md) into OUTDIR/feed/ with examples/feed/feed.mjs (the package's publish(),
 * what `cuckoo-wasm publish --urls --url-fpr 0.001` runs): version 1 of one URL blocklist made of
 *   - examples/data/blocklist-sample.txt: 50,114 bare hosts, each the whole site and its subdomains,
 *   - examples/data/phishing-urls-sample.txt: 4,926 phishing URLs, each that one page (or, without a path, that site),
 *   - demo-entries.txt (this folder): a folder, the entry form the samples lack,
 *   - three rotating hosts of examples/feed, one of which each later version replaces,
 * sized so that one URL lookup (up to 30 expressions) is a false positive at most 0.1% of the time. --feed-state is
 * the publisher's folder (default: a temporary one, deleted): keep it to publish later versions into OUTDIR/feed
 * (`node examples/feed/feed.mjs --out OUTDIR/feed --state DIR`). --poll-seconds is the manifest's pollSeconds.
 * The samples' sources and licenses go along as OUTDIR/feed/DATA-SOURCES.md.
 * Last it prints the size of what a browser downloads for the app's code: each
 * .js and .wasm of OUTDIR/assets, in bytes and gzipped (zlib level 9, as
 * scripts/build.mjs measures dist/index.mjs), the figures in README.md.
 * Needs the built package (dist/, made by `npm run build`). Also importable:
 * `await buildExample(outDir, { feedState, pollSeconds })` returns `{ outDir, feedDir, published, bundle }`: the
 * folders as absolute paths, published as publish() returned it, bundle as [{ file, bytes, gzipped }] (file relative
 * to outDir).
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { publishVersion, SAMPLE_LISTS } from '../feed/feed.mjs';

const exampleDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(exampleDir, '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const dataDir = path.join(repoRoot, 'examples/data');

/** The lists the feed is published from (and examples/feed's rotating entries). */
export const LISTS = SAMPLE_LISTS;
/** The false-positive rate of one URL lookup the filter is sized for (publish's urlFalsePositiveRate). */
export const URL_FALSE_POSITIVE_RATE = 0.001;
/** Path of the feed's manifest inside the output folder; main.js follows the same path relative to the page. */
export const FEED_PATH = 'feed/manifest.json';

export async function buildExample(outDir = path.join(exampleDir, 'dist'), { feedState, pollSeconds = 30 } = {}) {
  outDir = path.resolve(outDir);
  // The output folder is emptied: never let that be the sources or a folder holding them.
  if (exampleDir === outDir || exampleDir.startsWith(outDir + path.sep)) {
    throw new Error(`build.mjs: refusing to empty ${outDir}, it holds the example's sources`);
  }
  if (!existsSync(cli)) {
    throw new Error(`build.mjs: ${cli} is missing; build the package first (npm run build)`);
  }
  await build({
    configFile: path.join(exampleDir, 'vite.config.mjs'),
    build: { outDir, emptyOutDir: true },
  });
  const feedDir = path.join(outDir, path.dirname(FEED_PATH));
  const state = feedState ? path.resolve(feedState) : mkdtempSync(path.join(tmpdir(), 'cuckoo-example-feed-'));
  let published;
  try {
    // A state folder of an earlier build would go on from its version into an emptied folder: start afresh.
    if (feedState) rmSync(state, { recursive: true, force: true });
    published = await publishVersion({ out: feedDir, state, pollSeconds });
  } finally {
    if (!feedState) rmSync(state, { recursive: true, force: true });
  }
  console.log(`feed: ${FEED_PATH} version ${published.version}, ${published.entries} entries, ${published.full.path} ${published.full.size} bytes`);
  copyFileSync(path.join(dataDir, 'SOURCES.md'), path.join(feedDir, 'DATA-SOURCES.md'));
  const bundle = bundleSizes(outDir);
  for (const { file, bytes, gzipped } of bundle) {
    console.log(`bundle: ${file} ${bytes} bytes, ${gzipped} gzipped`);
  }
  return { outDir, feedDir, published, bundle };
}

/** The app's scripts and WebAssembly in outDir/assets: [{ file, bytes, gzipped }], by file name. */
export function bundleSizes(outDir) {
  const assets = path.join(outDir, 'assets');
  return readdirSync(assets)
    .filter((name) => /\.(js|mjs|wasm)$/.test(name))
    .sort()
    .map((name) => {
      const bytes = readFileSync(path.join(assets, name));
      return { file: `assets/${name}`, bytes: bytes.length, gzipped: gzipSync(bytes, { level: 9 }).length };
    });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { 'feed-state': { type: 'string' }, 'poll-seconds': { type: 'string', default: '30' } },
  });
  buildExample(positionals[0], { feedState: values['feed-state'], pollSeconds: Number(values['poll-seconds']) }).catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
