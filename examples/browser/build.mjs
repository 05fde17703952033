/**
 * Builds the cuckoo-wasm browser example without serving it:
 *
 *   node examples/browser/build.mjs [OUTDIR]      (default examples/browser/dist)
 *
 * runs Vite's build() into OUTDIR (emptied first), then writes the filter the app
 * fetches, OUTDIR/filters/blocklist-sample.cuckoo, with the package's CLI from
 * examples/data/blocklist-sample.txt. Needs the built package (dist/, made by
 * `npm run build`). Also importable: `await buildExample(outDir)` returns
 * `{ outDir, filterFile }` as absolute paths.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const exampleDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(exampleDir, '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const blocklist = path.join(repoRoot, 'examples/data/blocklist-sample.txt');

/** Path of the filter inside the output folder; main.js fetches the same path relative to the page. */
export const FILTER_PATH = 'filters/blocklist-sample.cuckoo';

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
  execFileSync(process.execPath, [cli, 'build', blocklist, '-o', filterFile], { stdio: 'inherit' });
  return { outDir, filterFile };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildExample(process.argv[2]).catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
