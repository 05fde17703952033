// Writes the Worker's static asset: public/blocklist.cuckoo, a URL blocklist filter built by the package's CLI
// (`cuckoo-wasm build --urls --url-fpr 0.001`) from the repo's sample lists, as the extension example does:
//   node build.mjs [OUTDIR] [--list FILE]... [--add ENTRY]... [--url-fpr 0.001]
// OUTDIR (default ./public) gets blocklist.cuckoo; nothing else there is touched. The lists default to
// examples/data/blocklist-sample.txt (50,114 hosts) and examples/data/phishing-urls-sample.txt (4,926 URLs);
// an entry is a bare host (the whole site), a folder (`host/path/`) or a whole URL (that page). The CLI is
// the installed package's (node_modules/cuckoo-wasm), else this repository's build (dist/cli.cjs).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    list: { type: 'string', multiple: true },
    add: { type: 'string', multiple: true, default: [] },
    'url-fpr': { type: 'string', default: '0.001' },
  },
});
const outDir = resolve(positionals[0] ?? join(here, 'public'));
const lists = (values.list ?? ['blocklist-sample.txt', 'phishing-urls-sample.txt'].map((f) => join(repo, 'examples/data', f))).map((p) =>
  readFileSync(resolve(p), 'utf8'),
);

function cliPath() {
  try {
    return join(dirname(createRequire(join(here, 'package.json')).resolve('cuckoo-wasm/package.json')), 'dist/cli.cjs');
  } catch {
    const built = join(repo, 'dist/cli.cjs');
    if (existsSync(built)) return built;
    console.error('build.mjs: no cuckoo-wasm CLI: run `npm install` here (or `npm run build` in the repository)');
    process.exit(1);
  }
}

mkdirSync(outDir, { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), 'cuckoo-worker-'));
try {
  const list = join(tmp, 'list.txt');
  writeFileSync(list, [...lists.map((text) => text.replace(/\n?$/, '')), ...values.add].join('\n') + '\n');
  const out = join(outDir, 'blocklist.cuckoo');
  process.stdout.write(
    execFileSync(process.execPath, [cliPath(), 'build', '--urls', list, '-o', out, '--url-fpr', values['url-fpr']], { encoding: 'utf8' }),
  );
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
