import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Three projects: fast pure-core unit tests first, then the tests that run the built canister wasm in the
// Node IC host (its globalSetup builds the wasm when the sources changed), then the end-to-end client tests.
export default defineConfig({
  test: {
    // The default reporter, then each project's total and the slowest files (tests/support/file_times_reporter.ts).
    reporters: ['default', './tests/support/file_times_reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          testTimeout: 60_000,
          // Independent, CPU-bound files: one per core (vitest's default leaves a core idle, one worker on two cores).
          maxWorkers: availableParallelism(),
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
      {
        test: {
          // Real clients (web3.js, cast/forge, Hardhat) against `npm start` in its own process, and the
          // differential run against anvil. One file at a time: each drives a devnet that mines on the wall clock.
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
          globalSetup: ['tests/e2e/global-setup.ts'],
        },
      },
      {
        test: {
          // The same client suite against the gateway run as its own process over HttpAgent and the devnet's
          // IC HTTP interface (the production path: the agent's certificate and query-signature checks).
          name: 'e2e-agent',
          include: ['tests/e2e/web3.test.ts', 'tests/e2e/foundry.test.ts', 'tests/e2e/hardhat.test.ts', 'tests/e2e/differential.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          maxWorkers: 1,
          sequence: { groupOrder: 3 },
          globalSetup: ['tests/e2e/global-setup-agent.ts'],
        },
      },
    ],
  },
});
