/**
 * A raw DEFLATE decoder (RFC 1951): turns the module's embedded, deflated
 * WebAssembly bytes back into the .wasm where `DecompressionStream` is not
 * there to do it (js/load.ts). It reads what scripts/build.mjs writes, and
 * anything else a DEFLATE stream may hold: stored, fixed and dynamic Huffman
 * blocks. Each Huffman code is decoded through one lookup table indexed by the
 * next `max` bits (its longest code length), so a symbol costs one read.
 */

/** A Huffman code as a lookup table: entry = symbol << 4 | code length, indexed by the next `max` bits. */
interface Code {
  table: Int32Array;
  max: number;
}

/** The code whose symbol i has lengths[i] bits (0: unused), as RFC 1951 §3.2.2 assigns them. */
function huffman(lengths: ArrayLike<number>): Code {
  const count = new Uint16Array(16);
  let max = 0;
  for (let i = 0; i < lengths.length; i++) {
    count[lengths[i]]++;
    if (lengths[i] > max) max = lengths[i];
  }
  count[0] = 0;
  const next = new Uint16Array(16);
  for (let b = 1, code = 0; b < 16; b++) next[b] = code = (code + count[b - 1]) << 1;
  const table = new Int32Array(1 << max);
  for (let sym = 0; sym < lengths.length; sym++) {
    const len = lengths[sym];
    if (len === 0) continue;
    // Codes are read bit by bit from the low end: index the table by the bit-reversed code.
    let code = next[len]++;
    let rev = 0;
    for (let b = 0; b < len; b++, code >>= 1) rev = (rev << 1) | (code & 1);
    for (let j = rev; j < table.length; j += 1 << len) table[j] = (sym << 4) | len;
  }
  return { table, max };
}

/** Base values and extra bits of the length codes 257..285 and distance codes 0..29 (RFC 1951 §3.2.5). */
const lengthExtra: number[] = [];
const lengthBase: number[] = [];
const distanceExtra: number[] = [];
const distanceBase: number[] = [];
for (let i = 0, base = 3; i < 29; i++) {
  lengthExtra[i] = i < 8 || i === 28 ? 0 : (i >> 2) - 1;
  lengthBase[i] = i === 28 ? 258 : base;
  base += 1 << lengthExtra[i];
}
for (let i = 0, base = 1; i < 30; i++) {
  distanceExtra[i] = i < 4 ? 0 : (i >> 1) - 1;
  distanceBase[i] = base;
  base += 1 << distanceExtra[i];
}
/** The order in which a dynamic block gives its code-length code's lengths. */
const codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/**
 * Decodes a raw DEFLATE stream (no zlib or gzip wrapper).
 * @param src the compressed bytes.
 * @param sizeHint the decoded size if known (the output grows past it if needed).
 * @returns the decoded bytes.
 * @throws Error if the stream is malformed.
 */
export function inflateRaw(src: Uint8Array, sizeHint = src.length * 4): Uint8Array {
  let out = new Uint8Array(sizeHint);
  let pos = 0;
  let at = 0; // next byte of src
  let buf = 0; // bits read and not used, low bits first
  let have = 0; // how many
  const bits = (n: number): number => {
    while (have < n) {
      buf |= (src[at++] | 0) << have;
      have += 8;
    }
    const v = buf & ((1 << n) - 1);
    buf >>>= n;
    have -= n;
    return v;
  };
  const symbol = (c: Code): number => {
    while (have < c.max) {
      buf |= (src[at++] | 0) << have;
      have += 8;
    }
    const e = c.table[buf & ((1 << c.max) - 1)];
    const len = e & 15;
    if (len === 0 || at > src.length + 4) throw new Error('inflate: malformed DEFLATE data');
    buf >>>= len;
    have -= len;
    return e >> 4;
  };
  const room = (n: number) => {
    if (pos + n <= out.length) return;
    const bigger = new Uint8Array(Math.max(out.length * 2, pos + n));
    bigger.set(out);
    out = bigger;
  };
  let fixed: [Code, Code] | undefined;
  for (let last = 0; !last; ) {
    last = bits(1);
    const type = bits(2);
    if (type === 0) {
      // A stored block: to the byte boundary, LEN, NLEN, LEN bytes. Whole
      // bytes read ahead into buf (a code's lookahead) go back first.
      at -= have >> 3;
      buf = have = 0;
      const len = src[at] | (src[at + 1] << 8);
      if (at + 4 + len > src.length) throw new Error('inflate: truncated DEFLATE data');
      room(len);
      out.set(src.subarray(at + 4, at + 4 + len), pos);
      pos += len;
      at += 4 + len;
      continue;
    }
    let codes: [Code, Code];
    if (type === 1) {
      if (!fixed) {
        const l: number[] = [];
        for (let i = 0; i < 288; i++) l[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
        fixed = [huffman(l), huffman(new Array(30).fill(5))];
      }
      codes = fixed;
    } else if (type === 2) {
      const nlen = bits(5) + 257;
      const ndist = bits(5) + 1;
      const ncode = bits(4) + 4;
      const cl = new Uint8Array(19);
      for (let i = 0; i < ncode; i++) cl[codeLengthOrder[i]] = bits(3);
      const clCode = huffman(cl);
      const lengths = new Uint8Array(nlen + ndist);
      for (let i = 0; i < nlen + ndist; ) {
        const s = symbol(clCode);
        if (s < 16) {
          lengths[i++] = s;
          continue;
        }
        const [value, repeat] =
          s === 16 ? [lengths[i - 1], 3 + bits(2)] : s === 17 ? [0, 3 + bits(3)] : [0, 11 + bits(7)];
        if ((s === 16 && i === 0) || i + repeat > nlen + ndist) throw new Error('inflate: malformed DEFLATE data');
        lengths.fill(value, i, i + repeat);
        i += repeat;
      }
      codes = [huffman(lengths.subarray(0, nlen)), huffman(lengths.subarray(nlen))];
    } else {
      throw new Error('inflate: malformed DEFLATE data');
    }
    const [litlen, dist] = codes;
    for (;;) {
      const s = symbol(litlen);
      if (s < 256) {
        room(1);
        out[pos++] = s;
      } else if (s === 256) {
        break;
      } else {
        const len = lengthBase[s - 257] + bits(lengthExtra[s - 257]);
        const d = symbol(dist);
        const back = distanceBase[d] + bits(distanceExtra[d]);
        if (s > 285 || d > 29 || back > pos) throw new Error('inflate: malformed DEFLATE data');
        room(len);
        for (let k = 0; k < len; k++, pos++) out[pos] = out[pos - back];
      }
    }
  }
  return pos === out.length ? out : out.slice(0, pos);
}
