// Every devnet-only development method, in the order the compatibility matrix lists them.
import { EVM_ALIASES, EVM_METHODS } from './dev.js';
import { MINING_METHODS } from './dev_mining.js';
import { NODE_METHODS } from './dev_node.js';
import { STATE_METHODS } from './dev_state.js';
import type { MethodSpec } from './types.js';

export const DEV_METHODS: readonly MethodSpec[] = [...EVM_METHODS, ...EVM_ALIASES, ...MINING_METHODS, ...STATE_METHODS, ...NODE_METHODS];
export const DEV_METHOD_TABLE: ReadonlyMap<string, MethodSpec> = new Map(DEV_METHODS.map((m) => [m.name, m]));
