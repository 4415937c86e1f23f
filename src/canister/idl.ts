// The canister's Candid types, defined once. This module imports nothing at run time: it is a factory over
// whichever `IDL` object the caller has (azle re-exports @dfinity/candid's; the host tests, the gateway and
// the indexer pass their own), the same shape as dfx's generated `idlFactory`.
import type { IDL as IdlNamespace } from '@dfinity/candid';

type Idl = typeof IdlNamespace;

export function candidTypes(IDL: Idl) {
  /** Every fallible method returns Result<T> = variant { Ok : T; Err : Error }. `code` is a stable code from SPEC.md. */
  const Error = IDL.Record({ code: IDL.Text, message: IDL.Text, data: IDL.Opt(IDL.Vec(IDL.Nat8)) });
  const Result = (ok: IdlNamespace.Type) => IDL.Variant({ Ok: ok, Err: Error });

  const GenesisAllocation = IDL.Record({ address: IDL.Vec(IDL.Nat8), balance: IDL.Nat });
  const PrunePolicy = IDL.Record({
    /** Keep at least this many most recent blocks (bodies, receipts, logs); 0 keeps everything. */
    keep_recent_blocks: IDL.Nat64,
    /** Prune oldest blocks while stored history exceeds this many bytes; 0 disables the size budget. */
    max_history_bytes: IDL.Nat64,
    timer_interval_ms: IDL.Nat64,
    max_ops_per_tick: IDL.Nat32,
  });
  /** Every field is optional: installing with no argument (or an empty record) uses SPEC.md's defaults. */
  const InitArgs = IDL.Record({
    genesis_allocations: IDL.Opt(IDL.Vec(GenesisAllocation)),
    mining_interval_ms: IDL.Opt(IDL.Nat64),
    base_fee: IDL.Opt(IDL.Nat),
    min_gas_price: IDL.Opt(IDL.Nat),
    min_priority_fee: IDL.Opt(IDL.Nat),
    block_gas_limit: IDL.Opt(IDL.Nat64),
    instruction_soft_limit: IDL.Opt(IDL.Nat64),
    prune_policy: IDL.Opt(PrunePolicy),
    pruning_enabled: IDL.Opt(IDL.Bool),
    /** 20-byte address credited with priority fees; default the zero address. */
    fee_recipient: IDL.Opt(IDL.Vec(IDL.Nat8)),
  });

  const OpsMode = IDL.Variant({ Normal: IDL.Null, Migration: IDL.Null, Cycle: IDL.Null, CriticalCorrupt: IDL.Null });
  const OpsStatusView = IDL.Record({
    mode: OpsMode,
    reason: IDL.Opt(IDL.Text),
    /** ic0.time (ns) when the current mode was entered. */
    since_ns: IDL.Nat64,
    writes_allowed: IDL.Bool,
  });
  const HealthView = IDL.Record({
    ok: IDL.Bool,
    mode: OpsMode,
    block_number: IDL.Nat64,
    pending_txs: IDL.Nat64,
    time_ns: IDL.Nat64,
    version: IDL.Text,
  });

  return { Error, Result, GenesisAllocation, PrunePolicy, InitArgs, OpsMode, OpsStatusView, HealthView };
}

/** Every method's Candid signature: the canister's decorators and every client's actor read this one table. */
export function methodSignatures(IDL: Idl) {
  const t = candidTypes(IDL);
  const q = (args: IdlNamespace.Type[], ret: IdlNamespace.Type) => ({ args, ret, mode: 'query' as const });
  const u = (args: IdlNamespace.Type[], ret: IdlNamespace.Type) => ({ args, ret, mode: 'update' as const });
  return {
    rpc_eth_chain_id: q([], IDL.Nat64),
    rpc_eth_block_number: q([], IDL.Nat64),
    health: q([], t.HealthView),
    get_ops_status: q([], t.OpsStatusView),
  };
}

/** The service, in the shape of dfx's generated `idlFactory`, for actors (gateway, indexer) and host tests. */
export function idlFactory({ IDL }: { IDL: Idl }) {
  const fields: Record<string, IdlNamespace.FuncClass> = {};
  for (const [name, sig] of Object.entries(methodSignatures(IDL))) {
    fields[name] = IDL.Func(sig.args as IdlNamespace.GenericIdlFuncArgs, [sig.ret], sig.mode === 'query' ? ['query'] : []);
  }
  return IDL.Service(fields);
}

export function initArgsTypes({ IDL }: { IDL: Idl }): IdlNamespace.Type[] {
  return [IDL.Opt(candidTypes(IDL).InitArgs)];
}
