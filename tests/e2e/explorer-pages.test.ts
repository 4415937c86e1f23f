// The explorer's pages in a real browser (Playwright driving Debian's Chromium) against `npm start`: a transfer,
// an ERC-20 deployed and used, a failing call with a custom error; each is searched from the home page and its
// page checked; the token verified through the Verify form, after which its page decodes the failure and offers
// the read-only call form. One screenshot per page kind (into docs/screenshots with UPDATE_SCREENSHOTS=1).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AbiCoder, ContractFactory, JsonRpcProvider, Wallet, type Contract } from 'ethers';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { devAccounts } from '../../src/devnet/accounts.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { ensureChromium, launchChromium } from '../support/browser.js';
import { ROOT, sleep, tempDir } from '../support/e2e.js';

// Development account 9 belongs to this file on the shared chain (see global-setup.ts).
const account = devAccounts()[9]!;
const shots = process.env.UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : tempDir('explorer-shots-');
mkdirSync(shots, { recursive: true });

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

  beforeAll(async () => {
    const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true, pollingInterval: 250 });
    const wallet = new Wallet(account.privateKey, provider);
    const compiled = compileFixture('Token.sol', 'Token');
    const factory = new ContractFactory(compiled.abi as never, compiled.bytecode, wallet);
    token = (await factory.deploy('Explorer Token', 'EXT', 1_000_000n)) as Contract;
    await token.waitForDeployment();
    tokenAddress = (await token.getAddress()).toLowerCase();
    await (await token.getFunction('transfer')(devAccounts()[0]!.address, 250n)).wait();
    const transfer = await wallet.sendTransaction({ to: devAccounts()[0]!.address, value: 10n ** 17n });
    const receipt = await transfer.wait();
    transferHash = transfer.hash;
    transferBlock = receipt!.blockNumber;
    // More than the balance: InsufficientBalance(from, balance, needed); a fixed gas limit skips estimation.
    const failing = await token.getFunction('transfer')(devAccounts()[0]!.address, 10n ** 30n, { gasLimit: 100_000n });
    failedHash = failing.hash;
    await provider.waitForTransaction(failedHash, 1, 60_000);
    await waitIndexed(`/tx/${failedHash}`);
    await waitIndexed(`/tx/${transferHash}`);
    browser = await launchChromium((chromium as { path: string }).path);
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
    const wallet = new Wallet(account.privateKey, new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true }));
    await (await wallet.sendTransaction({ to: devAccounts()[0]!.address, value: 1n })).wait();
    await page.waitForFunction(`Number(document.querySelector('#head-block a')?.textContent) > ${before}`, undefined, { timeout: 30_000 });
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
    await page.waitForFunction(`/Verified|Failed|Refused/.test(document.querySelector('#verify-status')?.textContent ?? '')`, undefined, { timeout: 120_000 });
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
