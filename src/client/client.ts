// The typed canister client every Node-side user calls the canister through (gateway, indexer, devnet,
// tests): `await client.query('rpc_eth_block_number', [])` is a bigint because idl.ts says nat64.
import { CanisterCallError } from './errors.js';
import { METHOD_MODES, type CanisterMethod, type MethodArgs, type MethodResult, type QueryMethod, type UpdateMethod } from './schema.js';
import type { Transport } from './transport.js';

export class CanisterClient {
  constructor(readonly transport: Transport) {}

  get kind(): Transport['kind'] {
    return this.transport.kind;
  }

  /** A query method (the canister refuses query methods called as updates). */
  async query<M extends QueryMethod>(method: M, args: MethodArgs<M>): Promise<MethodResult<M>> {
    return (await this.call(method, 'query', args as readonly unknown[])) as MethodResult<M>;
  }

  /** An update method (submits, admin). */
  async update<M extends UpdateMethod>(method: M, args: MethodArgs<M>): Promise<MethodResult<M>> {
    return (await this.call(method, 'update', args as readonly unknown[])) as MethodResult<M>;
  }

  private call(method: CanisterMethod, mode: 'query' | 'update', args: readonly unknown[]): Promise<unknown> {
    // The types already forbid a wrong mode; this keeps a cast or a JavaScript caller from sending one.
    if (METHOD_MODES[method] !== mode) return Promise.reject(new CanisterCallError(method, METHOD_MODES[method] === undefined ? 'unknown method' : `is not a ${mode} method`));
    return this.transport.call(mode, method, args);
  }
}
