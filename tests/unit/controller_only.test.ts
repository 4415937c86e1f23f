// The controller-only list that canister_inspect_message refuses (src/canister/controller_only.ts) names
// every update of the interface but the three submit methods, and nothing else.
import { IDL } from '@dfinity/candid';
import { describe, expect, it } from 'vitest';
import { CONTROLLER_ONLY_METHODS } from '../../src/canister/controller_only.js';
import { methodSignatures } from '../../src/canister/idl.js';

describe('controller-only methods', () => {
  it('are exactly the updates other than the submits', () => {
    const updates = Object.entries(methodSignatures(IDL)).filter(([, s]) => s.mode === 'update').map(([n]) => n);
    const open = ['rpc_eth_send_raw_transaction', 'rpc_eth_send_raw_transaction_with_key', 'submit_ic_tx'];
    expect([...CONTROLLER_ONLY_METHODS].sort()).toEqual(updates.filter((n) => !open.includes(n)).sort());
  });
});
