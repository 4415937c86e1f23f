// The evm canister (the real built wasm) in the Node IC host, for the wasm tests: install with init
// arguments, typed calls, a log of every message the host runs (timers included), and mining by the
// manual clock.
import { WASM_PATH } from '../../scripts/build.js';
import { EvmClient, encodeInitArgs } from '../../src/host/evm_client.js';
import { IcHost, type IcHostOptions, type MessageStats, type PrincipalLike } from '../../src/host/index.js';
import type { TypedTransaction } from '@ethereumjs/tx';

export type Opt<T> = [] | [T];
export type CandidResult<T> = { Ok: T } | { Err: { code: string; message: string; data: Opt<Uint8Array> } };

export interface Log {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  block_number: bigint;
  block_hash: Uint8Array;
  transaction_hash: Uint8Array;
  transaction_index: number;
  log_index: number;
}
export interface Receipt {
  transaction_hash: Uint8Array;
  tx_id: Uint8Array;
  transaction_index: number;
  block_hash: Uint8Array;
  block_number: bigint;
  from: Uint8Array;
  to: Opt<Uint8Array>;
  tx_type: number;
  status: number;
  gas_used: bigint;
  cumulative_gas_used: bigint;
  effective_gas_price: bigint;
  contract_address: Opt<Uint8Array>;
  logs: Log[];
  logs_bloom: Uint8Array;
  failure_code: Opt<string>;
}
export interface TxView {
  hash: Uint8Array;
  tx_id: Uint8Array;
  origin: { EthSigned: null } | { IcSynthetic: null };
  tx_type: number;
  chain_id: bigint;
  nonce: bigint;
  from: Uint8Array;
  to: Opt<Uint8Array>;
  value: bigint;
  input: Uint8Array;
  gas: bigint;
  gas_price: bigint;
  max_fee_per_gas: Opt<bigint>;
  max_priority_fee_per_gas: Opt<bigint>;
  access_list: Opt<{ address: Uint8Array; storage_keys: Uint8Array[] }[]>;
  y_parity: Opt<number>;
  block_hash: Opt<Uint8Array>;
  block_number: Opt<bigint>;
  transaction_index: Opt<number>;
  v: bigint;
  r: bigint;
  s: bigint;
}
export interface Block {
  number: bigint;
  hash: Uint8Array;
  parent_hash: Uint8Array;
  nonce: Uint8Array;
  sha3_uncles: Uint8Array;
  logs_bloom: Uint8Array;
  transactions_root: Uint8Array;
  state_root: Uint8Array;
  receipts_root: Uint8Array;
  miner: Uint8Array;
  difficulty: bigint;
  total_difficulty: bigint;
  extra_data: Uint8Array;
  size: bigint;
  gas_limit: bigint;
  gas_used: bigint;
  timestamp: bigint;
  base_fee_per_gas: bigint;
  mix_hash: Uint8Array;
  withdrawals_root: Uint8Array;
  blob_gas_used: bigint;
  excess_blob_gas: bigint;
  parent_beacon_block_root: Uint8Array;
  requests_hash: Uint8Array;
  transactions: { Hashes: Uint8Array[] } | { Full: TxView[] };
}
export type Pending =
  | { Queued: null }
  | { Included: { block_number: bigint; tx_index: number } }
  | { Dropped: { code: string } }
  | { Unknown: null };
export type BlockTag =
  | { Latest: null }
  | { Pending: null }
  | { Safe: null }
  | { Finalized: null }
  | { Earliest: null }
  | { Number: bigint };

export const LATEST: BlockTag = { Latest: null };

export interface IcTxInput {
  to: Opt<Uint8Array>;
  value: bigint;
  gas_limit: bigint;
  nonce: bigint;
  max_fee_per_gas: bigint;
  max_priority_fee_per_gas: bigint;
  data: Uint8Array;
}

/** The canister id the tests install under (IcSynthetic senders are derived from it). */
export const CANISTER_ID = 'rrkah-fqaaa-aaaaa-aaaaq-cai';

export interface InitOptions {
  genesis?: { address: Uint8Array; balance: bigint }[];
  blockGasLimit?: bigint;
  instructionSoftLimit?: bigint;
  miningIntervalMs?: bigint;
  /** Controllers of the canister (admin methods); the first one installs it. */
  controllers?: PrincipalLike[];
  prunePolicy?: { keep_recent_blocks: bigint; max_history_bytes: bigint; timer_interval_ms: bigint; max_ops_per_tick: number };
  pruningEnabled?: boolean;
}

