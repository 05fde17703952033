/**
 * The module's default source in every build but the Workers one: the .wasm bytes the bundle embeds
 * (scripts/build.mjs), compiled by js/boundary/load.ts when no module was handed to `initWasm`.
 */
import wasmEmbedded from 'cuckoo-core-wasm';

/** Where CUCKOO_WASM_DEFLATED: the .wasm's raw DEFLATE stream in base64, declared on the bundle's first line (scripts/build.mjs). */
declare const CUCKOO_WASM_DEFLATE_BASE64: string;

/** Node.js's zlib, where the realm is Node.js 20.16+ / 22.3+ (a call, not an import: bundlers see none). */
type Zlib = { inflateRawSync(data: Uint8Array): Uint8Array };
const nodeProcess = (globalThis as { process?: { getBuiltinModule?: (id: string) => Zlib | undefined; versions?: { node?: string } } }).process;
/**
 * The realm's own base64 decoders, each some ten times faster than fromBase64's first run: `Uint8Array.fromBase64`
 * (Chromium 140+, Firefox 133+, Safari 18.2+, Node.js 25+, Deno, Bun), else Node.js's Buffer (Node.js 20 to 24;
 * not a page's Buffer shim, whose base64 a bundler may not have given it).
 */
const nativeFromBase64 = (Uint8Array as { fromBase64?: (text: string) => Uint8Array<ArrayBuffer> }).fromBase64;
const nodeBuffer = nodeProcess?.versions?.node
  ? (globalThis as { Buffer?: { from(text: string, encoding: 'base64'): Uint8Array<ArrayBuffer> } }).Buffer
  : undefined;

/**
 * The .wasm bytes: as the bundle embeds them in the Node.js build (dist/node.*),
 * else inflated from the raw DEFLATE stream (RFC 1951) the bundle embeds in
 * base64: by
 * Node.js's zlib where there is one (a few times faster there than its
 * DecompressionStream), else by the realm's DecompressionStream('deflate-raw'),
 * which every runtime the package supports has (Node.js 18+, Chromium 80+,
 * Firefox 113+, Safari 16.4+, Deno, Bun, workerd).
 */
export default async function defaultWasm(): Promise<Uint8Array | WebAssembly.Module> {
  if (!CUCKOO_WASM_DEFLATED) return wasmEmbedded;
  const deflated =
    nativeFromBase64?.(CUCKOO_WASM_DEFLATE_BASE64) ??
    nodeBuffer?.from(CUCKOO_WASM_DEFLATE_BASE64, 'base64') ??
    fromBase64(CUCKOO_WASM_DEFLATE_BASE64);
  const zlib = nodeProcess?.getBuiltinModule?.('zlib');
  if (zlib) return zlib.inflateRawSync(deflated);
  // The stream alone (no Blob or Response): a realm needs nothing else to load the module.
  const stream = new DecompressionStream('deflate-raw');
  const writer = stream.writable.getWriter();
  // A failure shows in the reads below; these promises only settle with it.
  writer.write(deflated).catch(() => {});
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
}

/**
 * `text`, base64 with padding (RFC 4648 §4), as bytes. By hand rather than by atob, which a realm need not have
 * (a vm context has only what it is given). A Uint8Array ignores the writes past its end, which the padding's
 * digits ('=', taken as 0) make.
 */
function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  // Each digit's value by its character's code: A-Z, a-z, 0-9, '+' (43), '/' (47).
  const digit = new Uint8Array(128);
  for (let i = 0; i < 64; i++) digit[i < 26 ? i + 65 : i < 52 ? i + 71 : i < 62 ? i - 4 : i * 4 - 205] = i;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const bytes = new Uint8Array((text.length / 4) * 3 - padding);
  for (let i = 0, j = 0; i < text.length; i += 4, j += 3) {
    const n =
      (digit[text.charCodeAt(i)] << 18) | (digit[text.charCodeAt(i + 1)] << 12) | (digit[text.charCodeAt(i + 2)] << 6) | digit[text.charCodeAt(i + 3)];
    bytes[j] = n >> 16;
    bytes[j + 1] = n >> 8;
    bytes[j + 2] = n;
  }
  return bytes;
}
