/**
 * Takes the functions js/wasm-core.ts calls out of the instantiated module:
 * each family's hot row and the other plain exports, as the wasm instance's
 * own exports where it has them, and the embind functions that take and give
 * numbers only. Touches no wasm memory.
 */
import { CoreModule, ExportPrefix, FAMILY_EXPORTS, FamilyExports, OTHER_EXPORTS, OtherExports, PREFIXES } from './core-types.js';

/** The embind functions called as they are (no memory involved): sizing, Bloom union, Redis creation and dump counts. */
export type ColdCalls = Pick<
  CoreModule,
  | 'fingerprintBitsFor' | 'firstSubFilterRate' | 'cuckooSerializedSizeFor' | 'bloomSerializedSizeFor'
  | 'bloomCompatible' | 'bloomUnion' | 'redisCuckooCreate' | 'redisBloomCreate' | 'dumpChunkCount' | 'finishDump'
>;
const COLD: readonly (keyof ColdCalls)[] = [
  'fingerprintBitsFor', 'firstSubFilterRate', 'cuckooSerializedSizeFor', 'bloomSerializedSizeFor',
  'bloomCompatible', 'bloomUnion', 'redisCuckooCreate', 'redisBloomCreate', 'dumpChunkCount', 'finishDump',
];

/**
 * The module's functions. The wasm export names are kept (CMakeLists.txt links
 * -lexports.js, which turns off their minification); if a toolchain minifies
 * them anyway, the module's wrappers still work, only slower (`direct` is then
 * false). The module object is a dictionary-mode object whose property loads
 * are slow, so the functions are taken out of it once.
 */
export function takeExports(module: CoreModule, exports: Readonly<Record<string, unknown>> | undefined): {
  rows: Record<ExportPrefix, FamilyExports>;
  hot: OtherExports;
  cold: ColdCalls;
  direct: boolean;
} {
  let direct = true;
  const take = (name: string) => {
    const raw = exports?.[name];
    if (typeof raw === 'function') return raw;
    direct = false;
    return (...args: number[]) => module[`_${name}`](...args);
  };
  const row = (prefix: ExportPrefix) =>
    Object.fromEntries(FAMILY_EXPORTS.map((op) => [op, take(`${prefix}_${op}`)])) as unknown as FamilyExports;
  const rows = Object.fromEntries(PREFIXES.map((p) => [p, row(p)])) as Record<ExportPrefix, FamilyExports>;
  const hot = Object.fromEntries(OTHER_EXPORTS.map((name) => [name, take(name)])) as unknown as OtherExports;
  const cold = Object.fromEntries(COLD.map((name) => [name, module[name]])) as unknown as ColdCalls;
  return { rows, hot, cold, direct };
}
