/**
 * The types of the package's WebAssembly modules as files, `cuckoo-wasm/cuckoo-core.wasm` (the module of the
 * `cuckoo-wasm` entry) and `cuckoo-wasm/cuckoo-reader.wasm` (that of `cuckoo-wasm/reader`), imported as the hosts that
 * take a .wasm import give it: a compiled `WebAssembly.Module` as the default export (Cloudflare Workers' wrangler,
 * Vercel Edge with `?module`), to hand to that entry's `initWasm`. Typed as `object`, which `initWasm` takes, so that
 * no DOM lib is needed (the `WebAssembly` types come with it); cast it where a `WebAssembly.Module` is wanted.
 *
 * scripts/build.mjs copies this file to dist/types/ and dist/types-esm/; package.json names it as the `types` of
 * both `.wasm` exports (and, for TypeScript's node10 resolution, in `typesVersions`). A suffix such as `?module` is
 * part of the subpath TypeScript looks up, so it is not covered; a project declares it once, in a .d.ts of its own:
 *
 * ```ts
 * declare module 'cuckoo-wasm/cuckoo-core.wasm?module' {
 *   export { default } from 'cuckoo-wasm/cuckoo-core.wasm';
 * }
 * ```
 */
declare const wasmModule: object;
export default wasmModule;
