// The EVM engine: EthereumJS (Prague) over flat KvMap state, with a per-transaction instruction budget.
export { EvmEngine, createEvmEngine, type EvmEngineOptions } from './engine.js';
export { FlatStateManager, STATE_ROOT_KEY, type FlatStateMaps } from './state.js';
export {
  InstructionBudget,
  InstructionBudgetExceeded,
  TooManyLogs,
  TooManyLogBytes,
  PRECOMPILE_INSTRUCTIONS_PER_GAS,
  DEFAULT_CHECK_INTERVAL,
} from './budget.js';
export { createChainCommon } from './common.js';
export { WARM_UP_STEPS, isWarm, warmUpAll, type WarmUpStep } from './warmup.js';
