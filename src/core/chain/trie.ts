// Ethereum's ordered Merkle-Patricia trie root (key = RLP(index), value = item bytes), as used for
// transactionsRoot and receiptsRoot. Built once per block over at most MAX_TXS_PER_BLOCK items; no trie
// library is needed for a one-shot root. Nodes are RLP-encoded by hand: a child whose encoding is
// shorter than 32 bytes is embedded, otherwise referenced by its keccak.

import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto.js';
import { bigintToMinBytes, concatBytes, fromHex } from '../codec/bytes.js';
import { rlpListHeader } from '../codec/rlp.js';

/** keccak256(RLP("")): the root of an empty trie. */
export const EMPTY_TRIE_ROOT = fromHex('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');

interface Item {
  readonly key: number[];
  readonly value: Uint8Array;
}

function nibbles(b: Uint8Array): number[] {
  const out: number[] = [];
  for (const x of b) out.push(x >> 4, x & 15);
  return out;
}

function hexPrefix(path: number[], leaf: boolean): Uint8Array {
  const odd = path.length % 2;
  const flag = (leaf ? 2 : 0) + odd;
  const out = new Uint8Array(1 + (path.length >> 1));
  let i = 0;
  if (odd) {
    out[0] = (flag << 4) | path[0]!;
    i = 1;
  } else out[0] = flag << 4;
  for (let o = 1; i < path.length; i += 2, o++) out[o] = (path[i]! << 4) | path[i + 1]!;
  return out;
}

const list = (parts: Uint8Array[]): Uint8Array => {
  const body = concatBytes(...parts);
  return concatBytes(rlpListHeader(body.length), body);
};

function ref(node: Uint8Array): Uint8Array {
  return node.length < 32 ? node : RLP.encode(keccak256(node));
}

function build(items: Item[], depth: number): Uint8Array {
  if (items.length === 1) {
    const it = items[0]!;
    return list([RLP.encode(hexPrefix(it.key.slice(depth), true)), RLP.encode(it.value)]);
  }
  // Longest common prefix of all keys beyond depth.
  let cp = 0;
  for (;;) {
    const d = depth + cp;
    const n = items[0]!.key[d];
    if (n === undefined || items.some((it) => it.key[d] !== n)) break;
    cp++;
  }
  if (cp > 0) {
    return list([RLP.encode(hexPrefix(items[0]!.key.slice(depth, depth + cp), false)), ref(build(items, depth + cp))]);
  }
  const slots: Uint8Array[] = [];
  let value: Uint8Array = RLP.encode(new Uint8Array(0));
  const groups: Item[][] = Array.from({ length: 16 }, () => []);
  for (const it of items) {
    const n = it.key[depth];
    if (n === undefined) value = RLP.encode(it.value);
    else groups[n]!.push(it);
  }
  for (const g of groups) slots.push(g.length === 0 ? Uint8Array.of(0x80) : ref(build(g, depth + 1)));
  slots.push(value);
  return list(slots);
}

export function orderedTrieRoot(values: readonly Uint8Array[]): Uint8Array {
  if (values.length === 0) return EMPTY_TRIE_ROOT;
  const items = values.map((value, i) => ({ key: nibbles(RLP.encode(bigintToMinBytes(BigInt(i)))), value }));
  return keccak256(build(items, 0));
}
