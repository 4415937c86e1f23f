// Lifecycle and admin methods (docs/lifecycle.md, docs/export-format.md): export_blocks, metrics and prune
// status as queries; the controller-only setters, prune_blocks and set_ops_mode as updates. Thin wrappers over
// the core facade; the timers are in runtime.ts.
import { canisterCycleBalance, IDL, isController, msgCaller, time } from 'azle';

import { ErrorCode, err, ok, type Result } from '../core/errors.js';
import {
  candidResult,
  exportCursorFromCandid,
  exportResultToCandid,
  fromOpt,
  metricsToCandid,
  opsStatusToCandid,
  prunePolicyFromCandid,
  prunePolicyToCandid,
  pruneStatusToCandid,
  pruneTickToCandid,
  type CandidExportCursor,
  type CandidPrunePolicy,
  type CandidResult,
  type Opt,
} from './convert.js';
import { evmMethod } from './decorators.js';
import { MemoryId } from '../core/store/memory_ids.js';
import { host, LOG_LEVELS, log, logLevel, mine, notReady, restartMiningTimer, restartPruneTimer, runtime, setLogLevel, type LogLevel } from './runtime.js';
import { saveSettings } from './settings.js';

const unit = (): null => null;
const none = (): [] => [];

/**
 * Runs an admin action for a controller (azle isController(msgCaller())); anyone else gets auth.not_controller.
 * The check comes first, before any argument is looked at.
 */
function controllerOnly<T>(method: string, action: () => Result<T>): Result<T> {
  const caller = msgCaller();
  if (!isController(caller)) {
    return err(ErrorCode.AuthNotController, `${method} is for controllers of this canister only; ${caller.toText()} is not a controller`);
  }
  const r = action();
  log(r.ok ? 'info' : 'warn', `${method} by ${caller.toText()}: ${r.ok ? 'ok' : `${r.error.code}: ${r.error.message}`}`);
  return r;
}

const core = () => runtime.core;

export class AdminMethods {
  // ---- queries ----

  @evmMethod()
  export_blocks(cursor: Opt<CandidExportCursor>, maxBytes: number) {
    const c = core();
    if (c === undefined) return { Err: { Unavailable: 'the canister is starting; try again shortly' } };
    const cur = fromOpt(cursor);
    return exportResultToCandid(c.exportBlocks(cur === undefined ? undefined : exportCursorFromCandid(cur), maxBytes));
  }

  @evmMethod()
  metrics() {
    const c = core();
    if (c === undefined) throw new Error('the canister is starting; try again shortly');
    return metricsToCandid(c.metrics(), { timeNs: time(), cyclesBalance: canisterCycleBalance(), logLevel: logLevel() });
  }

  @evmMethod()
  get_prune_status() {
    const c = core();
    if (c === undefined) throw new Error('the canister is starting; try again shortly');
    return pruneStatusToCandid(c.pruneStatus());
  }

  // ---- controller-only updates ----

  @evmMethod()
  set_block_gas_limit(limit: bigint): CandidResult<null> {
    return candidResult(
      controllerOnly('set_block_gas_limit', () => core()?.setBlockGasLimit(limit) ?? notReady<never>()),
      unit,
    );
  }

  @evmMethod()
  set_instruction_soft_limit(limit: bigint): CandidResult<null> {
    return candidResult(
      controllerOnly('set_instruction_soft_limit', () => core()?.setInstructionSoftLimit(limit) ?? notReady<never>()),
      unit,
    );
  }

  @evmMethod()
  set_prune_policy(p: CandidPrunePolicy): CandidResult<CandidPrunePolicy> {
    const r = controllerOnly('set_prune_policy', () => core()?.setPrunePolicy(prunePolicyFromCandid(p)) ?? notReady<never>());
    if (r.ok) restartPruneTimer();
    return candidResult(r, prunePolicyToCandid);
  }

  @evmMethod()
  set_pruning_enabled(enabled: boolean): CandidResult<null> {
    return candidResult(
      controllerOnly('set_pruning_enabled', () => core()?.setPruningEnabled(enabled) ?? notReady<never>()),
      unit,
    );
  }

  @evmMethod()
  set_log_filter(level: Record<string, null>): CandidResult<null> {
    return candidResult(
      controllerOnly('set_log_filter', () => {
        const name = Object.keys(level)[0] as LogLevel | undefined;
        if (name === undefined || !LOG_LEVELS.includes(name)) return err(ErrorCode.ArgInvalid, `log level must be one of ${LOG_LEVELS.join(', ')}`);
        setLogLevel(name);
        return ok(undefined);
      }),
      unit,
    );
  }

  /** 0 turns the mining timer off (blocks only through mine_block: the devnet's --block-time); else whole seconds. */
  @evmMethod()
  set_mining_interval(ms: bigint): CandidResult<null> {
    return candidResult(
      controllerOnly('set_mining_interval', () => {
        if (ms !== 0n && (ms < 1000n || ms % 1000n !== 0n || ms > 86_400_000n)) {
          return err(ErrorCode.ArgInvalid, 'mining interval must be 0 (no timer) or a whole number of seconds up to one day, in ms');
        }
        runtime.settings = { ...runtime.settings, miningIntervalMs: ms };
        saveSettings(host.openMap(MemoryId.Meta), runtime.settings);
        restartMiningTimer();
        return ok(undefined);
      }),
      unit,
    );
  }

  /**
   * Produces one block now (what the mining timer does), with `allow_empty` even when nothing is pending:
   * the devnet's automine and evm_mine. Returns the new block's number, or none when no block was made.
   */
  @evmMethod()
  async mine_block(allowEmpty: boolean): Promise<CandidResult<[] | [bigint]>> {
    const caller = msgCaller();
    if (!isController(caller)) {
      return candidResult(err(ErrorCode.AuthNotController, `mine_block is for controllers of this canister only; ${caller.toText()} is not a controller`), none);
    }
    const r = await mine(allowEmpty);
    if (r === undefined) return candidResult(notReady<never>(), none);
    if (r.kind === 'Rejected') return candidResult({ ok: false, error: r.error }, none);
    return { Ok: r.kind === 'Produced' ? [r.number] : [] };
  }

  @evmMethod()
  prune_blocks(beforeBlock: bigint, maxOps: number) {
    return candidResult(
      controllerOnly('prune_blocks', () => core()?.pruneBlocks(beforeBlock, maxOps) ?? notReady<never>()),
      pruneTickToCandid,
    );
  }

  /** Drops every pending transaction (pool.purged): the way out of a pool a controller finds stuck. */
  @evmMethod()
  purge_pool(): CandidResult<bigint> {
    return candidResult(
      controllerOnly('purge_pool', () => core()?.purgePool() ?? notReady<never>()),
      (n) => n,
    );
  }

  @evmMethod()
  set_ops_mode(mode: { Normal: null } | { Migration: null }, reason: Opt<string>) {
    return candidResult(
      controllerOnly('set_ops_mode', () => {
        const c = core();
        if (c === undefined) return notReady<never>();
        const on = 'Migration' in mode;
        const why = fromOpt(reason) ?? '';
        if (why.length > 200) return err(ErrorCode.ArgInvalid, 'reason must be at most 200 characters');
        c.setMigration(on, why);
        return ok(c.opsStatus());
      }),
      opsStatusToCandid,
    );
  }
}
