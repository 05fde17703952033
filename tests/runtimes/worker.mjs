// The scenario as a Worker (workerd): POST /scenario with the input's JSON (scenario.mjs inputToJson) answers the
// scenario's result. cuckoo-wasm is imported as wrangler's bundling resolves it: the package's "workerd" entry,
// which imports its .wasm as a module, with no set-up here.
import * as lib from 'cuckoo-wasm';
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
