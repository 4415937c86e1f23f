// Development methods (Hardhat / Foundry / anvil names) that only the local devnet answers: the devnet gives the
// gateway a DevControl (src/devnet/dev.ts); without one (a gateway in front of a real canister) they are -32601.
// Parameters are decoded here, at the edge; the devnet gets typed values. Answers follow anvil's shapes.
import { invalidParams, RpcCode, RpcError } from '../errors.js';
import { parseQuantity } from '../hex.js';
import { bool, positional } from '../params.js';
import type { MethodContext, MethodSpec } from './types.js';

/** What the devnet does for the dev methods (seconds are Unix seconds / durations). */
export interface DevControl {
  /** Mines `blocks` blocks now (empty ones when nothing is pending); the first at the timestamp set, if any. */
  mine(blocks: number): Promise<void>;
  setAutomine(on: boolean): void;
  /** A new snapshot id (0, 1, ...). */
  snapshot(): bigint;
  /** Restores snapshot `id` and forgets it and every later one; false when there is no such snapshot. */
  revert(id: bigint): Promise<boolean>;
  /** Moves the clock forward; returns the total shift in seconds. */
  increaseTime(seconds: bigint): bigint;
  /** The next block gets this timestamp; refused (a message) when not after the head block's. */
  setNextBlockTimestamp(timestamp: bigint): Promise<string | undefined>;
}

/** At most this many blocks per evm_mine (each block is a canister update). */
export const MAX_MINE_BLOCKS = 1000;
/** About 317 years: keeps every shifted clock far inside u64 nanoseconds. */
const MAX_SECONDS = 10_000_000_000n;

const DEVNET_ONLY = 'Devnet only (`npm start`); elsewhere -32601.';

function dev(ctx: MethodContext, method: string): DevControl {
  if (ctx.dev === undefined) throw new RpcError(RpcCode.MethodNotFound, `the method ${method} does not exist/is not available (development methods are served by the devnet only)`);
  return ctx.dev;
}

/** A whole number of seconds as a JSON number or a hex quantity. */
function seconds(v: unknown, name: string): bigint {
  let n: bigint | undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'string') n = parseQuantity(v);
  if (n === undefined || n < 0n) throw invalidParams(`${name}: expected a non-negative whole number of seconds (a number or a 0x quantity)`);
  if (n > MAX_SECONDS) throw invalidParams(`${name}: at most ${MAX_SECONDS} seconds`);
  return n;
}

const method = (name: string, differences: string, handler: (params: unknown, d: DevControl) => Promise<unknown>): MethodSpec => ({
  name,
  canister: [],
  blockTags: '-',
  limits: '-',
  differences: `${DEVNET_ONLY} ${differences}`,
  handler: (params, ctx) => handler(params, dev(ctx, name)),
});

export const DEV_METHODS: readonly MethodSpec[] = [
  method(
    'evm_mine',
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
  ),
  method('evm_setAutomine', 'true: a block is mined as soon as a transaction is accepted (like `--block-time 0`); false: only the block timer (if any) and `evm_mine` mine. Returns null.', async (params, d) => {
    const [on] = positional(params, 'evm_setAutomine', 1, 1);
    d.setAutomine(bool(on, 'automine'));
    return null;
  }),
  method('evm_snapshot', "Copies the canister's whole state (heap, stable memory, timers, clock shift); returns its id (`0x0`, `0x1`, ...). At most 16 are kept (the oldest is dropped).", async (params, d) => {
    positional(params, 'evm_snapshot', 0, 0);
    return `0x${d.snapshot().toString(16)}`;
  }),
  method('evm_revert', 'Restores the snapshot exactly (blocks, pool, balances, clock) and forgets it and every later one; true, or false for an unknown id.', async (params, d) => {
    const [id] = positional(params, 'evm_revert', 1, 1);
    const n = typeof id === 'string' ? parseQuantity(id) : typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? BigInt(id) : undefined;
    if (n === undefined) throw invalidParams('snapshot id: expected a 0x quantity');
    return d.revert(n);
  }),
  method('evm_increaseTime', "Moves the devnet host's clock (IC time) forward by the seconds given; returns the total shift in seconds. IC time never goes back: negative values are -32602.", async (params, d) => {
    const [s] = positional(params, 'evm_increaseTime', 1, 1);
    return Number(d.increaseTime(seconds(s, 'seconds')));
  }),
  method('evm_setNextBlockTimestamp', "Moves the host's clock so that the next block has this Unix timestamp (seconds); it must be after the head block's (-32602 otherwise). Returns null.", async (params, d) => {
    const [ts] = positional(params, 'evm_setNextBlockTimestamp', 1, 1);
    const why = await d.setNextBlockTimestamp(seconds(ts, 'timestamp'));
    if (why !== undefined) throw invalidParams(why);
    return null;
  }),
];

export const DEV_METHOD_TABLE: ReadonlyMap<string, MethodSpec> = new Map(DEV_METHODS.map((m) => [m.name, m]));
