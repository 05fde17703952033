/**
 * The full entry's instantiation (esbuild alias 'cuckoo-core-instance', scripts/build.mjs): cuckoo-core.wasm through
 * its Emscripten glue (which runs embind's registration), as a {@link Core}.
 */
import createCuckooCore from 'cuckoo-core-glue';
import { Core } from './wasm-core.js';
import type { CoreModule } from './core-types.js';

/** The core of the module `source` gives (compiled, or its bytes). Rejects with whatever stopped it. */
export default function instantiateCore(source: Promise<Uint8Array | WebAssembly.Module>): Promise<Core> {
  return new Promise<Core>((resolve, reject) => {
    let exports: WebAssembly.Exports | undefined;
    try {
      // The glue's own promise never settles when instantiateWasm fails, so
      // every failure is caught here and rejects the outer promise directly.
      (createCuckooCore({
        instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance) => void) {
          source
            .then((s) => WebAssembly.instantiate(s as BufferSource, imports))
            .then((r) => {
              const instance = r instanceof WebAssembly.Instance ? r : (r as WebAssembly.WebAssemblyInstantiatedSource).instance;
              exports = instance.exports;
              try {
                receive(instance); // runs the module's static initialisers (embind registration)
              } catch (e) {
                reject(e);
              }
            }, reject);
          return {};
        },
        onAbort: reject,
      }) as Promise<CoreModule>).then((module) => {
        try {
          resolve(new Core(module, exports));
        } catch (e) {
          reject(e);
        }
      }, reject);
    } catch (e) {
      reject(e);
    }
  });
}
