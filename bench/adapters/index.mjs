// The implementations the harness knows, by the name used with --impl.
// Each adapter (FastFilter-style traits) has: name, kind, version, init(),
// create(n, ε) → filter, deserialize(bytes) → filter (either may return a promise);
// a filter has add(key) → boolean (false: the implementation refused the key),
// has(key) → boolean, serialize() → Uint8Array, memory() → { bytes, how } | null
// (null: measure the heap; may return a promise), params() → string, dispose(); and where the
// implementation has them: addAll(keys), hasAll(keys) → boolean[], delete(key) → boolean.
export const ADAPTERS = {
  'cuckoo-wasm': () => import('./cuckoo-wasm.mjs'),
  bloomfilter: () => import('./bloomfilter.mjs'),
  'bloom-filters-bloom': () => import('./bloom-filters-bloom.mjs'),
  'bloom-filters-cuckoo': () => import('./bloom-filters-cuckoo.mjs'),
  'cuckoo-filter': () => import('./cuckoo-filter.mjs'),
  set: () => import('./js-set.mjs'),
};

export async function loadAdapter(name) {
  const load = ADAPTERS[name];
  if (!load) throw new Error(`unknown implementation '${name}'; known: ${Object.keys(ADAPTERS).join(', ')}`);
  const adapter = (await load()).default;
  await adapter.init();
  return adapter;
}
