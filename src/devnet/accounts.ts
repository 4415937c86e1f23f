// The development accounts every Ethereum devnet prints (anvil, Hardhat): the first ten keys of the
// well-known mnemonic, so tutorials and scripts that hard-code them work unchanged. Never use on a real network.
import { mnemonicToAccount, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Signer } from '../gateway/signer.js';

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

/**
 * The development accounts as the gateway's signer (eth_accounts, eth_sendTransaction, eth_sign*): the keys stay
 * here, in the devnet; the gateway only asks for signatures.
 */
export function devSigner(accounts: readonly DevAccount[]): Signer {
  const keyed = new Map(accounts.map((a) => [a.address.toLowerCase() as `0x${string}`, privateKeyToAccount(a.privateKey)]));
  const list = [...keyed.keys()];
  const get = (from: `0x${string}`): PrivateKeyAccount => {
    const a = keyed.get(from);
    if (a === undefined) throw new Error(`no key for ${from}`);
    return a;
  };
  return {
    accounts: () => list,
    has: (address) => keyed.has(address),
    async signTransaction(from, tx) {
      const common = { chainId: Number(tx.chainId), nonce: Number(tx.nonce), gas: tx.gas, to: tx.to ?? null, value: tx.value, data: tx.data };
      const accessList = tx.accessList?.map((i) => ({ address: i.address, storageKeys: [...i.storageKeys] }));
      if (tx.type === 'eip1559') return get(from).signTransaction({ ...common, type: 'eip1559', maxFeePerGas: tx.maxFeePerGas!, maxPriorityFeePerGas: tx.maxPriorityFeePerGas!, accessList: accessList ?? [] });
      if (tx.type === 'eip2930') return get(from).signTransaction({ ...common, type: 'eip2930', gasPrice: tx.gasPrice!, accessList: accessList ?? [] });
      return get(from).signTransaction({ ...common, type: 'legacy', gasPrice: tx.gasPrice! });
    },
    signMessage: (from, message) => get(from).signMessage({ message: { raw: message } }),
    signTypedData: (from, typed) => get(from).signTypedData(typed as unknown as Parameters<PrivateKeyAccount['signTypedData']>[0]),
  };
}
