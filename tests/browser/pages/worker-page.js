// The worker pattern: a module Worker builds the filter and transfers the bytes'
// buffer to the page, which loads them with fromBytes and queries them.
import { recordViolations, fetchLines, check, publish } from './job.js';

const violations = recordViolations();
publish((async () => {
  const worker = new Worker('/pages/worker.js', { type: 'module' });
  // Two messages: the filter's bytes, then the worker's view of its buffer after sending it.
  const [message, after] = await new Promise((resolve, reject) => {
    const received = [];
    worker.onmessage = (e) => {
      if (!e.data.ok) reject(Object.assign(new Error(e.data.message), { name: e.data.name }));
      received.push(e.data);
      if (received.length === 2) resolve(received);
    };
    worker.onerror = (e) => reject(new Error(`worker error: ${e.message}`));
  });
  worker.terminate();
  const { CuckooFilter } = await import('/lib/cuckoo-wasm.mjs');
  const [members, benign] = await Promise.all([fetchLines('/data/members.txt'), fetchLines('/data/benign.txt')]);
  const bytes = new Uint8Array(message.buffer);
  const result = await check(CuckooFilter, bytes, members, benign);
  return { ...result, added: message.added, transferred: message.buffer.byteLength, senderLengthAfter: after.senderLengthAfter };
})(), violations);
