// The update methods only a controller may call (admin_methods.ts checks it in each method). Ingress for
// them from anyone else is refused by canister_inspect_message (inspect.ts), so on the IC such calls cost
// the canister nothing.
export const CONTROLLER_ONLY_METHODS: ReadonlySet<string> = new Set([
  'set_block_gas_limit',
  'set_instruction_soft_limit',
  'set_prune_policy',
  'set_pruning_enabled',
  'set_log_filter',
  'prune_blocks',
  'set_mining_interval',
  'mine_block',
  'set_ops_mode',
  'purge_pool',
]);
