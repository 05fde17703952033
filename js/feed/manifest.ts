/**
 * The feed format (docs/FEED.md): the manifest's members and their checks, its DSSE envelope (encoding, the
 * pre-authentication encoding that is signed, verification with WebCrypto's Ed25519), and SHA-256. Shared by the
 * publisher (js/feed/publish.ts) and the client (js/feed/filter-feed.ts); runs in every realm (no Node.js module).
 */
import { FeedError } from '../common/errors.js';
import { FAMILIES } from '../registry.js';

/** The manifest's `format` (docs/FEED.md §3). */
export const FEED_FORMAT = 'cuckoo-wasm-feed/1';
/** The envelope's `payloadType` (docs/FEED.md §2). */
export const PAYLOAD_TYPE = 'application/vnd.cuckoo-wasm.feed+json';
/** The most bytes a client reads of `manifest.json`. */
export const MAX_MANIFEST_BYTES = 2 ** 20;
/** The most bytes a file of a feed may have (a filter or patch: wasm memory holds at most 1 GiB of one). */
export const MAX_FILE_BYTES = 2 ** 30;
/** A file name of the folder (docs/FEED.md §3). */
const PATH = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;
/** A list's name. */
const NAME = /^[A-Za-z0-9._-]{1,128}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** A file of the feed's folder (docs/FEED.md §3). */
export interface FeedFile {
  /** Its name in the folder, resolved against the manifest's URL. */
  readonly path: string;
  /** Its length in bytes. */
  readonly size: number;
  /** SHA-256 of its bytes, 64 lowercase hex digits. */
  readonly sha256: string;
}

/** A patch of the feed: from version `from` to the manifest's version. */
export interface FeedPatch extends FeedFile {
  /** The version whose filter it applies to. */
  readonly from: number;
}

/** A feed's manifest (docs/FEED.md §3). */
export interface FeedManifest {
  readonly format: typeof FEED_FORMAT;
  /** The list's name. */
  readonly name: string;
  /** This version's number: each published version is greater than the one before. */
  readonly version: number;
  /** The filter's class: 'CuckooFilter', 'BloomFilter', 'RedisCuckooFilter' or 'RedisBloomFilter'. */
  readonly family: string;
  /** When it was published (RFC 3339, UTC). */
  readonly published: string;
  /** The least time in seconds between two fetches of the manifest. */
  readonly pollSeconds: number;
  /** The current filter. */
  readonly full: FeedFile;
  /** True when no patch leads here: clients download `full`. */
  readonly fullOnly: boolean;
  /** Patches to this version, one per `from` at most. */
  readonly patches: readonly FeedPatch[];
}

/** A signature of an envelope (docs/FEED.md §2). */
export interface EnvelopeSignature {
  /** Base64 of the first 8 bytes of SHA-256 of the raw public key. */
  readonly keyid: string;
  /** Base64 of the 64-byte Ed25519 signature of the PAE. */
  readonly sig: string;
}

/** A parsed envelope: its payload's bytes, and its signatures as given. */
export interface Envelope {
  readonly payload: Uint8Array;
  readonly signatures: readonly EnvelopeSignature[];
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 with padding (RFC 4648 §4). */
export function toBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[n >> 18] + B64[(n >> 12) & 63] + (i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < bytes.length ? B64[n & 63] : '=');
  }
  return out;
}

/** The bytes of standard base64 with padding, or undefined if `text` is not that. */
export function fromBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  for (let i = 0, o = 0; i < text.length; i += 4) {
    let n = 0;
    for (let j = 0; j < 4; ++j) n = (n << 6) | (text[i + j] === '=' ? 0 : B64.indexOf(text[i + j]));
    if (o < out.length) out[o++] = n >> 16;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}

