import './globals_shim.js';

import { IDL, init, postUpgrade, query, StableBTreeMap, time } from 'azle';

import { CHAIN_ID } from '../core/constants.js';
import { MemoryId } from '../core/store/memory_ids.js';
import { candidTypes, methodSignatures } from './idl.js';

const T = candidTypes(IDL);
const M = methodSignatures(IDL);

const raw = { toBytes: (x: Uint8Array) => x, fromBytes: (x: Uint8Array) => x };
const utf8 = new TextEncoder();
const KEY_INSTALLED_AT = utf8.encode('installed_at_ns');

type OpsStatusView = {
  mode: { Normal: null };
  reason: [] | [string];
  since_ns: bigint;
  writes_allowed: boolean;
};

function u64be(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
}

export default class EvmCanister {
  meta = new StableBTreeMap<Uint8Array, Uint8Array>(MemoryId.Meta, raw, raw);

  @init([IDL.Opt(T.InitArgs)])
  init(_args: [] | [unknown]): void {
    this.meta.insert(KEY_INSTALLED_AT, u64be(time()));
  }

  @postUpgrade([IDL.Opt(T.InitArgs)])
  postUpgrade(_args: [] | [unknown]): void {}

  @query(M.rpc_eth_chain_id.args, M.rpc_eth_chain_id.ret)
  rpc_eth_chain_id(): bigint {
    return CHAIN_ID;
  }

  @query(M.rpc_eth_block_number.args, M.rpc_eth_block_number.ret)
  rpc_eth_block_number(): bigint {
    return 0n;
  }

  @query(M.get_ops_status.args, M.get_ops_status.ret)
  get_ops_status(): OpsStatusView {
    const installed = this.meta.get(KEY_INSTALLED_AT);
    const since = installed === undefined ? 0n : new DataView(installed.buffer, installed.byteOffset).getBigUint64(0);
    return { mode: { Normal: null }, reason: [], since_ns: since, writes_allowed: true };
  }

  @query(M.health.args, M.health.ret)
  health() {
    return { ok: true, mode: { Normal: null }, block_number: 0n, pending_txs: 0n, time_ns: time(), version: '0.1.0' };
  }
}
