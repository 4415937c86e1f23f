// The ic0 System API the canister wasm imports, over the instance core (instance.ts) as `SystemApiHost`: the
// running message, its memory, the canister's state. A call the host does not support traps with its name.
import type { Principal } from '@dfinity/principal';
import { RejectCode, Trap } from './errors.js';
import { sameBytes, type Live, type Message } from './message.js';
import type { StableMemory } from './stable.js';
import type { WasmProfiler } from './profile.js';
import { LIMIT_IMPORT_MODULE, LIMIT_IMPORT_NAME, PROFILE_IMPORT_NAME } from './wasm_names.js';

/** What the System API reads and writes of the instance core. */
export interface SystemApiHost {
  /** The message running now (undefined between messages: a call then traps). */
  readonly current: Message | undefined;
  readonly live: Live | undefined;
  requireLive(): Live;
  readonly selfBytes: Uint8Array;
  cycleBalance: bigint;
  readonly controllers: readonly Principal[];
  readonly version: bigint;
  readonly stable: StableMemory;
  readonly debugPrint: (m: string) => void;
  now(): bigint;
  queryTimeNs(): bigint;
  /** Set when the running message reads something outside (state, method, argument, caller). */
  impure: boolean;
  /** The time a running query read, if it did (a remembered reply is valid only at that same query time). */
  timeRead: bigint | undefined;
}

/** The wasm's imports: ic0 (each function the module imports) and the instrumentation's limit and profile hooks. */
export function ic0Imports(h: SystemApiHost, module: WebAssembly.Module, profiler: WasmProfiler | undefined): WebAssembly.Imports {
  const impl = systemApi(h);
  const ic0: Record<string, (...a: never[]) => unknown> = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.module !== 'ic0' || imp.kind !== 'function') continue;
    ic0[imp.name] =
      impl[imp.name] ??
      ((): never => {
        throw new Trap(`ic0.${imp.name} is not supported by the Node IC host`);
      });
  }
  const limitExceeded = (): never => {
    const lim = h.live?.limit?.value as bigint | undefined;
    throw new Trap(`Canister exceeded the limit of ${lim ?? '?'} instructions for single message execution.`, 'limit');
  };
  // A profiling build's trace hook; a host without a profiler (the query replica) ignores it.
  const profile = profiler?.event ?? ((): void => {});
  return { ic0, [LIMIT_IMPORT_MODULE]: { [LIMIT_IMPORT_NAME]: limitExceeded, [PROFILE_IMPORT_NAME]: profile } };
}

const u128 = (v: bigint): Buffer => {
  const b = Buffer.alloc(16);
  b.writeBigUInt64LE(v & 0xffffffffffffffffn, 0);
  b.writeBigUInt64LE(v >> 64n, 8);
  return b;
};
const num = (v: number | bigint): number => (typeof v === 'bigint' ? Number(v) : v);

