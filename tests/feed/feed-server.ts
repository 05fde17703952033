// The server side of the feed-following tests (the client side is follow-scenario.mjs, which every realm runs):
// 30 versions of a real list published once per test file with the real publisher (publish() of the Node.js
// build, signed, keep 5), each version's served folder kept as the publisher left it; and a server on 127.0.0.1
// that serves one of those folders at /feed/ (the version the current step names, with the step's fault), each
// version's entries at /entries/V.txt (outside the feed's folder, which holds no entries), the steps at
// /control/next, the clients' reports at /control/report, and the realm's own files (pages, bundles) under the
// strict CSP of the other browser tests.
import { generateKeyPairSync, sign } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { publish } from 'cuckoo-wasm';
import { encodeEnvelope, parseEnvelope, preAuthEncoding, toBase64 } from '../../js/feed/manifest';

export const root = join(__dirname, '..', '..');
export const scenarioFile = join(__dirname, 'follow-scenario.mjs');
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
export const VERSIONS = 30;

/** A published version: its served folder, its entries and its manifest's full.sha256. */
export interface FeedVersion {
  dir: string;
  entries: string[];
  sha256: string;
}

/** The 30 versions, the public key clients are given (base64 of 32 bytes), and how long publishing took. */
export interface Published {
  versions: FeedVersion[]; // index = version
  publicKey: string;
  ms: number;
}

/** A seeded 32-bit generator (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/**
 * Publishes 30 versions of the first `size` host names of examples/data/blocklist-sample.txt into `dir` with
 * publish() (`urls`: entries stored as their URL expressions, as a browser's blocklist is), each version removing and
 * adding 1 to 40 seeded entries; signed with a fresh Ed25519 key; `keep` 5. Version V's folder is copied to
 * dir/v/V after its run, as the publisher left it.
 */
