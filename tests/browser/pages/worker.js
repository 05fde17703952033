// Module worker: builds the filter and transfers toBytes().buffer to the page (no copy).
import { fetchLines, build } from './job.js';

(async () => {
  try {
    const { CuckooFilter } = await import('/lib/cuckoo-wasm.mjs');
    const members = await fetchLines('/data/members.txt');
    const { bytes, added } = await build(CuckooFilter, members);
    const buffer = bytes.buffer;
    self.postMessage({ ok: true, added, buffer }, [buffer]);
    // A transfer detaches the sender's buffer (byteLength 0): reported so the test sees it was not copied.
    self.postMessage({ ok: true, senderLengthAfter: buffer.byteLength });
  } catch (e) {
    self.postMessage({ ok: false, name: e?.name, message: String(e?.message ?? e) });
  }
})();
