// The logs subscriptions' shared read hands out logs without holding the event loop (it yields every
// DISPATCH_SLICE matcher evaluations, so requests are served while 1,024 subscriptions take a large block),
// matches through an address index, and a subscription armed while a read or a dispatch is under way still
// gets every log from its first block, once and in order.
import { describe, expect, it } from 'vitest';
import type { LogView } from '../../src/client/schema.js';
import { DISPATCH_SLICE, SharedLogRead, type LogListener } from '../../src/gateway/log_feed.js';
import { bytes, FakeClient, fakeContext } from '../support/gateway_fake.js';

const log = (block: bigint, index: number): LogView => ({
  address: bytes(20, 1 + (index % 2)),
  topics: [bytes(32, 2)],
  data: new Uint8Array(0),
  block_number: block,
  block_hash: bytes(32, 9),
  transaction_hash: bytes(32, 3),
  transaction_index: 0,
  log_index: index,
});

/** Blocks 1..head hold `perBlock` logs each, answered in one page; `onRead` runs inside each read. */
function canister(perBlock: number, head: () => bigint, onRead: () => void = () => {}) {
  return new FakeClient({
    rpc_eth_block_number: () => head(),
    rpc_eth_get_logs_filtered: async ([f]) => {
      const v = f as { from_block: [{ Number: bigint }]; to_block: [{ Number: bigint }] };
      onRead();
      await new Promise((r) => setImmediate(r));
      const logs: LogView[] = [];
      for (let b = v.from_block[0].Number; b <= v.to_block[0].Number; b++) for (let i = 0; i < perBlock; i++) logs.push(log(b, i));
      return { Ok: { logs, next_cursor: [] } };
    },
  });
}

function listener(from: bigint, address?: Uint8Array) {
  const seen: string[] = [];
  const l: LogListener = {
    criteria: { address: address === undefined ? [] : [[address]], topics: [] },
    from,
    last: undefined,
    deliver: (x) => (seen.push(`${BigInt(x.blockNumber as string)}:${Number(x.logIndex)}`), true),
  };
  return { l, seen };
}
const expected = (from: number, to: number, perBlock: number, only?: (i: number) => boolean) => {
  const out: string[] = [];
  for (let b = from; b <= to; b++) for (let i = 0; i < perBlock; i++) if (only === undefined || only(i)) out.push(`${b}:${i}`);
  return out;
};

describe('the logs subscriptions shared read', () => {
  it('yields to the event loop while 1,024 subscriptions take a 2,000-log block', async () => {
    const read = new SharedLogRead(fakeContext(canister(2000, () => 1n)));
    let delivered = 0;
    for (let i = 0; i < 1024; i++) read.add({ criteria: { address: [], topics: [] }, from: 1n, last: undefined, deliver: () => (delivered++, true) });
    // A request arriving meanwhile: each callback records how far the dispatch had got when it ran.
    const seenAt: number[] = [];
    let probing = true;
    const probe = () => {
      seenAt.push(delivered);
      if (probing) setImmediate(probe);
    };
    setImmediate(probe);
    await read.tick(1n);
    probing = false;
    const total = 2000 * 1024;
    expect(delivered).toBe(total);
    // The loop ran in the middle of the dispatch, at least once per slice.
    const middle = seenAt.filter((d) => d > 0 && d < total);
    expect(middle.length).toBeGreaterThanOrEqual(Math.floor(total / DISPATCH_SLICE) - 1);
  });

  it('matches through the address index: each subscription gets exactly its logs', async () => {
    const read = new SharedLogRead(fakeContext(canister(10, () => 2n)));
    const any = listener(1n);
    const odd = listener(1n, bytes(20, 2));
    const none = listener(1n, bytes(20, 7));
    for (const x of [any, odd, none]) read.add(x.l);
    await read.tick(2n);
    expect(any.seen).toEqual(expected(1, 2, 10));
    expect(odd.seen).toEqual(expected(1, 2, 10, (i) => i % 2 === 1));
    expect(none.seen).toEqual([]);
    // Removed: no more logs, and its address leaves the index.
    read.remove(odd.l);
    await read.tick(2n);
    expect(odd.seen).toEqual(expected(1, 2, 10, (i) => i % 2 === 1));
  });

  it('a subscription armed during a read gets every log from its first block, once, in order', async () => {
    let head = 2n;
    let late: ReturnType<typeof listener> | undefined;
    let read: SharedLogRead;
    // The second subscription arrives while the read of blocks 1..2 is waiting for the canister.
    const client = canister(3, () => head, () => {
      if (late === undefined) {
        late = listener(1n);
        read.add(late.l);
      }
    });
    read = new SharedLogRead(fakeContext(client));
    const early = listener(1n);
    read.add(early.l);
    await read.tick(head);
    await read.tick(head);
    head = 3n;
    await read.tick(head);
    expect(early.seen).toEqual(expected(1, 3, 3));
    expect(late!.seen).toEqual(expected(1, 3, 3));
  });

  it('a subscription armed during a dispatch gets every log from its first block, once, in order', async () => {
    const read = new SharedLogRead(fakeContext(canister(DISPATCH_SLICE, () => 2n)));
    let late: ReturnType<typeof listener> | undefined;
    const early = listener(1n);
    read.add(early.l);
    // A second subscription arrives once the dispatch has yielded the loop (block 1 half handed out).
    const arm = () => {
      if (early.seen.length > 0) {
        late = listener(1n);
        read.add(late.l);
      } else setImmediate(arm);
    };
    setImmediate(arm);
    await read.tick(2n);
    expect(late).toBeDefined();
    await read.tick(2n);
    expect(early.seen).toEqual(expected(1, 2, DISPATCH_SLICE));
    expect(late!.seen).toEqual(expected(1, 2, DISPATCH_SLICE));
  });
});
