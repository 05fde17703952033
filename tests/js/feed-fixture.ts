// A small feed publisher for the FilterFeed tests (docs/FEED.md §1-§3), over the format's own functions
// (js/feed/manifest.ts), the package's diffBytes and node:crypto's Ed25519; to be replaced by `cuckoo-wasm publish`.
// And a static file server on 127.0.0.1 (an ephemeral port) over the feed's folder, with a hook for faults.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { diffBytes } from 'cuckoo-wasm';
import { FEED_FORMAT, encodeEnvelope, keyId, preAuthEncoding, sha256Hex, toBase64 } from '../../js/feed/manifest';

/** An Ed25519 key pair: the private key, and the public key as a client takes it (base64 of its 32 raw bytes). */
export interface FeedKey {
  privateKey: KeyObject;
  publicKey: string;
  raw: Uint8Array;
}

export function feedKey(): FeedKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));
  return { privateKey, publicKey: toBase64(raw), raw };
}

/** The envelope of a manifest object, signed by each of `keys`. */
export async function envelopeOf(manifest: object, keys: readonly FeedKey[]): Promise<string> {
  const payload = new TextEncoder().encode(JSON.stringify(manifest));
  const signatures = await Promise.all(
    keys.map(async (k) => ({ keyid: await keyId(k.raw), sig: toBase64(new Uint8Array(sign(null, preAuthEncoding(payload), k.privateKey))) })),
  );
  return encodeEnvelope(payload, signatures);
}

/** A feed's folder and what was published to it. */
export class FeedPublisher {
  /** Each version's filter bytes. */
  readonly filters = new Map<number, Uint8Array>();
  /** Each version's manifest.json text. */
  readonly envelopes = new Map<number, string>();
  /** Each version's manifest. */
  readonly manifests = new Map<number, Record<string, any>>();

  constructor(
    readonly dir: string,
    readonly name: string,
    readonly family: string,
    readonly key?: FeedKey,
    readonly pollSeconds = 60,
  ) {}

  /** Writes `bytes` as `version`: its full file, a patch from each of `from` (by default the 3 versions before), the manifest last. */
  async publish(version: number, bytes: Uint8Array, { from, fullOnly = false }: { from?: number[]; fullOnly?: boolean } = {}): Promise<Record<string, any>> {
    const fullSha = await sha256Hex(bytes);
    const full = { path: `full-${fullSha}.bin`, size: bytes.length, sha256: fullSha };
    writeFileSync(join(this.dir, full.path), bytes);
    const froms = fullOnly ? [] : (from ?? [...this.filters.keys()].filter((v) => v < version).slice(-3));
    const patches = [];
    for (const f of froms) {
      const patch = await diffBytes(this.filters.get(f)!, bytes);
      const sha = await sha256Hex(patch);
      const p = { from: f, path: `patch-${f}-${sha}.bin`, size: patch.length, sha256: sha };
      writeFileSync(join(this.dir, p.path), patch);
      patches.push(p);
    }
    const manifest = {
      format: FEED_FORMAT,
      name: this.name,
      version,
      family: this.family,
      published: new Date(Date.UTC(2026, 11, 7, version)).toISOString(),
      pollSeconds: this.pollSeconds,
      full,
      fullOnly,
      patches,
    };
    this.filters.set(version, bytes);
    this.manifests.set(version, manifest);
    this.envelopes.set(version, await envelopeOf(manifest, this.key ? [this.key] : []));
    this.writeManifest(this.envelopes.get(version)!);
    return manifest;
  }

  /** Writes `text` as manifest.json (a temporary file renamed over it). */
  writeManifest(text: string): void {
    writeFileSync(join(this.dir, 'manifest.json.tmp'), text);
    renameSync(join(this.dir, 'manifest.json.tmp'), join(this.dir, 'manifest.json'));
  }

  /** A file of the folder. */
  read(path: string): Buffer {
    return readFileSync(join(this.dir, path));
  }
}

/** A fault: answers the request itself and returns true, or returns false to let the server serve the file. */
export type Fault = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

/** A static server of `dir` on 127.0.0.1; `fault` may be set at any time. `requests` lists the paths asked for. */
export class FeedServer {
  fault: Fault | undefined;
  readonly requests: string[] = [];
  private constructor(
    private readonly server: Server,
    readonly base: string,
  ) {}

  static async start(dir: string): Promise<FeedServer> {
    let self: FeedServer | undefined;
    const server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url!, 'http://x').pathname.slice(1));
      self!.requests.push(path);
      if (self!.fault?.(req, res, path)) return;
      let body: Buffer;
      try {
        body = readFileSync(join(dir, path));
      } catch {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-length': body.length, 'cache-control': path === 'manifest.json' ? 'no-cache' : 'public, max-age=31536000, immutable' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new FeedServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return self;
  }

  get manifestUrl(): string {
    return `${this.base}manifest.json`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A seeded generator of 32-bit integers (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}
