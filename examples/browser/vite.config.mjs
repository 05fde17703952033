/**
 * Vite configuration of the cuckoo-wasm browser example (examples/browser).
 *
 * `import { CuckooFilter } from 'cuckoo-wasm/reader'` needs no alias. This folder
 * has no package.json of its own, so the nearest one is the repository's: it is
 * named `cuckoo-wasm` and has an `exports` map, and Vite resolves a package's
 * import of its own name through that map (Node's "self-referencing a package
 * using its name" rule). The app therefore gets dist/reader.mjs through the
 * `import` condition of "./reader", as an app that installed the package from
 * npm would, and no path into dist/ is written anywhere. An alias to the
 * repository root would do the same but is one more thing to keep in sync; a
 * package.json added in this folder would end the self-reference.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The policy the example must work under; `vite preview` sends it as a header. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // Relative asset URLs: the output works from any folder of any static server.
  base: './',
  build: { outDir: 'dist', emptyOutDir: true },
  preview: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
    headers: { 'Content-Security-Policy': CONTENT_SECURITY_POLICY },
  },
});
