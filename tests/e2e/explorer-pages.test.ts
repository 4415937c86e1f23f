// The explorer's pages in a real browser (Playwright driving Debian's Chromium) against `npm start`: a transfer,
// an ERC-20 deployed and used, a failing call with a custom error; each is searched from the home page and its
// page checked; the token verified through the Verify form, after which its page decodes the failure and offers
// the read-only call form. The trace views: a transaction that creates two contracts (CREATE and CREATE2), sends
// them ether and has one self-destruct, its call tree and state changes live (the gateway's archive traces it on
// demand), and the internal-transaction views over the archive's rows, both on the devnet's explorer (rows filled
// by the archive's replay where it writes them) and on an explorer over a database set up with those rows.
// One screenshot per page kind (into docs/screenshots with UPDATE_SCREENSHOTS=1).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AbiCoder, ContractFactory, FetchRequest, JsonRpcProvider, Wallet, type Contract } from 'ethers';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { devAccounts } from '../../src/devnet/accounts.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { ensureChromium, launchChromium } from '../support/browser.js';
import { ROOT, rpc, sleep, tempDir, waitForReceipt } from '../support/e2e.js';
import { rowsFromCallTrace, type CallJson } from '../support/explorer_traces.js';
import { openDb, type Db } from '../../src/indexer/db.js';
import { migrate } from '../../src/indexer/migrate.js';
import { INDEXER_COMPONENT, INDEXER_MIGRATIONS } from '../../src/indexer/schema.js';
import { ensureArchiveSchema } from '../../src/archive/schema.js';
import { writeInternalRows } from '../../src/archive/internal_rows.js';
import { createPagesHandler, type VerifiedContractInfo } from '../../src/explorer/pages/index.js';
import { gatewayRpc } from '../../src/explorer/pages/routes.js';

// Development account 9 belongs to this file on the shared chain (see global-setup.ts).
const account = devAccounts()[9]!;
const shots = process.env.UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : tempDir('explorer-shots-');
mkdirSync(shots, { recursive: true });

/**
 * ethers over the devnet with every request bounded (its own default is 5 minutes, as long as a test's
 * timeout, so a request left unanswered would time the test out without naming the step).
 */
function boundedProvider(url: string): JsonRpcProvider {
  const request = new FetchRequest(url);
  request.timeout = 30_000;
  return new JsonRpcProvider(request, undefined, { staticNetwork: true, pollingInterval: 250 });
}

const chromium = ensureChromium();
if ('reason' in chromium) console.warn(`explorer browser test skipped: ${chromium.reason}`);

