// The devnet's block production and development methods: --block-time (0 = automine: a block as soon as a
// transaction is accepted), evm_mine, evm_setAutomine, evm_snapshot / evm_revert (the whole canister state in the
// host), evm_increaseTime / evm_setNextBlockTimestamp (the host's clock). Blocks are made by the controller-only
// `mine_block` update; the canister's own mining timer runs only for --block-time N > 0 (azle timers are whole
// seconds, so N is too).
import type { HostClient } from '../client/host.js';
import type { DevControl } from '../gateway/methods/dev.js';
import type { HostStateSnapshot, IcHost, PrincipalLike } from '../host/index.js';

/** Snapshots kept (each holds a copy of the heap and stable memory); the oldest is dropped beyond this. */
export const MAX_SNAPSHOTS = 16;
const NS = 1_000_000_000n;

export class DevnetControl implements DevControl {
  private automine: boolean;
  private nextTimestamp: bigint | undefined;
  private readonly snapshots = new Map<bigint, HostStateSnapshot>();
  private nextId = 0n;
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
  }

  get automining(): boolean {
    return this.automine;
  }

  /** Applies --block-time: the canister's mining timer at N seconds, or off for 0 (automine). */
  async configure(blockTimeS: number): Promise<string | undefined> {
    const r = await this.evm.as({ caller: this.controller }).update('set_mining_interval', [BigInt(blockTimeS) * 1000n]);
    return 'Err' in r ? `${r.Err.code}: ${r.Err.message}` : undefined;
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

  async mine(blocks: number): Promise<void> {
    for (let i = 0; i < blocks; i++) await this.mineOne(true);
  }

  setAutomine(on: boolean): void {
    this.automine = on;
  }

  snapshot(): bigint {
    const id = this.nextId++;
    this.snapshots.set(id, this.host.snapshotState());
    while (this.snapshots.size > MAX_SNAPSHOTS) this.snapshots.delete(this.snapshots.keys().next().value as bigint);
    return id;
  }

  async revert(id: bigint): Promise<boolean> {
    const snap = this.snapshots.get(id);
    if (snap === undefined) return false;
    this.host.restoreState(snap);
    // Like Hardhat and anvil: the snapshot and every later one are used up.
    for (const k of [...this.snapshots.keys()]) if (k >= id) this.snapshots.delete(k);
    this.nextTimestamp = undefined;
    for (const f of this.onRevert) f();
    return true;
  }

  increaseTime(seconds: bigint): bigint {
    this.host.shiftClock(seconds * NS);
    return this.host.clockOffset / NS;
  }

  async setNextBlockTimestamp(ts: bigint): Promise<string | undefined> {
    const head = this.evm.querySync('rpc_eth_block_number', []);
    const block = this.evm.querySync('rpc_eth_get_block_by_number', [head, false])[0];
    if (block !== undefined && ts <= block.timestamp) return `timestamp ${ts} is not after the head block's (${block.timestamp})`;
    const nowS = this.host.now() / NS;
    if (ts < nowS) return `timestamp ${ts} is before the devnet's clock (${nowS}): IC time never goes back`;
    this.nextTimestamp = ts;
    return undefined;
  }
}

