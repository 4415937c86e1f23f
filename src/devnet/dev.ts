// The devnet's block production and development methods: --block-time (0 = automine: a block as soon as a
// transaction is accepted), evm_mine / anvil_mine, evm_setAutomine, interval mining, evm_snapshot / evm_revert and
// anvil_reset (the whole canister state in the host), evm_increaseTime / evm_setNextBlockTimestamp (the host's
// clock), and the cheats (balances, code, nonces, storage, impersonation, the next base fee, the coinbase) through
// the controller-only dev_* canister methods. Blocks are made by the controller-only `mine_block` update; the
// canister's own mining timer runs only for interval mining (azle timers are whole seconds, so N is too).
import { randomBytes } from 'node:crypto';
import type { HostClient } from '../client/host.js';
import type { CandidError } from '../client/schema.js';
import { ERROR_MAP, fromCanisterError, invalidParams, RpcCode, RpcError } from '../gateway/errors.js';
import type { AccountEdit, DevControl, ImpersonatedTx, MineSpacing } from '../gateway/methods/dev.js';
import type { HostStateSnapshot, IcHost, PrincipalLike } from '../host/index.js';

/** Snapshots kept (each holds a copy of the heap and stable memory); the oldest is dropped beyond this. */
export const MAX_SNAPSHOTS = 16;
const NS = 1_000_000_000n;

export class DevnetControl implements DevControl {
  private automine: boolean;
  private nextTimestamp: bigint | undefined;
  private interval: number | undefined;
  private readonly saved = new Map<bigint, { readonly state: HostStateSnapshot; readonly number: bigint; readonly hash: string }>();
  private nextId = 0n;
  /** The state right after install (anvil_reset's target); absent when the chain was resumed from its data folder. */
  private genesis: HostStateSnapshot | undefined;
  private readonly impersonating = new Set<`0x${string}`>();
  private impersonateAll = false;
  private instance = newInstanceId();
  private pendingMine: Promise<void> | undefined;
  /**
   * Called after a revert: whatever treats blocks as final (the gateway's cache of blocks and receipts, an
   * indexer) must forget what it read since the snapshot.
   */
  readonly onRevert: (() => void)[] = [];

  constructor(
    private readonly host: IcHost,
    private readonly evm: HostClient,
    private readonly controller: PrincipalLike,
    blockTimeS: number,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.automine = blockTimeS === 0;
    this.interval = blockTimeS === 0 ? undefined : blockTimeS;
  }

  get automining(): boolean {
    return this.automine;
  }

  get miningInterval(): number | undefined {
    return this.interval;
  }

  get instanceId(): string {
    return this.instance;
  }

  /** Keeps the state as it is now (right after install) as anvil_reset's target. */
  keepGenesis(): void {
    this.genesis = this.host.snapshotState();
  }

  /** Applies --block-time: the canister's mining timer at N seconds, or off for 0 (automine). */
  async configure(blockTimeS: number): Promise<string | undefined> {
    const r = await this.evm.as({ caller: this.controller }).update('set_mining_interval', [BigInt(blockTimeS) * 1000n]);
    return 'Err' in r ? `${r.Err.code}: ${r.Err.message}` : undefined;
  }

  async setIntervalMining(seconds: number): Promise<void> {
    const why = await this.configure(seconds);
    if (why !== undefined) throw new RpcError(RpcCode.Server, `set_mining_interval: ${why}`);
    this.interval = seconds === 0 ? undefined : seconds;
    this.automine = false;
  }

  async setBlockGasLimit(limit: bigint): Promise<void> {
    const r = await this.evm.as({ caller: this.controller }).update('set_block_gas_limit', [limit]);
    if ('Err' in r) throw invalidParams(`set_block_gas_limit: ${r.Err.message}`);
  }

