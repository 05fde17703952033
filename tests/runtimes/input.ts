// The input of the runtime scenario (tests/runtimes/scenario.mjs), made on Node.js by the package's CLI
// (dist/cli.cjs) from the repo's sample lists, the way a list's publisher makes it:
//   version 1  the extension example's list: examples/data/blocklist-sample.txt (hosts) and
//              phishing-urls-sample.txt (URLs), `cuckoo-wasm build --urls --url-fpr 0.001 --capacity N`
//   version 2  the same list without every 400th entry and with 60 new ones, built the same way
//   patch      `cuckoo-wasm diff v1 v2`; patchedBytes: `cuckoo-wasm patch v1 patch` (checked equal to v2)
// plus URLs that must be found (listed in both versions; added in version 2), benign URLs (hosts of
// examples/data/benign-opendns.txt on neither list) and hostile bytes. Written once per run as
// build/runtimes/input.json (inputToJson's form) and reused while it is newer than dist/cli.cjs, the lists and this file.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const root = join(__dirname, '..', '..');
/** Where the runtime tests keep what they make (build/ is not committed). */
export const workDir = join(root, 'build', 'runtimes');
/** The scenario's input in its JSON form. */
export const inputPath = join(workDir, 'input.json');
export const scenarioPath = join(__dirname, 'scenario.mjs');

const cli = join(root, 'dist', 'cli.cjs');
const lists = ['blocklist-sample.txt', 'phishing-urls-sample.txt', 'benign-opendns.txt'].map((f) => join(root, 'examples/data', f));

/** The input with its byte fields as Uint8Arrays (scenario.mjs documents each field). */
export interface ScenarioInput {
  filterBytes: Uint8Array;
  patch: Uint8Array;
  patchedBytes: Uint8Array;
  listed: string[];
  benign: string[];
  hostile: Uint8Array[];
  added: string[];
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s !== '' && !s.startsWith('#'));
}

function runCli(args: string[]): void {
  execFileSync(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
}

/**
 * A URL that an entry lists: a host's site or a page of it (not under www.: a lookup tries the exact host and
 * suffixes of its last 5 labels only, so www. before a host of 5 or more labels is another site), or the page a
 * URL entry names.
 */
function urlOf(entry: string, i: number): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry)) return entry;
  return i % 2 === 0 ? `https://${entry}/` : `http://${entry}/some/page.html?q=${i}#top`;
}

/** Makes the input with the CLI and writes build/runtimes/input.json (also returns it). */
export function makeScenarioInput(): ScenarioInput {
  const dir = join(workDir, 'input');
  mkdirSync(dir, { recursive: true });
  const [hosts, phishing, benignHosts] = lists.map(lines);
  const v1 = [...hosts, ...phishing];
  const removed = new Set(v1.filter((_, i) => i % 400 === 17));
  const added = [
    ...Array.from({ length: 30 }, (_, i) => `added-${i}.runtime-scenario.example`),
    ...Array.from({ length: 30 }, (_, i) => `http://runtime-scenario.example/added/${i}/login.php?id=${i}`),
  ];
  const v2 = [...v1.filter((e) => !removed.has(e)), ...added];
  const capacity = String(v1.length + 1000);
  writeFileSync(join(dir, 'v1.txt'), v1.join('\n') + '\n');
  writeFileSync(join(dir, 'v2.txt'), v2.join('\n') + '\n');
  for (const v of ['v1', 'v2']) {
    runCli(['build', '--urls', join(dir, `${v}.txt`), '-o', join(dir, `${v}.cuckoo`), '--url-fpr', '0.001', '--capacity', capacity]);
  }
  runCli(['diff', join(dir, 'v1.cuckoo'), join(dir, 'v2.cuckoo'), '-o', join(dir, 'v1-2.ckpt')]);
  runCli(['patch', join(dir, 'v1.cuckoo'), join(dir, 'v1-2.ckpt'), '-o', join(dir, 'v2-patched.cuckoo')]);
  const read = (f: string) => new Uint8Array(readFileSync(join(dir, f)));
  const filterBytes = read('v1.cuckoo');
  const patchedBytes = read('v2-patched.cuckoo');
  if (!Buffer.from(patchedBytes).equals(Buffer.from(read('v2.cuckoo')))) {
    throw new Error('cuckoo-wasm patch v1 (diff v1 v2) did not give v2 byte for byte');
  }

  // 1,500 URLs of entries in both versions (hosts and pages), 1,500 benign ones.
  const kept = v1.filter((e) => !removed.has(e));
  const listed = kept.filter((_, i) => i % Math.floor(kept.length / 1500) === 0).slice(0, 1500).map(urlOf);
  const listedHosts = new Set(hosts);
  const benign = benignHosts
    .filter((h) => !listedHosts.has(h))
    .filter((_, i) => i % 7 === 0)
    .slice(0, 1500)
    .map((h) => `https://${h}/`);

  // Hostile bytes: a flipped byte in the table (the checksum catches it), a cut header, and 64 pseudo-random bytes.
  const flipped = filterBytes.slice();
  flipped[flipped.length >> 1] ^= 0x40;
  let x = 0x9e3779b9;
  const noise = Uint8Array.from({ length: 64 }, () => ((x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 1) >>> 24) & 0xff);
  const hostile = [flipped, filterBytes.slice(0, 10), noise];

  const input: ScenarioInput = {
    filterBytes,
    patch: read('v1-2.ckpt'),
    patchedBytes,
    listed,
    benign,
    hostile,
    added: added.map((e, i) => urlOf(e, i)),
  };
  writeFileSync(inputPath, inputToJson(input));
  return input;
}

/** inputToJson of scenario.mjs, in Node.js terms (scenario.mjs is an ES module, which Jest's CommonJS cannot load). */
export function inputToJson(input: ScenarioInput): string {
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  return JSON.stringify({
    ...input,
    filterBytes: b64(input.filterBytes),
    patch: b64(input.patch),
    patchedBytes: b64(input.patchedBytes),
    hostile: input.hostile.map(b64),
  });
}

/** build/runtimes/input.json, made now unless it is newer than dist/cli.cjs, the lists and this file; returns its path. */
export function scenarioInputFile(): string {
  const mtime = (p: string) => statSync(p).mtimeMs;
  const fresh = existsSync(inputPath) && [cli, ...lists, __filename].every((p) => mtime(p) < mtime(inputPath));
  if (!fresh) makeScenarioInput();
  return inputPath;
}
