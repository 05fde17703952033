/**
 * cuckoo-wasm: a cuckoo filter (Fan et al., CoNEXT 2014) compiled from C++ to
 * WebAssembly, with a typed API. Entry point for ESM (`import`) and CommonJS
 * (`require`).
 *
 * @packageDocumentation
 */
export { CuckooFilter, wasmMemoryUsage } from './cuckoo-filter.js';
export type { CuckooFilterOptions, WasmMemoryUsage } from './cuckoo-filter.js';
export type { Key } from './wasm-core.js';
export {
  ArgumentRangeError,
  ArgumentTypeError,
  FilterDisposedError,
  FilterFormatError,
  FilterFullError,
  OutOfMemoryError,
  WasmLoadError,
} from './errors.js';
export type { FilterFormatReason, WasmLoadReason } from './errors.js';