describe.skipIf('reason' in chromium)('explorer pages in Chromium', () => {
  const rpcUrl = inject('devnetUrl');
  const explorerUrl = inject('explorerUrl');
  let browser: Browser;
  let page: Page;
  let token: Contract;
  let tokenAddress: string;
  let transferHash: string;
  let transferBlock: number;
  let failedHash: string;

  /** Polls an explorer page until the indexer has the row (bounded). */
  async function waitIndexed(path: string): Promise<void> {
    const until = Date.now() + 60_000;
    for (;;) {
      const r = await fetch(explorerUrl + path);
      const text = await r.text();
      if (r.status === 200 && !text.includes('not copied it yet') && !text.includes('Pending')) return;
      if (Date.now() > until) throw new Error(`${path} not indexed within 60 s (last status ${r.status})`);
      await sleep(500);
    }
  }

  async function search(q: string): Promise<void> {
    await page.goto(explorerUrl);
    await page.fill('input[name=q]', q);
    await Promise.all([page.waitForURL((u) => u.pathname !== '/'), page.click('header button[type=submit]')]);
  }

  /** Each set-up step bounded on its own, so a step that hangs is named instead of the whole hook timing out. */
  async function step<T>(label: string, ms: number, run: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const started = Date.now();
    try {
      return await Promise.race([run(), new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`set-up step "${label}" did not finish within ${ms / 1000} s`)), ms)))]);
    } finally {
      clearTimeout(timer);
      const took = Date.now() - started;
      if (took > 10_000) console.log(`explorer pages set-up: "${label}" took ${(took / 1000).toFixed(1)} s`);
    }
  }

  beforeAll(async () => {
    const rpcProvider = boundedProvider(rpcUrl);
    const wallet = new Wallet(account.privateKey, rpcProvider);
    const compiled = await step('compile Token.sol', 120_000, async () => compileFixture('Token.sol', 'Token'));
    const factory = new ContractFactory(compiled.abi as never, compiled.bytecode, wallet);
    token = await step('deploy the token', 60_000, async () => {
      const c = (await factory.deploy('Explorer Token', 'EXT', 1_000_000n)) as Contract;
      await c.waitForDeployment();
      return c;
    });
    tokenAddress = (await token.getAddress()).toLowerCase();
    await step('a token transfer', 60_000, async () => (await token.getFunction('transfer')(devAccounts()[0]!.address, 250n)).wait());
    const receipt = await step('a value transfer', 60_000, async () => {
      const transfer = await wallet.sendTransaction({ to: devAccounts()[0]!.address, value: 10n ** 17n });
      transferHash = transfer.hash;
      return transfer.wait();
    });
    transferBlock = receipt!.blockNumber;
    // More than the balance: InsufficientBalance(from, balance, needed); a fixed gas limit skips estimation.
    await step('a failing token transfer', 60_000, async () => {
      const failing = await token.getFunction('transfer')(devAccounts()[0]!.address, 10n ** 30n, { gasLimit: 100_000n });
      failedHash = failing.hash;
      await rpcProvider.waitForTransaction(failedHash, 1, 60_000);
    });
    await waitIndexed(`/tx/${failedHash}`);
    await waitIndexed(`/tx/${transferHash}`);
    browser = await step('launch Chromium', 90_000, () => launchChromium((chromium as { path: string }).path));
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('home shows the latest blocks and transactions and updates without a reload', async () => {
    await page.goto(explorerUrl);
    expect(await page.locator('main').textContent()).toContain('Latest blocks');
    const head = async (): Promise<number> => Number(await page.locator('#head-block a').textContent());
    const before = await head();
    expect(before).toBeGreaterThanOrEqual(transferBlock);
    await page.screenshot({ path: join(shots, 'home.png') });
    // A new block (a transfer) appears on the open page within a few refreshes.
    const wallet = new Wallet(account.privateKey, boundedProvider(rpcUrl));
    const sent = await step('send a transfer', 60_000, () => wallet.sendTransaction({ to: devAccounts()[0]!.address, value: 1n }));
    await step('its receipt', 60_000, () => waitForReceipt(rpcUrl, sent.hash));
    // The page's own script (the CSP forbids evaluating test code in it): poll what it shows.
    const until = Date.now() + 30_000;
    while ((await head()) <= before) {
      if (Date.now() > until) throw new Error('the home page did not show a new head block within 30 s');
      await sleep(500);
    }
  });

  it('a transfer found by its hash: success, from, to, value, fee; its block by number', async () => {
    await search(transferHash);
    expect(page.url()).toContain(`/tx/${transferHash}`);
    expect(await page.locator('#tx-status').textContent()).toContain('Success');
    const body = await page.locator('main').textContent();
    expect(body).toContain('0.1 ETH');
    expect(body?.toLowerCase()).toContain(account.address.toLowerCase());
    await page.screenshot({ path: join(shots, 'transaction.png'), fullPage: true });

    await search(String(transferBlock));
    expect(page.url()).toContain(`/block/${transferBlock}`);
    expect(await page.locator('main').textContent()).toContain(transferHash.slice(0, 12));
    await page.screenshot({ path: join(shots, 'block.png'), fullPage: true });
  });

  it('the failing call: failed, with the reason; after verification through the form, the custom error is decoded', async () => {
    await search(failedHash);
    expect(await page.locator('#tx-status').textContent()).toContain('Failed');

    // Verify the token with the Verify form (single file, the fixture's settings, its constructor arguments).
    await page.goto(`${explorerUrl}/verify?address=${tokenAddress}`);
    const solcVersion = (JSON.parse(readFileSync(join(ROOT, 'node_modules', 'solc', 'package.json'), 'utf8')) as { version: string }).version;
    await page.fill('#v-compiler', solcVersion);
    await page.fill('#v-name', 'Token');
    await page.fill('#v-source', readFileSync(join(ROOT, 'tests', 'fixtures', 'solidity', 'Token.sol'), 'utf8'));
    await page.check('#v-optimizer');
    await page.fill('#v-runs', '200');
    await page.fill('#v-args', AbiCoder.defaultAbiCoder().encode(['string', 'string', 'uint256'], ['Explorer Token', 'EXT', 1_000_000n]).slice(2));
    await page.click('#verify-form button[type=submit]');
    await page.locator('#verify-status', { hasText: /Verified|Failed|Refused/ }).waitFor({ timeout: 120_000 });
    const status = await page.locator('#verify-status').textContent();
    await page.screenshot({ path: join(shots, 'verify.png'), fullPage: true });
    expect(status).toContain('Verified');

    await page.goto(`${explorerUrl}/tx/${failedHash}`);
    const reason = await page.locator('#revert-reason').textContent();
    expect(reason).toContain('InsufficientBalance');
    expect(await page.locator('#decoded-input').textContent()).toContain('transfer');
  });

  it('the token contract: verified source, a read-only call, transfers and holders', async () => {
    await search(tokenAddress);
    expect(page.url()).toContain(`/address/${tokenAddress}`);
    expect(await page.locator('#verified').textContent()).toContain('Yes');
    const form = page.locator('form.read-fn', { hasText: 'balanceOf' });
    await form.locator('input[name=a0]').fill(account.address);
    await Promise.all([page.waitForURL(/\/read\?/), form.locator('button').click()]);
    expect(await page.locator('#read-result').textContent()).toContain(String(1_000_000n - 250n));
    await page.screenshot({ path: join(shots, 'address.png'), fullPage: true });

    await page.goto(`${explorerUrl}/token/${tokenAddress}`);
    const text = await page.locator('main').textContent();
    expect(text).toContain('EXT');
    expect(text?.toLowerCase()).toContain(devAccounts()[0]!.address.toLowerCase().slice(0, 10));
    await page.screenshot({ path: join(shots, 'token.png'), fullPage: true });
  });

  it('ops page: the canister state and the pruned gaps', async () => {
    await page.goto(`${explorerUrl}/ops`);
    expect(await page.locator('main').textContent()).toContain('Pruned gaps');
    await page.screenshot({ path: join(shots, 'ops.png'), fullPage: true });
  });
});

