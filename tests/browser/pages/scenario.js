// The end-to-end scenario every runtime runs (tests/runtimes/scenario.mjs), in a page: a browsers' build on the
// input Node.js made (/runtimes/input.json). The query picks the build and how it gets its module:
//   (none)         dist/index.mjs as /lib/cuckoo-wasm.mjs, its module compiled from the bytes it embeds
//   entry=reader   dist/reader.mjs as /lib/cuckoo-reader.mjs (the read-only entry, cuckoo-wasm/reader)
//   init=fetch     the entry's module handed over first with initWasm(fetch('/lib/cuckoo-core.wasm' or
//                  '/lib/cuckoo-reader.wasm'))
import { recordViolations, publish } from './job.js';

const violations = recordViolations();
const query = new URLSearchParams(location.search);
const reader = query.get('entry') === 'reader';
publish((async () => {
  const lib = await import(reader ? '/lib/cuckoo-reader.mjs' : '/lib/cuckoo-wasm.mjs');
  if (query.get('init') === 'fetch') await lib.initWasm(fetch(reader ? '/lib/cuckoo-reader.wasm' : '/lib/cuckoo-core.wasm'));
  const { runScenario, inputFromJson } = await import('/runtimes/scenario.mjs');
  const response = await fetch('/runtimes/input.json');
  if (!response.ok) throw new Error(`/runtimes/input.json: HTTP ${response.status}`);
  return runScenario(lib, inputFromJson(await response.text()));
})(), violations);
