// BALANCE, EXTCODESIZE and EXTCODEHASH without EthereumJS's awaits (opcodes/functions.js and gas.js): their
// dynamic gas is the EIP-2929 access of the address word, their operation one read of FlatStateManager.
// EthereumJS turns the word into an Address through a hex string in both handlers, builds the journal's key
// from the bytes in a JavaScript loop twice, and awaits the (synchronous) state manager, so each costs two
// async calls a step. The results are EthereumJS's: EXTCODESIZE and EXTCODEHASH answer for code starting with
// 0xEF00 as for EOFBYTES (its isEOF; an EIP-7702 designator, 0xEF0100, is read as it is), EXTCODEHASH is 0 for
// an absent or empty account, BALANCE of the frame's own address is the frame's contract account's.
//
// Only where EIP-2929 is active and EIP-6800/7864/7928/8038 are not (their extra charges and access lists are
// left out); the fast interpreter's install refuses those EIPs.

import { Address, KECCAK256_NULL } from '@ethereumjs/util';
import { bytesEqual, bytesToBigint } from '../codec/bytes.js';
import { keccak256 } from '../crypto.js';
import { type CommonLike, type JournalLike, type OpEntry, type RunState } from './internals.js';
import { FlatStateManager } from './state.js';

const MASK_160 = (1n << 160n) - 1n;

/**
 * A CALL target's Address with its journal key (unprefixed lowercase hex, as toHex of its bytes), made from the
 * stack word (call_frame.ts callOp); the callee's frame reads the key for its storage (interpreter.ts).
 */
export class KeyedAddress extends Address {
  constructor(
    bytes: Uint8Array,
    readonly key: string,
  ) {
    super(bytes);
  }
}

/**
 * Unprefixed hex of an Address, once per Address object (the journal's key: touched accounts, a frame's storage
 * slots; the transaction's target is keyed by loadCode before its frame reads storage). A KeyedAddress carries
 * it; another is converted from its 20 bytes four at a time (five native conversions instead of Address.toString's
 * twenty string appends, about 50 K instructions in the canister).
 */
const hexOf = new WeakMap<Address, string>();
export function addressHex(a: Address): string {
  if (a instanceof KeyedAddress) return a.key;
  let h = hexOf.get(a);
  if (h === undefined) {
    const b = a.bytes;
    h = '';
    for (let i = 0; i < 20; i += 4) h += (((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0).toString(16).padStart(8, '0');
    hexOf.set(a, h);
  }
  return h;
}

const ADDRESS_WORD = new Uint8Array(32);
const ADDRESS_VIEW = new DataView(ADDRESS_WORD.buffer);

/**
 * The 20 bytes of the low 160 bits of a stack word (createAddressFromStackBigInt without its hex round trip):
 * three native stores (setBigUint64 keeps the low 64 bits of its argument) and a copy, instead of a loop of
 * bigint masks and shifts.
 */
export function addressBytes(v: bigint): Uint8Array {
  ADDRESS_VIEW.setBigUint64(24, v);
  ADDRESS_VIEW.setBigUint64(16, v >> 64n);
  ADDRESS_VIEW.setUint32(12, Number((v >> 128n) & 0xffffffffn));
  return ADDRESS_WORD.slice(12);
}

/** The journal's key of the address in a stack word (unprefixed hex), by one native call. */
export const addressKeyOf = (word: bigint): string => (word & MASK_160).toString(16).padStart(40, '0');

/** Journal.isWarmedAddress for an address already in its journal key form (unprefixed hex). */
export function isWarmAddressHex(j: { journal: Map<string, unknown>; alwaysWarmJournal: Map<string, unknown> }, addrHex: string): boolean {
  return j.journal.has(addrHex) || j.alwaysWarmJournal.has(addrHex);
}

const ACCESS_EIPS_LEFT_OUT = [6800, 7864, 7928, 8038];

/**
 * accessAddressEIP2929 on the address word on top of the stack (BALANCE, EXTCODESIZE, EXTCODEHASH's gas
 * handlers): the warm or cold charge, the address warmed when cold. undefined when the rules differ.
 */
export function addressAccessGas(common: CommonLike): ((rs: RunState, gas: bigint) => bigint) | undefined {
  if (!common.isActivatedEIP(2929) || ACCESS_EIPS_LEFT_OUT.some((eip) => common.isActivatedEIP(eip))) return undefined;
  const cold = common.param('coldaccountaccessGas');
  const warm = common.param('warmstoragereadGas');
  return (rs, gas) => {
    const word = rs.stack._store[rs.stack._len - 1]!;
    const journal: JournalLike = rs.interpreter.journal;
    if (isWarmAddressHex(journal, addressKeyOf(word))) return gas + warm;
    journal.addWarmedAddress(addressBytes(word));
    return gas + cold;
  };
}

/** EthereumJS's EOFHASH (keccak256 of 0xEF00) as a stack word, hashed when first asked (module start-up stays free). */
let eofHashWord: bigint | undefined;
const isEOF = (code: Uint8Array): boolean => code.length >= 2 && code[0] === 0xef && code[1] === 0x00;
const codeHashWords = new WeakMap<Uint8Array, bigint>();

/**
 * Replaces the operations of BALANCE, EXTCODESIZE and EXTCODEHASH in `evm`'s opcode table (already
 * instrumented by the budget) with synchronous ones over FlatStateManager; `tick` is the budget count the
 * instrumented handlers make. A frame over another state manager keeps the instrumented handler.
 */
export function installAccountOps(evmObj: unknown, tick: () => void): void {
  const evm = evmObj as { _opcodeMap: OpEntry[]; common: CommonLike; stateManager: unknown };
  if (!(evm.stateManager instanceof FlatStateManager) || addressAccessGas(evm.common) === undefined) return;
  const map = evm._opcodeMap;
  const install = (op: number, fn: (rs: RunState, sm: FlatStateManager, address: Uint8Array) => bigint): void => {
    const e = map[op];
    if (e === undefined || e.opcodeInfo.code !== op || e.opcodeInfo.isInvalid) return;
    const stock = e.opHandler;
    map[op] = {
      ...e,
      opHandler: (rs: RunState, c: unknown): unknown => {
        const sm = rs.stateManager;
        if (!(sm instanceof FlatStateManager)) return stock(rs, c);
        tick();
        const stack = rs.stack;
        stack.push(fn(rs, sm, addressBytes(stack.pop())));
        return undefined;
      },
    };
  };
  // BALANCE (Interpreter.getExternalBalance)
  install(0x31, (rs, sm, address) =>
    bytesEqual(address, rs.interpreter._env.address.bytes) ? rs.interpreter._env.contract.balance : sm.getAccountRecord(address)?.balance ?? 0n,
  );
  // EXTCODESIZE
  install(0x3b, (_rs, sm, address) => {
    const code = sm.getCodeSync(address);
    return isEOF(code) ? 2n : BigInt(code.length);
  });
  // EXTCODEHASH
  install(0x3f, (_rs, sm, address) => {
    if (isEOF(sm.getCodeSync(address))) return (eofHashWord ??= bytesToBigint(keccak256(Uint8Array.of(0xef, 0x00))));
    const rec = sm.getAccountRecord(address);
    if (rec === undefined) return 0n;
    const hash = rec.codeHash ?? KECCAK256_NULL;
    if (rec.nonce === 0n && rec.balance === 0n && hash === KECCAK256_NULL) return 0n; // Account.isEmpty
    let w = codeHashWords.get(hash);
    if (w === undefined) codeHashWords.set(hash, (w = bytesToBigint(hash)));
    return w;
  });
}
