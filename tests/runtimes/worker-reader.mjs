// The scenario as a Worker (workerd), on the read-only entry: as worker.mjs, with cuckoo-wasm/reader imported as
// wrangler's bundling resolves it: its "workerd" entry, which imports cuckoo-reader.wasm as a module.
import * as lib from 'cuckoo-wasm/reader';
import { inputFromJson, runScenario } from './scenario.mjs';

export default {
  async fetch(request) {
    const { pathname } = new URL(request.url);
    if (request.method === 'POST' && pathname === '/scenario') {
      const result = await runScenario(lib, inputFromJson(await request.text()));
      return Response.json({ ...result, runtime: `workerd ${navigator.userAgent}` });
    }
    return new Response('POST /scenario', { status: pathname === '/' ? 200 : 404 });
  },
};
