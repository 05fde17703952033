/**
 * `npm run example:browser`: builds the cuckoo-wasm browser example (build.mjs)
 * into examples/browser/dist and serves it with `vite preview` on
 * http://127.0.0.1:5173/, sending the Content-Security-Policy of vite.config.mjs.
 * Stop it with Ctrl+C.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { preview } from 'vite';
import { buildExample } from './build.mjs';

const exampleDir = path.dirname(fileURLToPath(import.meta.url));

try {
  await buildExample();
  const server = await preview({ configFile: path.join(exampleDir, 'vite.config.mjs') });
  server.printUrls();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
