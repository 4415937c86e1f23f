// The call tree of each transaction the archive replays, captured cheaply enough to run on every one: only at
// message level (EthereumJS's beforeMessage/afterMessage) and at the few opcodes a message does not describe.
// No per-step hook: a `step` listener makes EthereumJS build an event (stack and memory copied) for every
// opcode, several times the cost of the replay itself. Instead this EVM's own entries of the opcode table are
// wrapped for CALL, CALLCODE, DELEGATECALL and STATICCALL (the kind of call, which a message does not carry
// inside a static frame, and calls refused before their frame starts), SELFDESTRUCT (its own frame) and
// SSTORE's gas (the gas left when it failed: geth names the reentrancy sentry). Execution stays stock.
//
// The tree has the shape trace/frames.ts's FrameRecorder builds for the tracers (so trace/internal_txs.ts turns
// both into the same rows), without logs and outputs (the rows need neither) and with only the first four
// bytes of each input (the selector).
import type { EVMResult, Message } from '@ethereumjs/evm';
import type { VM } from '@ethereumjs/vm';
import { checkEvmInternals, checkRunStateShapes, type AccountReaderLike, type OpEntry, type OpHandler, type RunState } from '../core/evm/internals.js';
import { gethError } from './trace/errors.js';
import type { Frame } from './trace/frames.js';
import { stackAddress } from './trace/hex.js';
import { CALL_DEPTH_ERROR } from './trace/refused_calls.js';
import type { CallType } from './trace/run.js';

type Evm = VM['evm'];

/** A CALL-family opcode under way; `entered` once its message starts. */
interface PendingCall {
  readonly type: CallType;
  readonly depth: number;
  entered: boolean;
}

const CALLS: readonly [number, CallType][] = [
  [0xf1, 'CALL'],
  [0xf2, 'CALLCODE'],
  [0xf4, 'DELEGATECALL'],
  [0xfa, 'STATICCALL'],
];
const SSTORE = 0x55;
const SELFDESTRUCT = 0xff;
const MAX_DEPTH = 1024;
const MAX_STACK = 1024;
const EMPTY = new Uint8Array(0);

export class CallCapture {
  private readonly stack: Frame[] = [];
  private root: Frame | undefined;
  private pending: PendingCall | undefined;
  /** Messages open now, each with the frame it made (creates learn their address when they end). */
  private readonly messages: Message[] = [];
  private sstoreGasLeft = 0n;
  private opcodeMap: readonly OpEntry[] = [];
  private active = false;
  private shapesChecked = false;

  /** Installs the hooks on this EVM (its own copy of the opcode table: other EVMs are untouched). */
  attach(evm: Evm): void {
    // The opcode table and the RunState the wrappers read are EthereumJS's internals: core/evm/internals.ts
    // declares them and checks that they still have the shapes relied on here (the RunState on the first one
    // a wrapper sees, checkShapes).
    checkEvmInternals(evm);
    const e = evm as unknown as { _opcodeMap: OpEntry[] };
    const map = e._opcodeMap.slice();
    for (const [code, type] of CALLS) {
      const entry = map[code]!;
      const orig = entry.opHandler;
      map[code] = { ...entry, opHandler: (rs, common) => this.onCall(type, rs, common, orig) };
    }
    const sd = map[SELFDESTRUCT]!;
    // Wrapped where EthereumJS's step event would fire: before its gas is charged, so a SELFDESTRUCT that then
    // fails (out of gas, static frame) is a frame too, as the tracers' recorder sees it.
    if (sd.gasHandler !== undefined) {
      const orig = sd.gasHandler;
      map[SELFDESTRUCT] = { ...sd, gasHandler: async (rs, gas, common) => (await this.onSelfdestruct(rs), orig(rs, gas, common)) };
    } else {
      const orig = sd.opHandler;
      map[SELFDESTRUCT] = { ...sd, opHandler: async (rs, common) => (await this.onSelfdestruct(rs), orig(rs, common)) };
    }
    const ss = map[SSTORE]!;
    const sstoreGas = ss.gasHandler;
    if (sstoreGas !== undefined) {
      map[SSTORE] = {
        ...ss,
        gasHandler: (rs, gas, common) => {
          this.sstoreGasLeft = rs.gasLeft;
          return sstoreGas(rs, gas, common);
        },
      };
    }
    e._opcodeMap = map;
    this.opcodeMap = map;
    // One-argument listeners: EthereumJS calls them synchronously (no promise per message).
    const events = evm.events!;
    events.on('beforeMessage', (m: Message) => this.enter(m));
    events.on('afterMessage', (r: EVMResult) => this.exit(r));
  }

  /** Starts capturing one transaction. */
  begin(): void {
    this.stack.length = 0;
    this.messages.length = 0;
    this.root = undefined;
    this.pending = undefined;
    this.active = true;
  }

  /** The transaction's call tree (undefined when it never started a message) and stops capturing. */
  end(): Frame | undefined {
    this.active = false;
    const r = this.root;
    this.root = undefined;
    this.stack.length = 0;
    this.messages.length = 0;
    return r;
  }

