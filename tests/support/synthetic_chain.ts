// A chain built directly in the canister's own stores (in memory), served through a client Transport by the
// canister's own export code (src/core/export/export.ts) and Candid conversion: for indexer tests and the
// indexer benchmark, where what matters is the export stream, not executing the transactions. Blocks hold
// IcSynthetic and signed (legacy) transactions, deployments, ERC-20 and ERC-721 Transfer logs and, on demand,
// a malformed Transfer-shaped log.
import { privateKeyToAccount } from 'viem/accounts';
import { exportCursorFromCandid, exportResultToCandid } from '../../src/canister/convert.js';
import { CanisterClient, type CanisterMethod, type Transport } from '../../src/client/index.js';
import { ChainStore, type StoredLog, type StoredReceipt } from '../../src/core/chain/store.js';
import { CHAIN_ID } from '../../src/core/constants.js';
import { COMMITMENT_VERSION } from '../../src/core/chain/commitments.js';
import { exportBlocks } from '../../src/core/export/export.js';
import { MemoryKvMap } from '../../src/core/host.js';
import { keccak256 } from '../../src/core/keccak.js';
import { encodeCanonical, syntheticTxHash } from '../../src/core/tx/ic_synthetic.js';
import { encodeStoredTx } from '../../src/core/tx/stored.js';
import { TxOrigin } from '../../src/core/tx/types.js';
import { TRANSFER_TOPIC } from '../../src/indexer/rows.js';

const word = (n: bigint): Uint8Array => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
const addrTopic = (a: Uint8Array): Uint8Array => {
  const t = new Uint8Array(32);
  t.set(a, 12);
  return t;
};
const addr = (i: number): Uint8Array => new Uint8Array(20).fill(0).map((_, j) => (j === 19 ? i & 0xff : j === 18 ? (i >> 8) & 0xff : 0x11));
const u64 = (n: bigint): Uint8Array => Uint8Array.from(Buffer.from(n.toString(16).padStart(16, '0'), 'hex'));

export const TOKEN = addr(0xe20);
export const NFT = addr(0x721);
const ETH_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as const;

export interface BlockSpec {
  /** Plain value transfers (IcSynthetic). */
  transfers?: number;
  /** ERC-20 transfers (one Transfer log each). */
  erc20?: number;
  erc721?: boolean;
  deployment?: boolean;
  malformedTransfer?: boolean;
  /** One signed legacy transaction. */
  signed?: boolean;
}

export class SyntheticChain {
  readonly txs = new MemoryKvMap();
  readonly store = new ChainStore({ blocks: new MemoryKvMap(), blockHashToNumber: new MemoryKvMap(), receipts: new MemoryKvMap(), blockLogs: new MemoryKvMap() });
  head = -1n;
  firstAvailable = 0n;
  chainId = BigInt(CHAIN_ID);
  private seq = 0n;
  private parent: Uint8Array = new Uint8Array(32);
  private signedRaw: Uint8Array[] = [];
  /** Export calls answered (tests count them); set `fail` to make the next calls throw. */
  calls = 0;
  fail = 0;

  /** Signed transactions are prepared ahead (signing is async). */
  async prepareSigned(n: number): Promise<void> {
    const acct = privateKeyToAccount(ETH_KEY);
    for (let i = 0; i < n; i++) {
      const hex = await acct.signTransaction({ type: 'legacy', chainId: Number(CHAIN_ID), nonce: i, gas: 21000n, gasPrice: 300n * 10n ** 9n, to: '0x000000000000000000000000000000000000beef', value: 5n });
      this.signedRaw.push(Uint8Array.from(Buffer.from(hex.slice(2), 'hex')));
    }
  }

