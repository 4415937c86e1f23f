// Development methods (Hardhat / Foundry / anvil names) that only the local devnet answers: the devnet gives the
// gateway a DevControl (src/devnet/dev.ts); without one (a gateway in front of a real canister) they are -32601.
// Parameters are decoded here, at the edge; the devnet gets typed values. Answers follow anvil's shapes (and
// Hardhat's for the hardhat_* names where Hardhat answers differently). The families: evm_* here, mining and node
// information in dev_mining.ts and dev_node.ts, state changes and impersonation in dev_state.ts.
import { invalidParams, RpcCode, RpcError } from '../errors.js';
import { parseQuantity } from '../hex.js';
import { bool, positional } from '../params.js';
import type { MethodContext, MethodSpec } from './types.js';

/** A state change a cheat makes to one account (absent fields are kept). */
export interface AccountEdit {
  readonly address: Uint8Array;
  readonly balance?: bigint;
  readonly nonce?: bigint;
  readonly code?: Uint8Array;
  readonly storage?: readonly { readonly slot: Uint8Array; readonly value: Uint8Array }[];
}

/** A transaction sent from an impersonated address: every field filled (src/gateway/methods/signing.ts). */
export interface ImpersonatedTx {
  readonly from: Uint8Array;
  readonly to: Uint8Array | undefined;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly gasLimit: bigint;
  readonly nonce: bigint;
  readonly gasPrice?: bigint;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
  readonly accessList: readonly { readonly address: Uint8Array; readonly storageKeys: readonly Uint8Array[] }[];
}

/** How anvil_mine / hardhat_mine space the blocks they make. */
export type MineSpacing = { readonly rule: 'anvil'; readonly interval: bigint | undefined } | { readonly rule: 'hardhat'; readonly interval: bigint };

/** What the devnet does for the dev methods (seconds are Unix seconds / durations). */
export interface DevControl {
  /** Mines `blocks` blocks now (empty ones when nothing is pending); the first at the timestamp set, if any. */
  mine(blocks: number, spacing?: MineSpacing): Promise<void>;
  setAutomine(on: boolean): void;
  readonly automining: boolean;
  /** Seconds between the block timer's blocks; undefined when the timer is off. */
  readonly miningInterval: number | undefined;
  /** anvil's interval mining: 0 turns every kind of mining off, N > 0 is `--block-time N` (automine off). */
  setIntervalMining(seconds: number): Promise<void>;
  setBlockGasLimit(limit: bigint): Promise<void>;
  /** A new snapshot id (0, 1, ...). */
  snapshot(): bigint;
  /** Restores snapshot `id` and forgets it and every later one; false when there is no such snapshot. */
  revert(id: bigint): Promise<boolean>;
  /** The live snapshots: id and the head block when it was taken. */
  snapshots(): readonly { readonly id: bigint; readonly number: bigint; readonly hash: string }[];
  /** Back to the chain's genesis state; a message when this devnet cannot (it resumed a data folder). */
  reset(): Promise<string | undefined>;
  /** Random per start and per reset (anvil's and Hardhat's `instanceId`). */
  readonly instanceId: string;
  /** Moves the clock forward; returns the total shift in seconds. */
  increaseTime(seconds: bigint): bigint;
  /** The next block gets this timestamp; refused (a message) when not after the head block's. */
  setNextBlockTimestamp(timestamp: bigint): Promise<string | undefined>;
  setAccount(edit: AccountEdit): Promise<void>;
  impersonate(address: `0x${string}`): void;
  /** true when it was impersonated. */
  stopImpersonating(address: `0x${string}`): boolean;
  autoImpersonate(on: boolean): void;
  isImpersonated(address: `0x${string}`): boolean;
  /** The addresses impersonated one by one, lower-case, in the order they were added. */
  impersonated(): readonly `0x${string}`[];
  /** Submits a transaction from an impersonated address; returns its tx_id (as the other submits do). */
  submitImpersonated(tx: ImpersonatedTx): Promise<Uint8Array>;
  /** true when a pending transaction with this hash was dropped. */
  dropTransaction(hash: Uint8Array): Promise<boolean>;
  setNextBlockBaseFee(fee: bigint): Promise<void>;
  setCoinbase(address: Uint8Array): Promise<void>;
}

/** At most this many blocks per evm_mine / anvil_mine (each block is a canister update). */
export const MAX_MINE_BLOCKS = 1000;
/** About 317 years: keeps every shifted clock far inside u64 nanoseconds. */
export const MAX_SECONDS = 10_000_000_000n;

export const DEVNET_ONLY = 'Devnet only (`npm start`); elsewhere -32601.';

export function devOf(ctx: MethodContext, method: string): DevControl {
  if (ctx.dev === undefined) throw new RpcError(RpcCode.MethodNotFound, `the method ${method} does not exist/is not available (development methods are served by the devnet only)`);
  return ctx.dev;
}

/** A whole number of seconds as a JSON number or a hex quantity. */
export function seconds(v: unknown, name: string): bigint {
  let n: bigint | undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'string') n = parseQuantity(v);
  if (n === undefined || n < 0n) throw invalidParams(`${name}: expected a non-negative whole number of seconds (a number or a 0x quantity)`);
  if (n > MAX_SECONDS) throw invalidParams(`${name}: at most ${MAX_SECONDS} seconds`);
  return n;
}

