// The example Worker (examples/cloudflare-worker) with one more route, for measuring what a check costs inside
// workerd without the HTTP transport: POST /repeat { n, urls } has the Worker answer n GET /check requests (for
// urls[i % urls.length]) in one request, each as it would a real one (its Request, matchUrl, a JSON Response read
// to the end); with { match: true }, only filter.matchUrl is called n times, on a filter of the same asset. The
// client times n = 0 and n = N; the difference over N is the cost of one check.
import { CuckooFilter } from 'cuckoo-wasm';
import worker from '../../examples/cloudflare-worker/src/worker.ts';

let filter;

export default {
  async fetch(request, env, ctx) {
    if (request.method === 'POST' && new URL(request.url).pathname === '/repeat') {
      const { n, urls, match } = await request.json();
      let matched = 0;
      if (match) {
        filter ??= await CuckooFilter.fromBytes(await (await env.ASSETS.fetch('https://assets.local/blocklist.cuckoo')).arrayBuffer());
        for (let i = 0; i < n; ++i) if (filter.matchUrl(urls[i % urls.length]) !== null) matched += 1;
        return Response.json({ n, matched });
      }
      for (let i = 0; i < n; ++i) {
        const url = urls[i % urls.length];
        const response = await worker.fetch(new Request(`http://worker/check?url=${encodeURIComponent(url)}`), env, ctx);
        if ((await response.json()).match !== null) matched += 1;
      }
      return Response.json({ n, matched });
    }
    return worker.fetch(request, env, ctx);
  },
};
