import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './tests/support/sequencer.js';

// `unit` and `wasm` share one pool (same group order, so the same worker count): a file per core, at least two
// (vitest's default leaves one of two cores idle), at most four (a wasm file's worker holds a large heap).
const POOL_WORKERS = Math.min(4, Math.max(2, availableParallelism()));

// Projects: pure-core unit tests and the tests that run the built canister wasm in the Node IC host (its
// globalSetup builds the wasm when the sources changed) in one pool, then the end-to-end client tests.
export default defineConfig({
  test: {
    // The default reporter, then each project's total and the slowest files (tests/support/file_times_reporter.ts).
    reporters: ['default', './tests/support/file_times_reporter.ts'],
    // Longest files first (measured times), so a long file never starts last beside an idle core.
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          testTimeout: 60_000,
          // One pool with `wasm`: a worker that ends a unit file takes the next file of either project, so
          // neither core idles at the seam between the two.
          maxWorkers: POOL_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'wasm',
          include: ['tests/wasm/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          // Each file runs a multi-megabyte wasm. Pooled with `unit` (see there).
          maxWorkers: POOL_WORKERS,
          sequence: { groupOrder: 0 },
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
          sequence: { groupOrder: 1 },
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
          sequence: { groupOrder: 2 },
          globalSetup: ['tests/e2e/global-setup-agent.ts'],
        },
      },
    ],
  },
});
