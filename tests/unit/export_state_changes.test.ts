// Export format 2: a block's state changes (segment 0's tail). The codec round-trips every field and refuses
// hostile bytes with its own error; block 0 carries the genesis allocations and code, the genesis state root
// commits to exactly those bytes, and applying them to empty maps rebuilds the canister's genesis state;
// segments of format 1 (without state changes) still decode.
import { describe, expect, it } from 'vitest';
import { createEvmEngine } from '../../src/core/evm/index.js';
import { applyAccountChangeToMaps } from '../../src/core/evm/account_change.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import { EvmCore } from '../../src/core/index.js';
import { keccak256 } from '../../src/core/crypto.js';
import { blake3 } from '@noble/hashes/blake3.js';
import { MemoryId } from '../../src/core/store/memory_ids.js';
import { concatBytes, fromHex, toHex } from '../../src/core/codec/bytes.js';
import { ExportAssembler, ExportFormatError, decodeBlock, decodeBlockSegment, type ExportedBlock } from '../../src/core/export/decode.js';
import { StateChangesError, decodeStateChanges, encodeStateChanges, mergeStateChange, type AccountChange } from '../../src/core/export/state_changes.js';
import { CREATE2_DEPLOYER, MULTICALL3 } from '../../src/devnet/predeploys.js';
import { ETH, key, okValue, sign1559 } from '../support/chain_testkit.js';
import { randomBytes, rng } from '../support/random.js';

const word = (n: number): Uint8Array => {
  const w = new Uint8Array(32);
  w[31] = n;
  return w;
};

const SAMPLE: AccountChange[] = [
  { address: new Uint8Array(20).fill(1), balance: 0n, storage: [] },
  { address: new Uint8Array(20).fill(2), balance: (1n << 256n) - 1n, nonce: (1n << 64n) - 1n, code: new Uint8Array(24_576).fill(0x5b), storage: [] },
  { address: new Uint8Array(20).fill(3), code: new Uint8Array(0), storage: [{ slot: word(1), value: word(0) }, { slot: word(2), value: new Uint8Array(32).fill(0xff) }] },
  { address: new Uint8Array(20).fill(4), nonce: 7n, storage: [{ slot: word(9), value: word(5) }] },
];

