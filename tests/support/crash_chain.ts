// The chain of the indexer crash test: the same blocks in every process.
import { SyntheticChain } from './synthetic_chain.js';

export const CRASH_CHAIN_BLOCKS = 120;

export async function crashTestChain(): Promise<SyntheticChain> {
  const c = new SyntheticChain();
  await c.prepareSigned(CRASH_CHAIN_BLOCKS / 10);
  for (let i = 0; i < CRASH_CHAIN_BLOCKS; i++) c.addBlock({ transfers: 3, erc20: 2, erc721: i % 7 === 0, malformedTransfer: i % 11 === 0, deployment: i % 13 === 0, signed: i % 10 === 0 });
  return c;
}
