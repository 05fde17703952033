// Loading the WebAssembly module: every failure rejects promptly with a typed
// WasmLoadError, and a later call loads the module afresh. Each case runs in a
// child process (the module is instantiated once per realm) with a time limit,
// so a promise that never settles fails the test instead of hanging it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const dist = join(__dirname, '..', '..', 'dist', 'index.mjs');

/** Runs an ES-module script (with `dist` as `LIB`) in a fresh Node process; returns its parsed last line. */
function run(script: string, flags: string[] = []): Record<string, unknown> {
  const r = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 15000,
    env: { ...process.env, LIB: dist },
  });
  if (r.error) throw r.error; // ETIMEDOUT: something never settled
  const last = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !last.startsWith('{')) {
    throw new Error(`child exited ${r.status} (${r.signal}):\n${r.stdout}\n${r.stderr}`);
  }
  return JSON.parse(last);
}

/** Script prelude: makes WebAssembly.instantiate reject once with `error`, then behave. */
const failOnce = (error: string) => `
const realInstantiate = WebAssembly.instantiate;
let failures = 0;
WebAssembly.instantiate = function (...args) {
  if (failures++ === 0) return Promise.reject(${error});
  return realInstantiate.apply(this, args);
};
const { CuckooFilter, WasmLoadError } = await import(process.env.LIB);
const describe = (e) => ({ isWasmLoadError: e instanceof WasmLoadError, isError: e instanceof Error,
  name: e.name, code: e.code, reason: e.reason, message: e.message, cause: e.cause?.name });
const settle = async (p) => { const t0 = Date.now(); try { await p; return { ok: true }; }
  catch (e) { return { ...describe(e), ms: Date.now() - t0 }; } };
`;

// The browsers' messages for a page whose CSP lacks 'wasm-unsafe-eval' (Firefox's as firefox-esr 153 gives it,
// tests/browser/firefox.test.ts).
test.each([
  ['Chromium', `new WebAssembly.CompileError("WebAssembly.instantiate(): Refused to compile or instantiate WebAssembly module because 'unsafe-eval' is not an allowed source of script in the following Content Security Policy directive: \\"script-src 'self'\\"")`],
  ['Firefox', `new WebAssembly.CompileError("call to WebAssembly.instantiate() blocked by CSP")`],
])('a CSP refusal to compile (%s) rejects create() with WasmLoadError csp-blocked, then a retry loads', (_browser, csp) => {
  const out = run(`${failOnce(csp)}
const first = await settle(CuckooFilter.create({ capacity: 100 }));
const f = await CuckooFilter.create({ capacity: 100 });
f.add('retry.example');
console.log(JSON.stringify({ first, retried: f.has('retry.example'), failures }));
`);
  const first = out.first as Record<string, unknown>;
  expect(first).toMatchObject({
    isWasmLoadError: true,
    isError: true,
    name: 'WasmLoadError',
    code: 'ERR_WASM_LOAD',
    reason: 'csp-blocked',
    cause: 'CompileError',
  });
  expect(first.message).toContain("'wasm-unsafe-eval'");
  expect(first.message).toMatch(/'unsafe-eval' is not needed/);
  expect(first.ms).toBeLessThan(5000);
  expect(out).toMatchObject({ retried: true, failures: 2 });
});

test('any other instantiation failure rejects fromBytes() with WasmLoadError instantiate-failed', () => {
  const out = run(`${failOnce('new WebAssembly.LinkError("import env.abort: function import requires a callable")')}
const first = await settle(CuckooFilter.fromBytes(new Uint8Array(8)));
const second = await settle(CuckooFilter.fromBytes(new Uint8Array(8)));
console.log(JSON.stringify({ first, second }));
`);
  expect(out.first).toMatchObject({ isWasmLoadError: true, reason: 'instantiate-failed', cause: 'LinkError' });
  expect((out.first as { message: string }).message).toMatch(/LinkError: import env\.abort/);
  // The retry loads the module; the 8 zero bytes are then refused as a filter.
  expect(out.second).toMatchObject({ name: 'FilterFormatError', code: 'ERR_FILTER_FORMAT' });
});

test('an error thrown while the module initialises rejects instead of escaping as an unhandled rejection', () => {
  // js/boundary/instance.ts hands the instance to the Emscripten glue, which runs the module's static initialisers
  // (__wasm_call_ctors: embind's registration); make the first instance's throw there.
  const out = run(`
const realInstantiate = WebAssembly.instantiate;
let calls = 0;
WebAssembly.instantiate = async function (...args) {
  const result = await realInstantiate.apply(this, args);
  if (calls++ > 0) return result;
  const exports = { ...result.instance.exports, __wasm_call_ctors() { throw new EvalError('Code generation from strings disallowed for this context'); } };
  return { module: result.module, instance: { exports } };
};
let unhandled = 0;
process.on('unhandledRejection', () => { unhandled++; });
const { CuckooFilter, WasmLoadError } = await import(process.env.LIB);
let first;
try { await CuckooFilter.create({ capacity: 10 }); first = 'resolved'; }
catch (e) { first = { isWasmLoadError: e instanceof WasmLoadError, reason: e.reason, cause: e.cause?.name }; }
const f = await CuckooFilter.create({ capacity: 10 });
await new Promise((r) => setTimeout(r, 50));
console.log(JSON.stringify({ first, retried: f.add('x').has('x'), unhandled }));
`);
  expect(out).toEqual({
    first: { isWasmLoadError: true, reason: 'instantiate-failed', cause: 'EvalError' },
    retried: true,
    unhandled: 0,
  });
});

test('an engine without WebAssembly (node --jitless) gets WasmLoadError no-webassembly', () => {
  const out = run(
    `
const { CuckooFilter, WasmLoadError } = await import(process.env.LIB);
try { await CuckooFilter.create({ capacity: 10 }); console.log('{"resolved":true}'); }
catch (e) { console.log(JSON.stringify({ isWasmLoadError: e instanceof WasmLoadError, reason: e.reason, code: e.code, message: e.message })); }
`,
    ['--jitless', '--no-warnings'],
  );
  expect(out).toMatchObject({ isWasmLoadError: true, reason: 'no-webassembly', code: 'ERR_WASM_LOAD' });
  expect(out.message).toMatch(/--jitless/);
});
