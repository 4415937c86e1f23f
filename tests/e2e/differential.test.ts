// Differential run: the same signed transactions on the devnet (`npm start`: the canister wasm behind the
// gateway) and on anvil (@foundry-rs/anvil-linux-amd64, --chain-id 4801360 --hardfork prague, base fee 250 gwei, on
// 127.0.0.1, killed at the end). Every transaction is signed once here (chain id 4801360, an explicit gas
// limit; mostly legacy EIP-155 at a fixed 1000 gwei, plus an EIP-2930 one at that price and two EIP-1559 ones
// with max fee 1000 gwei and a 250 gwei tip), so both chains receive the same bytes and must give the same
// hashes. At a fixed price the sender pays exactly gas used x price on both, whatever each base fee does; an
// EIP-1559 fee depends on each chain's base fee, so balances are compared with each chain's fees (gas used x
// effective price, from its receipts) added back, and type-2 receipts without their effective price.
//
// Ordering: phase 1 is one sender's transactions, nonces 0..n (submitted at once to the devnet, which mines them
// into one or a few blocks in nonce order; anvil mines each into its own block); phase 2 is a second sender's
// transactions that depend on phase 1 (an allowance), sent once phase 1 is mined. No contract reads the block,
// so the grouping into blocks cannot change any result: receipts (status, gas used, logs, contract address,
// effective gas price) and the end state (balances, nonces, code, storage of every slot written) must match
// exactly.
import { encodeDeployData, encodeFunctionData, keccak256, toHex, type Abi, type Hex } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CHAIN_ID } from '../../src/core/constants.js';
import { devAccounts } from '../../src/devnet/accounts.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { gatewayInternalErrors, rpc, startAnvil, waitForReceipt, type Anvil } from '../support/e2e.js';
import { createdAddress, mappingSlot, word } from '../support/slots.js';

const ours = inject('devnetUrl');
let anvil: Anvil;
const accounts = devAccounts();
const A = privateKeyToAccount(accounts[7]!.privateKey);
const B = privateKeyToAccount(accounts[8]!.privateKey);
const C = '0x000000000000000000000000000000000000c0c0' as Hex;
const X = '0x000000000000000000000000000000000000f00d' as Hex;
const GAS_PRICE = 1000n * 10n ** 9n;
const TIP = 250n * 10n ** 9n;
const ETH = 10n ** 18n;

const token = compileFixture('Token.sol', 'Token');
const contract = (name: string) => compileFixture('../../e2e/contracts/Differential.sol', name);
const probeC = contract('Probe');
const storeC = contract('Store');
const factoryC = contract('Factory');
const reverterC = contract('Reverter');

const nestedSlot = (k1: Hex, k2: Hex, slot: bigint): Hex => keccak256(`0x${k2.slice(2).toLowerCase().padStart(64, '0')}${mappingSlot(k1, slot).slice(2)}`);

interface Step {
  readonly label: string;
  /** Default legacy (EIP-155) at GAS_PRICE; EIP-2930 at GAS_PRICE; EIP-1559 with max fee GAS_PRICE and a 250 gwei tip. */
  readonly kind?: 'eip2930' | 'eip1559';
  readonly accessList?: { address: Hex; storageKeys: Hex[] }[];
  readonly to?: Hex;
  readonly data?: Hex;
  readonly value?: bigint;
  readonly gas: bigint;
}

