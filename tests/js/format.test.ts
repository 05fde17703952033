// The byte format (docs/FORMAT.md): a golden fixture catches accidental format
// changes; anything toBytes did not produce is refused with FilterFormatError.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CuckooFilter, FilterFormatError, FilterFormatReason } from 'cuckoo-wasm';

async function small(): Promise<Uint8Array> {
  const f = await CuckooFilter.create({ capacity: 50, fingerprintBits: 12, semiSort: false }); // the bit-packed layout the offsets below name
  for (let i = 0; i < 40; i++) f.add(`k${i}`);
  const bytes = f.toBytes();
  f.dispose();
  return bytes;
}

async function expectFormatError(bytes: Uint8Array | ArrayBuffer, reason?: FilterFormatReason): Promise<FilterFormatError> {
  let error: unknown;
  try {
    const f = await CuckooFilter.fromBytes(bytes);
    f.dispose();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(FilterFormatError);
  const fe = error as FilterFormatError;
  expect(fe.code).toBe('ERR_FILTER_FORMAT');
  if (reason) expect(fe.reason).toBe(reason);
  return fe;
}

test('golden fixture: the same recipe gives byte-identical bytes (tests/golden/README.md)', async () => {
  const golden = readFileSync(join(__dirname, '..', 'golden', 'cuckoo-v1.bin'));
  const goldenV4 = readFileSync(join(__dirname, '..', 'golden', 'cuckoo-v4.bin'));
  const f = await CuckooFilter.create({ capacity: 1000, fingerprintBits: 12, bucketSize: 4, maxKicks: 500, seed: 42, semiSort: false });
  for (let i = 0; i < 1000; i++) f.add(`key-${i}`);
  for (let i = 0; i < 100; i++) expect(f.delete(`key-${i}`)).toBe(true);
  // A new filter is version 4: its one section is the version-1 file of the same recipe.
  const bytes = f.toBytes();
  expect(Buffer.compare(bytes, goldenV4)).toBe(0);
  expect(Buffer.compare(bytes.subarray(32, bytes.length - 8), golden)).toBe(0);
  f.dispose();
  const g = await CuckooFilter.fromBytes(golden);
  for (let i = 100; i < 1000; i++) expect(g.has(`key-${i}`)).toBe(true);
  expect(g.size).toBe(900);
  expect(Buffer.compare(g.toBytes(), golden)).toBe(0); // read from version 1, written as version 1
  g.dispose();
});

describe('fromBytes refuses what toBytes did not produce', () => {
  test('every truncation', async () => {
    const bytes = await small();
    for (let len = 0; len < bytes.length; len++) {
      const e = await expectFormatError(bytes.subarray(0, len));
      expect(['truncated', 'bad-magic']).toContain(e.reason);
    }
  });

  test('every single-bit flip', async () => {
    const bytes = await small();
    const reasons = new Set<string>();
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      const copy = bytes.slice();
      copy[bit >> 3] ^= 1 << (bit & 7);
      reasons.add((await expectFormatError(copy)).reason);
    }
    expect(reasons.has('checksum-mismatch')).toBe(true);
    expect(reasons.has('bad-magic')).toBe(true);
  });

  test('wrong magic, wrong version, trailing bytes, empty', async () => {
    const bytes = await small();
    const magic = bytes.slice();
    magic.set([0x42, 0x4c, 0x4f, 0x4d], 0);
    expect((await expectFormatError(magic, 'bad-magic')).message).toMatch(/CKOO/);
    const version = bytes.slice();
    version[4] = 5;
    expect((await expectFormatError(version, 'unsupported-version')).message).toMatch(/version/);
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    await expectFormatError(longer, 'trailing-bytes');
    await expectFormatError(new Uint8Array(0), 'truncated');
    await expectFormatError(new ArrayBuffer(0), 'truncated');
  });

  test('a header claiming a huge bucket count is refused without allocating it', async () => {
    // A version-1 file: its header is the whole file's (in version 4 it is a section's).
    const huge = new Uint8Array(readFileSync(join(__dirname, '..', 'golden', 'cuckoo-v1.bin')));
    new DataView(huge.buffer).setUint32(12, 0xffffffff, true);
    await expectFormatError(huge, 'bad-parameter');
    // Consistent table length for that count but no table: truncated.
    new DataView(huge.buffer).setBigUint64(64, BigInt(Math.ceil((0xffffffff * 4 * 12) / 8)), true);
    await expectFormatError(huge, 'truncated');
  });

  test.each([
    ['count-mismatch.bin', 'count-mismatch', /item count disagrees/],
    ['bad-victim.bin', 'bad-victim', /victim/],
    ['bad-padding.bin', 'bad-padding', /padding/],
    ['huge-bucket-count.bin', 'truncated', /truncated/],
  ] as const)('sealed hostile fixture %s (valid checksum, header disagrees with payload): %s', async (file, reason, message) => {
    const bytes = readFileSync(join(__dirname, '..', 'golden', 'hostile', file));
    expect((await expectFormatError(bytes, reason)).message).toMatch(message);
  });

  test('random bytes with a valid magic and version', async () => {
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    for (let i = 0; i < 200; i++) {
      const junk = Uint8Array.from({ length: 80 + (i % 50) }, rand);
      junk.set([0x43, 0x4b, 0x4f, 0x4f, 1, 0], 0);
      await expectFormatError(junk);
    }
  });
});
