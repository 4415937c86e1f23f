// A chain run by the canister's own core and EVM engine in memory (no wasm), with genesis balances and code,
// blocks of varied transactions (value transfers, a Store deployment and calls that write storage and log, a
// revert, a self-destructing creation, BLOCKHASH/NUMBER/TIMESTAMP/COINBASE/PREVRANDAO readers), served through
// a client Transport by the canister's own export code: what the archive follows and re-executes in tests.
import { exportCursorFromCandid, exportResultToCandid } from '../../src/canister/convert.js';
import { CanisterClient, type Transport } from '../../src/client/index.js';
import { createEvmEngine } from '../../src/core/evm/index.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import { EvmCore } from '../../src/core/index.js';
import { ExportAssembler, type ExportedBlock } from '../../src/core/export/decode.js';
import type { CommitmentVersion } from '../../src/core/chain/commitments.js';
import type { GenesisEntry } from '../../src/archive/replay.js';
import { STORE_INIT, REVERTER_INIT } from '../fixtures/contracts/index.js';
import { asm, deployCode } from './asm.js';
import { ETH, addr, key, okValue, sign1559, signLegacy, type Key } from './chain_testkit.js';
import { generateAddress, bigIntToBytes } from '@ethereumjs/util';

/** Runtime: storage[NUMBER] = BLOCKHASH(NUMBER - 1) ^ TIMESTAMP ^ COINBASE ^ PREVRANDAO ^ BASEFEE ^ GASLIMIT. */
export const CONTEXT_RUNTIME = asm(1, 'NUMBER', 'SUB', 'BLOCKHASH', 'TIMESTAMP', 'ADD', 'COINBASE', 'ADD', 'PREVRANDAO', 'ADD', 'BASEFEE', 'ADD', 'GASLIMIT', 'ADD', 'NUMBER', 'SSTORE', 'STOP');
/** A creation whose constructor self-destructs to the caller (EIP-6780: the account is removed). */
export const SELFDESTRUCT_INIT = asm('CALLER', 'SELFDESTRUCT');
/** Runtime with storage then SELFDESTRUCT to the caller when called (EIP-6780: only the balance moves). */
export const KILLABLE_INIT = deployCode(asm('CALLER', 'SELFDESTRUCT'), asm(7, 3, 'SSTORE'));

export const A: Key = key(41);
export const B: Key = key(42);
export const GENESIS_CODE_AT = addr(0x77);
export const GENESIS: GenesisEntry[] = [
  { address: A.address, balance: 100n * ETH },
  { address: B.address, balance: 5n * ETH },
  { address: GENESIS_CODE_AT, code: CONTEXT_RUNTIME },
];

export class ArchiveTestChain {
  readonly host = new MemoryCoreHost();
  core!: EvmCore;
  private nonces = new Map<string, bigint>();
  store: Uint8Array | undefined;
  killable: Uint8Array | undefined;
  /** Every transaction legacy (type 0): fees then do not depend on the base fee (the anvil differential run). */
  legacyOnly = false;
  /** The signed transactions of each mined block, in submit order (replayed on anvil). */
  readonly blockRaws: Uint8Array[][] = [];
  private pendingRaws: Uint8Array[] = [];
  /** Rewrites each export_blocks answer before it is returned (tests alter the stream). */
  alter: ((b: ExportedBlock) => ExportedBlock) | undefined;

  /** `commitmentVersion`: 1 for a chain as installed before commitment versions (keccak256 roots). */
  static async create(opts: { commitmentVersion?: CommitmentVersion } = {}): Promise<ArchiveTestChain> {
    const c = new ArchiveTestChain();
    const engine = await createEvmEngine({ host: c.host, blockHash: (n) => c.core?.getBlockHash(n) });
    c.core = new EvmCore(c.host, engine);
    okValue(
      await c.core.init({
        genesisAllocations: [{ address: A.address, balance: 100n * ETH }, { address: B.address, balance: 5n * ETH }],
        genesisCode: [{ address: GENESIS_CODE_AT, code: CONTEXT_RUNTIME }],
        feeRecipient: addr(0xcb),
        ...(opts.commitmentVersion === undefined ? {} : { commitmentVersion: opts.commitmentVersion }),
      }),
    );
    return c;
  }