/** Lowercase hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** The realm's WebCrypto, or a FeedError('no-crypto'). @internal */
export function subtleCrypto(): SubtleCrypto {
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (subtle === undefined) {
    throw new FeedError(
      'this realm has no WebCrypto (crypto.subtle), which a feed needs for SHA-256 and signatures: serve the page over https or from localhost',
      'no-crypto',
    );
  }
  return subtle;
}

/** SHA-256 of `bytes`, as 64 lowercase hex digits (WebCrypto). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await subtleCrypto().digest('SHA-256', bytes as BufferSource)));
}

/** DSSE's pre-authentication encoding of a payload of {@link PAYLOAD_TYPE}: the bytes that are signed (docs/FEED.md §2). */
export function preAuthEncoding(payload: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(`DSSEv1 ${PAYLOAD_TYPE.length} ${PAYLOAD_TYPE} ${payload.length} `);
  const out = new Uint8Array(head.length + payload.length);
  out.set(head);
  out.set(payload, head.length);
  return out;
}

/** The key id of a raw 32-byte Ed25519 public key: base64 of the first 8 bytes of its SHA-256. */
export async function keyId(publicKey: Uint8Array): Promise<string> {
  return toBase64(new Uint8Array(await subtleCrypto().digest('SHA-256', publicKey as BufferSource)).subarray(0, 8));
}

/** The text of `manifest.json` for a manifest's payload bytes and its signatures (none for an unsigned feed). */
export function encodeEnvelope(payload: Uint8Array, signatures: readonly EnvelopeSignature[]): string {
  return JSON.stringify({ payloadType: PAYLOAD_TYPE, payload: toBase64(payload), signatures }) + '\n';
}

function invalid(what: string): FeedError {
  return new FeedError(`manifest.json is not a feed's manifest (docs/FEED.md): ${what}`, 'manifest-invalid');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The envelope in `text`, the body of `manifest.json`.
 * @throws FeedError('manifest-invalid') naming what is wrong.
 */
export function parseEnvelope(text: string): Envelope {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw invalid(`not JSON (${(e as Error).message})`);
  }
  if (!isRecord(value)) throw invalid('not a JSON object');
  if (value.payloadType !== PAYLOAD_TYPE) throw invalid(`its payloadType is not "${PAYLOAD_TYPE}"`);
  const payload = typeof value.payload === 'string' ? fromBase64(value.payload) : undefined;
  if (payload === undefined) throw invalid('its payload is not a base64 string');
  if (!Array.isArray(value.signatures)) throw invalid('its signatures is not an array');
  const signatures = value.signatures.map((s: unknown, i: number) => {
    if (!isRecord(s) || typeof s.sig !== 'string' || (s.keyid !== undefined && typeof s.keyid !== 'string')) {
      throw invalid(`signatures[${i}] is not { keyid, sig } strings`);
    }
    return { keyid: (s.keyid as string | undefined) ?? '', sig: s.sig };
  });
  return { payload, signatures };
}

/** The raw 32-byte Ed25519 public key given as base64 of its bytes (docs/FEED.md §2) or as the bytes, or undefined if it is not 32 bytes. */
export function publicKeyBytes(key: string | Uint8Array): Uint8Array | undefined {
  const bytes = typeof key === 'string' ? fromBase64(key.trim()) : key;
  return bytes !== undefined && bytes.length === 32 ? bytes : undefined;
}

/**
 * Whether one of `envelope`'s signatures verifies with the raw Ed25519 public key `publicKey` (docs/FEED.md §2).
 * @throws FeedError('unsigned') for an envelope with no signature; FeedError('bad-signature') when none verifies;
 *   FeedError('no-crypto') when WebCrypto has no Ed25519.
 */
