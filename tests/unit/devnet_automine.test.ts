// Which updates the devnet's automine mines after: an accepted transaction from any submit method (raw, raw with
// a key hint, submit_ic_tx), whichever way it arrived; not a refused submit, a reject, or another method.
import { IDL } from '@dfinity/candid';
import { describe, expect, it } from 'vitest';
import { methodSignatures } from '../../src/canister/idl.js';
import { acceptedSubmit } from '../../src/client/host.js';
import type { CallResult } from '../../src/host/index.js';

const ret = methodSignatures(IDL).submit_ic_tx.ret;
const reply = (v: unknown): CallResult => ({ kind: 'reply', bytes: new Uint8Array(IDL.encode([ret], [v])), instructions: undefined });
const ok = reply({ Ok: new Uint8Array(8).fill(1) });
const refused = reply({ Err: { code: 'submit.nonce_too_low', message: 'nonce too low', data: [] } });

describe('devnet automine trigger', () => {
  it('fires for an accepted submit by any of the three submit methods', () => {
    for (const m of ['rpc_eth_send_raw_transaction', 'rpc_eth_send_raw_transaction_with_key', 'submit_ic_tx']) expect(acceptedSubmit(m, ok), m).toBe(true);
  });
  it('does not fire for a refused submit, a reject, an undecodable reply, or another method', () => {
    expect(acceptedSubmit('submit_ic_tx', refused)).toBe(false);
    expect(acceptedSubmit('submit_ic_tx', { kind: 'reject', code: 5, message: 'trapped', instructions: undefined })).toBe(false);
    expect(acceptedSubmit('submit_ic_tx', { kind: 'reply', bytes: new Uint8Array([1, 2, 3]), instructions: undefined })).toBe(false);
    expect(acceptedSubmit('mine_block', ok)).toBe(false);
    expect(acceptedSubmit('set_log_filter', ok)).toBe(false);
  });
});
