// The feed format's code (js/feed/manifest.ts: parseEnvelope, parseManifest, verifyEnvelope...) for tests that
// check what a publisher wrote as a client checks it. The source imports its neighbours as './x.js' (ES module
// style), which Jest's resolver does not map to .ts: it is bundled here with esbuild, once, into a CommonJS module.
import { buildSync } from 'esbuild';
import { join } from 'node:path';

type Manifest = typeof import('../../js/feed/manifest');

let loaded: Manifest | undefined;

/** js/feed/manifest.ts's exports. */
export function feedFormat(): Manifest {
  if (loaded === undefined) {
    const { outputFiles } = buildSync({
      entryPoints: [join(__dirname, '..', '..', 'js', 'feed', 'manifest.ts')],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      write: false,
      logLevel: 'silent',
    });
    const module = { exports: {} as Manifest };
    new Function('module', 'exports', 'require', outputFiles[0].text)(module, module.exports, require);
    loaded = module.exports;
  }
  return loaded;
}
