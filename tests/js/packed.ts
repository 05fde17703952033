// The package as npm publishes it: `npm pack` of the repository's dist/, shared by the tests that install it.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export const root = join(__dirname, '..', '..');

/** What `npm pack` made: the tarball's path and the files it holds. */
export interface Packed {
  tarball: string;
  files: string[];
}

/**
 * Packs the package into `dir`. dist/ was built by the tests' setup step (scripts/setup.sh), so `--ignore-scripts`
 * skips the prepack rebuild.
 */
export function packInto(dir: string): Packed {
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const info = JSON.parse(out.slice(out.indexOf('[')));
  return { tarball: join(dir, info[0].filename), files: info[0].files.map((f: { path: string }) => f.path) };
}
