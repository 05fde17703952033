// Installed version of a package, read from the bench package's node_modules
// (some packages' exports maps hide package.json).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../data.mjs';

export function pkgVersion(name) {
  return JSON.parse(readFileSync(join(ROOT, 'bench', 'node_modules', name, 'package.json'), 'utf8')).version;
}
