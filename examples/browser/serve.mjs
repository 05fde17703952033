/**
 * `npm run example:browser`: builds the cuckoo-wasm browser example (build.mjs) into examples/browser/dist and serves
 * it with `vite preview` on http://127.0.0.1:5173/, sending the Content-Security-Policy of vite.config.mjs. Meanwhile
 * it publishes a new version of the app's feed into dist/feed/ every 15 seconds (examples/feed/feed.mjs: one entry
 * replaced each time), so the open page shows each version arrive by patch. Stop it with Ctrl+C.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { preview } from 'vite';
import { publishVersion } from '../feed/feed.mjs';
import { buildExample } from './build.mjs';

const exampleDir = path.dirname(fileURLToPath(import.meta.url));
const EVERY_SECONDS = 15;

try {
  const feedState = mkdtempSync(path.join(tmpdir(), 'cuckoo-example-feed-'));
  process.on('SIGINT', () => {
    rmSync(feedState, { recursive: true, force: true });
    process.exit(0);
  });
  const { feedDir } = await buildExample(undefined, { feedState, pollSeconds: EVERY_SECONDS });
  const server = await preview({ configFile: path.join(exampleDir, 'vite.config.mjs') });
  server.printUrls();
  const next = () =>
    setTimeout(() => {
      publishVersion({ out: feedDir, state: feedState, pollSeconds: EVERY_SECONDS })
        .then((r) => console.log(`feed: published version ${r.version} (+${r.added} -${r.removed}; patch from ${r.version - 1}: ${r.patches[0]?.size} bytes)`))
        .catch((e) => console.error(`feed: ${e.message}`))
        .finally(next);
    }, EVERY_SECONDS * 1000);
  next();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
