// Method decorators over azle's, with the service's conventions.
//
// Every query and update is registered with azle in manual mode, so azle never runs IDL.decode on bytes nobody
// has looked at: the raw argument bytes are checked first (arg_check.ts: size, type table, argument count,
// declared lengths; linear in the bytes), and only then decoded and handed to the method. A refused argument
// gets a clean reject (`candid.*: ...`), never a trap and never an unbounded decode (docs/hardening.md).
import { IDL, inReplicatedExecution, isController, msgArgData, msgCaller, msgReject, msgReply, query, trap, update } from 'azle';

import { ErrorCode } from '../core/errors.js';

import { argByteLimit, ArgCheckCode, checkArgBytes, knownHeader } from './arg_check.js';
import { fastCodec, type CandidIdl } from './candid_fast.js';
import { methodSignatures, type Access, type ArgBytes } from './idl.js';

const SIGNATURES: Record<string, { readonly args: IDL.Type[]; readonly ret: IDL.Type; readonly mode: 'query' | 'update'; readonly argBytes: ArgBytes; readonly access: Access }> = methodSignatures(IDL);

type Method<This, A extends unknown[], R> = (this: This, ...a: A) => R;

/**
 * A canister method, registered under its own name with the mode, Candid signature and argument size class
 * the method table (idl.ts) gives that name. An update's argument bytes are checked before they are decoded.
 * A query method refuses to run as an update (SPEC: "Query methods must be called as queries; calling them as
 * updates fails"): on the IC a query method called as an update runs in replicated mode; it would cost the
 * caller an update's latency and cycles for an answer it can have as a query, so it is refused with a message
 * that says how to call it. A method whose access (idl.ts) is not 'public' answers a caller who is not a
 * controller `Err auth.not_controller` before its argument is looked at (every such method returns a Result);
 * the development check of the dev_* methods (dev.disabled) is the core's.
 */
export function evmMethod() {
  return function <This, A extends unknown[], R>(original: Method<This, A, R>, context: ClassMethodDecoratorContext<This, Method<This, A, R>>): void {
    const name = String(context.name);
    const sig = Object.hasOwn(SIGNATURES, name) ? SIGNATURES[name] : undefined;
    if (sig === undefined) throw new Error(`${name} is not in the method table (idl.ts)`);
    const { args, ret, mode, access } = sig;
    const limit = argByteLimit(sig.argBytes);
    // compiled once, at start-up (candid_fast.ts: byte-exact with @dfinity/candid, which stays the fallback)
    const argCodec = fastCodec(IDL as unknown as CandidIdl, args);
    const retCodec = fastCodec(IDL as unknown as CandidIdl, [ret]);
    // the header the fast decoder expects is also the one the check need not read again
    const known = argCodec.header === undefined ? undefined : knownHeader(argCodec.header, args.length);
    async function guarded(this: This): Promise<void> {
      if (mode === 'query' && inReplicatedExecution()) trap(`${name} is a query method: call it as a query, not as an update`);
      if (access !== 'public') {
        const caller = msgCaller();
        if (!isController(caller)) {
          const message = `${name} is for controllers of this canister only; ${caller.toText()} is not a controller`;
          return msgReply(retCodec.encode([{ Err: { code: ErrorCode.AuthNotController, message, data: [] } }]));
        }
      }
      const bytes = msgArgData();
      const check = checkArgBytes(bytes, args.length, limit, known);
      if (!check.ok) return msgReject(`${check.code}: ${name}: ${check.message}`);
      let values: unknown[];
      try {
        values = argCodec.decode(bytes);
      } catch (e) {
        return msgReject(`${ArgCheckCode.Decode}: ${name}: ${e instanceof Error ? e.message : String(e)}`);
      }
      const result = await original.apply(this, values as A);
      msgReply(retCodec.encode([result]));
    }
    const decorate = (mode === 'query' ? query : update)(args, ret, { manual: true });
    decorate(guarded as never, context as never);
  };
}
