// Runs the feed-following scenario (tests/feed/follow-scenario.mjs) on Node.js, Deno or Bun against the test's feed
// server (feed-runtimes.test.ts installs the package beside a copy of this file and the scenario):
//   node feed-host.mjs CONTROL [entry]  |  deno run --allow-net=127.0.0.1 feed-host.mjs CONTROL [entry]  |  bun feed-host.mjs CONTROL [entry]
// The stores are MemoryFeedStores by database name, kept for the process: a feed opened again on a name resumes
// from what the one before saved. Prints one JSON line: the scenario's summary, with `runtime`.
import { followFeed } from './follow-scenario.mjs';

const deno = globalThis.Deno;
const bun = globalThis.Bun;
const args = deno ? deno.args : globalThis.process.argv.slice(2);
const runtime = deno ? `deno ${deno.version.deno}` : bun ? `bun ${bun.version}` : `node ${globalThis.process.version}`;
const lib = await import(args[1] ?? 'cuckoo-wasm');
const stores = new Map();
const makeStore = (name) => {
  if (!stores.has(name)) stores.set(name, new lib.MemoryFeedStore());
  return stores.get(name);
};
const summary = await followFeed(lib, { control: args[0], makeStore, realm: runtime });
console.log(JSON.stringify({ ...summary, runtime }));
