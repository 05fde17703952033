// The feed-following scenario (tests/feed/follow-scenario.mjs) as a Worker (workerd): POST /follow with the test
// server's control URL as its body runs it against that server and answers its summary. cuckoo-wasm is imported as
// wrangler's bundling resolves it (the "workerd" entry). The stores are MemoryFeedStores by database name, kept
// for the Worker's isolate.
import * as lib from 'cuckoo-wasm';
import { followFeed } from './follow-scenario.mjs';

const stores = new Map();
const makeStore = (name) => {
  if (!stores.has(name)) stores.set(name, new lib.MemoryFeedStore());
  return stores.get(name);
};

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (request.method !== 'POST' || url.pathname !== '/follow') return new Response('POST /follow with the control URL', { status: 404 });
    try {
      const summary = await followFeed(lib, { control: await request.text(), makeStore, realm: 'workerd' });
      return Response.json(summary);
    } catch (e) {
      return new Response(String(e?.stack ?? e), { status: 500 });
    }
  },
};