describe.skipIf('reason' in chromium)('explorer trace views in Chromium', () => {
  const rpcUrl = inject('devnetUrl');
  const explorerUrl = inject('explorerUrl');
  const traced = (name: string) => compileFixture('../../support/trace_fixtures/Traced.sol', name);
  let browser: Browser;
  let page: Page;
  let runHash: string;
  let tracee: string;
  let c1: string;
  let c2: string;
  const sink = Wallet.createRandom().address.toLowerCase();
  // An explorer over its own database: the indexer's rows of the traced transaction and the archive's rows
  // derived from its call tree, the gateway the devnet's, the Traced.sol contracts verified.
  let db: Db;
  let server: Server;
  let ownUrl: string;

  /** Opens a trace tab, reloading while the archive has not re-executed the block yet (bounded). */
  async function openTab(url: string, selector: string): Promise<void> {
    const until = Date.now() + 60_000;
    for (;;) {
      await page.goto(url);
      if ((await page.locator(selector).count()) > 0) return;
      const notice = await page.locator('#trace-notice').textContent().catch(() => null);
      if (Date.now() > until) throw new Error(`${url}: no ${selector} within 60 s (${notice ?? 'no notice'})`);
      await sleep(500);
    }
  }

  beforeAll(async () => {
    const provider = boundedProvider(rpcUrl);
    const wallet = new Wallet(account.privateKey, provider);
    const deploy = async (name: string): Promise<string> => {
      const c = traced(name);
      const d = (await new ContractFactory(c.abi as never, c.bytecode, wallet).deploy()) as Contract;
      await d.waitForDeployment();
      return (await d.getAddress()).toLowerCase();
    };
    const lib = await deploy('Lib');
    const reverter = await deploy('Reverter');
    tracee = await deploy('Tracee');
    const t = traced('Tracee');
    const contract = new ContractFactory(t.abi as never, t.bytecode, wallet).attach(tracee) as Contract;
    const [a1, a2] = (await contract.getFunction('run').staticCall(lib, reverter, sink, { value: 6n })) as [string, string];
    c1 = a1.toLowerCase();
    c2 = a2.toLowerCase();
    // 1 wei to c1 (CREATE), 2 to c2 (CREATE2), c2 self-destructs to the sink, which also gets 3.
    const tx = await contract.getFunction('run')(lib, reverter, sink, { value: 6n, gasLimit: 3_000_000n });
    runHash = tx.hash;
    await tx.wait();

    // Wait until the devnet's archive traces it, then set up the second explorer's database from that trace.
    let trace: CallJson | undefined;
    const until = Date.now() + 60_000;
    while (trace === undefined) {
      try {
        trace = await rpc<CallJson>(rpcUrl, 'debug_traceTransaction', [runHash, { tracer: 'callTracer' }]);
      } catch (e) {
        if (Date.now() > until) throw e;
        await sleep(500);
      }
    }
    const receipt = await provider.getTransactionReceipt(runHash);
    const block = BigInt(receipt!.blockNumber);
    const b = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex.replace(/^0x/, ''), 'hex'));
    db = await openDb({ memory: true });
    await migrate(db, INDEXER_COMPONENT, INDEXER_MIGRATIONS);
    await ensureArchiveSchema(db, 4801360n);
    await db.query(
      `INSERT INTO blocks (number, hash, parent_hash, timestamp, gas_used, gas_limit, base_fee, tx_count, miner, state_root, transactions_root, receipts_root, logs_bloom, size)
       VALUES ($1, $2, $2, 1700000000, 0, 30000000, '0', 1, $3, $2, $2, $2, $4, 0)`,
      [block, b(receipt!.blockHash), b(`0x${'00'.repeat(20)}`), new Uint8Array(256)],
    );
    await db.query(
      `INSERT INTO txs (eth_tx_hash, tx_id, block_number, tx_index, type, origin, from_address, to_address, value, nonce, gas_limit, input, receipt_status)
       VALUES ($1, $2, $3, $4, 2, 'EthSigned', $5, $6, '6', $7, 3000000, $8, 1)`,
      [b(runHash), b(runHash.slice(0, 18)), block, receipt!.index, b(account.address), b(tracee), BigInt(tx.nonce), b(tx.data)],
    );
    await db.query(
      `INSERT INTO receipts (tx_hash, block_number, status, gas_used, cumulative_gas_used, effective_gas_price, contract_address) VALUES ($1, $2, 1, $3, $3, $4, NULL)`,
      [b(runHash), block, receipt!.gasUsed, receipt!.gasPrice.toString()],
    );
    const rows = rowsFromCallTrace(trace, { block, txIndex: receipt!.index, txHash: b(runHash) });
    await writeInternalRows(db, rows.internal, rows.creators);
    const abis: Record<string, VerifiedContractInfo> = {};
    const verifiedAs = (name: string, address: string): void => {
      abis[address] = { contractName: name, compilerVersion: 'fixture', match: 'full', abi: traced(name).abi as VerifiedContractInfo['abi'], sources: {}, settings: {} };
    };
    verifiedAs('Tracee', tracee);
    verifiedAs('Reverter', reverter);
    verifiedAs('Lib', lib);
    verifiedAs('Child', c2);
    const pages = createPagesHandler({ db, chainId: 4801360n, rpc: gatewayRpc(rpcUrl), verified: async (a) => abis[`0x${Buffer.from(a).toString('hex')}`] });
    server = createServer((req, res) => void pages(req, res).then((ok) => ok || res.writeHead(404).end()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    ownUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    browser = await launchChromium((chromium as { path: string }).path);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    if (server !== undefined) {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    await db?.close();
  });

  it('the devnet explorer: the call tree with CREATE, CREATE2, SELFDESTRUCT and the values moved, the caught revert marked', async () => {
    const until = Date.now() + 60_000;
    while ((await (await fetch(`${explorerUrl}/tx/${runHash}`)).text()).includes('not copied it yet') && Date.now() < until) await sleep(500);
    await page.goto(`${explorerUrl}/tx/${runHash}`);
    await Promise.all([page.waitForURL(/\/calls$/), page.click('#tx-tabs a:has-text("Call tree")')]);
    await openTab(`${explorerUrl}/tx/${runHash}/calls`, '#call-tree');
    const create = page.locator('li[data-type="CREATE"]');
    expect(await create.count()).toBe(1);
    expect(await create.textContent()).toContain('0.000000000000000001 ETH');
    expect((await create.locator('a').nth(1).getAttribute('href'))?.toLowerCase()).toBe(`/address/${c1}`);
    const create2 = page.locator('li[data-type="CREATE2"]');
    expect(await create2.textContent()).toContain('0.000000000000000002 ETH');
    const bye = page.locator('li[data-type="SELFDESTRUCT"]');
    expect(await bye.count()).toBe(1);
    expect(await bye.textContent()).toContain('beneficiary');
    expect(await bye.textContent()).toContain('0.000000000000000002 ETH');
    // The contract's plain transfer of 3 wei to the sink.
    expect(await page.locator(`li[data-type="CALL"]:has(> a[href="/address/${sink}"]) > .value`).textContent()).toBe('0.000000000000000003 ETH');
    // Reverter.fail("nope") and panic(0) reverted where they happened (caught by the caller).
    const failed = page.locator('li.frame.failed');
    expect(await failed.count()).toBe(2);
    expect(await failed.first().textContent()).toContain('nope');
    await page.screenshot({ path: join(shots, 'transaction-calls.png'), fullPage: true });
  });

  it('the devnet explorer: the state changes with the balance diffs and the created code', async () => {
    await page.goto(`${explorerUrl}/tx/${runHash}/calls`);
    await Promise.all([page.waitForURL(/\/state$/), page.click('#tx-tabs a:has-text("State changes")')]);
    await openTab(`${explorerUrl}/tx/${runHash}/state`, '#state-changes');
    expect(await page.locator(`[data-address="${sink}"] .balance-diff`).textContent()).toBe('0 ETH → 0.000000000000000005 ETH (+0.000000000000000005 ETH)');
    expect(await page.locator(`[data-address="${c1}"] .balance-diff`).textContent()).toContain('+0.000000000000000001 ETH');
    expect(await page.locator(`[data-address="${c1}"] .code-created`).textContent()).toContain('created');
    // c2 was created and removed in the same transaction: no state of its own before or after.
    expect(await page.locator(`[data-address="${c2}"]`).count()).toBe(0);
    expect(await page.locator(`[data-address="${account.address.toLowerCase()}"] .balance-diff`).textContent()).toContain('−');
    await page.screenshot({ path: join(shots, 'transaction-state.png'), fullPage: true });
  });

  it('the devnet explorer: the created contract\'s page lists the archive\'s rows where the replay wrote them', async () => {
    await page.goto(`${explorerUrl}/address/${c1}`);
    const internal = page.locator('#internal-txs tr.internal-tx');
    // The rows come from the archive's replay: where it fills them, the CREATE that made c1 is listed with its creator.
    if ((await internal.count()) > 0) {
      expect(await page.locator('#internal-txs tr[data-type="CREATE"]').textContent()).toContain('0.000000000000000001 ETH');
      expect((await page.locator('#creator').textContent())?.toLowerCase()).toContain(tracee);
    } else {
      expect(await page.locator('main').textContent()).toMatch(/No internal transactions|has none/);
    }
  });

  it('internal transactions: the created contract lists its CREATE, names the creating contract and transaction; the sink\'s balance history has the internal transfers', async () => {
    await page.goto(`${ownUrl}/address/${c1}`);
    const create = page.locator('#internal-txs tr.internal-tx[data-type="CREATE"]');
    expect(await create.count()).toBe(1);
    const row = (await create.textContent()) ?? '';
    expect(row).toContain('0.000000000000000001 ETH');
    expect(row).toContain('Success');
    const creator = (await page.locator('#creator').textContent()) ?? '';
    expect(creator).toContain('contract');
    expect(creator.toLowerCase()).toContain(tracee);
    expect(creator).toContain('Tracee');
    expect(creator.toLowerCase()).toContain(runHash.toLowerCase());
    await page.screenshot({ path: join(shots, 'address-internal.png'), fullPage: true });

    await page.goto(`${ownUrl}/address/${sink}`);
    expect(await page.locator('#internal-txs tr[data-type="SELFDESTRUCT"]').count()).toBe(1);
    expect(await page.locator('#internal-txs tr[data-type="CALL"]').count()).toBe(1);
    expect(await page.locator('#balance-history .internal-change').first().textContent()).toBe('+0.000000000000000005 ETH');
    // The balance at the end of the block, from the devnet's gateway.
    expect(await page.locator('#balance-history tr.balance-change td').last().textContent()).toBe('0.000000000000000005 ETH');

    // The call tree on this explorer decodes the calls with the verified ABIs.
    await openTab(`${ownUrl}/tx/${runHash}/calls`, '#call-tree');
    expect(await page.locator('li[data-trace=""] > .fn').first().textContent()).toMatch(/^run\(/);
    expect(await page.locator('li.frame.failed .frame-error').first().textContent()).toContain('nope');
    expect(await page.locator('li[data-type="CALL"] > .fn', { hasText: 'bye(' }).count()).toBe(1);
  });
});
