/**
 * Jest runs the TypeScript tests in tests/ against the built package as Node.js resolves it (dist/node.cjs, the
 * "node" condition); tests that need the browsers' build (dist/index.*, the .wasm deflated) name its path.
 *
 * Four projects, which scripts/test.sh selects by name (`--selectProjects`); `npx jest` alone runs them all:
 *   quick     tests/js/ but the long suites: `npm test`
 *   long      the suites below, each 10 s to 70 s on a 2-core machine: `npm run test:all`
 *   browser   tests/browser/ (Chromium, Firefox, WebKit, the MV3 extension, the example app, following a feed in Chromium): `npm test`
 *   runtimes  tests/runtimes/ (workerd, Deno, Bun) and following a feed in Firefox and WebKit (BROWSER_LONG): `npm run test:all`
 */
const LONG = [
  'property', // model-based properties of every family, with floors on what the sequences reached
  'adversarial', // user code inside every call: getters, Proxies, iterables that dispose or grow memory
  'cli', // the command-line tool, one process per call
  'cli-redis',
  'publish-cli', // cuckoo-wasm publish killed at every point where it writes, one process per run
  'pack', // npm pack, installed into a fresh project under each resolver
  'bundlers', // the packed package built by each bundler and run in Chromium; Deno, Bun; attw and publint
  'redis-differential', // against the recorded Redis server's model
  'binary-fuse-large', // binary fuse filters of 1,000,000 keys, in both entries
];

const base = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tests/tsconfig.json' }],
  },
  moduleNameMapper: {
    '^cuckoo-wasm$': '<rootDir>/dist/node.cjs',
    '^cuckoo-wasm/reader$': '<rootDir>/dist/reader-node.cjs',
    // js/'s own relative imports name the emitted '.js' files: a test importing js/ directly (the feed format's
    // functions, for the tests' feed publisher) resolves them to the '.ts' sources.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
};
const long = LONG.map((name) => `<rootDir>/tests/js/${name}.test.ts`);
// Feed following in Firefox and WebKit (each 15 s to 30 s on a 2-core machine, mostly the browser's launch and the
// 30 versions published): run with the runtimes, so that `npm test` keeps only Chromium's (tests/browser/feed.test.ts).
const BROWSER_LONG = ['feed-firefox', 'feed-webkit'].map((name) => `<rootDir>/tests/browser/${name}.test.ts`);

module.exports = {
  testTimeout: 120000,
  projects: [
    { ...base, displayName: 'quick', testMatch: ['<rootDir>/tests/js/**/*.test.ts'], testPathIgnorePatterns: LONG.map((name) => `/tests/js/${name}\\.test\\.ts$`) },
    { ...base, displayName: 'long', testMatch: long },
    { ...base, displayName: 'browser', testMatch: ['<rootDir>/tests/browser/**/*.test.ts'], testPathIgnorePatterns: BROWSER_LONG.map((p) => p.replace('<rootDir>', '').replace(/\./g, '\\.') + '$') },
    { ...base, displayName: 'runtimes', testMatch: ['<rootDir>/tests/runtimes/**/*.test.ts', ...BROWSER_LONG] },
  ],
};
