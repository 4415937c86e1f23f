// console.log of eth_call and eth_estimateGas on the devnet. The canister runs the call and knows nothing of the
// console address (a production canister pays nothing for console output); after the gateway has run it, the
// devnet runs the same call once more with stock EthereumJS on the archive's state after the same block, with
// the console.log collector on its EVM, and prints the lines under a header naming the call, as anvil and the
// Hardhat node print them. Only the devnet gives the gateway this watcher. The client's answer never waits
// for it: the gateway only queues the call here, and the re-run happens afterwards, one at a time.
import type { ArchiveReader } from '../archive/reader.js';
import type { CallObjectView } from '../client/schema.js';
import { toPrefixedHex } from '../gateway/hex.js';
import { archiveCallObject } from '../gateway/methods/archive_state.js';
import type { CallWatcher } from '../gateway/methods/types.js';
import { attachConsoleLog, CONSOLE_ADDRESS, isConsoleAddress, type ConsoleCollector, type EvmWithEvents } from './console_log.js';

/** Calls with more calldata are not re-run (a console.log in them is not printed). */
export const MAX_CALL_DATA_BYTES = 128 * 1024;
/** Calls waiting for their re-run; more are dropped (and counted in the next header). */
export const MAX_WAITING_CALLS = 64;
/** How long a call waits for the archive to reach its block; past it the call is not re-run. */
export const ARCHIVE_WAIT_MS = 5_000;
const POLL_MS = 25;

/** The 11 bytes of the console address after its zeros ("console.log"): contract code that logs holds them. */
const CONSOLE_TAIL = Uint8Array.from(Buffer.from(CONSOLE_ADDRESS.slice(-22), 'hex'));

interface Job {
  readonly method: 'eth_call' | 'eth_estimateGas';
  readonly call: CallObjectView;
  /** The block the call ran on; undefined when the head could not be read. */
  readonly block: Promise<bigint | undefined>;
}

function contains(hay: Uint8Array, needle: Uint8Array): boolean {
  return Buffer.from(hay.buffer, hay.byteOffset, hay.byteLength).indexOf(needle) >= 0;
}

export interface CallConsoleOptions {
  readonly reader: ArchiveReader;
  /** The canister's head block number (a call at `latest` ran on the state after it); asked when the call is queued. */
  readonly head: () => bigint | Promise<bigint>;
  readonly log: (line: string) => void;
  readonly waitMs?: number;
}

export class CallConsolePrinter implements CallWatcher {
  private readonly queue: Job[] = [];
  private running: Promise<void> | undefined;
  private dropped = 0;
  private closed = false;
  /** Some contract code in the archive holds the console address (then every call is re-run). */
  private consoleCode = false;
  /** The archive's head when its code was last searched. */
  private searchedAt = -2n;

  constructor(private readonly o: CallConsoleOptions) {}

  called(method: 'eth_call' | 'eth_estimateGas', call: CallObjectView, block: bigint | undefined): void {
    if (this.closed) return;
    if ((call.data[0]?.length ?? 0) > MAX_CALL_DATA_BYTES) return;
    if (this.queue.length >= MAX_WAITING_CALLS) {
      this.dropped++;
      return;
    }
    // The head is asked now (not when the call is re-run, a block later perhaps), without waiting for it.
    const at = block !== undefined ? Promise.resolve(block) : (async () => this.o.head())().catch(() => undefined);
    this.queue.push({ method, call, block: at });
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  /** Resolves when every queued call has been re-run (tests). */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  /** Drops what waits and waits for the call being re-run (before the archive's database closes). */
  async close(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    await this.idle();
  }

  private async drain(): Promise<void> {
    // Let the gateway send its answer first.
    await new Promise<void>((r) => setImmediate(r));
    for (let j = this.queue.shift(); j !== undefined && !this.closed; j = this.queue.shift()) {
      try {
        await this.rerun(j);
      } catch (e) {
        this.o.log(`console.log of ${j.method} not shown: ${(e as Error).message}`);
      }
    }
  }

  private async rerun(j: Job): Promise<void> {
    const block = await j.block;
    if (block === undefined || !(await this.archived(block))) return;
    if (!(await this.mayLog(j.call))) return;
    let collector: ConsoleCollector | undefined;
    try {
      await this.o.reader.call(archiveCallObject(j.call), block, (vm) => (collector = attachConsoleLog(vm.evm as unknown as EvmWithEvents)));
      const lines = collector?.take() ?? [];
      if (lines.length === 0) return;
      const to = j.call.to[0];
      const skipped = this.dropped === 0 ? '' : `; ${this.dropped} earlier calls not re-run: too many at once`;
      this.dropped = 0;
      this.o.log(`console.log (${j.method} ${to === undefined ? 'creating a contract' : `to ${toPrefixedHex(to)}`}, block ${block}${skipped}):`);
      for (const line of lines) this.o.log(`    ${line}`);
    } finally {
      collector?.detach();
    }
  }

  /** Waits (bounded) until the archive holds the state after `block`. */
  private async archived(block: bigint): Promise<boolean> {
    const until = Date.now() + (this.o.waitMs ?? ARCHIVE_WAIT_MS);
    for (;;) {
      if ((await this.o.reader.headBlock()) >= block) return true;
      if (this.closed || Date.now() >= until) return false;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /**
   * Whether the call can reach the console address: it calls it directly, its calldata (init code, an address
   * argument) holds it, or some code on the chain does. A chain without console.log in any contract re-runs nothing.
   */
  private async mayLog(call: CallObjectView): Promise<boolean> {
    if (isConsoleAddress(call.to[0])) return true;
    const data = call.data[0];
    if (data !== undefined && contains(data, CONSOLE_TAIL)) return true;
    if (this.consoleCode) return true;
    const head = await this.o.reader.headBlock();
    if (head !== this.searchedAt) {
      this.searchedAt = head;
      this.consoleCode = await this.o.reader.anyCodeContains(CONSOLE_TAIL);
    }
    return this.consoleCode;
  }
}