describe('state changes codec', () => {
  it('round-trips every field, and an empty list is four zero bytes', () => {
    const bytes = encodeStateChanges(SAMPLE);
    expect(decodeStateChanges(bytes)).toEqual(SAMPLE);
    expect(encodeStateChanges([])).toEqual(new Uint8Array(4));
    expect(decodeStateChanges(new Uint8Array(4))).toEqual([]);
  });

  it('merges net per address and slot, last write wins, first-change order kept', () => {
    let l: AccountChange[] = [];
    l = mergeStateChange(l, { address: SAMPLE[3]!.address, balance: 5n, storage: [{ slot: word(1), value: word(1) }] });
    l = mergeStateChange(l, { address: SAMPLE[0]!.address, nonce: 1n, storage: [] });
    l = mergeStateChange(l, { address: SAMPLE[3]!.address, balance: 6n, code: Uint8Array.of(1), storage: [{ slot: word(2), value: word(2) }, { slot: word(1), value: word(3) }] });
    expect(l).toEqual([
      { address: SAMPLE[3]!.address, balance: 6n, code: Uint8Array.of(1), storage: [{ slot: word(1), value: word(3) }, { slot: word(2), value: word(2) }] },
      { address: SAMPLE[0]!.address, nonce: 1n, storage: [] },
    ]);
    expect(decodeStateChanges(encodeStateChanges(l))).toEqual(l);
  });

  it('refuses hostile bytes with StateChangesError, allocating only for bytes present', () => {
    const good = encodeStateChanges(SAMPLE);
    const refuse = (b: Uint8Array, re: RegExp) => expect(() => decodeStateChanges(b)).toThrow(re);
    refuse(Uint8Array.of(0xff, 0xff, 0xff, 0xff), /cannot fit/);
    refuse(concatBytes(good, Uint8Array.of(0)), /trailing/);
    refuse(good.subarray(0, good.length - 1), /truncated|cannot fit/);
    const one = (flags: number, ...rest: number[]) => Uint8Array.of(0, 0, 0, 1, ...new Uint8Array(20), flags, ...rest);
    refuse(one(0x10), /unknown state change flags/);
    refuse(one(1, 33, ...new Uint8Array(33)), /at most 32/);
    refuse(one(1, 2, 0, 1), /not minimal/);
    refuse(one(8, 0, 0, 0, 0), /no slots/);
    refuse(one(8, 0xff, 0xff, 0xff, 0xff), /cannot fit/);
    refuse(one(4, 0xff, 0xff, 0xff, 0xff), /truncated/);
    refuse(one(8, 0, 0, 0, 2, ...word(1), ...word(1), ...word(1), ...word(2)), /set twice/);
    const twice = encodeStateChanges([SAMPLE[0]!, SAMPLE[0]!]);
    refuse(twice, /changed twice/);
    // Every truncation, every single-byte change and random buffers: a value or StateChangesError, nothing else.
    const draw = rng(22);
    const decodeOrRefuse = (b: Uint8Array): boolean => {
      try {
        decodeStateChanges(b);
        return false;
      } catch (e) {
        expect(e).toBeInstanceOf(StateChangesError);
        return true;
      }
    };
    for (let i = 0; i < good.length; i += 97) expect(decodeOrRefuse(good.subarray(0, i))).toBe(true);
    // Single-byte changes outside the code: many land in addresses, values and slots (still a valid list).
    const codeAt = 4 + 21 + 1 + 8 + 4 + 32 + 4 + 8;
    let refused = 0;
    for (let i = 0; i < 1000; i++) {
      const b = good.slice();
      const at = draw(2) === 0 ? draw(codeAt) : codeAt + 24_576 + draw(good.length - codeAt - 24_576);
      b[at] = b[at]! ^ (1 + draw(255));
      if (decodeOrRefuse(b)) refused++;
    }
    expect(refused).toBeGreaterThan(20);
    for (let i = 0; i < 500; i++) decodeOrRefuse(concatBytes(Uint8Array.of(0, 0, 0, draw(4)), randomBytes(draw(300), i + 1)));
  });
});

const A = key(21);
const deployer = fromHex(CREATE2_DEPLOYER.address.slice(2));
const multicall = fromHex(MULTICALL3.address.slice(2));

async function realChain() {
  const host = new MemoryCoreHost();
  let core: EvmCore | undefined;
  const engine = await createEvmEngine({ host, blockHash: (n) => core?.getBlockHash(n) });
  core = new EvmCore(host, engine);
  okValue(
    await core.init({
      genesisAllocations: [{ address: A.address, balance: 10n * ETH }, { address: multicall, balance: 3n }, { address: A.address, balance: 11n * ETH }],
      genesisCode: [{ address: deployer, code: fromHex(CREATE2_DEPLOYER.code.slice(2)) }, { address: multicall, code: fromHex(MULTICALL3.code.slice(2)) }],
    }),
  );
  return { host, core, engine };
}

function pull(core: EvmCore): ExportedBlock[] {
  const asm = new ExportAssembler({ blockNumber: 0n, segment: 0, byteOffset: 0 });
  const out: ExportedBlock[] = [];
  let cursor = asm.cursor;
  for (;;) {
    const r = core.exportBlocks(cursor, 333);
    if (!r.ok) throw new Error(r.error.kind);
    if (r.value.chunks.length === 0) return out;
    for (const c of r.value.chunks) out.push(...asm.push(c));
    cursor = r.value.nextCursor;
  }
}