export async function verifyEnvelope(envelope: Envelope, publicKey: Uint8Array): Promise<void> {
  if (envelope.signatures.length === 0) {
    throw new FeedError('the manifest is not signed, and the feed was opened with a publicKey: refused', 'unsigned');
  }
  const subtle = subtleCrypto();
  let key: CryptoKey;
  try {
    key = await subtle.importKey('raw', publicKey as BufferSource, { name: 'Ed25519' }, false, ['verify']);
  } catch (e) {
    throw new FeedError(`this realm's WebCrypto cannot verify Ed25519 signatures (${(e as Error).message})`, 'no-crypto', { cause: e });
  }
  const signed = preAuthEncoding(envelope.payload);
  for (const { sig } of envelope.signatures) {
    const bytes = fromBase64(sig);
    if (bytes === undefined || bytes.length !== 64) continue;
    let valid: boolean;
    try {
      valid = await subtle.verify({ name: 'Ed25519' }, key, bytes as BufferSource, signed as BufferSource);
    } catch (e) {
      throw new FeedError(`this realm's WebCrypto cannot verify Ed25519 signatures (${(e as Error)?.message})`, 'no-crypto', { cause: e });
    }
    if (valid) return;
  }
  throw new FeedError('no signature of the manifest verifies with the feed\'s publicKey: refused', 'bad-signature');
}

function integer(v: unknown, what: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw invalid(`${what} is not an integer from ${min} to ${max}`);
  return v;
}

function file(v: unknown, what: string): FeedFile {
  if (!isRecord(v)) throw invalid(`${what} is not an object`);
  if (typeof v.path !== 'string' || !PATH.test(v.path)) throw invalid(`${what}.path is not a file name of the folder (A-Z a-z 0-9 . _ -, no leading .)`);
  if (typeof v.sha256 !== 'string' || !SHA256.test(v.sha256)) throw invalid(`${what}.sha256 is not 64 lowercase hex digits`);
  return { path: v.path, size: integer(v.size, `${what}.size`, 0, MAX_FILE_BYTES), sha256: v.sha256 };
}

/**
 * The manifest in a (verified, when the feed has a key) payload.
 * @throws FeedError('manifest-invalid') naming the member that is wrong.
 */
export function parseManifest(payload: Uint8Array): FeedManifest {
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch (e) {
    throw invalid(`its payload is not UTF-8 JSON (${(e as Error).message})`);
  }
  if (!isRecord(v)) throw invalid('its payload is not a JSON object');
  if (v.format !== FEED_FORMAT) throw invalid(`its format is not "${FEED_FORMAT}"`);
  if (typeof v.name !== 'string' || !NAME.test(v.name)) throw invalid('name is not 1 to 128 characters of A-Z a-z 0-9 . _ -');
  const version = integer(v.version, 'version', 1, Number.MAX_SAFE_INTEGER);
  if (typeof v.family !== 'string' || !FAMILIES.some((f) => f.className === v.family)) {
    throw invalid(`family is not one of ${FAMILIES.map((f) => f.className).join(', ')}`);
  }
  if (typeof v.published !== 'string' || Number.isNaN(Date.parse(v.published))) throw invalid('published is not an RFC 3339 time');
  const pollSeconds = integer(v.pollSeconds, 'pollSeconds', 1, 2 ** 31 - 1);
  if (typeof v.fullOnly !== 'boolean') throw invalid('fullOnly is not true or false');
  if (!Array.isArray(v.patches)) throw invalid('patches is not an array');
  const seen = new Set<number>();
  const patches = v.patches.map((p: unknown, i: number): FeedPatch => {
    const f = file(p, `patches[${i}]`);
    const from = integer((p as Record<string, unknown>).from, `patches[${i}].from`, 0, version - 1);
    if (seen.has(from)) throw invalid(`two patches are from version ${from}`);
    seen.add(from);
    return { ...f, from };
  });
  if (v.fullOnly && patches.length > 0) throw invalid('fullOnly is true and patches is not empty');
  return {
    format: FEED_FORMAT,
    name: v.name,
    version,
    family: v.family,
    published: v.published,
    pollSeconds,
    full: file(v.full, 'full'),
    fullOnly: v.fullOnly,
    patches,
  };
}