/** Precompile inputs with known answers (and two malformed ones, which fail inside the call). */
async function precompileSteps(probe: Hex): Promise<Step[]> {
  const hash = keccak256(toHex('differential'));
  const sig = await sign({ hash, privateKey: accounts[9]!.privateKey });
  const ecrecover = `0x${hash.slice(2)}${word(sig.v!)}${sig.r.slice(2)}${sig.s.slice(2)}` as Hex;
  const text = toHex('hello world, hello world, hello world');
  const identity = toHex(Uint8Array.from({ length: 1024 }, (_, i) => (i * 7) & 0xff));
  // 3^(p-2) mod p for secp256k1's p (an inverse by Fermat), EIP-198's layout.
  const p = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
  const modexp = `0x${word(1)}${word(32)}${word(32)}03${word(p - 2n)}${word(p)}` as Hex;
  const bnAdd = `0x${word(1)}${word(2)}${word(1)}${word(2)}` as Hex;
  const bnMul = `0x${word(1)}${word(2)}${word(7)}` as Hex;
  const bnBad = `0x${word(1)}${word(3)}${word(1)}${word(2)}` as Hex;
  // EIP-152 test vector 5 (12 rounds of "abc").
  const blake =
    '0x0000000c48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b' +
    '616263' + '00'.repeat(125) + '03' + '00'.repeat(15) + '01';
  const blsG1AddInfinity = `0x${'00'.repeat(256)}` as Hex;
  const call = (label: string, target: number, input: Hex, gas = 300_000n): Step => ({
    label: `precompile ${label}`,
    to: probe,
    data: encodeFunctionData({ abi: probeC.abi as Abi, functionName: 'probe', args: [`0x${target.toString(16).padStart(40, '0')}`, input, 200_000n] }),
    gas,
  });
  return [
    call('ecrecover', 1, ecrecover),
    call('sha256', 2, text),
    call('ripemd160', 3, text),
    call('identity 1 KiB', 4, identity),
    call('modexp', 5, modexp),
    call('bn254 add', 6, bnAdd),
    call('bn254 mul', 7, bnMul),
    call('bn254 add, point not on the curve', 6, bnBad),
    call('blake2f', 9, blake as Hex),
    call('blake2f, wrong length', 9, blake.slice(0, -2) as Hex),
    call('bls12-381 g1 add', 0x0b, blsG1AddInfinity),
  ];
}

interface Addresses {
  readonly token: Hex;
  readonly store: Hex;
  readonly probe: Hex;
  readonly factory: Hex;
  readonly reverter: Hex;
}

