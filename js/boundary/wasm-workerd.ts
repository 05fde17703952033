/**
 * The module's default source in the Workers build (dist/workerd.mjs, package.json's "workerd" condition): the
 * package's .wasm imported as a module. Workers compile no WebAssembly from bytes; their bundler (wrangler's
 * esbuild) uploads an imported .wasm beside the Worker, and the import gives a compiled `WebAssembly.Module`.
 */
import wasmModule from 'cuckoo-core-wasm-file';

export default async function defaultWasm(): Promise<Uint8Array | WebAssembly.Module> {
  return wasmModule;
}
