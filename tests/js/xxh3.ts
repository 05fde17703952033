// XXH3-64 with seed 0 (xxHash 0.8, third_party/xxhash/xxhash.h), the checksum of
// the byte format (src/common/hash.h `Checksum`), ported for lengths of 17 bytes and
// more: every file and section of the format is longer than that. With it a
// test can change a field of serialized bytes and seal them again (recompute
// the checksum), so that the reader's own checks, not the checksum, are what
// refuses them. Slow (BigInt), and only for tests: checked against the checksums
// that toBytes() writes, over every code path of XXH3 (17-128, 129-240 and more
// than 240 bytes, one and several 1024-byte blocks; growth-format.test.ts).

const M64 = (1n << 64n) - 1n;
const PRIME32_1 = 0x9e3779b1n;
const PRIME32_2 = 0x85ebca77n;
const PRIME32_3 = 0xc2b2ae3dn;
const PRIME64_1 = 0x9e3779b185ebca87n;
const PRIME64_2 = 0xc2b2ae3d27d4eb4fn;
const PRIME64_3 = 0x165667b19e3779f9n;
const PRIME64_4 = 0x85ebca77c2b2ae63n;
const PRIME64_5 = 0x27d4eb2f165667c5n;

/** XXH3_kSecret, the default 192-byte secret. */
const SECRET = Uint8Array.from([
  0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
  0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
  0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
  0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
  0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
  0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
  0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
  0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
  0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
  0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
  0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
  0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
]);
const SECRET_SIZE_MIN = 136;

function readLE64(b: Uint8Array, at: number): bigint {
  const lo = (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
  const hi = (b[at + 4] | (b[at + 5] << 8) | (b[at + 6] << 16) | (b[at + 7] << 24)) >>> 0;
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** The 128-bit product of two u64, its halves XORed. */
function mul128Fold64(a: bigint, b: bigint): bigint {
  const p = a * b;
  return (p & M64) ^ (p >> 64n);
}

function avalanche(h: bigint): bigint {
  h ^= h >> 37n;
  h = (h * 0x165667919e3779f9n) & M64;
  return h ^ (h >> 32n);
}

function mix16B(input: Uint8Array, at: number, secretAt: number): bigint {
  return mul128Fold64(readLE64(input, at) ^ readLE64(SECRET, secretAt), readLE64(input, at + 8) ^ readLE64(SECRET, secretAt + 8));
}

function len17to128(input: Uint8Array): bigint {
  const len = input.length;
  let acc = (BigInt(len) * PRIME64_1) & M64;
  if (len > 32) {
    if (len > 64) {
      if (len > 96) {
        acc += mix16B(input, 48, 96) + mix16B(input, len - 64, 112);
      }
      acc += mix16B(input, 32, 64) + mix16B(input, len - 48, 80);
    }
    acc += mix16B(input, 16, 32) + mix16B(input, len - 32, 48);
  }
  acc += mix16B(input, 0, 0) + mix16B(input, len - 16, 16);
  return avalanche(acc & M64);
}

function len129to240(input: Uint8Array): bigint {
  const len = input.length;
  let acc = (BigInt(len) * PRIME64_1) & M64;
  for (let i = 0; i < 8; i++) acc += mix16B(input, 16 * i, 16 * i);
  acc = avalanche(acc & M64);
  const rounds = Math.floor(len / 16);
  for (let i = 8; i < rounds; i++) acc += mix16B(input, 16 * i, 16 * (i - 8) + 3);
  acc += mix16B(input, len - 16, SECRET_SIZE_MIN - 17);
  return avalanche(acc & M64);
}

function accumulate512(acc: bigint[], input: Uint8Array, at: number, secretAt: number): void {
  for (let i = 0; i < 8; i++) {
    const value = readLE64(input, at + 8 * i);
    const key = value ^ readLE64(SECRET, secretAt + 8 * i);
    acc[i ^ 1] = (acc[i ^ 1] + value) & M64;
    acc[i] = (acc[i] + (key & 0xffffffffn) * (key >> 32n)) & M64;
  }
}

function scramble(acc: bigint[]): void {
  const secretAt = SECRET.length - 64;
  for (let i = 0; i < 8; i++) {
    let a = acc[i];
    a ^= a >> 47n;
    a ^= readLE64(SECRET, secretAt + 8 * i);
    acc[i] = (a * PRIME32_1) & M64;
  }
}

function hashLong(input: Uint8Array): bigint {
  const len = input.length;
  const acc = [PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1];
  const stripesPerBlock = (SECRET.length - 64) / 8;
  const blockLen = 64 * stripesPerBlock;
  const blocks = Math.floor((len - 1) / blockLen);
  for (let n = 0; n < blocks; n++) {
    for (let s = 0; s < stripesPerBlock; s++) accumulate512(acc, input, n * blockLen + s * 64, s * 8);
    scramble(acc);
  }
  const stripes = Math.floor((len - 1 - blockLen * blocks) / 64);
  for (let s = 0; s < stripes; s++) accumulate512(acc, input, blocks * blockLen + s * 64, s * 8);
  accumulate512(acc, input, len - 64, SECRET.length - 64 - 7);
  let result = (BigInt(len) * PRIME64_1) & M64;
  for (let i = 0; i < 4; i++) {
    result += mul128Fold64(acc[2 * i] ^ readLE64(SECRET, 11 + 16 * i), acc[2 * i + 1] ^ readLE64(SECRET, 11 + 16 * i + 8));
  }
  return avalanche(result & M64);
}

/** XXH3_64bits(input) (seed 0), for inputs of at least 17 bytes. */
export function xxh3(input: Uint8Array): bigint {
  if (input.length <= 16) throw new Error('xxh3 (test helper) covers inputs of 17 bytes and more');
  if (input.length <= 128) return len17to128(input);
  if (input.length <= 240) return len129to240(input);
  return hashLong(input);
}

/** Writes the checksum of `file[start, end - 8)` into its last 8 bytes `file[end - 8, end)`, as the format does. */
export function seal(file: Uint8Array, start = 0, end = file.length): void {
  const sum = xxh3(file.subarray(start, end - 8));
  new DataView(file.buffer, file.byteOffset).setBigUint64(end - 8, sum, true);
}

/** True if the last 8 bytes of `file[start, end)` are the checksum of the bytes before them. */
export function sealed(file: Uint8Array, start = 0, end = file.length): boolean {
  return new DataView(file.buffer, file.byteOffset).getBigUint64(end - 8, true) === xxh3(file.subarray(start, end - 8));
}
