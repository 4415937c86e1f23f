// Shared by the benchmarks: an installed evm canister in the Node IC host, funded accounts, signed txs,
// and a record of every message's instruction count.
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { build, isStale, WASM_PATH } from '../src/devnet/build.js';
import { IcHost, type MessageStats } from '../src/host/index.js';
import { encodeInitArgs, HostClient } from '../src/client/host.js';
import { senderPublicKey } from '../src/gateway/sender_key.js';
import type { CallOptions } from '../src/host/calls.js';

export const common = createCustomCommon({ chainId: 4801360 }, Mainnet, { hardfork: Hardfork.Prague });
export const GWEI = 1_000_000_000n;

export interface Account {
  readonly key: Uint8Array;
  readonly address: Uint8Array;
  nonce: bigint;
}

export function account(seed: number): Account {
  const key = keccak_256(new TextEncoder().encode(`bench-account-${seed}`));
  return { key, address: keccak_256(secp256k1.getPublicKey(key, false).subarray(1)).subarray(12), nonce: 0n };
}

/** A signed EIP-1559 transaction from `from` (its nonce is taken and incremented). */
export function signTx(from: Account, fields: { to?: Uint8Array; value?: bigint; data?: Uint8Array; gasLimit: bigint }): Uint8Array {
  const tx = createFeeMarket1559Tx(
    {
      nonce: from.nonce++,
      to: fields.to,
      value: fields.value ?? 0n,
      data: fields.data ?? new Uint8Array(0),
      gasLimit: fields.gasLimit,
      maxFeePerGas: 1000n * GWEI,
      maxPriorityFeePerGas: 250n * GWEI,
    },
    { common },
  ).sign(from.key);
  return tx.serialize();
}

export class BenchChain {
  readonly messages: MessageStats[] = [];
  private constructor(
    readonly host: IcHost,
    readonly evm: HostClient,
  ) {}

  /** `controllers`: for the admin methods; `debugPrint`: receives the canister's prints (set_log_filter turns debug lines on). */
  static async start(opts: {
    accounts: Account[];
    /** More genesis allocations (accounts built elsewhere, e.g. tests/support). */
    genesis?: { address: Uint8Array; balance: bigint }[];
    blockGasLimit?: bigint;
    controllers?: Uint8Array[];
    debugPrint?: (line: string) => void;
    /** Run the profiling build (host.profiler attributes instructions to wasm functions; scripts/profile.ts). */
    profile?: boolean;
  }): Promise<BenchChain> {
    if (isStale()) build({ quiet: true });
    const messages: MessageStats[] = [];
    const host = await IcHost.create({
      wasm: WASM_PATH,
      debugPrint: opts.debugPrint ?? (() => {}),
      onMessage: (m) => messages.push(m),
      ...(opts.profile === true ? { profile: true } : {}),
      ...(opts.controllers === undefined ? {} : { controllers: opts.controllers }),
    });
    await host.install(
      encodeInitArgs({
        genesis_allocations: [[...opts.accounts.map((a) => ({ address: a.address, balance: 10n ** 27n })), ...(opts.genesis ?? [])]],
        block_gas_limit: opts.blockGasLimit === undefined ? [] : [opts.blockGasLimit],
      }),
    );
    const chain = new BenchChain(host, new HostClient(host));
    (chain as { messages: MessageStats[] }).messages = messages;
    return chain;
  }

  /**
   * Submits as the gateway does: with the sender's public key as a hint (rpc_eth_send_raw_transaction_with_key),
   * or, with `withKey: false`, as a direct Candid caller without one (rpc_eth_send_raw_transaction), by
   * default the anonymous principal, or `caller`.
   */
  async submit(raw: Uint8Array, opts: { readonly withKey?: boolean; readonly caller?: CallOptions['caller'] } = {}): Promise<{ txId: Uint8Array; instructions: bigint }> {
    const key = opts.withKey === false ? undefined : senderPublicKey(raw);
    if (opts.withKey !== false && key === undefined) throw new Error('submit: the transaction does not recover a sender key');
    const evm = opts.caller === undefined ? this.evm : this.evm.as({ caller: opts.caller });
    const r =
      key === undefined
        ? await evm.updateMeasured('rpc_eth_send_raw_transaction', [raw])
        : await evm.updateMeasured('rpc_eth_send_raw_transaction_with_key', [raw, key]);
    if ('Err' in r.value) throw new Error(`submit failed: ${r.value.Err.code} ${r.value.Err.message}`);
    return { txId: r.value.Ok, instructions: r.instructions ?? 0n };
  }

  /** Runs the mining timer once; returns the block-production message and the new block's tx count. */
  async mine(): Promise<{ instructions: bigint; txCount: number; gasUsed: bigint }> {
    const before = this.messages.length;
    const head = this.blockNumber();
    await this.host.advanceTime(2000);
    const produced = this.messages.slice(before).filter((m) => m.kind === 'update' || m.kind === 'timer');
    const heaviest = produced.reduce((a, b) => ((b.instructions ?? 0n) > (a.instructions ?? 0n) ? b : a));
    if (heaviest.trapped) throw new Error('block production trapped');
    const n = this.blockNumber();
    if (n !== head + 1n) throw new Error(`expected one new block, head went ${head} -> ${n}`);
    const block = this.evm.querySync('rpc_eth_get_block_by_number', [n, false])[0];
    if (block === undefined || !('Hashes' in block.transactions)) throw new Error(`block ${n} not found`);
    return { instructions: heaviest.instructions ?? 0n, txCount: block.transactions.Hashes.length, gasUsed: block.gas_used };
  }

  blockNumber(): bigint {
    return this.evm.querySync('rpc_eth_block_number', []);
  }

  receipt(hash: Uint8Array): { status: number; gas_used: bigint; contract_address: [] | [Uint8Array] } {
    const r = this.evm.querySync('rpc_eth_get_transaction_receipt_by_eth_hash', [hash]);
    if (r.length === 0) throw new Error('no receipt');
    return r[0];
  }

  close(): void {
    this.host.close();
  }
}

/** initcode that deploys `runtime` as is. */
export function deployCode(runtime: Uint8Array): Uint8Array {
  const init = [0x61, runtime.length >> 8, runtime.length & 0xff, 0x80, 0x60, 0x0e, 0x60, 0x00, 0x39, 0x60, 0x00, 0xf3];
  // init is 12 bytes; the 0x0e above is patched to its real length below.
  init[5] = init.length;
  return Uint8Array.from([...init, ...runtime]);
}

export function u256(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}

export const median = (xs: bigint[]): bigint => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[xs.length >> 1]!;
