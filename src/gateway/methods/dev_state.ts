// State-changing development methods and impersonation, both prefixes: setBalance, setCode, setNonce,
// setStorageAt, impersonateAccount, stopImpersonatingAccount, autoImpersonateAccount, dropTransaction,
// setNextBlockBaseFeePerGas, setCoinbase, setMinGasPrice. The devnet applies them through the controller-only
// dev_* canister methods (exported as a state change in the next block); the answers are anvil's for anvil_*
// (mostly null) and Hardhat's for hardhat_* (true), errors as each gives them.
import { invalidParams, RpcCode, RpcError } from '../errors.js';
import { toPrefixedHex, parseData } from '../hex.js';
import { address, bool, data, hash32, positional, MAX_U64 } from '../params.js';
import { devMethod, type DevControl } from './dev.js';
import { anvilNumber, MAX_U256, word } from './dev_params.js';
import type { MethodSpec } from './types.js';

type Prefix = 'anvil' | 'hardhat';
const answer = (p: Prefix): null | true => (p === 'anvil' ? null : true);
const answers = (p: Prefix): string => (p === 'anvil' ? 'null' : 'true');
const APPLIED = 'Applied at once to the head state (reads at `latest` see it), and exported as a state change at the start of the next block.';

/** Both names of one cheat: `anvil_<suffix>` answering as anvil, `hardhat_<suffix>` as Hardhat. */
function pair(suffix: string, anvilRef: string, text: (p: Prefix) => string, handler: (params: unknown, d: DevControl, name: string, p: Prefix) => Promise<unknown>): MethodSpec[] {
  return (['anvil', 'hardhat'] as const).map((p) => {
    const name = `${p}_${suffix}`;
    return devMethod(name, p === 'anvil' ? `anvil \`${anvilRef}\`` : `Hardhat \`${name}\``, text(p), (params, d) => handler(params, d, name, p));
  });
}

const lower = (a: Uint8Array): `0x${string}` => toPrefixedHex(a) as `0x${string}`;

/** The storage value: exactly 32 bytes (anvil: -32602 `invalid string length`; Hardhat: -32000 with its message). */
function storageValue(v: unknown, p: Prefix): Uint8Array {
  const d = parseData(v);
  if (d !== undefined && d.length === 32) return d;
  if (p === 'anvil' || d === undefined) throw invalidParams('value: invalid string length (expected 32 bytes: 0x + 64 hex digits)');
  throw new RpcError(RpcCode.Server, `Storage value must be exactly 32 bytes long. Received ${v as string}, which is ${d.length} bytes long.`);
}

