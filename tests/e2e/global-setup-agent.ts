// vitest globalSetup of the e2e-agent project: the same client suite against a gateway run as its own process
// over HttpAgent and the devnet's IC HTTP interface (see global-setup.ts).
import type { TestProject } from 'vitest/node';
import { startShared } from './global-setup.js';

export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return startShared(project, 'agent');
}
