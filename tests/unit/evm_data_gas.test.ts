// The engine fills EthereumJS's calldata gas cache itself (engine.ts primeDataGas): the value must be the one
// getDataGas computes on its own, for every transaction type, for calls and creations, with and without zeros.
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { describe, expect, it } from 'vitest';
import { createChainCommon } from '../../src/core/evm/index.js';
import { primeDataGas } from '../../src/core/evm/engine.js';
import { randomBytes } from '../support/random.js';

const common = createChainCommon();
const to = new Uint8Array(20).fill(0x42);
const accessList: [Uint8Array, Uint8Array[]][] = [[to, [new Uint8Array(32), new Uint8Array(32).fill(1)]]];

function build(type: number, data: Uint8Array, create: boolean): TypedTransaction {
  const base = { gasLimit: 10_000_000n, data, to: create ? undefined : to, gasPrice: 1n, maxFeePerGas: 1n };
  const opts = { common, freeze: false };
  if (type === 0) return createLegacyTx(base, opts);
  if (type === 1) return createAccessList2930Tx({ ...base, accessList }, opts);
  const { gasPrice: _, ...fee } = base;
  return createFeeMarket1559Tx({ ...fee, accessList }, opts);
}

describe('primeDataGas', () => {
  it('gives what getDataGas computes', () => {
    const datas = [new Uint8Array(0), new Uint8Array(67), randomBytes(68, 7), randomBytes(1001, 9)];
    const sparse = randomBytes(300, 11).map((b) => (b & 1 ? 0 : b));
    datas.push(sparse, sparse.subarray(1), sparse.subarray(3, 290));
    for (const type of [0, 1, 2]) {
      for (const create of [false, true]) {
        for (const data of datas) {
          const plain = build(type, data, create);
          const primed = build(type, data, create);
          primeDataGas(primed, data, create);
          Object.freeze(primed);
          expect(primed.getDataGas(), `type ${type} create ${create} len ${data.length}`).toBe(plain.getDataGas());
          expect(primed.getIntrinsicGas()).toBe(plain.getIntrinsicGas());
        }
      }
    }
  });
});
