// geth's words for an EVM failure (core/vm/errors.go), from EthereumJS's EVMError text.
const GETH: Record<string, string> = {
  'out of gas': 'out of gas',
  revert: 'execution reverted',
  'invalid JUMP': 'invalid jump destination',
  'static state change': 'write protection',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'create collision': 'contract address collision',
  'insufficient balance': 'insufficient balance for transfer',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'value out of range': 'return data out of bounds',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'stack overflow': 'stack limit reached 1024 (1023)',
  'stack underflow': 'stack underflow',
};

/** geth's error text; `op` is the failing frame's last opcode (geth names it in "invalid opcode: ..."). */
export function gethError(ethereumJsError: string, op?: { name: string; code: number; gasLeft: bigint }): string {
  // geth names the reason when SSTORE's dynamic gas fails at or below EIP-2200's sentry (2300 gas).
  if (ethereumJsError === 'out of gas' && op?.name === 'SSTORE' && op.gasLeft <= 2300n) return 'out of gas: not enough gas for reentrancy sentry';
  if (ethereumJsError === 'invalid opcode') {
    if (op === undefined) return 'invalid opcode';
    return op.code === 0xfe ? 'invalid opcode: INVALID' : `invalid opcode: opcode 0x${op.code.toString(16)} not defined`;
  }
  return GETH[ethereumJsError] ?? ethereumJsError;
}

const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';

const PANICS: Record<number, string> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
};

const hexOf = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

/** geth's abi.UnpackRevert: the reason of Error(string) or Panic(uint256) revert data, else undefined. */
export function revertReason(output: Uint8Array): string | undefined {
  if (output.length < 4) return undefined;
  const sel = hexOf(output.subarray(0, 4));
  const body = output.subarray(4);
  if (sel === PANIC_SELECTOR) {
    if (body.length < 32) return undefined;
    const code = BigInt(`0x${hexOf(body.subarray(0, 32))}`);
    const known = code < 0x100n ? PANICS[Number(code)] : undefined;
    return known ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  if (sel !== ERROR_SELECTOR || body.length < 64) return undefined;
  const offset = BigInt(`0x${hexOf(body.subarray(0, 32))}`);
  if (offset + 32n > BigInt(body.length)) return undefined;
  const len = BigInt(`0x${hexOf(body.subarray(Number(offset), Number(offset) + 32))}`);
  const start = Number(offset) + 32;
  if (BigInt(start) + len > BigInt(body.length)) return undefined;
  return new TextDecoder().decode(body.subarray(start, start + Number(len)));
}
