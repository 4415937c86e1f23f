// Access in the method table (src/canister/idl.ts), which the decorators and canister_inspect_message read:
// every update but the three submits is for controllers; the dev_* cheats are for controllers of a
// development canister; queries are public.
import { IDL } from '@dfinity/candid';
import { describe, expect, it } from 'vitest';
import { methodSignatures } from '../../src/canister/idl.js';

describe('method access', () => {
  it('controllers for every update but the submits; development for the dev_* methods; public queries', () => {
    const table = Object.entries(methodSignatures(IDL));
    const open = ['rpc_eth_send_raw_transaction', 'rpc_eth_send_raw_transaction_with_key', 'submit_ic_tx'];
    const updates = table.filter(([, s]) => s.mode === 'update').map(([n]) => n);
    const restricted = table.filter(([, s]) => s.access !== 'public').map(([n]) => n);
    expect(restricted.sort()).toEqual(updates.filter((n) => !open.includes(n)).sort());
    const dev = table.filter(([, s]) => s.access === 'development').map(([n]) => n);
    expect(dev.sort()).toEqual(['dev_drop_transaction', 'dev_set_account', 'dev_set_coinbase', 'dev_set_next_block_base_fee', 'dev_submit_impersonated']);
    for (const [n, s] of table) if (s.mode === 'query') expect(s.access, n).toBe('public');
  });
});
