// Block finalisation outside the budget (docs/hardening.md, "Block production"), shared by the wasm test
// (tests/wasm/canister-harden-finalize.test.ts) and the bench (bench/harden.ts): a log emitter whose logs
// count and size come from calldata, a storage writer, a burner that spends instructions before emitting,
// and the scenario at the highest limits the admin methods allow (runMaxLimits).
import type { HostClient } from '../../src/client/host.js';
import type { MethodArgs } from '../../src/client/schema.js';
import type { CandidResult, ReceiptView } from '../../src/client/schema.js';
import { MAX_LOG_BYTES_PER_TX, MAX_LOGS_PER_TX } from '../../src/core/constants.js';
import { MAX_BLOCK_GAS_LIMIT, MAX_INSTRUCTION_SOFT_LIMIT } from '../../src/core/ops/limits.js';
import type { BlockReport } from '../../src/canister/block_line.js';
import type { IcHost, MessageStats, PrincipalLike } from '../../src/host/index.js';
import { asm, deployCode, label, ref, word } from './asm.js';
import { ETH, GWEI, account, cat, feeMarketTx, type Account } from './eth.js';

/**
 * Calldata: word 0 = n logs, word 1 = L data bytes each (zeros from memory), word 2 = 0 for LOG0, else LOG4
 * (four 32-byte topics). Emits n logs of L + 32 * topics bytes each.
 */
export const LOG_EMITTER_RUNTIME = asm(
  0, 'CALLDATALOAD',
  label('loop'),
  'DUP1', 'ISZERO', ref('end'), 'JUMPI',
  64, 'CALLDATALOAD', ref('four'), 'JUMPI',
  32, 'CALLDATALOAD', 0, 'LOG0',
  ref('next'), 'JUMP',
  label('four'),
  'DUP1', 'DUP1', 'DUP1', 'DUP1',
  32, 'CALLDATALOAD', 0, 'LOG4',
  label('next'),
  1, 'SWAP1', 'SUB',
  ref('loop'), 'JUMP',
  label('end'),
  'STOP',
);

export const emitCall = (logs: number, dataBytes: number, topics: 0 | 4): Uint8Array =>
  cat(word(BigInt(logs)), word(BigInt(dataBytes)), word(BigInt(topics)));

/** Calldata: word 0 = first slot, word 1 = count, word 2 = value: stores the value in `count` consecutive slots from the first. */
export const STORAGE_WRITER_RUNTIME = asm(
  32, 'CALLDATALOAD',
  label('loop'),
  'DUP1', 'ISZERO', ref('end'), 'JUMPI',
  64, 'CALLDATALOAD', 'DUP2', 0, 'CALLDATALOAD', 'ADD', 'SSTORE',
  1, 'SWAP1', 'SUB',
  ref('loop'), 'JUMP',
  label('end'),
  'STOP',
);

export const writeCall = (first: number, count: number, value: bigint): Uint8Array => cat(word(BigInt(first)), word(BigInt(count)), word(value));

/**
 * Spends instructions with little gas, then logs: word 0 = k calls of the BLAKE2F precompile (0x09; about 470 K
 * instructions a round in the canister, 1 gas a round), word 1 = the rounds of each call, word 2 = n LOG4 logs,
 * word 3 = their data bytes each. The heaviest kind of transaction a block can end with.
 */
export const BURN_THEN_EMIT_RUNTIME = asm(
  // BLAKE2F input at memory 0: rounds (4 bytes, big-endian), h, m, t (zeros), final flag 0 at byte 212.
  32, 'CALLDATALOAD', 224, Uint8Array.of(0x1b) /* SHL */, 0, 'MSTORE',
  0, 'CALLDATALOAD',
  label('burn'),
  'DUP1', 'ISZERO', ref('emit'), 'JUMPI',
  64, 256, 213, 0, 9, 'GAS', 'STATICCALL', 'POP',
  1, 'SWAP1', 'SUB',
  ref('burn'), 'JUMP',
  label('emit'),
  'POP',
  64, 'CALLDATALOAD',
  label('loop'),
  'DUP1', 'ISZERO', ref('end'), 'JUMPI',
  'DUP1', 'DUP1', 'DUP1', 'DUP1',
  96, 'CALLDATALOAD', 512, 'LOG4',
  1, 'SWAP1', 'SUB',
  ref('loop'), 'JUMP',
  label('end'),
  'STOP',
);

