// Runs the scenario (scenario.mjs) on Node.js, Deno or Bun, with cuckoo-wasm (or the entry named by the second
// argument: cuckoo-wasm/reader) imported as that runtime resolves the installed package
// (tests/runtimes/runtimes.test.ts installs it beside a copy of this file):
//   node host.mjs input.json [entry]  |  deno run --allow-read=input.json host.mjs input.json [entry]  |  bun host.mjs input.json [entry]
// On Deno and Bun, Node.js's globals (process, Buffer, global, require) are removed before the package is imported,
// so the scenario shows that it needs none of them there. Prints one JSON line: the scenario's result, with
// `runtime` (name and version), `resolved` (the file the runtime resolved the entry to, relative to the
// package) and, on Deno and Bun, `nodeGlobals` (the Node.js globals left while it ran).
import { inputFromJson, runScenario } from './scenario.mjs';

const deno = globalThis.Deno;
const bun = globalThis.Bun;
const args = deno ? deno.args : globalThis.process.argv.slice(2);
const text = deno
  ? await deno.readTextFile(args[0])
  : bun
    ? await bun.file(args[0]).text()
    : await (await import('node:fs/promises')).readFile(args[0], 'utf8');
const runtime = deno ? `deno ${deno.version.deno}` : bun ? `bun ${bun.version}` : `node ${globalThis.process.version}`;

const NODE_GLOBALS = ['process', 'Buffer', 'global', 'require'];
if (deno || bun) {
  for (const name of NODE_GLOBALS) {
    try {
      delete globalThis[name];
    } catch {
      // not configurable: then it is reported in nodeGlobals
    }
  }
}
const entry = args[1] ?? 'cuckoo-wasm';
const lib = await import(entry);
const result = await runScenario(lib, inputFromJson(text));
result.runtime = runtime;
if (deno || bun) result.nodeGlobals = NODE_GLOBALS.filter((name) => globalThis[name] !== undefined);
result.resolved = import.meta.resolve(entry).replace(/^.*\/node_modules\/cuckoo-wasm\//, '');
console.log(JSON.stringify(result));
