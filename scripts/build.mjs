// Builds the npm package's JavaScript from TypeScript and the wasm build
// (build/wasm/cuckoo-core.{js,wasm}, made by `cmake --build build/wasm`):
//   dist/index.mjs    ES module       } the glue and the .wasm bytes are bundled in,
//   dist/index.cjs    CommonJS        } so no fetch, file path or bundler setup is needed
//   dist/cli.cjs      the `cuckoo-wasm` command
//   dist/testing.mjs  test- and bench-only raw access to the boundary (js/testing.ts), over
//                     ./index.mjs; not in package.json "exports"
//   dist/types/       .d.ts (CommonJS view) and dist/types-esm/ (same files, ES-module view)
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const wasmDir = join(root, 'build', 'wasm');
for (const f of ['cuckoo-core.js', 'cuckoo-core.wasm']) {
  if (!existsSync(join(wasmDir, f))) {
    console.error(`missing build/wasm/${f}: run \`bash scripts/build.sh\` (it runs em++ first)`);
    process.exit(1);
  }
}
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });

const common = {
  bundle: true,
  platform: 'neutral',
  target: 'es2020',
  alias: {
    'cuckoo-core-glue': join(wasmDir, 'cuckoo-core.js'),
    'cuckoo-core-wasm': join(wasmDir, 'cuckoo-core.wasm'),
  },
  loader: { '.wasm': 'binary' },
  legalComments: 'inline',
  // Whitespace and syntax only: identifiers keep their names, so error classes
  // and stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  // Lines of about 1,000 characters at most: Node prints the source line of
  // an uncaught error's throw, which would otherwise be the whole bundle.
  // Shorter lines split the embedded wasm's base64 more often, which costs
  // gzip: +0.7 KB at 1,000, +1.8 KB at 300.
  lineLimit: 1000,
  logLevel: 'warning',
};

await build({ ...common, entryPoints: [join(root, 'js/index.ts')], format: 'esm', outfile: join(dist, 'index.mjs') });
await build({ ...common, entryPoints: [join(root, 'js/index.ts')], format: 'cjs', outfile: join(dist, 'index.cjs') });
await build({
  ...common,
  platform: 'node',
  entryPoints: [join(root, 'js/cli.ts')],
  format: 'cjs',
  outfile: join(dist, 'cli.cjs'),
  banner: { js: '#!/usr/bin/env node' },
});

// testing.mjs imports the ES module itself, so that both share one module instance.
const indexAsExternal = {
  name: 'index-as-external',
  setup(b) {
    b.onResolve({ filter: /^\.\/index\.js$/ }, () => ({ path: './index.mjs', external: true }));
  },
};
await build({
  ...common,
  entryPoints: [join(root, 'js/testing.ts')],
  format: 'esm',
  outfile: join(dist, 'testing.mjs'),
  plugins: [indexAsExternal],
});

execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
  stdio: 'inherit',
});
// The same declarations under a "type": "module" scope, so TypeScript reads them
// as the ES-module entry's types (the "import" condition of package.json exports).
cpSync(join(dist, 'types'), join(dist, 'types-esm'), { recursive: true });
writeFileSync(join(dist, 'types-esm', 'package.json'), '{ "type": "module" }\n');
mkdirSync(join(dist, 'types'), { recursive: true });
console.log('built dist/ (index.mjs, index.cjs, cli.cjs, testing.mjs, types)');
