// The boundary between the chain logic (mempool, blocks, receipts: src/core/chain, src/core/mempool)
// and the EVM engine (EthereumJS over a flat state store: src/core/evm). The chain never touches
// EthereumJS types; the engine never touches the pool or block history.

import type { ErrorCode } from './errors.js';
import type { AccountChange } from './export/state_changes.js';

export type Address = Uint8Array; // 20 bytes
export type Bytes32 = Uint8Array; // 32 bytes

/** A transaction ready to execute: sender already known (recovered once at submit, or derived for IcSynthetic). */
export interface ExecTx {
  /** 0 legacy, 1 EIP-2930, 2 EIP-1559. IcSynthetic transactions execute as type 2. */
  readonly type: 0 | 1 | 2;
  readonly from: Address;
  /** undefined: contract creation. */
  readonly to: Address | undefined;
  readonly nonce: bigint;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly gasLimit: bigint;
  /** For types 0 and 1 both fee fields equal the gas price. */
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly accessList: readonly (readonly [Address, readonly Bytes32[]])[];
}

export interface BlockEnv {
  readonly number: bigint;
  readonly timestamp: bigint; // seconds
  readonly baseFeePerGas: bigint;
  readonly gasLimit: bigint;
  readonly coinbase: Address;
  readonly prevRandao: Bytes32;
  readonly parentHash: Bytes32;
}

export interface ExecLog {
  readonly address: Address;
  readonly topics: readonly Bytes32[];
  readonly data: Uint8Array;
}

/** The outcome of a transaction that was included (it consumed gas and bumped the nonce). */
export interface IncludedOutcome {
  readonly kind: 'included';
  readonly status: 0 | 1;
  readonly gasUsed: bigint;
  readonly logs: readonly ExecLog[];
  readonly contractAddress: Address | undefined;
  readonly returnData: Uint8Array;
  /** Why status is 0: exec.reverted, exec.halt.*, exec.halt.instruction_budget, ... */
  readonly failure: { readonly code: ErrorCode; readonly message: string } | undefined;
  /** Instructions spent executing this transaction (performance counter delta). */
  readonly instructions: bigint;
  /** The receipt's 256-byte logs bloom, when the engine computed it anyway (saves recomputing its keccaks). */
  readonly logsBloom?: Uint8Array;
  /** Gas refund earned (before the 1/5 cap), where the engine knows it; eth_estimateGas starts its search from gasUsed + refund. */
  readonly gasRefund?: bigint;
  /**
   * Set (CallOptions.checkGasUsedRun) when a run with gas limit exactly gasUsed would take the same path and
   * succeed: status 1, no refund, and the top-level frame could not observe the gas it had (src/core/evm/gas_left.ts).
   */
  readonly sameAtGasUsed?: boolean;
}

/** The transaction cannot be included at all (nonce no longer matches, balance too low for gas * price, ...). */
export interface RejectedOutcome {
  readonly kind: 'rejected';
  readonly code: ErrorCode;
  readonly message: string;
}

export type TxOutcome = IncludedOutcome | RejectedOutcome;

export interface CallOptions {
  readonly instructionBudget?: bigint;
  /** eth_estimateGas's first run: report IncludedOutcome.sameAtGasUsed (engines that cannot tell leave it unset). */
  readonly checkGasUsedRun?: boolean;
}

export interface ExecutionEngine {
  /** Opens a block: all runTx calls until commitBlock/abortBlock belong to it. */
  beginBlock(env: BlockEnv): void;
  runTx(tx: ExecTx): Promise<TxOutcome>;
  /** Makes the block's writes durable; returns the state commitment recorded in the header. */
  commitBlock(): Promise<{ readonly stateRoot: Bytes32 }>;
  abortBlock(): void;
  /**
   * Bounded work a block message does after its block is finalised, outside every transaction and outside the
   * block's finalisation (the EVM engine compiles contract code its interpreter met: docs/execution.md
   * "Compiled code").
   */
  afterBlock?(): void;

  /**
   * Executes against head state and discards every change (eth_call / eth_estimateGas). The instruction
   * budget defaults to the block one (TX_INSTRUCTION_BUDGET); inside a query pass a smaller one
   * (QUERY_CALL_INSTRUCTION_BUDGET), the IC stops queries at 5 B.
   */
  call(tx: ExecTx, env: BlockEnv, opts?: CallOptions): Promise<IncludedOutcome>;

  getBalance(address: Address): bigint;
  getNonce(address: Address): bigint;
  getCode(address: Address): Uint8Array;
  getStorage(address: Address, slot: Bytes32): Bytes32;
  /**
   * A state change outside any transaction (genesis allocations and code, development cheats), written to
   * head state at once (reads see it), with no block open. The state root does not move: the caller chains
   * the block's whole list with chainStateChanges before the block that records it commits.
   */
  applyStateChange(change: AccountChange): void;
  /**
   * Chains an encoded list of state changes into the head state root (export/state_changes.ts); returns the
   * new root. Block production calls it with the block open, just before commitBlock.
   */
  chainStateChanges(encoded: Uint8Array): Bytes32;
  /** Tests: credit balance outside any block (one applied and chained state change). */
  setGenesisBalance(address: Address, balance: bigint): void;
  /** Tests: the account's code outside any block; its balance is kept, its nonce at least 1. */
  setGenesisCode(address: Address, code: Uint8Array): void;
}
