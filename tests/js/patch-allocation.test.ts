// A patch from the network is hostile until its result is checked: a small patch (framing right, its
// checksum made again) that names a result length its result's headers do not give must be refused
// (FilterFormatError, patch-corrupt) before the result is allocated, so WebAssembly memory does not
// grow by the length it claims (docs/FORMAT.md §17.4 step 3). The result's headers are the base's
// bytes with the patch's byte edits. In a file of its own: its module's memory is measured fresh.
import { FilterFormatError, applyPatchBytes, wasmMemoryUsage } from 'cuckoo-wasm';
import { KEY_FAMILY_ROWS } from './families';
import { seal } from './xxh3';

const MiB = 2 ** 20;
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/**
 * A patch (docs/FORMAT.md §17.1, §17.3) for `base` that names `resultLength` and codes the byte edits
 * `edits` ([position, XOR], ascending) and `lists` empty lists for the tables and bit arrays; its checksum
 * right.
 */
function craft(base: Uint8Array, resultLength: number, edits: [number, number][], lists: number): Uint8Array {
  const bits: number[] = [];
  const put = (v: number, w: number) => { for (let i = 0; i < w; ++i) bits.push((v >> i) & 1); };
  const gamma = (n: number) => {
    const l = Math.floor(Math.log2(n));
    for (let i = 0; i < l; ++i) bits.push(0);
    for (let i = l; i >= 0; --i) bits.push((n >> i) & 1);
  };
  gamma(edits.length + 1); // the changes
  gamma(edits.length + 1); // the byte edits, gaps in Rice k = 0
  if (edits.length > 0) put(0, 6);
  let previous = -1;
  for (const [p, x] of edits) {
    for (let i = 0; i < p - (previous + 1); ++i) bits.push(1);
    bits.push(0);
    put(x, 8);
    previous = p;
  }
  for (let i = 0; i < lists; ++i) gamma(1);
  const body = new Uint8Array(Math.ceil(bits.length / 8));
  bits.forEach((bit, i) => (body[i >> 3] |= bit << (i & 7)));
  const patch = new Uint8Array(40 + body.length + 8);
  const view = new DataView(patch.buffer);
  patch.set([0x43, 0x4b, 0x50, 0x54]); // CKPT
  view.setUint16(4, 1, true);
  patch[6] = base[6]; // a version-4 file's family byte
  view.setBigUint64(8, BigInt(base.length), true);
  patch.set(base.subarray(-8), 16);
  view.setBigUint64(24, BigInt(resultLength), true);
  patch.set(base.subarray(-8), 32);
  patch.set(body, 40);
  seal(patch);
  return patch;
}

describe.each(KEY_FAMILY_ROWS)('%s', (_, family) => {
  test('a result length its headers do not give is refused (patch-corrupt) before anything its size is allocated', async () => {
    const f = await family.create({ capacity: family.grows ? 300 : 2000, expansion: 2 });
    f.addAll(Array.from({ length: 200 }, (_, i) => `k${i}.example`));
    const base = f.toBytes();
    expect([base[4], base[6]]).toEqual([4, family.format.type]); // version 4: the sub-filter count at byte 11
    const lists = f.subFilterCount;
    const cases: [string, Uint8Array][] = [
      ['2^30 bytes, the headers unchanged', craft(base, 2 ** 30, [], lists)],
      ['64 MiB more than the base, the headers unchanged', craft(base, base.length + 64 * MiB, [], lists)],
      ['64 MiB more, one sub-filter more or fewer by a byte edit', craft(base, base.length + 64 * MiB, [[11, 1]], lists)],
      ['the base\'s length, one sub-filter more or fewer by a byte edit', craft(base, base.length, [[11, 1]], lists)],
    ];
    const heap = (await wasmMemoryUsage()).heapBytes;
    for (const [what, patch] of cases) {
      expect(patch.length).toBeLessThan(100);
      let error: (Error & { reason?: string }) | undefined;
      try {
        f.applyPatch(patch);
      } catch (e) {
        error = e as Error & { reason?: string };
      }
      expect([what, error instanceof FilterFormatError, error?.reason]).toEqual([what, true, 'patch-corrupt']);
      await expect(applyPatchBytes(base, patch)).rejects.toMatchObject({ name: 'FilterFormatError', reason: 'patch-corrupt' });
      expect(same(f.toBytes(), base)).toBe(true);
      const grown = (await wasmMemoryUsage()).heapBytes - heap;
      expect([what, grown <= MiB ? 'at most 1 MiB' : `${(grown / MiB).toFixed(0)} MiB`]).toEqual([what, 'at most 1 MiB']);
    }
    f.dispose();
  });
});
