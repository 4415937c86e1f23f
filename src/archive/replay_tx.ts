// An exported transaction as a stock EthereumJS transaction. The sender is the one the export carries (the
// canister recovered it once at submit, or derived it for IcSynthetic and impersonated transactions, which have
// no usable signature): it is never recovered here.
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';
import type { ExportedTx } from '../core/export/decode.js';
import { storedTxFields } from '../core/tx/stored.js';
import type { TxFields } from '../core/tx/types.js';

export interface ReplayTx {
  readonly fields: TxFields;
  readonly from: Uint8Array;
  readonly tx: TypedTransaction;
}

/** Throws when the exported bytes do not parse (the caller reports it as a mismatch of that transaction). */
export function replayTxOf(t: ExportedTx, common: Common): ReplayTx {
  const fields = storedTxFields(t);
  return { fields, from: t.from, tx: ethTxOf(fields, t.from, common) };
}

/** An unsigned EthereumJS transaction of these fields whose sender is `from`. */
export function ethTxOf(f: TxFields, from: Uint8Array, common: Common): TypedTransaction {
  const opts = { common, freeze: false };
  const base = { nonce: f.nonce, gasLimit: f.gasLimit, to: f.to === undefined ? undefined : new Address(f.to), value: f.value, data: f.data };
  const accessList = f.accessList.map(([a, slots]) => [a, [...slots]] as [Uint8Array, Uint8Array[]]);
  let tx: TypedTransaction;
  if (f.type === 0) tx = createLegacyTx({ ...base, gasPrice: f.maxFeePerGas }, opts);
  else if (f.type === 1) tx = createAccessList2930Tx({ ...base, gasPrice: f.maxFeePerGas, accessList }, opts);
  else tx = createFeeMarket1559Tx({ ...base, maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas, accessList }, opts);
  const sender = new Address(from.slice());
  Object.defineProperty(tx, 'getSenderAddress', { value: () => sender });
  Object.defineProperty(tx, 'getSenderPublicKey', {
    value: () => {
      throw new Error('the archive never recovers a sender');
    },
  });
  Object.freeze(tx);
  return tx;
}
