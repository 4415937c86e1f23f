// The archive's copy of the head state, in memory, in the canister's own flat record form (core/evm/encoding.ts:
// accounts with their storage generation and has-storage flag, code by hash, storage by address || gen || slot).
// The header's stateRoot hashes exactly these records (docs/execution.md "State and its commitment"), so the
// archive keeps them to recompute it; every committed write is recorded as the block's changes for the history
// tables.
import { MemoryKvMap, type KvMap } from '../core/host.js';
import { STATE_ROOT_KEY } from '../core/evm/state.js';
import { bytesEqual } from '../core/codec/bytes.js';

/** A block's net writes: value undefined = the key was removed. */
export interface StateWrites {
  readonly accounts: [Uint8Array, Uint8Array | undefined][];
  readonly storage: [Uint8Array, Uint8Array | undefined][];
  readonly code: [Uint8Array, Uint8Array][];
}

export const emptyWrites = (): StateWrites => ({ accounts: [], storage: [], code: [] });

/** A KvMap that records its inserts and removes into `log` (the state root key is not a state entry). */
class RecordingMap implements KvMap {
  constructor(
    readonly inner: MemoryKvMap,
    private readonly log: () => [Uint8Array, Uint8Array | undefined][],
  ) {}
  get(key: Uint8Array): Uint8Array | undefined {
    return this.inner.get(key);
  }
  insert(key: Uint8Array, value: Uint8Array): void {
    this.inner.insert(key, value);
    if (!bytesEqual(key, STATE_ROOT_KEY)) this.log().push([key.slice(), value.slice()]);
  }
  remove(key: Uint8Array): void {
    this.inner.remove(key);
    this.log().push([key.slice(), undefined]);
  }
  containsKey(key: Uint8Array): boolean {
    return this.inner.containsKey(key);
  }
  len(): bigint {
    return this.inner.len();
  }
  items(startIndex?: number, length?: number): [Uint8Array, Uint8Array][] {
    return this.inner.items(startIndex, length);
  }
}

export class HeadState {
  private writes: StateWrites = emptyWrites();
  readonly accounts: KvMap;
  readonly storage: KvMap;
  readonly code: KvMap;

  constructor() {
    this.accounts = new RecordingMap(new MemoryKvMap(), () => this.writes.accounts);
    this.storage = new RecordingMap(new MemoryKvMap(), () => this.writes.storage);
    this.code = new RecordingMap(new MemoryKvMap(), () => this.writes.code as [Uint8Array, Uint8Array | undefined][]);
  }

  /** The writes since the last call, net per key (last write wins, first-write order kept). */
  takeWrites(): StateWrites {
    const w = this.writes;
    this.writes = emptyWrites();
    return { accounts: netOf(w.accounts), storage: netOf(w.storage), code: netOf(w.code) as [Uint8Array, Uint8Array][] };
  }

  /** Loads a state (from the history tables) without recording it as writes. */
  load(accounts: Iterable<[Uint8Array, Uint8Array]>, storage: Iterable<[Uint8Array, Uint8Array]>, code: Iterable<[Uint8Array, Uint8Array]>, stateRoot: Uint8Array): void {
    const inner = (m: KvMap): MemoryKvMap => (m as RecordingMap).inner;
    for (const [k, v] of accounts) inner(this.accounts).insert(k, v);
    for (const [k, v] of storage) inner(this.storage).insert(k, v);
    for (const [k, v] of code) inner(this.code).insert(k, v);
    inner(this.accounts).insert(STATE_ROOT_KEY, stateRoot);
  }

  stateRoot(): Uint8Array {
    return this.accounts.get(STATE_ROOT_KEY) ?? new Uint8Array(32);
  }
}

function netOf(entries: [Uint8Array, Uint8Array | undefined][]): [Uint8Array, Uint8Array | undefined][] {
  const byKey = new Map<string, [Uint8Array, Uint8Array | undefined]>();
  for (const e of entries) byKey.set(Buffer.from(e[0]).toString('hex'), e);
  return [...byKey.values()];
}
