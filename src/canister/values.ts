// The TypeScript shapes of the canister's Candid values, each read from its one definition in idl.ts (no
// hand-written copy): what the canister returns and what every client decodes. `opt T` is [] | [T], blobs
// are Uint8Array, nat/nat64 bigint, nat8/nat32 number. Types only: no run-time imports.
import type { Shape } from './idl.js';

export type Opt<T> = [] | [T];
export type CandidError = Shape<'Error'>;
/** Result<T> = variant { Ok : T; Err : Error }, as the table's `Result` builds it. */
export type CandidResult<T> = { Ok: T } | { Err: CandidError };
export type CandidBlockTag = Shape<'BlockTag'>;
export type LogView = Shape<'EthLogView'>;
export type ReceiptView = Shape<'EthReceiptView'>;
export type AccessListItemView = Shape<'AccessListItem'>;
export type TxView = Shape<'EthTxView'>;
export type BlockView = Shape<'EthBlockView'>;
export type BlockLookup = Shape<'RpcBlockLookupView'>;
export type CandidBlockRef = Shape<'BlockRef'>;
export type BlockReceiptsPageView = Shape<'RpcBlockReceiptsPageView'>;
export type BlockReceiptsLookup = Shape<'RpcBlockReceiptsLookupView'>;
export type ReceiptLookup = Shape<'RpcReceiptLookupView'>;
export type CallObjectView = Shape<'RpcCallObjectView'>;
export type LogFilterView = Shape<'RpcLogFilterView'>;
export type LogCursorView = Shape<'LogCursor'>;
export type LogPageView = Shape<'RpcLogPageView'>;
export type FeeHistoryView = Shape<'FeeHistoryView'>;
export type PendingStatusView = Shape<'PendingStatusView'>;
/** Input of submit_ic_tx. */
export type IcSyntheticTxInput = Shape<'IcSyntheticTxInput'>;
/** The export_blocks cursor (SPEC's fixed keys). */
export type ExportCursorView = Shape<'ExportCursor'>;
export type PrunePolicyView = Shape<'PrunePolicy'>;
/** The install / upgrade argument's record (every field `opt`). */
export type InitArgsView = Shape<'InitArgs'>;
/** dev_set_account's argument. */
export type DevAccountChangeView = Shape<'DevAccountChange'>;
/** dev_submit_impersonated's argument. */
export type DevImpersonatedTxView = Shape<'DevImpersonatedTx'>;
