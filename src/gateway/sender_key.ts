// The sender's public key of a raw transaction, recovered here (`rpc.gateway.sender_key_recovery_ms` of the
// gateway's CPU, against the recovery in the canister's `submit_raw.transfer.without_key.instructions`) and passed
// as a hint (rpc_eth_send_raw_transaction_with_key): the canister then verifies the signature against a key it
// has seen instead of recovering it (`submit_raw.transfer.instructions`; docs/execution.md "Sender key
// hints"). The key is the signer's by construction, so the canister's answer is the plain method's.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';

import { parseSignedTx } from '../core/tx/decode.js';

/** x || y (64 bytes) of the key that signed `raw`, or undefined if it does not parse or recover (no hint). */
export function senderPublicKey(raw: Uint8Array): Uint8Array | undefined {
  const parsed = parseSignedTx(raw);
  if (!parsed.ok) return undefined;
  const { r, s, yParity } = parsed.value.sig;
  try {
    const point = new secp256k1.Signature(r, s, yParity).recoverPublicKey(keccak_256(parsed.value.signingPayload()));
    return point.toBytes(false).subarray(1);
  } catch {
    return undefined;
  }
}
