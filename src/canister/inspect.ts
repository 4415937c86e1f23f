// canister_inspect_message: ingress that could only fail is refused before it runs at all, so it costs the
// canister nothing (on the IC, inspection runs on one replica, uncharged, within 200 M instructions; issue
// 11, attacks 1 and 4). Calls from other canisters skip inspection; the same checks run again inside every
// method (decorators.ts, the core's submit).
import { IDL, inspectMessage, isController, msgArgData, msgCaller, msgMethodName, trap } from 'azle';

import { INSPECT_SCREEN_MAX_TX_BYTES } from '../core/constants.js';
import { ErrorCode } from '../core/errors.js';
import { argByteLimit, checkArgBytes } from './arg_check.js';
import { methodSignatures, type Access, type ArgBytes } from './idl.js';
import { formatRefusal } from './refusal.js';
import { runtime } from './runtime.js';

const M: Record<string, { args: IDL.Type[]; mode: 'query' | 'update'; argBytes: ArgBytes; access: Access }> = methodSignatures(IDL);

/**
 * The screening failures refused here: a signature that does not recover (or, with a sender key hint, was not
 * made by that key) and a sender that cannot pay, which may take its expensive part (the keccak pass and the
 * sender recovery: inspect.submit_raw.max_size.instructions in the bench) to find. Cheaper failures (format, fees, gas, ops
 * state) are left to the method, which answers them as Err values for about what this check costs.
 */
const REFUSED_BY_INSPECTION: ReadonlySet<string> = new Set([ErrorCode.DecodeInvalidSignature, ErrorCode.SubmitInsufficientFunds, ErrorCode.SubmitSenderKeyMismatch]);

/** Candid framing of one blob argument: magic, type table, arg count and type, length (at most 10 LEB128 bytes). */
const BLOB_ARG_OVERHEAD = 4 + 3 + 2 + 10;
/** The sender key's blob after it (rpc_eth_send_raw_transaction_with_key): one more arg type, its length, 64 bytes. */
const SENDER_KEY_ARG_OVERHEAD = 2 + 10 + 64;

/**
 * Whether ingress for `method` with these argument bytes may run: a known update whose argument passes the
 * byte check, and for a method whose access (idl.ts) is not 'public' a caller who is a controller (anyone else
 * is refused with auth.not_controller, the answer the method would give, before the argument is looked at); a
 * development method on a canister installed without the development flag is refused with dev.disabled. A small raw transaction whose signature or sender's funds fail the submit's screening (the
 * core's screenRawTx) is refused with its error code (refusal.ts), so callers get the answer the method
 * would have given.
 */
export function acceptIngress(method: string, arg: Uint8Array, callerIsController: () => boolean = () => false): true | { readonly code: string; readonly message: string } | false {
  const sig = Object.prototype.hasOwnProperty.call(M, method) ? M[method] : undefined;
  // Query methods called as updates would only trap (decorators.ts); unknown names (azle's internal
  // methods included) are not for ingress.
  if (sig === undefined || sig.mode !== 'update') return false;
  if (sig.access !== 'public' && !callerIsController()) {
    return { code: ErrorCode.AuthNotController, message: `${method} is for controllers of this canister only` };
  }
  if (sig.access === 'development' && runtime.core !== undefined && !runtime.core.isDevelopment()) {
    return { code: ErrorCode.DevDisabled, message: `${method} exists only on a canister installed with development = opt true` };
  }
  if (!checkArgBytes(arg, sig.args.length, argByteLimit(sig.argBytes)).ok) return false;
  const withKey = method === 'rpc_eth_send_raw_transaction_with_key';
  const limit = INSPECT_SCREEN_MAX_TX_BYTES + BLOB_ARG_OVERHEAD + (withKey ? SENDER_KEY_ARG_OVERHEAD : 0);
  if ((withKey || method === 'rpc_eth_send_raw_transaction') && arg.length <= limit && runtime.core !== undefined) {
    let args: unknown[];
    try {
      args = IDL.decode(sig.args, arg);
    } catch {
      return false;
    }
    const r = runtime.core.screenRawTx(args[0] as Uint8Array, withKey ? (args[1] as Uint8Array) : undefined);
    if (!r.ok && REFUSED_BY_INSPECTION.has(r.error.code)) return { code: r.error.code, message: r.error.message };
  }
  return true;
}

export class IngressInspection {
  @inspectMessage({ manual: true })
  inspect(): boolean {
    const verdict = acceptIngress(msgMethodName(), msgArgData(), () => isController(msgCaller()));
    // A trap is how a reason reaches the caller: the IC's rejection of the ingress quotes it.
    if (typeof verdict === 'object') trap(formatRefusal(verdict.code, verdict.message));
    return verdict;
  }
}
