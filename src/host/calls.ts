// The shapes of a call into the host's canister and of its answer, shared by the host (index.ts), its query
// replica (replica.ts) and the IC HTTP interface; a module of their own so that none of them imports another
// only for a type.
import type { Principal } from '@dfinity/principal';

export type CallResult =
  | { kind: 'reply'; bytes: Uint8Array; instructions: bigint | undefined }
  | {
      kind: 'reject';
      code: number;
      message: string;
      instructions: bigint | undefined;
      /** Refused before execution (no such method, inspect_message): the IC answers it uncertified, never in request_status. */
      uncertified?: true;
    };

export type PrincipalLike = Principal | string | Uint8Array;

export interface CallOptions {
  /** Default: the anonymous principal 2vxsx-fae. */
  caller?: PrincipalLike;
  /** The call comes from another canister: no canister_inspect_message (the IC inspects ingress only). */
  fromCanister?: boolean;
}
