// keccak256(RLP("")): the root of an empty Merkle-Patricia trie. The header's withdrawalsRoot is always this
// value, and so are the transactions and receipts roots of a block with no transactions (commitments.ts).
// No trie is built anywhere in the chain (DESIGN rule 2; commitments.ts for the block roots).

import { fromHex } from '../codec/bytes.js';

export const EMPTY_TRIE_ROOT = fromHex('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