  /** Checks the first live RunState's shape (core's check pushes one value, so it waits for room on the stack). */
  private checkShapes(rs: RunState): void {
    if (this.shapesChecked || rs.stack.length >= MAX_STACK) return;
    checkRunStateShapes(rs);
    this.shapesChecked = true;
  }

  private async onCall(type: CallType, rs: RunState, common: unknown, orig: OpHandler): Promise<void> {
    if (!this.active) return orig(rs, common) as Promise<void>;
    this.checkShapes(rs);
    const withValue = type === 'CALL' || type === 'CALLCODE';
    const st = rs.stack.peek(withValue ? 7 : 6);
    const gas = rs.messageGasLimit ?? 0n;
    const p: PendingCall = { type, depth: rs.env.depth, entered: false };
    this.pending = p;
    await orig(rs, common);
    if (this.pending === p) this.pending = undefined;
    if (p.entered) return;
    // Refused before its frame started (value above the balance, depth limit): geth reports a frame that used
    // no gas, with the stipend a call with value would have carried.
    const value = withValue ? st[2]! : undefined;
    const [offset, size] = withValue ? [st[3]!, st[4]!] : [st[2]!, st[3]!];
    const input = size === 0n ? EMPTY : rs.memory.read(Number(offset), Number(size < 4n ? size : 4n)).slice();
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined) return;
    parent.calls.push({
      type,
      depth: p.depth + 1,
      from: rs.env.address.bytes,
      to: stackAddress(st[1]!),
      value: type === 'STATICCALL' ? undefined : (value ?? 0n),
      gas: gas + (value !== undefined && value > 0n ? 2300n : 0n),
      gasUsed: 0n,
      input,
      output: EMPTY,
      error: gethError(p.depth + 1 > MAX_DEPTH ? CALL_DEPTH_ERROR : 'insufficient balance'),
      calls: [],
      logs: [],
    });
  }

  private async onSelfdestruct(rs: RunState): Promise<void> {
    const f = this.stack[this.stack.length - 1];
    // An empty stack: the opcode fails with a stack underflow before it does anything (no frame, as for geth).
    if (!this.active || f === undefined || rs.stack.length < 1) return;
    this.checkShapes(rs);
    const [beneficiary] = rs.stack.peek(1);
    const address = rs.env.address;
    const balance = (await (rs.stateManager as AccountReaderLike).getAccount(address))?.balance ?? 0n;
    f.calls.push({
      type: 'SELFDESTRUCT',
      depth: f.depth + 1,
      from: address.bytes,
      to: stackAddress(beneficiary ?? 0n),
      value: balance,
      gas: 0n,
      gasUsed: 0n,
      input: EMPTY,
      output: EMPTY,
      calls: [],
      logs: [],
    });
  }

  private enter(m: Message): void {
    if (!this.active) return;
    const p = this.pending;
    this.pending = undefined;
    let type: CallType;
    if (m.to === undefined) type = m.salt !== undefined ? 'CREATE2' : 'CREATE';
    else if (p !== undefined && p.depth + 1 === m.depth) {
      p.entered = true;
      type = p.type;
    } else type = m.delegatecall ? 'DELEGATECALL' : 'CALL';
    const isCreate = m.to === undefined;
    // DELEGATECALL and CALLCODE run the callee's code on the current contract: geth reports the current
    // contract as `from` and the code's address as `to` (EthereumJS's message `to` is the current contract).
    const swapped = type === 'DELEGATECALL' || type === 'CALLCODE';
    const f: Frame = {
      type,
      depth: m.depth,
      from: swapped ? m.to!.bytes : m.caller.bytes,
      to: isCreate ? undefined : swapped ? m.codeAddress.bytes : m.to!.bytes,
      value: type === 'STATICCALL' ? undefined : m.value,
      gas: m.gasLimit,
      gasUsed: 0n,
      input: isCreate ? EMPTY : m.data.subarray(0, 4).slice(),
      output: EMPTY,
      calls: [],
      logs: [],
    };
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined) this.root = f;
    else parent.calls.push(f);
    this.stack.push(f);
    this.messages.push(m);
  }

  private exit(r: EVMResult): void {
    if (!this.active) return;
    const f = this.stack.pop();
    const m = this.messages.pop();
    if (f === undefined || m === undefined) return;
    const res = r.execResult;
    f.gasUsed = res.executionGasUsed;
    if (f.type === 'CREATE' || f.type === 'CREATE2') {
      // EthereumJS gives the message its address when the creation starts (also when it then fails).
      f.created = (m.to ?? r.createdAddress)?.bytes;
      f.to = f.created;
    }
    const err = res.exceptionError;
    if (err === undefined) return;
    f.rawError = err.error;
    const rs = res.runState as RunState | undefined;
    let lastOp: { name: string; code: number; gasLeft: bigint } | undefined;
    if (rs !== undefined) {
      const info = this.opcodeMap[rs.opCode]!.opcodeInfo;
      lastOp = { name: info.fullName, code: info.code, gasLeft: info.code === SSTORE ? this.sstoreGasLeft : rs.gasLeft };
    }
    f.error = gethError(err.error, lastOp);
    if (f.type === 'CREATE' || f.type === 'CREATE2') f.to = undefined;
  }
}
