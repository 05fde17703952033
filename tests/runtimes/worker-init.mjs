// The scenario as a Worker bundled without the "workerd" condition (as an edge bundler that knows only "worker"
// and "browser" resolves the package: dist/index.mjs, the .wasm embedded as bytes). POST /scenario first tries
// CuckooFilter.create(), which workerd refuses to compile from bytes (WasmLoadError 'compile-disallowed'), then
// hands the library the .wasm imported as a module with initWasm, and runs the scenario.
import * as lib from 'cuckoo-wasm';
import wasm from 'cuckoo-wasm/cuckoo-core.wasm';
import { runScenario, scenarioWorker } from './scenario.mjs';

export default scenarioWorker(async (input) => {
  let before;
  try {
    (await lib.CuckooFilter.create({ capacity: 10 })).dispose();
    before = { loaded: true };
  } catch (e) {
    before = { name: e.name, code: e.code, reason: e.reason, message: e.message };
  }
  await lib.initWasm(wasm);
  return { ...(await runScenario(lib, input)), before };
});