  addBlock(spec: BlockSpec, timestamp?: bigint): bigint {
    const number = this.head + 1n;
    const txs: { txId: Uint8Array; ethHash: Uint8Array }[] = [];
    const logs: StoredLog[] = [];
    let cumulative = 0n;
    const add = (origin: TxOrigin, raw: Uint8Array, from: Uint8Array, ethHash: Uint8Array, r: Omit<StoredReceipt, 'firstLogIndex' | 'logCount' | 'cumulativeGasUsed' | 'logsBloom'>, txLogs: Omit<StoredLog, 'txIndex'>[]): void => {
      const txId = u64(++this.seq);
      const principal = origin === TxOrigin.IcSynthetic ? Uint8Array.of(0x01, 0x02, Number(this.seq & 0xffn)) : new Uint8Array();
      this.txs.insert(txId, encodeStoredTx({ origin, from, ethHash, principal, raw }));
      cumulative += r.gasUsed;
      const txIndex = txs.length;
      const receipt: StoredReceipt = { ...r, cumulativeGasUsed: cumulative, firstLogIndex: logs.length, logCount: txLogs.length, logsBloom: new Uint8Array(256).fill(txLogs.length > 0 ? 1 : 0) };
      this.store.putReceipt(txId, receipt);
      for (const l of txLogs) logs.push({ ...l, txIndex });
      txs.push({ txId, ethHash });
    };
    const synthetic = (to: Uint8Array | undefined, value: bigint, data: Uint8Array, i: number): { raw: Uint8Array; from: Uint8Array; hash: Uint8Array } => {
      const from = addr(i);
      const raw = encodeCanonical({ to, value, gasLimit: 100_000n, nonce: this.seq, maxFeePerGas: 500n * 10n ** 9n, maxPriorityFeePerGas: 2n * 10n ** 9n, data }, from);
      return { raw, from, hash: syntheticTxHash(raw) };
    };
    const ok = { status: 1 as const, gasUsed: 21_000n, effectiveGasPrice: 252n * 10n ** 9n, contractAddress: undefined, failureCode: '' };
    for (let i = 0; i < (spec.transfers ?? 0); i++) {
      const t = synthetic(addr(100 + i), 10n ** 15n + BigInt(i), new Uint8Array(), i);
      add(TxOrigin.IcSynthetic, t.raw, t.from, t.hash, ok, []);
    }
    for (let i = 0; i < (spec.erc20 ?? 0); i++) {
      const t = synthetic(TOKEN, 0n, Uint8Array.of(0xa9, 0x05, 0x9c, 0xbb, i & 0xff), i);
      add(TxOrigin.IcSynthetic, t.raw, t.from, t.hash, { ...ok, gasUsed: 51_000n }, [{ address: TOKEN, topics: [TRANSFER_TOPIC, addrTopic(t.from), addrTopic(addr(200 + i))], data: word(1000n + BigInt(i)) }]);
    }
    if (spec.erc721 === true) {
      const t = synthetic(NFT, 0n, Uint8Array.of(0x42, 0x84, 0x2e, 0x0e), 7);
      add(TxOrigin.IcSynthetic, t.raw, t.from, t.hash, { ...ok, gasUsed: 80_000n }, [{ address: NFT, topics: [TRANSFER_TOPIC, addrTopic(t.from), addrTopic(addr(300)), word(77n)], data: new Uint8Array() }]);
    }
    if (spec.malformedTransfer === true) {
      // Transfer signature, three topics, but 64 bytes of data: neither ERC-20 nor ERC-721.
      const t = synthetic(TOKEN, 0n, Uint8Array.of(1), 9);
      add(TxOrigin.IcSynthetic, t.raw, t.from, t.hash, { ...ok, gasUsed: 30_000n }, [{ address: TOKEN, topics: [TRANSFER_TOPIC, addrTopic(t.from), addrTopic(addr(9))], data: new Uint8Array(64).fill(3) }]);
    }
    if (spec.deployment === true) {
      const t = synthetic(undefined, 0n, Uint8Array.of(0x60, 0x80, 0x60, 0x40), 5);
      add(TxOrigin.IcSynthetic, t.raw, t.from, t.hash, { ...ok, gasUsed: 120_000n, contractAddress: addr(0xc0 + Number(number & 0x3fn)) }, []);
    }
    if (spec.signed === true) {
      const raw = this.signedRaw.shift();
      if (raw === undefined) throw new Error('prepareSigned first');
      add(TxOrigin.EthSigned, raw, Uint8Array.from(Buffer.from(privateKeyToAccount(ETH_KEY).address.slice(2), 'hex')), keccak256(raw), { ...ok, status: 0, failureCode: 'exec.reverted' }, []);
    }
    const hash = keccak256(Buffer.concat([u64(number), this.parent]));
    this.store.putBlock(
      {
        number,
        hash,
        parentHash: this.parent,
        timestamp: timestamp ?? 1_700_000_000n + number * 2n,
        gasLimit: 3_000_000n,
        gasUsed: cumulative,
        baseFeePerGas: 250n * 10n ** 9n,
        stateRoot: new Uint8Array(32).fill(1),
        transactionsRoot: new Uint8Array(32).fill(2),
        receiptsRoot: new Uint8Array(32).fill(3),
        logsBloom: new Uint8Array(256),
        coinbase: new Uint8Array(20),
        mixHash: new Uint8Array(32),
        size: 600 + txs.length * 120,
        txs,
      },
      logs,
    );
    this.parent = hash;
    this.head = number;
    return number;
  }

  /** Blocks below `first` are gone, as the canister's pruner leaves them. */
  prune(first: bigint): void {
    this.firstAvailable = first;
  }

  answer(method: CanisterMethod, args: readonly unknown[]): unknown {
    switch (method) {
      case 'rpc_eth_chain_id':
        return this.chainId;
      case 'export_blocks': {
        this.calls++;
        if (this.fail > 0) {
          this.fail--;
          throw new Error('synthetic: canister unavailable');
        }
        const [cursor, maxBytes] = args as [[] | [{ block_number: bigint; segment: number; byte_offset: number }], number];
        const r = exportBlocks(
          { host: { openMap: () => new MemoryKvMap(), timeNs: () => 0n, instructionCounter: () => 0n }, store: this.store, txs: this.txs, headNumber: this.head, firstAvailableBlock: this.firstAvailable, commitment: COMMITMENT_VERSION },
          cursor[0] === undefined ? undefined : exportCursorFromCandid(cursor[0]),
          maxBytes,
        );
        return exportResultToCandid(r);
      }
      case 'metrics':
        return { block_number: this.head < 0n ? 0n : this.head, prune: this.pruneStatus(), time_ns: 1n, mode: { Normal: null } };
      case 'get_prune_status':
        return this.pruneStatus();
      default:
        throw new Error(`synthetic chain: ${method} not served`);
    }
  }

  private pruneStatus() {
    return { enabled: this.firstAvailable > 0n, pruned_before_block: this.firstAvailable, pruned_blocks: this.firstAvailable, history_bytes: 0n };
  }

  transport(): Transport {
    return { kind: 'host', call: async (_mode, method, args) => this.answer(method, args) };
  }

  client(): CanisterClient {
    return new CanisterClient(this.transport());
  }
}
