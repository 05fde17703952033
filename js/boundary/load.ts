/**
 * Loading the WebAssembly module: once per realm, from the module handed to
 * {@link initWasm} if there is one, else from the build's default source
 * (js/boundary/wasm-embedded.ts: the bytes embedded in the bundle, no fetch, no file
 * path; js/boundary/wasm-workerd.ts in the Workers build: the .wasm imported as a
 * module), with every failure turned into a {@link WasmLoadError} that says
 * what to do. The build's instantiation (an esbuild alias, scripts/build.mjs:
 * js/boundary/full-instance.ts for the full entry's cuckoo-core.wasm,
 * js/boundary/reader-instance.ts for the reader's cuckoo-reader.wasm) then
 * makes the core that owns the instance.
 */
import instantiateCore from 'cuckoo-core-instance';
import defaultWasm from 'cuckoo-core-default';
import { isArrayBuffer } from '../common/checks.js';
import { ArgumentTypeError, WasmInitError, WasmLoadError } from '../common/errors.js';
import type { ReadCore } from './read-core.js';
import type { Core } from './wasm-core.js';
import type { Handle, RawBoundary } from './core-types.js';

let corePromise: Promise<ReadCore> | undefined;
/** The module handed to initWasm (compiled and checked, or on its way), until it fails. */
let handed: Promise<WebAssembly.Module> | undefined;

/** The name of the custom section that marks the shipped .wasm as this release's (scripts/build.mjs writes it). */
const ID_SECTION = 'cuckoo-wasm';

/**
 * What {@link initWasm} takes: the module compiled (a `WebAssembly.Module`, as Workers and Vercel Edge give an
 * imported .wasm), where to fetch it (a `URL` or URL string, or a `Response` or a promise of one, compiled with
 * `WebAssembly.compileStreaming` when it is served as `application/wasm`), or its bytes. The module, `URL` and
 * `Response` are typed as `object` so that the package's types need no DOM lib; anything else is refused with
 * an `ArgumentTypeError`.
 */
export type WasmSource = object | string | ArrayBuffer | ArrayBufferView;

/**
 * Hands the library its WebAssembly module, for platforms that compile none from bytes (Cloudflare Workers,
 * Vercel Edge) or to fetch it apart from the JavaScript. Call it once per realm, before the first `create()` /
 * `fromBytes()` (or any other call that loads the module); without it, the module is compiled from the bytes the
 * package embeds. The package ships the module as `cuckoo-wasm/cuckoo-core.wasm` (dist/cuckoo-core.wasm), and the
 * reader's (`cuckoo-wasm/reader`) as `cuckoo-wasm/cuckoo-reader.wasm`: each entry takes its own. On Workers the
 * package's "workerd" entries hand it over by themselves.
 *
 * @param source - the module: a `WebAssembly.Module`; a `URL` or URL string, or a `Response` (or a promise of
 *   one), fetched and compiled (`WebAssembly.compileStreaming` where the platform has it and the response is
 *   `application/wasm`); or its bytes (`ArrayBuffer`, `Uint8Array`, any `ArrayBufferView`).
 * @returns a promise that resolves, to nothing, once the module is compiled and checked; filters made after
 *   that (also those made while it is pending) use it.
 * @throws (rejects with) {@link WasmInitError}: `'called-twice'` when `initWasm` was already called (and did not
 *   fail); `'already-loaded'` when the module was already loaded or is loading, by a call made before;
 *   `'not-this-module'` when `source` is not this release's module for this entry (another module, the other
 *   entry's, or another version's). {@link WasmLoadError} when it cannot be fetched or compiled (`reason` as for `create`);
 *   {@link ArgumentTypeError} for a `source` of none of the types above. After a rejection nothing is kept:
 *   `initWasm` may be called again.
 * @example
 * ```ts
 * // Vercel Edge (Next.js): the .wasm imported as a module, handed over before the first filter.
 * import wasm from 'cuckoo-wasm/cuckoo-core.wasm?module';
 * import { CuckooFilter, initWasm } from 'cuckoo-wasm';
 * await initWasm(wasm);
 * const filter = await CuckooFilter.fromBytes(bytes);
 *
 * // A page that serves cuckoo-core.wasm itself (fetched, and cached, apart from the script):
 * await initWasm(fetch('/static/cuckoo-core.wasm'));
 * ```
 */
export function initWasm(source: WasmSource): Promise<void> {
  if (handed) {
    return Promise.reject(
      new WasmInitError(`initWasm() was already called: call it once, before the first ${CUCKOO_FIRST_CALL}`, 'called-twice'),
    );
  }
  if (corePromise) {
    return Promise.reject(
      new WasmInitError(
        `the WebAssembly module is already loaded (or loading): call initWasm() before the first ${CUCKOO_FIRST_CALL}`,
        'already-loaded',
      ),
    );
  }
  const compiled = compileSource(source);
  handed = compiled;
  compiled.catch(() => {
    if (handed === compiled) handed = undefined;
  });
  return compiled.then(() => undefined);
}

/** `source` as a compiled module of this release, or a rejection with the error initWasm documents. */
async function compileSource(source: WasmSource): Promise<WebAssembly.Module> {
  if (typeof WebAssembly !== 'object' || WebAssembly === null) throw noWebAssembly();
  let module: WebAssembly.Module;
  if (isModule(source)) {
    module = source as WebAssembly.Module;
  } else if (isArrayBuffer(source as unknown) || ArrayBuffer.isView(source)) {
    module = await compile(() => WebAssembly.compile(source as BufferSource));
  } else if (
    typeof source === 'string' ||
    source instanceof URL ||
    (typeof Response === 'function' && source instanceof Response) ||
    typeof (source as PromiseLike<Response> | null)?.then === 'function'
  ) {
    module = await compileFetched(source as URL | string | Response | PromiseLike<Response>);
  } else {
    throw new ArgumentTypeError(`initWasm: not a WebAssembly.Module, URL, Response or bytes: ${source === null ? null : typeof source}`);
  }
  checkModule(module);
  return module;
}

