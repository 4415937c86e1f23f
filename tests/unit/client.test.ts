// The typed canister client: types come from src/canister/idl.ts (checked by tsc: the @ts-expect-error lines
// fail the type-check if a wrong call ever type-checks), modes are enforced at run time, transport errors pass.
import { describe, expect, it } from 'vitest';
import { CanisterCallError, CanisterClient, METHOD_MODES, type CanisterMethod, type Transport } from '../../src/client/index.js';

class Recording implements Transport {
  readonly kind = 'host' as const;
  readonly calls: [string, string, readonly unknown[]][] = [];
  constructor(private readonly answer: (method: CanisterMethod) => unknown) {}
  async call(mode: 'query' | 'update', method: CanisterMethod, args: readonly unknown[]): Promise<unknown> {
    this.calls.push([mode, method, args]);
    return this.answer(method);
  }
}

// Never called: compiled only, so that the type-check proves what a call site can and cannot say.
export async function typeChecks(c: CanisterClient): Promise<unknown[]> {
  const head: bigint = await c.query('rpc_eth_block_number', []);
  const page = await c.query('export_blocks', [[{ block_number: 1n, segment: 0, byte_offset: 0 }], 1000]);
  const chunkData: Uint8Array | undefined = 'Ok' in page ? page.Ok.chunks[0]?.data : undefined;
  const firstAvailable: bigint | undefined = 'Err' in page && 'Pruned' in page.Err ? page.Err.Pruned.first_available_block : undefined;
  const submitted = await c.update('rpc_eth_send_raw_transaction', [new Uint8Array(1)]);
  // @ts-expect-error the result type is the Candid table's, not the caller's
  const wrong: string = await c.query('rpc_eth_block_number', []);
  // @ts-expect-error an update method is not a query
  await c.query('rpc_eth_send_raw_transaction', [new Uint8Array(1)]);
  // @ts-expect-error arguments are typed (a blob, not a bigint)
  await c.query('get_receipt', [1n]);
  // @ts-expect-error an unknown method
  await c.query('no_such_method', []);
  return [head, chunkData, firstAvailable, submitted, wrong];
}

describe('CanisterClient', () => {
  it('passes the call to its transport with the mode from the Candid table', async () => {
    const t = new Recording((m) => (m === 'rpc_eth_block_number' ? 7n : { Ok: new Uint8Array([1]) }));
    const c = new CanisterClient(t);
    expect(await c.query('rpc_eth_block_number', [])).toBe(7n);
    expect(await c.update('rpc_eth_send_raw_transaction', [new Uint8Array([2])])).toEqual({ Ok: new Uint8Array([1]) });
    expect(t.calls).toEqual([
      ['query', 'rpc_eth_block_number', []],
      ['update', 'rpc_eth_send_raw_transaction', [new Uint8Array([2])]],
    ]);
    expect(c.kind).toBe('host');
  });

  it('refuses a wrong mode or an unknown method at run time, before the transport', async () => {
    const t = new Recording(() => 0n);
    const c = new CanisterClient(t);
    await expect(c.update('rpc_eth_chain_id' as never, [] as never)).rejects.toThrow(/rpc_eth_chain_id: is not a update method/);
    await expect(c.query('submit_ic_tx' as never, [] as never)).rejects.toBeInstanceOf(CanisterCallError);
    await expect(c.query('nope' as never, [] as never)).rejects.toThrow(/nope: unknown method/);
    expect(t.calls).toEqual([]);
  });

  it('knows every method of the Candid table with its mode', () => {
    expect(METHOD_MODES.export_blocks).toBe('query');
    expect(METHOD_MODES.submit_ic_tx).toBe('update');
    expect(Object.keys(METHOD_MODES).length).toBeGreaterThan(30);
  });
});
