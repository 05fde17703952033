// A plain ES-module page: imports the package's ES module as served, no bundler.
import { recordViolations, fetchLines, build, check, publish } from './job.js';

const violations = recordViolations();
publish((async () => {
  const { CuckooFilter } = await import('/lib/cuckoo-wasm.mjs');
  const [members, benign] = await Promise.all([fetchLines('/data/members.txt'), fetchLines('/data/benign.txt')]);
  const t0 = performance.now();
  const { bytes, added } = await build(CuckooFilter, members);
  const result = await check(CuckooFilter, bytes, members, benign);
  return { ...result, added, ms: Math.round(performance.now() - t0) };
})(), violations);
