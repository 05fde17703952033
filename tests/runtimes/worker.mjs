// The scenario as a Worker (workerd): POST /scenario with the input's JSON (scenario.mjs inputToJson) answers the
// scenario's result. cuckoo-wasm is imported as wrangler's bundling resolves it: the package's "workerd" entry,
// which imports its .wasm as a module, with no set-up here.
import * as lib from 'cuckoo-wasm';
import { runScenario, scenarioWorker } from './scenario.mjs';

export default scenarioWorker((input) => runScenario(lib, input));
