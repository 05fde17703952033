/**
 * Gives a class of the package its name as its `name` property. The bundles' TypeScript is minified without
 * esbuild's keepNames (which wraps every function, about 1.1 KB gzipped), so the classes users see (the filters,
 * the errors) say their names here: `CuckooFilter.name`, `err.constructor.name`, and the class names in messages
 * (js/common/checks.ts describe) stay readable.
 */
export function named(cls: object, name: string): void {
  Object.defineProperty(cls, 'name', { value: name, configurable: true });
}
