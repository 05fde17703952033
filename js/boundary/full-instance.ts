/**
 * The full entry's instantiation (esbuild alias 'cuckoo-core-instance' in its bundles, scripts/build.mjs):
 * cuckoo-core.wasm as a {@link Core}.
 */
import { Core } from './wasm-core.js';
import { instantiate } from './instance.js';

/** The core of the module `source` gives (compiled, or its bytes). Rejects with whatever stopped it. */
export default async function instantiateCore(source: Promise<Uint8Array | WebAssembly.Module>): Promise<Core> {
  const { module, exports } = await instantiate(source);
  return new Core(module, exports);
}