/**
 * True for a WebAssembly.Module of any realm (a vm context's, an iframe's): customSections reads the internal
 * slot every Module has and throws a TypeError for anything else, look-alikes included.
 */
function isModule(value: unknown): boolean {
  try {
    WebAssembly.Module.customSections(value as WebAssembly.Module, ID_SECTION);
    return true;
  } catch {
    return false;
  }
}

/** The module a URL or response gives: streamed into the compiler where it can be, else from its bytes. */
async function compileFetched(source: URL | string | Response | PromiseLike<Response>): Promise<WebAssembly.Module> {
  let response: Response;
  try {
    response = typeof source === 'string' || source instanceof URL ? await fetch(source) : await source;
  } catch (e) {
    throw loadError(e);
  }
  if (typeof Response === 'function' && !(response instanceof Response)) throw new ArgumentTypeError('initWasm: the promise gave no Response');
  if (!response.ok) {
    throw loadError(`HTTP ${response.status} ${response.url}`);
  }
  const streaming = /^application\/wasm\b/i.test(response.headers.get('content-type') ?? '');
  if (streaming && typeof WebAssembly.compileStreaming === 'function') {
    return compile(() => WebAssembly.compileStreaming(response));
  }
  return compile(async () => WebAssembly.compile(await response.arrayBuffer()));
}

async function compile(how: () => Promise<WebAssembly.Module>): Promise<WebAssembly.Module> {
  try {
    return await how();
  } catch (e) {
    throw loadError(e);
  }
}

/** Throws WasmInitError 'not-this-module' unless `module` carries this release's id (scripts/build.mjs). */
function checkModule(module: WebAssembly.Module): void {
  const sections = WebAssembly.Module.customSections(module, ID_SECTION);
  const id = sections.length === 1 ? new TextDecoder().decode(sections[0]) : undefined;
  if (id === CUCKOO_WASM_ID) return;
  throw new WasmInitError(
    `initWasm: the module is ${id ? `cuckoo-wasm ${id}'s, this code ${CUCKOO_WASM_ID}'s` : "not cuckoo-wasm's"}: ` +
      `pass the installed package's cuckoo-wasm/${CUCKOO_WASM_FILE}`,
    'not-this-module',
  );
}

function describe(cause: unknown): string {
  return cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
}

function noWebAssembly(): WasmLoadError {
  return new WasmLoadError(
    'cuckoo-wasm needs WebAssembly, which this JavaScript engine does not provide ' +
      '(in Node.js, do not run with --jitless)',
    'no-webassembly',
  );
}

/** Turns whatever stopped the module from loading into a {@link WasmLoadError} that says what to do. */
function loadError(cause: unknown): WasmLoadError {
  const detail = describe(cause);
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
  // workerd (Cloudflare Workers) and Vercel Edge: "WebAssembly.instantiate(): Wasm code generation disallowed by embedder".
  if (/code generation disallowed/i.test(detail)) {
    return new WasmLoadError(
      `this platform compiles no WebAssembly from bytes: before the first ${CUCKOO_FIRST_CALL}, ` +
        `import wasm from 'cuckoo-wasm/${CUCKOO_WASM_FILE}' (Vercel Edge: '…/${CUCKOO_WASM_FILE}?module') and ` +
        `await initWasm(wasm); wrangler picks the "workerd" entry, which does it. (${detail})`,
      'compile-disallowed',
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
 * Instantiates the WebAssembly module once per realm (the one handed to
 * {@link initWasm}, else the build's default); later calls share it.
 * Settles promptly either way: if the module cannot be compiled, instantiated
 * or initialised, the promise rejects with a {@link WasmLoadError} and the next
 * call starts afresh.
 */
export function loadCore(): Promise<ReadCore> {
  corePromise ??= (async () => {
    if (typeof WebAssembly !== 'object' || WebAssembly === null) throw noWebAssembly();
    try {
      // The module handed to initWasm, else the build's default: the embedded bytes (no fetch, no file path, so
      // it works the same in Node (ESM and CJS), browsers, workers and bundlers), or on Workers the .wasm their
      // bundler imported as a module. The core checks the registry against the module's constants.
      return await instantiateCore(handed ?? defaultWasm());
    } catch (cause) {
      // An error initWasm's module already failed with is passed on as it is.
      throw cause instanceof WasmLoadError || cause instanceof WasmInitError ? cause : loadError(cause);
    }
  })();
  corePromise.catch(() => {
    corePromise = undefined;
  });
  return corePromise;
}

/** {@link loadCore} in the full entry's bundles, whose core is a {@link Core} (js/boundary/full-instance.ts). @internal */
export function loadFullCore(): Promise<Core> {
  return loadCore() as Promise<Core>;
}

/**
 * The raw boundary of this realm's module, for the test-only entry (js/testing.ts), with `handleOf` to read a
 * filter's handle and `prefixOf` its family's export prefix (js/registry.ts). @internal
 */
export async function rawBoundary<F>(
  handleOf: (filter: F) => Handle,
  prefixOf: (filter: F) => string,
): Promise<RawBoundary & { handleOf(filter: F): Handle; prefixOf(filter: F): string }> {
  return { ...(await loadFullCore()).testing(), handleOf, prefixOf };
}