function phases(): { one: Step[]; two: Step[]; addresses: Addresses } {
  const addresses: Addresses = {
    token: createdAddress(A.address, 0),
    store: createdAddress(A.address, 1),
    probe: createdAddress(A.address, 2),
    factory: createdAddress(A.address, 3),
    reverter: createdAddress(A.address, 4),
  };
  const tokenAbi = token.abi as Abi;
  const storeAbi = storeC.abi as Abi;
  const t = (functionName: string, args: unknown[]) => encodeFunctionData({ abi: tokenAbi, functionName, args });
  const s = (functionName: string, args: unknown[]) => encodeFunctionData({ abi: storeAbi, functionName, args });
  const one: Step[] = [
    { label: 'deploy Token', data: encodeDeployData({ abi: tokenAbi, bytecode: token.bytecode, args: ['Diff', 'DIF', 10n ** 24n] }), gas: 2_000_000n },
    { label: 'deploy Store', data: storeC.bytecode, gas: 2_000_000n },
    { label: 'deploy Probe', data: probeC.bytecode, gas: 2_000_000n },
    { label: 'deploy Factory', data: factoryC.bytecode, gas: 2_000_000n },
    { label: 'deploy Reverter (fails in its constructor)', data: encodeDeployData({ abi: reverterC.abi as Abi, bytecode: reverterC.bytecode, args: [true] }), gas: 500_000n },
    { label: 'ERC-20 transfer A -> B', to: addresses.token, data: t('transfer', [B.address, 1000n]), gas: 200_000n },
    { label: 'ERC-20 approve B', to: addresses.token, data: t('approve', [B.address, 500n]), gas: 200_000n },
    { label: 'ERC-20 transfer above the balance (reverts)', to: addresses.token, data: t('transfer', [B.address, 10n ** 30n]), gas: 200_000n },
    { label: 'Store: 40 fresh slots', to: addresses.store, data: s('fill', [0n, 40n, 7n]), gas: 2_000_000n },
    { label: 'Store: 20 overwrites', to: addresses.store, data: s('fill', [10n, 20n, 8n]), gas: 1_000_000n },
    { label: 'Store: 15 clears (refunds)', to: addresses.store, data: s('clear', [0n, 15n]), gas: 500_000n },
    { label: 'Store: transient storage', to: addresses.store, data: s('transientRoundTrip', [41n]), gas: 200_000n },
    { label: 'Factory: CREATE2 of a Store', to: addresses.factory, data: encodeFunctionData({ abi: factoryC.abi as Abi, functionName: 'make', args: [keccak256(toHex('salt'))] }), gas: 1_000_000n },
    { label: 'value transfer to a new account', to: X, value: 2n * ETH, gas: 21_000n },
    { label: 'value transfer with data to an account', to: X, value: 1n, data: '0xdeadbeef', gas: 30_000n },
    { label: 'value transfer to a contract without receive (reverts)', to: addresses.token, value: 1n, gas: 100_000n },
  ];
  const two: Step[] = [
    { label: 'ERC-20 transferFrom A -> C by B', to: addresses.token, data: t('transferFrom', [A.address, C, 300n]), gas: 200_000n },
    { label: 'ERC-20 transfer B -> C', to: addresses.token, data: t('transfer', [C, 100n]), gas: 200_000n },
    { label: 'ERC-20 transferFrom above the allowance (reverts with a reason)', to: addresses.token, data: t('transferFrom', [A.address, C, 201n]), gas: 200_000n },
    { label: 'value transfer B -> A', to: A.address, value: 3n * ETH, gas: 21_000n },
    {
      label: 'EIP-2930: ERC-20 transfer B -> C, the token and both balance slots in the access list',
      kind: 'eip2930',
      accessList: [{ address: addresses.token, storageKeys: [mappingSlot(B.address, 3n), mappingSlot(C, 3n)] }],
      to: addresses.token,
      data: t('transfer', [C, 1n]),
      gas: 200_000n,
    },
    { label: 'EIP-1559: ERC-20 approve', kind: 'eip1559', to: addresses.token, data: t('approve', [C, 9n]), gas: 200_000n },
    { label: 'EIP-1559: value transfer B -> X', kind: 'eip1559', to: X, value: 5n, gas: 21_000n },
  ];
  return { one, two, addresses };
}

interface Signed {
  readonly label: string;
  readonly raw: Hex;
  readonly hash: Hex;
}

async function signAll(account: typeof A, steps: Step[], firstNonce: number): Promise<Signed[]> {
  const out: Signed[] = [];
  for (const [i, s] of steps.entries()) {
    const common = {
      chainId: Number(CHAIN_ID),
      nonce: firstNonce + i,
      gas: s.gas,
      ...(s.to === undefined ? {} : { to: s.to }),
      value: s.value ?? 0n,
      ...(s.data === undefined ? {} : { data: s.data }),
    };
    const raw =
      s.kind === 'eip1559'
        ? await account.signTransaction({ ...common, type: 'eip1559', maxFeePerGas: GAS_PRICE, maxPriorityFeePerGas: TIP })
        : s.kind === 'eip2930'
          ? await account.signTransaction({ ...common, type: 'eip2930', gasPrice: GAS_PRICE, accessList: s.accessList ?? [] })
          : await account.signTransaction({ ...common, type: 'legacy', gasPrice: GAS_PRICE });
    out.push({ label: s.label, raw, hash: keccak256(raw) });
  }
  return out;
}

/**
 * What must match in a receipt (block placement, cumulative gas and log indexes depend on the grouping; an
 * EIP-1559 transaction's effective price depends on each chain's base fee, so it is left out for type 2).
 */
function receiptCore(r: any) {
  return {
    status: r.status,
    gasUsed: BigInt(r.gasUsed),
    effectiveGasPrice: r.type === '0x2' ? 'base fee dependent' : BigInt(r.effectiveGasPrice),
    type: r.type,
    from: r.from.toLowerCase(),
    to: r.to?.toLowerCase() ?? null,
    contractAddress: r.contractAddress?.toLowerCase() ?? null,
    logs: r.logs.map((l: any) => ({ address: l.address.toLowerCase(), topics: l.topics, data: l.data })),
  };
}

