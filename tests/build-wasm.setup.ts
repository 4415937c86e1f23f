// vitest globalSetup for the wasm project: the tests run the real artifact, so build it when stale.
import { build, isStale } from '../src/devnet/build.js';

export default function setup(): void {
  if (isStale()) build();
}
