// What a call costs through embind and as a plain export of the same module (build/wasm/cuckoo-core.{js,wasm}):
// the per-key and per-batch calls (has, add, hasAll, addAll, the URL calls) stay plain exports on the filter's
// address (bindings/c_exports.cc) because of what this prints. Both calls do next to nothing in wasm (an embind
// method's `handle()`, the plain export `cf_size(handle)`), so the difference is the binding's own cost per call;
// `cf_contain` of a short key is shown beside them for scale.
//   node --no-warnings bench/embind-call.mjs [--calls N] [--rounds R]   (the glue is an ES module: -sEXPORT_ES6)
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '2000000' }, rounds: { type: 'string', default: '7' } } });
const calls = Number(values.calls);
const rounds = Number(values.rounds);
const wasmDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'wasm');
const { default: createCuckooCore } = await import(pathToFileURL(join(wasmDir, 'cuckoo-core.js')).href);
const compiled = new WebAssembly.Module(readFileSync(join(wasmDir, 'cuckoo-core.wasm')));
let exports;
const m = await createCuckooCore({
  instantiateWasm(imports, done) {
    const instance = new WebAssembly.Instance(compiled, imports);
    exports = instance.exports;
    done(instance, compiled);
    return instance.exports;
  },
});

const status = m._malloc(4);
exports.register_family(m.familyCuckoo); // a family's class is registered on its first use
const filter = m.Cuckoo.create({ capacity: 100000, fingerprintBits: 13, bucketSize: 4, maxKicks: 500, seed: [1, 2], expansion: 0, encoding: 0 }, status);
const handle = filter.handle();
const key = m._malloc(16);
m.HEAPU8.set(new TextEncoder().encode('phish.example'), key);

/** Nanoseconds per call of `fn`, the median of `rounds` rounds of `calls` calls. */
function time(fn) {
  const per = [];
  let sink = 0;
  for (let r = 0; r < rounds; ++r) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; ++i) sink += fn();
    per.push(Number(process.hrtime.bigint() - t0) / calls);
  }
  if (sink === -1) console.log(sink);
  return per.sort((a, b) => a - b)[rounds >> 1];
}

const rows = [
  ['embind method: filter.handle()', time(() => filter.handle())],
  ['plain export: cf_size(handle)', time(() => exports.cf_size(handle))],
  ['plain export: cf_contain(handle, key, 13)', time(() => exports.cf_contain(handle, key, 13))],
];
console.log(`${process.version}, ${calls} calls x ${rounds} rounds (median)`);
for (const [name, ns] of rows) console.log(`${name.padEnd(44)} ${ns.toFixed(1).padStart(7)} ns/call`);
console.log(`embind call / plain call: ${(rows[0][1] / rows[1][1]).toFixed(1)}x; an embind has() would cost about ` +
  `${((rows[2][1] + rows[0][1] - rows[1][1]) / rows[2][1]).toFixed(1)}x the plain cf_contain`);
filter.delete();
