/**
 * Instantiating a module of this package (cuckoo-core.wasm or cuckoo-reader.wasm; CMakeLists.txt) through its
 * Emscripten glue (esbuild alias 'cuckoo-core-glue', scripts/build.mjs: build/wasm/cuckoo-core.js or
 * cuckoo-reader.js), which runs the module's static initialisers (embind's registration of its classes and
 * constants, bindings/embind.cc) and keeps the glue object's memory views current as memory grows. The glue never
 * fetches or compiles anything itself: it is handed the module (js/boundary/load.ts) through `instantiateWasm`.
 */
import createModule from 'cuckoo-core-glue';
import type { ReadModule } from './core-types.js';

/** The glue's object and the instance's own exports, from `source` (compiled, or its bytes). Rejects with whatever stopped it. */
export function instantiate(
  source: Promise<Uint8Array | WebAssembly.Module>,
): Promise<{ module: ReadModule; exports: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    let exports: Record<string, unknown> | undefined;
    try {
      // The glue's own promise never settles when instantiateWasm fails, so every failure is caught here and
      // rejects the outer promise directly.
      createModule({
        instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance) => void) {
          source
            .then((s) => WebAssembly.instantiate(s as BufferSource, imports))
            .then((r) => {
              const instance = r instanceof WebAssembly.Instance ? r : (r as WebAssembly.WebAssemblyInstantiatedSource).instance;
              exports = instance.exports as Record<string, unknown>;
              try {
                receive(instance); // runs the static initialisers (embind's registration)
              } catch (e) {
                reject(e);
              }
            }, reject);
          return {};
        },
        onAbort: reject,
      }).then((module) => resolve({ module: module as ReadModule, exports: exports! }), reject);
    } catch (e) {
      reject(e);
    }
  });
}
