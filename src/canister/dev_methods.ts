// The development (cheat) methods (docs/devnet.md, "The canister side of cheats"): access 'development' in
// the method table, so the decorator has already refused anyone but a controller of a development canister
// before these run; the core checks the flag again (dev.disabled). Thin conversions over the core facade.
import { msgCaller } from 'azle';

import type { Result } from '../core/errors.js';
import { candidResult, fromOpt, type CandidResult } from './convert.js';
import { evmMethod } from './decorators.js';
import { log, notReady, runtime } from './runtime.js';
import type { DevAccountChangeView, DevImpersonatedTxView } from './values.js';

const unit = (): null => null;

function logged<T>(method: string, r: Result<T>): Result<T> {
  log(r.ok ? 'info' : 'warn', `${method} by ${msgCaller().toText()}: ${r.ok ? 'ok' : `${r.error.code}: ${r.error.message}`}`);
  return r;
}

export class DevMethods {
  @evmMethod()
  dev_set_account(c: DevAccountChangeView): CandidResult<null> {
    const core = runtime.core;
    if (core === undefined) return candidResult(notReady<null>(), unit);
    const balance = fromOpt(c.balance);
    const nonce = fromOpt(c.nonce);
    const code = fromOpt(c.code);
    const r = core.devSetAccount({
      address: c.address,
      ...(balance !== undefined ? { balance } : {}),
      ...(nonce !== undefined ? { nonce } : {}),
      ...(code !== undefined ? { code } : {}),
      storage: c.storage,
    });
    return candidResult(logged('dev_set_account', r), unit);
  }

  @evmMethod()
  dev_submit_impersonated(t: DevImpersonatedTxView): CandidResult<Uint8Array> {
    const core = runtime.core;
    if (core === undefined) return candidResult(notReady<Uint8Array>(), (id) => id);
    const nonce = fromOpt(t.nonce);
    const gasPrice = fromOpt(t.gas_price);
    const maxFeePerGas = fromOpt(t.max_fee_per_gas);
    const maxPriorityFeePerGas = fromOpt(t.max_priority_fee_per_gas);
    const r = core.devSubmitImpersonated({
      from: t.from,
      to: fromOpt(t.to),
      value: t.value,
      data: t.data,
      gasLimit: t.gas_limit,
      ...(nonce !== undefined ? { nonce } : {}),
      ...(gasPrice !== undefined ? { gasPrice } : {}),
      ...(maxFeePerGas !== undefined ? { maxFeePerGas } : {}),
      ...(maxPriorityFeePerGas !== undefined ? { maxPriorityFeePerGas } : {}),
      accessList: t.access_list.map((a) => [a.address, a.storage_keys] as const),
    });
    return candidResult(r, (id) => id);
  }

  @evmMethod()
  dev_drop_transaction(ethHash: Uint8Array): CandidResult<boolean> {
    const core = runtime.core;
    if (core === undefined) return candidResult(notReady<boolean>(), (b) => b);
    return candidResult(logged('dev_drop_transaction', core.devDropTransaction(ethHash)), (b) => b);
  }

  @evmMethod()
  dev_set_next_block_base_fee(fee: bigint): CandidResult<null> {
    const core = runtime.core;
    if (core === undefined) return candidResult(notReady<null>(), unit);
    return candidResult(logged('dev_set_next_block_base_fee', core.devSetNextBlockBaseFee(fee)), unit);
  }

  @evmMethod()
  dev_set_coinbase(coinbase: Uint8Array): CandidResult<null> {
    const core = runtime.core;
    if (core === undefined) return candidResult(notReady<null>(), unit);
    return candidResult(logged('dev_set_coinbase', core.devSetCoinbase(coinbase)), unit);
  }
}
