/** Jest runs the TypeScript tests in tests/ against the built package (dist/index.cjs). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tests/tsconfig.json' }],
  },
  moduleNameMapper: {
    '^cuckoo-wasm$': '<rootDir>/dist/index.cjs',
  },
  testTimeout: 120000,
};
