// The shapes of one message's execution, shared by the instance core (instance.ts), the System API
// (ic0.ts) and inter-canister calls (inter_canister.ts): its kind, its call context, the calls it makes,
// and the live wasm instance it runs in.
import { Principal } from '@dfinity/principal';
import type { CallResult, PrincipalLike } from './calls.js';
import type { HeapSnapshot } from './heap.js';

export type MessageKind =
  | 'init'
  | 'pre_upgrade'
  | 'post_upgrade'
  | 'query'
  | 'replicated_query'
  | 'update'
  | 'inspect'
  | 'timer'
  | 'reply_callback'
  | 'reject_callback'
  | 'cleanup';

export interface Callback {
  fun: number;
  env: number | bigint;
}

export interface CallContext {
  caller: Uint8Array;
  method: string;
  replied: boolean;
  outstanding: number;
  instructions: bigint;
  /** Who gets the response: an external caller, a call made by this canister, or nobody (timer). */
  onResponse: ((r: Response) => void) | undefined;
  result?: CallResult;
}

export type Response = { kind: 'reply'; bytes: Uint8Array } | { kind: 'reject'; code: number; message: string };

export interface OutgoingCall {
  callee: Uint8Array;
  method: string;
  args: Uint8Array[];
  reply: Callback;
  reject: Callback;
  cleanup?: Callback;
  ctx: CallContext;
}

export interface Message {
  kind: MessageKind;
  method: string;
  arg: Uint8Array;
  caller: Uint8Array;
  ctx: CallContext | undefined;
  replyParts: Uint8Array[];
  response?: Response;
  rejectCode: number;
  rejectMessage: string;
  building?: OutgoingCall;
  performed: OutgoingCall[];
  timerDeadline: bigint;
  certifiedData: Uint8Array;
  accepted: boolean;
  instructionsBefore: bigint;
}

export interface Live {
  instance: WebAssembly.Instance;
  memory: WebAssembly.Memory;
  table: WebAssembly.Table | undefined;
  globals: WebAssembly.Global[];
  counter: WebAssembly.Global | undefined;
  limit: WebAssembly.Global | undefined;
  heap: HeapSnapshot;
  savedGlobals: (number | bigint)[];
  module: WebAssembly.Module;
}

export interface MessageStats {
  kind: MessageKind;
  method: string;
  instructions: bigint | undefined;
  trapped: boolean;
  /** The trap's message, when it trapped. */
  trapMessage?: string;
  heapBytes: number;
  heapPagesChanged: number;
  stablePagesTouched: number;
  /** Time spent making the message atomic (heap compare/copy, stable undo), ms. */
  snapshotMs: number;
  /** Time spent executing the wasm, ms. */
  execMs: number;
}

export const ANONYMOUS = Principal.anonymous();

export const toBytes = (p: PrincipalLike): Uint8Array =>
  p instanceof Uint8Array ? p : typeof p === 'string' ? Principal.fromText(p).toUint8Array() : p.toUint8Array();
export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