export const burnCall = (calls: number, rounds: number, logs: number, dataBytes: number): Uint8Array =>
  cat(word(BigInt(calls)), word(BigInt(rounds)), word(BigInt(logs)), word(BigInt(dataBytes)));

// ---- The max-limits scenario (block finalisation outside the budget, on the real wasm) ----

/** Who takes part: funded at install (MAX_LIMITS_GENESIS), each with a role. */
const DEPLOYER = account(71);
const HEAVY = account(72);
const LOGGERS = [account(73), account(74), account(75), account(76)];
const OVER = account(77);
export const MAX_LIMITS_GENESIS = [DEPLOYER, HEAVY, ...LOGGERS, OVER].map((a) => ({ address: a.address, balance: 10n * ETH }));

/** BLAKE2F rounds a call: reserves 20 M + 700 K a round (2.8 B) of the budget before it runs, spends about 1.9 B. */
const ROUNDS = 4000;
/**
 * A filler burns 3 calls (about 6.3 B with its logs: two of them plus their reserved finalisation end about 1 B
 * under the 16 B soft limit), the burner 9 (about 17.7 B, under its 20 B budget with room for its logs).
 */
const FILLER_CALLS = 3;
const BURNER_CALLS = 9;

export type TxKind = 'filler' | 'burner' | 'logs' | 'over';

export interface MaxLimitsRun {
  /** set_block_gas_limit / set_instruction_soft_limit one above the highest: their error codes. */
  readonly refusedAbove: readonly (string | undefined)[];
  /** Every message the host ran while the pool was mined (timers), with its instructions. */
  readonly messages: readonly MessageStats[];
  /** The canister's debug line of every block mined then. */
  readonly blocks: readonly BlockReport[];
  readonly txs: readonly { readonly kind: TxKind; readonly txId: Uint8Array; readonly gasLimit: bigint; readonly receipt: ReceiptView | undefined }[];
  /** Mining rounds (2 s each) until the pool was empty. */
  readonly rounds: number;
}

const code = (r: CandidResult<unknown>): string | undefined => ('Err' in r ? r.Err.code : undefined);

/**
 * Sets the block gas limit and the instruction soft limit to the highest the admin methods allow, fills the pool
 * with log-heavy transactions at both log limits, and lets the mining timer drain it. One sender's queue is
 * filler, filler, burner, twice, at the highest tip: each filler burns about 6 B and logs the maximum, so after
 * two of them the counter plus their reserved finalisation is just under the soft limit and the burner (about
 * 17 B, plus the maximum logs) starts: the heaviest block message the limits allow, give or take the fillers'
 * size. Four other senders queue plain maximum-log transactions (blocks full by gas), and one a transaction one
 * byte over the log-byte limit. `blocks` must be fed by the host's debugPrint (parseBlockLine).
 */
