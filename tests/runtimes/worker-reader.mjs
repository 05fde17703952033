// The scenario as a Worker (workerd), on the read-only entry: as worker.mjs, with cuckoo-wasm/reader imported as
// wrangler's bundling resolves it: its "workerd" entry, which imports cuckoo-reader.wasm as a module.
import * as lib from 'cuckoo-wasm/reader';
import { runScenario, scenarioWorker } from './scenario.mjs';

export default scenarioWorker((input) => runScenario(lib, input));
