// Singleton values in the Meta map (memory 0): config, head, next base fee, tx sequence counter.
// Each value has its own short ASCII key and a raw-byte encoding.
//
// config  = u8 version(1) || block_gas_limit u64 || instruction_soft_limit u64 || min_gas_price big
//           || min_priority_fee big || coinbase[20]           (big = u8 len + minimal big-endian)
// head    = number u64 || hash[32] || timestamp u64
// basefee = big: the base fee of the NEXT block
// txseq   = u64: the next tx sequence number (tx_id source)

import {
  DEFAULT_BASE_FEE,
  DEFAULT_BLOCK_GAS_LIMIT,
  DEFAULT_INSTRUCTION_SOFT_LIMIT,
  DEFAULT_MIN_GAS_PRICE,
  DEFAULT_MIN_PRIORITY_FEE,
} from '../constants.js';
import type { Address, Bytes32 } from '../engine.js';
import type { KvMap } from '../host.js';
import { ByteReader, ByteWriter, readU64be, u64be } from '../codec/bytes.js';
import { MetaKey, metaKey } from '../store/meta_keys.js';
import { COMMITMENT_VERSION_UNMARKED, storedCommitmentVersion, type CommitmentVersion } from './commitments.js';

const K_CONFIG = metaKey(MetaKey.Config);
const K_HEAD = metaKey(MetaKey.Head);
const K_BASEFEE = metaKey(MetaKey.BaseFee);
const K_TXSEQ = metaKey(MetaKey.TxSeq);

export interface ChainConfig {
  readonly blockGasLimit: bigint;
  readonly instructionSoftLimit: bigint;
  readonly minGasPrice: bigint;
  readonly minPriorityFee: bigint;
  readonly coinbase: Address;
}

export const DEFAULT_CONFIG: ChainConfig = {
  blockGasLimit: DEFAULT_BLOCK_GAS_LIMIT,
  instructionSoftLimit: DEFAULT_INSTRUCTION_SOFT_LIMIT,
  minGasPrice: DEFAULT_MIN_GAS_PRICE,
  minPriorityFee: DEFAULT_MIN_PRIORITY_FEE,
  coinbase: new Uint8Array(20),
};

export interface Head {
  readonly number: bigint;
  readonly hash: Bytes32;
  readonly timestamp: bigint;
}

export class MetaStore {
  // Heap copies: Meta is read on every submit; the map stays the source of truth across upgrades.
  private config: ChainConfig | undefined;
  private head: Head | undefined | null = null;
  private nextBaseFee: bigint | undefined;
  /** nextBaseFee is what the map holds (not the default of a map without the entry). */
  private nextBaseFeeStored = false;

  private commitment: CommitmentVersion | undefined;

  constructor(private readonly map: KvMap) {}

  /** The chain's commitment version (commitments.ts: fixed at install; read until the install wrote it). */
  getCommitmentVersion(): CommitmentVersion {
    if (this.commitment !== undefined) return this.commitment;
    const v = storedCommitmentVersion(this.map);
    this.commitment = v;
    return v ?? COMMITMENT_VERSION_UNMARKED;
  }

  getConfig(): ChainConfig {
    if (this.config !== undefined) return this.config;
    const b = this.map.get(K_CONFIG);
    if (b === undefined) return (this.config = DEFAULT_CONFIG);
    const r = new ByteReader(b);
    r.u8();
    this.config = {
      blockGasLimit: r.u64(),
      instructionSoftLimit: r.u64(),
      minGasPrice: r.big(),
      minPriorityFee: r.big(),
      coinbase: r.fixed(20).slice(),
    };
    return this.config;
  }

  setConfig(c: ChainConfig): void {
    this.map.insert(
      K_CONFIG,
      new ByteWriter(64)
        .u8(1)
        .u64(c.blockGasLimit)
        .u64(c.instructionSoftLimit)
        .big(c.minGasPrice)
        .big(c.minPriorityFee)
        .fixed(c.coinbase)
        .finish(),
    );
    this.config = c;
  }

  getHead(): Head | undefined {
    if (this.head !== null) return this.head;
    const b = this.map.get(K_HEAD);
    if (b === undefined) return (this.head = undefined);
    const r = new ByteReader(b);
    this.head = { number: r.u64(), hash: r.fixed(32).slice(), timestamp: r.u64() };
    return this.head;
  }

  setHead(h: Head): void {
    this.map.insert(K_HEAD, new ByteWriter(48).u64(h.number).fixed(h.hash).u64(h.timestamp).finish());
    this.head = h;
  }

  getNextBaseFee(): bigint {
    if (this.nextBaseFee !== undefined) return this.nextBaseFee;
    const b = this.map.get(K_BASEFEE);
    this.nextBaseFeeStored = b !== undefined;
    return (this.nextBaseFee = b === undefined ? DEFAULT_BASE_FEE : new ByteReader(b).big());
  }

  setNextBaseFee(v: bigint): void {
    // A chain at its minimum gas price keeps the same base fee block after block: the entry would be
    // rewritten with the same bytes, one B-tree call (block.fixed.instructions).
    if (this.nextBaseFeeStored && this.nextBaseFee === v) return;
    this.map.insert(K_BASEFEE, new ByteWriter(33).big(v).finish());
    this.nextBaseFee = v;
    this.nextBaseFeeStored = true;
  }

  /** The next sequence number, without taking it (every tx_id so far is below it). */
  peekTxSeq(): bigint {
    const b = this.map.get(K_TXSEQ);
    return b === undefined ? 1n : readU64be(b);
  }

  /** Returns the next sequence number and advances the counter. */
  takeTxSeq(): bigint {
    const b = this.map.get(K_TXSEQ);
    const n = b === undefined ? 1n : readU64be(b);
    this.map.insert(K_TXSEQ, u64be(n + 1n));
    return n;
  }
}
