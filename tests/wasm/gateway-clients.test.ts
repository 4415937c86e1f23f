// The gateway in front of the real canister wasm, driven by ethers v6 and viem with their defaults: chain id,
// balances, value transfers with library-chosen fees, a solc-compiled ERC-20 deployed and used, Transfer
// events through eth_getLogs, and reverts (reason string and custom error) decoded by each library.
import { Contract, ContractFactory, JsonRpcProvider, Wallet, type ContractTransactionResponse, type InterfaceAbi } from 'ethers';
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  parseEther,
  type Abi,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_ID, DEFAULT_MIN_GAS_PRICE, DEFAULT_MIN_PRIORITY_FEE } from '../../src/core/constants.js';
import { DEV_ACCOUNT_BALANCE } from '../../src/devnet/accounts.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { rpc, startGatewayHarness, type GatewayHarness } from '../support/gateway.js';

const token = compileFixture('Token.sol', 'Token');
const abi = token.abi as Abi;
const SUPPLY = 10n ** 24n;
let h: GatewayHarness;

beforeAll(async () => {
  h = await startGatewayHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('ethers v6', () => {
  let provider: JsonRpcProvider;
  let wallet: Wallet;
  let contract: Contract;

  beforeAll(() => {
    provider = new JsonRpcProvider(h.url, undefined, { pollingInterval: 100, cacheTimeout: -1 });
    wallet = new Wallet(h.accounts[0]!.privateKey, provider);
  });
  afterAll(() => provider?.destroy());

  it('detects the network and reads balances', async () => {
    expect((await provider.getNetwork()).chainId).toBe(CHAIN_ID);
    expect(await provider.getBalance(h.accounts[1]!.address)).toBe(DEV_ACCOUNT_BALANCE);
    const fees = await provider.getFeeData();
    expect(fees.gasPrice).toBeGreaterThanOrEqual(DEFAULT_MIN_GAS_PRICE);
    expect(fees.maxPriorityFeePerGas).toBeGreaterThanOrEqual(DEFAULT_MIN_PRIORITY_FEE);
  });

  it('sends a value transfer with default fees and waits for its receipt', async () => {
    const to = Wallet.createRandom().address;
    const tx = await wallet.sendTransaction({ to, value: 12345n });
    expect(tx.type).toBe(2);
    const receipt = await tx.wait();
    expect(receipt?.status).toBe(1);
    expect(receipt?.hash).toBe(tx.hash);
    expect(await provider.getBalance(to)).toBe(12345n);
    const again = await provider.getTransaction(tx.hash);
    expect(again?.blockNumber).toBe(receipt?.blockNumber);
    const block = await provider.getBlock(receipt!.blockNumber, true);
    expect(block?.prefetchedTransactions.map((t) => t.hash)).toContain(tx.hash);
    expect(block?.baseFeePerGas).toBeGreaterThanOrEqual(DEFAULT_MIN_GAS_PRICE);
  });

  it('sends a legacy transaction priced by eth_gasPrice', async () => {
    const tx = await wallet.sendTransaction({ to: h.accounts[2]!.address, value: 1n, type: 0 });
    expect((await tx.wait())?.status).toBe(1);
  });

  it('deploys the ERC-20, transfers and reads Transfer events', async () => {
    const factory = new ContractFactory(token.abi as InterfaceAbi, token.bytecode, wallet);
    const deployed = await factory.deploy('Token', 'TOK', SUPPLY);
    await deployed.waitForDeployment();
    contract = deployed as unknown as Contract;
    const address = await contract.getAddress();
    expect(await provider.getCode(address)).toBe(token.deployedBytecode);
    expect(await contract.balanceOf!(wallet.address)).toBe(SUPPLY);

    const to = h.accounts[3]!.address;
    const tx = (await contract.transfer!(to, 1000n)) as ContractTransactionResponse;
    const receipt = await tx.wait();
    expect(receipt?.status).toBe(1);
    expect(await contract.balanceOf!(to)).toBe(1000n);

    const events = await contract.queryFilter(contract.filters.Transfer!(), 0, 'latest');
    expect(events.map((e) => ('args' in e ? [e.args[0], e.args[1], e.args[2]] : null))).toEqual([
      ['0x0000000000000000000000000000000000000000', wallet.address, SUPPLY],
      [wallet.address, to, 1000n],
    ]);
  });

  it('decodes a revert reason string and a custom error', async () => {
    const other = contract.connect(new Wallet(h.accounts[4]!.privateKey, provider)) as Contract;
    // transferFrom without an allowance: require(..., "allowance exceeded")
    const e1 = await other.transferFrom!.staticCall(wallet.address, h.accounts[4]!.address, 1n).catch((e: unknown) => e);
    expect(e1).toMatchObject({ code: 'CALL_EXCEPTION', reason: 'allowance exceeded' });
    // transfer above the balance: InsufficientBalance(account, balance, needed)
    const e2 = (await other.transfer!.staticCall(wallet.address, 5n).catch((e: unknown) => e)) as { code: string; revert: { name: string; args: unknown[] } };
    expect(e2.code).toBe('CALL_EXCEPTION');
    expect(e2.revert.name).toBe('InsufficientBalance');
    expect([...e2.revert.args]).toEqual([h.accounts[4]!.address, 0n, 5n]);
    // Sending it fails at gas estimation (ethers' signer estimates without the ABI): the revert data is on the
    // error and the contract's interface decodes it.
    const e3 = (await other.transfer!(wallet.address, 5n).catch((e: unknown) => e)) as { code: string; data: string };
    expect(e3.code).toBe('CALL_EXCEPTION');
    expect(contract.interface.parseError(e3.data)?.name).toBe('InsufficientBalance');
  });
});

describe('viem', () => {
  const chain = defineChain({
    id: Number(CHAIN_ID),
    name: 'icp-evm',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: ['http://127.0.0.1:8545'] } },
  });
  let pub: ReturnType<typeof createPublicClient>;
  let wallet: ReturnType<typeof createWalletClient>;
  let tokenAddress: Hex;

  beforeAll(() => {
    pub = createPublicClient({ chain, transport: http(h.url), pollingInterval: 100 });
    wallet = createWalletClient({ chain, transport: http(h.url), account: privateKeyToAccount(h.accounts[5]!.privateKey) });
  });

  it('reads the chain id, balances and fees', async () => {
    expect(await pub.getChainId()).toBe(Number(CHAIN_ID));
    expect(await pub.getBalance({ address: h.accounts[6]!.address })).toBe(DEV_ACCOUNT_BALANCE);
    const fees = await pub.estimateFeesPerGas();
    expect(fees.maxPriorityFeePerGas).toBeGreaterThanOrEqual(DEFAULT_MIN_PRIORITY_FEE);
    expect(fees.maxFeePerGas).toBeGreaterThanOrEqual(DEFAULT_MIN_GAS_PRICE);
    const history = await pub.getFeeHistory({ blockCount: 4, rewardPercentiles: [25, 75] });
    expect(history.baseFeePerGas.length).toBeGreaterThan(0);
  });

  it('sends a value transfer with default fees and waits for the receipt', async () => {
    const to = privateKeyToAccount(`0x${'11'.repeat(32)}`).address;
    const hash = await wallet.sendTransaction({ to, value: parseEther('1.5'), account: wallet.account!, chain });
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    expect(receipt.status).toBe('success');
    expect(receipt.contractAddress).toBeNull();
    expect(await pub.getBalance({ address: to })).toBe(parseEther('1.5'));
    const tx = await pub.getTransaction({ hash });
    expect(tx.type).toBe('eip1559');
    const block = await pub.getBlock({ blockNumber: receipt.blockNumber, includeTransactions: true });
    expect(block.transactions.map((t) => t.hash)).toContain(hash);
  });

  it('deploys the ERC-20, transfers and reads events with getLogs', async () => {
    const hash = await wallet.deployContract({ abi, bytecode: token.bytecode, args: ['Token', 'TOK', SUPPLY], account: wallet.account!, chain });
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    expect(receipt.status).toBe('success');
    tokenAddress = receipt.contractAddress!;
    const to = h.accounts[7]!.address;
    const { request } = await pub.simulateContract({ address: tokenAddress, abi, functionName: 'transfer', args: [to, 77n], account: wallet.account! });
    const th = await wallet.writeContract(request);
    expect((await pub.waitForTransactionReceipt({ hash: th, pollingInterval: 100 })).status).toBe('success');
    expect(await pub.readContract({ address: tokenAddress, abi, functionName: 'balanceOf', args: [to] })).toBe(77n);
    const events = await pub.getContractEvents({ address: tokenAddress, abi, eventName: 'Transfer', fromBlock: 0n });
    expect(events.map((e) => e.args)).toEqual([
      { from: '0x0000000000000000000000000000000000000000', to: wallet.account!.address, value: SUPPLY },
      { from: wallet.account!.address, to, value: 77n },
    ]);
    expect(events.every((e) => e.removed === false)).toBe(true);
  });

  it('decodes a revert reason string and a custom error', async () => {
    const account = privateKeyToAccount(h.accounts[8]!.privateKey);
    const reason = await pub
      .simulateContract({ address: tokenAddress, abi, functionName: 'transferFrom', args: [h.accounts[5]!.address, account.address, 1n], account })
      .catch((e: unknown) => e);
    const r1 = (reason as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError;
    expect(r1).toBeInstanceOf(ContractFunctionRevertedError);
    expect(r1.reason).toBe('allowance exceeded');
    const custom = await pub
      .readContract({ address: tokenAddress, abi, functionName: 'transfer', args: [h.accounts[5]!.address, 9n], account })
      .catch((e: unknown) => e);
    const r2 = (custom as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError;
    expect(r2.data?.errorName).toBe('InsufficientBalance');
    expect(r2.data?.args).toEqual([account.address, 0n, 9n]);
  });

  it('answers SPEC’s rules from the real canister: block tags, callObject keys, missing blocks', async () => {
    const a = h.accounts[0]!.address;
    const head = BigInt((await rpc(h.url, 'eth_blockNumber')).result as string);
    expect(head).toBeGreaterThan(1n);
    expect((await rpc(h.url, 'eth_getBalance', [a, `0x${head.toString(16)}`])).result).toMatch(/^0x[0-9a-f]+$/);
    expect((await rpc(h.url, 'eth_getBalance', [a, '0x1'])).error).toMatchObject({ code: -32000, message: expect.stringMatching(/^state unavailable/) });
    expect((await rpc(h.url, 'eth_getBalance', [a, `0x${(head + 5n).toString(16)}`])).error).toMatchObject({ code: -32001 });
    expect((await rpc(h.url, 'eth_getBlockByNumber', [`0x${(head + 5n).toString(16)}`, false])).result).toBeNull();
    expect((await rpc(h.url, 'eth_call', [{ to: a, data: '0x', blobVersionedHashes: [] }])).error).toMatchObject({ code: -32602 });
    expect((await rpc(h.url, 'eth_call', [{ to: a, type: '0x1' }])).error).toMatchObject({ code: -32602 });
    // Filters as geth's: an address list is taken; a fifth topic position is refused, naming the limit.
    expect((await rpc(h.url, 'eth_getLogs', [{ address: [a, h.accounts[1]!.address] }])).result).toEqual(expect.any(Array));
    expect((await rpc(h.url, 'eth_getLogs', [{ topics: [null, null, null, null, null] }])).error).toMatchObject({ code: -32602, message: expect.stringMatching(/at most 4 positions/) });
    expect((await rpc(h.url, 'eth_getBlockByHash', [`0x${'00'.repeat(32)}`, false])).result).toBeNull();
    const latest = (await rpc(h.url, 'eth_getBlockByNumber', ['latest', true])).result as { hash: string };
    expect((await rpc(h.url, 'eth_getBlockByHash', [latest.hash, true])).result).toEqual(latest);
    expect((await rpc(h.url, 'eth_pendingTransactions', [])).error).toMatchObject({ code: -32601 });
    expect((await rpc(h.url, 'eth_sendRawTransaction', ['0x03'])).error?.code).toBe(-32602);
  });

  it('left no internal errors in the gateway log', () => {
    expect(h.internalLog).toEqual([]);
  });
});
