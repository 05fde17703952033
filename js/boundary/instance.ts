/**
 * Instantiating a module of this package (cuckoo-core.wasm or cuckoo-reader.wasm; CMakeLists.txt): a standalone
 * module with one import, the notice that it grew its memory, after which the views of its memory are made again.
 * Runs its static initialisers (`_initialize`) before anything else calls it.
 */
import type { ReadModule } from './core-types.js';

/** The instance's memory views, malloc and free, and its exports, from `source` (compiled, or its bytes). Rejects with whatever stopped it. */
export async function instantiate(
  source: Promise<Uint8Array | WebAssembly.Module>,
): Promise<{ module: ReadModule; exports: Record<string, unknown> }> {
  let memory: WebAssembly.Memory | undefined;
  const module = {} as { -readonly [K in keyof ReadModule]: ReadModule[K] };
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
  (exports._initialize as () => void)();
  module._malloc = exports.malloc as ReadModule['_malloc'];
  module._free = exports.free as ReadModule['_free'];
  return { module, exports };
}
