// The evm canister (the real built wasm) in the Node IC host, for the wasm tests: install with init
// arguments, typed calls, a log of every message the host runs (timers included), and mining by the
// manual clock.
import { WASM_PATH } from '../../src/devnet/build.js';
import { encodeInitArgs, HostClient } from '../../src/client/host.js';
import type { QueryMethod } from '../../src/client/schema.js';
import { IcHost, type IcHostOptions, type MessageStats, type PrincipalLike } from '../../src/host/index.js';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { BlockView, CandidBlockTag, CandidResult, IcSyntheticTxInput, LogView, Opt, PendingStatusView, PrunePolicyView, ReceiptView, TxView } from '../../src/client/schema.js';

// The Candid value shapes, from their one definition, under the names the tests use.
export type { CandidResult, Opt, TxView };
export type Log = LogView;
export type Receipt = ReceiptView;
export type Block = BlockView;
export type Pending = PendingStatusView;
export type BlockTag = CandidBlockTag;
export type IcTxInput = IcSyntheticTxInput;

export const LATEST: BlockTag = { Latest: null };

/** The canister id the tests install under (IcSynthetic senders are derived from it). */
export const CANISTER_ID = 'rrkah-fqaaa-aaaaa-aaaaq-cai';

export interface InitOptions {
  genesis?: { address: Uint8Array; balance: bigint }[];
  blockGasLimit?: bigint;
  instructionSoftLimit?: bigint;
  miningIntervalMs?: bigint;
  /** Controllers of the canister (admin methods); the first one installs it. */
  controllers?: PrincipalLike[];
  prunePolicy?: PrunePolicyView;
  pruningEnabled?: boolean;
  /** Runtime code accounts hold from block 0 (the `genesis_code` init argument). */
  genesisCode?: { address: Uint8Array; code: Uint8Array }[];
  /** The `development` init argument (the dev_* methods). */
  development?: boolean;
}

export function initArgs(o: InitOptions): Uint8Array {
  return encodeInitArgs({
    genesis_allocations: o.genesis === undefined ? [] : [o.genesis],
    block_gas_limit: o.blockGasLimit === undefined ? [] : [o.blockGasLimit],
    instruction_soft_limit: o.instructionSoftLimit === undefined ? [] : [o.instructionSoftLimit],
    mining_interval_ms: o.miningIntervalMs === undefined ? [] : [o.miningIntervalMs],
    prune_policy: o.prunePolicy === undefined ? [] : [o.prunePolicy],
    pruning_enabled: o.pruningEnabled === undefined ? [] : [o.pruningEnabled],
    genesis_code: o.genesisCode === undefined ? [] : [o.genesisCode],
    development: o.development === undefined ? [] : [o.development],
  });
}

export class Evm {
  /** Every message the host ran, in order (timers, self-calls, updates, queries). */
  readonly messages: MessageStats[] = [];
  readonly client: HostClient;

  private constructor(readonly host: IcHost) {
    this.client = new HostClient(host);
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

  /** A query with its arguments spread; the result type is the caller's (tests probe odd argument values). */
  query<T>(method: QueryMethod, ...args: unknown[]): T {
    return this.client.transport.querySync(method, args).value as T;
  }

  /** A query whose result is `Result<T>`: returns T, throws with the error code otherwise. */
  ok<T>(method: QueryMethod, ...args: unknown[]): T {
    return unwrap(this.query<CandidResult<T>>(method, ...args));
  }

  async sendRaw(tx: TypedTransaction | Uint8Array, caller?: PrincipalLike): Promise<CandidResult<Uint8Array>> {
    const raw = tx instanceof Uint8Array ? tx : tx.serialize();
    return (await this.client.as(caller === undefined ? {} : { caller }).update('rpc_eth_send_raw_transaction', [raw]));
  }

  /** Submits and returns the tx_id; fails the test with the error code if rejected. */
  async submit(tx: TypedTransaction | Uint8Array): Promise<Uint8Array> {
    return unwrap(await this.sendRaw(tx));
  }

  async submitIc(tx: IcTxInput, caller: PrincipalLike): Promise<CandidResult<Uint8Array>> {
    return (await this.client.as({ caller }).update('submit_ic_tx', [tx]));
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
