// Under script-src 'self' (no 'wasm-unsafe-eval'), create() and fromBytes() must
// reject with WasmLoadError, promptly, and a second call must reject again (not hang);
// so must create() after the module is handed over with initWasm(fetch(...)) (Chromium
// and Firefox refuse to compile it, so initWasm rejects; WebKit compiles it and refuses
// to instantiate it, so create() does).
import { recordViolations } from './job.js';

const violations = recordViolations();
const settle = async (promise) => {
  const t0 = performance.now();
  try {
    await promise;
    return { settled: 'resolved', ms: Math.round(performance.now() - t0) };
  } catch (e) {
    return { settled: 'rejected', name: e?.name, code: e?.code, reason: e?.reason, message: String(e?.message ?? e),
      isWasmLoadError: e instanceof WasmLoadError, ms: Math.round(performance.now() - t0) };
  }
};
const { CuckooFilter, WasmLoadError, initWasm } = await import('/lib/cuckoo-wasm.mjs');
const create = await settle(CuckooFilter.create({ capacity: 1000 }));
const fromBytes = await settle(CuckooFilter.fromBytes(new Uint8Array(80)));
const handed = await settle(initWasm(fetch('/lib/cuckoo-core.wasm')).then(() => CuckooFilter.create({ capacity: 1000 })));
// The securitypolicyviolation event is a task of its own, which may run after the rejection
// above: wait for it (up to 2 s) before publishing, so the test sees the browser's refusal.
for (const t0 = performance.now(); violations.length === 0 && performance.now() - t0 < 2000; ) {
  await new Promise((resolve) => setTimeout(resolve, 10));
}
window.__result = { create, fromBytes, handed, violations };
