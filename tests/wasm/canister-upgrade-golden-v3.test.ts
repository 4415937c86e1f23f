// Upgrade over golden image v3: the stable memory of the commit that introduced layout 3 (main at f4c227c, a
// chain with commitment version 2), read back by the current wasm (tests/support/golden.ts); no migration while
// layout 3 is current.
import { describeGoldenUpgrade } from '../support/golden.js';

describeGoldenUpgrade('v3');