  private nonce(k: Key): bigint {
    const h = Buffer.from(k.address).toString('hex');
    const n = this.nonces.get(h) ?? 0n;
    this.nonces.set(h, n + 1n);
    return n;
  }

  send(k: Key, o: { to?: Uint8Array | null; value?: bigint; data?: Uint8Array; gasLimit?: bigint; legacy?: boolean; maxFee?: bigint }): Uint8Array {
    const nonce = this.nonce(k);
    const opts = { nonce, to: o.to, value: o.value ?? 0n, data: o.data, gasLimit: o.gasLimit ?? 200_000n, ...(o.maxFee === undefined ? {} : { maxFee: o.maxFee, gasPrice: o.maxFee }) };
    const raw = o.legacy === true || this.legacyOnly ? signLegacy(k, opts) : sign1559(k, opts);
    okValue(this.core.submitRawTx(raw));
    this.pendingRaws.push(raw);
    if (o.to === null) return generateAddress(k.address, bigIntToBytes(nonce));
    return o.to ?? new Uint8Array(20);
  }

  /** Called after each block this chain mines (tests snapshot the head state there). */
  onBlock: ((n: bigint) => Promise<void>) | undefined;

  async mine(): Promise<void> {
    const r = await this.core.produceBlock();
    if (r.kind !== 'Produced') throw new Error(`no block: ${r.kind}`);
    this.blockRaws.push(this.pendingRaws);
    this.pendingRaws = [];
    await this.onBlock?.(this.head);
  }

  /** A run touching every kind of state change the archive must follow. */
  async runScenario(blocks = 6): Promise<void> {
    this.send(A, { to: B.address, value: 3n * ETH, gasLimit: 21_000n });
    this.store = this.send(A, { to: null, data: STORE_INIT, gasLimit: 300_000n });
    this.send(B, { to: null, data: REVERTER_INIT, gasLimit: 300_000n, legacy: true });
    await this.mine();
    const word = (n: bigint): Uint8Array => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
    this.send(A, { to: this.store, data: word(11n) });
    this.send(B, { to: GENESIS_CODE_AT });
    this.killable = this.send(A, { to: null, data: KILLABLE_INIT, gasLimit: 300_000n });
    this.send(B, { to: null, data: SELFDESTRUCT_INIT, value: 5n, gasLimit: 100_000n });
    await this.mine();
    this.send(A, { to: this.killable, gasLimit: 100_000n });
    this.send(B, { to: this.store, data: word(0n) }); // clears slot 0
    this.send(A, { to: this.store, data: word(12n), gasLimit: 22_000n }); // out of gas: status 0
    await this.mine();
    for (let i = 3; i < blocks; i++) {
      this.send(A, { to: this.store, data: word(BigInt(100 + i)) });
      this.send(B, { to: GENESIS_CODE_AT });
      this.send(A, { to: addr(0x10 + i), value: BigInt(i), gasLimit: 21_000n });
      await this.mine();
    }
  }

  get head(): bigint {
    return this.core.blockNumber();
  }

  /** Every block from `from`, decoded as the archive receives them. */
  exportedBlocks(from = 0n): ExportedBlock[] {
    const asm = new ExportAssembler({ blockNumber: from, segment: 0, byteOffset: 0 });
    const out: ExportedBlock[] = [];
    for (;;) {
      const r = this.core.exportBlocks(asm.cursor, 1 << 20);
      if (!r.ok) throw new Error(r.error.kind);
      if (r.value.chunks.length === 0) return out;
      for (const c of r.value.chunks) out.push(...asm.push(c));
    }
  }

  transport(): Transport {
    return {
      kind: 'host',
      call: async (_mode, method, args) => {
        switch (method) {
          case 'rpc_eth_chain_id':
            return 4801360n;
          case 'rpc_eth_block_number':
            return this.head;
          case 'export_blocks': {
            const [cursor, maxBytes] = args as [[] | [{ block_number: bigint; segment: number; byte_offset: number }], number];
            const r = this.core.exportBlocks(cursor[0] === undefined ? undefined : exportCursorFromCandid(cursor[0]), maxBytes);
            return exportResultToCandid(r);
          }
          default:
            throw new Error(`archive test chain: ${method} not served`);
        }
      },
    };
  }

  client(): CanisterClient {
    return new CanisterClient(this.transport());
  }
}
