/**
 * Jest runs the TypeScript tests in tests/ against the built package as Node.js resolves it (dist/node.cjs, the
 * "node" condition); tests that need the browsers' build (dist/index.*, the .wasm deflated) name its path.
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tests/tsconfig.json' }],
  },
  moduleNameMapper: {
    '^cuckoo-wasm$': '<rootDir>/dist/node.cjs',
    '^cuckoo-wasm/reader$': '<rootDir>/dist/reader-node.cjs',
  },
  testTimeout: 120000,
};
