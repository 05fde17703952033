// The implementations the harness knows, by the name used with --impl.
// Each adapter (FastFilter-style traits) has: name, kind, version, init(),
// create(n, ε[, sizing]) → filter, deserialize(bytes) → filter (either may return a promise;
// sizing { bits, hashes } is the m and k a Bloom filter adapter may be given instead of n and ε);
// a filter has add(key) → boolean (false: the implementation refused the key),
// has(key) → boolean, serialize() → Uint8Array, memory() → { bytes, how } | null
// (null: measure the heap; may return a promise), params() → string, dispose(); and where the
// implementation has them: addAll(keys), hasAll(keys) → boolean[], delete(key) → boolean.
export const ADAPTERS = {
  'cuckoo-wasm': () => import('./cuckoo-wasm.mjs'),
  'cuckoo-wasm-bloom': () => import('./cuckoo-wasm-bloom.mjs'),
  bloomfilter: () => import('./bloomfilter.mjs'),
  'bloom-filters-bloom': () => import('./bloom-filters-bloom.mjs'),
  'bloom-filters-cuckoo': () => import('./bloom-filters-cuckoo.mjs'),
  'cuckoo-filter': () => import('./cuckoo-filter.mjs'),
  set: () => import('./js-set.mjs'),
  // Only in the Bloom-or-cuckoo comparison (run.mjs --only compare), not by default:
  'cuckoo-wasm-grown': () => import('./cuckoo-wasm-grown.mjs'),
  'cuckoo-wasm-bloom-grown': () => import('./cuckoo-wasm-bloom-grown.mjs'),
};

/** The implementations a run compares when --impl is not given. */
export const DEFAULT_IMPLS = ['cuckoo-wasm', 'cuckoo-wasm-bloom', 'bloomfilter', 'bloom-filters-bloom', 'bloom-filters-cuckoo', 'cuckoo-filter', 'set'];

export async function loadAdapter(name) {
  const load = ADAPTERS[name];
  if (!load) throw new Error(`unknown implementation '${name}'; known: ${Object.keys(ADAPTERS).join(', ')}`);
  const adapter = (await load()).default;
  await adapter.init();
  return adapter;
}
