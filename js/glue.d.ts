// Build-time modules resolved by scripts/build.mjs (esbuild aliases):
// the Emscripten glue, and the .wasm it instantiates as a raw DEFLATE stream
// (RFC 1951), embedded as bytes (js/load.ts inflates it).
declare module 'cuckoo-core-glue' {
  const createCuckooCore: (overrides: Record<string, unknown>) => Promise<unknown>;
  export default createCuckooCore;
}
declare module 'cuckoo-core-wasm' {
  const wasmDeflated: Uint8Array<ArrayBuffer>;
  export default wasmDeflated;
}
