// URLs past the core's 2 MiB limit (src/url/url_canon.h kMaxUrlBytes) are refused
// as InvalidUrlError 'too-long' before any room is made for them in wasm
// memory: the single calls, and both batch forms (which name the index, and
// for addUrls keep the entries before it).
import { BloomFilter, CuckooFilter, InvalidUrlError, canonicalizeUrl, wasmMemoryUsage } from 'cuckoo-wasm';

const HUGE = `http://long.example/${'a'.repeat(64 << 20)}`; // 64 Mi code units

test('a URL longer than 2 MiB is too-long in every URL call, and wasm memory does not grow for it', async () => {
  const f = await CuckooFilter.create({ capacity: 100 });
  const b = await BloomFilter.create({ capacity: 100 });
  const before = (await wasmMemoryUsage()).heapBytes;
  const reasons: unknown[] = [];
  const catchReason = (call: () => unknown) => {
    try {
      call();
      reasons.push('no error');
    } catch (e) {
      reasons.push(e instanceof InvalidUrlError ? [e.reason, e.index] : String(e));
    }
  };
  for (const g of [f, b]) {
    catchReason(() => g.hasUrl(HUGE));
    catchReason(() => g.matchUrl(HUGE));
    catchReason(() => g.addUrl(HUGE));
    catchReason(() => g.hasAllUrls(['ok.example', HUGE]));
  }
  await expect(canonicalizeUrl(HUGE)).rejects.toMatchObject({ reason: 'too-long' });
  expect(reasons).toEqual([
    ['too-long', undefined], ['too-long', undefined], ['too-long', undefined], ['too-long', 1],
    ['too-long', undefined], ['too-long', undefined], ['too-long', undefined], ['too-long', 1],
  ]);
  // 64 Mi units would take 192 MiB of batch region and 256 MiB of URL workspace.
  expect((await wasmMemoryUsage()).heapBytes - before).toBeLessThan(16 << 20);

  // addUrls: the entries before it are added, the error names its index.
  let thrown: unknown;
  try {
    f.addUrls(['first.example', 'second.example/a/', HUGE, 'never.example']);
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(InvalidUrlError);
  expect(thrown).toMatchObject({ reason: 'too-long', index: 2 });
  expect([f.hasUrl('http://first.example/x'), f.hasUrl('http://second.example/a/b'), f.hasUrl('http://never.example/')]).toEqual([
    true,
    true,
    false,
  ]);
  f.dispose();
  b.dispose();
});
