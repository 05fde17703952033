/**
 * Builds the cuckoo-wasm browser example without serving it:
 *
 *   node examples/browser/build.mjs [OUTDIR]      (default examples/browser/dist)
 *
 * runs Vite's build() into OUTDIR (emptied first), then writes the filter the app
 * fetches, OUTDIR/filters/url-blocklist.cuckoo, with the package's CLI
 * (`cuckoo-wasm build --urls LIST --url-fpr 0.001`) from one URL blocklist made of
 *   - examples/data/blocklist-sample.txt: 50,114 bare hosts, each the whole site and its subdomains,
 *   - examples/data/phishing-urls-sample.txt: 4,926 phishing URLs, each that one page (or, without a path, that site),
 *   - demo-entries.txt (this folder): a folder, the entry form the samples lack,
 * sized so that one URL lookup (up to 30 expressions) is a false positive at most 0.1% of the time.
 * The samples' sources and licenses go along as OUTDIR/filters/DATA-SOURCES.md.
 * Last it prints the size of what a browser downloads for the app's code: each
 * .js and .wasm of OUTDIR/assets, in bytes and gzipped (zlib level 9, as
 * scripts/build.mjs measures dist/index.mjs), the figures in README.md.
 * Needs the built package (dist/, made by `npm run build`). Also importable:
 * `await buildExample(outDir)` returns `{ outDir, filterFile, bundle }`: the two
 * as absolute paths, bundle as [{ file, bytes, gzipped }] (file relative to outDir).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const exampleDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(exampleDir, '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const dataDir = path.join(repoRoot, 'examples/data');

/** The lists the filter is built from, in this order. */
export const LISTS = [
  path.join(dataDir, 'blocklist-sample.txt'),
  path.join(dataDir, 'phishing-urls-sample.txt'),
  path.join(exampleDir, 'demo-entries.txt'),
];
/** The false-positive rate of one URL lookup the filter is sized for (the CLI's --url-fpr). */
export const URL_FALSE_POSITIVE_RATE = 0.001;
/** Path of the filter inside the output folder; main.js fetches the same path relative to the page. */
export const FILTER_PATH = 'filters/url-blocklist.cuckoo';

export async function buildExample(outDir = path.join(exampleDir, 'dist')) {
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
  const filterFile = path.join(outDir, FILTER_PATH);
  mkdirSync(path.dirname(filterFile), { recursive: true });
  // The CLI reads one list: the three, joined. Their entries are URL entries as they stand.
  const tmp = mkdtempSync(path.join(tmpdir(), 'cuckoo-example-'));
  try {
    const list = path.join(tmp, 'url-blocklist.txt');
    writeFileSync(list, LISTS.map((file) => readFileSync(file, 'utf8').replace(/\n?$/, '\n')).join(''));
    const args = ['build', '--urls', list, '-o', filterFile, '--url-fpr', String(URL_FALSE_POSITIVE_RATE)];
    execFileSync(process.execPath, [cli, ...args], { stdio: 'inherit' });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  copyFileSync(path.join(dataDir, 'SOURCES.md'), path.join(outDir, 'filters/DATA-SOURCES.md'));
  const bundle = bundleSizes(outDir);
  for (const { file, bytes, gzipped } of bundle) {
    console.log(`bundle: ${file} ${bytes} bytes, ${gzipped} gzipped`);
  }
  return { outDir, filterFile, bundle };
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
  buildExample(process.argv[2]).catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