async function submitPhase(url: string, txs: Signed[], oneByOne: boolean): Promise<any[]> {
  const hashes: string[] = [];
  for (const t of txs) {
    hashes.push(await rpc(url, 'eth_sendRawTransaction', [t.raw]));
    if (oneByOne) await waitForReceipt(url, t.hash, 30_000);
  }
  expect(hashes).toEqual(txs.map((t) => t.hash));
  const receipts = [];
  for (const t of txs) receipts.push(await waitForReceipt(url, t.hash, 120_000));
  return receipts;
}

beforeAll(async () => {
  anvil = await startAnvil();
});
afterAll(async () => {
  await anvil?.stop();
});

describe('differential: devnet vs anvil', () => {
  const plan = phases();
  const results: Record<'ours' | 'anvil', { one: any[]; two: any[] }> = { ours: { one: [], two: [] }, anvil: { one: [], two: [] } };
  const before: Record<'ours' | 'anvil', Record<string, bigint>> = { ours: {}, anvil: {} };
  let one: Signed[];
  let two: Signed[];

  it('both chains start alike: chain id, the senders’ nonces and balances', async () => {
    for (const [name, url] of [['ours', ours], ['anvil', anvil.url]] as const) {
      expect(BigInt(await rpc(url, 'eth_chainId'))).toBe(CHAIN_ID);
      for (const a of [A.address, B.address]) {
        expect(await rpc(url, 'eth_getTransactionCount', [a, 'latest'])).toBe('0x0');
        before[name][a] = BigInt(await rpc(url, 'eth_getBalance', [a, 'latest']));
      }
    }
    expect(before.ours).toEqual(before.anvil);
    one = [...(await signAll(A, plan.one, 0)), ...(await signAll(A, await precompileSteps(plan.addresses.probe), plan.one.length))];
    two = await signAll(B, plan.two, 0);
  });

  it('phase 1 (one sender, deployments, ERC-20, storage, precompiles, reverts): identical receipts', async () => {
    results.ours.one = await submitPhase(ours, one, false);
    results.anvil.one = await submitPhase(anvil.url, one, true);
    for (const [i, t] of one.entries()) {
      expect(receiptCore(results.ours.one[i]), t.label).toEqual(receiptCore(results.anvil.one[i]));
    }
    // The run covers what it says it does.
    const statuses = Object.fromEntries(one.map((t, i) => [t.label, results.ours.one[i].status]));
    expect(statuses['deploy Reverter (fails in its constructor)']).toBe('0x0');
    expect(statuses['ERC-20 transfer above the balance (reverts)']).toBe('0x0');
    expect(statuses['value transfer to a contract without receive (reverts)']).toBe('0x0');
    expect(Object.values(statuses).filter((s) => s === '0x1')).toHaveLength(one.length - 3);
    // Each precompile answered (the Probed event's ok flag), except the two malformed inputs.
    const probed = one
      .map((t, i) => [t.label, results.ours.one[i]] as const)
      .filter(([l]) => l.startsWith('precompile'))
      .map(([l, r]) => [l, BigInt(r.logs[0].data.slice(0, 66))]);
    expect(probed.filter(([, ok]) => ok === 1n).map(([l]) => l)).toHaveLength(9);
  });

  it('phase 2 (a second sender using phase 1’s allowance): identical receipts', async () => {
    results.ours.two = await submitPhase(ours, two, false);
    results.anvil.two = await submitPhase(anvil.url, two, true);
    for (const [i, t] of two.entries()) {
      expect(receiptCore(results.ours.two[i]), t.label).toEqual(receiptCore(results.anvil.two[i]));
    }
    expect(results.ours.two.map((r) => r.status)).toEqual(['0x1', '0x1', '0x0', '0x1', '0x1', '0x1', '0x1']);
    expect(results.ours.two.map((r) => r.type)).toEqual(['0x0', '0x0', '0x0', '0x0', '0x1', '0x2', '0x2']);
  });

  it('the same end state: balances, nonces, code and every written storage slot', async () => {
    const create2 = results.ours.one.find((_, i) => one[i]!.label.startsWith('Factory'))!.logs[0].data as Hex;
    const child = `0x${create2.slice(26)}` as Hex;
    const accountsToCheck = [A.address, B.address, C, X, child, ...Object.values(plan.addresses)];
    const slots: [Hex, Hex][] = [];
    for (let i = 0n; i <= 64n; i++) slots.push([plan.addresses.store, `0x${word(i)}`]);
    for (let i = 0n; i < 3n; i++) slots.push([plan.addresses.token, `0x${word(i)}`]);
    for (const who of [A.address, B.address, C]) slots.push([plan.addresses.token, mappingSlot(who, 3n)]);
    slots.push([plan.addresses.token, nestedSlot(A.address, B.address, 4n)], [plan.addresses.token, nestedSlot(B.address, C, 4n)]);
    slots.push([plan.addresses.probe, `0x${word(0)}`]);
    for (let i = 0n; i < 11n; i++) slots.push([plan.addresses.probe, mappingSlot(`0x${word(i)}`, 1n)]);
    slots.push([child, `0x${word(64)}`]);

    const state = async (name: 'ours' | 'anvil', url: string) => {
      const out: Record<string, unknown> = {};
      // Fees paid per sender: exact on both for legacy and EIP-2930 (gas used x the fixed price), base fee
      // dependent for EIP-1559; balances are compared with the fees added back.
      const fees: Record<string, bigint> = {};
      for (const r of [...results[name].one, ...results[name].two]) {
        fees[r.from.toLowerCase()] = (fees[r.from.toLowerCase()] ?? 0n) + BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice);
      }
      for (const a of accountsToCheck) {
        const balance = BigInt(await rpc(url, 'eth_getBalance', [a, 'latest']));
        out[`balance-delta + fees ${a}`] = balance - (before[name][a] ?? 0n) + (fees[a.toLowerCase()] ?? 0n);
        out[`nonce ${a}`] = BigInt(await rpc(url, 'eth_getTransactionCount', [a, 'latest']));
        out[`code ${a}`] = await rpc(url, 'eth_getCode', [a, 'latest']);
      }
      for (const [a, s] of slots) out[`storage ${a} ${s}`] = BigInt(await rpc(url, 'eth_getStorageAt', [a, s, 'latest']));
      return out;
    };
    const o = await state('ours', ours);
    const n = await state('anvil', anvil.url);
    expect(o).toEqual(n);
    // Sanity: the state is not trivially empty.
    expect(o[`nonce ${A.address}`]).toBe(BigInt(one.length));
    expect(o[`code ${plan.addresses.reverter}`]).toBe('0x');
    expect(o[`code ${child}`]).toBe(storeC.deployedBytecode);
    expect(o[`storage ${plan.addresses.token} ${mappingSlot(C, 3n)}`]).toBe(401n);
    expect(o[`storage ${plan.addresses.token} ${nestedSlot(B.address, C, 4n)}`]).toBe(9n);
    expect(o[`storage ${plan.addresses.probe} 0x${word(0)}`]).toBe(11n);
  });

  it('the same revert data from eth_call', async () => {
    const data = encodeFunctionData({ abi: token.abi as Abi, functionName: 'transfer', args: [A.address, 10n ** 30n] });
    const revert = async (url: string) =>
      (await rpc(url, 'eth_call', [{ from: C, to: plan.addresses.token, data }, 'latest']).catch((e: { data?: unknown }) => e)) as { data?: unknown };
    const [o, n] = [await revert(ours), await revert(anvil.url)];
    expect(o.data).toBe(n.data);
    expect(String(o.data).slice(0, 10)).toBe('0xdb42144d'); // InsufficientBalance(address,uint256,uint256)
  });
});

describe('the shared devnet', () => {
  it('logged no internal gateway errors', () => {
    expect(gatewayInternalErrors(inject('devnetLog'))).toEqual([]);
  });
});
