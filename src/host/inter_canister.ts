// Calls the canister makes (ic0.call_*), delivered once the message that made them commits: to itself, to
// the management canister (raw_rand only), or rejected; their responses run the reply / reject callbacks
// (and cleanup when a callback traps) in the same call context.
import { IDL } from '@dfinity/candid';
import { Principal } from '@dfinity/principal';
import { RejectCode } from './errors.js';
import type { CanisterInstance } from './instance.js';
import { sameBytes, type OutgoingCall, type Response } from './message.js';

/** Delivers a call made by the canister: to itself, to the management canister (raw_rand), or a reject. */
export function deliver(site: CanisterInstance, call: OutgoingCall): void {
  const respond = (r: Response): void => {
    site.queue.push(() => deliverResponse(site, call, r));
  };
  if (sameBytes(call.callee, site.selfBytes)) {
    const live = site.requireLive();
    const arg = new Uint8Array(Buffer.concat(call.args));
    const isUpdate = live.instance.exports[`canister_update ${call.method}`] !== undefined;
    const isQuery = live.instance.exports[`canister_query ${call.method}`] !== undefined;
    if (!isUpdate && !isQuery) {
      respond({ kind: 'reject', code: RejectCode.DestinationInvalid, message: `Canister ${site.canisterId.toText()} has no update method '${call.method}'` });
      return;
    }
    const ctx = site.newContext(site.selfBytes, call.method, respond);
    const exp = `${isUpdate ? 'canister_update' : 'canister_query'} ${call.method}`;
    site.execute(isUpdate ? 'update' : 'replicated_query', exp, call.method, arg, site.selfBytes, ctx);
    site.finishIfDone(ctx);
  } else if (call.callee.length === 0 && call.method === 'raw_rand') {
    const rand = crypto.getRandomValues(new Uint8Array(32));
    respond({ kind: 'reply', bytes: new Uint8Array(IDL.encode([IDL.Vec(IDL.Nat8)], [rand])) });
  } else {
    const callee = Principal.fromUint8Array(call.callee).toText();
    respond({
      kind: 'reject',
      code: RejectCode.DestinationInvalid,
      message: `call to ${callee}.${call.method} is not supported by the Node IC host (only the canister itself and aaaaa-aa.raw_rand)`,
    });
  }
}

function deliverResponse(site: CanisterInstance, call: OutgoingCall, r: Response): void {
  const ctx = call.ctx;
  ctx.outstanding -= 1;
  const kind = r.kind === 'reply' ? 'reply_callback' : 'reject_callback';
  const cb = r.kind === 'reply' ? call.reply : call.reject;
  const m = site.execute(kind, cb, '', r.kind === 'reply' ? r.bytes : new Uint8Array(), ctx.caller, ctx, (msg) => {
    if (r.kind === 'reject') {
      msg.rejectCode = r.code;
      msg.rejectMessage = r.message;
    }
  });
  if (m.trap !== undefined && call.cleanup !== undefined) {
    site.execute('cleanup', call.cleanup, '', new Uint8Array(), ctx.caller, ctx);
  }
  site.finishIfDone(ctx);
}
