// Upgrade over golden image v2: the stable memory of the release that introduced layout 2 (branch wt/upgrade
// at 97fcfcd), read back by the current wasm (tests/support/golden.ts), which migrates it to the current layout.
import { describeGoldenUpgrade } from '../support/golden.js';

describeGoldenUpgrade('v2');
