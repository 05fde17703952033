// Build-time modules resolved by scripts/build.mjs (esbuild aliases):
// the Emscripten glue and the .wasm it instantiates, embedded as bytes.
declare module 'cuckoo-core-glue' {
  const createCuckooCore: (overrides: Record<string, unknown>) => Promise<unknown>;
  export default createCuckooCore;
}
declare module 'cuckoo-core-wasm' {
  const wasmBinary: Uint8Array;
  export default wasmBinary;
}
