// A tiny EVM assembler for hand-written fixtures, shared by the unit and wasm tests: opcode names, pushes
// with minimal width, raw bytes, labels (PUSH2 label / JUMPDEST label).

const OPS: Record<string, number> = {
  STOP: 0x00, ADD: 0x01, MUL: 0x02, SUB: 0x03, DIV: 0x04, LT: 0x10, GT: 0x11, EQ: 0x14, ISZERO: 0x15,
  AND: 0x16, NOT: 0x19, SHR: 0x1c, SHA3: 0x20, KECCAK256: 0x20, ADDRESS: 0x30, BALANCE: 0x31, ORIGIN: 0x32,
  CALLER: 0x33, CALLVALUE: 0x34, CALLDATALOAD: 0x35, CALLDATASIZE: 0x36, CALLDATACOPY: 0x37,
  CODESIZE: 0x38, CODECOPY: 0x39, GASPRICE: 0x3a, EXTCODESIZE: 0x3b, RETURNDATASIZE: 0x3d,
  RETURNDATACOPY: 0x3e, EXTCODEHASH: 0x3f, BLOCKHASH: 0x40, COINBASE: 0x41, TIMESTAMP: 0x42,
  NUMBER: 0x43, PREVRANDAO: 0x44, GASLIMIT: 0x45, CHAINID: 0x46, SELFBALANCE: 0x47, BASEFEE: 0x48,
  POP: 0x50, MLOAD: 0x51, MSTORE: 0x52, MSTORE8: 0x53, SLOAD: 0x54, SSTORE: 0x55, JUMP: 0x56,
  JUMPI: 0x57, PC: 0x58, MSIZE: 0x59, GAS: 0x5a, JUMPDEST: 0x5b, TLOAD: 0x5c, TSTORE: 0x5d,
  PUSH0: 0x5f, DUP1: 0x80, DUP2: 0x81, DUP3: 0x82, DUP4: 0x83, SWAP1: 0x90, SWAP2: 0x91,
  LOG0: 0xa0, LOG1: 0xa1, LOG2: 0xa2, LOG3: 0xa3, LOG4: 0xa4, CREATE: 0xf0, CALL: 0xf1,
  CALLCODE: 0xf2, RETURN: 0xf3, DELEGATECALL: 0xf4, CREATE2: 0xf5, STATICCALL: 0xfa, REVERT: 0xfd,
  INVALID: 0xfe, SELFDESTRUCT: 0xff,
};

export type Item = string | bigint | number | Uint8Array | { label: string } | { ref: string };

export const label = (name: string): Item => ({ label: name });
export const ref = (name: string): Item => ({ ref: name });
/** PUSH2 with a fixed width, for offsets that are only known after a first assembly pass. */
export const push2 = (n: number): Item => Uint8Array.of(0x61, n >> 8, n & 0xff);
/** PUSH32 of exactly 32 bytes. */
export const push32 = (w: Uint8Array): Item => {
  if (w.length !== 32) throw new Error('push32 needs 32 bytes');
  return Uint8Array.of(0x7f, ...w);
};

/** Assembles items: opcode names, numbers/bigints (pushed), raw bytes, label definitions and references. */
export function asm(...items: Item[]): Uint8Array {
  const out: number[] = [];
  const labels = new Map<string, number>();
  const fixups: [number, string][] = [];
  for (const it of items) {
    if (typeof it === 'string') {
      const op = OPS[it];
      if (op === undefined) throw new Error(`unknown opcode ${it}`);
      out.push(op);
    } else if (typeof it === 'number' || typeof it === 'bigint') {
      const v = BigInt(it);
      if (v === 0n) {
        out.push(0x5f);
        continue;
      }
      let hex = v.toString(16);
      if (hex.length % 2) hex = '0' + hex;
      const bytes = hex.match(/../g)!.map((h) => parseInt(h, 16));
      if (bytes.length > 32) throw new Error('push wider than 32 bytes');
      out.push(0x5f + bytes.length, ...bytes);
    } else if (it instanceof Uint8Array) {
      out.push(...it);
    } else if ('label' in it) {
      labels.set(it.label, out.length);
      out.push(0x5b);
    } else {
      out.push(0x61, 0, 0);
      fixups.push([out.length - 2, it.ref]);
    }
  }
  for (const [at, name] of fixups) {
    const pos = labels.get(name);
    if (pos === undefined) throw new Error(`undefined label ${name}`);
    out[at] = pos >> 8;
    out[at + 1] = pos & 0xff;
  }
  return Uint8Array.from(out);
}

/** Assembles code whose length must appear inside it (a data section after the code): two passes, fixed-width PUSH2. */
export function asmWithLength(build: (codeLength: number) => Item[]): Uint8Array {
  const len = asm(...build(0)).length;
  const code = asm(...build(len));
  if (code.length !== len) throw new Error('code length changed between passes');
  return code;
}

/** Init code that runs `constructor` (must leave the stack empty and not return), then deploys `runtime`. */
export function deployCode(runtime: Uint8Array, constructor: Uint8Array = new Uint8Array(0)): Uint8Array {
  const head = (at: number) => [constructor, push2(runtime.length), 'DUP1', push2(at), 0, 'CODECOPY', 0, 'RETURN'] as Item[];
  const headLen = asm(...head(0)).length;
  const out = new Uint8Array(headLen + runtime.length);
  out.set(asm(...head(headLen)));
  out.set(runtime, headLen);
  return out;
}

export { toHex as hex, fromHex as bytes } from '../../src/gateway/hex.js';
export const addr = (n: number): Uint8Array => {
  const a = new Uint8Array(20);
  a[19] = n & 0xff;
  a[18] = (n >> 8) & 0xff;
  a[0] = 0xaa;
  return a;
};
export const word = (v: bigint): Uint8Array => {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
};
