import { positional } from '../params.js';
import { devnetAccounts } from './signing.js';
import type { MethodSpec } from './types.js';

export const eth_accounts: MethodSpec = {
  name: 'eth_accounts',
  canister: [],
  blockTags: '-',
  limits: '-',
  differences:
    "In front of a canister on the IC: always `[]`, the gateway holds no keys (not in SPEC's table; answered because Hardhat and web3.js call it): sign locally and use eth_sendRawTransaction. On the devnet (`npm start`): its ten development accounts, lower-case, in anvil's order, then the impersonated addresses (as anvil lists them).",
  async handler(params, ctx) {
    positional(params, 'eth_accounts', 0, 0);
    return ctx.signer === undefined ? [] : devnetAccounts(ctx.signer, ctx.dev);
  },
};
