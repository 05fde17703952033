// The end-to-end scenario every runtime runs (tests/runtimes/scenario.mjs), in a page: the browsers' build
// (dist/index.mjs as /lib/cuckoo-wasm.mjs) on the input Node.js made (/runtimes/input.json).
import { recordViolations, publish } from './job.js';

const violations = recordViolations();
publish((async () => {
  const lib = await import('/lib/cuckoo-wasm.mjs');
  const { runScenario, inputFromJson } = await import('/runtimes/scenario.mjs');
  const response = await fetch('/runtimes/input.json');
  if (!response.ok) throw new Error(`/runtimes/input.json: HTTP ${response.status}`);
  return runScenario(lib, inputFromJson(await response.text()));
})(), violations);