/**
 * A devnet-only method. `reference` names the anvil handler (crates/anvil/src/eth/api.rs) or Hardhat's method
 * whose parameters, answer and errors it follows; the compatibility matrix prints it.
 */
export const devMethod = (name: string, reference: string, differences: string, handler: (params: unknown, d: DevControl, ctx: MethodContext) => Promise<unknown>): MethodSpec => ({
  name,
  canister: [],
  blockTags: '-',
  limits: '-',
  differences: `${DEVNET_ONLY} ${differences}`,
  reference,
  handler: (params, ctx) => handler(params, devOf(ctx, name), ctx),
});

/** The same method under another name (anvil's aliases). */
export const alias = (name: string, of: MethodSpec): MethodSpec => ({ ...of, name, differences: `${DEVNET_ONLY} Alias of \`${of.name}\`.`, handler: (params, ctx) => of.handler(params, ctx) });

const evm_mine = devMethod(
  'evm_mine',
  'anvil `evm_mine`',
  `Mines one block now through the controller-only \`mine_block\` (an empty block when nothing is pending). Params: none, \`[timestamp]\`, or \`[{timestamp?, blocks?}]\` (at most ${MAX_MINE_BLOCKS} blocks). Returns \`0x0\`.`,
  async (params, d) => {
    const [p] = positional(params, 'evm_mine', 0, 1);
    let blocks = 1;
    let ts: bigint | undefined;
    if (typeof p === 'object' && p !== null && !Array.isArray(p)) {
      const o = p as Record<string, unknown>;
      for (const k of Object.keys(o)) if (k !== 'timestamp' && k !== 'blocks') throw invalidParams(`evm_mine: unknown option ${k}`);
      if (o.timestamp !== undefined && o.timestamp !== null) ts = seconds(o.timestamp, 'timestamp');
      if (o.blocks !== undefined && o.blocks !== null) {
        const b = seconds(o.blocks, 'blocks');
        if (b < 1n || b > BigInt(MAX_MINE_BLOCKS)) throw invalidParams(`blocks: between 1 and ${MAX_MINE_BLOCKS}`);
        blocks = Number(b);
      }
    } else if (p !== undefined && p !== null) ts = seconds(p, 'timestamp');
    if (ts !== undefined) {
      const why = await d.setNextBlockTimestamp(ts);
      if (why !== undefined) throw invalidParams(why);
    }
    await d.mine(blocks);
    return '0x0';
  },
);
const evm_setAutomine = devMethod('evm_setAutomine', 'anvil `anvil_set_auto_mine`', 'true: a block is mined as soon as a transaction is accepted (like `--block-time 0`); false: only the block timer (if any) and `evm_mine` mine. Returns null.', async (params, d) => {
  const [on] = positional(params, 'evm_setAutomine', 1, 1);
  d.setAutomine(bool(on, 'automine'));
  return null;
});
const evm_snapshot = devMethod('evm_snapshot', 'anvil `evm_snapshot`', "Copies the canister's whole state (heap, stable memory, timers, clock shift); returns its id (`0x0`, `0x1`, ...). At most 16 are kept (the oldest is dropped).", async (params, d) => {
  positional(params, 'evm_snapshot', 0, 0);
  return `0x${d.snapshot().toString(16)}`;
});
const evm_revert = devMethod('evm_revert', 'anvil `evm_revert`', 'Restores the snapshot exactly (blocks, pool, balances, clock) and forgets it and every later one; true, or false for an unknown id.', async (params, d) => {
  const [id] = positional(params, 'evm_revert', 1, 1);
  const n = typeof id === 'string' ? parseQuantity(id) : typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? BigInt(id) : undefined;
  if (n === undefined) throw invalidParams('snapshot id: expected a 0x quantity');
  return d.revert(n);
});
const evm_increaseTime = devMethod('evm_increaseTime', 'anvil `evm_increase_time`', "Moves the devnet host's clock (IC time) forward by the seconds given; returns the total shift in seconds. IC time never goes back: negative values are -32602.", async (params, d) => {
  const [s] = positional(params, 'evm_increaseTime', 1, 1);
  return Number(d.increaseTime(seconds(s, 'seconds')));
});
const evm_setNextBlockTimestamp = devMethod(
  'evm_setNextBlockTimestamp',
  'anvil `evm_set_next_block_timestamp`',
  "Moves the host's clock so that the next block has this Unix timestamp (seconds); it must be after the head block's (-32602 otherwise). Returns null.",
  async (params, d) => {
    const [ts] = positional(params, 'evm_setNextBlockTimestamp', 1, 1);
    const why = await d.setNextBlockTimestamp(seconds(ts, 'timestamp'));
    if (why !== undefined) throw invalidParams(why);
    return null;
  },
);

export const EVM_METHODS: readonly MethodSpec[] = [evm_mine, evm_setAutomine, evm_snapshot, evm_revert, evm_increaseTime, evm_setNextBlockTimestamp];
/** anvil's own names for the evm_* methods above. */
export const EVM_ALIASES: readonly MethodSpec[] = [
  alias('anvil_setAutomine', evm_setAutomine),
  alias('anvil_snapshot', evm_snapshot),
  alias('anvil_revert', evm_revert),
  alias('anvil_increaseTime', evm_increaseTime),
  alias('anvil_setNextBlockTimestamp', evm_setNextBlockTimestamp),
];
