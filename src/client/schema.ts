// The canister's methods as TypeScript types, read from the one Candid table (src/canister/idl.ts): a method's
// name fixes its call mode, its argument tuple and its result type, so no call site can claim its own.
import { IDL } from '@dfinity/candid';
import { methodSignatures, type CandidValue, type Shape } from '../canister/idl.js';

type Signatures = ReturnType<typeof methodSignatures>;

export type CanisterMethod = keyof Signatures;
export type CallMode = 'query' | 'update';
export type QueryMethod = { [M in CanisterMethod]: Signatures[M]['mode'] extends 'query' ? M : never }[CanisterMethod];
export type UpdateMethod = { [M in CanisterMethod]: Signatures[M]['mode'] extends 'update' ? M : never }[CanisterMethod];
/** The argument tuple of a method, as Candid encodes it (opt T = [] | [T], blob = Uint8Array, nat64 = bigint). */
export type MethodArgs<M extends CanisterMethod> = ValuesOf<Signatures[M]['args']>;
/** Maps a tuple of Candid types to the tuple of their values (homomorphic over A, so tuples stay tuples). */
type ValuesOf<A> = { [I in keyof A]: CandidValue<A[I]> };
/** The decoded result of a method. */
export type MethodResult<M extends CanisterMethod> = CandidValue<Signatures[M]['ret']>;

/** The install / upgrade argument's record (every field `opt`). */
export type InitArgs = Shape<'InitArgs'>;
/** The value shapes of the table under their names (src/canister/values.ts derives each from idl.ts). */
export type {
  AccessListItemView,
  BlockLookup,
  BlockReceiptsLookup,
  BlockReceiptsPageView,
  BlockView,
  CallObjectView,
  CandidBlockRef,
  CandidBlockTag,
  CandidError,
  CandidResult,
  ExportCursorView,
  FeeHistoryView,
  IcSyntheticTxInput,
  LogCursorView,
  LogFilterView,
  LogPageView,
  LogView,
  Opt,
  PendingStatusView,
  PrunePolicyView,
  ReceiptLookup,
  ReceiptView,
  TxView,
} from '../canister/values.js';

const signatures = methodSignatures(IDL);

/** Each method's call mode, from the same table. */
export const METHOD_MODES: Readonly<Record<CanisterMethod, CallMode>> = Object.fromEntries(
  Object.entries(signatures).map(([name, sig]) => [name, sig.mode]),
) as Record<CanisterMethod, CallMode>;

export function isCanisterMethod(name: string): name is CanisterMethod {
  return Object.hasOwn(METHOD_MODES, name);
}