export async function publishVersions(dir: string, size = 3000): Promise<Published> {
  const started = Date.now();
  const sample = readFileSync(join(root, 'examples/data/blocklist-sample.txt'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  const rand = seeded(30);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keyFile = join(dir, 'feed.key');
  writeFileSync(keyFile, privateKey.export({ format: 'pem', type: 'pkcs8' }));
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const list = join(dir, 'list.txt');
  const out = join(dir, 'out');
  const state = join(dir, 'state');
  let entries = sample.slice(0, size);
  let next = size;
  const versions: FeedVersion[] = [];
  for (let v = 1; v <= VERSIONS; ++v) {
    if (v > 1) {
      const removals = 1 + (rand() % 40);
      for (let k = 0; k < removals; ++k) entries.splice(rand() % entries.length, 1);
      const adds = 1 + (rand() % 40);
      entries = [...entries, ...sample.slice(next, next + adds)];
      next += adds;
    }
    writeFileSync(list, entries.join('\n') + '\n');
    const r = await publish({ list, out, state, name: 'blocklist', urls: true, keep: 5, pollSeconds: 60, signingKey: keyFile, now: new Date(Date.UTC(2026, 11, 7, v)) });
    if (!r.published || r.version !== v) throw new Error(`publish gave ${JSON.stringify({ published: r.published, version: r.version })} for version ${v}`);
    const snapshot = join(dir, 'v', String(v));
    cpSync(out, snapshot, { recursive: true });
    versions[v] = { dir: snapshot, entries: [...entries], sha256: r.full.sha256 };
  }
  return { versions, publicKey: toBase64(new Uint8Array(raw)), ms: Date.now() - started };
}

/**
 * What the server does to the feed's files during a step:
 *   cut         every .bin is answered with its Content-Length but only half its bytes, then the connection closed
 *   flip-patch  every patch is served with one byte flipped
 *   no-patches  patches answer 404 (as if deleted: the manifest still names them)
 *   unsigned    manifest.json without its signatures
 *   wrong-key   manifest.json signed by another key instead
 */
export type Fault = 'cut' | 'flip-patch' | 'no-patches' | 'unsigned' | 'wrong-key';

/** A step of a plan: the client's action, what is served meanwhile, and what the client must hold after. */
export interface PlanStep {
  action: 'open' | 'update' | 'reload' | 'end';
  /** open: the store's database name. */
  db?: string;
  /** open: give the feed the publisher's key (default true). */
  signed?: boolean;
  serve?: { version: number; fault?: Fault };
  expect?: { version: number; via?: string; reason?: string | string[]; patchReason?: string | string[]; files?: number };
}

/** A client's report of a step (follow-scenario.mjs), with what the server checked: .bin files served, `serverFailures`. */
export interface Report {
  id: number;
  action: string;
  version: number | null;
  via: string | null;
  reason: string | null;
  patchReason: string | null;
  falseNegatives: number;
  urlFalseNegatives: number;
  entries: number;
  sha256: string;
  ms: number;
  failures: string[];
  ed25519: boolean;
  realm: string;
  step: PlanStep;
  files: number;
  serverFailures: string[];
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

/** The feed's server: start() it, give it a plan, point a client at `control`, read `reports`. */
export class FeedTestServer {
  readonly reports: Report[] = [];
  /** Every path asked for, in order. */
  readonly requests: string[] = [];
  private plan: PlanStep[] = [];
  private stepId = 0;
  private current: PlanStep | undefined;
  private serving: { version: number; fault?: Fault } = { version: 1 };
  private files = 0;
  private readonly otherKey = generateKeyPairSync('ed25519').privateKey;
  private waiters: (() => void)[] = [];
  private server!: Server;
  origin = '';

  private constructor(
    private readonly published: Published,
    private readonly statics: Record<string, string>,
  ) {}

  /** Serves `published` and `statics` (URL path → file, each under the strict CSP) on 127.0.0.1. */
  static async start(published: Published, statics: Record<string, string> = {}): Promise<FeedTestServer> {
    const self = new FeedTestServer(published, statics);
    self.server = createServer((req, res) => {
      self.handle(req.method ?? 'GET', new URL(req.url ?? '/', 'http://x'), req, res).catch((e) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(e?.stack ?? e));
      });
    });
    await new Promise<void>((resolve) => self.server.listen(0, '127.0.0.1', resolve));
    self.origin = `http://127.0.0.1:${(self.server.address() as AddressInfo).port}`;
    return self;
  }

  /** The URL a client is given: its feed is at ../feed/manifest.json. */
  get control(): string {
    return `${this.origin}/control/`;
  }

  /** Appends steps to the plan. */
  add(steps: PlanStep[]): void {
    this.plan.push(...steps);
  }

  /** Resolves when the plan is used up and the last step reported (or rejects after `timeoutMs`). */
  async finished(timeoutMs = 60000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.plan.length > 0 || this.current !== undefined) {
      if (Date.now() > deadline) throw new Error(`the client did not finish the plan within ${timeoutMs} ms: ${this.plan.length} steps left, ${this.reports.length} reported`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 200);
        this.waiters.push(() => (clearTimeout(t), resolve()));
      });
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private async handle(method: string, url: URL, req: import('node:http').IncomingMessage, res: ServerResponse): Promise<void> {
    const path = decodeURIComponent(url.pathname);
    this.requests.push(path);
    const cors = { 'access-control-allow-origin': '*' };
    if (path === '/control/next') {
      const step = this.plan.shift() ?? { action: 'end' };
      this.current = step.action === 'end' || step.action === 'reload' ? undefined : step;
      if (step.serve) this.serving = step.serve;
      this.files = 0;
      const v = step.expect?.version;
      const body =
        step.action === 'end' || step.action === 'reload'
          ? { action: step.action }
          : {
              id: ++this.stepId,
              action: step.action,
              db: step.db,
              key: step.action === 'open' && step.signed !== false ? this.published.publicKey : undefined,
              expect: { ...step.expect, sha256: this.published.versions[v!].sha256, entries: `/entries/${v}.txt` },
            };
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', ...cors }).end(JSON.stringify(body));
      if (this.current === undefined) this.wake();
      return;
    }
    if (path === '/control/report' && method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const report = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Report;
      const step = this.current!;
      const serverFailures: string[] = [];
      if (step.expect?.files !== undefined && this.files !== step.expect.files) serverFailures.push(`${this.files} .bin files served, expected ${step.expect.files}`);
      this.reports.push({ ...report, realm: url.searchParams.get('realm') ?? '', step, files: this.files, serverFailures });
      this.current = undefined;
      res.writeHead(200, { 'content-type': 'application/json', ...cors }).end('{}');
      this.wake();
      return;
    }
    const entries = /^\/entries\/(\d+)\.txt$/.exec(path);
    if (entries) {
      const v = this.published.versions[Number(entries[1])];
      if (!v) return void res.writeHead(404, cors).end();
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', ...cors }).end(v.entries.join('\n') + '\n');
      return;
    }
    if (path.startsWith('/feed/')) return this.feedFile(path.slice('/feed/'.length), res, cors);
    const file = this.statics[path];
    if (file !== undefined && existsSync(file)) {
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store', 'content-security-policy': STRICT_CSP, ...cors });
      res.end(readFileSync(file));
      return;
    }
    if (path === '/favicon.ico') return void res.writeHead(204).end();
    res.writeHead(404, { 'content-type': 'text/plain', ...cors }).end(`not found: ${path}`);
  }

  private feedFile(name: string, res: ServerResponse, cors: Record<string, string>): void {
    const { version, fault } = this.serving;
    const dir = this.published.versions[version].dir;
    if (!/^[A-Za-z0-9._-]+$/.test(name) || !existsSync(join(dir, name))) return void res.writeHead(404, cors).end();
    let body: Buffer = readFileSync(join(dir, name));
    const isPatch = name.startsWith('patch-');
    if (name.endsWith('.bin')) this.files++;
    if (name === 'manifest.json' && (fault === 'unsigned' || fault === 'wrong-key')) {
      const envelope = parseEnvelope(body.toString('utf8'));
      const payload = envelope.payload;
      // keyid is only a hint (docs/FEED.md §2): the publisher's is kept, as an attacker would.
      const keyid = envelope.signatures[0]?.keyid ?? '';
      const signatures = fault === 'unsigned' ? [] : [{ keyid, sig: toBase64(new Uint8Array(sign(null, preAuthEncoding(payload), this.otherKey))) }];
      body = Buffer.from(encodeEnvelope(payload, signatures));
    }
    if (isPatch && fault === 'no-patches') return void res.writeHead(404, cors).end();
    if (isPatch && fault === 'flip-patch') {
      body = Buffer.from(body);
      body[body.length >> 1] ^= 0x10;
    }
    // no-store, not the immutable caching docs/FEED.md §1 allows for content-named files: a browser's cache would
    // otherwise answer later steps itself (no download to count, no fault to apply; a flipped patch kept for feed B).
    const headers = { 'content-length': String(body.length), 'cache-control': 'no-store', ...cors };
    if (name.endsWith('.bin') && fault === 'cut') {
      res.writeHead(200, headers);
      res.write(body.subarray(0, body.length >> 1), () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    }
    res.writeHead(200, headers).end(body);
  }
}

/**
 * The plan every realm follows. Feed A: version 1 by the full file, 2..20 each by patch; then at 20, with 21 and
 * 22 served: a download cut short (nothing changes), a flipped byte in the patch (the full file instead), an unsigned
 * manifest and one signed by another key (refused), version 18 again (replay), patches gone (the full file); then
 * skipped versions: 22 → 24 by patch, 24 → 30 by the full file (keep 5: no patch from 24), 30 again (nothing to do).
 * Feed B (another store): every version 1..30 by the full file (patches gone). Then feed A opened again on its store,
 * version 29 served: it resumes at 30 from the store, downloads nothing and refuses the replay. With `reload`, the
 * client is then started again (a page reloaded) and opens feed A twice more: 30 served (resumes, nothing to do), 27
 * served (replay refused).
 *
 * `signed` false gives no key to the clients (and drops the two signature faults): for a realm without Ed25519.
 */
export function standardPlan({ tag, reload = false, signed = true }: { tag: string; reload?: boolean; signed?: boolean }): PlanStep[] {
  const A = `feed-a-${tag}`;
  const B = `feed-b-${tag}`;
  const walk = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const steps: PlanStep[] = [{ action: 'open', db: A, signed, serve: { version: 1 }, expect: { version: 1, via: 'full' } }];
  for (const v of walk(2, 20)) steps.push({ action: 'update', serve: { version: v }, expect: { version: v, via: 'patch', files: 1 } });
  steps.push(
    { action: 'update', serve: { version: 21, fault: 'cut' }, expect: { version: 20, reason: ['network', 'size-mismatch'] } },
    { action: 'update', serve: { version: 21, fault: 'flip-patch' }, expect: { version: 21, via: 'full', patchReason: 'hash-mismatch', files: 2 } },
  );
  if (signed) {
    steps.push(
      { action: 'update', serve: { version: 22, fault: 'unsigned' }, expect: { version: 21, reason: 'unsigned', files: 0 } },
      { action: 'update', serve: { version: 22, fault: 'wrong-key' }, expect: { version: 21, reason: 'bad-signature', files: 0 } },
    );
  }
  steps.push(
    { action: 'update', serve: { version: 18 }, expect: { version: 21, reason: 'replay', files: 0 } },
    { action: 'update', serve: { version: 22, fault: 'no-patches' }, expect: { version: 22, via: 'full', patchReason: 'http-status', files: 2 } },
    { action: 'update', serve: { version: 24 }, expect: { version: 24, via: 'patch', files: 1 } },
    { action: 'update', serve: { version: 30 }, expect: { version: 30, via: 'full', files: 1 } },
    { action: 'update', serve: { version: 30 }, expect: { version: 30, via: 'none', files: 0 } },
    { action: 'open', db: B, signed, serve: { version: 1, fault: 'no-patches' }, expect: { version: 1, via: 'full', files: 1 } },
  );
  for (const v of walk(2, 30)) {
    steps.push({ action: 'update', serve: { version: v, fault: 'no-patches' }, expect: { version: v, via: 'full', patchReason: 'http-status', files: 2 } });
  }
  steps.push({ action: 'open', db: A, signed, serve: { version: 29 }, expect: { version: 30, via: 'stored', reason: 'replay', files: 0 } });
  if (reload) {
    steps.push(
      { action: 'reload' },
      { action: 'open', db: A, signed, serve: { version: 30 }, expect: { version: 30, via: 'stored', files: 0 } },
      { action: 'open', db: A, signed, serve: { version: 27 }, expect: { version: 30, via: 'stored', reason: 'replay', files: 0 } },
    );
  }
  steps.push({ action: 'end' });
  return steps;
}

/** One line per report that failed, for the test's message; empty when all passed. */
export function failuresOf(reports: Report[]): string[] {
  return reports
    .filter((r) => r.failures.length > 0 || r.serverFailures.length > 0)
    .map((r) => `${r.realm} step ${r.id} (${r.action} serving ${JSON.stringify(r.step.serve)}): ${[...r.failures, ...r.serverFailures].join('; ')}`);
}

/** A summary of a realm's reports: steps, by how many by patch / full / stored / refused, false negatives, ms. */
export function summaryOf(reports: Report[]): { steps: number; patch: number; full: number; refused: number; stored: number; falseNegatives: number; ms: number; ed25519: boolean } {
  return {
    steps: reports.length,
    patch: reports.filter((r) => r.via === 'patch').length,
    full: reports.filter((r) => r.via === 'full').length,
    stored: reports.filter((r) => r.via === 'stored').length,
    refused: reports.filter((r) => r.reason !== null).length,
    falseNegatives: reports.reduce((n, r) => n + (r.falseNegatives ?? 0) + (r.urlFalseNegatives ?? 0), 0),
    ms: reports.reduce((n, r) => n + r.ms, 0),
    ed25519: reports.every((r) => r.ed25519),
  };
}
