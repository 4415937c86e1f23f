// The archive's internal-transaction and contract-creator rows of one transaction, derived from its callTracer
// answer (geth's JSON) as the archive's replay derives them from its call tree: one row per frame below the top
// call with its trace address, `reverted` when it or a frame above it failed, and a creator row for each creation
// that lasted (the top-level one with an empty trace address and the sender as creator). The explorer tests
// write them with writeInternalRows to set up a database the way the replay leaves it.
import type { ContractCreatorRow, InternalTxRow } from '../../src/archive/internal_rows.js';
import type { CallFrameJson } from '../../src/explorer/pages/tx_calls.js';

/** geth's callTracer frame, as the explorer reads it. */
export type CallJson = CallFrameJson;

const bytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex.replace(/^0x/, ''), 'hex'));

export function rowsFromCallTrace(root: CallJson, at: { block: bigint; txIndex: number; txHash: Uint8Array }): { internal: InternalTxRow[]; creators: ContractCreatorRow[] } {
  const internal: InternalTxRow[] = [];
  const creators: ContractCreatorRow[] = [];
  const visit = (f: CallJson, path: number[], parentFailed: boolean): void => {
    const reverted = parentFailed || f.error !== undefined;
    const isCreate = f.type === 'CREATE' || f.type === 'CREATE2';
    if (path.length > 0) {
      const input = bytes(f.input);
      internal.push({
        block: at.block,
        txIndex: at.txIndex,
        txHash: at.txHash,
        traceAddress: path,
        type: f.type,
        from: bytes(f.from),
        to: f.to === undefined ? undefined : bytes(f.to),
        value: BigInt(f.value ?? '0x0'),
        gas: BigInt(f.gas),
        gasUsed: BigInt(f.gasUsed),
        error: f.error,
        selector: !isCreate && f.type !== 'SELFDESTRUCT' && input.length >= 4 ? input.slice(0, 4) : undefined,
        reverted,
      });
    }
    if (isCreate && !reverted && f.to !== undefined) {
      creators.push({ address: bytes(f.to), block: at.block, txIndex: at.txIndex, txHash: at.txHash, traceAddress: path, creator: bytes(f.from) });
    }
    (f.calls ?? []).forEach((c, i) => visit(c, [...path, i], reverted));
  };
  visit(root, [], false);
  return { internal, creators };
}
