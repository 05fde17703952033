// Real test data: the full lists in ../shared/data when present (CI has them),
// else the in-repo samples in examples/data. Each suite says which it used.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const shared = join(root, '..', 'shared', 'data');

export interface RealLists {
  source: 'shared' | 'sample';
  blocklist: string[];
  benign: string[];
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').filter((s) => s.length > 0);
}

export function loadLists(): RealLists {
  if (existsSync(join(shared, 'blocklist_domains.txt')) && existsSync(join(shared, 'benign_domains.txt'))) {
    return {
      source: 'shared',
      blocklist: lines(join(shared, 'blocklist_domains.txt')),
      benign: lines(join(shared, 'benign_domains.txt')),
    };
  }
  return {
    source: 'sample',
    blocklist: lines(join(root, 'examples/data/blocklist-sample.txt')),
    benign: lines(join(root, 'examples/data/benign-opendns.txt')),
  };
}
