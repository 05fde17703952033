// The status table of the TS side (js/common/status-codes.ts) against cuckoo::Status (src/status.h):
// every enumerator's name and value in the table and every row in the header, and for
// each status the error it becomes (js/common/status.ts: class, code, reason, message).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

const root = join(__dirname, '..', '..');

/** Loads js/common/<name>.ts as CommonJS, transpiled by TypeScript; its relative imports are loaded the same way, once. */
const loaded = new Map<string, Record<string, unknown>>();
function load(name: string): Record<string, unknown> {
  const cached = loaded.get(name);
  if (cached) return cached;
  const source = readFileSync(join(root, 'js', 'common', `${name}.ts`), 'utf8');
  const js = ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS },
  }).outputText;
  const module = { exports: {} as Record<string, unknown> };
  loaded.set(name, module.exports);
  const requireLocal = (path: string) => {
    if (!path.startsWith('./')) throw new Error(`js/common/${name}.ts imports ${path}: not expected of the status table`);
    return load(path.slice(2).replace(/\.js$/, ''));
  };
  new Function('require', 'module', 'exports', js)(requireLocal, module, module.exports);
  return module.exports;
}

/** The statuses of src/status.h's CUCKOO_STATUSES list (the enum and the embind enum_ are made from it), as [name, value]. */
function headerStatuses(): [string, number][] {
  const header = readFileSync(join(root, 'src', 'status.h'), 'utf8');
  const list = /#define CUCKOO_STATUSES\(CUCKOO_STATUS\)((?:.*\\\n)*.*)/.exec(header)?.[1];
  if (list === undefined) throw new Error('src/status.h: no CUCKOO_STATUSES list');
  const code = list.replace(/\/\*[\s\S]*?\*\//g, '');
  return [...code.matchAll(/CUCKOO_STATUS\((\w+), (\d+)\)/g)].map((m) => [m[1], Number(m[2])]);
}

type Row = { value: number; kind?: string; reason?: string };
const status = {
  ...(load('status-codes') as { STATUSES: Record<string, Row>; Status: Record<string, number> }),
  ...(load('status') as { statusError: (status: number, context: object) => Error & { code?: string; reason?: string; index?: number } }),
};
const errors = load('errors') as Record<string, new (...args: never[]) => Error>;

test('src/status.h has the enumerators this test reads (the parser finds them)', () => {
  const names = headerStatuses().map(([name]) => name);
  expect(names).toContain('Ok');
  expect(names).toContain('FormatBadPadding');
  expect(names.length).toBeGreaterThanOrEqual(14);
});

test('every cuckoo::Status enumerator is a row of the table, with its value', () => {
  for (const [name, value] of headerStatuses()) {
    expect([name, status.STATUSES[name]?.value]).toEqual([name, value]);
    expect([name, status.Status[name]]).toEqual([name, value]);
  }
});

test('every row of the table is a cuckoo::Status enumerator, and no two share a value', () => {
  const header = new Map(headerStatuses());
  for (const [name, row] of Object.entries(status.STATUSES)) {
    expect([name, header.get(name)]).toEqual([name, row.value]);
  }
  const values = Object.values(status.STATUSES).map((r) => r.value);
  expect(new Set(values).size).toBe(values.length);
  expect(Object.keys(status.Status)).toEqual(Object.keys(status.STATUSES));
});

test('each error status becomes its class, code and reason; format reasons are distinct', () => {
  const context = {
    detail: 'DETAIL',
    bytes: 1234,
    full: { size: 9, slots: 8, capacity: 7, maxKicks: 6, added: 5 },
    growth: { subFilters: 32, bytes: 4321, added: 3 },
    url: { input: 'not a url', index: 7 },
    found: { what: 'a Bloom filter', className: 'BloomFilter', foreignReason: 'is-bloom-filter' },
  };
  const reasons: string[] = [];
  for (const [name, row] of Object.entries(status.STATUSES)) {
    const e = status.statusError(row.value, context);
    if (row.kind === undefined) {
      // Ok and NotFound are answers, not errors.
      expect([name, e.constructor]).toEqual([name, Error]);
      expect(e.message).toMatch(/not an error/);
      continue;
    }
    const expected = {
      full: ['FilterFullError', 'ERR_FILTER_FULL'],
      growth: ['FilterFullError', 'ERR_FILTER_FULL'],
      range: ['ArgumentRangeError', 'ERR_OUT_OF_RANGE'],
      memory: ['OutOfMemoryError', 'ERR_OUT_OF_MEMORY'],
      format: ['FilterFormatError', 'ERR_FILTER_FORMAT'],
      family: ['FilterFormatError', 'ERR_FILTER_FORMAT'],
      patch: ['FilterFormatError', 'ERR_FILTER_FORMAT'],
      url: ['InvalidUrlError', 'ERR_INVALID_URL'],
    }[row.kind];
    expect([name, expected]).not.toEqual([name, undefined]);
    const [className, code] = expected!;
    expect([name, e]).toEqual([name, expect.any(errors[className])]);
    expect([name, e.name, e.code]).toEqual([name, className, code]);
    if (row.kind === 'format') {
      expect([name, e.reason]).toEqual([name, row.reason]);
      const wrongType = row.reason === 'is-bloom-filter' || row.reason === 'is-cuckoo-filter';
      expect(e.message).toBe(`${wrongType ? 'wrong filter type' : 'not a valid cuckoo-wasm filter'}: DETAIL`);
      reasons.push(row.reason!);
    } else if (row.kind === 'patch') {
      // A patch refused (FORMAT.md §17): its own reason, distinct from the filter format's.
      expect([name, e.reason]).toEqual([name, row.reason]);
      expect(e.message).toBe('patch refused: DETAIL');
      reasons.push(row.reason!);
    } else if (row.kind === 'family') {
      // The one wrong-family status: the reason and message name the family the bytes hold.
      expect([name, e.reason]).toEqual([name, 'is-bloom-filter']);
      expect(e.message).toBe('wrong filter type: these bytes hold a Bloom filter: load them with BloomFilter.fromBytes');
    } else if (row.kind === 'url') {
      expect([name, e.reason, e.index]).toEqual([name, row.reason, 7]);
      expect(e).toBeInstanceOf(TypeError);
      expect(e.message).toBe('"not a url" (index 7) is not a URL: DETAIL');
    } else {
      expect(row.reason).toBeUndefined();
    }
    if (row.kind === 'range') expect(e.message).toContain('DETAIL');
    if (row.kind === 'memory') expect(e).toMatchObject({ requestedBytes: 1234, message: expect.stringContaining('1234 bytes') });
    if (row.kind === 'full') {
      expect(e).toMatchObject({ added: 5 });
      expect(e.message).toMatch(/9 fingerprints in 8 slots, capacity 7\): no slot found after 6 kicks/);
    }
    if (row.kind === 'growth') {
      expect(e).toMatchObject({ added: 3 });
      expect(e.message).toMatch(/cannot grow further \(32 sub-filters, 4321 bytes/);
    }
  }
  expect(new Set(reasons).size).toBe(reasons.length);
  // 10 filter-format reasons of statuses (FormatTruncated .. FormatBadPadding, FormatBadChunk; another family's bytes
  // take their family's foreignReason) and 7 patch reasons.
  expect(reasons.length).toBe(17);
});

test('a value the table does not have is reported as a plain Error naming it', () => {
  for (const value of [5, 9, 24, 255, -1]) {
    const e = status.statusError(value, { detail: 'x' });
    expect(e.constructor).toBe(Error);
    expect(e.message).toContain(`status ${value}`);
  }
});

test('the wrong-family status names the family found, either way round', () => {
  const cuckoo = { what: 'a cuckoo filter', className: 'CuckooFilter', foreignReason: 'is-cuckoo-filter' };
  const e = status.statusError(status.Status.FormatWrongFamily, { detail: 'DETAIL', found: cuckoo });
  expect([e.name, e.code, e.reason]).toEqual(['FilterFormatError', 'ERR_FILTER_FORMAT', 'is-cuckoo-filter']);
  expect(e.message).toBe('wrong filter type: these bytes hold a cuckoo filter: load them with CuckooFilter.fromBytes');
});

test("checkStatuses takes a module whose status constants are the table's, and refuses one that differs either way", () => {
  const { checkStatuses } = load('status') as { checkStatuses: (module: Record<string, unknown>) => void };
  const module: Record<string, unknown> = { statusMessage: () => '' };
  for (const [name, row] of Object.entries(status.STATUSES)) module[`status${name}`] = row.value;
  expect(() => checkStatuses(module)).not.toThrow();
  expect(() => checkStatuses({ ...module, statusGrowthLimit: 99 })).toThrow(/status GrowthLimit 99, this build 21/);
  expect(() => checkStatuses({ ...module, statusBrandNew: 50 })).toThrow(/status BrandNew 50, this build undefined/);
  const { statusOk: _ok, ...missing } = module;
  expect(() => checkStatuses(missing)).toThrow(/status Ok undefined, this build 0/);
});
