// The devnet's predeployed contracts are byte-identical to mainnet's: each runtime code hashes to the code hash
// published for the mainnet account (the CREATE2 deployer's 69 bytes, Multicall3's 3808).
import { keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { CREATE2_DEPLOYER, MULTICALL3, PREDEPLOYS } from '../../src/devnet/predeploys.js';

describe('devnet predeploys', () => {
  it('have the canonical runtime code at the canonical addresses', () => {
    expect(CREATE2_DEPLOYER.address).toBe('0x4e59b44847b379578588920ca78fbf26c0b4956c');
    expect(MULTICALL3.address).toBe('0xca11bde05977b3631167028862be2a173976ca11');
    expect(CREATE2_DEPLOYER.codeHash).toBe('0x2fa86add0aed31f33a762c9d88e807c475bd51d0f52bd0955754b2608f7e4989');
    expect(MULTICALL3.codeHash).toBe('0xd5c15df687b16f2ff992fc8d767b4216323184a2bbc6ee2f9c398c318e770891');
    expect((CREATE2_DEPLOYER.code.length - 2) / 2).toBe(69);
    expect((MULTICALL3.code.length - 2) / 2).toBe(3808);
    for (const p of PREDEPLOYS) expect(keccak256(p.code), p.name).toBe(p.codeHash);
  });
});
