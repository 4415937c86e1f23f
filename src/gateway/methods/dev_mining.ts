// Mining development methods: anvil_mine / hardhat_mine (a count and a timestamp interval), automine and
// interval-mining state, the block gas limit. Each block is the controller-only `mine_block` update the block
// timer runs; the interval is applied through the host's clock (IC time only moves forward).
import { invalidParams } from '../errors.js';
import { positional } from '../params.js';
import { devMethod, MAX_MINE_BLOCKS, MAX_SECONDS } from './dev.js';
import { jsonU64, anvilNumber, optNumber } from './dev_params.js';
import type { MethodSpec } from './types.js';

/** Interval mining up to a day, as `--block-time` (azle timers are whole seconds). */
export const MAX_INTERVAL_S = 86_400;
const MAX_GAS_LIMIT = (1n << 63n) - 1n;

function mine(prefix: 'anvil' | 'hardhat'): MethodSpec {
  const name = `${prefix}_mine`;
  const rule =
    prefix === 'anvil'
      ? "Params `[blocks?, interval?]` (numbers; 1 block by default): before each block the clock moves forward by `interval` seconds (anvil's rule; without one, blocks follow the clock, each at least one second after the previous)."
      : "Params `[blocks?, interval?]` (numbers; 1 block and 1 s by default): the first block at the clock's time, each later one `interval` seconds after the previous (Hardhat's rule), or later when the clock is already past that (IC time never goes back; an interval of 0 still gives each block its own second).";
  return devMethod(name, prefix === 'anvil' ? 'anvil `anvil_mine`' : 'Hardhat `hardhat_mine`', `${rule} 0 blocks mines none. At most ${MAX_MINE_BLOCKS} blocks a call (each is a canister update). Returns ${prefix === 'anvil' ? 'null' : 'true'}.`, async (params, d) => {
    const [b, i] = positional(params, name, 0, 2);
    const blocks = optNumber(b, 'blocks') ?? 1n;
    if (blocks > BigInt(MAX_MINE_BLOCKS)) throw invalidParams(`blocks: at most ${MAX_MINE_BLOCKS} a call`);
    const interval = optNumber(i, 'interval', MAX_SECONDS);
    if (blocks > 0n) await d.mine(Number(blocks), prefix === 'anvil' ? { rule: 'anvil', interval } : { rule: 'hardhat', interval: interval ?? 1n });
    return prefix === 'anvil' ? null : true;
  });
}

function getAutomine(prefix: 'anvil' | 'hardhat'): MethodSpec {
  const name = `${prefix}_getAutomine`;
  return devMethod(name, 'anvil `anvil_get_auto_mine`', 'true when a block is mined as soon as a transaction is accepted (`--block-time 0`, `evm_setAutomine(true)`).', async (params, d) => {
    positional(params, name, 0, 0);
    return d.automining;
  });
}

function setIntervalMining(name: string): MethodSpec {
  return devMethod(
    name,
    'anvil `anvil_set_interval_mining`',
    `Params \`[seconds]\` (a JSON number, at most ${MAX_INTERVAL_S}): N > 0 mines a block every N seconds while transactions are pending (as \`--block-time N\`, automine off); 0 turns mining off (anvil's rule: neither automine nor a timer; \`evm_mine\` still mines). Returns null.`,
    async (params, d) => {
      const [s] = positional(params, name, 1, 1);
      await d.setIntervalMining(jsonU64(s, 'seconds', MAX_INTERVAL_S));
      return null;
    },
  );
}

const anvil_getIntervalMining = devMethod('anvil_getIntervalMining', 'anvil `anvil_get_interval_mining`', 'The block timer\'s interval in seconds, or null when it is off (automine or no mining).', async (params, d) => {
  positional(params, 'anvil_getIntervalMining', 0, 0);
  return d.miningInterval ?? null;
});

function setBlockGasLimit(name: string): MethodSpec {
  return devMethod(name, 'anvil `evm_set_block_gas_limit`', "Params `[gasLimit]`: the gas limit of the next blocks, through the controller-only `set_block_gas_limit` (the canister's bounds apply: -32602 outside them). Returns true.", async (params, d) => {
    const [g] = positional(params, name, 1, 1);
    await d.setBlockGasLimit(anvilNumber(g, 'gasLimit', MAX_GAS_LIMIT));
    return true;
  });
}

export const MINING_METHODS: readonly MethodSpec[] = [
  mine('anvil'),
  mine('hardhat'),
  getAutomine('anvil'),
  getAutomine('hardhat'),
  setIntervalMining('anvil_setIntervalMining'),
  setIntervalMining('evm_setIntervalMining'),
  anvil_getIntervalMining,
  setBlockGasLimit('evm_setBlockGasLimit'),
  setBlockGasLimit('anvil_setBlockGasLimit'),
];
