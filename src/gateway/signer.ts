// The keys behind eth_accounts, eth_sendTransaction and the eth_sign* methods: a hook the devnet gives the gateway
// (src/devnet/accounts.ts). A gateway in front of a canister on the IC has none and holds no keys.

/** A transaction with every field filled in, ready to sign (the gateway fills what the caller left out). */
export interface UnsignedTx {
  readonly type: 'legacy' | 'eip2930' | 'eip1559';
  readonly chainId: bigint;
  readonly nonce: bigint;
  readonly gas: bigint;
  readonly to: `0x${string}` | undefined;
  readonly value: bigint;
  readonly data: `0x${string}`;
  /** legacy and eip2930 */
  readonly gasPrice?: bigint;
  /** eip1559 */
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
  readonly accessList?: readonly { readonly address: `0x${string}`; readonly storageKeys: readonly `0x${string}`[] }[];
}

export interface Signer {
  /** The unlocked addresses, lower-case 0x hex, in the order eth_accounts lists them. */
  accounts(): readonly `0x${string}`[];
  /** Whether `address` (lower-case 0x hex) is one of them. */
  has(address: `0x${string}`): boolean;
  /** The signed transaction's bytes (0x hex). */
  signTransaction(from: `0x${string}`, tx: UnsignedTx): Promise<`0x${string}`>;
  /** EIP-191 personal message signature (65 bytes, v = 27/28) over `message`'s bytes. */
  signMessage(from: `0x${string}`, message: Uint8Array): Promise<`0x${string}`>;
  /** EIP-712 signature of a typed-data object ({types, primaryType, domain, message}); throws on a malformed one. */
  signTypedData(from: `0x${string}`, typedData: Record<string, unknown>): Promise<`0x${string}`>;
}
