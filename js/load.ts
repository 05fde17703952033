/**
 * Loading the WebAssembly module: once per realm, from the bytes embedded in
 * the bundle (no fetch, no file path), with every failure turned into a
 * {@link WasmLoadError} that says what to do. js/wasm-core.ts then owns the
 * instance.
 */
import createCuckooCore from 'cuckoo-core-glue';
import wasmEmbedded from 'cuckoo-core-wasm';
import { WasmLoadError } from './errors.js';
import { inflateRaw } from './inflate.js';
import { Core, CoreModule } from './wasm-core.js';

let corePromise: Promise<Core> | undefined;

/** Node.js's zlib, where the realm is Node.js 20.16+ / 22.3+ (a call, not an import: bundlers see none). */
type Zlib = { inflateRawSync(data: Uint8Array): Uint8Array };
const nodeProcess = (globalThis as { process?: { getBuiltinModule?: (id: string) => Zlib | undefined } }).process;

/**
 * The .wasm bytes: as the bundle embeds them in the Node.js build (dist/node.*),
 * else inflated from the raw DEFLATE stream (RFC 1951) the bundle embeds
 * (scripts/build.mjs): by Node.js's zlib where there is one (a few times
 * faster there than its DecompressionStream), else by the realm's
 * DecompressionStream where it takes 'deflate-raw', else by js/inflate.ts.
 */
async function wasmBinary(): Promise<Uint8Array> {
  if (!CUCKOO_WASM_DEFLATED) return wasmEmbedded;
  const zlib = nodeProcess?.getBuiltinModule?.('zlib');
  if (zlib) return zlib.inflateRawSync(wasmEmbedded);
  try {
    const stream = new DecompressionStream('deflate-raw');
    const writer = stream.writable.getWriter();
    // A failure shows in the reads below; these promises only settle with it.
    writer.write(wasmEmbedded).catch(() => {});
    writer.close().catch(() => {});
    const reader = stream.readable.getReader();
    const chunks: Uint8Array[] = [];
    let length = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      chunks.push(r.value);
      length += r.value.length;
    }
    const bytes = new Uint8Array(length);
    length = 0;
    for (const c of chunks) {
      bytes.set(c, length);
      length += c.length;
    }
    return bytes;
  } catch {
    // No DecompressionStream, or none for 'deflate-raw' (a TypeError either way).
    return inflateRaw(wasmEmbedded);
  }
}

/** Turns whatever stopped the module from loading into a {@link WasmLoadError} that says what to do. */
function loadError(cause: unknown): WasmLoadError {
  const detail = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  // Chromium: "Refused to compile or instantiate WebAssembly module because 'unsafe-eval'
  // is not an allowed source of script ..."; Firefox: "call to WebAssembly.instantiate() blocked by CSP".
  if (/Content.Security.Policy|\bCSP\b|unsafe-eval/i.test(detail)) {
    return new WasmLoadError(
      "cuckoo-wasm cannot compile its WebAssembly module: the Content-Security-Policy forbids it. " +
        "Add 'wasm-unsafe-eval' to script-src (e.g. script-src 'self' 'wasm-unsafe-eval'); " +
        `'unsafe-eval' is not needed, whatever the browser's message says. (${detail})`,
      'csp-blocked',
      cause,
    );
  }
  return new WasmLoadError(
    `cuckoo-wasm could not load its WebAssembly module (${detail}); a later call tries again`,
    'instantiate-failed',
    cause,
  );
}

/**
 * Instantiates the WebAssembly module once per realm; later calls share it.
 * Settles promptly either way: if the module cannot be compiled, instantiated
 * or initialised, the promise rejects with a {@link WasmLoadError} and the next
 * call starts afresh.
 */
export function loadCore(): Promise<Core> {
  corePromise ??= new Promise<Core>((resolve, reject) => {
    if (typeof WebAssembly !== 'object' || WebAssembly === null) {
      reject(
        new WasmLoadError(
          'cuckoo-wasm needs WebAssembly, which this JavaScript engine does not provide ' +
            '(in Node.js, do not run with --jitless)',
          'no-webassembly',
        ),
      );
      return;
    }
    const fail = (cause: unknown) => reject(loadError(cause));
    let exports: WebAssembly.Exports | undefined;
    try {
      // The glue's own promise never settles when instantiateWasm fails, so
      // every failure is caught here and rejects the outer promise directly.
      (createCuckooCore({
        // Instantiate from the embedded bytes: no fetch, no file path, so it works
        // the same in Node (ESM and CJS), browsers, workers and bundlers.
        instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance) => void) {
          wasmBinary()
            .then((bytes) => WebAssembly.instantiate(bytes as Uint8Array<ArrayBuffer>, imports))
            .then(({ instance }) => {
              exports = instance.exports;
              try {
                receive(instance); // runs the module's static initialisers (embind registration)
              } catch (e) {
                fail(e);
              }
            }, fail);
          return {};
        },
        onAbort: fail,
      }) as Promise<CoreModule>).then((module) => resolve(new Core(module, exports)), fail);
    } catch (e) {
      fail(e);
    }
  });
  corePromise.catch(() => {
    corePromise = undefined;
  });
  return corePromise;
}
