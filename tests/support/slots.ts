// Addresses and storage slots the differential tests compute on their own side (to ask both nodes for them).
import { getContractAddress, keccak256, type Hex } from 'viem';

/** A 32-byte word as 64 hex digits, unprefixed. */
export const word = (v: bigint | number): string => BigInt(v).toString(16).padStart(64, '0');

/** The storage slot of `key` (an address or a 32-byte key) in the Solidity mapping at `slot`. */
export const mappingSlot = (key: Hex, slot: bigint): Hex => keccak256(`0x${key.slice(2).toLowerCase().padStart(64, '0')}${word(slot)}`);

/** The address of the contract `from` creates (CREATE) with `nonce`, lower case. */
export const createdAddress = (from: Hex, nonce: number): Hex => getContractAddress({ from, nonce: BigInt(nonce) }).toLowerCase() as Hex;
