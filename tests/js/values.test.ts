// Filters as values, in both entries: `new` on a class in user code is refused with a typed error naming the
// factories (the constructors are the factories' alone), console.log / util.inspect show one line rather than the
// module's internals, and JSON.stringify writes info() (the seed, a bigint, as a decimal string).
import { inspect } from 'node:util';
import * as full from 'cuckoo-wasm';
import * as reader from 'cuckoo-wasm/reader';
import { KEY_FAMILIES } from './families';

type Class = new (...args: unknown[]) => unknown;
const entries = [
  ['cuckoo-wasm', full],
  ['cuckoo-wasm/reader', reader],
] as const;

describe.each(KEY_FAMILIES.map((f) => [f.name, f] as const))('%s', (_, family) => {
  const name = family.row.className;

  test.each(entries)('new %s.' + name + '() throws ArgumentTypeError naming its factories, with or without arguments', (entry, lib) => {
    const cls = (lib as unknown as Record<string, Class>)[name];
    for (const args of [[], [{}, {}], [undefined, undefined, { capacity: 1 }]]) {
      let error: unknown;
      try {
        new cls(...args);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(lib.ArgumentTypeError);
      const message = (error as Error).message;
      expect(message).toContain(`${name} has no public constructor`);
      expect(message).toContain(`${name}.fromBytes(bytes)`);
      expect(message.includes(`${name}.create(options)`)).toBe(entry === 'cuckoo-wasm');
    }
  });

  test('util.inspect and console.log show one line: class, size, bytes, false-positive rate; <disposed> after dispose', async () => {
    const f = await family.create({ capacity: 1000 });
    f.addAll(['a', 'b', 'c']);
    const shown = inspect(f);
    expect(shown).toBe(`${name} { size: ${f.size}, byteLength: ${f.byteLength}, falsePositiveRate: ${f.falsePositiveRate} }`);
    expect(inspect({ nested: [f] })).toContain(`${name} { size: `);
    const read = await (reader as unknown as Record<string, { fromBytes(b: Uint8Array): Promise<{ dispose(): void }> }>)[name].fromBytes(f.toBytes());
    expect(inspect(read)).toBe(shown);
    read.dispose();
    f.dispose();
    expect(inspect(f)).toBe(`${name} <disposed>`);
  });

  test('JSON.stringify writes info(), bigints as decimal strings; { disposed: true } after dispose', async () => {
    const f = await family.create({ capacity: 1000, seed: 2n ** 64n - 1n });
    f.add('a');
    const info = f.info() as unknown as Record<string, unknown>;
    const json = JSON.parse(JSON.stringify(f)) as Record<string, unknown>;
    const expected = Object.fromEntries(Object.entries(info).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]));
    expect(json).toEqual(JSON.parse(JSON.stringify(expected)));
    if ('seed' in info) expect(json.seed).toBe((info.seed as bigint).toString());
    f.dispose();
    expect(JSON.stringify(f)).toBe('{"disposed":true}');
  });
});
