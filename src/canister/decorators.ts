// Method decorators over azle's, with the service's conventions.
import { inReplicatedExecution, query, trap, type IDL } from 'azle';

/**
 * A query method that refuses to run as an update (SPEC: "Query methods must be called as queries; calling
 * them as updates fails"). On the IC a query method called as an update runs in replicated mode; it would
 * cost the caller an update's latency and cycles for an answer it can have as a query, so it is refused
 * with a message that says how to call it.
 */
export function evmQuery(args: IDL.Type[], ret: IDL.Type) {
  const decorate = query(args, ret);
  return function <This, A extends unknown[], R>(original: (this: This, ...a: A) => R, context: ClassMethodDecoratorContext<This, (this: This, ...a: A) => R>): void {
    const name = String(context.name);
    function guarded(this: This, ...a: A): R {
      if (inReplicatedExecution()) trap(`${name} is a query method: call it as a query, not as an update`);
      return original.apply(this, a);
    }
    decorate(guarded as never, context as never);
  };
}
