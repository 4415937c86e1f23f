// Node-level development methods: anvil_reset / hardhat_reset (back to the devnet's genesis state),
// anvil_metadata / hardhat_metadata and anvil_nodeInfo (what the node is and where its chain is).
import type { BlockView } from '../../client/schema.js';
import { invalidParams, RpcCode, RpcError } from '../errors.js';
import { toPrefixedHex, qty } from '../hex.js';
import { positional } from '../params.js';
import { chainId, headNumber, unwrap } from './common.js';
import { devMethod } from './dev.js';
import type { MethodContext, MethodSpec } from './types.js';

/** The devnet's EVM rules (src/core/evm/common.ts). */
const HARD_FORK = 'Prague';

function reset(prefix: 'anvil' | 'hardhat'): MethodSpec {
  const name = `${prefix}_reset`;
  return devMethod(
    name,
    prefix === 'anvil' ? 'anvil `anvil_reset` (without forking)' : 'Hardhat `hardhat_reset` (without forking)',
    `Params none, \`[]\` or \`[{}]\`: the whole canister state goes back to the genesis state this devnet installed (a snapshot taken right after the install), the snapshots are dropped, impersonation ends, the mining mode is kept; a new \`instanceId\`. Forking (\`{forking: {jsonRpcUrl}}\`) is -32602: the devnet runs its own chain. A devnet that resumed a data folder kept no genesis snapshot: -32000 (restart with \`--reset\`). Returns ${prefix === 'anvil' ? 'null' : 'true'}.`,
    async (params, d) => {
      const [o] = positional(params, name, 0, 1);
      if (o !== undefined && o !== null) {
        if (typeof o !== 'object' || Array.isArray(o)) throw invalidParams(`${name}: expected an options object`);
        const f = (o as Record<string, unknown>).forking;
        if (f !== undefined && f !== null) throw invalidParams(`${name}: forking is not supported (the devnet runs its own chain)`);
      }
      const why = await d.reset();
      if (why !== undefined) throw new RpcError(RpcCode.Server, why);
      return prefix === 'anvil' ? null : true;
    },
  );
}

async function head(ctx: MethodContext): Promise<BlockView> {
  const n = await headNumber(ctx);
  const b = (await ctx.client.query('rpc_eth_get_block_by_number', [n, false]))[0];
  if (b === undefined) throw new RpcError(RpcCode.Server, 'the head block is unavailable');
  return b;
}

function metadata(prefix: 'anvil' | 'hardhat'): MethodSpec {
  const name = `${prefix}_metadata`;
  return devMethod(
    name,
    prefix === 'anvil' ? 'anvil `anvil_metadata`' : 'Hardhat `hardhat_metadata`',
    prefix === 'anvil'
      ? "anvil's object: `clientVersion` (web3_clientVersion's), `chainId`, `instanceId`, `latestBlockNumber`, `latestBlockHash`, `forkedNetwork` null, `snapshots` (id -> [block number, block hash] when taken)."
      : "Hardhat's object: `clientVersion`, `chainId`, `instanceId`, `latestBlockNumber`, `latestBlockHash` (no `forkedNetwork`: not forked).",
    async (params, d, ctx) => {
      positional(params, name, 0, 0);
      const b = await head(ctx);
      const base = {
        clientVersion: ctx.config.clientVersion,
        chainId: Number(await chainId(ctx)),
        instanceId: d.instanceId,
        latestBlockNumber: Number(b.number),
        latestBlockHash: toPrefixedHex(b.hash),
      };
      if (prefix === 'hardhat') return base;
      return { ...base, forkedNetwork: null, snapshots: Object.fromEntries(d.snapshots().map((s) => [qty(s.id), [Number(s.number), s.hash]])) };
    },
  );
}

const anvil_nodeInfo = devMethod(
  'anvil_nodeInfo',
  'anvil `anvil_node_info`',
  "anvil's object: the head block (`currentBlockNumber`, `currentBlockTimestamp`, `currentBlockHash`), `hardFork` (Prague), `transactionOrder` `fees`, `environment` {`baseFee` (the head block's), `chainId`, `gasLimit`, `gasPrice` (eth_gasPrice's)}, `forkConfig` with null fields. (Neither anvil nor Hardhat has a `hardhat_nodeInfo`.)",
  async (params, _d, ctx) => {
    positional(params, 'anvil_nodeInfo', 0, 0);
    const b = await head(ctx);
    return {
      currentBlockNumber: qty(b.number),
      currentBlockTimestamp: Number(b.timestamp),
      currentBlockHash: toPrefixedHex(b.hash),
      hardFork: HARD_FORK,
      transactionOrder: 'fees',
      environment: {
        baseFee: qty(b.base_fee_per_gas),
        chainId: Number(await chainId(ctx)),
        gasLimit: qty(b.gas_limit),
        gasPrice: qty(unwrap(ctx, await ctx.client.query('rpc_eth_gas_price', []))),
      },
      forkConfig: { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
    };
  },
);

export const NODE_METHODS: readonly MethodSpec[] = [reset('anvil'), reset('hardhat'), metadata('anvil'), metadata('hardhat'), anvil_nodeInfo];
