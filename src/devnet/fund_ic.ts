// `--fund-ic PRINCIPAL`: an IC identity (icp-cli, dfx, an agent) calls submit_ic_tx as itself, and the
// canister derives its Ethereum sender from the caller (src/core/tx/ic_synthetic.ts). A fresh identity's
// sender holds nothing, so the devnet funds it on request from the last development account, once: only
// while that sender's balance is zero, so restarts with the same option do not pay again.
import { Principal } from '@icp-sdk/core/principal';
import { keccak256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { CHAIN_ID } from '../core/constants.js';
import { deriveSyntheticSender } from '../core/tx/ic_synthetic.js';
import type { HostClient } from '../client/host.js';
import type { CandidResult } from '../client/schema.js';
import { toPrefixedHex } from '../gateway/hex.js';
import type { DevAccount } from './accounts.js';

/** What a funded IC identity gets: 100 ETH. */
export const IC_FUNDING = 100n * 10n ** 18n;

const ok = <T>(r: CandidResult<T>, what: string): T => {
  if ('Err' in r) throw new Error(`${what}: ${r.Err.code}: ${r.Err.message}`);
  return r.Ok;
};

/** Parses a principal given on the command line; throws with a message naming the option. */
export function parseFundPrincipal(text: string): Principal {
  try {
    return Principal.fromText(text);
  } catch {
    throw new Error(`--fund-ic: not a principal: ${JSON.stringify(text)} (use the output of \`icp identity principal\`)`);
  }
}

export interface Funding {
  readonly principal: string;
  /** The Ethereum sender the canister derives for this principal's submit_ic_tx. */
  readonly sender: `0x${string}`;
  /** The funding transfer's hash, or undefined when the sender already had a balance. */
  readonly txHash: `0x${string}` | undefined;
}

export async function fundIcPrincipals(evm: HostClient, from: DevAccount, principals: readonly Principal[]): Promise<Funding[]> {
  const account = privateKeyToAccount(from.privateKey);
  const fromBytes = Buffer.from(from.address.slice(2), 'hex');
  const out: Funding[] = [];
  for (const p of principals) {
    const d = deriveSyntheticSender(p.toUint8Array(), evm.host.canisterId.toUint8Array());
    if (!d.ok) throw new Error(`--fund-ic ${p.toText()}: ${d.error.message}`);
    const sender = toPrefixedHex(d.value);
    const balance = ok(evm.querySync('rpc_eth_get_balance', [d.value, { Pending: null }]), 'balance');
    if (balance > 0n) {
      out.push({ principal: p.toText(), sender, txHash: undefined });
      continue;
    }
    const nonce = ok(evm.querySync('expected_nonce_by_address', [fromBytes]), 'nonce');
    const gasPrice = ok(evm.querySync('rpc_eth_gas_price', []), 'gas price');
    const tip = ok(evm.querySync('rpc_eth_max_priority_fee_per_gas', []), 'priority fee');
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId: Number(CHAIN_ID),
      nonce: Number(nonce),
      to: sender,
      value: IC_FUNDING,
      gas: 21_000n,
      maxFeePerGas: gasPrice * 2n + tip,
      maxPriorityFeePerGas: tip,
    });
    const r = await evm.update('rpc_eth_send_raw_transaction', [Buffer.from(raw.slice(2), 'hex')]);
    ok(r, `funding ${p.toText()}`);
    out.push({ principal: p.toText(), sender, txHash: keccak256(raw) });
  }
  return out;
}
