// web3.js v4 against `npm start`: reads, a value transfer, and an ERC-20 deployed, called and sent to, with
// web3's defaults except one. web3.js prices EIP-1559 transactions with a constant tip (its config's
// defaultMaxPriorityFeePerGas, 2.5 gwei) and never asks the node, so no gateway answer can steer it above the
// chain's minimum priority fee (250 gwei): its untouched default is refused with a message that names the
// minimum (asserted below), and the fix is web3's own setting, taken from eth_maxPriorityFeePerGas. Legacy
// transactions (type 0) are priced from eth_gasPrice and work as they are.
import { Web3, type Contract, type ContractAbi } from 'web3';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { CHAIN_ID, DEFAULT_MIN_PRIORITY_FEE } from '../../src/core/constants.js';
import { devAccounts } from '../../src/devnet/accounts.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { gatewayInternalErrors } from '../support/e2e.js';

const url = inject('devnetUrl');
const [, a1, a2] = devAccounts();
const token = compileFixture('Token.sol', 'Token');
const SUPPLY = 10n ** 24n;
const fresh = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

describe('web3.js v4', () => {
  let web3: Web3;

  beforeAll(() => {
    web3 = new Web3(url);
    web3.eth.accounts.wallet.add(a1!.privateKey);
    web3.eth.accounts.wallet.add(a2!.privateKey);
    // Receipt polling: web3's default is 1 s; blocks come every 2 s.
    web3.transactionPollingInterval = 200;
  });

  it('reads the chain id, balances, blocks and fees', async () => {
    expect(await web3.eth.getChainId()).toBe(CHAIN_ID);
    expect(await web3.eth.net.getId()).toBe(CHAIN_ID);
    expect(await web3.eth.getBalance(a2!.address)).toBeGreaterThan(0n);
    const block = await web3.eth.getBlock('latest');
    expect(block.baseFeePerGas).toBeGreaterThanOrEqual(250n * 10n ** 9n);
    expect(await web3.eth.getGasPrice()).toBeGreaterThanOrEqual(500n * 10n ** 9n);
    expect(await web3.eth.getMaxPriorityFeePerGas()).toBeGreaterThanOrEqual(DEFAULT_MIN_PRIORITY_FEE);
  });

  it('its untouched EIP-1559 default tip (2.5 gwei) is refused with the minimum named', async () => {
    expect(web3.defaultMaxPriorityFeePerGas).toBe('0x9502f900');
    const e = (await web3.eth.sendTransaction({ from: a1!.address, to: fresh(0xa1), value: 1n }).catch((x: unknown) => x)) as { message: string };
    expect(e.message).toContain('transaction underpriced: priority fee 2500000000 is below the minimum 250000000000');
  });

  it('sends a legacy transfer priced by eth_gasPrice', async () => {
    const r = await web3.eth.sendTransaction({ from: a1!.address, to: fresh(0xa2), value: 1234n, type: 0 });
    expect(r.status).toBe(1n);
    expect(r.type).toBe(0n);
    expect(await web3.eth.getBalance(fresh(0xa2))).toBe(1234n);
  });

  it('sends an EIP-1559 transfer once the tip comes from eth_maxPriorityFeePerGas', async () => {
    web3.defaultMaxPriorityFeePerGas = web3.utils.toHex(await web3.eth.getMaxPriorityFeePerGas());
    const r = await web3.eth.sendTransaction({ from: a1!.address, to: fresh(0xa3), value: 10n ** 18n });
    expect(r.status).toBe(1n);
    expect(r.type).toBe(2n);
    expect(r.gasUsed).toBe(21000n);
    expect(await web3.eth.getBalance(fresh(0xa3))).toBe(10n ** 18n);
    const tx = await web3.eth.getTransaction(r.transactionHash);
    expect(tx.blockNumber).toBe(r.blockNumber);
  });

  describe('a contract', () => {
    let contract: Contract<ContractAbi>;

    it('deploys the ERC-20', async () => {
      const c = new web3.eth.Contract(token.abi as ContractAbi);
      contract = (await c.deploy({ data: token.bytecode, arguments: ['Web3', 'W3', SUPPLY] } as never).send({ from: a2!.address })) as Contract<ContractAbi>;
      expect(contract.options.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(await web3.eth.getCode(contract.options.address!)).toBe(token.deployedBytecode);
    });

    it('calls it with defaults (eth_call)', async () => {
      expect(await (contract.methods as any).balanceOf(a2!.address).call()).toBe(SUPPLY);
      expect(await (contract.methods as any).symbol().call()).toBe('W3');
    });

    it('sends to it and reads the Transfer event', async () => {
      const r = await (contract.methods as any).transfer(fresh(0xa4), 99n).send({ from: a2!.address });
      expect(r.status).toBe(1n);
      expect(r.events.Transfer.returnValues.value).toBe(99n);
      expect(await (contract.methods as any).balanceOf(fresh(0xa4)).call()).toBe(99n);
      const events = await contract.getPastEvents('Transfer' as never, { fromBlock: 0 } as never);
      expect(events).toHaveLength(2);
    });

    it('decodes a custom error from a reverting call', async () => {
      const e = (await (contract.methods as any).transfer(a2!.address, 5n).call({ from: a1!.address }).catch((x: unknown) => x)) as {
        cause?: { errorName?: string; errorArgs?: Record<string, unknown> };
      };
      expect(e.cause?.errorName).toBe('InsufficientBalance');
      expect(e.cause?.errorArgs?.needed).toBe(5n);
    });
  });
});

describe('the shared devnet', () => {
  it('logged no internal gateway errors', () => {
    expect(gatewayInternalErrors(inject('devnetLog'))).toEqual([]);
  });
});