export async function runMaxLimits(
  c: { readonly host: IcHost; readonly client: HostClient; readonly messages: readonly MessageStats[]; readonly blocks: readonly BlockReport[] },
  controller: PrincipalLike,
): Promise<MaxLimitsRun> {
  type Admin = 'set_block_gas_limit' | 'set_instruction_soft_limit' | 'set_log_filter';
  const admin = async <M extends Admin>(method: M, arg: MethodArgs<M>[0]): Promise<string | undefined> =>
    code(await c.client.as({ caller: controller }).update(method, [arg] as MethodArgs<M>));
  const refusedAbove = [await admin('set_block_gas_limit', MAX_BLOCK_GAS_LIMIT + 1n), await admin('set_instruction_soft_limit', MAX_INSTRUCTION_SOFT_LIMIT + 1n)];
  for (const [m, a] of [['set_block_gas_limit', MAX_BLOCK_GAS_LIMIT], ['set_instruction_soft_limit', MAX_INSTRUCTION_SOFT_LIMIT], ['set_log_filter', { Debug: null }]] as const) {
    const e = await admin(m, a);
    if (e !== undefined) throw new Error(`${m}: ${e}`);
  }
  const nonces = new Map<Account, bigint>();
  const send = async (from: Account, t: { to?: Uint8Array; data: Uint8Array; gasLimit: bigint; tip?: bigint }): Promise<Uint8Array> => {
    const nonce = nonces.get(from) ?? 0n;
    nonces.set(from, nonce + 1n);
    const tip = t.tip ?? 250n * GWEI;
    const raw = feeMarketTx(from, { nonce, to: t.to, data: t.data, gasLimit: t.gasLimit, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: tip }).serialize();
    const r = await c.client.update('rpc_eth_send_raw_transaction', [raw]);
    if ('Err' in r) throw new Error(`submit refused: ${r.Err.code} ${r.Err.message}`);
    return r.Ok;
  };
  const pending = (): bigint => c.client.querySync('health', []).pending_txs;
  const drain = async (): Promise<number> => {
    let rounds = 0;
    while (pending() > 0n) {
      if (++rounds > 40) throw new Error('the pool did not drain in 40 mining rounds');
      await c.host.advanceTime(2000);
    }
    return rounds;
  };
  const receipt = (id: Uint8Array): ReceiptView | undefined => c.client.querySync('get_receipt', [id])[0];

  const emitterId = await send(DEPLOYER, { data: deployCode(LOG_EMITTER_RUNTIME), gasLimit: 500_000n });
  const burnerId = await send(DEPLOYER, { data: deployCode(BURN_THEN_EMIT_RUNTIME), gasLimit: 500_000n });
  await drain(); // the warm-up steps run first, then the deployments
  const emitter = receipt(emitterId)?.contract_address[0];
  const burner = receipt(burnerId)?.contract_address[0];
  if (emitter === undefined || burner === undefined) throw new Error('deployment failed');

  const from = c.messages.length;
  const firstBlock = c.blocks.length;
  const perLog = MAX_LOG_BYTES_PER_TX / MAX_LOGS_PER_TX - 4 * 32;
  const txs: { kind: TxKind; txId: Uint8Array; gasLimit: bigint }[] = [];
  const add = async (kind: TxKind, sender: Account, t: { to: Uint8Array; data: Uint8Array; gasLimit: bigint; tip?: bigint }): Promise<void> => {
    txs.push({ kind, txId: await send(sender, t), gasLimit: t.gasLimit });
  };
  for (let i = 0; i < 2; i++) {
    for (const [kind, calls] of [['filler', FILLER_CALLS], ['filler', FILLER_CALLS], ['burner', BURNER_CALLS]] as const) {
      await add(kind, HEAVY, { to: burner, data: burnCall(calls, ROUNDS, MAX_LOGS_PER_TX, perLog), gasLimit: 1_000_000n, tip: 300n * GWEI });
    }
  }
  for (const l of LOGGERS) for (let i = 0; i < 3; i++) await add('logs', l, { to: emitter, data: emitCall(MAX_LOGS_PER_TX, perLog, 4), gasLimit: 800_000n });
  // One byte over the limit, in one LOG0.
  await add('over', OVER, { to: emitter, data: emitCall(1, MAX_LOG_BYTES_PER_TX + 1, 0), gasLimit: 1_000_000n });
  const rounds = await drain();
  return {
    refusedAbove,
    messages: c.messages.slice(from),
    blocks: c.blocks.slice(firstBlock),
    txs: txs.map((t) => ({ ...t, receipt: receipt(t.txId) })),
    rounds,
  };
}
