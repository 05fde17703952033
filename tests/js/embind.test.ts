// embind is the binding layer of both modules: each .wasm imports embind's registration functions, registers its
// constants and functions when its static constructors run, and one class per family of the registry, with its
// factories and whole-filter methods, on the family's first use (the export register_family); the reader's module
// registers the same classes without the writers (no create, compact, union, loadDumpHeader, ...). Read here from
// the .wasm files themselves, instantiated with recording imports.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REGISTRY } from '../../js/registry';

const dist = join(__dirname, '..', '..', 'dist');

interface Registered {
  classes: Map<string, { methods: string[]; classFunctions: string[] }>;
  functions: string[];
  /** Classes registered by the constructors alone. */
  atStart: string[];
  /** register_family's status for each number, and for a number that names no family. */
  statuses: Map<number, number>;
}

/** What the module at `file` registers with embind when its constructors run. */
function registrations(file: string): Registered {
  const module = new WebAssembly.Module(readFileSync(join(dist, file)));
  let memory: WebAssembly.Memory | undefined;
  const text = (ptr: number) => {
    const bytes = new Uint8Array(memory!.buffer);
    let end = ptr;
    while (bytes[end] !== 0) end++;
    return new TextDecoder().decode(bytes.subarray(ptr, end));
  };
  const out: Registered = { classes: new Map(), functions: [], atStart: [], statuses: new Map() };
  const byType = new Map<number, string>();
  const calls: Record<string, (...a: number[]) => number | void> = {
    _embind_register_class: (rawType, ...rest) => {
      const name = text(rest[9]);
      byType.set(rawType, name);
      out.classes.set(name, { methods: [], classFunctions: [] });
    },
    _embind_register_class_function: (rawClass, name) => void out.classes.get(byType.get(rawClass)!)!.methods.push(text(name)),
    _embind_register_class_class_function: (rawClass, name) => void out.classes.get(byType.get(rawClass)!)!.classFunctions.push(text(name)),
    _embind_register_function: (name) => void out.functions.push(text(name)),
  };
  const imports: Record<string, Record<string, WebAssembly.ImportValue>> = {};
  for (const i of WebAssembly.Module.imports(module)) {
    imports[i.module] ??= {};
    if (i.kind === 'function') imports[i.module][i.name] = calls[i.name] ?? (() => 0);
  }
  const instance = new WebAssembly.Instance(module, imports);
  memory = instance.exports.memory as WebAssembly.Memory;
  (instance.exports.__wasm_call_ctors as () => void)();
  out.atStart = [...out.classes.keys()];
  const register = instance.exports.register_family as (family: number) => number;
  for (const { id } of families) {
    register(id);
    const registered = out.classes.size;
    out.statuses.set(id, register(id)); // a second call registers nothing
    expect(out.classes.size).toBe(registered);
  }
  out.statuses.set(99, register(99));
  return out;
}

/**
 * register_family(family) of the full module whose memory cannot grow and is taken by malloc down to its last bytes:
 * the status, the classes it registered, and then both again once one 64 KiB block is freed.
 */
function registeringWithoutRoom(family: number): { full: [number, number]; freed: [number, number] } {
  const module = new WebAssembly.Module(readFileSync(join(dist, 'cuckoo-core.wasm')));
  let classes = 0;
  const imports: Record<string, Record<string, WebAssembly.ImportValue>> = {};
  for (const i of WebAssembly.Module.imports(module)) {
    imports[i.module] ??= {};
    // emscripten_resize_heap answers 0: memory never grows.
    if (i.kind === 'function') imports[i.module][i.name] = i.name === '_embind_register_class' ? () => void classes++ : () => 0;
  }
  const x = new WebAssembly.Instance(module, imports).exports as Record<string, (...a: number[]) => number>;
  x.__wasm_call_ctors();
  const blocks: number[] = [];
  for (const size of [65536, 4096, 256, 16, 1]) for (let p = x.malloc(size); p !== 0; p = x.malloc(size)) blocks.push(p);
  const full: [number, number] = [x.register_family(family), classes];
  x.free(blocks[0]);
  return { full, freed: [x.register_family(family), classes] };
}

const WRITERS = ['create', 'compact', 'union', 'isCompatible', 'loadDumpHeader', 'loadDumpChunk', 'finishDump'];
// Each family's registered name: its core constant's (family<Name>), as bindings/embind.cc names its class.
const families = Object.values(REGISTRY).map((f) => ({ name: f.constant.slice('family'.length), id: f.id }));

test.each([
  ['cuckoo-core.wasm', true],
  ['cuckoo-reader.wasm', false],
])('%s imports embind and registers a class per family (writers: %s)', (file, writers) => {
  const imported = WebAssembly.Module.imports(new WebAssembly.Module(readFileSync(join(dist, file)))).map((i) => i.name);
  expect(imported).toEqual(expect.arrayContaining(['_embind_register_class', '_embind_register_class_function', '_embind_register_function']));
  const r = registrations(file);
  expect(r.atStart).toEqual([]);
  expect([...r.classes.keys()].sort()).toEqual(families.map((f) => f.name).sort());
  expect([...r.statuses]).toEqual([...families.map((f) => [f.id, 0]), [99, -3]]); // 0: ok, -3: InvalidArgument
  for (const family of families) {
    const c = r.classes.get(family.name)!;
    expect([family.name, c.classFunctions.includes('fromBytes')]).toEqual([family.name, true]);
    expect(c.methods).toEqual(expect.arrayContaining(['handle', 'toBytes', 'info']));
    const has = [...c.methods, ...c.classFunctions].filter((m) => WRITERS.includes(m));
    if (writers) expect([family.name, has.includes('create')]).toEqual([family.name, true]);
    else expect([family.name, has]).toEqual([family.name, []]);
  }
  expect(r.functions).toEqual(expect.arrayContaining(['statusMessage', 'peekFamily', 'patchApply', 'patchInfo']));
  expect(r.functions.includes('patchDiff')).toBe(writers);
});

test('a family whose class cannot be registered for want of memory: OutOfMemory (-4), not an abort; registered once there is room', () => {
  const cuckoo = Object.values(REGISTRY)[0].id;
  expect(registeringWithoutRoom(cuckoo)).toEqual({ full: [-4, 0], freed: [0, 1] });
});
