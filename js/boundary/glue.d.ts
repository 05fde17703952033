// Build-time modules resolved by scripts/build.mjs (esbuild aliases):
// the Emscripten glue of the entry's module (build/wasm/cuckoo-core.js or
// cuckoo-reader.js: a factory of the glue object, whose promise resolves once
// the module is instantiated and its embind classes registered).
declare module 'cuckoo-core-glue' {
  const createModule: (overrides: Record<string, unknown>) => Promise<unknown>;
  export default createModule;
}
// The .wasm of the entry as is, embedded as bytes in the Node.js bundles (the
// others embed its raw DEFLATE stream instead: js/boundary/wasm-embedded.ts).
declare module 'cuckoo-core-wasm' {
  const wasmEmbedded: Uint8Array<ArrayBuffer>;
  export default wasmEmbedded;
}
// Set by scripts/build.mjs (esbuild define): true in dist/index.* (for
// browsers and bundlers: the .wasm deflated, smaller on the wire), false in
// dist/node.* and dist/cli.cjs (for Node.js: the .wasm as is, so the first
// create() loads no zlib).
declare const CUCKOO_WASM_DEFLATED: boolean;
// The module's default source (esbuild alias): js/boundary/wasm-embedded.ts, or js/boundary/wasm-workerd.ts in dist/workerd.mjs.
declare module 'cuckoo-core-default' {
  const defaultWasm: () => Promise<Uint8Array | WebAssembly.Module>;
  export default defaultWasm;
}
// The build's instantiation (esbuild alias): js/boundary/full-instance.ts (the full entries) or
// js/boundary/reader-instance.ts (the reader's): the core of the module it is given.
declare module 'cuckoo-core-instance' {
  import type { ReadCore } from './read-core.js';
  const instantiateCore: (source: Promise<Uint8Array | WebAssembly.Module>) => Promise<ReadCore>;
  export default instantiateCore;
}
// The module's file name in the package (esbuild define): cuckoo-core.wasm, or cuckoo-reader.wasm in the reader's
// bundles; what error messages tell the caller to import.
declare const CUCKOO_WASM_FILE: string;
// The calls that load the module first, as messages name them (esbuild define): 'create() / fromBytes()', or
// 'fromBytes()' in the reader's bundles.
declare const CUCKOO_FIRST_CALL: string;
// The package's .wasm beside the Workers bundle (js/boundary/wasm-workerd.ts; scripts/build.mjs keeps it an import
// of ./cuckoo-core.wasm or ./cuckoo-reader.wasm), as Workers' bundlers give it: the module compiled.
declare module 'cuckoo-core-wasm-file' {
  const wasmModule: WebAssembly.Module;
  export default wasmModule;
}
// Set by scripts/build.mjs (esbuild define): the id of this release's module, which the shipped
// dist/cuckoo-core.wasm carries in its 'cuckoo-wasm' custom section (js/boundary/load.ts checks it).
declare const CUCKOO_WASM_ID: string;