  /** One block now (empty when `allowEmpty` and nothing is pending); its number, or undefined when none was made. */
  async mineOne(allowEmpty: boolean): Promise<bigint | undefined> {
    if (this.nextTimestamp !== undefined) {
      // Exactly this timestamp: the clock is moved so that it reads the target now (the block reads it at once).
      const want = this.nextTimestamp * NS;
      const now = this.host.now();
      if (want > now) this.host.shiftClock(want - now);
      this.nextTimestamp = undefined;
    }
    const r = await this.evm.as({ caller: this.controller }).update('mine_block', [allowEmpty]);
    if ('Err' in r) throw new Error(`mine_block: ${r.Err.code}: ${r.Err.message}`);
    return r.Ok[0];
  }

  /**
   * After an accepted transaction (the host's afterUpdate hook, for every way one arrives): when automining, a
   * block before the submit is answered. Submits that arrive in the same event-loop turn share one block (the
   * block is made once the turn's requests are in).
   */
  afterSubmit(): Promise<void> {
    if (!this.automine) return Promise.resolve();
    this.pendingMine ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.pendingMine = undefined;
        this.mineOne(false).then(
          () => resolve(),
          (e: unknown) => {
            // The transactions are accepted either way; the next evm_mine or block timer includes them.
            this.log(`automine failed: ${(e as Error).message}`);
            resolve();
          },
        );
      }),
    );
    return this.pendingMine;
  }

  async mine(blocks: number, spacing?: MineSpacing): Promise<void> {
    for (let i = 0; i < blocks; i++) {
      // A timestamp set with evm_setNextBlockTimestamp wins for the block it is for.
      if (this.nextTimestamp !== undefined) {
        // nothing: mineOne moves the clock to it
      } else if (spacing?.rule === 'anvil' && spacing.interval !== undefined) this.host.shiftClock(spacing.interval * NS);
      else if (spacing?.rule === 'hardhat' && i > 0) {
        // Hardhat: each later block `interval` after the previous; the clock is moved there unless already past.
        const want = (this.head().timestamp + spacing.interval) * NS;
        const now = this.host.now();
        if (want > now) this.host.shiftClock(want - now);
      }
      await this.mineOne(true);
    }
  }

  private head(): { number: bigint; timestamp: bigint; hash: string } {
    const n = this.evm.querySync('rpc_eth_block_number', []);
    const b = this.evm.querySync('rpc_eth_get_block_by_number', [n, false])[0];
    if (b === undefined) throw new Error(`head block ${n} unavailable`);
    return { number: b.number, timestamp: b.timestamp, hash: `0x${Buffer.from(b.hash).toString('hex')}` };
  }

  setAutomine(on: boolean): void {
    this.automine = on;
  }

  snapshot(): bigint {
    const id = this.nextId++;
    const h = this.head();
    this.saved.set(id, { state: this.host.snapshotState(), number: h.number, hash: h.hash });
    while (this.saved.size > MAX_SNAPSHOTS) this.saved.delete(this.saved.keys().next().value as bigint);
    return id;
  }

  snapshots(): { id: bigint; number: bigint; hash: string }[] {
    return [...this.saved].map(([id, s]) => ({ id, number: s.number, hash: s.hash }));
  }

  async revert(id: bigint): Promise<boolean> {
    const snap = this.saved.get(id);
    if (snap === undefined) return false;
    this.host.restoreState(snap.state);
    // Like Hardhat and anvil: the snapshot and every later one are used up.
    for (const k of [...this.saved.keys()]) if (k >= id) this.saved.delete(k);
    this.nextTimestamp = undefined;
    for (const f of this.onRevert) f();
    return true;
  }

  async reset(): Promise<string | undefined> {
    if (this.genesis === undefined) return 'this devnet resumed its chain from the data folder and kept no genesis state: restart it with --reset';
    this.host.restoreState(this.genesis);
    this.saved.clear();
    this.nextTimestamp = undefined;
    this.impersonating.clear();
    this.impersonateAll = false;
    this.instance = newInstanceId();
    // The genesis state has the install's mining settings: the current mode is applied again.
    const why = await this.configure(this.interval ?? 0);
    if (why !== undefined) this.log(`anvil_reset: mining interval not applied: ${why}`);
    for (const f of this.onRevert) f();
    return undefined;
  }

  increaseTime(seconds: bigint): bigint {
    this.host.shiftClock(seconds * NS);
    return this.host.clockOffset / NS;
  }

  async setNextBlockTimestamp(ts: bigint): Promise<string | undefined> {
    const block = this.head();
    if (ts <= block.timestamp) return `timestamp ${ts} is not after the head block's (${block.timestamp})`;
    const nowS = this.host.now() / NS;
    if (ts < nowS) return `timestamp ${ts} is before the devnet's clock (${nowS}): IC time never goes back`;
    this.nextTimestamp = ts;
    return undefined;
  }

  impersonate(address: `0x${string}`): void {
    this.impersonating.add(address);
  }

  stopImpersonating(address: `0x${string}`): boolean {
    return this.impersonating.delete(address);
  }

  autoImpersonate(on: boolean): void {
    this.impersonateAll = on;
  }

  isImpersonated(address: `0x${string}`): boolean {
    return this.impersonateAll || this.impersonating.has(address);
  }

  impersonated(): `0x${string}`[] {
    return [...this.impersonating];
  }

  private get ctl() {
    return this.evm.as({ caller: this.controller });
  }

  async setAccount(e: AccountEdit): Promise<void> {
    const r = await this.ctl.update('dev_set_account', [
      {
        address: e.address,
        balance: e.balance === undefined ? [] : [e.balance],
        nonce: e.nonce === undefined ? [] : [e.nonce],
        code: e.code === undefined ? [] : [e.code],
        storage: (e.storage ?? []).map((s) => ({ slot: s.slot, value: s.value })),
      },
    ]);
    cheat('dev_set_account', r, this.log);
  }

  async submitImpersonated(tx: ImpersonatedTx): Promise<Uint8Array> {
    const r = await this.ctl.update('dev_submit_impersonated', [
      {
        from: tx.from,
        to: tx.to === undefined ? [] : [tx.to],
        value: tx.value,
        data: tx.data,
        gas_limit: tx.gasLimit,
        nonce: [tx.nonce],
        gas_price: tx.gasPrice === undefined ? [] : [tx.gasPrice],
        max_fee_per_gas: tx.maxFeePerGas === undefined ? [] : [tx.maxFeePerGas],
        max_priority_fee_per_gas: tx.maxPriorityFeePerGas === undefined ? [] : [tx.maxPriorityFeePerGas],
        access_list: tx.accessList.map((i) => ({ address: i.address, storage_keys: [...i.storageKeys] })),
      },
    ]);
    return cheat('dev_submit_impersonated', r, this.log);
  }

  async dropTransaction(hash: Uint8Array): Promise<boolean> {
    return cheat('dev_drop_transaction', await this.ctl.update('dev_drop_transaction', [hash]), this.log);
  }

  async setNextBlockBaseFee(fee: bigint): Promise<void> {
    cheat('dev_set_next_block_base_fee', await this.ctl.update('dev_set_next_block_base_fee', [fee]), this.log);
  }

  async setCoinbase(address: Uint8Array): Promise<void> {
    cheat('dev_set_coinbase', await this.ctl.update('dev_set_coinbase', [address]), this.log);
  }
}

/** A dev_* answer: Ok's value, or the error as JSON-RPC maps the canister's codes (submit errors keep geth's phrases). */
function cheat<T>(method: string, r: { Ok: T } | { Err: CandidError }, log: (l: string) => void): T {
  if ('Ok' in r) return r.Ok;
  if (r.Err.code in ERROR_MAP) throw fromCanisterError(r.Err, (m) => log(`${method}: ${m}`));
  throw new RpcError(RpcCode.Server, `${method}: ${r.Err.code}: ${r.Err.message}`);
}

const newInstanceId = (): string => `0x${randomBytes(32).toString('hex')}`;
