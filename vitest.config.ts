import { defineConfig } from 'vitest/config';

// Two projects: fast pure-core unit tests first, then the tests that run the built canister wasm in the
// Node IC host (its globalSetup builds the wasm when the sources changed).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          testTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'wasm',
          include: ['tests/wasm/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          // Each file runs a multi-megabyte wasm; CI machines have two cores.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          globalSetup: ['tests/build-wasm.setup.ts'],
        },
      },
    ],
  },
});
