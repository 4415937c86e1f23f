// console.log from Solidity (hardhat/console.sol, forge-std's console and console2): a call to the console
// address whose calldata is `log(<types>)`'s selector and the ABI-encoded arguments. The EVM charges such a call
// as any call to an account without code; nothing in the canister looks at it (the canister pays nothing for
// console output). This decodes the calldata and formats the line as the Hardhat node prints it: each argument
// as text (numbers in decimal, addresses and bytes as lower-case hex, booleans as true/false), then Node's
// util.format with the first argument as the format string, `%d`/`%i` read as `%s` (numbers may exceed a double).
// The hook below collects the lines of one stock EthereumJS EVM (the archive's re-execution, eth_call replays):
// whoever runs that EVM passes it in, so this module needs nothing from the code that runs it.
import { format } from 'node:util';
import { keccak256 } from '../core/keccak.js';
import { CONSOLE_SIGNATURES } from './console_signatures.js';

/** 0x000000000000000000636F6e736F6c652e6c6f67: "console.log" in ASCII, right-aligned. */
export const CONSOLE_ADDRESS = '0x000000000000000000636f6e736f6c652e6c6f67';
const CONSOLE_BYTES = Uint8Array.from(Buffer.from(CONSOLE_ADDRESS.slice(2), 'hex'));

/** At most this many bytes of one string or bytes argument are decoded (the rest is cut, marked with "..."). */
export const MAX_ARG_BYTES = 64 * 1024;

type ArgType = 'uint256' | 'int256' | 'bool' | 'address' | 'string' | 'bytes' | `bytes${number}`;

