// canister_inspect_message: ingress that could only fail is refused before it runs at all, so it costs the
// canister nothing beyond this check (issue 11, attack 1). Calls from other canisters skip inspection; the
// same argument check runs again inside every method (decorators.ts).
import { IDL, inspectMessage, msgArgData, msgMethodName } from 'azle';

import { argByteLimit, checkArgBytes } from './arg_check.js';
import { methodSignatures } from './idl.js';

const M: Record<string, { args: IDL.Type[]; mode: 'query' | 'update' }> = methodSignatures(IDL);

/** Whether ingress for `method` with these argument bytes may run: a known update whose argument passes the byte check. */
export function acceptIngress(method: string, arg: Uint8Array): boolean {
  const sig = Object.prototype.hasOwnProperty.call(M, method) ? M[method] : undefined;
  // Query methods called as updates would only trap (decorators.ts); unknown names (azle's internal
  // methods included) are not for ingress.
  if (sig === undefined || sig.mode !== 'update') return false;
  return checkArgBytes(arg, sig.args.length, argByteLimit(method)).ok;
}

export class IngressInspection {
  @inspectMessage({ manual: true })
  inspect(): boolean {
    return acceptIngress(msgMethodName(), msgArgData());
  }
}
