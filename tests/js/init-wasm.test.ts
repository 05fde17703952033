// initWasm: the WebAssembly module handed to the library instead of compiled from the embedded bytes, as a
// WebAssembly.Module, bytes, a URL or a Response; and the typed errors for a second call, a call after the module
// loaded, a module that is not this release's, and a platform that compiles no WebAssembly from bytes. Each case
// runs in a fresh Node.js process (the module is loaded once per realm) with a time limit.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const dist = join(root, 'dist');
const wasmFile = join(dist, 'cuckoo-core.wasm');

/** Runs an ES-module script in a fresh Node process (LIB: dist/index.mjs, WASM: dist/cuckoo-core.wasm); returns its parsed last line. */
function run(script: string, lib = 'index.mjs'): Record<string, unknown> {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', prelude + script], {
    encoding: 'utf8',
    timeout: 20000,
    env: { ...process.env, LIB: join(dist, lib), WASM: wasmFile },
  });
  if (r.error) throw r.error; // ETIMEDOUT: something never settled
  const last = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !last.startsWith('{')) throw new Error(`child exited ${r.status} (${r.signal}):\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(last);
}

const prelude = `
import { readFileSync } from 'node:fs';
const lib = await import(process.env.LIB);
const { CuckooFilter, initWasm, WasmInitError, WasmLoadError } = lib;
const wasmBytes = new Uint8Array(readFileSync(process.env.WASM));
const describe = (e) => ({ name: e.name, code: e.code, reason: e.reason, message: e.message,
  isInitError: e instanceof WasmInitError, isLoadError: e instanceof WasmLoadError });
const settle = async (p) => { try { await p; return { ok: true }; } catch (e) { return describe(e); } };
/** A filter's bytes made with the module now loaded, to compare with the default's. */
const sample = async () => { const f = await CuckooFilter.create({ capacity: 1000, falsePositiveRate: 0.01 });
  f.addAll(['a.example', 'b.example', 'evil.example']); const b = Array.from(f.toBytes()); f.dispose(); return b; };
`;

/** The same filter's bytes made with the embedded module, in this process (dist/node.cjs). */
async function defaultSample(): Promise<number[]> {
  const { CuckooFilter } = await import('cuckoo-wasm');
  const f = await CuckooFilter.create({ capacity: 1000, falsePositiveRate: 0.01 });
  f.addAll(['a.example', 'b.example', 'evil.example']);
  const bytes = Array.from(f.toBytes());
  f.dispose();
  return bytes;
}

test('dist/cuckoo-core.wasm is the module as built, followed by its cuckoo-wasm id section', () => {
  const built = readFileSync(join(root, 'build/wasm/cuckoo-core.wasm'));
  const shipped = readFileSync(wasmFile);
  expect(shipped.subarray(0, built.length).equals(built)).toBe(true);
  const out = run(`
const sections = WebAssembly.Module.customSections(new WebAssembly.Module(wasmBytes), 'cuckoo-wasm');
console.log(JSON.stringify({ ids: sections.map((s) => new TextDecoder().decode(s)) }));`);
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  expect(out.ids).toEqual([expect.stringMatching(new RegExp(`^${version.replace(/\./g, '\\.')}\\+cuckoo-core\\+[0-9a-f]{16}$`))]);
});

test('initWasm(WebAssembly.Module) is used instead of the embedded bytes; filters are byte for byte the same', async () => {
  const out = run(`
let compiledFromBytes = 0;
const realInstantiate = WebAssembly.instantiate;
WebAssembly.instantiate = function (source, imports) {
  if (!(source instanceof WebAssembly.Module)) compiledFromBytes += 1;
  return realInstantiate.call(this, source, imports);
};
const module = await WebAssembly.compile(wasmBytes);
const init = await initWasm(module);
console.log(JSON.stringify({ init: init === undefined, bytes: await sample(), compiledFromBytes }));`);
  expect(out).toMatchObject({ init: true, compiledFromBytes: 0 });
  expect(out.bytes).toEqual(await defaultSample());
});

test("initWasm takes a module and bytes from another realm (a vm context's), and refuses a look-alike", async () => {
  const out = run(`
import vm from 'node:vm';
const other = vm.createContext({ bytes: wasmBytes });
const lookAlike = await settle(initWasm({ [Symbol.toStringTag]: 'WebAssembly.Module' }));
const module = await vm.runInContext('WebAssembly.compile(bytes)', other);
const init = await settle(initWasm(module));
console.log(JSON.stringify({ lookAlike, sameRealm: module instanceof WebAssembly.Module, init, bytes: await sample() }));`);
  expect(out).toMatchObject({ sameRealm: false, init: { ok: true } });
  expect(out.lookAlike).toMatchObject({ name: 'ArgumentTypeError' });
  expect(out.bytes).toEqual(await defaultSample());
  const buffer = run(`
import vm from 'node:vm';
const copy = vm.runInContext('new ArrayBuffer(' + wasmBytes.length + ')', vm.createContext({}));
new Uint8Array(copy).set(wasmBytes);
console.log(JSON.stringify({ init: await settle(initWasm(copy)), bytes: await sample() }));`);
  expect(buffer.init).toEqual({ ok: true });
  expect(buffer.bytes).toEqual(out.bytes);
});

test('initWasm takes bytes, a Response and a URL (compileStreaming for application/wasm)', () => {
  const out = run(`
import { createServer } from 'node:http';
let streamed = 0;
const realStreaming = WebAssembly.compileStreaming;
WebAssembly.compileStreaming = function (r) { streamed += 1; return realStreaming.call(this, r); };
const server = createServer((req, res) => {
  if (req.url === '/core.wasm') res.writeHead(200, { 'content-type': 'application/wasm' }).end(wasmBytes);
  else if (req.url === '/octets') res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(wasmBytes);
  else res.writeHead(404).end();
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = 'http://127.0.0.1:' + server.address().port;
const results = {};
try {
  results.url = await settle(initWasm(new URL('/core.wasm', base)));
  results.bytes = await sample();
  results.streamed = streamed;
} finally {
  server.close();
}
console.log(JSON.stringify(results));`);
  expect(out).toMatchObject({ url: { ok: true }, streamed: 1 });
  // Bytes, a Response served as application/octet-stream (compiled from its bytes) and a promise of a Response.
  for (const source of [
    'wasmBytes.buffer',
    'new Response(wasmBytes, { headers: { "content-type": "application/octet-stream" } })',
    'Promise.resolve(new Response(wasmBytes, { headers: { "content-type": "application/wasm" } }))',
  ]) {
    const each = run(`console.log(JSON.stringify({ init: await settle(initWasm(${source})), has: (await sample()).length > 0 }));`);
    expect([source, each]).toEqual([source, { init: { ok: true }, has: true }]);
  }
});

test('a second initWasm, or one after the module loaded, rejects with WasmInitError and changes nothing', () => {
  const out = run(`
const module = await WebAssembly.compile(wasmBytes);
const first = initWasm(module);
const second = await settle(initWasm(module));
await first;
const bytes = await sample();
console.log(JSON.stringify({ second, third: await settle(initWasm(wasmBytes)), bytes: bytes.length }));`);
  expect(out.second).toMatchObject({ name: 'WasmInitError', code: 'ERR_WASM_INIT', reason: 'called-twice', isInitError: true });
  expect(out.second as { message: string }).toMatchObject({ message: expect.stringMatching(/once, before the first create\(\)/) });
  expect(out.third).toMatchObject({ reason: 'called-twice' });

  const after = run(`
const before = await sample();
const late = await settle(initWasm(wasmBytes));
console.log(JSON.stringify({ late, still: (await sample()).length === before.length }));`);
  expect(after.late).toMatchObject({ name: 'WasmInitError', code: 'ERR_WASM_INIT', reason: 'already-loaded' });
  expect((after.late as { message: string }).message).toMatch(/call initWasm\(\) before the first create\(\)/);
  expect(after.still).toBe(true);
});

test("a module that is not this release's is refused with WasmInitError not-this-module; the right one is then taken", () => {
  const out = run(`
// A valid module of another kind (no id section), then this module with another release's id.
const empty = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
const otherId = new TextEncoder().encode('0.0.1+0000000000000000');
const section = new Uint8Array([0, 1 + 11 + otherId.length, 11, ...new TextEncoder().encode('cuckoo-wasm'), ...otherId]);
const built = wasmBytes.subarray(0, ${readFileSync(join(root, 'build/wasm/cuckoo-core.wasm')).length});
const otherRelease = new Uint8Array([...built, ...section]);
const foreign = await settle(initWasm(await WebAssembly.compile(empty)));
const older = await settle(initWasm(otherRelease));
const right = await settle(initWasm(wasmBytes));
console.log(JSON.stringify({ foreign, older, right, bytes: (await sample()).length }));`);
  expect(out.foreign).toMatchObject({ name: 'WasmInitError', code: 'ERR_WASM_INIT', reason: 'not-this-module' });
  expect((out.foreign as { message: string }).message).toMatch(/not cuckoo-wasm's.*cuckoo-wasm\/cuckoo-core\.wasm/);
  expect(out.older).toMatchObject({ reason: 'not-this-module' });
  expect((out.older as { message: string }).message).toMatch(/cuckoo-wasm 0\.0\.1\+0{16}'s, this code \d+\.\d+\.\d+\+cuckoo-core\+[0-9a-f]{16}'s/);
  expect(out).toMatchObject({ right: { ok: true } });
});

test('initWasm refuses what is not a module, a URL, a Response or bytes (ArgumentTypeError); a 404 is a WasmLoadError', () => {
  const out = run(`
import { createServer } from 'node:http';
const server = createServer((req, res) => res.writeHead(404).end());
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const results = { number: await settle(initWasm(42)), nil: await settle(initWasm(null)),
  missing: await settle(initWasm('http://127.0.0.1:' + server.address().port + '/none.wasm')) };
server.close();
results.after = await settle(initWasm(wasmBytes));
console.log(JSON.stringify(results));`);
  expect(out.number).toMatchObject({ name: 'ArgumentTypeError', code: 'ERR_INVALID_ARG_TYPE' });
  expect(out.nil).toMatchObject({ name: 'ArgumentTypeError' });
  expect(out.missing).toMatchObject({ name: 'WasmLoadError', reason: 'instantiate-failed' });
  expect((out.missing as { message: string }).message).toMatch(/HTTP 404/);
  expect(out.after).toEqual({ ok: true });
});

test('where WebAssembly may not be compiled from bytes, create() rejects with WasmLoadError compile-disallowed naming initWasm, which then works', () => {
  // workerd's message (Cloudflare Workers, Vercel Edge) for WebAssembly.instantiate of bytes.
  const out = run(`
const realInstantiate = WebAssembly.instantiate;
const realCompile = WebAssembly.compile;
const refuse = () => Promise.reject(new WebAssembly.CompileError('WebAssembly.instantiate(): Wasm code generation disallowed by embedder'));
WebAssembly.instantiate = function (source, imports) {
  return source instanceof WebAssembly.Module ? realInstantiate.call(this, source, imports) : refuse();
};
WebAssembly.compile = refuse;
const first = await settle(CuckooFilter.create({ capacity: 10 }));
const module = new WebAssembly.Module(wasmBytes); // the platform's bundler gives the module compiled
const init = await settle(initWasm(module));
console.log(JSON.stringify({ first, init, bytes: (await sample()).length }));`);
  expect(out.first).toMatchObject({ name: 'WasmLoadError', code: 'ERR_WASM_LOAD', reason: 'compile-disallowed', isLoadError: true });
  const message = (out.first as { message: string }).message;
  expect(message).toMatch(/import wasm from 'cuckoo-wasm\/cuckoo-core\.wasm'/);
  expect(message).toMatch(/await initWasm\(wasm\)/);
  expect(message).toMatch(/disallowed by embedder/);
  expect(out.init).toEqual({ ok: true });
});

test('the Node.js build takes initWasm too', () => {
  const out = run(`console.log(JSON.stringify({ init: await settle(initWasm(wasmBytes)), n: (await sample()).length }));`, 'node.mjs');
  expect(out).toMatchObject({ init: { ok: true } });
});
