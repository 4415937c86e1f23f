import { defineConfig } from 'vitest/config';

// Two projects: fast pure-core unit tests, and tests that run the built canister wasm in the Node IC host.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], testTimeout: 30_000 } },
      {
        test: {
          name: 'wasm',
          include: ['tests/wasm/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          // Each file loads a multi-megabyte wasm; two cores on CI machines.
          maxWorkers: 2,
          globalSetup: ['tests/build-wasm.setup.ts'],
        },
      },
    ],
  },
});
