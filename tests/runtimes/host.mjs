// Runs the scenario (scenario.mjs) on Node.js, Deno or Bun, with cuckoo-wasm imported as that runtime resolves the
// installed package (tests/runtimes/runtimes.test.ts installs it beside a copy of this file):
//   node host.mjs input.json  |  deno run --allow-read host.mjs input.json  |  bun host.mjs input.json
// Prints one JSON line: the scenario's result, with `runtime` (name and version) and `resolved` (the file the
// runtime resolved 'cuckoo-wasm' to, relative to the package).
import * as lib from 'cuckoo-wasm';
import { inputFromJson, runScenario } from './scenario.mjs';

const deno = globalThis.Deno;
const bun = globalThis.Bun;
const args = deno ? deno.args : globalThis.process.argv.slice(2);
const text = deno
  ? await deno.readTextFile(args[0])
  : bun
    ? await bun.file(args[0]).text()
    : await (await import('node:fs/promises')).readFile(args[0], 'utf8');

const result = await runScenario(lib, inputFromJson(text));
result.runtime = deno
  ? `deno ${deno.version.deno}`
  : bun
    ? `bun ${bun.version}`
    : `node ${globalThis.process.version}`;
result.resolved = import.meta.resolve('cuckoo-wasm').replace(/^.*\/node_modules\/cuckoo-wasm\//, '');
console.log(JSON.stringify(result));
