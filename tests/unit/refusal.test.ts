// The refusal marker of canister_inspect_message (src/canister/refusal.ts) survives the platforms' wrapping,
// and the client reads it into CanisterCallError.refusal (what the gateway maps as the method's Err).
import { describe, expect, it } from 'vitest';
import { formatRefusal, parseRefusal } from '../../src/canister/refusal.js';
import { CanisterCallError } from '../../src/client/errors.js';

describe('ingress refusals', () => {
  it('round-trips a code and message, inside the host and agent rejection texts', () => {
    const trap = formatRefusal('submit.insufficient_funds', 'balance 0 cannot pay 21000');
    expect(parseRefusal(trap)).toEqual({ code: 'submit.insufficient_funds', message: 'balance 0 cannot pay 21000' });
    const host = `Canister x rejected the message: Canister called \`ic0.trap\` with message: '${formatRefusal('DecodeError::InvalidSignature', 'bad')}'`;
    expect(parseRefusal(host)?.code).toBe('DecodeError::InvalidSignature');
    const agent = `Call failed:\n  Reject text: ${formatRefusal('submit.insufficient_funds', 'no funds')}\n  Request ID: 0xabc`;
    expect(parseRefusal(agent)).toEqual({ code: 'submit.insufficient_funds', message: 'no funds' });
  });

  it('ignores texts without the marker or with a code that is not one of ours', () => {
    expect(parseRefusal('Canister trapped: out of cycles')).toBeUndefined();
    expect(parseRefusal('evm.refused[not a code] x')).toBeUndefined();
    expect(parseRefusal('evm.refused[unterminated')).toBeUndefined();
  });

  it('CanisterCallError carries the refusal of its message', () => {
    expect(new CanisterCallError('rpc_eth_send_raw_transaction', `rejected (code 4): ${formatRefusal('submit.insufficient_funds', 'x')}`).refusal?.code).toBe('submit.insufficient_funds');
    expect(new CanisterCallError('rpc_eth_send_raw_transaction', 'rejected (code 5): trapped').refusal).toBeUndefined();
  });
});
