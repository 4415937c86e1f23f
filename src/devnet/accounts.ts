// The development accounts every Ethereum devnet prints (anvil, Hardhat): the first ten keys of the
// well-known mnemonic, so tutorials and scripts that hard-code them work unchanged. Never use on a real network.
import { mnemonicToAccount } from 'viem/accounts';

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
export const DEV_ACCOUNT_COUNT = 10;
/** 10,000 ETH each, as anvil and Hardhat fund them. */
export const DEV_ACCOUNT_BALANCE = 10_000n * 10n ** 18n;

export interface DevAccount {
  readonly address: `0x${string}`;
  readonly privateKey: `0x${string}`;
}

export function devAccounts(count = DEV_ACCOUNT_COUNT): DevAccount[] {
  return Array.from({ length: count }, (_, i) => {
    const a = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i });
    const key = a.getHdKey().privateKey;
    if (key === null) throw new Error('mnemonic derivation gave no private key');
    return { address: a.address, privateKey: `0x${Buffer.from(key).toString('hex')}` };
  });
}
