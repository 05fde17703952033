// The memory's floor as WebAssembly sees it, beside the "native load" of bench/native/scale_bench.cc: ns per load
// of random loads over a buffer of each --mb size, the places drawn beforehand and read in order, no load waiting
// on another (how many are in flight at once sets the cost), and ns per load of a chain of dependent loads (the
// latency). Rows:
//   wasm, 1 a step    a loop written by hand in WebAssembly: i32.load of the place, i32.load8_u, i32.or
//   wasm, 4 a step    the same, four places a step
//   JS typed array    the same loop in JavaScript over a Uint8Array of wasm memory
//   latency           a chain through every 64-byte line of the buffer in one random cycle (Sattolo)
// A grouped batch's touch pass (src/common/batch.h) cannot cost less a line than the lower of the first two rows;
// it costs more the more instructions V8's code spends between its loads (bench/results/scale.md).
//
//   node bench/wasm-load.mjs [--mb 2,16,64] [--loads 1048576] [--passes 9]
//
// --loads: a positive multiple of 4 (the second loop takes four places a step).
import { parseArgs } from 'node:util';
import { helpText, loadAverage, machine } from './report.mjs';

const { values: opt } = parseArgs({
  options: {
    mb: { type: 'string', default: '2,16,64' },
    loads: { type: 'string', default: String(1 << 20) },
    passes: { type: 'string', default: '9' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opt.help) {
  console.log(helpText(import.meta.url, '--loads:'));
  process.exit(0);
}

// (module
//   (memory (export "mem") 400)
//   (func (export "loads") (param $idx i32) (param $n i32) (result i32)   ;; t |= mem[idx[j]] for j < n
//     (local $t i32) (local $end i32)
//     (local.set $end (i32.add (local.get $idx) (i32.shl (local.get $n) (i32.const 2))))
//     (loop $l
//       (local.set $t (i32.or (local.get $t) (i32.load8_u (i32.load (local.get $idx)))))
//       (local.set $idx (i32.add (local.get $idx) (i32.const 4)))
//       (br_if $l (i32.lt_u (local.get $idx) (local.get $end))))
//     (local.get $t))
//   (func (export "loads4") ...))   ;; the same, the places at idx, idx + 4, idx + 8, idx + 12 each step
// assembled by binaryen's wasm-as.
const MODULE = Uint8Array.from([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 7, 1, 96, 2, 127, 127, 1, 127, 3, 3, 2, 0, 0, 5, 4, 1, 0, 144, 3, 7, 24, 3, 3, 109, 101,
  109, 2, 0, 5, 108, 111, 97, 100, 115, 0, 0, 6, 108, 111, 97, 100, 115, 52, 0, 1, 10, 122, 2, 46, 1, 2, 127, 32, 0, 32, 1,
  65, 2, 116, 106, 33, 3, 3, 64, 32, 2, 32, 0, 40, 2, 0, 45, 0, 0, 114, 33, 2, 32, 0, 65, 4, 106, 33, 0, 32, 0, 32, 3, 73,
  13, 0, 11, 32, 2, 11, 73, 1, 2, 127, 32, 0, 32, 1, 65, 2, 116, 106, 33, 3, 3, 64, 32, 2, 32, 0, 40, 2, 0, 45, 0, 0, 32, 0,
  40, 2, 4, 45, 0, 0, 114, 32, 0, 40, 2, 8, 45, 0, 0, 32, 0, 40, 2, 12, 45, 0, 0, 114, 114, 114, 33, 2, 32, 0, 65, 16, 106,
  33, 0, 32, 0, 32, 3, 73, 13, 0, 11, 32, 2, 11,
]);

const loads = Number(opt.loads);
const passes = Number(opt.passes);
if (!(Number.isInteger(loads) && loads >= 4 && loads % 4 === 0)) throw new Error(`--loads must be a positive multiple of 4, not ${opt.loads}`);
if (!(Number.isInteger(passes) && passes >= 1)) throw new Error(`--passes must be a positive integer, not ${opt.passes}`);
const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
/** ns per step of fn() over `steps` steps: the median of the passes, in CPU time; fn() must return `expect`. */
function time(fn, steps, expect) {
  const v = [];
  for (let p = 0; p < passes; p++) {
    const t = cpuNs();
    const got = fn();
    v.push((cpuNs() - t) / steps);
    if (got !== expect) throw new Error(`a loop read ${got}, not ${expect}: it did not read the buffer`);
  }
  v.sort((a, b) => a - b);
  return v[v.length >> 1];
}
/** xorshift32: a full-period generator (the places must not repeat in a short cycle). */
function generator(seed) {
  let x = seed | 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

const { instance } = await WebAssembly.instantiate(MODULE);
const { mem, loads: wasmLoads, loads4 } = instance.exports;
const rows = [];
for (const mb of opt.mb.split(',').map(Number)) {
  const bytes = Math.round(mb * 2 ** 20);
  // Layout: a page left free, the buffer, then the places.
  const base = 65536;
  const idx = base + bytes;
  const need = idx + 4 * loads;
  if (need > mem.buffer.byteLength) mem.grow(Math.ceil((need - mem.buffer.byteLength) / 65536));
  const heap = new Uint8Array(mem.buffer);
  heap.fill(1, base, base + bytes);
  const places = new Uint32Array(mem.buffer, idx, loads);
  const next = generator(0x9e3779b9 ^ bytes);
  for (let i = 0; i < loads; i++) places[i] = base + (next() % bytes);
  const buffer = heap.subarray(base, base + bytes);
  const jsPlaces = Uint32Array.from(places, (p) => p - base);
  const jsLoop = () => {
    let t = 0;
    for (let i = 0; i < loads; i++) t |= buffer[jsPlaces[i]];
    return t;
  };
  const row = {
    mb,
    wasm1: time(() => wasmLoads(idx, loads), loads, 1),
    wasm4: time(() => loads4(idx, loads), loads, 1),
    js: time(jsLoop, loads, 1),
  };
  // The chain: the lines in a random order (Fisher–Yates), each one's word 0 holding the next one's word index,
  // the last the first's: one cycle through every line.
  const lines = Math.max(2, Math.floor(bytes / 64));
  const order = new Uint32Array(lines);
  for (let i = 0; i < lines; i++) order[i] = i;
  for (let i = lines - 1; i > 0; i--) {
    const j = next() % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  const words = new Uint32Array(mem.buffer, base, lines * 16);
  for (let i = 0; i < lines; i++) words[order[i] * 16] = order[(i + 1) % lines] * 16;
  const steps = Math.min(loads, 1 << 18);
  // After `steps` steps from line order[0] the chain is at line order[steps mod lines].
  row.latency = time(() => {
    let at = order[0] * 16;
    for (let i = 0; i < steps; i++) at = words[at];
    return at;
  }, steps, order[steps % lines] * 16);
  rows.push(row);
}

const host = machine();
console.log(`Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`node bench/wasm-load.mjs ${process.argv.slice(2).join(' ')}\`.`);
console.log(`Machine: ${host.cpu}, ${host.cores} cores, ${host.memoryGiB} GiB, ${host.os}; Node.js ${host.node} (V8 ${host.v8}); load ${loadAverage().join(' ')}.`);
console.log(`${loads} loads, median of ${passes} passes, ns per load (CPU time).`);
console.log('');
console.log('| buffer | wasm, 1 a step | wasm, 4 a step | JS typed array | latency |');
console.log('|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.mb} MB | ${r.wasm1.toFixed(2)} | ${r.wasm4.toFixed(2)} | ${r.js.toFixed(2)} | ${r.latency.toFixed(1)} |`);
