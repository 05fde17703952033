// Entry of the esbuild bundle test: imports the package by name, as an app would.
import { CuckooFilter } from 'cuckoo-wasm';
import { recordViolations, fetchLines, build, check, publish } from './job.js';

const violations = recordViolations();
publish((async () => {
  const [members, benign] = await Promise.all([fetchLines('/data/members.txt'), fetchLines('/data/benign.txt')]);
  const { bytes, added } = await build(CuckooFilter, members);
  return { ...(await check(CuckooFilter, bytes, members, benign)), added };
})(), violations);
