/**
 * The reader's instantiation (esbuild alias 'cuckoo-core-instance' in the reader's bundles, scripts/build.mjs):
 * cuckoo-reader.wasm, a standalone module (no JS glue, no embind; CMakeLists.txt) with one import, its memory
 * growth's notice, as a {@link ReadCore}.
 */
import { ReadCore } from './read-core.js';
import type { ReadModule } from './core-types.js';

/** The core of the module `source` gives (compiled, or its bytes). Rejects with whatever stopped it. */
export default async function instantiateCore(source: Promise<Uint8Array | WebAssembly.Module>): Promise<ReadCore> {
  let memory: WebAssembly.Memory | undefined;
  const module = {} as { -readonly [K in keyof ReadModule]: ReadModule[K] };
  // Views over the memory as it is now: made again each time the module grows it (it tells through its import).
  const views = () => {
    const buffer = memory!.buffer;
    module.HEAPU8 = new Uint8Array(buffer);
    module.HEAP8 = new Int8Array(buffer);
    module.HEAPU32 = new Uint32Array(buffer);
    module.HEAP32 = new Int32Array(buffer);
  };
  const imports = { env: { emscripten_notify_memory_growth: () => views() } };
  const r = await WebAssembly.instantiate((await source) as BufferSource, imports);
  const instance = r instanceof WebAssembly.Instance ? r : (r as WebAssembly.WebAssemblyInstantiatedSource).instance;
  const exports = instance.exports as Record<string, unknown>;
  memory = exports.memory as WebAssembly.Memory;
  views();
  (exports._initialize as () => void)(); // the module's static initialisers
  module._malloc = exports.malloc as ReadModule['_malloc'];
  module._free = exports.free as ReadModule['_free'];
  return new ReadCore(module as ReadModule, exports);
}
