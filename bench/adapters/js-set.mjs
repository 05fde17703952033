// Adapter: a JavaScript Set of the key strings: exact (no false positives), the
// baseline every filter is compared with. Its memory is not a structure size but
// an estimate: the harness measures the V8 heap growth while the Set is built
// (after a full GC, --expose-gc), and adds the heap size of the key strings,
// measured the same way when the harness loads them (a Set must keep its keys).
// Serialized as JSON text of the array of keys; loaded with new Set(JSON.parse(text)).
let encoder;
let decoder;

class Filter {
  constructor(s) {
    this.s = s;
  }
  add(key) {
    this.s.add(key);
    return true;
  }
  has(key) {
    return this.s.has(key);
  }
  delete(key) {
    return this.s.delete(key);
  }
  serialize() {
    return encoder.encode(JSON.stringify(Array.from(this.s)));
  }
  memory() {
    return null; // measured: heap delta of the Set plus the key strings' heap
  }
  params() {
    return `exact, ${this.s.size} strings`;
  }
  dispose() {}
}

export default {
  name: 'JS Set',
  kind: 'exact set (baseline)',
  version: `node ${process.version}`,
  keepsKeys: true,
  async init() {
    encoder = new TextEncoder();
    decoder = new TextDecoder();
  },
  create() {
    return new Filter(new Set());
  },
  deserialize(bytes) {
    return new Filter(new Set(JSON.parse(decoder.decode(bytes))));
  },
};
