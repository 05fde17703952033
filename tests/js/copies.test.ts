// One identity per class across the package's copies (the full entry and the reader are separate bundles, each with
// its own classes): an error thrown by one is `instanceof` its class from the other, both ways, and nothing else's;
// a filter of one is taken wherever the other takes a filter (diff, union, isCompatible), by its bytes.
import * as full from 'cuckoo-wasm';
import * as reader from 'cuckoo-wasm/reader';

const ERRORS = ['FilterFormatError', 'FilterDisposedError', 'ArgumentTypeError', 'ArgumentRangeError', 'FilterFullError', 'OutOfMemoryError', 'InvalidUrlError', 'WasmLoadError', 'WasmInitError'] as const;
type Lib = Record<string, unknown>;
const classOf = (lib: Lib, name: string) => lib[name] as new (...a: never[]) => Error;

/** An error of each kind the reader throws, caught. */
async function readerErrors(): Promise<Record<string, unknown>> {
  const caught = async (f: () => unknown) => {
    try {
      await f();
    } catch (e) {
      return e;
    }
    throw new Error('did not throw');
  };
  const f = await reader.CuckooFilter.fromBytes((await full.CuckooFilter.create({ capacity: 10 })).toBytes());
  const errors = {
    FilterFormatError: await caught(() => reader.CuckooFilter.fromBytes(new Uint8Array(40))),
    ArgumentTypeError: await caught(() => f.has(42 as never)),
    ArgumentRangeError: await caught(() => f.hasAll(['a', 'b'], new Uint8Array(1))),
    InvalidUrlError: await caught(() => f.hasUrl('')),
    FilterDisposedError: await caught(() => {
      f.dispose();
      return f.has('a');
    }),
  };
  return errors;
}

test('an error the reader throws is instanceof its class from the full entry, and of no other class', async () => {
  const errors = await readerErrors();
  for (const [name, e] of Object.entries(errors)) {
    for (const other of ERRORS) {
      const expected = other === name;
      expect([name, other, e instanceof classOf(full, other)]).toEqual([name, other, expected]);
      if (other in reader) expect([name, other, e instanceof classOf(reader, other)]).toEqual([name, other, expected]);
    }
    expect(e).toBeInstanceOf(Error);
  }
});

test('an error the full entry throws is instanceof its class from the reader', async () => {
  const f = await full.CuckooFilter.create({ capacity: 10 });
  let error: unknown;
  try {
    f.add(42 as never);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(reader.ArgumentTypeError);
  expect(error).not.toBeInstanceOf(reader.ArgumentRangeError);
  f.dispose();
});

test('the same code from elsewhere is not enough: a Node.js error with code ERR_INVALID_ARG_TYPE is no ArgumentTypeError', () => {
  const node = Object.assign(new TypeError('x'), { code: 'ERR_INVALID_ARG_TYPE' });
  expect(node instanceof full.ArgumentTypeError).toBe(false);
  expect(node instanceof reader.ArgumentTypeError).toBe(false);
  for (const value of [null, undefined, 1, 'ERR_INVALID_ARG_TYPE', { code: 'ERR_INVALID_ARG_TYPE' }]) {
    expect(value instanceof full.ArgumentTypeError).toBe(false);
  }
});

test("a class a user derives keeps the ordinary instanceof: the package's error is not one of it", () => {
  class Mine extends full.FilterFullError {}
  expect(new full.FilterFullError('full', 0) instanceof Mine).toBe(false);
  expect(new Mine('full', 0) instanceof full.FilterFullError).toBe(true);
  expect(new Mine('full', 0) instanceof reader.ArgumentTypeError).toBe(false);
});

test("full.diff takes the reader's filter (by its bytes): the same patch as from the full entry's own", async () => {
  const older = await full.CuckooFilter.create({ capacity: 100 });
  older.addAll(['a', 'b']);
  const newer = await full.CuckooFilter.fromBytes(older.toBytes());
  newer.add('c');
  const read = await reader.CuckooFilter.fromBytes(older.toBytes());
  expect(newer.diff(read as never)).toEqual(newer.diff(older));
  const bloom = await reader.BloomFilter.fromBytes((await full.BloomFilter.create({ capacity: 10 })).toBytes());
  expect(() => newer.diff(bloom as never)).toThrow(full.FilterFormatError);
  read.dispose();
  expect(() => newer.diff(read as never)).toThrow(full.FilterDisposedError);
  for (const x of [older, newer, bloom]) x.dispose();
});

test("a Bloom filter's union and isCompatible take the reader's Bloom filter", async () => {
  const other = await full.BloomFilter.create({ capacity: 100 });
  other.add('x');
  const read = await reader.BloomFilter.fromBytes(other.toBytes());
  const local = await full.BloomFilter.create({ capacity: 100 });
  expect(local.isCompatible(read as never)).toBe(true);
  local.union(read as never);
  expect(local.has('x')).toBe(true);
  for (const x of [other, read, local]) x.dispose();
});

// What another copy's filter gives is user code: whatever its toBytes() does or returns ends in a typed error.
const FAMILY = Symbol.for('cuckoo-wasm.filter-family');
const BLOOM_ID = 2;
const fake = (toBytes: () => unknown) => ({ [FAMILY]: BLOOM_ID, toBytes });

test("another copy's toBytes() that returns no bytes, detached ones or another typed array: ArgumentTypeError", async () => {
  const local = await full.BloomFilter.create({ capacity: 100 });
  const detached = new ArrayBuffer(8);
  const view = new Uint8Array(detached);
  structuredClone(detached, { transfer: [detached] });
  for (const result of ['bytes', {}, new Uint16Array(4), detached, view]) {
    expect(() => local.union(fake(() => result) as never)).toThrow(full.ArgumentTypeError);
    expect(() => local.isCompatible(fake(() => result) as never)).toThrow(full.ArgumentTypeError);
  }
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  expect(() => local.union(proxy as never)).toThrow(full.ArgumentTypeError);
  // Its own error passes through.
  expect(() => local.union(fake(() => { throw new RangeError('mine'); }) as never)).toThrow('mine');
  local.add('x');
  expect(local.has('x')).toBe(true);
  local.dispose();
});

test("another copy's toBytes() that disposes this filter: FilterDisposedError, not embind's BindingError", async () => {
  const other = await full.BloomFilter.create({ capacity: 100 });
  const bytes = other.toBytes();
  for (const op of ['union', 'isCompatible'] as const) {
    const local = await full.BloomFilter.create({ capacity: 100 });
    const hostile = fake(() => {
      local.dispose();
      return bytes;
    });
    expect(() => local[op](hostile as never)).toThrow(full.FilterDisposedError);
  }
  other.dispose();
});

test('instanceof with a Proxy or an object whose getter throws: false, not the getter\'s error', () => {
  const proxy = new Proxy({}, { get() { throw new Error('boom'); } });
  expect(proxy instanceof full.FilterFullError).toBe(false);
  const getter = Object.defineProperty({}, Symbol.for('cuckoo-wasm.error-code'), { get() { throw new Error('boom'); } });
  expect(getter instanceof reader.FilterFormatError).toBe(false);
});