/** The `log(...)` signatures console.sol encodes with, read from its text (`abi.encodeWithSignature("log(...)"`). */
export function signaturesOf(consoleSol: string): string[] {
  const out = new Set<string>();
  for (const m of consoleSol.matchAll(/encodeWithSignature\("(log\([a-z0-9,]*\))"/g)) out.add(m[1]!);
  return [...out];
}

function parseTypes(signature: string): ArgType[] | undefined {
  const inner = /^log\(([a-z0-9,]*)\)$/.exec(signature)?.[1];
  if (inner === undefined) return undefined;
  if (inner === '') return [];
  const types: ArgType[] = [];
  for (const t of inner.split(',')) {
    if (t === 'uint256' || t === 'int256' || t === 'bool' || t === 'address' || t === 'string' || t === 'bytes') types.push(t);
    else if (/^bytes([1-9]|[12][0-9]|3[0-2])$/.test(t)) types.push(t as ArgType);
    else return undefined;
  }
  return types;
}

let table: Map<number, ArgType[]> | undefined;
/**
 * Selector -> argument types. Each signature with uint256/int256 is also registered under the `uint`/`int`
 * spelling: console.sol releases before 2.9 encoded with those (other selectors, the same arguments).
 */
function selectors(): Map<number, ArgType[]> {
  if (table !== undefined) return table;
  const t = new Map<number, ArgType[]>();
  const add = (sig: string, types: ArgType[]): void => {
    const h = keccak256(new TextEncoder().encode(sig));
    t.set(((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0, types);
  };
  for (const sig of CONSOLE_SIGNATURES) {
    const types = parseTypes(sig);
    if (types === undefined) continue;
    add(sig, types);
    const legacy = sig.replace(/\buint256\b/g, 'uint').replace(/\bint256\b/g, 'int');
    if (legacy !== sig) add(legacy, types);
  }
  return (table = t);
}

/** Whether `to` (20 bytes) is the console address. */
export function isConsoleAddress(to: Uint8Array | undefined): boolean {
  if (to === undefined || to.length !== 20) return false;
  for (let i = 0; i < 20; i++) if (to[i] !== CONSOLE_BYTES[i]) return false;
  return true;
}

const hex = (b: Uint8Array): string => `0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;

function word(d: Uint8Array, at: number): Uint8Array | undefined {
  return at + 32 <= d.length ? d.subarray(at, at + 32) : undefined;
}

function toBig(w: Uint8Array): bigint {
  return BigInt(hex(w));
}

/** An offset or length word that fits the data; undefined otherwise (hostile input). */
function small(w: Uint8Array | undefined, limit: number): number | undefined {
  if (w === undefined) return undefined;
  const n = toBig(w);
  return n <= BigInt(limit) ? Number(n) : undefined;
}

function dynamic(params: Uint8Array, head: number): Uint8Array | undefined {
  const start = small(word(params, head), params.length);
  if (start === undefined) return undefined;
  const len = small(word(params, start), params.length);
  if (len === undefined || start + 32 + len > params.length) return undefined;
  return params.subarray(start + 32, start + 32 + len);
}

function arg(params: Uint8Array, i: number, type: ArgType): string | undefined {
  const head = i * 32;
  const w = word(params, head);
  if (w === undefined) return undefined;
  switch (type) {
    case 'uint256':
      return toBig(w).toString(10);
    case 'int256': {
      const n = toBig(w);
      return (n >= 1n << 255n ? n - (1n << 256n) : n).toString(10);
    }
    case 'bool':
      return w[31] !== 0 ? 'true' : 'false';
    case 'address':
      return hex(w.subarray(12));
    case 'string':
    case 'bytes': {
      const d = dynamic(params, head);
      if (d === undefined) return undefined;
      const cut = d.length > MAX_ARG_BYTES;
      const shown = cut ? d.subarray(0, MAX_ARG_BYTES) : d;
      return (type === 'string' ? Buffer.from(shown).toString('utf8') : hex(shown)) + (cut ? '...' : '');
    }
    default:
      return hex(w.subarray(0, Number(type.slice(5))));
  }
}

/** The decoded arguments as text, or undefined when the calldata is not a console.log call this table knows. */
export function decodeConsoleArgs(calldata: Uint8Array): string[] | undefined {
  if (calldata.length < 4) return undefined;
  const sel = ((calldata[0]! << 24) | (calldata[1]! << 16) | (calldata[2]! << 8) | calldata[3]!) >>> 0;
  const types = selectors().get(sel);
  if (types === undefined) return undefined;
  const params = calldata.subarray(4);
  const out: string[] = [];
  for (let i = 0; i < types.length; i++) {
    const a = arg(params, i, types[i]!);
    if (a === undefined) return undefined;
    out.push(a);
  }
  return out;
}

/** The printed line, as the Hardhat node prints it; undefined for calldata that is not a known console.log call. */
export function formatConsoleLog(calldata: Uint8Array): string | undefined {
  const args = decodeConsoleArgs(calldata);
  if (args === undefined) return undefined;
  // %d / %i preceded by an even number of % (an escaped %% is kept) read their argument as text.
  if (args.length > 0) args[0] = args[0]!.replace(/((?<!%)(?:%%)*)(%[di])/g, '$1%s');
  return format(...args);
}

/** What the hook needs of an EVM: stock @ethereumjs/evm's `events` emitter. */
export interface EvmWithEvents {
  readonly events: {
    on(event: 'beforeMessage', listener: (message: { to?: { bytes: Uint8Array } | undefined; data: Uint8Array }) => void): unknown;
    off(event: 'beforeMessage', listener: (message: { to?: { bytes: Uint8Array } | undefined; data: Uint8Array }) => void): unknown;
  };
}

/** Lines kept by one collector until taken (a transaction logging more is cut, with a count of what was dropped). */
export const MAX_LINES = 10_000;
export const MAX_CHARS = 1024 * 1024;

export interface ConsoleCollector {
  /** The lines collected since the last take (in call order), and resets. */
  take(): string[];
  /** Stops listening. */
  detach(): void;
}

/**
 * Listens to `evm`'s beforeMessage events and collects the console.log lines of the calls to the console
 * address (any depth, CALL or STATICCALL, including calls that later revert, as Hardhat prints them). The caller
 * takes the lines after each transaction or call and prints them under it.
 */
export function attachConsoleLog(evm: EvmWithEvents): ConsoleCollector {
  let lines: string[] = [];
  let chars = 0;
  let dropped = 0;
  const listener = (m: { to?: { bytes: Uint8Array } | undefined; data: Uint8Array }): void => {
    if (!isConsoleAddress(m.to?.bytes)) return;
    const line = formatConsoleLog(m.data);
    if (line === undefined) return;
    if (lines.length >= MAX_LINES || chars + line.length > MAX_CHARS) {
      dropped++;
      return;
    }
    lines.push(line);
    chars += line.length;
  };
  evm.events.on('beforeMessage', listener);
  return {
    take() {
      const out = lines;
      if (dropped > 0) out.push(`(${dropped} more console.log lines not shown)`);
      lines = [];
      chars = 0;
      dropped = 0;
      return out;
    },
    detach() {
      evm.events.off('beforeMessage', listener);
    },
  };
}
