/**
 * The reader's instantiation (esbuild alias 'cuckoo-core-instance' in the reader's bundles, scripts/build.mjs):
 * cuckoo-reader.wasm as a {@link ReadCore}.
 */
import { ReadCore } from './read-core.js';
import { instantiate } from './instance.js';

/** The core of the module `source` gives (compiled, or its bytes). Rejects with whatever stopped it. */
export default async function instantiateCore(source: Promise<Uint8Array | WebAssembly.Module>): Promise<ReadCore> {
  const { module, exports } = await instantiate(source);
  return new ReadCore(module, exports);
}