function systemApi(h: SystemApiHost): Record<string, (...a: never[]) => unknown> {
  const msg = (): Message => {
    if (h.current === undefined) throw new Trap('system API called outside a message');
    return h.current;
  };
  const mem = (): Uint8Array => new Uint8Array(h.requireLive().memory.buffer);
  const read = (src: number | bigint, size: number | bigint): Uint8Array => {
    const s = num(src);
    const n = num(size);
    const m = mem();
    if (s < 0 || n < 0 || s + n > m.length) throw new Trap(`heap out of bounds: ${s}+${n}`);
    return m.slice(s, s + n);
  };
  const write = (dst: number | bigint, bytes: Uint8Array): void => {
    const d = num(dst);
    const m = mem();
    if (d < 0 || d + bytes.length > m.length) throw new Trap(`heap out of bounds: ${d}+${bytes.length}`);
    m.set(bytes, d);
  };
  const copyOut = (data: Uint8Array, dst: number | bigint, offset: number | bigint, size: number | bigint): void => {
    const o = num(offset);
    const n = num(size);
    if (o < 0 || n < 0 || o + n > data.length) throw new Trap(`copy out of bounds: offset ${o} size ${n} of ${data.length}`);
    write(dst, data.subarray(o, o + n));
  };
  const replied = (m: Message): boolean => m.response !== undefined || (m.ctx?.replied ?? false);
  const canReply = (m: Message, api: string): void => {
    if (m.ctx === undefined || m.kind === 'inspect' || m.kind === 'init' || m.kind === 'post_upgrade' || m.kind === 'pre_upgrade' || m.kind === 'timer' || m.kind === 'cleanup') {
      throw new Trap(`ic0.${api} cannot be called in ${m.kind}`);
    }
    if (replied(m)) throw new Trap(`ic0.${api}: the call was already replied`);
  };
  const replicated = (m: Message): boolean => m.kind !== 'query' && m.kind !== 'inspect';
  // A fresh exact-size Uint8Array: pooled Buffers share an ArrayBuffer, which Candid decoders may read whole.
  const reply = (): Uint8Array => new Uint8Array(Buffer.concat(msg().replyParts));
  const counter = (): bigint => (h.live?.counter?.value as bigint | undefined) ?? 0n;

  const api: Record<string, (...a: never[]) => unknown> = {
    msg_arg_data_size: () => msg().arg.length,
    msg_arg_data_copy: (dst: number, off: number, size: number) => copyOut(msg().arg, dst, off, size),
    msg_caller_size: () => msg().caller.length,
    msg_caller_copy: (dst: number, off: number, size: number) => copyOut(msg().caller, dst, off, size),
    msg_method_name_size: () => Buffer.byteLength(msg().method),
    msg_method_name_copy: (dst: number, off: number, size: number) => copyOut(Buffer.from(msg().method), dst, off, size),
    msg_reject_code: () => msg().rejectCode,
    msg_reject_msg_size: () => Buffer.byteLength(msg().rejectMessage),
    msg_reject_msg_copy: (dst: number, off: number, size: number) => copyOut(Buffer.from(msg().rejectMessage), dst, off, size),
    msg_reply_data_append: (src: number, size: number) => {
      const m = msg();
      canReply(m, 'msg_reply_data_append');
      m.replyParts.push(read(src, size));
    },
    msg_reply: () => {
      const m = msg();
      canReply(m, 'msg_reply');
      m.response = { kind: 'reply', bytes: reply() };
    },
    msg_reject: (src: number, size: number) => {
      const m = msg();
      canReply(m, 'msg_reject');
      m.response = { kind: 'reject', code: RejectCode.CanisterReject, message: Buffer.from(read(src, size)).toString('utf8') };
    },
    msg_deadline: () => 0n,
    msg_cycles_available: () => 0n,
    msg_cycles_available128: (dst: number) => write(dst, u128(0n)),
    msg_cycles_refunded: () => 0n,
    msg_cycles_refunded128: (dst: number) => write(dst, u128(0n)),
    msg_cycles_accept: () => 0n,
    msg_cycles_accept128: (_h: bigint, _l: bigint, dst: number) => write(dst, u128(0n)),
    accept_message: () => {
      const m = msg();
      if (m.kind !== 'inspect') throw new Trap('ic0.accept_message can only be called in canister_inspect_message');
      m.accepted = true;
    },
    canister_self_size: () => h.selfBytes.length,
    canister_self_copy: (dst: number, off: number, size: number) => copyOut(h.selfBytes, dst, off, size),
    canister_cycle_balance: () => ((h.impure = true), h.cycleBalance > 0xffffffffffffffffn ? -1n : BigInt.asIntN(64, h.cycleBalance)),
    canister_cycle_balance128: (dst: number) => ((h.impure = true), write(dst, u128(h.cycleBalance))),
    canister_liquid_cycle_balance128: (dst: number) => ((h.impure = true), write(dst, u128(h.cycleBalance))),
    canister_status: () => 1,
    canister_version: () => h.version,
    is_controller: (src: number, size: number) => {
      h.impure = true;
      const p = read(src, size);
      return h.controllers.some((c) => sameBytes(c.toUint8Array(), p)) ? 1 : 0;
    },
    in_replicated_execution: () => (replicated(msg()) ? 1 : 0),
    cycles_burn128: (high: bigint, low: bigint, dst: number) => {
      h.impure = true;
      const want = (BigInt.asUintN(64, high) << 64n) | BigInt.asUintN(64, low);
      const burnt = want < h.cycleBalance ? want : h.cycleBalance;
      if (replicated(msg())) h.cycleBalance -= burnt;
      write(dst, u128(burnt));
    },
    certified_data_set: (src: number, size: number) => {
      const m = msg();
      if (!replicated(m)) throw new Trap('ic0.certified_data_set cannot be called in a query');
      if (num(size) > 32) throw new Trap('ic0.certified_data_set: at most 32 bytes');
      m.certifiedData = read(src, size);
    },
    data_certificate_present: () => 0,
    data_certificate_size: () => {
      throw new Trap('ic0.data_certificate_size: no certificate is available (Node IC host)');
    },
    data_certificate_copy: () => {
      throw new Trap('ic0.data_certificate_copy: no certificate is available (Node IC host)');
    },
    time: () => {
      // Clock reads are taken once per message on the IC; wall mode reads Date.now (monotonic). A query reads
      // its state's time (queryTimeNs), which a remembered reply records.
      if (msg().kind !== 'query') return h.now();
      const t = h.queryTimeNs();
      h.timeRead = t;
      return t;
    },
    global_timer_set: (ts: bigint) => {
      const m = msg();
      const prev = m.timerDeadline;
      m.timerDeadline = BigInt.asUintN(64, ts);
      return prev;
    },
    performance_counter: (type: number) => {
      if (type === 0) return counter();
      if (type === 1) return msg().instructionsBefore + counter();
      throw new Trap(`ic0.performance_counter: unknown counter type ${type}`);
    },
    instruction_counter: () => counter(),
    debug_print: (src: number, size: number) => ((h.impure = true), h.debugPrint(Buffer.from(read(src, size)).toString('utf8'))),
    trap: (src: number, size: number) => {
      throw new Trap(`Canister called \`ic0.trap\` with message: '${Buffer.from(read(src, size)).toString('utf8')}'`);
    },
    cost_call: (nameSize: bigint, argSize: bigint, dst: number) =>
      write(dst, u128(260_000n + 1_000n * (BigInt.asUintN(64, nameSize) + BigInt.asUintN(64, argSize)))),
    cost_create_canister: (dst: number) => write(dst, u128(500_000_000_000n)),
    cost_http_request: (reqSize: bigint, maxRes: bigint, dst: number) =>
      write(dst, u128(49_140_000n + 5_200n * BigInt.asUintN(64, reqSize) + 10_400n * BigInt.asUintN(64, maxRes))),
    cost_sign_with_ecdsa: (_s: number, _n: number, _c: number, dst: number) => (write(dst, u128(26_153_846_153n)), 0),
    cost_sign_with_schnorr: (_s: number, _n: number, _c: number, dst: number) => (write(dst, u128(26_153_846_153n)), 0),
    cost_vetkd_derive_encrypted_key: (_s: number, _n: number, _c: number, dst: number) => (write(dst, u128(26_153_846_153n)), 0),
    // Inter-canister calls: built up across call_* and queued only if the message commits.
    call_new: (cs: number, cn: number, ns: number, nn: number, rf: number, re: number | bigint, jf: number, je: number | bigint) => {
      const m = msg();
      if (m.ctx === undefined || m.kind === 'query' || m.kind === 'inspect') throw new Trap('ic0.call_new cannot be called here');
      m.building = {
        callee: read(cs, cn),
        method: Buffer.from(read(ns, nn)).toString('utf8'),
        args: [],
        reply: { fun: rf, env: re },
        reject: { fun: jf, env: je },
        ctx: m.ctx,
      };
    },
    call_data_append: (src: number, size: number) => {
      const b = msg().building;
      if (b === undefined) throw new Trap('ic0.call_data_append without call_new');
      b.args.push(read(src, size));
    },
    call_on_cleanup: (fun: number, env: number | bigint) => {
      const b = msg().building;
      if (b === undefined) throw new Trap('ic0.call_on_cleanup without call_new');
      b.cleanup = { fun, env };
    },
    call_cycles_add: () => {},
    call_cycles_add128: () => {},
    call_with_best_effort_response: () => {},
    call_perform: () => {
      const m = msg();
      if (m.building === undefined) throw new Trap('ic0.call_perform without call_new');
      m.performed.push(m.building);
      m.building = undefined;
      return 0;
    },
    stable64_size: () => h.stable.size,
    stable64_grow: (n: bigint) => h.stable.grow(BigInt.asUintN(64, n)),
    stable64_read: (dst: bigint, off: bigint, size: bigint) => {
      const n = Number(size);
      const d = Number(dst);
      const m = mem();
      if (d < 0 || d + n > m.length) throw new Trap(`heap out of bounds: ${d}+${n}`);
      stableCall(() => h.stable.read(m.subarray(d, d + n), BigInt.asUintN(64, off), BigInt(n)));
    },
    stable64_write: (off: bigint, src: bigint, size: bigint) => {
      const data = read(src, size);
      stableCall(() => h.stable.write(BigInt.asUintN(64, off), data));
    },
    stable_size: () => {
      if (h.stable.size > 65536n) throw new Trap('ic0.stable_size: stable memory is larger than 4 GiB, use stable64_size');
      return Number(h.stable.size);
    },
    stable_grow: (n: number) => {
      if (h.stable.size + BigInt(n >>> 0) > 65536n) return -1;
      return Number(h.stable.grow(BigInt(n >>> 0)));
    },
    stable_read: (dst: number, off: number, size: number) => {
      const m = mem();
      if (dst < 0 || dst + size > m.length) throw new Trap('heap out of bounds');
      stableCall(() => h.stable.read(m.subarray(dst, dst + size), BigInt(off >>> 0), BigInt(size >>> 0)));
    },
    stable_write: (off: number, src: number, size: number) => {
      const data = read(src, size);
      stableCall(() => h.stable.write(BigInt(off >>> 0), data));
    },
  };
  return api;
}

function stableCall(f: () => void): void {
  try {
    f();
  } catch (e) {
    if (e instanceof RangeError) throw new Trap(e.message);
    throw e;
  }
}