export function initArgs(o: InitOptions): Uint8Array {
  return encodeInitArgs({
    genesis_allocations: o.genesis === undefined ? [] : [o.genesis],
    block_gas_limit: o.blockGasLimit === undefined ? [] : [o.blockGasLimit],
    instruction_soft_limit: o.instructionSoftLimit === undefined ? [] : [o.instructionSoftLimit],
    mining_interval_ms: o.miningIntervalMs === undefined ? [] : [o.miningIntervalMs],
    prune_policy: o.prunePolicy === undefined ? [] : [o.prunePolicy],
    pruning_enabled: o.pruningEnabled === undefined ? [] : [o.pruningEnabled],
  });
}

export class Evm {
  /** Every message the host ran, in order (timers, self-calls, updates, queries). */
  readonly messages: MessageStats[] = [];
  readonly client: EvmClient;

  private constructor(readonly host: IcHost) {
    this.client = new EvmClient(host);
  }

  /** Installs the canister; `hostOptions` overrides the host's defaults (e.g. its instruction limits). */
  static async start(o: InitOptions, hostOptions: Partial<IcHostOptions> = {}): Promise<Evm> {
    let evm: Evm | undefined;
    const pre: MessageStats[] = [];
    const host = await IcHost.create({
      wasm: WASM_PATH,
      canisterId: CANISTER_ID,
      ...(o.controllers === undefined ? {} : { controllers: o.controllers }),
      debugPrint: () => {},
      onMessage: (m) => (evm?.messages ?? pre).push(m),
      ...hostOptions,
    });
    evm = new Evm(host);
    evm.messages.push(...pre);
    await host.install(initArgs(o));
    return evm;
  }

  close(): void {
    this.host.close();
  }

  query<T>(method: Parameters<EvmClient['query']>[0], ...args: unknown[]): T {
    return this.client.query<T>(method, args).value;
  }

  /** A query whose result is `Result<T>`: returns T, throws with the error code otherwise. */
  ok<T>(method: Parameters<EvmClient['query']>[0], ...args: unknown[]): T {
    return unwrap(this.query<CandidResult<T>>(method, ...args));
  }

  async sendRaw(tx: TypedTransaction | Uint8Array, caller?: PrincipalLike): Promise<CandidResult<Uint8Array>> {
    const raw = tx instanceof Uint8Array ? tx : tx.serialize();
    return (await this.client.update<CandidResult<Uint8Array>>('rpc_eth_send_raw_transaction', [raw], caller === undefined ? {} : { caller })).value;
  }

  /** Submits and returns the tx_id; fails the test with the error code if rejected. */
  async submit(tx: TypedTransaction | Uint8Array): Promise<Uint8Array> {
    return unwrap(await this.sendRaw(tx));
  }

  async submitIc(tx: IcTxInput, caller: PrincipalLike): Promise<CandidResult<Uint8Array>> {
    return (await this.client.update<CandidResult<Uint8Array>>('submit_ic_tx', [tx], { caller })).value;
  }

  /**
   * Moves the clock by one mining interval (fires the mining timer) and returns the timer messages it ran.
   * Every timer message is checked not to have trapped.
   */
  async mine(ms = 2000): Promise<MessageStats[]> {
    const from = this.messages.length;
    await this.host.advanceTime(ms);
    const ran = this.messages.slice(from);
    const trapped = ran.filter((m) => m.trapped);
    if (trapped.length > 0) throw new Error(`a message trapped while mining: ${JSON.stringify(trapped, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`);
    return ran.filter((m) => m.kind !== 'query');
  }

  blockNumber(): bigint {
    return this.query<bigint>('rpc_eth_block_number');
  }
  balance(address: Uint8Array): bigint {
    return this.ok<bigint>('rpc_eth_get_balance', address, LATEST);
  }
  receipt(txId: Uint8Array): Receipt | undefined {
    return this.query<Opt<Receipt>>('get_receipt', txId)[0];
  }
  pending(txId: Uint8Array): Pending {
    return this.query<Pending>('get_pending', txId);
  }
  block(n: bigint, full = false): Block | undefined {
    return this.query<Opt<Block>>('rpc_eth_get_block_by_number', n, full)[0];
  }
}

export function unwrap<T>(r: CandidResult<T>): T {
  if ('Err' in r) throw new Error(`expected Ok, got Err ${r.Err.code}: ${r.Err.message}`);
  return r.Ok;
}

/** The error code of an Err result (undefined for Ok), for expect(...).toBe(code). */
export function errCode(r: CandidResult<unknown>): string | undefined {
  return 'Err' in r ? r.Err.code : undefined;
}