export const STATE_METHODS: readonly MethodSpec[] = [
  ...pair('setBalance', 'anvil_set_balance', (p) => `Params \`[address, balance]\`. ${APPLIED} Returns ${answers(p)}.`, async (params, d, name, p) => {
    const [a, v] = positional(params, name, 2, 2);
    await d.setAccount({ address: address(a), balance: anvilNumber(v, 'balance') });
    return answer(p);
  }),
  ...pair('setCode', 'anvil_set_code', (p) => `Params \`[address, code]\` (the runtime code; \`0x\` removes it). ${APPLIED} Returns ${answers(p)}.`, async (params, d, name, p) => {
    const [a, c] = positional(params, name, 2, 2);
    await d.setAccount({ address: address(a), code: data(c, 'code') });
    return answer(p);
  }),
  ...pair('setNonce', 'anvil_set_nonce', (p) => `Params \`[address, nonce]\` (at most 2^64 - 1). ${APPLIED} Returns ${answers(p)}.`, async (params, d, name, p) => {
    const [a, n] = positional(params, name, 2, 2);
    await d.setAccount({ address: address(a), nonce: anvilNumber(n, 'nonce', MAX_U64) });
    return answer(p);
  }),
  ...pair(
    'setStorageAt',
    'anvil_set_storage_at',
    (p) =>
      `Params \`[address, slot, value]\`: the slot a number (or a 32-byte word), the value exactly 32 bytes (${p === 'anvil' ? '-32602 otherwise' : "-32000 with Hardhat's message otherwise"}). ${APPLIED} Returns true.`,
    async (params, d, name, p) => {
      const [a, s, v] = positional(params, name, 3, 3);
      const addr = address(a);
      let slot: bigint;
      try {
        slot = anvilNumber(s, 'slot', MAX_U256);
      } catch (e) {
        if (p === 'hardhat' && typeof s === 'string' && /^0x[0-9a-fA-F]{65,}$/.test(s)) throw new RpcError(RpcCode.Server, `Storage key must not be greater than or equal to 2^256. Received ${s}.`);
        throw e;
      }
      await d.setAccount({ address: addr, storage: [{ slot: word(slot), value: storageValue(v, p) }] });
      return true;
    },
  ),
  ...pair(
    'impersonateAccount',
    'anvil_impersonate_account',
    (p) => `Params \`[address]\`: \`eth_sendTransaction\` from it is accepted without a key (the controller-only \`dev_submit_impersonated\`: same pool and execution as any transaction, an ordinary receipt from that address); it is listed by \`eth_accounts\`. Returns ${answers(p)}.`,
    async (params, d, name, p) => {
      const [a] = positional(params, name, 1, 1);
      d.impersonate(lower(address(a)));
      return answer(p);
    },
  ),
  ...pair(
    'stopImpersonatingAccount',
    'anvil_stop_impersonating_account',
    (p) => `Params \`[address]\`. Returns ${p === 'anvil' ? 'null' : 'true when it was impersonated, false otherwise (Hardhat)'}.`,
    async (params, d, name, p) => {
      const [a] = positional(params, name, 1, 1);
      const was = d.stopImpersonating(lower(address(a)));
      return p === 'anvil' ? null : was;
    },
  ),
  ...pair('autoImpersonateAccount', 'anvil_auto_impersonate_account', () => 'Params `[bool]`: true makes every address impersonated (a `from` without a key is sent unsigned). Returns null.', async (params, d, name) => {
    const [on] = positional(params, name, 1, 1);
    d.autoImpersonate(bool(on, 'enabled'));
    return null;
  }),
  ...pair(
    'dropTransaction',
    'anvil_drop_transaction',
    (p) => `Params \`[hash]\`: removes the pending transaction from the pool (the controller-only \`dev_drop_transaction\`). Returns ${p === 'anvil' ? 'its hash, or null when no pending transaction has it (anvil)' : 'true when one was dropped, false otherwise (Hardhat)'}.`,
    async (params, d, name, p) => {
      const [h] = positional(params, name, 1, 1);
      const hash = hash32(h, 'hash');
      const dropped = await d.dropTransaction(hash);
      return p === 'hardhat' ? dropped : dropped ? toPrefixedHex(hash) : null;
    },
  ),
  ...pair(
    'setNextBlockBaseFeePerGas',
    'anvil_set_next_block_base_fee_per_gas',
    (p) => `Params \`[baseFee]\`: the next block's base fee, once (the controller-only \`dev_set_next_block_base_fee\`); the blocks after it follow EIP-1559 from there. Returns ${answers(p)}.`,
    async (params, d, name, p) => {
      const [f] = positional(params, name, 1, 1);
      await d.setNextBlockBaseFee(anvilNumber(f, 'baseFee'));
      return answer(p);
    },
  ),
  ...pair('setCoinbase', 'anvil_set_coinbase', (p) => `Params \`[address]\`: the miner (fee recipient, COINBASE) of the following blocks (the controller-only \`dev_set_coinbase\`). Returns ${answers(p)}.`, async (params, d, name, p) => {
    const [a] = positional(params, name, 1, 1);
    await d.setCoinbase(address(a));
    return answer(p);
  }),
  ...pair(
    'setMinGasPrice',
    'anvil_set_min_gas_price',
    (p) => `Params \`[gasPrice]\`. The chain is always EIP-1559, so this is refused as ${p === 'anvil' ? 'anvil refuses it: -32602' : 'Hardhat refuses it: -32000'} \`${p}_setMinGasPrice is not supported when EIP-1559 is active\`.`,
    async (params, _d, name, p) => {
      const [g] = positional(params, name, 1, 1);
      anvilNumber(g, 'gasPrice');
      throw new RpcError(p === 'anvil' ? RpcCode.InvalidParams : RpcCode.Server, `${name} is not supported when EIP-1559 is active`);
    },
  ),
];