describe('export formats 1 to 3 over the real engine', () => {
  it('block 0 carries the genesis allocations and code; its state root commits to them; they rebuild genesis state', async () => {
    const { host, core } = await realChain();
    okValue(core.submitRawTx(sign1559(A, { nonce: 0n, to: deployer, value: 1n })));
    expect((await core.produceBlock()).kind).toBe('Produced');
    const [b0, b1] = pull(core);
    expect(b0!.stateChanges).toEqual([
      { address: A.address, balance: 11n * ETH, storage: [] },
      { address: multicall, balance: 3n, code: fromHex(MULTICALL3.code.slice(2)), nonce: 1n, storage: [] },
      { address: deployer, code: fromHex(CREATE2_DEPLOYER.code.slice(2)), nonce: 1n, storage: [] },
    ]);
    expect(b1!.stateChanges).toEqual([]);
    expect(b1!.block.stateChanges).toBeUndefined();
    const encoded = b0!.block.stateChanges!;
    // A chain installed now: commitment version 2, H = BLAKE3 (chain/commitments.ts).
    expect(b0!.block.commitment).toBe(2);
    expect(toHex(b0!.block.stateRoot)).toBe(toHex(blake3(concatBytes(new Uint8Array(32), blake3(encoded)))));
    // The same view as the canister's block 0 (the store decodes the same record).
    expect(core.getBlockByNumber(0n, false)!.stateRoot).toEqual(b0!.block.stateRoot);
    // Applying the exported changes to empty maps gives the canister's genesis records byte for byte.
    const fresh = new MemoryCoreHost();
    const maps = { accounts: fresh.openMap(MemoryId.Accounts), code: fresh.openMap(MemoryId.Code), storage: fresh.openMap(MemoryId.Storage) };
    for (const c of b0!.stateChanges) applyAccountChangeToMaps(maps, c);
    const live = { accounts: host.openMap(MemoryId.Accounts), code: host.openMap(MemoryId.Code) };
    for (const a of [multicall, deployer]) {
      // Block 1 did not touch these two.
      expect(maps.accounts.get(a)).toEqual(live.accounts.get(a));
    }
    for (const c of b0!.stateChanges) if (c.code !== undefined) expect(maps.code.get(keccak256(c.code))).toEqual(live.code.get(keccak256(c.code)));
  }, 60_000);

  it('reads format 1 (no state changes) and 2 (no commitment version) segments and refuses a malformed tail', async () => {
    const { core } = await realChain();
    okValue(core.submitRawTx(sign1559(A, { nonce: 0n, to: deployer, value: 1n })));
    await core.produceBlock();
    const [b0, b1] = pull(core);
    const s0 = b1!.segments[0];
    // Format 3: the commitment version, then an empty state-change list.
    expect(s0[0]).toBe(3);
    expect(s0.subarray(s0.length - 5)).toEqual(Uint8Array.of(2, 0, 0, 0, 0));
    const v1 = s0.slice(0, s0.length - 5);
    v1[0] = 1;
    const again = decodeBlock([v1, b1!.segments[1], b1!.segments[2]]);
    // Formats 1 and 2 were written before commitment versions: their blocks are version 1 (keccak256).
    expect(again.block).toEqual({ ...b1!.block, commitment: 1 });
    expect(again.stateChanges).toEqual([]);
    const v2 = concatBytes(s0.subarray(0, s0.length - 5), s0.subarray(s0.length - 4));
    v2[0] = 2;
    expect(decodeBlock([v2, b1!.segments[1], b1!.segments[2]]).block).toEqual({ ...b1!.block, commitment: 1 });
    // A commitment version this decoder does not know.
    expect(() => decodeBlockSegment(s0.map((x, i) => (i === s0.length - 5 ? 9 : x)))).toThrow(/commitment version 9/);
    // Version 1 with bytes after the transaction list, version 2 without the list's count, or a bad list.
    expect(() => decodeBlockSegment(s0.map((x, i) => (i === 0 ? 1 : x)))).toThrow(/trailing/);
    expect(() => decodeBlockSegment(s0.subarray(0, s0.length - 2))).toThrow(ExportFormatError);
    const g = b0!.segments[0].slice();
    g[g.length - b0!.block.stateChanges!.length + 3]! += 1; // one more entry than the bytes hold
    expect(() => decodeBlock([g, b0!.segments[1], b0!.segments[2]])).toThrow(ExportFormatError);
    // A transaction count the segment cannot hold: refused before allocating.
    const big = s0.slice(0, s0.length - 5);
    big.set([0xff, 0xff, 0xff, 0xff], big.length - 4);
    expect(() => decodeBlockSegment(big)).toThrow(ExportFormatError);
  }, 60_000);
});
